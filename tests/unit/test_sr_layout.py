"""How schema_registry/ is put together: the classes made from one description (each format's
builders and asyncio serdes), the sans-IO step driver the blocking and asyncio code share, and
the public modules as facades over the private ones, checked against confluent-kafka where it
has the same names."""

import asyncio
import inspect

import pytest

pytest.importorskip("fastavro")
pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka.schema_registry as ck_sr  # noqa: E402
import confluent_kafka.schema_registry.schema_registry_client as ck_client  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import json_schema as ck_json  # noqa: E402

from confluent_binding import schema_registry  # noqa: E402
from confluent_binding.schema_registry import (  # noqa: E402
    _aserde,
    _steps,
    avro,
    json_schema,
    schema_registry_client,
    serde,
)

_SCHEMA = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'
_FORMATS = [(avro, ck_avro, "Avro"), (json_schema, ck_json, "JSON")]


@pytest.mark.parametrize("module, ck_module, fmt", _FORMATS, ids=["avro", "json"])
def test_generated_classes_belong_to_their_format_module(module, ck_module, fmt):
    for kind in ("Serializer", "Deserializer"):
        blocking = getattr(module, fmt + kind)
        builder = getattr(module, fmt + kind + "Builder")
        asynchronous = getattr(module, "Async" + fmt + kind)
        async_builder = getattr(module, "Async" + fmt + kind + "Builder")
        for cls in (builder, asynchronous, async_builder):
            assert cls.__module__ == module.__name__
            assert cls.__qualname__ == cls.__name__
            assert cls.__doc__ and blocking.__name__ in cls.__doc__
        assert asynchronous._blocking_type is blocking
        base = _aserde.AsyncBaseSerializer if kind == "Serializer" else \
            _aserde.AsyncBaseDeserializer
        assert issubclass(asynchronous, base)
        assert builder._serde_type is blocking and async_builder._serde_type is asynchronous
        # the fields follow from the serde's parameters, in confluent-kafka's builder's order
        for ours, theirs in ((builder, getattr(ck_module, fmt + kind + "Builder")),
                             (async_builder, getattr(ck_module, "Async" + fmt + kind + "Builder"))):
            assert list(ours._fields) == list(inspect.signature(theirs).parameters)
            assert all(callable(getattr(ours, "set_" + f)) for f in ours._fields)


def test_builder_passes_what_was_set_and_leaves_the_rest_at_the_serde_defaults():
    conf = {"url": "mock://layout"}
    built, rest = avro.AvroDeserializerBuilder(
        conf, None, _SCHEMA, None, True).build({"other": 1}, False)
    try:
        assert rest == {"other": 1}
        assert built._return_record_name is True
    finally:
        built.close()
    # unset: AvroDeserializer's default (False), not None
    built, _ = avro.AvroDeserializerBuilder(schema_registry_config=conf).build({}, False)
    try:
        assert built._return_record_name is False
    finally:
        built.close()
    # a value the serde refuses is refused as confluent-kafka's builder refuses it
    for module in (avro, ck_avro):
        builder = module.AvroDeserializerBuilder(conf).set_return_record_name("yes")
        with pytest.raises(ValueError, match="return_record_name must be a boolean value"):
            builder.build({}, False)


def test_async_builder_makes_the_async_serde_from_the_same_fields():
    async def build():
        built, _ = await avro.AsyncAvroSerializerBuilder(
            {"url": "mock://layout-async"}, None, _SCHEMA).build({}, False)
        try:
            assert isinstance(built, avro.AsyncAvroSerializer)
            assert built._serde._schema.schema_str == _SCHEMA
        finally:
            await built.aclose()

    asyncio.run(build())


def _steps_asking(what):
    """A description that asks for ``what`` twice and returns the answers; a ValueError thrown
    in is answered with "recovered"."""
    answers = []
    for item in what:
        try:
            answers.append((yield item))
        except ValueError:
            answers.append("recovered")
    return answers


def test_drive_sends_results_and_throws_only_what_it_catches():
    async def perform(step):
        if step == "bad":
            raise ValueError(step)
        if step == "fatal":
            raise KeyError(step)
        return step.upper()

    assert _steps.finish(_steps.drive(_steps_asking(["a", "bad", "b"]), perform, ValueError)) \
        == ["A", "recovered", "B"]
    with pytest.raises(KeyError):
        _steps.finish(_steps.drive(_steps_asking(["a", "fatal"]), perform, ValueError))


def test_finish_refuses_a_step_that_suspends():
    async def suspends(step):
        await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="a blocking step suspended"):
        _steps.finish(_steps.drive(_steps_asking(["a"]), suspends))


def test_public_modules_offer_confluents_names_from_one_list_each():
    assert set(schema_registry.__all__) == set(ck_sr.__all__)
    assert len(schema_registry.__all__) == len(set(schema_registry.__all__))
    for module in (schema_registry, schema_registry_client, serde):
        assert len(module.__all__) == len(set(module.__all__)), module.__name__
        assert [n for n in module.__all__ if not hasattr(module, n)] == [], module.__name__
    # the client module's value types and clients are those of confluent-kafka's module
    in_client_module = {n for n in ck_sr.__all__ if hasattr(ck_client, n)}
    assert in_client_module <= set(schema_registry_client.__all__)
    # the clients are the facade module's (where confluent-kafka has them), as before the split
    for cls in (schema_registry.SchemaRegistryClient, schema_registry.AsyncSchemaRegistryClient):
        assert cls.__module__ == schema_registry_client.__name__
