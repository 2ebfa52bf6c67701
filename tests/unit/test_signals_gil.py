"""Blocking calls wait without the GIL and wake up for Ctrl-C.

Ctrl-C: a child process blocks in flush()/poll(-1)/consume(timeout=-1) with nothing that could
ever end the wait; the parent sends SIGINT once the child is asleep, and the child must leave the
call with KeyboardInterrupt within 0.5 s (CLOCK_MONOTONIC is system-wide on Linux, so the
parent's send time and the child's catch time compare directly).

GIL: a counter thread keeps counting while the main thread waits in one of these calls.
"""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import confluent_binding
from confluent_binding import Consumer, KafkaException, Producer

from tests.support import closed_port, mock, unreachable

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="uses /proc and SIGINT")

MAX_DELAY = 0.5


def child_env():
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(confluent_binding.__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


CHILD = textwrap.dedent("""
    import sys, time, traceback
    import confluent_binding as ck

    mode, port = sys.argv[1], int(sys.argv[2])
    down = {"bootstrap.servers": "127.0.0.1:%d" % port, "log_level": 0}
    if mode == "producer_flush":
        h = ck.Producer(dict(down, **{"message.timeout.ms": 600000}))
        h.produce("t", b"never delivered")
        call = lambda: h.flush()
    elif mode == "producer_flush_timeout":
        h = ck.Producer(dict(down, **{"message.timeout.ms": 600000}))
        h.produce("t", b"never delivered")
        call = lambda: h.flush(600)
    elif mode == "producer_poll":
        h = ck.Producer({"test.mock.num.brokers": 1, "log_level": 0})
        call = lambda: h.poll(-1)
    elif mode == "consumer_poll":
        h = ck.Consumer(dict(down, **{"group.id": "g"}))
        h.subscribe(["t"])
        call = lambda: h.poll(-1)
    elif mode == "consumer_poll_none":
        h = ck.Consumer(dict(down, **{"group.id": "g"}))
        call = lambda: h.poll()
    elif mode == "consumer_consume":
        h = ck.Consumer(dict(down, **{"group.id": "g"}))
        h.subscribe(["t"])
        call = lambda: h.consume(num_messages=10, timeout=-1)
    elif mode == "consumer_iterate":
        h = ck.Consumer(dict(down, **{"group.id": "g"}))
        h.subscribe(["t"])
        call = lambda: next(iter(h))
    elif mode == "producer_produce_blocking":
        h = ck.Producer(dict(down, **{"message.timeout.ms": 600000, "max.block.ms": 600000,
                                      "queue.buffering.max.messages": 1}))
        h.produce("t", b"fills the queue")
        call = lambda: h.produce("t", b"waits for room")
    elif mode == "share_consumer_poll":
        h = ck.ShareConsumer(dict(down, **{"group.id": "g"}))
        h.subscribe(["t"])
        call = lambda: h.poll(-1)
    else:
        raise SystemExit("unknown mode " + mode)

    print("blocking", flush=True)
    try:
        call()
    except KeyboardInterrupt:
        caught = time.monotonic()
        frames = [f.name for f in traceback.extract_tb(sys.exc_info()[2])]
        print("caught %.6f %s" % (caught, ",".join(frames)), flush=True)
        raise
    print("returned", flush=True)
""")


def main_thread_state(pid):
    with open("/proc/%d/task/%d/stat" % (pid, pid)) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def wait_asleep(proc, timeout=10.0):
    """Until the child's main thread sleeps (in the blocking call) three reads in a row."""
    end = time.monotonic() + timeout
    in_a_row = 0
    while in_a_row < 3:
        assert time.monotonic() < end, "child never blocked"
        assert proc.poll() is None, proc.stderr.read()
        in_a_row = in_a_row + 1 if main_thread_state(proc.pid) == "S" else 0
        time.sleep(0.01)


def interrupt_child(source, arg, timeout):
    """Start ``source`` with ``arg`` and a closed port, wait until it prints "blocking" and
    sleeps in the call, send SIGINT; return (process, its output, its errors, when sent)."""
    # SIGINT as a terminal gives it: a suite started in the background (``make test &``) has
    # it ignored, which its children inherit, and Python then never raises KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-c", source, arg, str(closed_port())],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=child_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = proc.stdout.readline()
        assert line == "blocking\n", (line, proc.stderr.read() if proc.poll() is not None else "")
        wait_asleep(proc)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc, out, err, sent


@pytest.mark.parametrize("mode", ["producer_flush", "producer_flush_timeout", "producer_poll",
                                  "consumer_poll", "consumer_poll_none", "consumer_consume",
                                  "consumer_iterate", "producer_produce_blocking",
                                  "share_consumer_poll"])
def test_ctrl_c_interrupts_blocking_call(mode):
    proc, out, err, sent = interrupt_child(CHILD, mode, 20)
    assert "returned" not in out
    caught = [ln for ln in out.splitlines() if ln.startswith("caught ")]
    assert caught, (out, err)
    _, when, frames = caught[0].split(" ", 2)
    delay = float(when) - sent
    assert 0 <= delay < MAX_DELAY, delay
    # the interrupt came out of the blocking call itself: below the lambda wrapping it there
    # are only the compiled method's own frames
    frames = frames.split(",")
    assert "<lambda>" in frames, frames
    inner = frames[frames.index("<lambda>") + 1:]
    assert all(f.startswith("confluent_binding._core.") for f in inner), frames
    assert "KeyboardInterrupt" in err
    assert "SystemError" not in err and "Segmentation" not in err
    assert proc.returncode in (-signal.SIGINT, 130), (proc.returncode, err)


CLOSE_CHILD = textwrap.dedent("""
    import gc, sys, time
    import confluent_binding as ck

    then, port = sys.argv[1], int(sys.argv[2])
    c = ck.Consumer({"bootstrap.servers": "127.0.0.1:%d" % port, "group.id": "g",
                     "log_level": 0, "session.timeout.ms": 6000})
    # The group coordinator never answers: close() waits for this commit until librdkafka
    # gives up on it, session.timeout.ms after close() began.
    c.commit(offsets=[ck.TopicPartition("t", 0, 5)], asynchronous=True)
    print("blocking", flush=True)
    start = time.monotonic()
    try:
        c.close()
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("caught %.6f" % time.monotonic(), flush=True)
    try:
        c.poll(0)
    except RuntimeError as e:
        print("refused:", e, flush=True)
    if then == "close_again":
        c.close()
    else:
        del c
        gc.collect()
    print("freed %.3f" % (time.monotonic() - start), flush=True)
""")


@pytest.mark.parametrize("then", ["close_again", "drop"])
def test_ctrl_c_interrupts_consumer_close(then):
    """close() waiting for an unreachable group coordinator leaves on Ctrl-C within 0.5 s;
    the consumer is then closed to other calls, and a second close() (or dropping it) waits
    for librdkafka's close to end and frees it."""
    proc, out, err, sent = interrupt_child(CLOSE_CHILD, then, 60)
    assert proc.returncode == 0, (out, err)
    lines = out.splitlines()
    assert "returned" not in lines
    assert lines[0].startswith("caught "), (out, err)
    delay = float(lines[0].split()[1]) - sent
    assert 0 <= delay < MAX_DELAY, delay
    assert lines[1] == "refused: Consumer closed", lines
    freed_after = float(lines[2].split()[1])
    # the handle was freed only once librdkafka's close had ended (its commit timed out)
    assert 5.5 < freed_after < 40, freed_after
    assert err == "", err


# -- the GIL is released while waiting --


class Counter(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.n = 0
        self.stop = False

    def run(self):
        while not self.stop:
            self.n += 1


def counted(call):
    """(increments of a counter thread during call(), duration of call())."""
    counter = Counter()
    counter.start()
    while counter.n == 0:          # the thread is running
        time.sleep(0.001)
    before = counter.n
    t = time.monotonic()
    try:
        call()
    finally:
        elapsed = time.monotonic() - t
        after = counter.n
        counter.stop = True
        counter.join()
    return after - before, elapsed


MIN_COUNT = 20000     # a GIL held for the whole second would allow (almost) none


def test_gil_released_in_producer_flush():
    p = Producer(unreachable(**{"message.timeout.ms": 600000}))
    p.produce("t", b"x")
    remaining = []
    count, elapsed = counted(lambda: remaining.append(p.flush(1.0)))
    assert remaining[0] >= 1
    assert 0.9 <= elapsed < 3
    assert count >= MIN_COUNT, count
    p.purge()
    p.close(0)


def test_gil_released_in_producer_poll():
    p = Producer(mock())
    served = []
    count, elapsed = counted(lambda: served.append(p.poll(1.0)))
    assert served == [0]
    assert 0.9 <= elapsed < 3
    assert count >= MIN_COUNT, count
    p.close()


@pytest.mark.parametrize("call", ["poll", "consume"])
def test_gil_released_in_consumer_wait(call):
    c = Consumer(unreachable(**{"group.id": "g"}))
    c.subscribe(["t"])
    got = []
    fn = (lambda: got.append(c.poll(1.0))) if call == "poll" else \
        (lambda: got.append(c.consume(10, timeout=1.0)))
    count, elapsed = counted(fn)
    assert got == [None] if call == "poll" else got == [[]]
    assert 0.9 <= elapsed < 3
    assert count >= MIN_COUNT, count
    c.close()


def test_gil_released_in_share_consumer_poll():
    c = confluent_binding.ShareConsumer(unreachable(**{"group.id": "g"}))
    c.subscribe(["t"])
    got = []
    count, elapsed = counted(lambda: got.append(len(c.poll(1.0))))
    assert got == [0]
    assert 0.9 <= elapsed < 3
    assert count >= MIN_COUNT, count
    c.close()


def test_gil_released_in_list_topics():
    p = Producer(unreachable())
    errors = []

    def call():
        try:
            p.list_topics(timeout=1.0)
        except KafkaException as e:
            errors.append(e.args[0])

    count, elapsed = counted(call)
    assert len(errors) == 1
    assert 0.9 <= elapsed < 3
    assert count >= MIN_COUNT, count
    p.close(0)


def test_other_threads_run_callbacks_while_one_waits():
    """One thread waits in flush() of a producer while the main thread serves another
    producer's delivery reports; a purge from the main thread then ends that flush()."""
    waiting = Producer(unreachable(**{"message.timeout.ms": 600000}))
    waiting.produce("t", b"x")
    left = []
    th = threading.Thread(target=lambda: left.append(waiting.flush(30)))
    th.start()
    busy = Producer(mock())
    got = []
    for i in range(20):
        busy.produce("b", b"%d" % i, on_delivery=lambda e, m: got.append(e))
    assert busy.flush(10) == 0
    assert got == [None] * 20
    assert th.is_alive()
    waiting.purge()
    th.join(10)
    assert not th.is_alive() and left == [0]
    waiting.close(0)
    busy.close()
