"""Consumer without a real broker: argument checking, and the consumer API against
librdkafka's built-in mock cluster."""

import pickle
import threading
import time

import pytest

from confluent_binding import (
    OFFSET_BEGINNING,
    TIMESTAMP_CREATE_TIME,
    Consumer,
    ConsumerGroupMetadata,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    TopicPartition,
)

from tests.support import mock, unreachable

TOPIC = "ct"
COUNT = 20
T0 = 1700000000000


@pytest.fixture(scope="module")
def cluster():
    """A mock cluster (kept alive by its producer) with COUNT messages in TOPIC [0];
    yields its bootstrap servers."""
    p = Producer(mock())
    for i in range(COUNT):
        p.produce(TOPIC, b"v%d" % i, key=b"k%d" % i, partition=0, timestamp=T0 + i,
                  headers=[("i", b"%d" % i)])
    assert p.flush(10) == 0
    broker = p.list_topics(timeout=10).brokers[1]
    yield "%s:%d" % (broker.host, broker.port), p
    p.close()


@pytest.fixture
def bootstrap(cluster):
    return cluster[0]


_groups = iter(range(10 ** 6))


def consumer(bootstrap, **extra):
    conf = {"bootstrap.servers": bootstrap, "group.id": "g%d" % next(_groups),
            "auto.offset.reset": "earliest", "enable.auto.commit": False, "log_level": 0}
    conf.update(extra)
    return Consumer(conf)


def consume_n(c, n, deadline=10.0):
    out = []
    end = time.monotonic() + deadline
    while len(out) < n and time.monotonic() < end:
        for m in c.consume(n - len(out), 0.2):
            assert m.error() is None, m.error()
            out.append(m)
    return out


@pytest.fixture
def offline():
    """A consumer whose bootstrap nobody answers."""
    c = Consumer(unreachable(**{"group.id": "g"}))
    yield c
    c.close()


# -- argument checking --


BAD_CALLS = [
    ("subscribe", ("notalist",), TypeError),
    ("subscribe", ([1],), TypeError),
    ("subscribe", ([b"t"],), TypeError),
    ("subscribe", (None,), TypeError),
    ("subscribe", (["t"], 5), TypeError),
    ("subscribe", (["t"], None, "x"), TypeError),
    ("assign", ([1],), TypeError),
    ("assign", ("x",), TypeError),
    ("assign", (TopicPartition("t", 0),), TypeError),
    ("assign", (None,), TypeError),
    ("incremental_assign", ([1],), TypeError),
    ("incremental_unassign", ("x",), TypeError),
    ("consume", (-1,), ValueError),
    ("consume", (1000001,), ValueError),
    ("consume", ("x",), TypeError),
    ("poll", ("x",), TypeError),
    ("seek", ("x",), TypeError),
    ("seek", ([TopicPartition("t", 0, 0)],), TypeError),
    ("commit", (None, [1]), TypeError),
    ("commit", ("not a message",), TypeError),
    ("commit", (Message(topic="t", partition=0, offset=1), [TopicPartition("t", 0, 1)]),
     ValueError),
    ("store_offsets", (), ValueError),
    ("store_offsets", (None, "x"), TypeError),
    ("committed", ([1],), TypeError),
    ("position", ("x",), TypeError),
    ("pause", ([None],), TypeError),
    ("resume", (5,), TypeError),
    ("get_watermark_offsets", ("x",), TypeError),
    ("offsets_for_times", ([5],), TypeError),
    ("list_topics", (5,), TypeError),
]


@pytest.mark.parametrize("name,args,exc", BAD_CALLS,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(BAD_CALLS)])
def test_bad_arguments(offline, name, args, exc):
    with pytest.raises(exc):
        getattr(offline, name)(*args)
    # and the consumer is still usable
    assert offline.assignment() == []


def test_commit_of_an_error_event_is_refused(offline):
    event = Message(topic="t", partition=0, offset=5,
                    error=KafkaError(KafkaError._PARTITION_EOF))
    with pytest.raises(KafkaException) as ei:
        offline.commit(event)
    assert ei.value.args[0].code() == KafkaError._INVALID_ARG


def test_consume_zero_returns_at_once(offline):
    t = time.monotonic()
    assert offline.consume(0, 5) == []
    assert time.monotonic() - t < 0.5
    done = []
    th = threading.Thread(target=lambda: done.append(offline.consume(0)), daemon=True)
    th.start()
    th.join(5)
    assert done == [[]], "consume(0) with no timeout never returned"


def test_poll_times_out(offline):
    for timeout in (0, 0.3):
        t = time.monotonic()
        assert offline.poll(timeout) is None
        assert timeout <= time.monotonic() - t + 0.01 < timeout + 2
    t = time.monotonic()
    assert offline.consume(10, 0.3) == []
    assert 0.29 <= time.monotonic() - t < 2.3


def test_subscribe_and_unsubscribe_offline(offline):
    offline.subscribe(["a", "^b.*"])
    offline.unsubscribe()
    assert offline.assignment() == []
    assert offline.memberid() in (None, "")


