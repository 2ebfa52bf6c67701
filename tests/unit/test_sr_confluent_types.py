"""Confluent's Protobuf types (schema_registry.confluent), the Decimal conversions, the Avro
named-schema repository and the OAuth helpers, side by side with confluent-kafka's."""

from decimal import Decimal

import pytest

pytest.importorskip("google.protobuf")
pytest.importorskip("fastavro")
pytest.importorskip("confluent_kafka")  # the peer these tests compare with

from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import protobuf as ck_protobuf  # noqa: E402
from confluent_kafka.schema_registry import schema_registry_client as ck_client  # noqa: E402
from confluent_kafka.schema_registry.confluent import meta_pb2 as ck_meta  # noqa: E402
from confluent_kafka.schema_registry.confluent.type import decimal_pb2 as ck_decimal  # noqa: E402
from confluent_kafka.schema_registry.confluent.type import decimal_utils as ck_utils  # noqa: E402
from confluent_kafka.schema_registry.confluent.type import variant_pb2 as ck_variant  # noqa: E402
from confluent_kafka.schema_registry.confluent.types import (  # noqa: E402
    decimal_pb2 as ck_old_decimal,
)
from google.protobuf import descriptor_pb2  # noqa: E402

from confluent_binding.schema_registry import avro, protobuf, schema_registry_client  # noqa: E402
from confluent_binding.schema_registry.confluent import _build, meta_pb2  # noqa: E402
from confluent_binding.schema_registry.confluent.type import (  # noqa: E402
    decimal_pb2,
    decimal_utils,
    variant_pb2,
)
from confluent_binding.schema_registry.confluent.types import (  # noqa: E402
    decimal_pb2 as old_decimal_pb2,
)


@pytest.mark.parametrize("ours,theirs", [(meta_pb2, ck_meta), (decimal_pb2, ck_decimal),
                                         (variant_pb2, ck_variant),
                                         (old_decimal_pb2, ck_old_decimal)],
                         ids=lambda m: m.__name__.rsplit(".", 2)[-2] + "." + m.__name__[-11:])
def test_the_files_are_confluents(ours, theirs):
    # what is defined here, field by field, is the file confluent-kafka generated from
    # Confluent's .proto, and the process holds one of each
    built = _build._FILES[ours.DESCRIPTOR.name]()
    generated = descriptor_pb2.FileDescriptorProto.FromString(theirs.DESCRIPTOR.serialized_pb)
    assert built == generated
    assert ours.DESCRIPTOR is theirs.DESCRIPTOR


def test_messages_and_options():
    meta = meta_pb2.Meta(doc="a doc", params={"k": "v"}, tags=["PII"],
                         rules=[meta_pb2.Rule(name="r", expr="x > 0")])
    theirs = ck_meta.Meta(doc="a doc", params={"k": "v"}, tags=["PII"],
                          rules=[ck_meta.Rule(name="r", expr="x > 0")])
    assert meta.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True)
    for name in ("file_meta", "message_meta", "field_meta", "enum_meta", "enum_value_meta"):
        assert getattr(meta_pb2, name).number == 1088
        assert getattr(meta_pb2, name.upper() + "_FIELD_NUMBER") == 1088
    options = descriptor_pb2.FieldOptions()
    options.Extensions[meta_pb2.field_meta].tags.append("PII")
    assert descriptor_pb2.FieldOptions.FromString(options.SerializeToString()).Extensions[
        ck_meta.field_meta].tags == ["PII"]
    assert old_decimal_pb2.Decimal is decimal_pb2.Decimal
    assert variant_pb2.Variant(metadata=b"\x01", value=b"\x00").SerializeToString() == \
        b"\n\x01\x01\x12\x01\x00"


DECIMALS = [("1.50", 1), ("1.50", 2), ("1.50", 5), ("1.55", 1), ("0", 3), ("0.000", -2),
            ("-128", 0), ("-0.001", 3), ("1000", -3), ("1000", -4), ("123.456", 0),
            ("-1E+2", 0), ("99999999999999999999999", 2), ("1", 700000000), ("-129.5", 1),
            ("1", 4300)]


def converted(module, value, scale):
    try:
        message = module.decimal_to_protobuf(Decimal(value), scale)
    except ValueError as e:
        return "ValueError", str(e)
    return (message.value, message.precision, message.scale,
            str(module.protobuf_to_decimal(message)))


