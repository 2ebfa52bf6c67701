"""AP2 (asyncio) and P2 (synchronous) of confluent_binding in one process each, for a profiler:
the per-message CPU of the thread that produces (the loop thread for asyncio) and of the whole
process, and how often the loop was woken to serve delivery reports.

    python bench/aio_profile.py --shape AP2 [--count 1000000] [--bootstrap host:port]
    python bench/aio_profile.py --shape P2  ...

AP2 is the benchmark's shape (bench/runners/skeleton.py ``produce_awaited``): ``fut = await
produce(topic, value, partition=0)`` for batches of 1000, up to 100 batches in flight, the oldest
batch's futures awaited one by one. P2 is the synchronous client's: ``produce(...,
on_delivery=cb)``, ``poll(0)`` every 1000, ``flush()``. Same settings as the benchmark
(harness/settings.py); a fresh one-partition topic per run. Under ``perf record -g`` (pinned:
``taskset -c 1``), the difference of the two runs' samples per symbol is where the asyncio
client's extra time per message goes (bench/results/aio/PROFILE.md).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import os
import resource
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _local_broker import broker  # noqa: E402
from harness import settings  # noqa: E402

from confluent_binding import Producer  # noqa: E402
from confluent_binding.admin import AdminClient, NewTopic  # noqa: E402
from confluent_binding.aio import AIOProducer  # noqa: E402

CHUNK = 1000


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Clock:
    def __init__(self):
        self.t, self.cpu, self.thread = time.perf_counter(), _cpu(), time.thread_time()

    def report(self, shape, n, **extra):
        t, cpu, thread = time.perf_counter() - self.t, _cpu() - self.cpu, \
            time.thread_time() - self.thread
        line = ("%s: %d msgs, %.0f msgs/s, process %.3f CPU-s/M, producing thread %.3f CPU-s/M"
                % (shape, n, n / t, cpu / n * 1e6, thread / n * 1e6))
        print(line + "".join(", %s %s" % kv for kv in extra.items()))


def p2(conf, topic, n):
    p = Producer(conf)
    value, ok = b"x" * 100, [0]

    def cb(err, _msg):
        if err is None:
            ok[0] += 1
    send, serve = p.produce, p.poll
    gc0 = gc.get_stats()[0]["collections"]
    clock = Clock()
    for _ in range(n // CHUNK):
        for _ in range(CHUNK):
            send(topic, value, partition=0, on_delivery=cb)
        serve(0)
    p.flush(120)
    clock.report("P2 (sync)", n, gen0_collections=gc.get_stats()[0]["collections"] - gc0)
    assert ok[0] == n // CHUNK * CHUNK
    p.close()


async def ap2(conf, topic, n, window):
    p = AIOProducer(conf)
    send, value = p.produce, b"x" * 100
    wakeups = [0]
    serve = p._serve

    def counting():
        wakeups[0] += 1
        return serve()
    p._wakeup._on_ready = counting
    in_flight, ok = collections.deque(), 0
    gc0 = gc.get_stats()[0]["collections"]
    clock = Clock()
    for _ in range(n // CHUNK):
        in_flight.append([await send(topic, value, partition=0) for _ in range(CHUNK)])
        if len(in_flight) >= window:
            for fut in in_flight.popleft():
                ok += (await fut) is not None
    while in_flight:
        for fut in in_flight.popleft():
            ok += (await fut) is not None
    await p.flush()
    clock.report("AP2 (asyncio)", n, loop_wakeups=wakeups[0],
                 gen0_collections=gc.get_stats()[0]["collections"] - gc0)
    assert ok == n // CHUNK * CHUNK
    await p.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", choices=("AP2", "P2"), required=True)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--window", type=int, default=settings.AP2_WINDOW,
                    help="AP2: batches of %d in flight" % CHUNK)
    ap.add_argument("--bootstrap", help="a running broker (default: start one)")
    args = ap.parse_args()
    with broker(args.bootstrap, prefix="bench-aio-profile-") as (bootstrap, _cluster):
        topic = "aio-profile-" + uuid.uuid4().hex[:8]
        admin = AdminClient({"bootstrap.servers": bootstrap})
        for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
            f.result()
        conf = settings.librdkafka_producer()
        conf["bootstrap.servers"] = bootstrap
        try:
            if args.shape == "P2":
                p2(conf, topic, args.count)
            else:
                asyncio.run(ap2(conf, topic, args.count, args.window))
        finally:
            for f in admin.delete_topics([topic]).values():
                f.result()


if __name__ == "__main__":
    main()
