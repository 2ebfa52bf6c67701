"""Schema Registry data in the Spark source and sink (valueFormat / keyFormat = avro) against the
real broker and the real Schema Registry, in local[2] (one read on the standalone cluster).

- a topic whose Avro schema evolved over three versions reads into one DataFrame of the latest
  version's columns, each record resolved from its own writer schema;
- malformed records: FAILFAST names the record (topic-partition, offset), PERMISSIVE gives a
  null value and the reason in ``valueError``;
- the sink's records read back by this project's AvroDeserializer, confluent-kafka's and the
  source; use.latest.version with RecordNameStrategy writes with the registered schema;
- a streaming query from Avro values into the Avro sink; a windowed aggregation over an Avro
  topic's event time (watermark, append mode) into the Avro sink: exactly the closed windows,
  without the late record;
- side by side with Spark's connector + from_avro(substring(value, 6)) on a single-schema topic.
"""

import datetime
import decimal
import json
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_binding.serialization import MessageField, SerializationContext
from confluent_binding.spark import NAME

from tests.integration.spark.cluster_jobs import AVRO_COLUMNS, AVRO_JSON, registry_json

pytestmark = pytest.mark.integration

NS = "shop"
V1 = {
    "type": "record",
    "name": "Order",
    "namespace": NS,
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string", "default": ""},
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}
V2 = dict(
    V1,
    fields=V1["fields"]
    + [
        {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}],
         "default": None},
        {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
    ],
)
NIL_UUID = "00000000-0000-0000-0000-000000000000"
V3 = dict(
    V1,
    fields=[V1["fields"][0]]  # name and note removed
    + V2["fields"][3:]
    + [
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]},
         "default": "A"},
        {"name": "price", "type": ["null", {"type": "bytes", "logicalType": "decimal",
                                            "precision": 10, "scale": 2}], "default": None},
        {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}],
         "default": None},
        {"name": "attrs", "type": {"type": "map", "values": "long"}, "default": {}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}, "default": NIL_UUID},
        {"name": "line", "type": ["null", {"type": "record", "name": "Line", "fields": [
            {"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}],
         "default": None},
    ],
)
V3_SPARK = (
    "struct<id:bigint,ts:timestamp,tags:array<string>,kind:string,price:decimal(10,2),"
    "day:date,attrs:map<string,bigint>,uid:string,line:struct<sku:string,qty:int>>"
)
TS = datetime.datetime(2026, 5, 1, 12, 30, 15, 123000, tzinfo=datetime.timezone.utc)
MICROS = 1777638615123000  # TS in microseconds since the epoch


def _records():
    """(schema, record, the record as the latest version reads it) per offset."""
    out = []
    for i in range(4):
        rec = {"id": i, "name": "n%d" % i, "note": "x" if i % 2 else None}
        out.append((V1, rec, (i, None, [], "A", None, None, {}, NIL_UUID, None)))
    for i in range(4, 8):
        rec = {"id": i, "name": "n%d" % i, "note": None, "ts": TS, "tags": ["a", "b%d" % i]}
        out.append((V2, rec, (i, MICROS, ["a", "b%d" % i], "A", None, None, {}, NIL_UUID, None)))
    for i in range(8, 12):
        u = str(uuid.UUID(int=i))
        rec = {"id": i, "ts": TS if i % 2 else None, "tags": [], "kind": "B",
               "price": decimal.Decimal("%d.25" % i) if i != 9 else None,
               "day": datetime.date(2026, 1, i), "attrs": {"x": i, "y": -i}, "uid": u,
               "line": {"sku": "s%d" % i, "qty": i} if i != 10 else None}
        out.append((V3, rec, (
            i, MICROS if i % 2 else None, [], "B",
            decimal.Decimal("%d.25" % i) if i != 9 else None, datetime.date(2026, 1, i),
            {"x": i, "y": -i}, u, {"sku": "s%d" % i, "qty": i} if i != 10 else None)))
    return out


def _produce(cluster, topic, values, partition=0):
    p = kafka.Producer(cluster.client_config())
    for v in values:
        p.produce(topic, v, partition=partition)
    assert p.flush(30) == 0


def _serialize(registry, topic, schema, record, field=MessageField.VALUE):
    ser = AvroSerializer(registry, json.dumps(schema), conf={"auto.register.schemas": True})
    return ser(record, SerializationContext(topic, field))


@pytest.fixture(scope="module")
def evolving(kafka_cluster, registry):
    """A topic of 12 Avro records written with three versions of the subject's schema, and a
    tombstone; returns (topic, expected rows by offset)."""
    topic = "spark-sr-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    records = _records()
    _produce(kafka_cluster, topic, [_serialize(registry, topic, s, r) for s, r, _ in records]
             + [None])
    yield topic, {i: expected for i, (_, _, expected) in enumerate(records)}
    kafka_cluster.delete_topic(topic)


def _source(spark, cluster, registry_url, stream=False, **options):
    r = (spark.readStream if stream else spark.read).format(NAME)
    r = r.option("kafka.bootstrap.servers", cluster.bootstrap_servers)
    r = r.option("startingOffsets", "earliest").option("schema.registry.url", registry_url)
    for k, v in options.items():
        r = r.option(k.replace("__", "."), v)
    return r.load()


def _typed(df):
    """[(offset, value columns...)] with timestamps as microseconds and structs as dicts."""
    def plain(v):
        return v.asDict(recursive=True) if hasattr(v, "asDict") else v

    return [tuple(plain(x) for x in r) for r in df.selectExpr("offset", *AVRO_COLUMNS).collect()]


def _typed_rows(df):
    """{offset: (value columns...)} of a one-partition topic."""
    return {r[0]: r[1:] for r in _typed(df)}


def test_three_schema_versions_read_into_one_dataframe(spark, kafka_cluster, schema_registry,
                                                       registry, evolving):
    topic, expected = evolving
    versions = registry.get_versions(topic + "-value")
    assert len(versions) == 3
    df = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic, valueFormat="avro")
    assert df.schema.simpleString() == (
        "struct<key:binary,value:%s,topic:string,partition:int,offset:bigint,"
        "timestamp:timestamp,timestampType:int>" % V3_SPARK)
    rows = _typed_rows(df)
    assert rows.pop(12) == (None,) * 9  # the tombstone: a null value
    assert rows == expected

    # the reader schema pinned to version 2: version 3's records resolved back to it
    v2 = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic, valueFormat="avro",
                 valueSchemaVersion="2")
    assert v2.schema["value"].dataType.simpleString() == (
        "struct<id:bigint,name:string,note:string,ts:timestamp,tags:array<string>>")
    got = {r.offset: r.value for r in v2.where("value IS NOT NULL").collect()}
    assert [(got[i].id, got[i].name, got[i].note, got[i].tags) for i in (1, 5, 9)] == [
        (1, "n1", "x", []), (5, "n5", None, ["a", "b5"]), (9, "", None, [])]


