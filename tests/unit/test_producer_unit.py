"""Producer without a broker: an unreachable bootstrap (reports time out or are purged) or
librdkafka's built-in mock cluster (``test.mock.num.brokers``) where a broker's answer is
needed."""

import functools
import sys
import threading

import pytest

from confluent_binding import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from tests import support
from tests.support import mock, wait_until

unreachable = functools.partial(support.unreachable, **{"message.timeout.ms": 200})

N = 10


class Reports:
    """An on_delivery callable recording (err, msg) and the serving thread."""

    def __init__(self):
        self.items = []
        self.threads = set()

    def __call__(self, err, msg):
        self.items.append((err, msg))
        self.threads.add(threading.get_ident())

    def values(self):
        return sorted(m.value() for _, m in self.items)

    def codes(self):
        return {None if e is None else e.code() for e, _ in self.items}


@pytest.fixture
def mock_producer():
    p = Producer(mock())
    # creates the topic in the mock cluster (4 partitions) and learns its metadata
    p.produce("mt", b"warm-up", partition=0)
    assert p.flush(10) == 0
    yield p
    p.close()


# -- delivery reports from an unreachable broker --


def test_timed_out_reports_served_by_flush_exactly_once():
    p = Producer(unreachable())
    rep = Reports()
    values = [b"v%d" % i for i in range(N)]
    for v in values:
        p.produce("t", v, key=b"k", headers=[("h", b"x")], on_delivery=rep)
    assert rep.items == []          # nothing is served outside poll()/flush()
    assert p.flush(10) == 0
    assert rep.values() == values   # each exactly once
    assert rep.codes() == {KafkaError._MSG_TIMED_OUT}
    assert rep.threads == {threading.get_ident()}
    for err, msg in rep.items:
        assert msg.error() is err
        assert err.name() == "_MSG_TIMED_OUT"
        assert (msg.topic(), msg.key(), msg.headers()) == ("t", b"k", None)   # as confluent
    assert len(p) == 0
    assert p.poll(0) == 0 and len(rep.items) == N
    p.close()


def test_per_message_callback_overrides_configured_one():
    configured, own, alias = Reports(), Reports(), Reports()
    p = Producer(unreachable(on_delivery=configured))
    for i in range(9):
        if i % 3 == 0:
            p.produce("t", b"%d" % i)
        elif i % 3 == 1:
            p.produce("t", b"%d" % i, on_delivery=own)
        else:
            p.produce("t", b"%d" % i, callback=alias)
    assert p.flush(10) == 0
    assert configured.values() == [b"0", b"3", b"6"]
    assert own.values() == [b"1", b"4", b"7"]
    assert alias.values() == [b"2", b"5", b"8"]
    assert configured.codes() == own.codes() == alias.codes() == {KafkaError._MSG_TIMED_OUT}
    p.close()


def test_on_delivery_wins_over_callback_alias():
    a, b = Reports(), Reports()
    p = Producer(unreachable())
    p.produce("t", b"x", on_delivery=a, callback=b)
    p.purge()
    assert p.flush(5) == 0
    assert len(a.items) == 1 and b.items == []
    p.close()


def test_no_callback_no_report_but_flush_completes():
    p = Producer(unreachable())
    for i in range(N):
        p.produce("t", b"x")
    assert p.flush(10) == 0
    assert len(p) == 0
    p.close()


def test_flush_timeout_returns_outstanding():
    rep = Reports()
    p = Producer(unreachable(**{"message.timeout.ms": 60000}))
    for i in range(N):
        p.produce("t", b"x", on_delivery=rep)
    assert p.flush(0.3) >= N
    assert rep.items == []
    p.purge()
    assert p.flush(5) == 0
    assert len(rep.items) == N and rep.codes() == {KafkaError._PURGE_QUEUE}
    p.close()


def test_poll_serves_reports_and_counts_them():
    # (a mock cluster, which reports no connection errors, and a linger long enough that
    # nothing is sent before the purge: the reports are the only events)
    rep = Reports()
    p = Producer(mock(**{"linger.ms": 60000}))
    for i in range(N):
        p.produce("t", b"%d" % i, on_delivery=rep)
    p.purge()
    served = []
    assert wait_until(lambda: len(rep.items) >= N, lambda: served.append(p.poll(1))), (
        "%d of %d reports served within 10 s" % (len(rep.items), N))
    # poll() returns how many events it served, counting each report
    assert sum(served) == N
    assert len(rep.items) == N and rep.codes() == {KafkaError._PURGE_QUEUE}
    p.close()


