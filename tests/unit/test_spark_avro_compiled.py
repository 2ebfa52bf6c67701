"""The Spark source's compiled Avro decoding (src/avro_decode.pyx, spark/_avro_compiled.py)
gives the same Arrow column as its record-by-record fastavro decoding, for every writer schema
a topic's history has (schema evolution resolved as Avro's rules say), and leaves to fastavro
every batch with a record it does not take."""

import datetime
import io
import json
import random
import struct
import uuid
from decimal import Decimal

import pytest

pytest.importorskip("pyspark")

import fastavro  # noqa: E402
import pyarrow as pa  # noqa: E402

from confluent_binding.schema_registry import Schema  # noqa: E402
from confluent_binding.schema_registry.mock_schema_registry_client import (  # noqa: E402
    MockSchemaRegistryClient,
)
from confluent_binding.spark import _avro  # noqa: E402
from confluent_binding.spark._framed import DecodeError, FramedDecoder  # noqa: E402

UTC = datetime.timezone.utc
CONF = {"url": "mock://compiled-decoder"}

V1 = {
    "type": "record", "name": "Order", "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "qty", "type": "int"},
        {"name": "price", "type": "float"},
        {"name": "flag", "type": "boolean"},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "raw", "type": "bytes"},
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
        {"name": "code", "type": {"type": "fixed", "name": "Code", "size": 3}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20,
                                    "scale": 2}},
        {"name": "cents", "type": {"type": "fixed", "name": "Cents", "size": 9,
                                   "logicalType": "decimal", "precision": 20, "scale": 2}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "seen", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
        {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tod", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "ref", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "attrs", "type": {"type": "map", "values": ["null", "double"]}},
        {"name": "lines", "type": {"type": "array", "items": {
            "type": "record", "name": "Line", "fields": [
                {"name": "sku", "type": "string"}, {"name": "n", "type": "int"}]}}},
        {"name": "ship", "type": ["null", {"type": "record", "name": "Ship", "fields": [
            {"name": "city", "type": "string"}, {"name": "code", "type": "Code"}]}],
         "default": None},
        {"name": "gone", "type": {"type": "map", "values": {"type": "array", "items": "Line"}}},
    ],
}


def evolved(v1):
    """v2: ``gone`` removed, qty int -> long and price float -> double (promotions), a field
    added with a null default, one with a plain default, an enum symbol added."""
    v2 = json.loads(json.dumps(v1))
    fields = [f for f in v2["fields"] if f["name"] != "gone"]
    for f in fields:
        if f["name"] == "qty":
            f["type"] = "long"
        if f["name"] == "price":
            f["type"] = "double"
        if f["name"] == "kind":
            f["type"]["symbols"] = ["A", "B", "C", "D"]
    fields.append({"name": "added", "type": ["null", "string"], "default": None})
    fields.append({"name": "rank", "type": "int", "default": 7})
    fields.append({"name": "label", "type": "string", "default": "none"})
    v2["fields"] = fields
    return v2


def record(rnd, version):
    r = {
        "id": rnd.randint(-2 ** 63, 2 ** 63 - 1),
        "qty": rnd.randint(-2 ** 31, 2 ** 31 - 1),
        "price": rnd.choice([1.5, -0.25, rnd.uniform(-1e6, 1e6)]),
        "flag": rnd.random() < 0.5,
        "note": rnd.choice([None, "", "héllo €"]),
        "raw": bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 9))),
        "kind": rnd.choice(["A", "B", "C"] + (["D"] if version == 2 else [])),
        "code": bytes(rnd.getrandbits(8) for _ in range(3)),
        "amount": Decimal(rnd.randint(-10 ** 15, 10 ** 15)).scaleb(-2),
        "cents": Decimal(rnd.randint(-10 ** 17, 10 ** 17)).scaleb(-2),
        "at": datetime.datetime.fromtimestamp(rnd.randint(-10 ** 9, 4 * 10 ** 9), UTC),
        "seen": rnd.choice([None, rnd.randint(-2 ** 50, 2 ** 50)]),
        "local": rnd.randint(-2 ** 40, 2 ** 40),
        "day": rnd.randint(-100000, 100000),
        "tod": rnd.randint(0, 86399999),
        "ref": str(uuid.UUID(int=rnd.getrandbits(128))),
        "tags": ["t%d" % i for i in range(rnd.randint(0, 3))],
        "attrs": {"k%d" % i: rnd.choice([None, rnd.random()]) for i in range(rnd.randint(0, 3))},
        "lines": [{"sku": "s%d" % i, "n": i} for i in range(rnd.randint(0, 2))],
        "ship": rnd.choice([None, {"city": "Oslo", "code": b"xyz"}]),
    }
    if version == 1:
        r["gone"] = {"a": [{"sku": "x", "n": 1}]} if rnd.random() < 0.5 else {}
    else:
        r["added"] = rnd.choice([None, "new"])
        r["rank"] = rnd.randint(0, 9)
        r["label"] = "v2"
    return r


@pytest.fixture()
def registry(monkeypatch):
    client = MockSchemaRegistryClient(CONF)
    monkeypatch.setitem(_avro._CLIENTS, tuple(sorted(CONF.items())), client)
    return client


def framed(schema_id, parsed, rec):
    buf = io.BytesIO()
    buf.write(b"\x00" + struct.pack(">I", schema_id))
    fastavro.schemaless_writer(buf, parsed, rec)
    return buf.getvalue()


