"""What asyncio itself costs per message on the default event loop, with no Kafka at all: the
floor under the asyncio rows of the benchmark (AP2, P2, AT2).

Each line times one shape of asyncio work N times in a fresh loop (CPU time of this process,
best of --repeat runs, garbage collector on as in the real runs) and prints ns per message:

- ``await`` of a coroutine that returns at once (P2 awaits produce() per message);
- a done-callback with ``asyncio.Future``: ``add_done_callback`` + ``set_result`` + the loop
  running the callback's Handle (one per callback: what DeliveryFuture's batches avoid);
- the benchmark's own P2 callback (``cancelled()``, ``exception()``, a counter);
- AT2's shape: a task per message started by ``gather`` in batches of 1000, awaiting a future
  resolved later (task creation, its two steps, gather's bookkeeping), with ``asyncio.Future``;
- ``await`` of a future already done, ``asyncio.Future`` and ``DeliveryFuture`` (AP2 awaits
  each delivery, most of them done by then);
- the produce call alone, ``Producer.produce()`` and ``await AIOProducer.produce()``, with the
  message only queued (a linger no run reaches; then purged);
- for scale, the same shapes with Kafka work: the synchronous Producer's P2 and AIOProducer's
  AP2, P2 and AT2 on librdkafka's mock cluster (in this process: its threads' CPU counts too).

Run: ``.venv/bin/python bench/aio_floor.py`` (pinned: ``taskset -c 1 ...``). Markdown out.
"""

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from confluent_binding import Producer  # noqa: E402
from confluent_binding.aio import AIOProducer, DeliveryFuture  # noqa: E402

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


async def await_done_future(n, loop):
    """``await fut`` on a future that is already done (AP2 awaits each delivery that way)."""
    futs = []
    for _ in range(BATCH):
        f = loop.create_future()
        f.set_result(1)
        futs.append(f)
    return await _await_all(futs, n)


async def await_done_delivery_future(n, loop):
    futs = []
    for _ in range(BATCH):
        f = DeliveryFuture(loop=loop)
        f.set_result(1)
        futs.append(f)
    return await _await_all(futs, n)


async def _await_all(futs, n):
    t = time.process_time()
    for _ in range(n // BATCH):
        for f in futs:
            await f
    return time.process_time() - t


# librdkafka's mock cluster with a linger no run reaches: the messages only queue (the cost of
# the produce call itself), then they are purged
QUEUE_ONLY = {"test.mock.num.brokers": 1, "linger.ms": 60000,
              "queue.buffering.max.messages": 10000000}


async def produce_call_sync(n, _loop):
    """``Producer.produce(topic, value, partition=0)``, the message only queued."""
    p = Producer(QUEUE_ONLY)
    send, value = p.produce, b"x" * 100
    t = time.process_time()
    for _ in range(n):
        send("floor", value, partition=0)
    took = time.process_time() - t
    p.purge()
    p.flush()
    p.close()
    return took


async def produce_call_aio(n, _loop):
    """``await AIOProducer.produce(topic, value, partition=0)``, the message only queued."""
    p = AIOProducer(QUEUE_ONLY)
    send, value = p.produce, b"x" * 100
    t = time.process_time()
    for _ in range(n):
        await send("floor", value, partition=0)
    took = time.process_time() - t
    await p.purge()
    await p.close()
    return took


async def aio_ap2(n, _loop):
    """Ours, AP2's shape (batches of futures in flight, the oldest batch's awaited one by one),
    on the mock cluster."""
    p = AIOProducer(MOCK)
    value = b"x" * 100
    in_flight = []
    ok = 0
    t = time.process_time()
    for _ in range(n // BATCH):
        in_flight.append([await p.produce("floor", value, partition=0) for _ in range(BATCH)])
        if len(in_flight) >= 10:
            for f in in_flight.pop(0):
                ok += (await f) is not None
    for batch in in_flight:
        for f in batch:
            ok += (await f) is not None
    await p.flush()
    took = time.process_time() - t
    await p.close()
    assert ok == n // BATCH * BATCH
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
    ("await of a done asyncio.Future", await_done_future),
    ("await of a done DeliveryFuture", await_done_delivery_future),
    ("the produce call, message only queued: Producer.produce()", produce_call_sync),
    ("the produce call, message only queued: await AIOProducer.produce()", produce_call_aio),
    ("with Kafka (mock cluster): synchronous Producer, P2", producer_sync_p2),
    ("with Kafka (mock cluster): AIOProducer, AP2", aio_ap2),
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
