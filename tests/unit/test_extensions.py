"""Two conveniences confluent-kafka lacks (documented as extensions in
docs/guides/migrating-from-confluent-kafka.md):

- ``for msg in consumer``: messages as they arrive, KafkaException for consumer errors, the end
  of the loop when the consumer is closed; served by the same poll as ``poll()``.
- ``max.block.ms``: produce() waits (serving delivery reports, as a poll() loop would) instead of
  raising BufferError at once when librdkafka's queue is full.
"""

import threading
import time

import pytest

from confluent_binding import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from tests.support import mock, unreachable


def mock_pair(**producer_extra):
    """A producer on a fresh mock cluster and that cluster's bootstrap servers."""
    p = Producer(mock(**producer_extra))
    md = p.list_topics(timeout=10)
    servers = ",".join("%s:%d" % (b.host, b.port) for b in md.brokers.values())
    return p, servers


def produced(p, topic, values):
    for v in values:
        p.produce(topic, v, partition=0)
    assert p.flush(10) == 0


# -- iteration ---------------------------------------------------------------------------------

def test_iteration_yields_messages_in_order():
    p, servers = mock_pair()
    produced(p, "it", [b"m%d" % i for i in range(20)])
    assigned = []
    c = Consumer({"bootstrap.servers": servers, "group.id": "g", "log_level": 0,
                  "auto.offset.reset": "earliest"})
    try:
        c.subscribe(["it"], on_assign=lambda consumer, parts: assigned.append(len(parts)))
        assert iter(c) is c
        got = []
        for msg in c:
            got.append((msg.value(), msg.offset()))
            if len(got) == 20:
                break
        assert got == [(b"m%d" % i, i) for i in range(20)]
        # the rebalance callback was served by the iteration
        assert assigned == [len(p.list_topics("it", 10).topics["it"].partitions)]
    finally:
        c.close()
        p.close()


def test_iteration_raises_consumer_errors():
    p, servers = mock_pair()
    produced(p, "err", [b"x"])
    c = Consumer({"bootstrap.servers": servers, "group.id": "g", "log_level": 0,
                  "auto.offset.reset": "error"})
    try:
        c.assign([TopicPartition("err", 0, 100)])       # beyond the end, no reset allowed
        with pytest.raises(KafkaException) as info:
            next(iter(c))
        assert info.value.args[0].code() == KafkaError._AUTO_OFFSET_RESET
    finally:
        c.close()
        p.close()


def test_iteration_skips_partition_eof_events():
    p, servers = mock_pair()
    produced(p, "eof", [b"a", b"b"])
    c = Consumer({"bootstrap.servers": servers, "group.id": "g", "log_level": 0,
                  "enable.partition.eof": True})
    try:
        c.assign([TopicPartition("eof", 0, 0)])
        it = iter(c)
        assert [next(it).value(), next(it).value()] == [b"a", b"b"]
        produced(p, "eof", [b"c"])       # after the EOF event, the next message still comes
        assert next(it).value() == b"c"
    finally:
        c.close()
        p.close()


def test_iteration_of_a_closed_consumer_ends_at_once():
    c = Consumer(unreachable(**{"group.id": "g"}))
    c.close()
    assert list(c) == []
    with Consumer(unreachable(**{"group.id": "g"})) as c2:
        pass
    assert list(c2) == []


def test_iteration_ends_when_another_thread_closes_the_consumer():
    c = Consumer(unreachable(**{"group.id": "g"}))
    c.subscribe(["t"])
    seen, done = [], threading.Event()

    def loop():
        for msg in c:
            seen.append(msg)
        done.set()

    t = threading.Thread(target=loop)
    t.start()
    deadline = time.monotonic() + 10
    while c._calls_inside() == 0:           # the loop is inside its GIL-free wait
        assert time.monotonic() < deadline
        time.sleep(0.005)
    c.close()
    assert done.wait(10)
    t.join()
    assert seen == []


def test_iteration_callback_exception_propagates():
    p, servers = mock_pair()
    produced(p, "cb", [b"x"])

    def on_assign(consumer, parts):
        raise ValueError("from on_assign")

    c = Consumer({"bootstrap.servers": servers, "group.id": "g", "log_level": 0,
                  "auto.offset.reset": "earliest"})
    try:
        c.subscribe(["cb"], on_assign=on_assign)
        with pytest.raises(ValueError, match="from on_assign"):
            for _ in c:
                pass
        # the iteration goes on after the exception: the message is still delivered
        assert next(iter(c)).value() == b"x"
    finally:
        c.close()
        p.close()


# -- produce that waits for queue space ----------------------------------------------------

def test_default_is_confluent_behaviour_buffer_error_at_once():
    p = Producer(unreachable(**{"queue.buffering.max.messages": 2}))
    try:
        p.produce("t", b"1")
        p.produce("t", b"2")
        t = time.monotonic()
        with pytest.raises(BufferError):
            p.produce("t", b"3")
        assert time.monotonic() - t < 0.1
    finally:
        p.purge()
        p.close()


def test_blocking_produce_times_out_with_buffer_error():
    p = Producer(unreachable(**{"queue.buffering.max.messages": 2, "max.block.ms": 600}))
    try:
        p.produce("t", b"1")
        p.produce("t", b"2")
        t = time.monotonic()
        with pytest.raises(BufferError, match="Queue full"):
            p.produce("t", b"3")
        assert 0.55 <= time.monotonic() - t < 3.0
        assert len(p) == 2
    finally:
        p.purge()
        p.close()


def test_blocking_produce_serves_delivery_reports_while_waiting():
    p = Producer(mock(**{"queue.buffering.max.messages": 10, "max.block.ms": 30000,
                         "linger.ms": 0}))
    reports = []
    served_during_produce = 0
    try:
        for i in range(500):
            p.produce("blk", b"%d" % i, on_delivery=lambda err, msg: reports.append(
                (err, msg.value())))
            served_during_produce = len(reports)
        assert served_during_produce >= 490       # only the last queueful is still outstanding
        assert p.flush(30) == 0
        assert [e for e, _ in reports if e is not None] == []
        assert sorted(int(v) for _, v in reports) == list(range(500))   # each report once
    finally:
        p.close()


def test_blocking_produce_raises_a_callback_exception_like_poll():
    p = Producer(mock(**{"queue.buffering.max.messages": 1, "max.block.ms": 30000}))

    def boom(err, msg):
        raise RuntimeError("from on_delivery")

    try:
        p.produce("blk", b"first", on_delivery=boom)
        with pytest.raises(RuntimeError, match="from on_delivery"):
            p.produce("blk", b"second")
        assert p.flush(10) == 0
    finally:
        p.close()


@pytest.mark.parametrize("value", ["x", -1, "-5", [1]])
def test_max_block_ms_validation(value):
    with pytest.raises((TypeError, ValueError), match="max.block.ms"):
        Producer(unreachable(**{"max.block.ms": value}))
