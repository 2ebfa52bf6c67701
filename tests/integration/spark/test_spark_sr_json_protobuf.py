"""JSON Schema and Protobuf data in the Spark source and sink (valueFormat = json / protobuf)
against the real broker and the real Schema Registry, in local[2] and on the standalone cluster.

- a JSON Schema topic written with two versions of its schema by this project's
  SerializingProducer reads into typed rows of the latest version; a Protobuf topic written by
  confluent-kafka's SerializingProducer with two versions of its message likewise;
- malformed records of both formats: FAILFAST names the record, PERMISSIVE gives a null value
  and the reason in ``valueError``;
- the sink's records (schemas derived from the DataFrame) read back by confluent-kafka's
  JSONDeserializer / ProtobufDeserializer and by the source; a Protobuf sink writing with the
  subject's latest schema registered as .proto text;
- a streaming query from each format into the sink in the same format, a few records per
  micro-batch, read back by this project's JSONDeserializer / ProtobufDeserializer;
- on the standalone cluster (tests/support/spark_cluster.py): the same rows as in local[2] for
  both topics, and the malformed records in both modes.
"""

import datetime
import json
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.schema_registry import Schema
from confluent_binding.schema_registry.json_schema import JSONSerializer
from confluent_binding.spark import NAME

from tests.integration.spark.cluster_jobs import registry_json
from tests.integration.spark.test_spark_schema_registry import _consume_all, _produce, _source

pytestmark = pytest.mark.integration

TS = datetime.datetime(2026, 5, 1, 12, 30, 15, 123000, tzinfo=datetime.timezone.utc)
MICROS = 1777638615123000  # TS in microseconds since the epoch
TS_TEXT = "2026-05-01T12:30:15.123Z"


def _sink(df, cluster, registry_url, topic, **options):
    w = (df.write.format(NAME).mode("append")
         .option("kafka.bootstrap.servers", cluster.bootstrap_servers)
         .option("topic", topic).option("schema.registry.url", registry_url))
    for k, v in options.items():
        w = w.option(k.replace("__", "."), v)
    w.save()


def _plain(v):
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v.asDict(recursive=True) if hasattr(v, "asDict") else v


def _rows(df, columns):
    """{offset: (columns...)} with structs as dicts."""
    return {r[0]: tuple(_plain(x) for x in r[1:])
            for r in df.selectExpr("offset", *columns).collect()}


def _frame(schema_id, payload):
    return b"\x00" + schema_id.to_bytes(4, "big") + payload


def _poison_in_both_modes(spark, cluster, schema_registry, topic, fmt, subject, good):
    """Reads a poisoned topic of six records (good, not framed, three more malformed ones,
    good) with the reader schema of ``subject``: FAILFAST must fail naming offset 1, PERMISSIVE
    must give nulls for offsets 1 to 4 and ``good`` (id, name) around them. Returns the
    PERMISSIVE rows (offset, id, name, valueError) by offset, for the reasons of offsets 2-4."""
    kind = {"json": "JSON Schema", "protobuf": "Protobuf"}[fmt]
    df = _source(spark, cluster, schema_registry.url, subscribe=topic, valueFormat=fmt,
                 valueSubject=subject)
    with pytest.raises(Exception) as e:
        df.collect()
    text = str(e.value)
    assert "Malformed %s value of %s-0 at offset 1 (mode FAILFAST)" % (kind, topic) in text, text
    assert "magic byte" in text

    df = _source(spark, cluster, schema_registry.url, subscribe=topic, valueFormat=fmt,
                 valueSubject=subject, mode="PERMISSIVE")
    assert df.schema.fieldNames()[-1] == "valueError"
    rows = sorted(df.select("offset", "value.id", "value.name", "valueError").collect())
    assert [(r.offset, r.id, r.name) for r in rows] == [
        (0,) + good, (1, None, None), (2, None, None), (3, None, None), (4, None, None),
        (5,) + good]
    assert rows[0].valueError is None and rows[5].valueError is None
    assert "not in the Schema Registry wire format" in rows[1].valueError
    return rows