def topic(registry, versions, count, seed):
    """A batch of framed records written with each of ``versions`` (plus nulls)."""
    rnd = random.Random(seed)
    ids = [registry.register_schema("orders-value", Schema(json.dumps(v), "AVRO"))
           for v in versions]
    parsed = [fastavro.parse_schema(json.loads(json.dumps(v))) for v in versions]
    values = []
    for i in range(count):
        k = rnd.randrange(len(versions))
        values.append(None if i % 17 == 5 else
                      framed(ids[k], parsed[k], record(rnd, 2 if versions[k] is not V1 else 1)))
    return pa.array(values, type=pa.binary())


def both(decoder, values):
    """(compiled column or None, fastavro's column)."""
    compiled = decoder._compiled(values)
    slow, _ = FramedDecoder.decode(decoder, values, lambda i: "record %d" % i)
    return compiled, slow


def where(i):
    return "orders-0 offset %d" % i


@pytest.mark.parametrize("reader", ["v1", "v2"])
def test_compiled_column_equals_fastavros_over_an_evolving_topic(registry, reader):
    """v2 reads v1's and its own records (v1 reads its own)."""
    v2 = evolved(V1)
    values = topic(registry, [V1, v2] if reader == "v2" else [V1], 400, seed=7)
    decoder = _avro.AvroDecoder(V1 if reader == "v1" else v2, {}, CONF, "value", False)
    compiled, slow = both(decoder, values)
    assert compiled is not None
    assert compiled.type == decoder.type
    compiled.validate(full=True)
    assert compiled.to_pylist() == slow.to_pylist()
    assert compiled.equals(slow)


def test_slices_and_all_nulls(registry):
    values = topic(registry, [V1], 60, seed=3)
    decoder = _avro.AvroDecoder(V1, {}, CONF, "value", True)
    part = values.slice(13, 30)
    compiled, slow = both(decoder, part)
    assert compiled is not None and compiled.equals(slow)
    column, errors = decoder.decode(pa.array([None, None], type=pa.binary()), where)
    assert column.null_count == 2 and errors.null_count == 2


def test_a_bad_record_sends_the_batch_to_fastavro_which_names_it(registry):
    values = topic(registry, [V1], 20, seed=5).to_pylist()
    values[3] = values[3][:-2]                           # truncated
    values[8] = values[8] + b"\x00"                      # a byte left over
    batch = pa.array(values, type=pa.binary())
    permissive = _avro.AvroDecoder(V1, {}, CONF, "value", True)
    assert permissive._compiled(batch) is None
    column, errors = permissive.decode(batch, where)
    assert column[3].as_py() is None and column[8].as_py() is None
    assert errors[8].as_py() == "SerializationError: 1 bytes left over after the Avro record"
    assert errors.null_count == 18
    good = FramedDecoder.decode(permissive, batch, where)[0]
    assert column.equals(good)
    with pytest.raises(DecodeError, match="orders-0 offset 3"):
        _avro.AvroDecoder(V1, {}, CONF, "value", False).decode(batch, where)


def test_a_union_branch_it_does_not_take_goes_to_fastavro(registry):
    """A writer's wider union (the reader's is null and string): records on the branches the
    reader takes are decoded in the loop; a batch with one on the other branch (long, which
    a string field cannot read) is fastavro's, which refuses that record."""
    wide = json.loads(json.dumps(V1))
    wide["fields"][4]["type"] = ["null", "string", "long"]
    sid = registry.register_schema("wide-value", Schema(json.dumps(wide), "AVRO"))
    parsed = fastavro.parse_schema(json.loads(json.dumps(wide)))
    rnd = random.Random(11)
    records = [record(rnd, 1) for _ in range(6)]
    decoder = _avro.AvroDecoder(V1, {}, CONF, "value", True)
    taken = pa.array([framed(sid, parsed, r) for r in records], type=pa.binary())
    compiled, slow = both(decoder, taken)
    assert compiled is not None and compiled.equals(slow)
    records[2]["note"] = 42
    batch = pa.array([framed(sid, parsed, r) for r in records], type=pa.binary())
    assert decoder._compiled(batch) is None
    column, errors = decoder.decode(batch, where)
    assert [e is None for e in errors.to_pylist()] == [True, True, False, True, True, True]
    assert column.null_count == 1


def test_a_decimal_beyond_its_precision_goes_to_fastavro(registry):
    """Avro's bytes do not bound a decimal's digits: a record whose decimal has more digits
    than the schema's precision is not put in the column by the loop; the record-by-record
    path refuses it (Arrow's decimal128(12, 2) cannot hold it)."""
    narrow = {"type": "record", "name": "Price", "fields": [
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal",
                                    "precision": 12, "scale": 2}}]}
    wide = json.loads(json.dumps(narrow))
    wide["fields"][0]["type"]["precision"] = 20
    sid = registry.register_schema("price-value", Schema(json.dumps(narrow), "AVRO"))
    parsed = fastavro.parse_schema(wide)       # the same encoding, more digits allowed
    amounts = [Decimal("1.25"), Decimal("-9999999999.99"), Decimal("123456789012345.67")]
    batch = pa.array([framed(sid, parsed, {"amount": a}) for a in amounts], type=pa.binary())
    decoder = _avro.AvroDecoder(narrow, {}, CONF, "value", True)
    assert decoder._compiled(batch) is None
    column, errors = decoder.decode(batch, where)
    assert column.to_pylist()[:2] == [{"amount": a} for a in amounts[:2]]
    assert column[2].as_py() is None and errors[2].as_py() is not None
    assert decoder._compiled(batch.slice(0, 2)).equals(column.slice(0, 2))