def test_reader_schema_errors_are_clear(spark, kafka_cluster, schema_registry, evolving):
    topic, _ = evolving
    with pytest.raises(Exception, match="valueSchemaVersion' must be 'latest' or a version"):
        _source(spark, kafka_cluster, schema_registry.url, subscribe=topic, valueFormat="avro",
                valueSchemaVersion="newest").schema
    with pytest.raises(Exception, match="subject 'no-such-subject'"):
        _source(spark, kafka_cluster, schema_registry.url, subscribe=topic, valueFormat="avro",
                valueSubject="no-such-subject").schema
    with pytest.raises(Exception, match="valueFormat' = 'xml'|must be one of binary, avro"):
        _source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                valueFormat="xml").schema


@pytest.fixture(scope="module")
def poisoned(kafka_cluster, registry, evolving):
    """A topic of the evolving topic's subject's latest schema: good, not framed, truncated,
    of a schema id the registry does not have, good."""
    topic = "spark-sr-poison-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    good = _serialize(registry, evolving[0], V3, _records()[8][1])
    unknown = b"\x00" + (2**31 - 7).to_bytes(4, "big") + good[5:]
    _produce(kafka_cluster, topic, [good, b"plain text", good[:-4], unknown, good])
    yield topic
    kafka_cluster.delete_topic(topic)


