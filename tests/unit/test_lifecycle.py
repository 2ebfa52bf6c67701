"""Lifetimes: unclosed handles are freed quietly, fork does not hurt the parent, closed
handles refuse work, and per-message callback references are given back exactly once."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import confluent_binding
from confluent_binding import Consumer, KafkaError, Producer, TopicPartition

from tests.support import flush_until_it_stops_raising, mock, unreachable


def run_child(code, timeout=60):
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(confluent_binding.__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=env)


def thread_count():
    return len(os.listdir("/proc/self/task"))


# -- unclosed handles are freed quietly --

GC_PRELUDE = """
    import gc, socket, sys
    import confluent_binding as ck

    def closed_port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    down = {"bootstrap.servers": "127.0.0.1:%d" % closed_port(), "log_level": 0,
            "message.timeout.ms": 60000}
    calls = []
    def on_delivery(err, msg):
        calls.append(err)
    base = sys.getrefcount(on_delivery)
"""

GC_CASES = {
    "producer_outstanding": """
        p = ck.Producer(dict(down, error_cb=lambda err: None, on_delivery=on_delivery))
        for i in range(100):
            p.produce("t", b"x", on_delivery=on_delivery)
        p.poll(0.1)
        assert sys.getrefcount(on_delivery) >= base + 100
        del p
        gc.collect()
        assert calls == [], calls
        assert sys.getrefcount(on_delivery) == base, sys.getrefcount(on_delivery) - base
        print("ok")
    """,
    "producer_unserved_reports": """
        import os, select
        p = ck.Producer({"test.mock.num.brokers": 1, "log_level": 0, "linger.ms": 50})
        # the queue poll() serves writes to this pipe when it gets something (the asyncio
        # clients' wake-up), which says the reports came without serving them
        readable, writable = os.pipe()
        p._io_event_enable(writable)
        for i in range(50):
            p.produce("t", b"x", partition=0, on_delivery=on_delivery)
        # one partition, one batch (lingering 50 ms): one event with the reports of all 50;
        # once it is queued, the reports (not the messages) are what is left when the
        # producer is dropped
        assert select.select([readable], [], [], 30)[0], "no delivery reports within 30 s"
        # len() counts the 50 messages (not given back before their reports are served) and
        # each queued event
        assert len(p) > 50 and calls == [], len(p)
        del p
        gc.collect()
        assert calls == []
        assert sys.getrefcount(on_delivery) == base
        print("ok")
    """,
    "producer_cycle": """
        class Marker:
            def __del__(self):
                print("marker freed", flush=True)
        def make():
            marker = Marker()
            # the producer is reachable from its own configured callbacks: a cycle the
            # garbage collector must be able to see through
            p = ck.Producer(dict(down, on_delivery=lambda err, msg: (p, marker),
                                 error_cb=lambda err: p))
            p.produce("t", b"x")
            p.produce("t", b"y", on_delivery=on_delivery)
        make()
        gc.collect()
        assert calls == []
        assert sys.getrefcount(on_delivery) == base
        print("ok")
    """,
    "producer_at_exit": """
        p = ck.Producer(dict(down, on_delivery=on_delivery))
        for i in range(10):
            p.produce("t", b"x")
        print("ok")
    """,
    "consumer_subscribed": """
        c = ck.Consumer(dict(down, **{"group.id": "g", "on_commit": print,
                                      "error_cb": calls.append}))
        c.subscribe(["t"], on_assign=print, on_revoke=print)
        c.poll(0.2)
        del c
        gc.collect()
        print("ok")
    """,
    "consumer_fetching": """
        p = ck.Producer({"test.mock.num.brokers": 1, "log_level": 0})
        for i in range(20):
            p.produce("t", b"x", partition=0)
        assert p.flush(10) == 0
        b = p.list_topics(timeout=10).brokers[1]
        c = ck.Consumer({"bootstrap.servers": "%s:%d" % (b.host, b.port), "group.id": "g",
                         "log_level": 0, "on_commit": print})
        c.assign([ck.TopicPartition("t", 0, 0)])
        assert c.poll(10) is not None       # more are fetched and never read
        c.commit(asynchronous=True)
        del c
        gc.collect()
        p.close()
        print("ok")
    """,
    "consumer_at_exit": """
        c = ck.Consumer(dict(down, **{"group.id": "g"}))
        c.subscribe(["t"])
        c.consume(10, 0.1)
        print("ok")
    """,
}


@pytest.mark.parametrize("case", sorted(GC_CASES))
def test_unclosed_handle_is_freed_quietly(case):
    res = run_child(textwrap.dedent(GC_PRELUDE) + textwrap.dedent(GC_CASES[case]))
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "ok", res.stdout
    assert res.stderr == ""
    if case == "producer_cycle":
        assert "marker freed" in res.stdout


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_dropped_handles_release_their_threads():
    gc.collect()
    before = thread_count()
    handles = [Producer(unreachable()) for _ in range(5)]
    handles += [Consumer(unreachable(**{"group.id": "g"})) for _ in range(5)]
    assert thread_count() > before
    for h in handles[:3]:
        h.close() if isinstance(h, Consumer) else h.close(0)
    del h
    handles.clear()
    gc.collect()
    end = time.monotonic() + 10
    while thread_count() > before and time.monotonic() < end:
        time.sleep(0.01)
    assert thread_count() == before


# -- fork --


def _fork_and(child_action):
    """Fork; the child runs child_action() and exits at once with 0 (1 when it raised)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            child_action()
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    end = time.monotonic() + 20
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "hung"
        time.sleep(0.01)


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@needs_fork
@pytest.mark.parametrize("how", ["close", "del", "exit"])
def test_fork_child_dropping_producer_leaves_parent_working(how):
    p = Producer(mock())
    got = []
    p.produce("fk", b"before", on_delivery=lambda e, m: got.append(e))
    assert p.flush(10) == 0
    p.produce("fk", b"outstanding", on_delivery=lambda e, m: got.append(e))

    def child():
        nonlocal p
        if how == "close":
            p.close()
            with pytest.raises(RuntimeError):
                p.produce("fk", b"x")
        elif how == "del":
            del p
            gc.collect()

    assert _fork_and(child) == 0
    for i in range(5):
        p.produce("fk", b"after%d" % i, on_delivery=lambda e, m: got.append(e))
    assert p.flush(10) == 0
    assert got == [None] * 7
    p.close()


