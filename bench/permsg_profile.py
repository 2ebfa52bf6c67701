"""P2, C1 or C2 of one client in one process, for an instruction-count profiler: the benchmark's
loops (bench/runners/skeleton.py) over N x 100 B messages of one partition, with the settings of
bench/harness/settings.py. Also the consumers' bare shapes that ``bench/consume_bound.py`` times:
C1b (``poll()``, no accessor), C2b (``consume()``, no loop over the list), C2a
(``consume_arrow(1000)``, no object per record).

    python bench/permsg_profile.py --client confluent_binding --shape C1 --count 200000 \
        --bootstrap HOST:PORT [--topic TOPIC] [--callgrind]

Prints, last, a JSON line of the measured window: messages, msgs_per_s, loop_util (the loop
thread's CPU time over the window's wall time) and cpu_s_per_m (the process's, every thread).

P2: ``produce(topic, value, partition=0, on_delivery=cb)``, ``poll(0)`` every 1000, ``flush()``.
C1: ``poll(1.0)`` per message. C2: ``consume(1000, 1.0)``. Consumers read ``--topic`` (a topic of
at least ``--count`` records, e.g. filled by ``rdkafka_performance -P``) in a new group. Each
consumed message's ``error()`` and ``value()`` are read, as the benchmark does.

With ``--callgrind`` (the process runs under ``valgrind --tool=callgrind``) the counters are
zeroed (``callgrind_control -z``) once the first message is produced or received and dumped
(``callgrind_control -d``) after the last one, so the dump holds the instructions of exactly the
measured window, every thread included: divide by ``--count`` for instructions per message.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import settings  # noqa: E402

CHUNK = settings.CHUNK


def _mark(enabled: bool, command: str) -> None:
    if enabled:
        subprocess.run(["callgrind_control", command, str(os.getpid())], check=True,
                       stdout=subprocess.DEVNULL)
    clocks = (time.monotonic(), time.thread_time(), time.process_time())
    if command == "-z":
        WINDOW[:] = clocks
    else:
        WINDOW[:] = [b - a for a, b in zip(WINDOW, clocks)]


WINDOW: list = []   # the measured window: wall, loop-thread CPU, process CPU (seconds)


def p2(kafka, bootstrap: str, n: int, cg: bool) -> None:
    from confluent_binding.admin import AdminClient, NewTopic

    topic = "permsg-p2-%s" % uuid.uuid4().hex[:8]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(60)
    p = kafka.Producer(dict(settings.librdkafka_producer(), **{"bootstrap.servers": bootstrap}))
    p.list_topics(topic, 30)
    value, ok = bytes(100), [0]

    def cb(err, _msg):
        if err is None:
            ok[0] += 1

    send, serve = p.produce, p.poll
    _mark(cg, "-z")
    for _ in range(n // CHUNK):
        for _ in range(CHUNK):
            while True:
                try:
                    send(topic, value, partition=0, on_delivery=cb)
                    break
                except BufferError:
                    serve(0.01)
        serve(0)
    left = p.flush(120)
    _mark(cg, "-d")
    assert left == 0 and ok[0] == n, (left, ok[0])


def _consumer(kafka, bootstrap: str, topic: str):
    c = kafka.Consumer(dict(settings.librdkafka_consumer(), **{
        "bootstrap.servers": bootstrap, "group.id": "permsg-%s" % uuid.uuid4().hex}))
    c.subscribe([topic])
    return c


def c1(kafka, bootstrap: str, topic: str, n: int, cg: bool) -> None:
    c = _consumer(kafka, bootstrap, topic)
    poll, got, size = c.poll, 0, 0
    while True:     # the first message: group joined, fetching
        m = poll(1.0)
        if m is not None and m.error() is None:
            got, size = 1, len(m.value())
            break
    _mark(cg, "-z")
    while got < n:
        m = poll(1.0)
        if m is None or m.error() is not None:
            continue
        got += 1
        size += len(m.value())
    _mark(cg, "-d")
    assert size == 100 * n, size
    c.close()


def c1_warm(kafka, bootstrap: str, topic: str, n: int, cg: bool) -> None:
    """C1 with the loop body in a function entered once per 1000 messages: CPython 3.11
    specialises (quickens) a function's bytecode only after it was entered a few times, never
    a long loop inside a function entered once."""
    c = _consumer(kafka, bootstrap, topic)
    poll = c.poll

    def chunk(k):
        got = size = 0
        while got < k:
            m = poll(1.0)
            if m is None or m.error() is not None:
                continue
            got += 1
            size += len(m.value())
        return size

    size = sum(chunk(1) for _ in range(10))    # entered 10 times: quickened
    _mark(cg, "-z")
    for _ in range((n - 10) // CHUNK):
        size += chunk(CHUNK)
    size += chunk((n - 10) % CHUNK)
    _mark(cg, "-d")
    assert size == 100 * n, size
    c.close()


def c2(kafka, bootstrap: str, topic: str, n: int, cg: bool) -> None:
    c = _consumer(kafka, bootstrap, topic)
    fetch, got, size = c.consume, 0, 0
    while got == 0:
        for m in fetch(1, 1.0):
            if m.error() is None:
                got, size = 1, len(m.value())
    _mark(cg, "-z")
    while got < n:
        for m in fetch(min(settings.BATCH, n - got), 1.0):
            if m.error() is None:
                got += 1
                size += len(m.value())
    _mark(cg, "-d")
    assert size == 100 * n, size
    c.close()


def c1_bare(kafka, bootstrap: str, topic: str, n: int, cg: bool) -> None:
    """C1 without reading the message: what poll() costs when the application does nothing."""
    c = _consumer(kafka, bootstrap, topic)
    poll, got = c.poll, 0
    while poll(1.0) is None:
        pass
    _mark(cg, "-z")
    while got < n - 1:
        if poll(1.0) is not None:
            got += 1
    _mark(cg, "-d")
    c.close()


def _batches(c, fetch, rows, n: int, cg: bool) -> None:
    """Batches of up to C2's size from ``fetch`` until ``n`` records (``rows(batch)`` each)."""
    got = 0
    while got == 0:
        got = rows(fetch(1, 1.0))
    _mark(cg, "-z")
    while got < n:
        got += rows(fetch(min(settings.BATCH, n - got), 1.0))
    _mark(cg, "-d")
    c.close()