def test_poison_record_failfast_names_the_record(spark, kafka_cluster, schema_registry,
                                                 evolving, poisoned):
    df = _source(spark, kafka_cluster, schema_registry.url, subscribe=poisoned,
                 valueFormat="avro", valueSubject=evolving[0] + "-value")
    with pytest.raises(Exception) as e:
        df.collect()
    text = str(e.value)
    assert "Malformed Avro value of %s-0 at offset 1 (mode FAILFAST)" % poisoned in text, text
    assert "magic byte" in text


def test_poison_record_permissive_gives_null_and_the_reason(spark, kafka_cluster,
                                                            schema_registry, evolving, poisoned):
    df = _source(spark, kafka_cluster, schema_registry.url, subscribe=poisoned,
                 valueFormat="avro", valueSubject=evolving[0] + "-value", mode="PERMISSIVE")
    assert df.schema.fieldNames()[-1] == "valueError"
    rows = sorted(df.select("offset", "value.id", "valueError").collect())
    assert [(r.offset, r.id) for r in rows] == [(0, 8), (1, None), (2, None), (3, None), (4, 8)]
    assert rows[0].valueError is None and rows[4].valueError is None
    assert "not in the Schema Registry wire format" in rows[1].valueError
    assert rows[2].valueError.startswith(("EOFError", "StopIteration", "ValueError")), rows[2]
    assert rows[3].valueError.startswith("SchemaRegistryError"), rows[3]


@pytest.fixture(scope="module")
def written(spark, kafka_cluster, schema_registry, evolving):
    """The evolving topic's typed rows written by the sink with Avro keys and values (the value
    schema derived from the DataFrame, registered under <topic>-value); returns the topic."""
    topic = "spark-sr-out-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=2)
    df = _source(spark, kafka_cluster, schema_registry.url, subscribe=evolving[0],
                 valueFormat="avro")
    (df.where("value IS NOT NULL").selectExpr("CAST(value.id AS STRING) AS key", "value")
     .write.format(NAME).mode("append")
     .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
     .option("topic", topic).option("schema.registry.url", schema_registry.url)
     .option("valueFormat", "avro").option("keyFormat", "avro").save())
    yield topic
    kafka_cluster.delete_topic(topic)