@needs_fork
def test_fork_child_works_with_its_own_new_clients():
    """A child forked after the parent's clients are closed makes and uses its own, and the
    parent goes on making clients too.

    A child forked while the parent has clients open must not make clients of its own:
    librdkafka is not fork-safe, and its threads may hold a lock at the fork (OpenSSL's
    random-number lock, taken for timer jitter) that stays locked forever in the child - a
    new client there hangs now and then. Forking with clients open is fine for a child that
    only drops them (test above)."""
    parent = Producer(mock())
    assert parent.flush(10) == 0
    parent.close()

    def child():
        p = Producer(mock())
        got = []
        for i in range(10):
            p.produce("fn", b"%d" % i, on_delivery=lambda e, m: got.append((e, m.value())))
        assert p.flush(10) == 0
        assert sorted(got) == [(None, b"%d" % i) for i in range(10)]
        p.close()

    for _ in range(3):
        assert _fork_and(child) == 0
    parent = Producer(mock())
    got = []
    parent.produce("fn", b"parent", on_delivery=lambda e, m: got.append(e))
    assert parent.flush(10) == 0 and got == [None]
    parent.close()


@needs_fork
@pytest.mark.parametrize("how", ["close", "del"])
def test_fork_child_dropping_consumer_leaves_parent_working(how):
    p = Producer(mock())
    for i in range(5):
        p.produce("fc", b"%d" % i, partition=0)
    assert p.flush(10) == 0
    b = p.list_topics(timeout=10).brokers[1]
    c = Consumer({"bootstrap.servers": "%s:%d" % (b.host, b.port), "group.id": "fc",
                  "log_level": 0})
    c.assign([TopicPartition("fc", 0, 0)])
    first = c.poll(10)
    assert first is not None and first.error() is None

    def child():
        nonlocal c
        if how == "close":
            c.close()
        else:
            del c
            gc.collect()

    assert _fork_and(child) == 0
    rest = []
    end = time.monotonic() + 10
    while len(rest) < 4 and time.monotonic() < end:
        rest.extend(m.value() for m in c.consume(10, 0.2) if m.error() is None)
    assert rest == [b"1", b"2", b"3", b"4"]
    c.close()
    p.close()