def _stream(spark, cluster, schema_registry, source, out, fmt, value, checkpoint):
    """A streaming query from ``source`` (valueFormat ``fmt``, at most three records per
    micro-batch, Trigger.AvailableNow) into ``out`` through the sink in the same format: the
    key CAST(value.id AS STRING), the value the expression ``value`` of the non-null values.
    Returns the numbers of records of the micro-batches that read any."""
    src = _source(spark, cluster, schema_registry.url, stream=True, subscribe=source,
                  valueFormat=fmt, maxOffsetsPerTrigger="3")
    query = (
        src.where("value IS NOT NULL")
        .selectExpr("CAST(value.id AS STRING) AS key", "%s AS value" % value)
        .writeStream.format(NAME)
        .option("kafka.bootstrap.servers", cluster.bootstrap_servers)
        .option("topic", out).option("schema.registry.url", schema_registry.url)
        .option("valueFormat", fmt)
        .option("checkpointLocation", checkpoint)
        .trigger(availableNow=True).start())
    assert query.awaitTermination(180), "the availableNow query did not end"
    assert query.exception() is None
    return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]


# --- JSON Schema ------------------------------------------------------------------------------

JSON_V1 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order",
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "price": {"type": "number"},
        "ok": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "line": {"$ref": "#/definitions/Line"},
        "ts": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "attrs": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["id"],
    "definitions": {"Line": {"type": "object", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer"}}}},
}
JSON_V2 = dict(JSON_V1, properties=dict(
    JSON_V1["properties"], region={"oneOf": [{"type": "null"}, {"type": "string"}]}))
JSON_SPARK = ("struct<id:bigint,name:string,price:double,ok:boolean,note:string,"
              "tags:array<string>,line:struct<sku:string,qty:bigint>,ts:timestamp,day:date,"
              "attrs:map<string,bigint>,region:string>")
JSON_COLUMNS = ("value.id", "value.name", "value.price", "value.ok", "value.note", "value.tags",
                "value.line", "unix_micros(value.ts)", "value.day", "value.attrs", "value.region")


def _json_records():
    """(schema, document, the row the latest version reads) per offset."""
    out = []
    for i in range(6):
        doc = {"id": i, "name": "n%d" % i, "price": i + 0.5 if i != 4 else 7, "ok": i % 2 == 0,
               "note": None if i == 1 else "x", "tags": ["a", "b%d" % i],
               "line": {"sku": "s%d" % i, "qty": i}, "ts": TS_TEXT,
               "day": "2026-01-0%d" % (i + 1), "attrs": {"k": i}}
        row = (i, "n%d" % i, float(doc["price"]), i % 2 == 0, doc["note"], ["a", "b%d" % i],
               {"sku": "s%d" % i, "qty": i}, MICROS, datetime.date(2026, 1, i + 1), {"k": i})
        if i == 2:  # only the required property
            doc, row = {"id": 2}, (2,) + (None,) * 9
        if i < 3:
            out.append((JSON_V1, doc, row + (None,)))
        else:
            region = "EU" if i != 5 else None
            out.append((JSON_V2, dict(doc, region=region), row + (region,)))
    return out


@pytest.fixture(scope="module")
def json_topic(kafka_cluster, registry):
    """A topic of 6 JSON Schema records written with two versions of the subject's schema by
    the SerializingProducer, and a tombstone; returns (topic, expected rows by offset)."""
    import json

    topic = "spark-sr-json-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    records = _json_records()
    for schema in (JSON_V1, JSON_V2):
        producer = kafka.SerializingProducer(kafka_cluster.client_config(**{
            "value.serializer": JSONSerializer(json.dumps(schema), registry),
        }))
        for s, doc, _ in records:
            if s is schema:
                producer.produce(topic, value=doc, partition=0)
        assert producer.flush(30) == 0
    _produce(kafka_cluster, topic, [None])
    yield topic, {i: row for i, (_, _, row) in enumerate(records)}
    kafka_cluster.delete_topic(topic)


def test_json_schema_topic_reads_into_typed_rows(spark, kafka_cluster, schema_registry,
                                                 registry, json_topic):
    topic, expected = json_topic
    assert len(registry.get_versions(topic + "-value")) == 2
    df = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic, valueFormat="json")
    assert df.schema["value"].dataType.simpleString() == JSON_SPARK
    rows = _rows(df, JSON_COLUMNS)
    assert rows.pop(6) == (None,) * 11  # the tombstone
    assert rows == expected

    # the reader pinned to version 1: the region property is not a column
    v1 = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic, valueFormat="json",
                 valueSchemaVersion="1")
    assert "region" not in v1.schema["value"].dataType.fieldNames()
    assert sorted(r.id for r in v1.select("value.id").collect() if r.id is not None) == \
        list(range(6))


