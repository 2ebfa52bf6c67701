"""Every Message names its own topic. The core caches the topic str and recognises the last
topic handle it saw by address alone, holding a reference on that handle so that no other
topic can take its address; these tests interleave topics (names that are prefixes of each
other), come back to a topic after others, and free clients while the reference is held."""

import gc
import time

import pytest

from confluent_binding import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from tests.support import mock

TOPICS = ("tn", "tn2", "tn22", "m")
PER_TOPIC = 30


@pytest.fixture(scope="module")
def cluster():
    """A mock cluster (kept alive by its producer) with PER_TOPIC messages in each of TOPICS
    [0], each value naming its topic; yields its bootstrap servers."""
    p = Producer(mock())
    for i in range(PER_TOPIC):
        for t in TOPICS:
            p.produce(t, b"%s/%d" % (t.encode(), i), partition=0)
    assert p.flush(10) == 0
    broker = p.list_topics(timeout=10).brokers[1]
    yield "%s:%d" % (broker.host, broker.port)
    p.close()


_groups = iter(range(10 ** 6))


def _consumer(bootstrap):
    return Consumer({"bootstrap.servers": bootstrap, "group.id": "tn%d" % next(_groups),
                     "auto.offset.reset": "earliest", "enable.auto.commit": False,
                     "log_level": 0})


def _take(c, n, use_poll):
    out, end = [], time.monotonic() + 20
    while len(out) < n and time.monotonic() < end:
        got = [c.poll(0.2)] if use_poll else c.consume(n - len(out), 0.2)
        for m in got:
            if m is not None:
                assert m.error() is None, m.error()
                out.append(m)
    assert len(out) == n
    return out


def _check_named_right(msgs):
    for m in msgs:
        assert m.topic() == m.value().split(b"/")[0].decode(), (m.topic(), m.value())


@pytest.mark.parametrize("use_poll", [True, False], ids=["poll", "consume"])
def test_interleaved_topics_each_named_right(cluster, use_poll):
    c = _consumer(cluster)
    c.assign([TopicPartition(t, 0, OFFSET_BEGINNING) for t in TOPICS])
    msgs = _take(c, PER_TOPIC * len(TOPICS), use_poll)
    _check_named_right(msgs)
    assert {m.topic() for m in msgs} == set(TOPICS)
    assert sorted(m.value() for m in msgs) == sorted(
        b"%s/%d" % (t.encode(), i) for t in TOPICS for i in range(PER_TOPIC))
    c.close()


def test_a_topic_again_after_others(cluster):
    c = _consumer(cluster)
    order = ["tn22", "tn", "tn22", "m", "tn2", "tn"]
    for t in order:     # one topic at a time: the cached handle changes at each step
        c.assign([TopicPartition(t, 0, OFFSET_BEGINNING)])
        msgs = _take(c, PER_TOPIC, False)
        _check_named_right(msgs)
        assert {m.topic() for m in msgs} == {t}
    c.close()


def test_delivery_reports_of_interleaved_topics_named_right():
    p = Producer(mock())
    seen = []
    kept = []

    def cb(err, msg):
        assert err is None
        seen.append((msg.topic(), msg.value()))
        if len(seen) % 7 == 0:
            kept.append(msg)

    for i in range(50):
        for t in TOPICS[::-1] if i % 2 else TOPICS:
            p.produce(t, b"%s/%d" % (t.encode(), i), partition=0, on_delivery=cb)
        if i % 10 == 0:
            p.poll(0)
    assert p.flush(10) == 0
    assert len(seen) == 50 * len(TOPICS)
    for topic, value in seen:
        assert topic == value.split(b"/")[0].decode()
    _check_named_right(kept)
    p.close()


@pytest.mark.parametrize("close", [True, False], ids=["close", "dealloc"])
def test_clients_freed_while_a_topic_is_held(cluster, close):
    # The consumer and the producer hold a reference on the last topic they named; close()
    # and deallocation drop it before the client is freed (a client freed with it held would
    # leave the topic behind with a dangling client). Many rounds: each must end cleanly.
    for r in range(5):
        c = _consumer(cluster)
        c.assign([TopicPartition(TOPICS[r % len(TOPICS)], 0, OFFSET_BEGINNING)])
        _check_named_right(_take(c, 3, True))
        p = Producer(mock())
        got = []
        p.produce(TOPICS[r % len(TOPICS)], b"%s/x" % TOPICS[r % len(TOPICS)].encode(),
                  on_delivery=lambda err, msg: got.append(msg.topic()))
        assert p.flush(10) == 0
        assert got == [TOPICS[r % len(TOPICS)]]
        if close:
            c.close()
            p.close()
        del c, p
        gc.collect()
