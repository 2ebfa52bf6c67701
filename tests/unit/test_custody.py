"""The consumer's custody of the messages it took from librdkafka and has not handed out (the
contract: ``_Custody`` in src/custody.pyx), against librdkafka's mock cluster: what poll() read
ahead is dropped by a seek, a pause or an unassign whichever call comes next (poll(), consume()
or consume_arrow()), and the next message handed out is the right one; positions and committed
offsets follow only the messages handed out, through close() too; a call made from a callback
that a read-ahead serves takes nothing and loses nothing."""

import time
import uuid

import pytest

from confluent_binding import OFFSET_STORED, Consumer, TopicPartition, build_info

from tests.support.configs import filled_mock

pa = pytest.importorskip("pyarrow")

TOPIC = "custody"
COUNT = 300
# poll() reads ahead in the build linked to the pinned librdkafka's internals only (tests/legs.txt:
# the public-API legs): there it takes one message at a time, and has nothing ahead to drop.
READ_AHEAD = build_info()["read_ahead"]


@pytest.fixture(scope="module")
def bootstrap():
    yield from filled_mock(TOPIC, COUNT)


def consumer(bootstrap, group=None, start=0, **extra):
    """A consumer of the topic from offset ``start`` (OFFSET_STORED: the group's committed)."""
    c = Consumer({"bootstrap.servers": bootstrap, "enable.auto.commit": False, "log_level": 0,
                  "group.id": group or "custody-" + uuid.uuid4().hex, **extra})
    c.assign([TopicPartition(TOPIC, 0, start)])
    return c


def offsets(result):
    """The offsets of one call's result: a Message (or None), a list of them, a RecordBatch."""
    if isinstance(result, pa.RecordBatch):
        return result.column("offset").to_pylist()
    out = []
    for m in result if isinstance(result, list) else [result]:
        if m is not None:
            assert m.error() is None, m.error()
            out.append(m.offset())
    return out


def take(c, call, n, timeout=10):
    """The offsets of the next ``n`` messages, read by ``call`` ("poll", "consume" or
    "consume_arrow") asking each time for what is still missing."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < n:
        assert time.monotonic() < end, "got %d of %d: %s" % (len(got), n, got)
        if call == "poll":
            got += offsets(c.poll(0.2))
        else:
            got += offsets(getattr(c, call)(n - len(got), 0.2))
    assert len(got) == n, got     # no call handed out more than it was asked for
    return got


def read_ahead(c):
    """poll() read ahead where the build does (READ_AHEAD), and only there."""
    assert (c._taken_ahead() > 0) == READ_AHEAD, c._taken_ahead()


def started(c, n=3):
    """Polls the first ``n`` messages; poll() read ahead more than those (READ_AHEAD)."""
    assert take(c, "poll", n) == list(range(n))
    read_ahead(c)
    return n


def position(c):
    return c.position([TopicPartition(TOPIC, 0)])[0].offset


@pytest.mark.parametrize("call", ["poll", "consume", "consume_arrow"])
def test_seek_drops_the_read_ahead_for_the_next_call(bootstrap, call):
    c = consumer(bootstrap)
    started(c)
    c.seek(TopicPartition(TOPIC, 0, 200))
    assert take(c, call, 5) == list(range(200, 205))
    assert position(c) == 205
    # read ahead again, then seek backwards: nothing read ahead past the seek comes out
    assert take(c, "poll", 1) == [205]
    read_ahead(c)
    c.seek(TopicPartition(TOPIC, 0, 10))
    assert take(c, call, 5) == list(range(10, 15))
    assert take(c, "poll", COUNT - 15) == list(range(15, COUNT))
    c.close()


@pytest.mark.parametrize("call", ["poll", "consume", "consume_arrow"])
def test_pause_stops_the_read_ahead_and_resume_goes_on_from_the_position(bootstrap, call):
    c = consumer(bootstrap)
    n = started(c)
    c.pause([TopicPartition(TOPIC, 0)])
    assert offsets(c.poll(0.2)) == []
    assert offsets(c.consume(10, 0.2)) == []
    assert offsets(c.consume_arrow(10, 0.2)) == []
    assert c._taken_ahead() == 0
    assert position(c) == n
    c.resume([TopicPartition(TOPIC, 0)])
    assert take(c, call, COUNT - n) == list(range(n, COUNT))
    c.close()


@pytest.mark.parametrize("call", ["poll", "consume", "consume_arrow"])
def test_unassign_drops_the_read_ahead_and_assign_starts_where_asked(bootstrap, call):
    c = consumer(bootstrap)
    n = started(c)
    c.unassign()
    assert offsets(c.poll(0.2)) == []
    assert c._taken_ahead() == 0
    c.assign([TopicPartition(TOPIC, 0, n)])     # the same partition, where the read-ahead was
    assert take(c, call, COUNT - n) == list(range(n, COUNT))
    c.close()


def test_every_call_hands_out_in_order_and_positions_follow_what_was_handed_out(bootstrap):
    c = consumer(bootstrap)
    n = started(c)
    for call in ["consume", "consume_arrow", "poll", "consume", "poll", "consume_arrow"]:
        assert take(c, call, 7) == list(range(n, n + 7)), call
        n += 7
        assert position(c) == n, call
        assert [p.offset for p in c.commit(asynchronous=False)] == [n], call
    c.close()


def test_close_commits_what_was_handed_out_not_what_was_read_ahead(bootstrap):
    group = "custody-close-" + uuid.uuid4().hex
    c = consumer(bootstrap, group, **{"enable.auto.commit": True,
                                      "auto.commit.interval.ms": 600000})
    n = started(c, 5)
    c.close()
    c = consumer(bootstrap, group, OFFSET_STORED)
    assert [p.offset for p in c.committed([TopicPartition(TOPIC, 0)], 10)] == [n]
    assert take(c, "consume", COUNT - n) == list(range(n, COUNT))
    c.close()


@pytest.mark.skipif(not READ_AHEAD, reason="poll() reads ahead in the internal build only")
def test_consume_calls_from_a_read_aheads_callback_take_nothing_and_lose_nothing(bootstrap):
    """consume() and consume_arrow() called from a callback that a read-ahead serves (messages
    waiting) get nothing at once; the messages read ahead stay, and every offset is handed out
    once, in order."""
    seen = []   # (read ahead before, consume(), consume_arrow(), read ahead after)

    def stats_cb(_stats):
        ahead = c._taken_ahead()
        if seen or ahead == 0:
            return      # once, in a read-ahead's callback (messages are waiting)
        started = time.monotonic()
        seen.append((ahead, offsets(c.consume(5, 0)), offsets(c.consume_arrow(5, 0)),
                     offsets(c.consume(5, 1.0)), c._taken_ahead(),
                     time.monotonic() - started))

    c = consumer(bootstrap, **{"statistics.interval.ms": 50, "stats_cb": stats_cb})
    got = take(c, "poll", 1)
    while not seen and len(got) < COUNT:
        time.sleep(0.03)            # the application's work on a message
        got += take(c, "poll", 1)
    assert seen, "no read-ahead served a statistics callback"
    (before, consumed, batch, waited, after, took), = seen
    assert (consumed, batch, waited) == ([], [], [])
    assert after == before and took < 0.5   # nothing taken, and no wait for its own fill
    got += take(c, "consume", COUNT - len(got))
    assert got == list(range(COUNT))
    c.close()
