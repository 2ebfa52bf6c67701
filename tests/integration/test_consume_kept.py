"""A poll()/consume()/consume_arrow() call that raises after taking messages from librdkafka (a
callback it serves raised, Ctrl-C, no memory) loses none of them: the next call delivers them
first, so every offset arrives exactly once and in order."""

import os
import signal
import threading
import time

import pytest

import confluent_binding as kafka

from tests.support import wait_until

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.integration

CALLS = ["poll", "consume", "consume_arrow"]


def _fill(kafka_cluster, topic, partitions, per_partition, size=100):
    p = kafka.Producer(kafka_cluster.client_config(linger_ms=5))
    for part in range(partitions):
        for i in range(per_partition):
            p.produce(topic, b"%d-%d-" % (part, i) + b"x" * size, b"k%d" % i, partition=part)
    assert p.flush(30) == 0


def _trickle(kafka_cluster, topic, partitions, per_partition):
    """Produces in the background, 100 records per flush: they arrive while the consumer
    reads, between its callbacks' events. Returns the thread to join."""
    def run():
        p = kafka.Producer(kafka_cluster.client_config(linger_ms=1))
        for start in range(0, per_partition, 100):
            for part in range(partitions):
                for i in range(start, min(start + 100, per_partition)):
                    p.produce(topic, b"%d-%d-" % (part, i) + b"x" * 100, partition=part)
            assert p.flush(30) == 0

    t = threading.Thread(target=run)
    t.start()
    return t


def _consumer(kafka_cluster, topic, partitions, **extra):
    conf = {"group.id": "kept-%s" % topic, "enable.auto.commit": False}
    conf.update(extra)
    c = kafka.Consumer(kafka_cluster.client_config(**conf))
    c.assign([kafka.TopicPartition(topic, p, 0) for p in range(partitions)])
    return c


def _call(c, call, n, timeout):
    if call == "consume_arrow":
        return c.consume_arrow(n, timeout)
    return c.consume(n, timeout) if call == "consume" else [c.poll(timeout)]


def _records(result):
    """[(partition, offset, value)] of one call's result (error events fail the test)."""
    if isinstance(result, pa.RecordBatch):
        return list(zip(result.column("partition").to_pylist(),
                        result.column("offset").to_pylist(), result.column("value").to_pylist()))
    out = []
    for m in result:
        if m is None:
            continue
        assert m.error() is None, m.error()
        out.append((m.partition(), m.offset(), m.value()))
    return out


def _read(c, call, n=100, timeout=0.5):
    return _records(_call(c, call, n, timeout))


def _collect(c, call, total, exc_type, timeout=90, n=100):
    """Reads until ``total`` records arrived; returns (records, how many calls raised
    exc_type, the most messages a raising call left for the next)."""
    got, raised, kept = [], 0, 0
    deadline = time.monotonic() + timeout
    while len(got) < total and time.monotonic() < deadline:
        try:
            got.extend(_read(c, call, n))
        except exc_type:
            raised += 1
            kept = max(kept, c._kept())
    return got, raised, kept


def _assert_exactly_once(got, partitions, per_partition):
    for part in range(partitions):
        mine = [(o, v) for p, o, v in got if p == part]
        assert [o for o, _ in mine] == list(range(per_partition)), "partition %d" % part
        assert all(v.startswith(b"%d-%d-" % (part, o)) for o, v in mine)
    assert len(got) == partitions * per_partition


@pytest.mark.parametrize("call", CALLS)
def test_a_raising_stats_cb_loses_nothing(kafka_cluster, make_topic, call):
    topic = make_topic(2)
    producing = _trickle(kafka_cluster, topic, 2, 1500)
    failing = [True]

    def stats_cb(_):
        if failing[0]:
            raise RuntimeError("stats_cb failed")

    # statistics every 10 ms, between the records
    c = _consumer(kafka_cluster, topic, 2, stats_cb=stats_cb, statistics_interval_ms=10)
    got, raised, kept = _collect(c, call, 3000, RuntimeError, n=50)
    producing.join()
    failing[0] = False
    c.close()
    _assert_exactly_once(got, 2, 1500)
    assert raised > 0
    if call != "poll":  # a poll() that serves a callback returns before it takes a message
        assert kept > 0


@pytest.mark.parametrize("call", ["consume", "consume_arrow"])
def test_a_raising_on_commit_loses_nothing(kafka_cluster, make_topic, call):
    topic = make_topic(1)
    producing = _trickle(kafka_cluster, topic, 1, 3000)
    failing = [True]

    def on_commit(err, parts):
        if failing[0]:
            raise ValueError("on_commit failed")

    c = _consumer(kafka_cluster, topic, 1, on_commit=on_commit)
    got, raised, kept = [], 0, 0
    deadline = time.monotonic() + 90
    while len(got) < 3000 and time.monotonic() < deadline:
        if len(got) < 2500:
            c.commit(asynchronous=True)
        try:
            got.extend(_read(c, call, 50))
        except ValueError:
            raised += 1
            kept = max(kept, c._kept())
    producing.join()
    failing[0] = False
    c.close()
    _assert_exactly_once(got, 1, 3000)
    assert raised > 0 and kept > 0