@pytest.fixture(scope="module")
def json_poisoned(kafka_cluster, registry, json_topic):
    """Good, not framed, not JSON, JSON the writer's schema refuses, an unknown schema id,
    good."""
    topic = "spark-sr-json-poison-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    sid = registry.get_latest_version(json_topic[0] + "-value").schema_id
    good = _frame(sid, b'{"id": 0, "name": "n0"}')
    _produce(kafka_cluster, topic, [
        good, b"plain text", _frame(sid, b"{not json"), _frame(sid, b'{"id": "seven"}'),
        _frame(2**31 - 7, b'{"id": 1}'), good])
    yield topic
    kafka_cluster.delete_topic(topic)


def test_json_poison_record_in_both_modes(spark, kafka_cluster, schema_registry, json_topic,
                                          json_poisoned):
    rows = _poison_in_both_modes(spark, kafka_cluster, schema_registry, json_poisoned, "json",
                                 json_topic[0] + "-value", (0, "n0"))
    assert "JSONDecodeError" in rows[2].valueError, rows[2]
    assert rows[3].valueError.startswith("SerializationError"), rows[3]
    assert "'seven' is not of type 'integer'" in rows[3].valueError, rows[3]
    assert rows[4].valueError.startswith("SchemaRegistryError"), rows[4]


def test_json_sink_read_back_by_confluent_kafka_and_the_source(
        spark, kafka_cluster, schema_registry, registry, json_topic):
    import json

    import confluent_kafka.schema_registry as ck_sr
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer as CkJSON
    from confluent_kafka.serialization import MessageField as CkField
    from confluent_kafka.serialization import SerializationContext as CkContext

    source, expected = json_topic
    topic = "spark-sr-json-out-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=2)
    try:
        df = _source(spark, kafka_cluster, schema_registry.url, subscribe=source,
                     valueFormat="json").where("value IS NOT NULL")
        _sink(df.selectExpr("CAST(value.id AS STRING) AS key", "value"), kafka_cluster,
              schema_registry.url, topic, valueFormat="json", keyFormat="json")
        registered = registry.get_latest_version(topic + "-value")
        assert registered.schema.schema_type == "JSON"
        assert json.loads(registered.schema.schema_str)["title"] == "topLevelRecord"
        theirs = CkJSON(None, schema_registry_client=ck_sr.SchemaRegistryClient(
            schema_registry.client_config()))
        msgs = _consume_all(kafka_cluster, topic, len(expected))
        assert len(msgs) == len(expected)
        docs = {}
        for m in msgs:
            assert m.value()[:5] == _frame(registered.schema_id, b"")
            doc = theirs(m.value(), CkContext(topic, CkField.VALUE))
            assert theirs(m.key(), CkContext(topic, CkField.KEY)) == str(doc["id"])
            docs[doc["id"]] = doc
        assert docs[2] == {"id": 2, "name": None, "price": None, "ok": None, "note": None,
                           "tags": None, "line": None, "ts": None, "day": None, "attrs": None,
                           "region": None}
        assert docs[3] == {"id": 3, "name": "n3", "price": 3.5, "ok": False, "note": "x",
                           "tags": ["a", "b3"], "line": {"sku": "s3", "qty": 3},
                           "ts": "2026-05-01T12:30:15.123000Z", "day": "2026-01-04",
                           "attrs": {"k": 3}, "region": "EU"}

        back = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                       valueFormat="json", keyFormat="json")
        assert back.schema["key"].dataType.simpleString() == "string"
        assert back.schema["value"].dataType.simpleString() == JSON_SPARK
        got = {r[0]: r for r in back.selectExpr(*JSON_COLUMNS).collect()}
        assert {k: tuple(_plain(x) for x in v) for k, v in got.items()} == expected
    finally:
        kafka_cluster.delete_topic(topic)