# -- closed consumer --


CONSUMER_CALLS = [
    ("poll", (0,)), ("consume", (1, 0)), ("subscribe", (["t"],)), ("unsubscribe", ()),
    ("assign", ([TopicPartition("t", 0)],)), ("unassign", ()), ("assignment", ()),
    ("incremental_assign", ([TopicPartition("t", 0)],)),
    ("incremental_unassign", ([TopicPartition("t", 0)],)),
    ("commit", (None, [TopicPartition("t", 0, 1)])), ("committed", ([TopicPartition("t", 0)],)),
    ("position", ([TopicPartition("t", 0)],)), ("seek", (TopicPartition("t", 0, 1),)),
    ("pause", ([TopicPartition("t", 0)],)), ("resume", ([TopicPartition("t", 0)],)),
    ("store_offsets", (None, [TopicPartition("t", 0, 1)])),
    ("get_watermark_offsets", (TopicPartition("t", 0),)),
    ("offsets_for_times", ([TopicPartition("t", 0, 0)],)), ("memberid", ()),
    ("consumer_group_metadata", ()), ("list_topics", ()), ("set_sasl_credentials", ("u", "p")),
    ("cluster_id", (1,)),
]


@pytest.mark.parametrize("name,args", CONSUMER_CALLS, ids=[c[0] for c in CONSUMER_CALLS])
def test_closed_consumer_raises_runtime_error(name, args):
    c = Consumer(unreachable(**{"group.id": "g"}))
    c.subscribe(["t"])
    c.close()
    with pytest.raises(RuntimeError) as ei:
        getattr(c, name)(*args)
    assert "closed" in str(ei.value)
    c.close()          # twice is fine


def test_consumer_context_manager():
    with Consumer(unreachable(**{"group.id": "g"})) as c:
        assert isinstance(c, Consumer)
        c.subscribe(["t"])
    with pytest.raises(RuntimeError):
        c.poll(0)


def test_init_twice_refused():
    p = Producer(unreachable())
    with pytest.raises(RuntimeError):
        p.__init__(unreachable())
    p.close(0)
    c = Consumer(unreachable(**{"group.id": "g"}))
    with pytest.raises(RuntimeError):
        c.__init__(unreachable(**{"group.id": "g"}))
    c.close()


def test_messages_outlive_their_producer():
    msgs = []
    p = Producer(mock())
    p.produce("mo", b"value", key=b"key", headers=[("h", b"v")],
              on_delivery=lambda e, m: msgs.append(m))
    p.close()
    del p
    gc.collect()
    m = msgs[0]
    # a delivery report carries no headers, as confluent-kafka's
    assert (m.topic(), m.value(), m.key(), m.headers(), m.error()) == \
        ("mo", b"value", b"key", None, None)


# -- callback reference counts --


class Callback:
    def __init__(self):
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1


def test_refcount_after_reports_served():
    cb = Callback()
    base = sys.getrefcount(cb)
    p = Producer(mock())
    for i in range(100):
        p.produce("rc", b"x", on_delivery=cb)
    assert sys.getrefcount(cb) == base + 100      # one reference per outstanding message
    assert p.flush(10) == 0
    assert cb.calls == 100
    assert sys.getrefcount(cb) == base
    p.close()
    assert sys.getrefcount(cb) == base


def test_refcount_after_purge():
    cb = Callback()
    base = sys.getrefcount(cb)
    p = Producer(unreachable())
    for i in range(50):
        p.produce("t", b"x", on_delivery=cb)
    p.purge()
    assert p.flush(5) == 0
    assert cb.calls == 50 and sys.getrefcount(cb) == base
    p.close()


