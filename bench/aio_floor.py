"""What asyncio itself costs per message on the default event loop, with no Kafka at all: the
floor under the asyncio rows of the benchmark (P2, AT2).

Each line times one shape of asyncio work N times in a fresh loop (CPU time of this process,
best of --repeat runs, garbage collector on as in the real runs) and prints ns per message:

- ``await`` of a coroutine that returns at once (P2 awaits produce() per message);
- a done-callback with ``asyncio.Future``: ``add_done_callback`` + ``set_result`` + the loop
  running the callback's Handle (one per callback: what DeliveryFuture's batches avoid);
- the benchmark's own P2 callback (``cancelled()``, ``exception()``, a counter);
- AT2's shape: a task per message started by ``gather`` in batches of 1000, awaiting a future
  resolved later (task creation, its two steps, gather's bookkeeping), with ``asyncio.Future``;
- for scale, the same shapes with Kafka work: the synchronous Producer's P2 and AIOProducer's
  P2 and AT2 on librdkafka's mock cluster (in this process: its threads' CPU counts too).

Run: ``.venv/bin/python bench/aio_floor.py`` (pinned: ``taskset -c 1 ...``). Markdown out.
"""

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from confluent_binding import Producer  # noqa: E402
from confluent_binding.aio import AIOProducer  # noqa: E402

BATCH = 1000


def on_done_counter():
    count = [0]

    def on_done(fut):
        if not fut.cancelled() and fut.exception() is None:
            count[0] += 1
    return on_done


async def await_coroutine(n, _loop):
    async def ready(x):
        return x
    t = time.process_time()
    for _ in range(n):
        await ready(1)
    return time.process_time() - t


async def asyncio_future_callback(n, loop):
    on_done = on_done_counter()
    t = time.process_time()
    for _ in range(n // BATCH):
        futs = [loop.create_future() for _ in range(BATCH)]
        for f in futs:
            f.add_done_callback(on_done)
        for f in futs:
            f.set_result(None)
        await asyncio.sleep(0)
    return time.process_time() - t


MOCK = {"test.mock.num.brokers": 1, "linger.ms": 5, "queue.buffering.max.messages": 1000000}


async def aio_p2(n, _loop):
    """Ours, P2's shape, on librdkafka's mock cluster (in this process: its broker threads'
    CPU is counted too, as for the synchronous line)."""
    p = AIOProducer(MOCK)
    on_done = on_done_counter()
    value = b"x" * 100
    t = time.process_time()
    for _ in range(n):
        (await p.produce("floor", value, partition=0)).add_done_callback(on_done)
    await p.flush()
    await asyncio.sleep(0)
    took = time.process_time() - t
    await p.close()
    return took


async def aio_at2(n, _loop):
    """Ours, AT2's shape (a task per message awaiting its delivery), on the mock cluster."""
    p = AIOProducer(MOCK)
    value = b"x" * 100

    async def one():
        return await (await p.produce("floor", value, partition=0))
    t = time.process_time()
    for _ in range(n // BATCH):
        await asyncio.gather(*[one() for _ in range(BATCH)])
    took = time.process_time() - t
    await p.close()
    return took


async def producer_sync_p2(n, _loop):
    """The synchronous client's P2 on the same mock cluster, for scale."""
    p = Producer(MOCK)
    count = [0]

    def cb(err, _msg):
        if err is None:
            count[0] += 1
    t = time.process_time()
    for i in range(n):
        p.produce("floor", b"x" * 100, partition=0, on_delivery=cb)
        if i % 1000 == 0:
            p.poll(0)
    p.flush()
    took = time.process_time() - t
    p.close()
    return took


async def benchmark_callback(n, loop):
    on_done = on_done_counter()
    fut = loop.create_future()
    fut.set_result(None)
    t = time.process_time()
    for _ in range(n):
        on_done(fut)
    return time.process_time() - t


async def task_per_message(n, loop):
    async def one(f):
        return await f
    t = time.process_time()
    for _ in range(n // BATCH):
        futs = [loop.create_future() for _ in range(BATCH)]
        g = asyncio.gather(*[one(f) for f in futs])
        await asyncio.sleep(0)
        for f in futs:
            f.set_result(None)
        await g
    return time.process_time() - t


SHAPES = [
    ("await of a coroutine returning at once", await_coroutine),
    ("asyncio.Future + add_done_callback + set_result + the loop running the callback's Handle",
     asyncio_future_callback),
    ("P2's done-callback body (cancelled(), exception(), count)", benchmark_callback),
    ("AT2's shape: a task per message (gather, task, 2 steps, wake-up) on asyncio.Future",
     task_per_message),
    ("with Kafka (mock cluster): synchronous Producer, P2", producer_sync_p2),
    ("with Kafka (mock cluster): AIOProducer, P2", aio_p2),
    ("with Kafka (mock cluster): AIOProducer, AT2", aio_at2),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print("| per message, default asyncio loop (Python %s) | ns |" % sys.version.split()[0])
    print("|---|--:|")
    for label, fn in SHAPES:
        best = min(asyncio.run(_run(fn, a.count)) for _ in range(a.repeat))
        print("| %s | %.0f |" % (label, best / a.count * 1e9))


async def _run(fn, n):
    return await fn(n, asyncio.get_running_loop())


if __name__ == "__main__":
    main()
