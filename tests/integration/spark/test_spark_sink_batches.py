"""The sink's compiled produce loop (one Arrow record batch per call, no Spark) against the real
broker: every column type the sink takes, sliced arrays, a full local queue, delivery errors."""

import pyarrow as pa
import pytest

import confluent_binding as kafka
from confluent_binding.spark._write import SinkOptions, produce_batch, write_batches

from tests.support.waiting import consume_messages

pytestmark = pytest.mark.integration

HEADERS = pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())]))


def _read(kafka_cluster, topic, expected):
    """Every record of ``topic`` as (partition, key, value, headers); the topic holds exactly
    ``expected`` records (its high watermarks say so)."""
    c = kafka.Consumer(
        kafka_cluster.client_config(
            **{"group.id": "check", "auto.offset.reset": "earliest", "enable.auto.commit": False}
        )
    )
    try:
        partitions = c.list_topics(topic, timeout=30).topics[topic].partitions
        total = sum(
            c.get_watermark_offsets(kafka.TopicPartition(topic, p), timeout=30)[1]
            for p in partitions
        )
        assert total == expected
        c.subscribe([topic])
        got = consume_messages(c, expected)
    finally:
        c.close()
    return [(m.partition(), m.key(), m.value(), m.headers()) for m in got]


def _producer(kafka_cluster, failures, **conf):
    def on_delivery(err, msg):
        if err is not None:
            failures.append(err)

    return kafka.Producer(
        kafka_cluster.client_config(
            on_delivery=on_delivery, **{"delivery.report.only.error": True}, **conf
        )
    )


def test_every_column_and_type(kafka_cluster, make_topic):
    topic = make_topic(3)
    n = 50
    batch = pa.record_batch(
        {
            "value": pa.array(["v%d" % i if i % 7 else None for i in range(n)], pa.large_string()),
            "key": pa.array([b"k%d" % i if i % 5 else None for i in range(n)], pa.binary()),
            "partition": pa.array([i % 3 if i % 4 else None for i in range(n)], pa.int32()),
            "headers": pa.array(
                [
                    [{"key": "h", "value": b"%d" % i}, {"key": "n", "value": None}]
                    if i % 2
                    else ([] if i % 3 else None)
                    for i in range(n)
                ],
                HEADERS,
            ),
        }
    )
    failures = []
    p = _producer(kafka_cluster, failures)
    assert produce_batch(p, topic, batch) == n
    assert p.flush(30) == 0 and failures == []
    got = _read(kafka_cluster, topic, n)
    want = []
    for i in range(n):
        value = b"v%d" % i if i % 7 else None
        key = b"k%d" % i if i % 5 else None
        hdrs = [("h", b"%d" % i), ("n", None)] if i % 2 else None
        want.append((value, key, hdrs))
    assert sorted(((v, k, h) for _, k, v, h in got), key=repr) == sorted(want, key=repr)
    # an explicit partition is kept; the others go where the partitioner puts them
    for part, key, value, _ in got:
        i = int(value[1:]) if value is not None else None
        if i is not None and i % 4:
            assert part == i % 3


def test_sliced_arrays_and_topic_column(kafka_cluster, make_topic):
    a, b = make_topic(1), make_topic(1)
    topics = pa.array([a, b, a, b, None, a, b, a], pa.string())
    values = pa.array([b"%d" % i for i in range(8)], pa.large_binary())
    keys = pa.array(["k%d" % i for i in range(8)], pa.string())
    # rows 1..3 only: every column starts at an offset into its buffers
    batch = pa.RecordBatch.from_arrays(
        [topics.slice(1, 3), values.slice(1, 3), keys.slice(1, 3)], ["TOPIC", "value", "key"]
    )
    failures = []
    p = _producer(kafka_cluster, failures)
    assert produce_batch(p, None, batch) == 3
    assert p.flush(30) == 0 and failures == []
    assert sorted(r[1:3] for r in _read(kafka_cluster, a, 1)) == [(b"k2", b"2")]
    assert sorted(r[1:3] for r in _read(kafka_cluster, b, 2)) == [(b"k1", b"1"), (b"k3", b"3")]
    # the topic option wins over the column; a null topic in the column is refused
    with pytest.raises(ValueError, match="Null topic"):
        produce_batch(p, None, pa.RecordBatch.from_arrays([topics, values], ["topic", "value"]))


def test_full_queue_is_served_not_dropped(kafka_cluster, make_topic):
    topic = make_topic(2)
    n = 20000
    batch = pa.record_batch({"value": pa.array([b"%06d" % i for i in range(n)], pa.binary())})
    failures = []
    # room for 100 messages: the loop waits for deliveries about 200 times
    p = _producer(kafka_cluster, failures, **{"queue.buffering.max.messages": 100})
    assert produce_batch(p, topic, batch) == n
    assert p.flush(60) == 0 and failures == []
    got = _read(kafka_cluster, topic, n)
    assert sorted(v for _, _, v, _ in got) == [b"%06d" % i for i in range(n)]


def test_delivery_error_fails_the_task(kafka_cluster, make_topic):
    topic = make_topic(1, config={"max.message.bytes": "1000"})
    batch = pa.record_batch({"value": pa.array([b"x" * 10, b"y" * 5000, b"z"], pa.binary())})
    opts = SinkOptions(kafka=kafka_cluster.client_config(), topic=topic)
    with pytest.raises(kafka.KafkaException) as info:
        write_batches(opts, iter([batch]))
    assert info.value.args[0].code() == kafka.KafkaError.MSG_SIZE_TOO_LARGE


def test_write_batches_counts_every_row(kafka_cluster, make_topic):
    topic = make_topic(2)
    batches = [
        pa.record_batch({"value": pa.array([b"%d-%d" % (j, i) for i in range(100)])})
        for j in range(5)
    ]
    opts = SinkOptions(kafka=kafka_cluster.client_config(), topic=topic)
    assert write_batches(opts, iter(batches)) == 500
    got = _read(kafka_cluster, topic, 500)
    assert sorted(v for _, _, v, _ in got) == sorted(
        b"%d-%d" % (j, i) for j in range(5) for i in range(100)
    )


def test_a_row_librdkafka_refuses_raises_after_the_rows_before(kafka_cluster, make_topic):
    topic = make_topic(1)
    batch = pa.record_batch({"value": pa.array([b"a", b"b", b"x" * 5000, b"c"], pa.binary())})
    failures = []
    p = _producer(kafka_cluster, failures, **{"message.max.bytes": 2000})
    with pytest.raises(kafka.KafkaException) as info:
        produce_batch(p, topic, batch)
    assert info.value.args[0].code() == kafka.KafkaError.MSG_SIZE_TOO_LARGE
    assert p.flush(30) == 0 and failures == []
    assert sorted(r[2] for r in _read(kafka_cluster, topic, 2)) == [b"a", b"b"]


def test_a_null_header_name_is_refused(kafka_cluster, make_topic):
    topic = make_topic(1)
    batch = pa.record_batch(
        {
            "value": pa.array([b"a"], pa.binary()),
            "headers": pa.array([[{"key": None, "value": b"v"}]], HEADERS),
        }
    )
    p = _producer(kafka_cluster, [])
    with pytest.raises(ValueError, match="Null header key"):
        produce_batch(p, topic, batch)
    assert p.flush(30) == 0
