"""poll() refills the Message it returned two calls ago when the application has let it go, and
never one the application still holds: every Message carries exactly its own record (key,
value, headers, offset, error), whichever path made it. librdkafka's mock cluster."""

import gc
import time

import pytest

from confluent_binding import Consumer, KafkaError, Producer, TopicPartition

from tests.support import mock

TOPIC = "reuse"
COUNT = 300


def record(i):
    """Every third record has a key and a header; the others neither."""
    if i % 3 == 0:
        return b"k%d" % i, b"v%d" % i, [("h", b"%d" % i)]
    return None, b"v%d" % i, None


@pytest.fixture(scope="module")
def bootstrap():
    p = Producer(mock())
    for i in range(COUNT):
        key, value, headers = record(i)
        p.produce(TOPIC, value, key, partition=0, headers=headers)
    assert p.flush(10) == 0
    broker = p.list_topics(timeout=10).brokers[1]
    yield "%s:%d" % (broker.host, broker.port)
    p.close()


@pytest.fixture
def consumer(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reuse-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "enable.partition.eof": True, "log_level": 0})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    yield c
    c.close()


def take(c):
    """The next message or event (the topic is full: one comes well within the timeout)."""
    m = c.poll(10)
    assert m is not None
    return m


def check(m, i):
    key, value, headers = record(i)
    assert m.error() is None, m.error()
    assert (m.topic(), m.partition(), m.offset()) == (TOPIC, 0, i)
    assert (m.key(), m.value(), m.headers()) == (key, value, headers)
    assert m.timestamp()[0] != 0


def test_poll_refills_the_message_the_application_let_go(consumer):
    ids = []
    for i in range(COUNT):
        m = take(consumer)      # (the last one is still held here, by m)
        check(m, i)
        ids.append(id(m))
    # two objects, taking turns: the one of two calls ago was refilled each time
    assert ids[0] != ids[1]
    assert all(ids[k] == ids[k - 2] for k in range(2, COUNT)), ids[:6]
    eof = take(consumer)
    assert eof.error().code() == KafkaError._PARTITION_EOF
    assert (eof.value(), eof.key(), eof.headers(), eof.offset()) == (None, None, None, COUNT)
    assert id(eof) == ids[COUNT - 2]     # an event refills one too


def test_messages_the_application_holds_are_never_refilled(consumer):
    kept = []
    for i in range(COUNT):
        m = take(consumer)
        if i % 4 == 0:
            kept.append(m)
    assert len({id(m) for m in kept}) == len(kept)
    for k, m in enumerate(kept):
        check(m, 4 * k)


def test_a_message_the_application_changed_is_refilled_whole(consumer):
    for i in range(COUNT):
        m = take(consumer)
        assert not gc.is_tracked(m)     # (headers(), in check, puts it under the collector)
        check(m, i)
        # the application's changes, which put it under the cycle collector, are gone
        # when it is refilled
        m.set_headers([("mine", b"x")])
        m.set_key(b"mine")
        m.set_value(["mine"])
        m.set_error(KafkaError(KafkaError._FAIL))
        assert gc.is_tracked(m)
    assert take(consumer).error().code() == KafkaError._PARTITION_EOF