# -- purge and len --


def test_purge_then_flush():
    rep = Reports()
    p = Producer(unreachable(**{"message.timeout.ms": 60000}))
    for i in range(N):
        p.produce("t", b"%d" % i, on_delivery=rep)
    assert len(p) >= N
    p.purge()
    assert rep.items == []            # purge itself serves nothing
    assert p.flush(5) == 0
    assert rep.values() == sorted(b"%d" % i for i in range(N))
    assert rep.codes() == {KafkaError._PURGE_QUEUE}
    assert p.flush(1) == 0 and len(rep.items) == N
    p.close()


def test_purge_in_flight_only_keeps_queued_messages():
    rep = Reports()
    p = Producer(unreachable(**{"message.timeout.ms": 60000}))
    for i in range(3):
        p.produce("t", b"x", on_delivery=rep)
    p.purge(in_queue=False)           # nothing is in flight: nothing purged
    p.poll(0.1)
    assert rep.items == [] and len(p) >= 3
    p.purge(in_queue=True, in_flight=False, blocking=False)
    assert p.flush(5) == 0
    assert len(rep.items) == 3 and rep.codes() == {KafkaError._PURGE_QUEUE}
    p.close()


def test_len_counts_outstanding_messages():
    p = Producer(mock(**{"linger.ms": 60000}))
    assert len(p) == 0
    rep = Reports()
    for i in range(7):
        p.produce("lenq", b"x", on_delivery=rep)
    assert len(p) == 7
    assert p.flush(10) == 0            # flush sends at once, whatever linger.ms says
    assert len(p) == 0
    assert len(rep.items) == 7 and rep.codes() == {None}
    p.close()


# -- successful delivery on the mock cluster --


def test_successful_reports(mock_producer):
    p = mock_producer
    rep = Reports()
    for i in range(N):
        p.produce("mt", b"v%d" % i, key=b"k%d" % i, partition=1, on_delivery=rep,
                  headers={"n": str(i)})
    assert p.flush(10) == 0
    assert len(rep.items) == N and rep.codes() == {None}
    offsets = [m.offset() for _, m in rep.items]
    assert offsets == list(range(offsets[0], offsets[0] + N))
    for i, (err, m) in enumerate(rep.items):
        assert err is None and m.error() is None
        assert (m.topic(), m.partition(), m.value(), m.key()) == ("mt", 1, b"v%d" % i, b"k%d" % i)
        assert m.headers() is None          # delivery reports carry no headers, as confluent's
        assert isinstance(m.latency(), float) and m.latency() >= 0
        assert m.timestamp()[0] in (1, 2)
    assert read_back(p, rep.items[-1][1]).headers() == [("n", str(N - 1).encode())]


VALUES = [
    (b"bytes", b"bytes"),
    ("str-é", "str-é".encode()),
    (bytearray(b"bytearray"), b"bytearray"),
    (memoryview(b"xmemoryview")[1:], b"memoryview"),
    (b"", b""),
    (None, None),
]


@pytest.mark.parametrize("given,expected", VALUES, ids=[repr(v[1]) for v in VALUES])
def test_value_and_key_types(mock_producer, given, expected):
    rep = Reports()
    mock_producer.produce("mt", given, key=given, partition=0, on_delivery=rep)
    mock_producer.produce("mt", value=given, partition=0, on_delivery=rep)
    assert mock_producer.flush(10) == 0
    assert [(m.value(), m.key()) for _, m in rep.items] == [(expected, expected),
                                                            (expected, None)]


@pytest.mark.parametrize("bad", [1, 1.5, object(), ["x"], {"a": b"b"}])
def test_bad_value_or_key_type(mock_producer, bad):
    rep = Reports()
    before = sys.getrefcount(rep)
    with pytest.raises(TypeError):
        mock_producer.produce("mt", bad, on_delivery=rep)
    with pytest.raises(TypeError):
        mock_producer.produce("mt", b"v", key=bad, on_delivery=rep)
    assert sys.getrefcount(rep) == before
    assert mock_producer.flush(5) == 0 and rep.items == []