@pytest.mark.parametrize("call", ["consume", "consume_arrow"])
def test_ctrl_c_during_the_wait_loses_nothing(kafka_cluster, make_topic, call):
    topic = make_topic(1)
    _fill(kafka_cluster, topic, 1, 10)
    c = _consumer(kafka_cluster, topic, 1)
    first = []
    assert wait_until(lambda: first, lambda: first.extend(_read(c, call, 1, 1.0)), 30)
    # The other nine are in the consumer's queue now: the next call takes them at once, then
    # waits for more (GIL-free, in chunks) until SIGINT interrupts it.
    waiting = threading.Event()

    def interrupt():
        # inside twice: the call counted in, and one of its GIL-free waits
        if wait_until(lambda: c._calls_inside() >= 2, lambda: time.sleep(0.005), 30):
            waiting.set()
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=interrupt)
    # Ctrl-C's handler, also in a suite started in the background (which ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        t.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            _read(c, call, 1000, 60)
        t.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert waiting.is_set() and time.monotonic() - started < 30
    assert c._kept() == 9
    rest = _read(c, call, 1000, 0)
    assert c._kept() == 0
    c.close()
    _assert_exactly_once(first + rest, 1, 10)


@pytest.mark.parametrize("call", CALLS)
def test_memory_errors_lose_nothing(kafka_cluster, make_topic, call):
    """Every allocation of the call failing in turn (CPython's allocator hooks), then reading
    on: whatever the failing allocation was, each record arrives once."""
    testcapi = pytest.importorskip("_testcapi")
    topic = make_topic(1)
    _fill(kafka_cluster, topic, 1, 400)
    c = _consumer(kafka_cluster, topic, 1)
    got = []
    # the first records in the queue first: then the failing calls find some at once
    assert wait_until(lambda: got, lambda: got.extend(_read(c, call, 1, 1.0)), 30)
    failed = kept = 0
    # consume_arrow() makes few Python objects once it took messages (the batch is imported in
    # one step): there every allocation fails in turn, so that one of those is among them
    for nth in range(1, 100) if call == "consume_arrow" else range(1, 300, 3):
        result = []
        testcapi.set_nomemory(nth, nth + 1)
        try:
            result = _call(c, call, 5, 0)
        except MemoryError:
            failed += 1
        finally:
            testcapi.remove_mem_hooks()
        kept = max(kept, c._kept())
        got.extend(_records(result))
    rest, _, _ = _collect(c, call, 400 - len(got), MemoryError)
    c.close()
    _assert_exactly_once(got + rest, 1, 400)
    assert failed > 0 and kept > 0


def test_a_batch_ends_before_a_record_that_does_not_fit(kafka_cluster, make_topic):
    from confluent_binding._core import _arrow_column_limit

    topic = make_topic(1)
    _fill(kafka_cluster, topic, 1, 50, size=100)
    c = _consumer(kafka_cluster, topic, 1)
    old = _arrow_column_limit(250)  # two ~105-byte values per batch
    try:
        sizes, got = [], []
        deadline = time.monotonic() + 60
        while len(got) < 50 and time.monotonic() < deadline:
            b = c.consume_arrow(1000, 0.5)
            if b.num_rows:
                sizes.append(b.num_rows)
            got.extend(zip(b.column("partition").to_pylist(), b.column("offset").to_pylist(),
                           b.column("value").to_pylist()))
        _assert_exactly_once(got, 1, 50)
        assert max(sizes) == 2
        # a record larger than a column can hold: OverflowError, and it stays for poll()
        _arrow_column_limit(10)
        _fill(kafka_cluster, topic, 1, 1, size=100)
        with pytest.raises(OverflowError):
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                c.consume_arrow(1000, 0.5)
        assert c._kept() == 1
    finally:
        _arrow_column_limit(old)
    m = c.poll(0)
    assert (m.offset(), m.value()) == (50, b"0-0-" + b"x" * 100)
    c.close()


def test_an_error_event_ends_a_batch_and_loses_no_rows(kafka_cluster, make_topic):
    topic = make_topic(2)
    _fill(kafka_cluster, topic, 1, 200)
    c = _consumer(kafka_cluster, topic, 1, auto_offset_reset="error")
    # partition 1 from an offset past its end: an error event among partition 0's records
    c.assign([kafka.TopicPartition(topic, 0, 0), kafka.TopicPartition(topic, 1, 100)])
    got, errors = [], []
    deadline = time.monotonic() + 60
    while (len(got) < 200 or not errors) and time.monotonic() < deadline:
        try:
            got.extend(_read(c, "consume_arrow", 30))
        except kafka.KafkaException as e:
            errors.append(e.args[0].code())
    c.close()
    _assert_exactly_once(got, 1, 200)
    assert errors and set(errors) == {kafka.KafkaError._AUTO_OFFSET_RESET}