# -- against the mock cluster --


def test_assign_and_consume(bootstrap):
    c = consumer(bootstrap)
    c.assign([TopicPartition(TOPIC, 0, OFFSET_BEGINNING)])
    assert [(t.topic, t.partition) for t in c.assignment()] == [(TOPIC, 0)]
    msgs = consume_n(c, COUNT)
    assert [m.offset() for m in msgs] == list(range(COUNT))
    for i, m in enumerate(msgs):
        assert (m.topic(), m.partition(), m.key(), m.value()) == (TOPIC, 0, b"k%d" % i,
                                                                   b"v%d" % i)
        assert m.headers() == [("i", b"%d" % i)]
        assert m.timestamp() == (TIMESTAMP_CREATE_TIME, T0 + i)
        assert m.latency() is None
        assert len(m) == len(m.value())
    assert c.poll(0.2) is None
    c.close()


def test_poll_returns_messages_in_order(bootstrap):
    c = consumer(bootstrap)
    c.assign([TopicPartition(TOPIC, 0, 10)])
    got = []
    end = time.monotonic() + 10
    while len(got) < COUNT - 10 and time.monotonic() < end:
        m = c.poll(0.5)
        if m is not None:
            got.append(m.offset())
    assert got == list(range(10, COUNT))
    c.close()


def test_partition_eof_event(bootstrap):
    c = consumer(bootstrap, **{"enable.partition.eof": True})
    c.assign([TopicPartition(TOPIC, 0, COUNT - 1)])
    events = []
    end = time.monotonic() + 10
    while len(events) < 2 and time.monotonic() < end:
        m = c.poll(0.5)
        if m is not None:
            events.append(m)
    assert events[0].error() is None and events[0].offset() == COUNT - 1
    eof = events[1]
    assert eof.error().code() == KafkaError._PARTITION_EOF
    assert (eof.topic(), eof.partition()) == (TOPIC, 0)
    c.close()


def test_seek_and_position(bootstrap):
    c = consumer(bootstrap)
    c.assign([TopicPartition(TOPIC, 0, 5)])
    assert consume_n(c, 1)[0].offset() == 5
    pos = c.position([TopicPartition(TOPIC, 0)])
    assert [(p.topic, p.partition, p.offset) for p in pos] == [(TOPIC, 0, 6)]
    c.seek(TopicPartition(TOPIC, 0, 2))
    assert consume_n(c, 1)[0].offset() == 2
    c.close()


def test_pause_and_resume(bootstrap):
    c = consumer(bootstrap)
    tps = [TopicPartition(TOPIC, 0, 0)]
    c.assign(tps)
    # the fetch that brought the first three brought all COUNT (a few bytes each): the rest
    # are ready in the consumer when it pauses, and a consume() would return them at once
    assert [m.offset() for m in consume_n(c, 3)] == [0, 1, 2]
    c.pause(tps)
    assert c.consume(5, 1.0) == []
    assert c.poll(0.2) is None
    assert [(t.partition, t.offset) for t in c.position(tps)] == [(0, 3)]
    c.resume(tps)
    # on from where it paused, none lost or repeated
    assert [m.offset() for m in consume_n(c, COUNT - 3)] == list(range(3, COUNT))
    c.close()


def test_watermarks(bootstrap):
    c = consumer(bootstrap)
    assert c.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=10) == (0, COUNT)
    c.assign([TopicPartition(TOPIC, 0, OFFSET_BEGINNING)])
    consume_n(c, 1)
    # cached: the high watermark came with the fetch response
    assert c.get_watermark_offsets(TopicPartition(TOPIC, 0), cached=True)[1] == COUNT
    with pytest.raises(KafkaException):
        c.get_watermark_offsets(TopicPartition(TOPIC, 99), timeout=2)
    c.close()


def test_offsets_for_times_shape(bootstrap):
    c = consumer(bootstrap)
    res = c.offsets_for_times([TopicPartition(TOPIC, 0, T0 + 5)], timeout=10)
    assert len(res) == 1 and isinstance(res[0], TopicPartition)
    assert (res[0].topic, res[0].partition) == (TOPIC, 0)
    assert isinstance(res[0].offset, int)
    c.close()


def test_commit_sync_and_committed(bootstrap):
    c = consumer(bootstrap)
    res = c.commit(offsets=[TopicPartition(TOPIC, 0, 7)], asynchronous=False)
    assert [(t.topic, t.partition, t.offset, t.error) for t in res] == [(TOPIC, 0, 7, None)]
    got = c.committed([TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)], timeout=10)
    assert [(t.partition, t.offset) for t in got] == [(0, 7), (1, -1001)]
    c.close()