@pytest.mark.parametrize("given,expected", [
    ([("a", b"1"), ("b", "s"), ("c", None), ("a", b"2")],
     [("a", b"1"), ("b", b"s"), ("c", None), ("a", b"2")]),
    ((("a", b"1"),), [("a", b"1")]),
    ({"a": b"1", "b": None, "c": "s"}, [("a", b"1"), ("b", None), ("c", b"s")]),
    ([("bin", bytearray(b"\x00\x01"))], [("bin", b"\x00\x01")]),
    ([], None),
])
def test_headers(mock_producer, given, expected):
    rep = Reports()
    mock_producer.produce("mt", b"v", headers=given, partition=0, on_delivery=rep)
    assert mock_producer.flush(10) == 0
    # the delivery report carries no headers (as confluent-kafka's); the stored record does
    assert [m.headers() for _, m in rep.items] == [None]
    assert read_back(mock_producer, rep.items[0][1]).headers() == expected


def test_many_headers(mock_producer):
    rep = Reports()
    hdrs = [("h%d" % i, b"%d" % i) for i in range(100)]
    mock_producer.produce("mt", b"v", headers=hdrs, partition=0, on_delivery=rep)
    assert mock_producer.flush(10) == 0
    assert read_back(mock_producer, rep.items[0][1]).headers() == hdrs


def read_back(producer, report):
    """The record a delivery report describes, read from the mock cluster."""
    md = producer.list_topics(timeout=10)
    servers = ",".join("%s:%d" % (b.host, b.port) for b in md.brokers.values())
    c = Consumer({"bootstrap.servers": servers, "group.id": "read-back", "log_level": 0})
    try:
        c.assign([TopicPartition(report.topic(), report.partition(), report.offset())])
        msg = c.poll(10)
        assert msg is not None and msg.error() is None and msg.offset() == report.offset()
        return msg
    finally:
        c.close()


@pytest.mark.parametrize("bad", [
    "x", 5, b"ab", [("a",)], [("a", b"1", b"2")], [("a", 1)], {"a": 1}, {1: b"x"}, [1],
    [(1, b"x")], [("a", object())],
])
def test_bad_headers(mock_producer, bad):
    rep = Reports()
    before = sys.getrefcount(rep)
    with pytest.raises(TypeError):
        mock_producer.produce("mt", b"v", headers=bad, on_delivery=rep)
    assert sys.getrefcount(rep) == before
    assert mock_producer.flush(5) == 0 and rep.items == []


@pytest.mark.parametrize("bad", [None, 5, b"topic"])
def test_bad_topic(mock_producer, bad):
    with pytest.raises(TypeError):
        mock_producer.produce(bad, b"v")


def test_non_callable_on_delivery_argument(mock_producer):
    with pytest.raises(TypeError):
        mock_producer.produce("mt", b"v", on_delivery=5)
    with pytest.raises(TypeError):
        mock_producer.produce("mt", b"v", callback="x")


def test_non_callable_on_delivery_of_produce_batch(mock_producer):
    with pytest.raises(TypeError, match="on_delivery must be callable, not int"):
        mock_producer.produce_batch("mt", [b"v"], on_delivery=5)
    assert len(mock_producer) == 0


def test_future_resolved_by_its_delivery_report():
    """The asyncio producer's path: a delivery report resolves its DeliveryFuture inside the
    serving call, also with delivery.report.only.error; a future already done (cancelled) is
    left alone and its report still served once."""
    import asyncio

    from confluent_binding.aio import DeliveryFuture
    loop = asyncio.new_event_loop()
    try:
        p = Producer(mock(**{"delivery.report.only.error": True}))
        ok = p._produce_delivery("fr", b"v", b"k", 0, 1700000000000, [("h", b"1")], loop)
        cancelled = p._produce_delivery("fr", b"w", None, 0, 0, None, loop)
        assert type(ok) is DeliveryFuture and ok.get_loop() is loop and not ok.done()
        assert asyncio.isfuture(ok)
        assert cancelled.cancel()
        assert p.flush(10) == 0
        m = ok.result()
        assert (m.error(), m.topic(), m.partition(), m.offset(), m.key(), m.value()) == (
            None, "fr", 0, 0, b"k", b"v")
        assert cancelled.cancelled()
        p2 = Producer(mock(**{"linger.ms": 60000}))
        failed = p2._produce_delivery("fr", b"x", None, -1, 0, None, loop)
        p2.purge()
        assert p2.flush(10) == 0
        assert isinstance(failed.exception(), KafkaException)
        assert failed.exception().args[0].code() == KafkaError._PURGE_QUEUE
        assert len(p) == 0
        p.close()
        p2.close()
    finally:
        loop.close()


def test_timestamp_accepted(mock_producer):
    rep = Reports()
    mock_producer.produce("mt", b"v", timestamp=1700000000000, partition=0, on_delivery=rep)
    assert mock_producer.flush(10) == 0
    assert rep.codes() == {None}