def test_json_streaming_query_into_json_sink(spark, kafka_cluster, schema_registry, registry,
                                             json_topic, tmp_path):
    from confluent_binding.schema_registry.json_schema import JSONDeserializer
    from confluent_binding.serialization import MessageField, SerializationContext

    source, expected = json_topic
    out = "spark-sr-json-stream-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(out, partitions=1)
    try:
        batches = _stream(spark, kafka_cluster, schema_registry, source, out, "json",
                          "struct(value.id, value.name, value.price, value.tags, value.line, "
                          "value.ts, value.day, value.region, value.price * 2 AS twice)",
                          str(tmp_path / "checkpoint"))
        assert batches == [3, 3, 1]  # 6 records and the tombstone, 3 at a time
        assert registry.get_versions(out + "-value") == [1]
        registered = registry.get_latest_version(out + "-value")
        ours = JSONDeserializer(None, schema_registry_client=registry)
        ctx = SerializationContext(out, MessageField.VALUE)
        msgs = _consume_all(kafka_cluster, out, len(expected))
        assert {m.value()[:5] for m in msgs} == {_frame(registered.schema_id, b"")}
        got = {}
        for m in msgs:
            doc = ours(m.value(), ctx)
            assert m.key() == str(doc["id"]).encode()
            got[doc["id"]] = doc
        want = {
            i: {"id": i, "name": r[1], "price": r[2], "tags": r[5], "line": r[6],
                "ts": "2026-05-01T12:30:15.123000Z" if r[7] is not None else None,
                "day": r[8].isoformat() if r[8] is not None else None, "region": r[10],
                "twice": r[2] * 2 if r[2] is not None else None}
            for i, r in expected.items()}
        assert got == want
        assert len(msgs) == len(want)
    finally:
        kafka_cluster.delete_topic(out)


# --- Protobuf ---------------------------------------------------------------------------------


def _order_class(version):
    """shop.Order (version 1, or 2 with a price), built from its descriptor as protoc would
    generate it: id, name, an optional note, an enum, repeated strings, a map, a nested
    message (and a repeated one), a Timestamp, a uint64."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2

    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="shop/order.proto", package="shop", syntax="proto3",
        dependency=["google/protobuf/timestamp.proto"])
    order = file.message_type.add(name="Order")
    line = order.nested_type.add(name="Line")
    line.field.add(name="sku", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    line.field.add(name="qty", number=2, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    entry = order.nested_type.add(name="AttrsEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    kind = order.enum_type.add(name="Kind")
    for n, name in enumerate(("A", "B", "C")):
        kind.value.add(name=name, number=n)
    order.field.add(name="id", number=1, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    order.field.add(name="name", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    order.field.add(name="note", number=3, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL,
                    proto3_optional=True, oneof_index=0)
    order.field.add(name="kind", number=4, type=F.TYPE_ENUM, label=F.LABEL_OPTIONAL,
                    type_name=".shop.Order.Kind")
    order.field.add(name="tags", number=5, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    order.field.add(name="attrs", number=6, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                    type_name=".shop.Order.AttrsEntry")
    order.field.add(name="line", number=7, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=".shop.Order.Line")
    order.field.add(name="ts", number=8, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=".google.protobuf.Timestamp")
    order.field.add(name="big", number=9, type=F.TYPE_UINT64, label=F.LABEL_OPTIONAL)
    order.field.add(name="lines", number=10, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                    type_name=".shop.Order.Line")
    if version == 2:
        order.field.add(name="price", number=11, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
    order.oneof_decl.add(name="_note")
    pool = descriptor_pool.DescriptorPool()
    ts_file = descriptor_pb2.FileDescriptorProto()
    timestamp_pb2.DESCRIPTOR.CopyToProto(ts_file)
    pool.Add(ts_file)
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))


PROTO_SPARK = ("struct<id:bigint,name:string,note:string,kind:string,tags:array<string>,"
               "attrs:map<string,bigint>,line:struct<sku:string,qty:int>,ts:timestamp,"
               "big:decimal(20,0),lines:array<struct<sku:string,qty:int>>,price:double>")
PROTO_COLUMNS = ("value.id", "value.name", "value.note", "value.kind", "value.tags",
                 "value.attrs", "value.line", "unix_micros(value.ts)", "value.big",
                 "value.lines", "value.price")


def _proto_records():
    """(version, fields, the row the latest version reads) per offset."""
    import decimal

    out = []
    for i in range(6):
        version = 1 if i < 3 else 2
        fields = {"id": i, "name": "n%d" % i, "kind": "ABC"[i % 3], "tags": ["a", "b%d" % i],
                  "attrs": {"k": i}, "line": {"sku": "s%d" % i, "qty": i},
                  "lines": [{"sku": "x", "qty": 1}] * (i % 2), "big": 2**64 - 1 - i}
        if i % 2:
            fields["note"] = "x"
        if i != 4:
            fields["ts"] = TS
        if version == 2:
            fields["price"] = i + 0.25
        row = (i, "n%d" % i, "x" if i % 2 else None, "ABC"[i % 3], ["a", "b%d" % i], {"k": i},
               {"sku": "s%d" % i, "qty": i}, MICROS if i != 4 else None,
               decimal.Decimal(2**64 - 1 - i), [{"sku": "x", "qty": 1}] * (i % 2),
               i + 0.25 if version == 2 else 0.0)
        out.append((version, fields, row))
    return out


def _message(cls, fields):
    m = cls()
    for k, v in fields.items():
        if k == "ts":
            m.ts.FromDatetime(v)
        elif k == "line":
            m.line.sku, m.line.qty = v["sku"], v["qty"]
        elif k == "lines":
            for x in v:
                m.lines.add(**x)
        elif k == "attrs":
            m.attrs.update(v)
        elif k == "tags":
            m.tags.extend(v)
        else:
            setattr(m, k, v)
    return m


@pytest.fixture(scope="module")
def proto_topic(kafka_cluster, schema_registry):
    """A topic of 6 Protobuf records written with two versions of shop.Order by
    confluent-kafka's SerializingProducer, and a tombstone; returns (topic, expected rows)."""
    import confluent_kafka
    import confluent_kafka.schema_registry as ck_sr
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer as CkProtobuf

    topic = "spark-sr-proto-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    client = ck_sr.SchemaRegistryClient(schema_registry.client_config())
    records = _proto_records()
    for version in (1, 2):
        cls = _order_class(version)
        producer = confluent_kafka.SerializingProducer({
            "bootstrap.servers": kafka_cluster.bootstrap_servers,
            "value.serializer": CkProtobuf(cls, client, {"use.deprecated.format": False}),
        })
        for v, fields, _ in records:
            if v == version:
                producer.produce(topic, value=_message(cls, fields), partition=0)
        assert producer.flush(30) == 0
    _produce(kafka_cluster, topic, [None])
    yield topic, {i: row for i, (_, _, row) in enumerate(records)}
    kafka_cluster.delete_topic(topic)