def _consume_all(cluster, topic, n):
    c = kafka.Consumer(cluster.client_config(**{
        "group.id": "sr-" + uuid.uuid4().hex[:6], "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    out = []
    try:
        while len(out) < n:
            msgs = c.consume(100, 10.0)
            assert msgs, "read %d of %d" % (len(out), n)
            for m in msgs:
                assert m.error() is None, m.error()
                out.append(m)
    finally:
        c.close()
    return out


def test_sink_records_read_by_both_deserializers_and_the_source(
        spark, kafka_cluster, schema_registry, registry, evolving, written):
    import confluent_kafka.schema_registry as ck_sr
    from confluent_kafka.schema_registry.avro import AvroDeserializer as CkAvroDeserializer
    from confluent_kafka.serialization import MessageField as CkField
    from confluent_kafka.serialization import SerializationContext as CkContext

    _, expected = evolving
    registered = registry.get_latest_version(written + "-value")
    assert json.loads(registered.schema.schema_str)["name"] == "topLevelRecord"
    key_schema = json.loads(registry.get_latest_version(written + "-key").schema.schema_str)
    assert key_schema in ("string", {"type": "string"})
    ours = AvroDeserializer(registry)
    theirs = CkAvroDeserializer(ck_sr.SchemaRegistryClient(schema_registry.client_config()))
    msgs = _consume_all(kafka_cluster, written, len(expected))
    assert len(msgs) == len(expected)
    for m in msgs:
        assert m.value()[:5] == b"\x00" + registered.schema_id.to_bytes(4, "big")
        a = ours(m.value(), SerializationContext(written, MessageField.VALUE))
        b = theirs(m.value(), CkContext(written, CkField.VALUE))
        assert a == b
        want = expected[a["id"]]
        assert ours(m.key(), SerializationContext(written, MessageField.KEY)) == str(a["id"])
        ts = want[1]
        assert (a["ts"] - TS).total_seconds() == 0 if ts is not None else a["ts"] is None
        assert (a["tags"], a["kind"], a["price"], a["day"], a["attrs"], a["uid"],
                a["line"]) == want[2:]

    back = _source(spark, kafka_cluster, schema_registry.url, subscribe=written,
                   valueFormat="avro", keyFormat="avro")
    assert back.schema["key"].dataType.simpleString() == "string"
    assert {r[1]: r[2:] for r in _typed(back)} == {k: v[1:] for k, v in expected.items()}
    assert sorted(int(r.key) for r in back.select("key").collect()) == sorted(expected)


def test_sink_use_latest_version_with_record_name_strategy(
        spark, kafka_cluster, schema_registry, registry, evolving):
    from confluent_binding.schema_registry import Schema

    topic = "spark-sr-latest-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    name = "shop.Order%s" % uuid.uuid4().hex[:6]
    schema = dict(V3, name=name.split(".")[1])
    schema_id = registry.register_schema(name, Schema(json.dumps(schema), "AVRO"))
    try:
        df = _source(spark, kafka_cluster, schema_registry.url, subscribe=evolving[0],
                     valueFormat="avro").where("value IS NOT NULL").select("value")
        (df.write.format(NAME).mode("append")
         .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
         .option("topic", topic).option("schema.registry.url", schema_registry.url)
         .option("valueFormat", "avro").option("use.latest.version", "true")
         .option("valueSchema", json.dumps(schema))
         .option("value.subject.name.strategy", "RecordNameStrategy").save())
        msgs = _consume_all(kafka_cluster, topic, 12)
        assert {m.value()[:5] for m in msgs} == {b"\x00" + schema_id.to_bytes(4, "big")}
        assert registry.get_versions(name) == [1]  # nothing new registered
        ours = AvroDeserializer(registry)
        ctx = SerializationContext(topic, MessageField.VALUE)
        assert sorted(ours(m.value(), ctx)["id"] for m in msgs) == list(range(12))
    finally:
        kafka_cluster.delete_topic(topic)


def test_sink_tasks_registering_one_new_schema_at_once(spark, kafka_cluster, schema_registry,
                                                       registry):
    """Four tasks of one write register the same new schema at the same moment. A registry
    may refuse all but one of them with HTTP 409 (Apicurio, which these tests run, does about
    half the time with two tasks, nearly always with four: each of these writes failed before
    the fix); the sink then serializes again, and every write succeeds with one schema."""
    for _ in range(2):
        topic = "spark-sr-race-%s" % uuid.uuid4().hex[:8]
        kafka_cluster.create_topic(topic, partitions=1)
        try:
            (spark.range(0, 40, numPartitions=4).selectExpr("struct(id) AS value")
             .write.format(NAME).mode("append")
             .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
             .option("topic", topic).option("schema.registry.url", schema_registry.url)
             .option("valueFormat", "avro").save())
            # one schema (Apicurio may store concurrent registrations of it as two versions)
            subject = topic + "-value"
            assert len({registry.get_version(subject, v).schema.schema_str
                        for v in registry.get_versions(subject)}) == 1
            ours = AvroDeserializer(registry)
            got = sorted(ours(m.value(), SerializationContext(topic, MessageField.VALUE))["id"]
                         for m in _consume_all(kafka_cluster, topic, 40))
            assert got == list(range(40))
        finally:
            kafka_cluster.delete_topic(topic)


def test_sink_refuses_options_without_format(spark, kafka_cluster, schema_registry):
    df = spark.createDataFrame([(1, "a")], "id INT, name STRING").selectExpr(
        "struct(id, name) AS value")
    w = (df.write.format(NAME).mode("append")
         .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
         .option("topic", "never-written"))
    with pytest.raises(Exception, match="value attribute type must be a string or binary, got "
                                        "struct<id:int,name:string> \\(or set the option "
                                        "'valueFormat' to avro"):
        w.save()
    with pytest.raises(Exception, match="schema.registry.url' must be specified"):
        w.option("valueFormat", "avro").save()
    with pytest.raises(Exception, match="value.subject.name.strategy' must be"):
        (w.option("valueFormat", "avro").option("schema.registry.url", schema_registry.url)
         .option("value.subject.name.strategy", "io.confluent.NoSuchStrategy").save())


def test_streaming_query_from_avro_into_avro_sink(spark, kafka_cluster, schema_registry,
                                                  registry, evolving, tmp_path):
    topic, expected = evolving
    out = "spark-sr-stream-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(out, partitions=1)
    try:
        src = _source(spark, kafka_cluster, schema_registry.url, stream=True, subscribe=topic,
                      valueFormat="avro", maxOffsetsPerTrigger="5")
        query = (
            src.where("value IS NOT NULL")
            .selectExpr("struct(value.id AS id, value.kind AS kind, value.price AS price, "
                        "size(value.tags) AS tags) AS value")
            .writeStream.format(NAME)
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("topic", out).option("schema.registry.url", schema_registry.url)
            .option("valueFormat", "avro")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(availableNow=True).start())
        query.awaitTermination(180)
        assert query.exception() is None
        assert len([p for p in query.recentProgress if p["numInputRows"]]) == 3  # 13 records / 5
        ours = AvroDeserializer(registry)
        got = sorted(
            (ours(m.value(), SerializationContext(out, MessageField.VALUE))
             for m in _consume_all(kafka_cluster, out, 12)), key=lambda r: r["id"])
        assert got == [{"id": i, "kind": e[3], "price": e[4], "tags": len(e[2])}
                       for i, e in sorted(expected.items())]
    finally:
        kafka_cluster.delete_topic(out)


SALE = {
    "type": "record",
    "name": "Sale",
    "namespace": NS,
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "region", "type": "string"},
        {"name": "cents", "type": "long"},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    ],
}
NOON = datetime.datetime(2026, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)
# (minutes after NOON, region, cents) by offset, read three per micro-batch, into 10-minute
# windows with a 10-minute watermark delay. The watermark (the latest event time seen before
# the batch, less 10 minutes) is 12:02 in the second batch, 12:15 in the third and fourth, 12:35
# after them. The third batch closes the window [12:00, 12:10); offset 10 (12:02) comes in the
# fourth, behind the watermark, and is dropped; the window [12:40, 12:50) is left open.
SALES = [(1, "EU", 1000), (3, "US", 500), (12, "EU", 100),
         (7, "EU", 200), (5, "US", 300), (25, "EU", 700),
         (15, "US", 400), (18, "EU", 600), (21, "US", 800),
         (29, "US", 900), (2, "EU", 10000), (45, "EU", 100)]
LATE = 10


# The aggregation's output, registered before the query and written with use.latest.version
# (the schema a pipeline's deployment registers; a sink registering it itself is
# test_sink_tasks_registering_one_new_schema_at_once).
WINDOW = {
    "type": "record",
    "name": "Window",
    "namespace": NS,
    "fields": [
        {"name": "start", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "end", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "region", "type": "string"},
        {"name": "orders", "type": "long"},
        {"name": "cents", "type": "long"},
    ],
}


def _closed_windows():
    """The (start, end, region, orders, cents) the append-mode aggregation writes for SALES."""
    totals = {}
    for i, (minute, region, cents) in enumerate(SALES):
        if i == LATE or minute >= 40:  # dropped; the window left open
            continue
        start = NOON + datetime.timedelta(minutes=minute - minute % 10)
        orders, total = totals.get((start, region), (0, 0))
        totals[(start, region)] = (orders + 1, total + cents)
    return sorted((start, start + datetime.timedelta(minutes=10), region, n, cents)
                  for (start, region), (n, cents) in totals.items())


def test_streaming_windowed_aggregation_from_avro_into_avro_sink(
        spark, kafka_cluster, schema_registry, registry, tmp_path):
    from pyspark.sql import functions as F

    from confluent_binding.schema_registry import Schema

    topic = "spark-sr-sales-%s" % uuid.uuid4().hex[:8]
    out = "spark-sr-windows-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(topic, partitions=1)
    kafka_cluster.create_topic(out, partitions=1)
    try:
        window_id = registry.register_schema(out + "-value", Schema(json.dumps(WINDOW), "AVRO"))
        _produce(kafka_cluster, topic, [
            _serialize(registry, topic, SALE, {"id": i, "region": region, "cents": cents,
                                               "ts": NOON + datetime.timedelta(minutes=minute)})
            for i, (minute, region, cents) in enumerate(SALES)])
        src = _source(spark, kafka_cluster, schema_registry.url, stream=True, subscribe=topic,
                      valueFormat="avro", maxOffsetsPerTrigger="3")
        query = (
            src.select("value.*")
            .withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "10 minutes"), "region")
            .agg(F.count("*").alias("orders"), F.sum("cents").alias("cents"))
            .selectExpr("struct(window.start AS start, window.end AS end, region, orders, "
                        "cents) AS value")
            .writeStream.format(NAME).outputMode("append")
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("topic", out).option("schema.registry.url", schema_registry.url)
            .option("valueFormat", "avro").option("use.latest.version", "true")
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(availableNow=True).start())
        assert query.awaitTermination(180), "the availableNow query did not end"
        assert query.exception() is None
        progress = query.recentProgress
        assert [p["numInputRows"] for p in progress if p["numInputRows"]] == [3, 3, 3, 3]
        assert progress[-1]["eventTime"]["watermark"] == "2026-05-01T12:35:00.000Z"
        assert sum(p["stateOperators"][0]["numRowsDroppedByWatermark"] for p in progress) == 1

        want = _closed_windows()
        assert len(want) == 6
        ours = AvroDeserializer(registry)
        ctx = SerializationContext(out, MessageField.VALUE)
        msgs = _consume_all(kafka_cluster, out, len(want))
        assert {m.value()[:5] for m in msgs} == {b"\x00" + window_id.to_bytes(4, "big")}
        got = sorted((r["start"], r["end"], r["region"], r["orders"], r["cents"])
                     for r in (ours(m.value(), ctx) for m in msgs))
        assert got == want
        # nothing else was written: not the late record's window again, not the open window
        back = _source(spark, kafka_cluster, schema_registry.url, subscribe=out,
                       valueFormat="avro")
        assert back.count() == len(want)
        assert registry.get_versions(out + "-value") == [1]
    finally:
        kafka_cluster.delete_topic(topic)
        kafka_cluster.delete_topic(out)


