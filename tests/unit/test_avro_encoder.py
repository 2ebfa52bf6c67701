"""The compiled Avro encoder (src/avro_encode.pyx) writes exactly what fastavro writes, and
leaves to fastavro every record it cannot be sure of, so the serializer's output and errors
are fastavro's (and confluent-kafka's, whose serializer writes with fastavro) either way."""

import datetime
import io
import json
import random
import uuid
from decimal import Decimal

import confluent_kafka
import fastavro
import pytest
from confluent_kafka.schema_registry import avro as peer_avro
from confluent_kafka.schema_registry._sync.mock_schema_registry_client import (
    MockSchemaRegistryClient as PeerMock,
)

from confluent_binding._core import _avro_encode
from confluent_binding.schema_registry import avro as our_avro
from confluent_binding.schema_registry._avro_program import avro_program
from confluent_binding.schema_registry.mock_schema_registry_client import (
    MockSchemaRegistryClient,
)
from confluent_binding.serialization import MessageField, SerializationContext

UTC = datetime.timezone.utc
CET = datetime.timezone(datetime.timedelta(hours=1))

SCHEMA = {
    "type": "record", "name": "Everything", "namespace": "t",
    "fields": [
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "raw", "type": "bytes"},
        {"name": "s", "type": "string"},
        {"name": "n", "type": "null"},
        {"name": "e", "type": {"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
        {"name": "arr", "type": {"type": "array", "items": "long"}},
        {"name": "m", "type": {"type": "map", "values": ["null", "string"]}},
        {"name": "opt", "type": ["null", "t.Colour"], "default": None},
        {"name": "last", "type": ["string", "null"]},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20,
                                 "scale": 3}},
        {"name": "ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
            {"name": "x", "type": "long", "default": 7},
            {"name": "twin", "type": ["null", "t.Four"], "default": None}]}},
        {"name": "inners", "type": {"type": "array", "items": "t.Inner"}},
    ],
}


def fastavro_bytes(parsed, datum):
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, parsed, datum)
    return buf.getvalue()


def random_record(rnd):
    def decimal():
        digits = rnd.randint(0, 15)   # unscaled (x 10**3) within 18 digits: see below
        unscaled = rnd.randint(-10 ** digits, 10 ** digits)
        return Decimal(unscaled).scaleb(-rnd.randint(0, 3))

    def moment():
        seconds = rnd.randint(-2 * 10 ** 9, 4 * 10 ** 9)
        return datetime.datetime.fromtimestamp(seconds, UTC).replace(
            microsecond=rnd.randint(0, 999999)).astimezone(rnd.choice([UTC, CET]))

    return {
        "b": rnd.random() < 0.5,
        "i": rnd.randint(-2 ** 31, 2 ** 31 - 1),
        "l": rnd.choice([0, -1, 1, 63, -64, 64, 2 ** 63 - 1, -2 ** 63,
                         rnd.randint(-2 ** 63, 2 ** 63 - 1)]),
        "f": rnd.choice([rnd.uniform(-1e6, 1e6), rnd.randint(-1000, 1000), float("inf")]),
        "d": rnd.choice([rnd.uniform(-1e300, 1e300), rnd.randint(-2 ** 60, 2 ** 60), -0.0]),
        "raw": bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 40))),
        "s": "".join(rnd.choice("aé€😀z") for _ in range(rnd.randint(0, 30))),
        "n": None,
        "e": rnd.choice(["RED", "GREEN"]),
        "fx": bytes(rnd.getrandbits(8) for _ in range(4)),
        "arr": [rnd.randint(-2 ** 40, 2 ** 40) for _ in range(rnd.randint(0, 5))],
        "m": {"k%d" % j: rnd.choice([None, "v%d" % j]) for j in range(rnd.randint(0, 4))},
        **({"opt": rnd.choice([None, "GREEN"])} if rnd.random() < 0.5 else {}),
        "last": rnd.choice([None, "x"]),
        "dec": rnd.choice([decimal(), Decimal("-0.000"), Decimal("-128"), Decimal("127.5"),
                           Decimal("-0.128")]),
        "ms": rnd.choice([moment(), rnd.randint(-2 ** 50, 2 ** 50)]),
        "us": moment(),
        "day": rnd.choice([datetime.date.fromordinal(rnd.randint(1, 3652059)),
                           rnd.randint(-2 ** 20, 2 ** 20)]),
        "id": rnd.choice([uuid.UUID(int=rnd.getrandbits(128)), str(uuid.uuid4())]),
        "inner": {"x": rnd.randint(-5, 5), "twin": rnd.choice([None, b"abcd"])}
        if rnd.random() < 0.7 else {},
        "inners": [{"x": 1}, {"twin": b"wxyz"}][:rnd.randint(0, 2)],
    }


