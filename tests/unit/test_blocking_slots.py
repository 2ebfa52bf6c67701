"""The per-thread count of calls inside a client (its serving calls and their callbacks): a
callback a call of this thread is serving cannot close() its client, however the calls nest and
whatever other threads call in and out meanwhile; once the calls return, close() works."""

import threading

import pytest

from confluent_binding import Producer

from tests import support

TIMEOUT = 30


def _producer_with_one_report(cb):
    p = Producer(support.unreachable(**{"message.timeout.ms": 60000}))
    p.produce("t", b"v", partition=0, on_delivery=cb)
    p.purge()       # the report is queued now, served by the next poll()/flush()
    return p


def _close_refused(p):
    with pytest.raises(RuntimeError, match="from a callback"):
        p.close()


def test_nested_calls_keep_the_thread_counted_in():
    done = []

    def cb(err, msg):
        p.poll(0)                   # nested: in and out again, still inside the outer flush
        p.flush(0)
        _close_refused(p)
        done.append(True)

    p = _producer_with_one_report(cb)
    assert p.flush(TIMEOUT) == 0
    assert done == [True]
    assert p.close() is True        # the outer call returned: nothing is inside


def test_other_threads_in_and_out_do_not_uncount_a_serving_thread():
    entered, release = threading.Event(), threading.Event()
    outcome = []

    def cb(err, msg):
        entered.set()
        assert release.wait(TIMEOUT)
        try:
            p.close()
        except RuntimeError as exc:
            outcome.append(str(exc))

    p = _producer_with_one_report(cb)
    server = threading.Thread(target=p.flush, args=(TIMEOUT,))
    server.start()
    try:
        assert entered.wait(TIMEOUT)
        # while `server` is inside its callback, this thread and two more call in and out
        # (the only report is the one being served: these serve at most logs and errors)
        for _ in range(3):
            p.poll(0)
        others = [threading.Thread(target=p.poll, args=(0,)) for _ in range(2)]
        for t in others:
            t.start()
        for t in others:
            t.join(TIMEOUT)
    finally:
        release.set()
    server.join(TIMEOUT)
    assert not server.is_alive()
    assert len(outcome) == 1 and "from a callback" in outcome[0]
    assert p.close() is True


def test_many_threads_serving_then_close():
    # more threads than calls at once is fine; afterwards nothing is left counted in
    p = Producer(support.unreachable(**{"message.timeout.ms": 60000}))
    served = []
    for i in range(40):
        p.produce("t", b"%d" % i, partition=0, on_delivery=lambda err, msg: served.append(msg))
    p.purge()
    threads = [threading.Thread(target=p.poll, args=(0.5,)) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    p.flush(TIMEOUT)
    assert sorted(int(m.value()) for m in served) == list(range(40))
    assert p.close() is True
