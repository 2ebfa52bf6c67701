"""C3 in one process, for a profiler: Consumer.consume_arrow() over N x 100 B records of one
partition, with the rate and the CPU-seconds per million records between the first and the last
record.

    python bench/c3_profile.py [--count 4000000] [--batch 10000] [--bootstrap host:port]

With ``--perf-control FIFO`` the script writes ``enable`` to that FIFO at the first record and
``disable`` after the last, so that ``perf record -D -1 --control fifo:FIFO`` samples only the
consume (no interpreter start-up, no group join, no close); bench/results/columnar/PROFILE.md
has the commands. The C tool's counterpart is ``rdkafka_performance -G <group> -t <topic>
-b <bootstrap> -c N -B 10000 -X fetch.queue.backoff.ms=10`` (its whole process).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _local_broker import broker, fill  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _perf(fifo, command: bytes) -> None:
    if fifo:
        fd = os.open(fifo, os.O_WRONLY)
        try:
            os.write(fd, command + b"\n")
        finally:
            os.close(fd)


def consume(bootstrap: str, topic: str, count: int, batch: int, fifo) -> tuple:
    import pyarrow  # noqa: F401  (imported before anything is timed)

    import confluent_binding as kafka

    c = kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "c3-%s" % uuid.uuid4().hex,
                        "auto.offset.reset": "earliest", "fetch.queue.backoff.ms": 10})
    c.subscribe([topic])
    n, t0, c0 = 0, None, 0.0
    while n < count:
        k = c.consume_arrow(batch, 1.0).num_rows
        if k and t0 is None:
            _perf(fifo, b"enable")
            t0, c0 = time.perf_counter(), _cpu()
        n += k
    t1, c1 = time.perf_counter(), _cpu()
    _perf(fifo, b"disable")
    c.close()
    return n / (t1 - t0), (c1 - c0) / (n / 1e6)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=4_000_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--topic", help="an existing topic of --count records (else one is filled)")
    ap.add_argument("--bootstrap")
    ap.add_argument("--perf-control", help="perf's control FIFO")
    args = ap.parse_args()
    with broker(args.bootstrap, "bench-c3-") as (bootstrap, cluster):
        topic = args.topic
        if topic is None:
            topic = "bench-c3-%s" % uuid.uuid4().hex[:8]
            cluster.create_topic(topic, partitions=1)
            fill(bootstrap, topic, args.count)
        for rnd in range(args.rounds):
            rate, cpu = consume(bootstrap, topic, args.count, args.batch, args.perf_control)
            print("round %d  %10.0f msgs/s  %.3f CPU-s per M messages" % (rnd, rate, cpu),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