def test_refcount_after_close_with_outstanding():
    cb = Callback()
    base = sys.getrefcount(cb)
    p = Producer(unreachable())
    for i in range(50):
        p.produce("t", b"x", on_delivery=cb)
    p.close(0)
    assert cb.calls == 50 and sys.getrefcount(cb) == base


def test_refcount_after_gc_with_outstanding():
    cb = Callback()
    base = sys.getrefcount(cb)
    p = Producer(unreachable())
    for i in range(50):
        p.produce("t", b"x", on_delivery=cb)
    del p
    gc.collect()
    assert cb.calls == 0 and sys.getrefcount(cb) == base


def test_refcount_after_failed_produce():
    cb = Callback()
    base = sys.getrefcount(cb)
    p = Producer(unreachable(**{"queue.buffering.max.messages": 1}))
    p.produce("t", b"x", on_delivery=cb)
    with pytest.raises(BufferError, match="Queue full"):
        p.produce("t", b"y", on_delivery=cb)
    with pytest.raises(TypeError, match="value must be bytes"):
        p.produce("t", 5, on_delivery=cb)
    with pytest.raises(TypeError, match="headers must be"):
        p.produce("t", b"y", headers=5, on_delivery=cb)
    # produce_batch does not raise: the message it could not enqueue carries the error
    batch = [{"value": b"z", "on_delivery": cb}]
    assert p.produce_batch("t", batch) == 0
    assert batch[0]["_error"].code() == KafkaError._QUEUE_FULL
    del batch
    assert sys.getrefcount(cb) == base + 1
    p.purge()
    assert p.flush(5) == 0
    assert cb.calls == 1 and sys.getrefcount(cb) == base
    p.close()


def test_refcount_after_raising_callback():
    class Raising(Callback):
        def __call__(self, *args):
            super().__call__(*args)
            raise ValueError("no")

    cb = Raising()
    base = sys.getrefcount(cb)
    p = Producer(unreachable())
    for i in range(5):
        p.produce("t", b"x", on_delivery=cb)
    p.purge()
    assert flush_until_it_stops_raising(p, ValueError) == 5
    assert cb.calls == 5
    assert sys.getrefcount(cb) == base
    p.close()


def test_refcount_of_configured_callbacks():
    cbs = {k: Callback() for k in ("on_delivery", "error_cb", "stats_cb", "throttle_cb")}
    base = {k: sys.getrefcount(v) for k, v in cbs.items()}
    p = Producer(unreachable(**cbs))
    p.close(0)
    del p
    gc.collect()
    ccbs = {"on_commit": Callback(), "error_cb": Callback()}
    cbase = {k: sys.getrefcount(v) for k, v in ccbs.items()}
    assign = Callback()
    abase = sys.getrefcount(assign)
    c = Consumer(unreachable(**{"group.id": "g"}, **ccbs))
    c.subscribe(["t"], on_assign=assign, on_revoke=assign, on_lost=assign)
    c.close()
    del c
    gc.collect()
    assert {k: sys.getrefcount(v) for k, v in cbs.items()} == base
    assert {k: sys.getrefcount(v) for k, v in ccbs.items()} == cbase
    assert sys.getrefcount(assign) == abase


def test_close_reports_outstanding_as_purged():
    # close(0) does not wait: what is still queued is purged and its report served
    errs = []
    p = Producer(unreachable())
    p.produce("t", b"x", on_delivery=lambda e, m: errs.append(e.code()))
    p.close(0)
    assert errs == [KafkaError._PURGE_QUEUE]


@pytest.mark.parametrize("kind,call", [("producer", "poll"), ("producer", "flush"),
                                       ("consumer", "poll"), ("consumer", "consume")])
