"""The Spark source's and sink's JSON Schema and Protobuf types (no Spark session, no broker, no
registry): schemas to Arrow types, the .proto text reader, the derived writer schemas."""

import datetime

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("google.protobuf")
pa = pytest.importorskip("pyarrow")

from confluent_binding.spark import _json, _protobuf  # noqa: E402

ORDER_PROTO = """
// an order
syntax = "proto3";
package shop.v1; /* the package
spans lines */
import "google/protobuf/timestamp.proto";
option java_package = "x.y";

message Order {
  option deprecated = false;
  reserved 20, 21;
  int64 id = 1;
  optional string note = 2 [deprecated = true];
  repeated Line lines = 3;
  map<string, Line> by_sku = 4;
  Kind kind = 5;
  google.protobuf.Timestamp ts = 6;
  oneof pay { string card = 7; int32 cash = 8; }
  uint64 big = 9;
  message Line { string sku = 1; uint32 qty = 0x2; }
  enum Kind { A = 0; B = 1 [deprecated = true]; }
}
service Orders { rpc Get(Order) returns (Order); }
"""


def _order():
    from google.protobuf import descriptor_pool, message_factory

    _protobuf._load_known()
    file = _protobuf.file_proto(ORDER_PROTO, "order.proto")
    pool = descriptor_pool.DescriptorPool()
    from confluent_binding.schema_registry.protobuf import _RegisteredFiles

    _RegisteredFiles._add_known(pool, "google/protobuf/timestamp.proto", set())
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.v1.Order"))


def test_proto_text_reads_into_the_descriptor_protoc_would_build():
    cls = _order()
    d = cls.DESCRIPTOR
    assert [(f.name, f.number) for f in d.fields] == [
        ("id", 1), ("note", 2), ("lines", 3), ("by_sku", 4), ("kind", 5), ("ts", 6),
        ("card", 7), ("cash", 8), ("big", 9)]
    assert [(o.name, [f.name for f in o.fields]) for o in d.oneofs] == [
        ("pay", ["card", "cash"]), ("_note", ["note"])]
    assert d.fields_by_name["note"].has_presence and not d.fields_by_name["id"].has_presence
    assert d.fields_by_name["by_sku"].message_type.GetOptions().map_entry
    assert d.fields_by_name["kind"].enum_type.full_name == "shop.v1.Order.Kind"
    assert d.fields_by_name["ts"].message_type.full_name == "google.protobuf.Timestamp"
    assert d.nested_types_by_name["Line"].fields_by_name["qty"].number == 2


def test_messages_read_into_arrow_rows():
    cls = _order()
    t, read = _protobuf.message_type(cls.DESCRIPTOR)
    assert str(t) == (
        "struct<id: int64, note: string, lines: list<item: struct<sku: string, qty: int64>>, "
        "by_sku: map<string, struct<sku: string, qty: int64>>, kind: string, "
        "ts: timestamp[us, tz=UTC], card: string, cash: int32, big: decimal128(20, 0)>")
    m = cls(id=3, kind=1, big=2**64 - 1, cash=5)
    m.lines.add(sku="a", qty=2)
    m.by_sku["a"].qty = 1
    m.ts.FromDatetime(datetime.datetime(2026, 5, 1, 12, 0, 0, 123456))
    rows = pa.array([read(cls.FromString(m.SerializeToString())), read(cls())], type=t)
    got = rows.to_pylist()
    assert got[0]["big"] == 2**64 - 1 and got[0]["kind"] == "B" and got[0]["cash"] == 5
    assert got[0]["ts"] == datetime.datetime(2026, 5, 1, 12, 0, 0, 123456,
                                             tzinfo=datetime.timezone.utc)
    assert got[0]["lines"] == [{"sku": "a", "qty": 2}]
    assert got[0]["by_sku"] == [("a", {"sku": "", "qty": 1})]
    assert (got[0]["note"], got[0]["card"]) == (None, None)
    # unset: defaults without presence, null with it
    assert got[1] == {"id": 0, "note": None, "lines": [], "by_sku": [], "kind": "A", "ts": None,
                      "card": None, "cash": None, "big": 0}


def test_recursive_messages_and_schemas_are_refused():
    from google.protobuf import descriptor_pool, message_factory

    file = _protobuf.parse_proto('syntax = "proto3"; message Node { repeated Node kids = 1; }')
    file.name = "node.proto"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    node = message_factory.GetMessageClass(pool.FindMessageTypeByName("Node"))
    with pytest.raises(ValueError, match="Node contains itself"):
        _protobuf.message_type(node.DESCRIPTOR)
    with pytest.raises(ValueError, match="refers to itself"):
        _json.arrow_types({"$ref": "#/definitions/N", "definitions": {"N": {
            "type": "object", "properties": {"next": {"$ref": "#/definitions/N"}}}}})


def test_json_schema_types():
    raw, final = _json.arrow_types({
        "type": "object",
        "properties": {
            "n": {"type": ["integer", "number", "null"]},
            "e": {"enum": ["a", "b"]},
            "m": {"type": "object", "additionalProperties": {"$ref": "other.json#/defs/X"}},
            "d": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
        },
    }, {"other.json": {"defs": {"X": {"type": "boolean"}}}})
    assert str(final) == "struct<n: double, e: string, m: map<string, bool>, d: date32[day]>"
    assert str(raw) == "struct<n: double, e: string, m: map<string, bool>, d: string>"
    for schema, message in (({"type": ["string", "integer"]}, "no single Spark type"),
                            ({"type": "object"}, "without 'properties'"),
                            ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "oneOf"),
                            ({"$ref": "nowhere.json"}, "neither in the schema")):
        with pytest.raises(ValueError, match=message):
            _json.arrow_types(schema)


def test_derived_protobuf_file_round_trips_rows():
    from pyspark.sql import types as T

    st = T.StructType([
        T.StructField("id", T.LongType(), False), T.StructField("name", T.StringType()),
        T.StructField("day", T.DateType()), T.StructField("price", T.DecimalType(10, 2)),
        T.StructField("attrs", T.MapType(T.IntegerType(), T.StructType([
            T.StructField("x", T.DoubleType())]))),
        T.StructField("lines", T.ArrayType(T.StructType([T.StructField("sku", T.StringType())]))),
    ])
    cls = _protobuf._message_class(_protobuf.proto_file(st))
    assert cls.DESCRIPTOR.full_name == "topLevelRecord"
    assert cls.DESCRIPTOR.fields_by_name["name"].has_presence
    assert not cls.DESCRIPTOR.fields_by_name["id"].has_presence
    import decimal

    m = cls()
    _protobuf._filler(cls.DESCRIPTOR)(m, {
        "id": 1, "name": None, "day": datetime.date(2026, 1, 2),
        "price": decimal.Decimal("1.25"), "attrs": {3: {"x": 1.5}}, "lines": [{"sku": "q"}]})
    t, read = _protobuf.message_type(cls.DESCRIPTOR)
    assert pa.array([read(cls.FromString(m.SerializeToString()))], type=t).to_pylist() == [{
        "id": 1, "name": None, "day": datetime.date(2026, 1, 2), "price": "1.25",
        "attrs": [(3, {"x": 1.5})], "lines": [{"sku": "q"}]}]
    with pytest.raises(ValueError, match="has no field 'nope'"):
        _protobuf._filler(cls.DESCRIPTOR)(cls(), {"nope": 1})