def test_commit_message_and_store_offsets(bootstrap):
    c = consumer(bootstrap, **{"enable.auto.offset.store": False})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    msgs = consume_n(c, 4)
    c.commit(msgs[1], asynchronous=False)
    assert c.committed([TopicPartition(TOPIC, 0)], timeout=10)[0].offset == 2
    c.store_offsets(msgs[3])
    c.commit(asynchronous=False)
    assert c.committed([TopicPartition(TOPIC, 0)], timeout=10)[0].offset == 4
    c.store_offsets(offsets=[TopicPartition(TOPIC, 0, 11, "meta")])
    c.commit(asynchronous=False)
    tp = c.committed([TopicPartition(TOPIC, 0)], timeout=10)[0]
    assert (tp.offset, tp.metadata) == (11, "meta")
    c.close()


def test_async_commit_reports_through_on_commit(bootstrap):
    results = []
    c = consumer(bootstrap, on_commit=lambda err, parts: results.append((err, parts)))
    assert c.commit(offsets=[TopicPartition(TOPIC, 0, 3)]) is None
    end = time.monotonic() + 10
    while not results and time.monotonic() < end:
        c.poll(0.1)
    assert len(results) == 1
    err, parts = results[0]
    assert err is None
    assert [(t.topic, t.partition, t.offset) for t in parts] == [(TOPIC, 0, 3)]
    c.close()


def test_incremental_assign_unassign(bootstrap):
    c = consumer(bootstrap)
    c.incremental_assign([TopicPartition(TOPIC, 0, 0), TopicPartition(TOPIC, 1, 0)])
    assert sorted(t.partition for t in c.assignment()) == [0, 1]
    c.incremental_unassign([TopicPartition(TOPIC, 1)])
    assert [t.partition for t in c.assignment()] == [0]
    with pytest.raises(KafkaException):
        c.incremental_assign([TopicPartition(TOPIC, 0, 0)])   # already assigned
    c.unassign()
    assert c.assignment() == []
    c.close()


def test_group_metadata(bootstrap):
    c = consumer(bootstrap)
    md = c.consumer_group_metadata()
    assert isinstance(md, ConsumerGroupMetadata)
    md2 = pickle.loads(pickle.dumps(md))
    assert isinstance(md2, ConsumerGroupMetadata) and md2._data == md._data
    c.close()


def test_list_topics(bootstrap):
    c = consumer(bootstrap)
    md = c.list_topics(TOPIC, timeout=10)
    assert sorted(md.topics[TOPIC].partitions) == [0, 1, 2, 3]
    c.close()


def test_subscribe_rebalance_callbacks(bootstrap):
    events = []
    c = consumer(bootstrap)
    thread = threading.get_ident()

    def on_assign(consumer_, parts):
        assert consumer_ is c and threading.get_ident() == thread
        events.append(("assign", sorted(p.partition for p in parts)))

    def on_revoke(consumer_, parts):
        events.append(("revoke", sorted(p.partition for p in parts)))

    c.subscribe([TOPIC], on_assign=on_assign, on_revoke=on_revoke)
    msgs = consume_n(c, COUNT, deadline=20)
    assert events == [("assign", [0, 1, 2, 3])]
    assert sorted(m.offset() for m in msgs) == list(range(COUNT))
    assert sorted(t.partition for t in c.assignment()) == [0, 1, 2, 3]
    member = c.memberid()
    assert isinstance(member, str) and member
    c.close()                  # leaving the group serves on_revoke
    assert events[-1] == ("revoke", [0, 1, 2, 3])


def test_close_from_the_revoke_callback_close_serves(bootstrap):
    """close() serves the final on_revoke; that callback closing the consumer again is
    refused with RuntimeError, which comes out of the outer close() once the consumer is
    closed and freed (confluent-kafka crashes here)."""
    c = consumer(bootstrap)
    revoked = []

    def on_revoke(consumer_, parts):
        revoked.append(sorted(p.partition for p in parts))
        consumer_.close()

    c.subscribe([TOPIC], on_revoke=on_revoke)
    consume_n(c, COUNT, deadline=20)
    with pytest.raises(RuntimeError, match=r"close\(\) called from a callback"):
        c.close()
    assert revoked == [[0, 1, 2, 3]]
    with pytest.raises(RuntimeError, match="Consumer closed"):
        c.poll(0)
    c.close()                  # closing again is harmless


def test_close_from_a_callback_served_without_waiting(bootstrap):
    """poll() serves callbacks that are already queued before it would wait (with the GIL
    held): one that closes the consumer is refused there too, instead of freeing the handle
    under the poll serving it."""
    commits = []

    def on_commit(err, parts):
        commits.append((err, [(p.partition, p.offset) for p in parts]))
        c.close()

    c = consumer(bootstrap, on_commit=on_commit)
    c.subscribe([TOPIC])
    consume_n(c, COUNT, deadline=20)
    c.commit(offsets=[TopicPartition(TOPIC, 0, COUNT)], asynchronous=True)
    # committed() asks the same coordinator afterwards: once it answers, the commit's result
    # waits in the consumer's queue, so the next poll() serves it before it would wait
    assert c.committed([TopicPartition(TOPIC, 0)], timeout=10)[0].offset == COUNT
    with pytest.raises(RuntimeError, match=r"close\(\) called from a callback"):
        c.poll(0)
    assert commits == [(None, [(0, COUNT)])]
    c.close()