@pytest.fixture(scope="module")
def avro_jar():
    import pyspark

    from confluent_binding.testing._jars import cache_dir

    jars = sorted((cache_dir() / ("spark-avro-%s" % pyspark.__version__)).glob("spark-avro_*.jar"))
    if not jars:
        pytest.skip("the spark-avro jar is not fetched (make spark-connector-jars)")
    return str(jars[0])


def test_side_by_side_with_spark_connector_and_from_avro(
        spark, kafka_cluster, schema_registry, registry, builtin_kafka, avro_jar, written):
    """One writer schema (the sink's topic): Spark's connector with from_avro over the bytes
    after the 5-byte header gives the same rows as the source's decoding."""
    from pyspark.sql.avro.functions import from_avro
    from pyspark.sql.functions import expr

    assert avro_jar in spark.conf.get("spark.jars")
    schema = registry.get_latest_version(written + "-value").schema.schema_str
    peer = (spark.read.format(builtin_kafka)
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("subscribe", written).option("startingOffsets", "earliest").load()
            .select("partition", "offset",
                    from_avro(expr("substring(value, 6, length(value) - 5)"), schema,
                              {"mode": "FAILFAST"}).alias("value")))
    ours = _source(spark, kafka_cluster, schema_registry.url, subscribe=written,
                   valueFormat="avro").select("partition", "offset", "value")
    assert peer.schema["value"].dataType.simpleString() == V3_SPARK
    assert peer.schema["value"].dataType.simpleString() == \
        ours.schema["value"].dataType.simpleString()

    def rows(df):
        return sorted(df.selectExpr("partition", "offset", "to_json(value)").collect())

    got = rows(ours)
    assert len(got) == 12
    assert got == rows(peer)


