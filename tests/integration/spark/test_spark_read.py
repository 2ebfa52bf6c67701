"""Batch reads through the Spark data source against the real broker (local[2] Spark)."""

import json
import time
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.spark import NAME

pytestmark = pytest.mark.integration

PARTITIONS = 6
PER_PARTITION = 50
# ms, an hour ago (whole seconds); record i of a partition has timestamp BASE_TS + i * 1000
BASE_TS = (int(time.time()) - 3600) * 1000


@pytest.fixture(scope="module")
def filled(kafka_cluster):
    """A 6-partition topic, 50 records per partition with keys, values, headers (on even
    offsets), and explicit create timestamps. Returns (topic, {(p, offset): record})."""
    name = "spark-read-%s" % uuid.uuid4().hex[:8]
    kafka_cluster.create_topic(name, partitions=PARTITIONS)
    producer = kafka.Producer(kafka_cluster.client_config(linger_ms=5))
    expected = {}
    for p in range(PARTITIONS):
        for i in range(PER_PARTITION):
            key = b"k-%d-%d" % (p, i)
            value = b"v-%d-%d-" % (p, i) + bytes(range(i % 7))
            headers = [("h", b"x%d" % i), ("n", None)] if i % 2 == 0 else None
            producer.produce(
                name, value, key, partition=p, timestamp=BASE_TS + i * 1000, headers=headers
            )
            expected[(p, i)] = (key, value, headers)
    assert producer.flush(30) == 0
    yield name, expected
    kafka_cluster.delete_topic(name)


def _reader(spark, kafka_cluster, **options):
    r = spark.read.format(NAME).option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
    for k, v in options.items():
        r = r.option(k, v)
    return r.load()


def _rows(df):
    return sorted(df.collect(), key=lambda r: (r.partition, r.offset))


def test_batch_read_equals_what_was_produced(spark, kafka_cluster, filled):
    topic, expected = filled
    df = _reader(spark, kafka_cluster, subscribe=topic, includeHeaders="true")
    assert df.schema.simpleString() == (
        "struct<key:binary,value:binary,topic:string,partition:int,offset:bigint,"
        "timestamp:timestamp,timestampType:int,headers:array<struct<key:string,value:binary>>>"
    )
    rows = _rows(df)
    assert len(rows) == PARTITIONS * PER_PARTITION
    for r in rows:
        key, value, headers = expected[(r.partition, r.offset)]
        assert r.topic == topic
        assert bytes(r.key) == key and bytes(r.value) == value
        ts_ms = int(r.timestamp.timestamp() * 1000)
        assert ts_ms == BASE_TS + r.offset * 1000
        assert r.timestampType == 0  # CreateTime
        if headers is None:
            assert r.headers is None
        else:
            assert [
                (h.key, None if h.value is None else bytes(h.value)) for h in r.headers
            ] == headers


def test_offset_ranges_cut_exactly(spark, kafka_cluster, filled):
    topic, _ = filled
    starting = {topic: {str(p): p for p in range(PARTITIONS)}}
    starting[topic]["5"] = -2  # earliest
    ending = {topic: {str(p): 10 + p for p in range(PARTITIONS)}}
    ending[topic]["4"] = -1  # latest
    rows = _rows(
        _reader(
            spark,
            kafka_cluster,
            subscribe=topic,
            startingOffsets=json.dumps(starting),
            endingOffsets=json.dumps(ending),
        )
    )
    got = {}
    for r in rows:
        got.setdefault(r.partition, []).append(r.offset)
    want = {p: list(range(p, 10 + p)) for p in range(PARTITIONS)}
    want[5] = list(range(0, 15))
    want[4] = list(range(4, PER_PARTITION))
    assert got == want


def test_assign_reads_only_the_assigned_partitions(spark, kafka_cluster, filled):
    topic, _ = filled
    rows = _rows(_reader(spark, kafka_cluster, assign=json.dumps({topic: [1, 3]})))
    assert sorted({r.partition for r in rows}) == [1, 3]
    assert len(rows) == 2 * PER_PARTITION


def test_subscribe_pattern(spark, kafka_cluster, filled):
    topic, _ = filled
    df = _reader(spark, kafka_cluster, subscribePattern=topic.replace("read", "rea."))
    assert df.count() == PARTITIONS * PER_PARTITION


