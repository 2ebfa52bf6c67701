"""poll()'s read-ahead against librdkafka's mock cluster: callbacks are still served while
messages wait in the read-ahead (a slow application is served about as often as with one
message per call), and while a callback served by a read-ahead runs, no other call takes
messages that would overtake the ones being read ahead."""

import json
import threading
import time

import pytest

from confluent_binding import Consumer, TopicPartition, build_info

from tests.support.configs import filled_mock

pytestmark = pytest.mark.skipif(not build_info()["read_ahead"],
                                reason="poll() reads ahead in the internal build only")

TOPIC = "ahead"
COUNT = 500


@pytest.fixture(scope="module")
def bootstrap():
    yield from filled_mock(TOPIC, COUNT)


def consumer(bootstrap, **extra):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "ahead-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "log_level": 0, "statistics.interval.ms": 100,
                  **extra})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    return c


def first(c):
    m = None
    end = time.monotonic() + 10
    while m is None and time.monotonic() < end:
        m = c.poll(0.2)
    assert m is not None and m.error() is None and m.offset() == 0
    return [m.offset()]


def rest(c, got):
    end = time.monotonic() + 10
    while len(got) < COUNT and time.monotonic() < end:
        m = c.poll(0.2)
        if m is not None:
            assert m.error() is None
            got.append(m.offset())
    return got


def test_a_slow_application_is_served_callbacks_while_messages_wait(bootstrap):
    waiting = []    # messages read ahead when each stats callback ran
    c = consumer(bootstrap, stats_cb=lambda s: waiting.append(c._taken_ahead()))
    got = first(c)
    while len(waiting) < 3 and len(got) < 100:
        time.sleep(0.03)            # the application's work on a message
        got.append(c.poll(1.0).offset())
    assert len(waiting) >= 3, "stats callbacks: %s" % waiting
    assert max(waiting) > 0         # served although messages were waiting
    assert rest(c, got) == list(range(COUNT))
    c.close()


def test_no_call_overtakes_a_read_ahead_whose_callback_runs(bootstrap):
    """A callback served by a read-ahead (messages waiting) polls: it gets the waiting ones,
    then None (what the read-ahead is taking must come first); another thread's poll() waits
    for the read-ahead until its timeout. Every offset is handed out once, in order."""
    entered, release = threading.Event(), threading.Event()
    got, other = [], []

    def stats_cb(stats):
        json.loads(stats)
        if entered.is_set() or c._taken_ahead() == 0:
            return      # arm only in a read-ahead's callback (messages are waiting)
        while True:
            m = c.poll(0)
            if m is None:
                break
            got.append(m.offset())
        entered.set()
        release.wait(10)            # lets other threads run

    def other_thread():
        entered.wait(10)
        t0 = time.monotonic()
        other.append((c.poll(0.3), time.monotonic() - t0))
        release.set()

    c = consumer(bootstrap, stats_cb=stats_cb)
    got.extend(first(c))
    t = threading.Thread(target=other_thread)
    t.start()
    while not entered.is_set() and len(got) < 200:
        time.sleep(0.03)            # the application's work on a message
        m = c.poll(1.0)
        got.append(m.offset())
    t.join(20)
    assert entered.is_set()
    (msg, waited), = other
    assert msg is None and waited >= 0.25   # waited for the read-ahead, then timed out
    assert rest(c, got) == list(range(COUNT))
    c.close()


def test_read_ahead_serves_without_handing_out(bootstrap):
    """Consumer._read_ahead() (the aiokafka face's group task; the rebalances it serves are
    tested there): messages taken into the read-ahead, none handed out, the position unmoved;
    it takes no more than the read-ahead holds; poll() and consume() then hand every offset
    out once, in order, and the position follows them."""
    c = consumer(bootstrap)
    tp = [TopicPartition(TOPIC, 0)]
    end = time.monotonic() + 10
    ahead = (0, False)
    while ahead[0] < 64 and time.monotonic() < end:
        ahead = c._read_ahead()
        time.sleep(0.01)            # librdkafka fetches meanwhile
    assert ahead == (64, False)     # full: it takes no more
    assert c._read_ahead() == (64, False)
    assert c.position(tp)[0].offset < 0     # nothing handed out: no position yet
    got = [c.poll(1.0).offset()]
    assert c.position(tp)[0].offset == 1
    while len(got) < COUNT and time.monotonic() < end:
        got.extend(m.offset() for m in c.consume(100, 0.2) if m.error() is None)
    assert got == list(range(COUNT))
    assert c.position(tp)[0].offset == COUNT
    c.close()
    with pytest.raises(RuntimeError):
        c._read_ahead()