def test_read_on_the_standalone_cluster(spark_driver, spark, kafka_cluster, schema_registry,
                                        evolving):
    topic, _ = evolving
    local = _source(spark, kafka_cluster, schema_registry.url, subscribe=topic,
                    valueFormat="avro")
    want = sorted(r[0] for r in local.selectExpr(AVRO_JSON).collect())
    got = spark_driver.call("read_avro_json", bootstrap=kafka_cluster.bootstrap_servers,
                            topic=topic, registry=schema_registry.url)
    assert got == want
    assert len(got) == 13


@pytest.mark.slow  # make test-spark-cluster
def test_streaming_query_on_the_standalone_cluster(spark_driver, kafka_cluster, schema_registry,
                                                   registry, evolving, tmp_path):
    """The local streaming query from Avro into the Avro sink, run by the cluster's
    executors: the same micro-batches and records."""
    topic, expected = evolving
    out = "spark-sr-cluster-stream-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(out, partitions=1)
    try:
        batches = spark_driver.call(
            "stream_to_kafka", bootstrap=kafka_cluster.bootstrap_servers, topic=topic,
            out_topic=out, checkpoint=str(tmp_path / "checkpoint"), where="value IS NOT NULL",
            select=["struct(value.id AS id, value.kind AS kind, value.price AS price, "
                    "size(value.tags) AS tags) AS value"],
            sink_options={"schema.registry.url": schema_registry.url, "valueFormat": "avro"},
            valueFormat="avro", maxOffsetsPerTrigger=5,
            **{"schema.registry.url": schema_registry.url})
        assert batches == [5, 5, 3], batches      # 13 records (a tombstone among them) / 5
        ours = AvroDeserializer(registry)
        got = sorted(
            (ours(m.value(), SerializationContext(out, MessageField.VALUE))
             for m in _consume_all(kafka_cluster, out, 12)), key=lambda r: r["id"])
        assert got == [{"id": i, "kind": e[3], "price": e[4], "tags": len(e[2])}
                       for i, e in sorted(expected.items())]
    finally:
        kafka_cluster.delete_topic(out)


