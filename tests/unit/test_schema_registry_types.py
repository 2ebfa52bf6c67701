"""Schema Registry client pieces that need no registry: config checks and value types, compared
with confluent-kafka's."""

import json

import pytest

pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka.schema_registry as theirs  # noqa: E402

import confluent_binding.schema_registry as ours  # noqa: E402
from confluent_binding.schema_registry import (  # noqa: E402
    RegisteredSchema,
    Schema,
    SchemaReference,
    SchemaRegistryError,
    ServerConfig,
)

USER_V1 = json.dumps(
    {"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}
)


def test_config_errors_match_confluent():
    cases = [
        {},
        {"url": 5},
        {"url": "ftp://x"},
        {"url": "http://x", "bogus.key": 1},
        {"url": "http://x", "cache.capacity": "big"},
        {"url": "http://x", "bearer.auth.credentials.source": "NOPE"},
        {"url": "http://x", "bearer.auth.credentials.source": "STATIC_TOKEN"},
        {
            "url": "http://x",
            "bearer.auth.credentials.source": "STATIC_TOKEN",
            "bearer.auth.logical.cluster": "c",
        },
    ]
    for conf in cases:
        with pytest.raises(Exception) as mine:
            ours.SchemaRegistryClient(dict(conf))
        with pytest.raises(Exception) as theirs_exc:
            theirs.SchemaRegistryClient(dict(conf))
        assert (type(mine.value), str(mine.value)) == (
            type(theirs_exc.value),
            str(theirs_exc.value),
        ), conf


def test_same_values_as_confluent_kafka_types():
    ref = SchemaReference("n", "s", 3)
    schema = Schema(USER_V1, "AVRO", [ref])
    their_schema = theirs.Schema(USER_V1, "AVRO", [theirs.SchemaReference("n", "s", 3)])
    assert schema.to_dict() == their_schema.to_dict()
    assert repr(schema).replace("confluent_binding", "") == repr(their_schema).replace(
        "confluent_kafka", ""
    )
    assert hash(schema) == hash(Schema(USER_V1, "AVRO", [])) and schema != Schema(
        USER_V1, "AVRO", []
    )
    wire = {"id": 7, "subject": "s", "version": 2, "schema": USER_V1, "references": [ref.to_dict()]}
    assert (
        RegisteredSchema.from_dict(wire).to_dict()
        == theirs.RegisteredSchema.from_dict(wire).to_dict()
    )
    assert repr(ServerConfig.from_dict({"compatibilityLevel": "FULL"})) == repr(
        theirs.ServerConfig.from_dict({"compatibilityLevel": "FULL"})
    )
    err = SchemaRegistryError(404, 40401, "Subject not found")
    assert str(err) == str(theirs.SchemaRegistryError(404, 40401, "Subject not found"))
    # Every name ours exports is confluent's; confluent's others are the subject name strategies
    # and schema id helpers (confluent_binding.schema_registry.serde).
    assert set(ours.__all__) <= set(theirs.__all__)
    missing = set(theirs.__all__) - set(ours.__all__)
    assert all(n.endswith(("_strategy", "_serializer", "_deserializer")) for n in missing), missing


def _mock_scenario(mod):
    """One scenario through a library's mock:// client; results as plain values."""
    c = mod.SchemaRegistryClient.new_client({"url": "mock://unit"})
    out = []

    def step(call):
        try:
            value = call()
            if hasattr(value, "to_dict"):
                value = value.to_dict()
                value.pop("guid", None)  # random
        except Exception as e:
            value = (type(e).__name__, e.http_status_code, e.error_code, e.error_message)
        out.append(value)

    v1, v2 = mod.Schema(USER_V1, "AVRO"), mod.Schema(USER_V1.replace("name", "nom"), "AVRO")
    step(lambda: type(c).__name__)
    step(lambda: c.register_schema("s", v1))
    step(lambda: c.register_schema("s", v1))
    step(lambda: c.register_schema("s", v2))
    step(lambda: c.register_schema("t", v1))
    step(lambda: c.lookup_schema("s", v2))
    step(lambda: c.lookup_schema("t", v2))
    step(lambda: c.get_schema(2).schema_str)
    step(lambda: c.get_schema(99))
    step(lambda: c.get_latest_version("s"))
    step(lambda: c.get_version("s", 1))
    step(lambda: c.get_version("s", 5))
    # confluent's mock keeps a subject's versions in a set: their order is arbitrary
    step(lambda: sorted(c.get_versions("s")))
    step(lambda: sorted(c.get_subjects()))
    step(lambda: c.get_subjects(subject_prefix="t"))
    step(lambda: c.delete_version("s", 2))
    step(lambda: sorted(c.get_versions("s")))
    step(lambda: c.delete_subject("t"))
    step(lambda: c.get_subjects())
    step(lambda: c.get_config("s"))
    return out


def test_mock_client_answers_like_confluents():
    mine, reference = _mock_scenario(ours), _mock_scenario(theirs)
    assert mine == reference
    assert mine[0] == "MockSchemaRegistryClient"


def test_async_mock_client():
    import asyncio

    async def main():
        async with ours.AsyncSchemaRegistryClient.new_client({"url": "mock://unit"}) as c:
            sid = await c.register_schema("s", Schema(USER_V1, "AVRO"))
            return sid, (await c.get_latest_version("s")).schema_id, await c.get_versions("s")

    assert asyncio.run(main()) == (1, 1, [1])