def test_protobuf_topic_reads_into_typed_rows(spark, kafka_cluster, schema_registry, registry,
                                              proto_topic):
    topic, expected = proto_topic
    assert len(registry.get_versions(topic + "-value")) == 2
    df = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                 valueFormat="protobuf")
    assert df.schema["value"].dataType.simpleString() == PROTO_SPARK
    rows = _rows(df, PROTO_COLUMNS)
    assert rows.pop(6) == (None,) * 11  # the tombstone
    assert rows == expected

    # the reader pinned to version 1, the message named: no price column, same values
    v1 = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                 valueFormat="protobuf", valueSchemaVersion="1", valueMessageName="shop.Order")
    assert v1.schema["value"].dataType.simpleString() == PROTO_SPARK.replace(",price:double", "")
    assert _rows(v1.where("value IS NOT NULL"), PROTO_COLUMNS[:-1]) == \
        {k: v[:-1] for k, v in expected.items()}


@pytest.fixture(scope="module")
def proto_poisoned(kafka_cluster, registry, proto_topic, json_topic):
    """Good, not framed, a payload Protobuf cannot parse, an unknown schema id, a JSON Schema's
    id, good."""
    topic = "spark-sr-proto-poison-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    sid = registry.get_latest_version(proto_topic[0] + "-value").schema_id
    json_sid = registry.get_latest_version(json_topic[0] + "-value").schema_id
    good = _frame(sid, b"\x00" + _message(_order_class(2), {"id": 7, "name": "n7"})
                  .SerializeToString())
    _produce(kafka_cluster, topic, [
        good, b"plain text", _frame(sid, b"\x00\x12\x05ab"), _frame(2**31 - 7, b"\x00"),
        _frame(json_sid, b"\x00" + good[6:]), good])
    yield topic
    kafka_cluster.delete_topic(topic)


def test_protobuf_poison_record_in_both_modes(spark, kafka_cluster, schema_registry,
                                              proto_topic, proto_poisoned):
    rows = _poison_in_both_modes(spark, kafka_cluster, schema_registry, proto_poisoned,
                                 "protobuf", proto_topic[0] + "-value", (7, "n7"))
    assert rows[2].valueError.startswith("DecodeError"), rows[2]
    assert rows[3].valueError.startswith("SchemaRegistryError"), rows[3]
    assert "is a JSON schema, not Protobuf" in rows[4].valueError, rows[4]


