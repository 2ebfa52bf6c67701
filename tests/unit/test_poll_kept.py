"""poll() against librdkafka's mock cluster while a callback it serves keeps raising: every
record still arrives once and in order. (A poll() that raises after it took a message keeps the
message for the next call: tests/integration/test_consume_kept.py fails allocations in turn.)
"""

import time

import pytest

from confluent_binding import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from tests.support import mock

COUNT = 300


class Boom(Exception):
    pass


@pytest.fixture(scope="module")
def cluster():
    """A mock cluster (kept alive by its producer) with COUNT records in "pk" [0]."""
    p = Producer(mock())
    for i in range(COUNT):
        p.produce("pk", b"value-%d" % i, partition=0)
    assert p.flush(10) == 0
    broker = p.list_topics(timeout=10).brokers[1]
    yield "%s:%d" % (broker.host, broker.port)
    p.close()


def _consumer(bootstrap, group, **extra):
    c = Consumer(dict({"bootstrap.servers": bootstrap, "group.id": group,
                       "enable.auto.commit": False, "log_level": 0}, **extra))
    c.assign([TopicPartition("pk", 0, OFFSET_BEGINNING)])
    return c


def _poll_all(c, got, exc_type, need_raised=0):
    """Polls until COUNT records (and ``need_raised`` raises) arrived; returns the raises."""
    raised = 0
    end = time.monotonic() + 60
    while (len(got) < COUNT or raised < need_raised) and time.monotonic() < end:
        try:
            m = c.poll(0.05)
        except exc_type:
            raised += 1
            continue
        if m is not None:
            assert m.error() is None, m.error()
            got.append((m.offset(), m.value()))
    return raised


def test_poll_with_a_raising_stats_cb_loses_and_repeats_nothing(cluster):
    done = []

    def stats_cb(_json):
        if not done:
            raise Boom()

    c = _consumer(cluster, "pk1", **{"statistics.interval.ms": 5, "stats_cb": stats_cb})
    got = []
    raised = _poll_all(c, got, Boom, need_raised=2)
    done.append(True)   # close() serves the statistics still queued
    c.close()
    assert raised >= 2
    assert got == [(i, b"value-%d" % i) for i in range(COUNT)]