def test_delivery_report_only_error():
    rep = Reports()
    p = Producer(mock(on_delivery=rep, **{"delivery.report.only.error": True}))
    own = Reports()
    for i in range(5):
        p.produce("dr", b"ok%d" % i)
    p.produce("dr", b"own", on_delivery=own)
    assert p.flush(10) == 0
    assert rep.items == [] and own.items == []     # successes are not reported
    p2 = Producer(mock(on_delivery=rep, **{"delivery.report.only.error": "true",
                                           "linger.ms": 60000}))
    for i in range(3):
        p2.produce("dr", b"bad%d" % i)
    p2.purge()
    assert p2.flush(10) == 0
    assert rep.values() == [b"bad0", b"bad1", b"bad2"]
    assert rep.codes() == {KafkaError._PURGE_QUEUE}
    p.close()
    p2.close()


# -- errors at produce time --


def test_unknown_partition_of_known_topic(mock_producer):
    rep = Reports()
    before = sys.getrefcount(rep)
    with pytest.raises(KafkaException) as ei:
        mock_producer.produce("mt", b"v", partition=57, on_delivery=rep)
    assert ei.value.args[0].code() == KafkaError._UNKNOWN_PARTITION
    assert sys.getrefcount(rep) == before
    md = mock_producer.list_topics("mt", timeout=10)
    assert 57 not in md.topics["mt"].partitions


def test_unknown_partition_of_new_topic_is_reported():
    # metadata not known yet: the message is queued, and its report says what went wrong. The
    # mock broker answers after 0.5 s, so the topic's metadata cannot arrive within produce() (it
    # did on a loaded machine, which turns the report into a refusal at once)
    p = Producer(mock(**{"test.mock.broker.rtt": 500}))
    rep = Reports()
    p.produce("brand-new", b"v", partition=57, on_delivery=rep)
    assert p.flush(30) == 0
    assert rep.codes() == {KafkaError._UNKNOWN_PARTITION}
    assert rep.items[0][1].partition() == 57
    p.close()


def test_message_too_large():
    p = Producer(mock(**{"message.max.bytes": 1000}))
    rep = Reports()
    before = sys.getrefcount(rep)
    with pytest.raises(KafkaException) as ei:
        p.produce("big", b"x" * 5000, on_delivery=rep)
    assert ei.value.args[0].code() == KafkaError.MSG_SIZE_TOO_LARGE
    assert sys.getrefcount(rep) == before
    p.produce("big", b"x" * 100, on_delivery=rep)     # still usable
    assert p.flush(10) == 0 and rep.codes() == {None}
    p.close()


def test_queue_full_raises_buffer_error():
    p = Producer(unreachable(**{"queue.buffering.max.messages": 10,
                                "message.timeout.ms": 60000}))
    rep = Reports()
    for i in range(10):
        p.produce("t", b"%d" % i, on_delivery=rep)
    before = sys.getrefcount(rep)
    with pytest.raises(BufferError):
        p.produce("t", b"overflow", on_delivery=rep)
    assert sys.getrefcount(rep) == before
    p.purge()
    assert p.flush(5) == 0
    assert len(rep.items) == 10 and b"overflow" not in rep.values()
    p.produce("t", b"again", on_delivery=rep)      # room again
    p.purge()
    assert p.flush(5) == 0 and len(rep.items) == 11
    p.close()


# -- produce_batch --


def test_produce_batch(mock_producer):
    p = mock_producer
    batch_cb, own, alias = Reports(), Reports(), Reports()
    items = [
        {"value": b"a", "key": b"ka", "partition": 2, "headers": [("h", b"1")],
         "timestamp": 1700000000000, "on_delivery": own},
        {"value": b"plain"},
        {"value": "text"},
        {"value": b"c", "callback": alias},
        {"value": b"bad", "partition": 99},
        {"key": b"only-key", "partition": 3},
    ]
    assert p.produce_batch("mt", items, on_delivery=batch_cb) == 5
    assert items[4]["_error"].code() == KafkaError._UNKNOWN_PARTITION
    assert all("_error" not in m for m in items if m is not items[4])
    assert p.flush(10) == 0
    assert [(m.value(), m.key(), m.partition(), m.headers()) for _, m in own.items] == \
        [(b"a", b"ka", 2, None)]
    stored = read_back(p, own.items[0][1])      # headers and timestamp were produced
    assert (stored.headers(), stored.timestamp()) == ([("h", b"1")], (1, 1700000000000))
    assert alias.values() == [b"c"]
    assert [(m.value(), m.partition()) for _, m in batch_cb.items
            if m.key() == b"only-key"] == [(None, 3)]
    assert sorted(m.value() for _, m in batch_cb.items if m.value() is not None) == \
        [b"plain", b"text"]
    assert len(batch_cb.items) == 3
    assert own.codes() == alias.codes() == batch_cb.codes() == {None}