def _registered_class(schema_registry, subject, name=None):
    """The message class of the latest schema of ``subject`` (its serialized form, through
    confluent-kafka's client): the first message of the file, or ``name``."""
    import base64

    import confluent_kafka.schema_registry as ck_sr
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2
    from google.type import date_pb2

    client = ck_sr.SchemaRegistryClient(schema_registry.client_config())
    registered = client.get_latest_version(subject, fmt="serialized")
    file = descriptor_pb2.FileDescriptorProto.FromString(
        base64.b64decode(registered.schema.schema_str))
    pool = descriptor_pool.DescriptorPool()
    for known in (timestamp_pb2, date_pb2):
        proto = descriptor_pb2.FileDescriptorProto()
        known.DESCRIPTOR.CopyToProto(proto)
        pool.Add(proto)
    pool.Add(file)
    name = name or (file.package + "." if file.package else "") + file.message_type[0].name
    return registered.schema_id, message_factory.GetMessageClass(pool.FindMessageTypeByName(name))


def test_protobuf_sink_read_back_by_confluent_kafka_and_the_source(
        spark, kafka_cluster, schema_registry, proto_topic):
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer as CkProtobuf
    from confluent_kafka.serialization import MessageField as CkField
    from confluent_kafka.serialization import SerializationContext as CkContext

    source, expected = proto_topic
    topic = "spark-sr-proto-out-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=2)
    columns = ("id", "name", "note", "kind", "tags", "attrs", "line", "ts", "lines", "price")
    try:
        df = _source(spark, kafka_cluster, schema_registry.url, subscribe=source,
                     valueFormat="protobuf").where("value IS NOT NULL")
        _sink(df.selectExpr("CAST(value.id AS STRING) AS key",
                            "struct(%s) AS value" % ", ".join("value." + c for c in columns)),
              kafka_cluster, schema_registry.url, topic, valueFormat="protobuf")
        schema_id, cls = _registered_class(schema_registry, topic + "-value")
        assert cls.DESCRIPTOR.full_name == "topLevelRecord"
        assert cls.DESCRIPTOR.fields_by_name["note"].has_presence  # nullable: optional
        theirs = CkProtobuf(cls, {"use.deprecated.format": False})
        msgs = _consume_all(kafka_cluster, topic, len(expected))
        got = {}
        for m in msgs:
            assert m.value()[:6] == _frame(schema_id, b"\x00")
            msg = theirs(m.value(), CkContext(topic, CkField.VALUE))
            assert m.key() == str(msg.id).encode()
            got[msg.id] = msg
        assert sorted(got) == list(range(6))
        one = got[1]
        assert (one.name, one.note, one.kind, list(one.tags), dict(one.attrs)) == \
            ("n1", "x", "B", ["a", "b1"], {"k": 1})
        assert (one.line.sku, one.line.qty, one.price) == ("s1", 1, 0.0)
        assert one.ts.ToDatetime(tzinfo=datetime.timezone.utc) == TS
        assert [(x.sku, x.qty) for x in one.lines] == [("x", 1)]
        assert not got[4].HasField("ts") and not got[0].HasField("note")

        back = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                       valueFormat="protobuf")
        picked = [c for c in PROTO_COLUMNS if c != "value.big"]
        want = {v[0]: v[:8] + v[9:] for v in expected.values()}
        got = {r[0]: tuple(_plain(x) for x in r) for r in back.selectExpr(*picked).collect()}
        assert got == want
    finally:
        kafka_cluster.delete_topic(topic)