def test_close_while_other_threads_wait(kind, call):
    """close() from one thread while others wait in poll()/flush()/consume(): their waits end,
    later calls raise RuntimeError, and the handle is freed only once nobody is inside
    librdkafka."""
    import threading

    conf = unreachable(**{"message.timeout.ms": 600000})
    if kind == "producer":
        h = confluent_binding.Producer(conf)
        h.produce("t", b"never delivered")      # flush() has something to wait for
    else:
        h = confluent_binding.Consumer(dict(conf, **{"group.id": "g"}))
        h.subscribe(["t"])
    wait = {"poll": lambda: h.poll(5.0), "flush": lambda: h.flush(5.0),
            "consume": lambda: h.consume(10, 5.0)}[call]
    waiting = threading.Barrier(4)
    outcomes = []

    def worker():
        waiting.wait()
        try:
            while True:
                wait()
        except RuntimeError as exc:
            outcomes.append(str(exc))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    waiting.wait()
    # consume() counts itself in for the whole call (its messages are kept until handed
    # over), and once more for each GIL-free wait inside it
    inside = 3 * (2 if call == "consume" else 1)
    deadline = time.monotonic() + 10
    while h._calls_inside() < inside and time.monotonic() < deadline:
        time.sleep(0.01)
    assert h._calls_inside() == inside
    t0 = time.monotonic()
    h.close(0) if kind == "producer" else h.close()
    assert time.monotonic() - t0 < 1.0
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)
    assert outcomes == ["Producer has been closed" if kind == "producer"
                        else "Consumer closed"] * 3


@pytest.mark.parametrize("kind", ["producer-flush", "producer-poll", "consumer-poll",
                                  "consumer-consume"])
def test_close_from_a_callback_it_is_serving_raises(kind):
    # The call serving the callback can never end once its client is closed under it: close()
    # refuses (confluent-kafka crashes here), the exception comes out of the serving call, and
    # the client stays usable and closes normally afterwards.
    box = {"closing": True}

    def stats_cb(_json):
        if box["closing"]:
            box["client"].close()

    conf = unreachable(**{"statistics.interval.ms": 50, "stats_cb": stats_cb})
    if kind.startswith("producer"):
        client = box["client"] = Producer(conf)
        serve = client.flush if kind == "producer-flush" else client.poll
        client.produce("t", b"v")
    else:
        client = box["client"] = Consumer(dict(conf, **{"group.id": "g"}))
        serve = client.poll if kind == "consumer-poll" else (lambda t: client.consume(1, t))
    with pytest.raises(RuntimeError, match=r"close\(\) called from a callback"):
        for _ in range(100):    # the first statistics come within one interval
            serve(1.0)
    box["closing"] = False
    assert client._calls_inside() == 0
    client.close(0) if kind.startswith("producer") else client.close()


def test_many_threads_produce_while_one_polls():
    """Eight threads produce into one producer while a ninth serves delivery reports: every
    message is reported exactly once, successfully, and only on a serving thread."""
    import threading

    p = Producer(mock())
    threads_n, per_thread = 8, 2000
    reports = []
    served_on = set()

    def on_delivery(err, msg):
        served_on.add(threading.get_ident())
        reports.append((err, msg.key()))

    start = threading.Barrier(threads_n + 1)
    stop = threading.Event()

    def producer(t):
        start.wait()
        for i in range(per_thread):
            p.produce("mt", b"%d" % i, key=b"%d-%d" % (t, i), on_delivery=on_delivery)

    def poller():
        while not stop.is_set():
            p.poll(0.05)

    workers = [threading.Thread(target=producer, args=(t,)) for t in range(threads_n)]
    serving = threading.Thread(target=poller)
    serving.start()
    for w in workers:
        w.start()
    start.wait()
    for w in workers:
        w.join(60)
    assert not any(w.is_alive() for w in workers)
    assert p.flush(60) == 0
    stop.set()
    serving.join(10)
    assert [e for e, _ in reports if e is not None] == []
    keys = [k for _, k in reports]
    assert len(keys) == threads_n * per_thread
    assert set(keys) == {b"%d-%d" % (t, i) for t in range(threads_n) for i in range(per_thread)}
    assert served_on <= {serving.ident, threading.get_ident()}
    p.close()