def test_produce_batch_partition_argument(mock_producer):
    rep = Reports()
    assert mock_producer.produce_batch("mt", [{"value": b"x"}, {"value": b"y"}], partition=3,
                                       callback=rep) == 2
    assert mock_producer.flush(10) == 0
    assert sorted(m.partition() for _, m in rep.items) == [3, 3]


def test_produce_batch_empty_and_bad(mock_producer):
    assert mock_producer.produce_batch("mt", []) == 0
    with pytest.raises(TypeError):
        mock_producer.produce_batch("mt", b"not a list")
    with pytest.raises(TypeError):
        mock_producer.produce_batch("mt", [5])
    with pytest.raises(TypeError):
        mock_producer.produce_batch("mt", [{"value": 5}])


def test_produce_batch_queue_full():
    p = Producer(unreachable(**{"queue.buffering.max.messages": 5,
                                "message.timeout.ms": 60000}))
    rep = Reports()
    items = [{"value": b"%d" % i, "on_delivery": rep} for i in range(8)]
    assert p.produce_batch("t", items) == 5
    # as confluent-kafka: every message that did not fit is marked
    assert [m["_error"].code() for m in items[5:]] == [KafkaError._QUEUE_FULL] * 3
    assert items[5]["_error"].str() == "Message failed: Local: Queue full"
    assert all("_error" not in m for m in items[:5])
    more = [{"value": b"plain"}]
    assert p.produce_batch("t", more) == 0
    assert more[0]["_error"].code() == KafkaError._QUEUE_FULL
    p.purge()
    assert p.flush(5) == 0
    assert rep.values() == [b"%d" % i for i in range(5)]
    p.close()


# -- closed producer --


CLOSED_CALLS = [
    ("produce", ("t", b"v")),
    ("produce_batch", ("t", [b"v"])),
    ("poll", (0,)),
    ("flush", (0,)),
    ("purge", ()),
    ("list_topics", ()),
    ("set_sasl_credentials", ("u", "p")),
    ("init_transactions", (1,)),
    ("begin_transaction", ()),
    ("commit_transaction", (1,)),
    ("abort_transaction", (1,)),
    ("send_offsets_to_transaction", ([TopicPartition("t", 0, 1)], None)),
    ("cluster_id", (1,)),
]


@pytest.mark.parametrize("name,args", CLOSED_CALLS, ids=[c[0] for c in CLOSED_CALLS])
def test_closed_producer_raises_runtime_error(name, args):
    p = Producer(unreachable())
    p.produce("t", b"cached topic handle")
    p.close(0)                      # no wait: the message is purged
    with pytest.raises(RuntimeError):
        getattr(p, name)(*args)
    assert len(p) == 0
    p.close()                      # closing again is harmless


def test_close_serves_every_report():
    rep = Reports()
    p = Producer(unreachable(**{"message.timeout.ms": 60000}))
    for i in range(N):
        p.produce("t", b"%d" % i, on_delivery=rep)
    p.close(0.2)                    # waits a little, then purges, serving every report
    assert len(rep.items) == N and rep.codes() == {KafkaError._PURGE_QUEUE}
    p.close()


def test_context_manager_closes():
    rep = Reports()
    with Producer(unreachable(**{"message.timeout.ms": 60000})) as p:
        assert isinstance(p, Producer)
        p.produce("t", b"x", on_delivery=rep)
        p.purge()
    assert len(rep.items) == 1
    with pytest.raises(RuntimeError):
        p.produce("t", b"x")


def test_context_manager_closes_on_exception():
    rep = Reports()
    with pytest.raises(ZeroDivisionError):
        with Producer(mock()) as p:
            p.produce("cm", b"x", on_delivery=rep)
            1 / 0
    assert rep.codes() == {None}      # close() delivered it
    with pytest.raises(RuntimeError):
        p.poll(0)


def test_list_topics_on_mock(mock_producer):
    md = mock_producer.list_topics(timeout=10)
    assert len(md.brokers) == 1
    assert "mt" in md.topics and len(md.topics["mt"].partitions) == 4
    assert md.topics["mt"].error is None
    with pytest.raises(TypeError):
        mock_producer.list_topics(5)