def test_protobuf_streaming_query_into_protobuf_sink(spark, kafka_cluster, schema_registry,
                                                     registry, proto_topic, tmp_path):
    from confluent_binding.schema_registry.protobuf import ProtobufDeserializer
    from confluent_binding.serialization import MessageField, SerializationContext

    source, expected = proto_topic
    out = "spark-sr-proto-stream-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(out, partitions=1)
    try:
        batches = _stream(spark, kafka_cluster, schema_registry, source, out, "protobuf",
                          "struct(value.id, value.name, value.note, value.kind, value.tags, "
                          "value.attrs, value.line, value.ts, value.lines, value.price, "
                          "value.price * 2 AS twice)",
                          str(tmp_path / "checkpoint"))
        assert batches == [3, 3, 1]  # 6 records and the tombstone, 3 at a time
        assert registry.get_versions(out + "-value") == [1]
        schema_id, cls = _registered_class(schema_registry, out + "-value")
        assert cls.DESCRIPTOR.full_name == "topLevelRecord"
        ours = ProtobufDeserializer(cls, schema_registry_client=registry)
        ctx = SerializationContext(out, MessageField.VALUE)
        msgs = _consume_all(kafka_cluster, out, len(expected))
        assert {m.value()[:6] for m in msgs} == {_frame(schema_id, b"\x00")}
        got = {}
        for m in msgs:
            msg = ours(m.value(), ctx)
            assert m.key() == str(msg.id).encode()
            got[msg.id] = (
                msg.name, msg.note if msg.HasField("note") else None, msg.kind, list(msg.tags),
                dict(msg.attrs), {"sku": msg.line.sku, "qty": msg.line.qty},
                msg.ts.ToDatetime(tzinfo=datetime.timezone.utc) if msg.HasField("ts") else None,
                [{"sku": x.sku, "qty": x.qty} for x in msg.lines], msg.price, msg.twice)
        want = {
            i: (r[1], r[2], r[3], r[4], r[5], r[6], TS if r[7] is not None else None, r[9],
                r[10], r[10] * 2)
            for i, r in expected.items()}
        assert got == want
        assert len(msgs) == len(want)
    finally:
        kafka_cluster.delete_topic(out)


TOTAL_PROTO = """
syntax = "proto3";
package shop.totals;

message Total {
  string region = 1;
  int64 orders = 2;
  double amount = 3;
  repeated string ids = 4;
}
"""


