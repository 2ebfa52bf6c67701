"""The sink (batch and streaming) and the streaming source against the real broker."""

import pytest

import confluent_binding as kafka
from confluent_binding.spark import NAME

pytestmark = pytest.mark.integration


def _consume_all(kafka_cluster, topic, expected, timeout=60):
    """Every record of ``topic`` (``expected`` of them) as (partition, key, value, headers)."""
    c = kafka.Consumer(
        kafka_cluster.client_config(
            **{"group.id": "check", "auto.offset.reset": "earliest", "enable.auto.commit": False}
        )
    )
    c.subscribe([topic])
    out = []
    try:
        import time

        deadline = time.monotonic() + timeout
        while len(out) < expected and time.monotonic() < deadline:
            for m in c.consume(1000, 1.0):
                assert m.error() is None, m.error()
                out.append((m.partition(), m.key(), m.value(), m.headers()))
    finally:
        c.close()
    return out


def _produce(kafka_cluster, topic, records):
    p = kafka.Producer(kafka_cluster.client_config())
    for partition, key, value in records:
        p.produce(topic, value, key, partition=partition)
    assert p.flush(30) == 0


def test_batch_write_then_read_round_trip(spark, kafka_cluster, make_topic):
    topic = make_topic(3)
    rows = [
        ("v%d" % i, bytearray(b"k%d" % i), i % 3, [("h", bytearray(b"%d" % i))]) for i in range(60)
    ]
    df = spark.createDataFrame(
        rows,
        "value string, key binary, partition int, headers array<struct<key:string,value:binary>>",
    )
    (
        df.write.format(NAME)
        .mode("append")
        .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
        .option("topic", topic)
        .save()
    )
    got = _consume_all(kafka_cluster, topic, 60)
    assert sorted(got) == sorted(
        (i % 3, b"k%d" % i, b"v%d" % i, [("h", b"%d" % i)]) for i in range(60)
    )
    # and the source reads back what the sink wrote
    back = (
        spark.read.format(NAME)
        .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
        .option("subscribe", topic)
        .option("includeHeaders", "true")
        .load()
        .selectExpr("partition", "CAST(key AS STRING) k", "CAST(value AS STRING) v")
        .collect()
    )
    assert sorted((r.partition, r.k, r.v) for r in back) == sorted(
        (i % 3, "k%d" % i, "v%d" % i) for i in range(60)
    )


def test_topic_column_and_null_key(spark, kafka_cluster, make_topic):
    a, b = make_topic(1), make_topic(1)
    df = spark.createDataFrame([(a, "1"), (b, "2"), (a, "3")], "topic string, value string")
    (
        df.write.format(NAME)
        .mode("append")
        .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
        .save()
    )
    assert sorted(r[2] for r in _consume_all(kafka_cluster, a, 2)) == [b"1", b"3"]
    assert [(r[1], r[2]) for r in _consume_all(kafka_cluster, b, 1)] == [(None, b"2")]


def test_write_the_broker_rejects_fails_the_job(spark, kafka_cluster, make_topic):
    topic = make_topic(1, config={"max.message.bytes": "1000"})
    df = spark.createDataFrame([("x" * 5000,)], "value string")
    with pytest.raises(Exception) as info:
        (
            df.write.format(NAME)
            .mode("append")
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("topic", topic)
            .save()
        )
    assert "MSG_SIZE_TOO_LARGE" in str(info.value)


def test_write_without_value_column_fails_at_planning(spark, kafka_cluster, make_topic):
    topic = make_topic(1)
    df = spark.createDataFrame([("x",)], "key string")
    with pytest.raises(Exception, match="Required attribute 'value' not found"):
        (
            df.write.format(NAME)
            .mode("append")
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("topic", topic)
            .save()
        )


def test_stream_restarted_from_checkpoint_writes_every_message_once(
    spark, kafka_cluster, make_topic, tmp_path
):
    topic = make_topic(3)
    _produce(kafka_cluster, topic, [(i % 3, b"k%d" % i, b"a%d" % i) for i in range(30)])
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")

    def run():
        stream = (
            spark.readStream.format(NAME)
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("subscribe", topic)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", "12")
            .load()
            .selectExpr("partition", "offset", "CAST(value AS STRING) AS value")
        )
        query = (
            stream.writeStream.format("parquet")
            .option("path", out)
            .option("checkpointLocation", checkpoint)
            .start()
        )
        try:
            query.processAllAvailable()
            return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
        finally:
            query.stop()

    first = run()
    assert first == [12, 12, 6]  # three micro-batches, capped by maxOffsetsPerTrigger
    _produce(kafka_cluster, topic, [(i % 3, None, b"b%d" % i) for i in range(20)])
    second = run()
    assert sum(second) == 20 and max(second) <= 12
    rows = spark.read.parquet(out).collect()
    assert len(rows) == 50
    assert sorted((r.partition, r.offset) for r in rows) == sorted(
        {(r.partition, r.offset) for r in rows}
    )
    assert sorted(r.value for r in rows) == sorted(
        ["a%d" % i for i in range(30)] + ["b%d" % i for i in range(20)]
    )


def test_overwrite_mode_is_refused(spark, kafka_cluster, make_topic):
    topic = make_topic(1)
    df = spark.createDataFrame([("x",)], "value string")
    with pytest.raises(Exception, match="Save mode Overwrite not allowed for Kafka"):
        (
            df.write.format(NAME)
            .mode("overwrite")
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("topic", topic)
            .save()
        )


def test_streaming_write_round_trip(spark, kafka_cluster, make_topic, tmp_path):
    source, sink = make_topic(2), make_topic(2)
    _produce(kafka_cluster, source, [(i % 2, b"k%d" % i, b"v%d" % i) for i in range(40)])
    query = (
        spark.readStream.format(NAME)
        .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
        .option("subscribe", source)
        .option("startingOffsets", "earliest")
        .load()
        .selectExpr("key", "upper(CAST(value AS STRING)) AS value", "partition")
        .writeStream.format(NAME)
        .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
        .option("topic", sink)
        .option("checkpointLocation", str(tmp_path / "cp"))
        .start()
    )
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    got = _consume_all(kafka_cluster, sink, 40)
    assert sorted((p, k, v) for p, k, v, _ in got) == sorted(
        (i % 2, b"k%d" % i, b"V%d" % i) for i in range(40)
    )


def test_streaming_rejects_ending_offsets(spark, kafka_cluster, make_topic):
    topic = make_topic(1)
    with pytest.raises(Exception, match="'endingOffsets' is not valid in streaming queries"):
        (
            spark.readStream.format(NAME)
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("subscribe", topic)
            .option("endingOffsets", "latest")
            .load()
            .writeStream.format("console")
            .start()
            .processAllAvailable()
        )