@pytest.mark.slow  # make test-spark-cluster
def test_poison_record_on_the_standalone_cluster(spark_driver, spark, kafka_cluster,
                                                 schema_registry, evolving, poisoned):
    """The poisoned topic read by the cluster's executors: in PERMISSIVE mode the rows the
    local read gives, in FAILFAST the job fails naming the record."""
    options = {"valueFormat": "avro", "valueSubject": evolving[0] + "-value"}
    columns = ["value.id", "valueError"]
    local = registry_json(_source(spark, kafka_cluster, schema_registry.url, subscribe=poisoned,
                                  mode="PERMISSIVE", **options), columns)
    got = spark_driver.call("read_registry_json", bootstrap=kafka_cluster.bootstrap_servers,
                            topic=poisoned, registry=schema_registry.url, columns=columns,
                            mode="PERMISSIVE", **options)
    assert got == local
    rows = sorted((json.loads(r) for r in got), key=lambda r: r["offset"])
    assert [(r["offset"], r.get("c0")) for r in rows] == [(0, 8), (1, None), (2, None),
                                                         (3, None), (4, 8)]
    assert ["c1" in r for r in rows] == [False, True, True, True, False]
    with pytest.raises(RuntimeError) as e:
        spark_driver.call("read_registry_json", bootstrap=kafka_cluster.bootstrap_servers,
                          topic=poisoned, registry=schema_registry.url, columns=columns[:1],
                          **options)
    assert "Malformed Avro value of %s-0 at offset 1 (mode FAILFAST)" % poisoned in str(e.value)


def test_docs_example_runs(spark, kafka_cluster, schema_registry, capsys):
    """examples/spark_schema_registry.py (the Spark guide's Schema Registry page includes it),
    run in this session."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "examples" / "spark_schema_registry.py"
    spec = importlib.util.spec_from_file_location("spark_schema_registry_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.pipeline(spark, kafka_cluster.bootstrap_servers, schema_registry.url)
    out = capsys.readouterr().out
    assert "read 6 orders written with 2 schema versions" in out, out
    assert "EU  3  61.50" in out, out
    assert "US  3  40.00" in out, out
    assert "read back 2 totals: [('EU', Decimal('61.50')), ('US', Decimal('40.00'))]" in out, out