def _total_class():
    """shop.totals.Total of TOTAL_PROTO, built from its descriptor."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="total.proto", package="shop.totals",
                                              syntax="proto3")
    total = file.message_type.add(name="Total")
    for number, (name, kind) in enumerate((("region", F.TYPE_STRING), ("orders", F.TYPE_INT64),
                                           ("amount", F.TYPE_DOUBLE)), 1):
        total.field.add(name=name, number=number, type=kind, label=F.LABEL_OPTIONAL)
    total.field.add(name="ids", number=4, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.totals.Total"))


def test_protobuf_sink_writes_with_the_latest_registered_proto_text(
        spark, kafka_cluster, schema_registry, registry):
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer as CkProtobuf
    from confluent_kafka.serialization import MessageField as CkField
    from confluent_kafka.serialization import SerializationContext as CkContext

    topic = "spark-sr-proto-latest-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    subject = topic + "-value"
    registered_id = registry.register_schema(subject, Schema(TOTAL_PROTO, "PROTOBUF"))
    try:
        df = spark.createDataFrame(
            [("EU", 3, 61.5, ["1", "2", "3"]), ("US", 2, 40.0, ["4", "5"])],
            "region STRING, orders BIGINT, amount DOUBLE, ids ARRAY<STRING>",
        ).selectExpr("struct(*) AS value")
        _sink(df, kafka_cluster, schema_registry.url, topic, valueFormat="protobuf",
              use__latest__version="true")
        assert registry.get_versions(subject) == [1]  # nothing new registered
        theirs = CkProtobuf(_total_class(), {"use.deprecated.format": False})
        msgs = _consume_all(kafka_cluster, topic, 2)
        assert {m.value()[:6] for m in msgs} == {_frame(registered_id, b"\x00")}
        got = sorted((m.region, m.orders, m.amount, list(m.ids)) for m in (
            theirs(x.value(), CkContext(topic, CkField.VALUE)) for x in msgs))
        assert got == [("EU", 3, 61.5, ["1", "2", "3"]), ("US", 2, 40.0, ["4", "5"])]

        back = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                       valueFormat="protobuf")
        assert back.schema["value"].dataType.simpleString() == \
            "struct<region:string,orders:bigint,amount:double,ids:array<string>>"
        assert sorted(tuple(_plain(x) for x in r) for r in back.select("value.*").collect()) == \
            got

        # a column the registered message does not have fails the write, naming it
        with pytest.raises(Exception, match="The message shop.totals.Total has no field 'extra'"):
            _sink(df.selectExpr("struct(value.*, 1 AS extra) AS value"), kafka_cluster,
                  schema_registry.url, topic, valueFormat="protobuf",
                  use__latest__version="true")
    finally:
        kafka_cluster.delete_topic(topic)


def test_format_options_are_checked(spark, kafka_cluster, schema_registry, proto_topic,
                                    json_topic):
    with pytest.raises(Exception, match="valueSchema' is not read with valueFormat=protobuf"):
        _source(spark, kafka_cluster, schema_registry.url, subscribe=proto_topic[0],
                valueFormat="protobuf", valueSchema="syntax = 'proto3';").schema
    with pytest.raises(Exception, match="holds a PROTOBUF schema, not JSON Schema"):
        _source(spark, kafka_cluster, schema_registry.url, subscribe=proto_topic[0],
                valueFormat="json").schema
    with pytest.raises(Exception, match="has no message 'shop.Nothing'"):
        _source(spark, kafka_cluster, schema_registry.url, subscribe=proto_topic[0],
                valueFormat="protobuf", valueMessageName="shop.Nothing").schema
    with pytest.raises(Exception, match="valueMessageName' needs valueFormat=protobuf"):
        _source(spark, kafka_cluster, schema_registry.url, subscribe=json_topic[0],
                valueFormat="json", valueMessageName="Order").schema
    df = spark.createDataFrame([("a",)], "s STRING")
    with pytest.raises(Exception, match="must be a struct, not string"):
        _sink(df.selectExpr("s AS value"), kafka_cluster, schema_registry.url, "never-written",
              valueFormat="protobuf")


# --- on the standalone cluster ----------------------------------------------------------------

FORMATS = {  # valueFormat: (the topic's fixture, its columns, the poisoned topic's fixture)
    "json": ("json_topic", JSON_COLUMNS, "json_poisoned"),
    "protobuf": ("proto_topic", PROTO_COLUMNS, "proto_poisoned"),
}


@pytest.mark.slow  # make test-spark-cluster
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_read_on_the_standalone_cluster(spark_driver, spark, kafka_cluster, schema_registry,
                                        request, fmt):
    fixture, columns, _ = FORMATS[fmt]
    topic, expected = request.getfixturevalue(fixture)
    local = registry_json(_source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                                  valueFormat=fmt), columns)
    got = spark_driver.call("read_registry_json", bootstrap=kafka_cluster.bootstrap_servers,
                            topic=topic, registry=schema_registry.url, columns=list(columns),
                            valueFormat=fmt)
    assert got == local
    assert len(got) == len(expected) + 1  # and the tombstone
    rows = sorted((json.loads(r) for r in got), key=lambda r: r["offset"])
    assert [r.get("c0") for r in rows] == sorted(expected) + [None]  # value.id


@pytest.mark.slow  # make test-spark-cluster
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_poison_record_on_the_standalone_cluster(spark_driver, spark, kafka_cluster,
                                                 schema_registry, request, fmt):
    fixture, _, poisoned_fixture = FORMATS[fmt]
    source = request.getfixturevalue(fixture)[0]
    poisoned = request.getfixturevalue(poisoned_fixture)
    options = {"valueFormat": fmt, "valueSubject": source + "-value"}
    columns = ["value.id", "value.name", "valueError"]

    local = registry_json(_source(spark, kafka_cluster, schema_registry.url, subscribe=poisoned,
                                  mode="PERMISSIVE", **options), columns)
    got = spark_driver.call("read_registry_json", bootstrap=kafka_cluster.bootstrap_servers,
                            topic=poisoned, registry=schema_registry.url, columns=columns,
                            mode="PERMISSIVE", **options)
    assert got == local
    rows = sorted((json.loads(r) for r in got), key=lambda r: r["offset"])
    good = {"json": (0, "n0"), "protobuf": (7, "n7")}[fmt]
    assert [(r["offset"], r.get("c0"), r.get("c1")) for r in rows] == [
        (0,) + good, (1, None, None), (2, None, None), (3, None, None), (4, None, None),
        (5,) + good]
    assert ["c2" in r for r in rows] == [False, True, True, True, True, False]
    assert "not in the Schema Registry wire format" in rows[1]["c2"]

    with pytest.raises(RuntimeError) as e:
        spark_driver.call("read_registry_json", bootstrap=kafka_cluster.bootstrap_servers,
                          topic=poisoned, registry=schema_registry.url, columns=columns[:2],
                          **options)
    kind = {"json": "JSON Schema", "protobuf": "Protobuf"}[fmt]
    text = str(e.value)
    assert "job failed in the Spark driver" in text, text
    assert "Malformed %s value of %s-0 at offset 1 (mode FAILFAST)" % (kind, poisoned) in text, \
        text
