"""Consumer.consume_arrow(): the columnar consume path against the real broker."""

import time

import pytest

import confluent_binding as kafka

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.integration

BASE_TS = (int(time.time()) - 600) * 1000


def _fill(kafka_cluster, topic, partitions, per_partition):
    p = kafka.Producer(kafka_cluster.client_config(linger_ms=5))
    for part in range(partitions):
        for i in range(per_partition):
            key = None if i % 5 == 0 else b"k%d" % i
            value = None if i % 7 == 3 else b"v-%d-%d" % (part, i) * (i % 4)
            headers = None if i % 3 else [("a", b"1"), ("b", None), ("", b"")]
            p.produce(topic, value, key, partition=part, timestamp=BASE_TS + i, headers=headers)
    assert p.flush(30) == 0


class Deadline:
    """A loop's time limit: check() fails the test, saying what was read by then."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def check(self, progress):
        assert time.monotonic() < self.end, "after %s s: %s" % (self.seconds, progress)


def _consumer(kafka_cluster, **extra):
    conf = {"group.id": "arrow", "enable.auto.commit": False, "enable.partition.eof": True}
    conf.update(extra)
    return kafka.Consumer(kafka_cluster.client_config(**conf))


def test_batch_equals_what_consume_returns(kafka_cluster, make_topic):
    topic = make_topic(2)
    _fill(kafka_cluster, topic, 2, 300)
    c = _consumer(kafka_cluster)
    c.assign([kafka.TopicPartition(topic, p, 0) for p in range(2)])
    ends = {(topic, 0): 300, (topic, 1): 300}
    batches = []
    deadline = Deadline(60)
    while sum(b.num_rows for b in batches) < 600:
        deadline.check("%d of 600 rows read" % sum(b.num_rows for b in batches))
        batches.append(c.consume_arrow(128, 1.0, end_offsets=ends, headers=True))
    c.close()
    table = pa.Table.from_batches(batches)
    from confluent_binding._arrow import schema

    assert table.schema == schema(True)
    assert table.num_rows == 600
    rows = sorted(table.to_pylist(), key=lambda r: (r["partition"], r["offset"]))
    for r in rows:
        part, i = r["partition"], r["offset"]
        assert r["topic"] == topic
        assert r["key"] == (None if i % 5 == 0 else b"k%d" % i)
        assert r["value"] == (None if i % 7 == 3 else b"v-%d-%d" % (part, i) * (i % 4))
        assert int(r["timestamp"].timestamp() * 1000) == BASE_TS + i
        assert r["timestampType"] == 0
        want = (
            None
            if i % 3
            else [
                {"key": "a", "value": b"1"},
                {"key": "b", "value": None},
                {"key": "", "value": b""},
            ]
        )
        assert r["headers"] == want


def test_first_null_late_in_a_batch(kafka_cluster, make_topic):
    """A column's validity bitmap begins at its first null: rows before it stay valid, also
    when the null comes many rows (and several bitmap bytes) into a batch."""
    topic = make_topic(1)
    p = kafka.Producer(kafka_cluster.client_config(linger_ms=50))
    n = 40
    for i in range(n):
        key = None if i in (13, 30) else b"k%d" % i
        value = None if i == 25 else b"v%d" % i
        headers = [("h", None if i in (11, 21) else b"%d" % i)]
        p.produce(topic, value, key, partition=0, timestamp=BASE_TS + i, headers=headers)
    assert p.flush(30) == 0
    c = _consumer(kafka_cluster)
    c.assign([kafka.TopicPartition(topic, 0, 0)])
    rows = []
    deadline = Deadline(60)
    while len(rows) < n:
        deadline.check("%d of %d rows read" % (len(rows), n))
        b = c.consume_arrow(1000, 1.0, end_offsets={(topic, 0): n}, headers=True)
        rows.extend(b.to_pylist())
    c.close()
    assert [r["offset"] for r in rows] == list(range(n))
    assert [r["key"] for r in rows] == [None if i in (13, 30) else b"k%d" % i for i in range(n)]
    assert [r["value"] for r in rows] == [None if i == 25 else b"v%d" % i for i in range(n)]
    assert [r["headers"] for r in rows] == [
        [{"key": "h", "value": None if i in (11, 21) else b"%d" % i}] for i in range(n)
    ]


def test_range_bounded_read_stops_at_the_end_offset(kafka_cluster, make_topic):
    topic = make_topic(1)
    _fill(kafka_cluster, topic, 1, 100)
    c = _consumer(kafka_cluster)
    c.assign([kafka.TopicPartition(topic, 0, 10)])
    got = []
    # returns when the end is reached, not after the 30 s timeout
    deadline = Deadline(20)
    while not got or got[-1] < 41:
        deadline.check("offsets read: %s" % got)
        b = c.consume_arrow(1000, 30, end_offsets={(topic, 0): 42})
        got.extend(b.column("offset").to_pylist())
    deadline.check("offsets read: %s" % got)
    assert got == list(range(10, 42))
    # already at the end: an empty batch at once
    assert c.consume_arrow(1000, 30, end_offsets={(topic, 0): 0}).num_rows == 0
    c.close()


def test_end_at_the_high_watermark_finishes_on_partition_eof(kafka_cluster, make_topic):
    topic = make_topic(1)
    _fill(kafka_cluster, topic, 1, 20)
    c = _consumer(kafka_cluster)
    c.assign([kafka.TopicPartition(topic, 0, 0)])
    ends = {(topic, 0): 20}
    total = 0
    # each call returns once its partition is at its end, not after the 30 s timeout
    deadline = Deadline(20)
    while total < 20:
        deadline.check("%d of 20 rows read" % total)
        total += c.consume_arrow(7, 30, end_offsets=ends).num_rows
    deadline.check("%d of 20 rows read" % total)
    assert total == 20
    c.close()


def test_errors_and_bad_arguments(kafka_cluster, make_topic):
    topic = make_topic(1)
    c = _consumer(kafka_cluster, **{"auto.offset.reset": "error"})
    c.assign([kafka.TopicPartition(topic, 0, 1000)])  # past the end: offset out of range
    with pytest.raises(kafka.KafkaException) as info:
        deadline = Deadline(30)
        while True:
            deadline.check("no error raised for an offset past the end")
            c.consume_arrow(10, 1.0)
    assert info.value.args[0].code() == kafka.KafkaError._AUTO_OFFSET_RESET
    with pytest.raises(ValueError):
        c.consume_arrow(-1)
    with pytest.raises(TypeError):
        c.consume_arrow(10, 0, end_offsets={(1, 0): 5})
    c.close()
    with pytest.raises(RuntimeError):
        c.consume_arrow(10, 0)


def test_batches_outlive_later_ones_and_are_released_by_any_thread(kafka_cluster, make_topic):
    """The memory of released batches is reused for later ones: a batch still alive keeps its
    bytes while later batches fill reused blocks, and batches dropped by other threads give
    their memory back without disturbing either."""
    from concurrent.futures import ThreadPoolExecutor

    topic = make_topic(1)
    n, size = 6000, 200
    p = kafka.Producer(kafka_cluster.client_config(linger_ms=5))
    for i in range(n):
        p.produce(topic, (b"%06d" % i) * (size // 6), partition=0)
    assert p.flush(30) == 0
    c = _consumer(kafka_cluster)
    c.assign([kafka.TopicPartition(topic, 0, 0)])
    kept, lengths, seen = [], [], []

    def drop(batch):
        lengths.append(sum(len(v) for v in batch.column("value").to_pylist()))
        return batch.num_rows       # the thread's reference is the last: released there

    with ThreadPoolExecutor(2) as pool:
        deadline = Deadline(60)
        while len(seen) < n:
            deadline.check("%d of %d rows read" % (len(seen), n))
            b = c.consume_arrow(500, 1.0, end_offsets={(topic, 0): n})
            if b.num_rows:
                seen.extend(b.column("offset").to_pylist())
                if len(seen) // 500 % 2:
                    kept.append(b)
                else:
                    pool.submit(drop, b)
            del b
    c.close()
    assert seen == list(range(n))
    assert kept and lengths
    for b in kept:
        assert b.column("value").to_pylist() == [
            (b"%06d" % o) * (size // 6) for o in b.column("offset").to_pylist()
        ]
    assert sum(lengths) + sum(b.num_rows for b in kept) * (size // 6) * 6 == n * (size // 6) * 6