def c2_bare(kafka, bootstrap: str, topic: str, n: int, cg: bool) -> None:
    """C2 without a loop over the list: consume() and the Messages' deallocation only."""
    c = _consumer(kafka, bootstrap, topic)
    _batches(c, c.consume, len, n, cg)


def c2_arrow(kafka, bootstrap: str, topic: str, n: int, cg: bool) -> None:
    """consume_arrow() in C2's batches of 1000: no Python object per record."""
    c = _consumer(kafka, bootstrap, topic)
    _batches(c, c.consume_arrow, lambda batch: batch.num_rows, n, cg)


SHAPES = {"C1": c1, "C1w": c1_warm, "C2": c2, "C1b": c1_bare, "C2b": c2_bare, "C2a": c2_arrow}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--client", choices=["confluent_binding", "confluent_kafka"], required=True)
    ap.add_argument("--shape", choices=["P2", *SHAPES], required=True)
    ap.add_argument("--count", type=int, default=200_000)
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", help="consumers: a topic of at least --count records")
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    kafka = importlib.import_module(a.client)
    print(a.client, "from", kafka.__file__, flush=True)
    t0 = time.perf_counter()
    if a.shape == "P2":
        p2(kafka, a.bootstrap, a.count, a.callgrind)
    else:
        SHAPES[a.shape](kafka, a.bootstrap, a.topic, a.count, a.callgrind)
    print("%s %s: %d messages in %.1f s" % (a.client, a.shape, a.count, time.perf_counter() - t0))
    wall, loop_cpu, cpu = WINDOW
    print(json.dumps({"messages": a.count, "msgs_per_s": a.count / wall,
                      "loop_util": loop_cpu / wall, "cpu_s_per_m": cpu / a.count * 1e6}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