@pytest.mark.parametrize("value,scale", DECIMALS, ids=str)
def test_decimal_to_protobuf_and_back_as_confluents(value, scale):
    assert converted(protobuf, value, scale) == converted(ck_protobuf, value, scale)


def test_decimal_utils_as_confluents():
    for value in ("1.50", "-128", "0", "-0.00", "1E+5", "-129", "255", "3.14159265358979"):
        ours, theirs = (m.to_proto_decimal(Decimal(value)) for m in (decimal_utils, ck_utils))
        assert ours.SerializeToString() == theirs.SerializeToString()
        assert decimal_utils.from_proto_decimal(ours) == Decimal(value)
        assert str(decimal_utils.from_proto_decimal(ours)) == str(
            ck_utils.from_proto_decimal(theirs))
    with pytest.raises(ValueError, match="non-finite"):
        decimal_utils.to_proto_decimal(Decimal("NaN"))
    for n in list(range(-66000, 66000, 7)) + [2**63, -2**63, 2**63 - 1, -2**63 - 1]:
        assert decimal_utils.unscaled_to_bytes(n) == ck_utils.unscaled_to_bytes(n)
    assert decimal_utils.unscaled_to_bytes(-128) == b"\x80"
    assert decimal_utils.unscaled_to_bytes(128) == b"\x00\x80"


NAMED = {"example.Address": {"type": "record", "name": "Address", "namespace": "example",
                             "fields": [{"name": "city", "type": "string"}]}}
ROOT = ('{"type": "record", "name": "User", "namespace": "example", "fields": ['
        '{"name": "home", "type": "example.Address"},'
        '{"name": "work", "type": ["null", "example.Address"]}]}')


def test_parse_schema_with_repo_as_confluents():
    before = repr(NAMED)
    ours = avro.parse_schema_with_repo(ROOT, NAMED)
    assert ours == ck_avro.parse_schema_with_repo(ROOT, NAMED)
    assert ours["fields"][0]["type"]["name"] == "example.Address"
    assert repr(NAMED) == before  # the named schemas are left as they were
    repo = avro.LocalSchemaRepository({"a": {"type": "string"}})
    assert (repo.load("a"), repo.load("b")) == ({"type": "string"}, None)
    for side in (avro, ck_avro):
        with pytest.raises(TypeError):
            side.parse_schema_with_repo(
                '{"type": "record", "name": "U", "fields": [{"name": "x", "type": "Nope"}]}',
                {})


@pytest.mark.parametrize("raw", [None, "pool-1", "a,b", ["a", "b"], [], ["a", 1], 5,
                                 ("a",)], ids=repr)
def test_normalize_identity_pool_as_confluents(raw):
    def outcome(f):
        try:
            return f(raw)
        except TypeError as e:
            return "TypeError", str(e)

    assert outcome(schema_registry_client.normalize_identity_pool) == outcome(
        ck_client.normalize_identity_pool)
    assert schema_registry_client.VALID_AUTH_PROVIDERS == ck_client.VALID_AUTH_PROVIDERS


def test_common_modules_offer_the_same_objects():
    import importlib

    for name in ("avro", "json_schema", "protobuf", "schema_registry_client", "serde"):
        common = importlib.import_module("confluent_binding.schema_registry.common." + name)
        module = importlib.import_module("confluent_binding.schema_registry." + name)
        for public in (n for n in dir(module) if not n.startswith("_")):
            assert getattr(common, public) is getattr(module, public)
        with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
            common.nothing_here  # noqa: B018
    from confluent_binding.schema_registry.common.avro import AvroSerializer

    assert AvroSerializer is avro.AvroSerializer


def test_asyncinit_as_confluents():
    import asyncio

    from confluent_kafka.schema_registry.common import asyncinit as ck_asyncinit

    from confluent_binding.schema_registry.common import asyncinit

    def made_with(decorator):
        @decorator
        class Client:
            async def __init__(self, url, *, retries=3):
                await asyncio.sleep(0)
                self.url, self.retries = url, retries

        async def make():
            pending = Client("http://r", retries=5)
            assert asyncio.iscoroutine(pending)
            client = await pending
            return type(client) is Client, client.url, client.retries

        return asyncio.run(make())

    assert made_with(asyncinit) == made_with(ck_asyncinit) == (True, "http://r", 5)