@pytest.fixture(scope="module")
def parsed():
    return fastavro.parse_schema(json.loads(json.dumps(SCHEMA)))


def test_every_random_record_is_written_as_fastavro_writes_it(parsed):
    program = avro_program(parsed)
    assert program is not None
    rnd = random.Random(20261129)
    for _ in range(3000):
        record = random_record(rnd)
        got = _avro_encode(program, b"\x00\x00\x00\x00\x01", record)
        assert got is not None, record
        assert got == b"\x00\x00\x00\x00\x01" + fastavro_bytes(parsed, record), record


@pytest.mark.parametrize("field, value", [
    ("i", 2 ** 31), ("l", 2 ** 63), ("l", 1.0), ("l", True), ("b", 1), ("s", b"x"),
    ("raw", "x"), ("raw", bytearray(b"x")), ("e", "BLUE"), ("fx", b"abc"), ("arr", (1, 2)),
    ("m", {1: "x"}), ("dec", Decimal("1.2345")), ("dec", Decimal("NaN")),
    ("dec", Decimal(10 ** 19)), ("dec", 5), ("ms", datetime.datetime(2026, 1, 1)),
    ("day", datetime.datetime(2026, 1, 1, tzinfo=UTC)), ("day", "2026-01-01"), ("n", 0),
    ("f", "NaN"), ("d", None), ("inner", None), ("last", 3),
])
def test_what_it_does_not_take_is_left_to_fastavro(parsed, field, value):
    """None from the encoder: the serializer then writes (or refuses) the record with
    fastavro, as confluent-kafka's does."""
    record = random_record(random.Random(1))
    record[field] = value
    assert _avro_encode(avro_program(parsed), b"", record) is None


def test_a_record_that_is_not_a_dict_or_misses_a_field_is_left_to_fastavro(parsed):
    program = avro_program(parsed)
    record = random_record(random.Random(2))
    del record["s"]
    assert _avro_encode(program, b"", record) is None
    assert _avro_encode(program, b"", list(record.items())) is None


@pytest.mark.parametrize("schema", [
    ["null", "string", "long"],                                   # a wider union
    {"type": "record", "name": "Node", "fields": [                # a recursive type
        {"name": "next", "type": ["null", "Node"]}]},
    {"type": "fixed", "name": "D", "size": 8, "logicalType": "decimal", "precision": 5},
    {"type": "int", "logicalType": "time-millis"},
])
def test_schemas_it_does_not_compile_are_all_fastavro(schema):
    assert avro_program(fastavro.parse_schema(schema)) is None


def test_unknown_logical_types_are_their_plain_type():
    assert avro_program(fastavro.parse_schema({"type": "long", "logicalType": "mine"})) == \
        avro_program(fastavro.parse_schema("long"))


def _serializers():
    schema = json.dumps(SCHEMA)
    ours = our_avro.AvroSerializer(MockSchemaRegistryClient({"url": "mock://a"}), schema)
    peer = peer_avro.AvroSerializer(PeerMock({"url": "mock://a"}), schema)
    return ours, peer


def test_serializer_output_and_errors_are_confluent_kafkas():
    ours, peer = _serializers()
    ours_ctx = SerializationContext("topic", MessageField.VALUE)
    peer_ctx = confluent_kafka.serialization.SerializationContext(
        "topic", confluent_kafka.serialization.MessageField.VALUE)
    rnd = random.Random(3)
    for _ in range(300):
        record = random_record(rnd)
        assert ours(record, ours_ctx) == peer(record, peer_ctx)
    # values the encoder leaves to fastavro: the same bytes, or the same error, as the peer
    raised = 0
    for field, value in [("i", 2 ** 31), ("e", "BLUE"), ("dec", Decimal("1.2345")),
                         ("s", 5), ("fx", b"abc"), ("l", 2 ** 64), ("d", "NaN"),
                         ("ms", datetime.datetime(2026, 1, 1, 12, 30)), ("raw", "text")]:
        record = random_record(rnd)
        record[field] = value
        outcomes = []
        for serializer, ctx in ((peer, peer_ctx), (ours, ours_ctx)):
            try:
                outcomes.append(serializer(record, ctx))
            except Exception as e:
                outcomes.append((type(e).__name__, str(e)))
        assert outcomes[0] == outcomes[1], (field, value)
        raised += isinstance(outcomes[0], tuple)
    assert raised >= 4