def test_timestamp_ranges_cut_exactly(spark, kafka_cluster, filled):
    topic, _ = filled
    # records 10 .. 19 of every partition (timestamps are BASE_TS + offset s)
    rows = _rows(
        _reader(
            spark,
            kafka_cluster,
            subscribe=topic,
            startingTimestamp=str(BASE_TS + 10_000 - 1),
            endingTimestamp=str(BASE_TS + 20_000),
        )
    )
    assert {(r.partition, r.offset) for r in rows} == {
        (p, i) for p in range(PARTITIONS) for i in range(10, 20)
    }
    by_partition = json.dumps({topic: {str(p): BASE_TS + p * 1000 for p in range(PARTITIONS)}})
    rows = _rows(
        _reader(spark, kafka_cluster, subscribe=topic, startingOffsetsByTimestamp=by_partition)
    )
    assert {(r.partition, r.offset) for r in rows} == {
        (p, i) for p in range(PARTITIONS) for i in range(p, PER_PARTITION)
    }


def test_timestamp_after_the_end(spark, kafka_cluster, filled):
    topic, _ = filled
    late = str(BASE_TS + 10_000_000)
    with pytest.raises(Exception, match="startingTimestamp"):
        _reader(spark, kafka_cluster, subscribe=topic, startingTimestamp=late).collect()
    df = _reader(
        spark,
        kafka_cluster,
        subscribe=topic,
        startingTimestamp=late,
        startingOffsetsByTimestampStrategy="latest",
    )
    assert df.count() == 0


def test_min_partitions_splits_without_overlap(spark, kafka_cluster, filled):
    topic, _ = filled
    df = _reader(spark, kafka_cluster, subscribe=topic, minPartitions="20")
    assert df.rdd.getNumPartitions() >= 20
    rows = _rows(df)
    assert [(r.partition, r.offset) for r in rows] == [
        (p, i) for p in range(PARTITIONS) for i in range(PER_PARTITION)
    ]


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {},
            "One of the following options must be specified for Kafka source: "
            "subscribe, subscribePattern, assign",
        ),
        ({"subscribe": "a", "assign": '{"a":[0]}'}, "Only one of the following options"),
        (
            {"subscribe": "{topic}", "startingOffsets": "latest"},
            "'startingOffsets' can't be 'latest'",
        ),
        (
            {"subscribe": "{topic}", "startingOffsets": '{"{topic}":{"0":-1}}'},
            "'startingOffsets' can't be latest",
        ),
        (
            {"subscribe": "{topic}", "endingOffsets": "earliest"},
            "'endingOffsets' can't be 'earliest'",
        ),
        (
            {"subscribe": "{topic}", "startingOffsets": '{"{topic}":{"0":0,"9":0}}'},
            "'startingOffsets' names partitions that are not in the subscription: {topic}-9",
        ),
        (
            {"subscribe": "{topic}", "startingOffsets": "{oops"},
            "Option 'startingOffsets' is not valid JSON",
        ),
        (
            {"subscribe": "{topic}", "minPartitions": "0"},
            "'minPartitions' must be a positive integer",
        ),
        (
            {"subscribe": "{topic}", "kafka.auto.offset.reset": "earliest"},
            "'auto.offset.reset' is not supported",
        ),
        (
            {"subscribe": "{topic}", "includeHeaders": "yes"},
            "'includeHeaders' must be 'true' or 'false'",
        ),
    ],
)
def test_bad_options_fail_at_planning_naming_the_option(
    spark, kafka_cluster, filled, options, message
):
    topic, _ = filled
    options = {k: v.replace("{topic}", topic) for k, v in options.items()}
    with pytest.raises(Exception) as info:
        _reader(spark, kafka_cluster, **options).collect()
    assert message.replace("{topic}", topic) in str(info.value)


def test_custom_schema_is_refused(spark, kafka_cluster, filled):
    topic, _ = filled
    with pytest.raises(Exception, match="fixed schema"):
        (
            spark.read.format(NAME)
            .schema("value binary")
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("subscribe", topic)
            .load()
            .collect()
        )
