"""The aiokafka face (``confluent_binding.aiokafka``) against the engine under it
(``confluent_binding.aio``), one shape at a time, for a profiler: CPU per message (of the loop
thread, and of the whole process), face and engine side by side.

    python bench/aiokafka_profile.py --shape C1 [--count 200000] [--bootstrap host:port]
                                     [--client face|engine|both] [--cprofile] [--no-gc]

Shapes as the benchmark's (bench/runners/skeleton.py): P1 ``await send(topic, value,
partition=0)`` per message, then ``flush()``; AP2 the same, the futures of each batch of 1000
awaited one by one, up to 100 batches in flight; C1 one record per ``getone()`` (engine:
``poll()``); C2 ``getmany(max_records=1000)`` (engine: ``consume(1000)``). A fresh
one-partition topic per produce run; the consume shapes read a topic filled once.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import gc
import os
import pstats
import resource
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# BENCH_PYTHONPATH: a copy of the built package to measure instead of the tree (as bench/run.py)
sys.path.insert(0, os.environ.get("BENCH_PYTHONPATH") or ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _local_broker import broker, fill  # noqa: E402
from harness import settings  # noqa: E402

from confluent_binding import aiokafka  # noqa: E402
from confluent_binding.admin import AdminClient, NewTopic  # noqa: E402
from confluent_binding.aio import AIOConsumer, AIOProducer  # noqa: E402

CHUNK = 1000


def _process_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
WINDOW = 100


def _topic(bootstrap):
    name = "aiokp-" + uuid.uuid4().hex[:8]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(name, 1, 1)]).values():
        f.result()
    return name


def _producer_conf(bootstrap):
    return dict(settings.librdkafka_producer(), **{"bootstrap.servers": bootstrap})


async def _face_producer(bootstrap, topic):
    p = aiokafka.AIOKafkaProducer(bootstrap_servers=bootstrap, **settings.aiokafka_producer())
    await p.start()
    await p.partitions_for(topic)
    return p, p.send, p.stop


async def _engine_producer(bootstrap, topic):
    p = AIOProducer(_producer_conf(bootstrap))
    return p, p.produce, p.close


async def produce(shape, make, bootstrap, n):
    topic = _topic(bootstrap)
    p, send, stop = await make(bootstrap, topic)
    value = b"x" * 100
    t0, p0 = time.thread_time(), _process_cpu()
    if shape == "P1":
        for _ in range(n):
            await send(topic, value, partition=0)
    else:
        flight = collections.deque()
        ok = 0
        for start in range(0, n, CHUNK):
            flight.append([await send(topic, value, partition=0)
                           for _ in range(min(CHUNK, n - start))])
            if len(flight) >= WINDOW:
                for fut in flight.popleft():
                    ok += (await fut) is not None
        while flight:
            for fut in flight.popleft():
                ok += (await fut) is not None
        assert ok == n, ok
    await p.flush()
    t, pt = time.thread_time() - t0, _process_cpu() - p0
    await stop()
    return t, pt


async def consume(shape, client, bootstrap, topic, n):
    group = "aiokp-" + uuid.uuid4().hex[:8]
    if client == "face":
        c = aiokafka.AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                      **settings.python_peer_consumer())
        await c.start()
        one = c.getone
        many = c.getmany
        stop = c.stop
        first = await c.getone()
        got = 1
        t0, p0 = time.thread_time(), _process_cpu()
        if shape == "C1":
            while got < n:
                await one()
                got += 1
        else:
            while got < n:
                for recs in (await many(timeout_ms=1000, max_records=1000)).values():
                    got += len(recs)
    else:
        conf = dict(settings.librdkafka_consumer(), **{"bootstrap.servers": bootstrap,
                                                      "group.id": group})
        c = AIOConsumer(conf)
        await c.subscribe([topic])
        stop = c.close
        first = None
        while first is None or first.error() is not None:
            first = await c.poll(1.0)
        got = 1
        t0, p0 = time.thread_time(), _process_cpu()
        if shape == "C1":
            poll = c.poll
            while got < n:
                m = await poll(1.0)
                if m is not None and m.error() is None:
                    got += 1
        else:
            cons = c.consume
            while got < n:
                got += len(await cons(1000, 1.0))
    t, pt = time.thread_time() - t0, _process_cpu() - p0
    await stop()
    return t, pt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="C1", choices=("P1", "AP2", "C1", "C2"))
    ap.add_argument("--client", default="both", choices=("face", "engine", "both"))
    ap.add_argument("--count", type=int, default=200000)
    ap.add_argument("--bootstrap")
    ap.add_argument("--topic", help="an already filled topic (consume shapes)")
    ap.add_argument("--cprofile", action="store_true", help="profile the face's run")
    ap.add_argument("--no-gc", action="store_true",
                    help="without the cycle collector (what it costs: the difference)")
    a = ap.parse_args()
    if a.no_gc:
        gc.disable()
    clients = ("engine", "face") if a.client == "both" else (a.client,)
    with broker(a.bootstrap) as (bootstrap, _cluster):
        topic = a.topic
        if a.shape in ("C1", "C2") and topic is None:
            topic = _topic(bootstrap)
            fill(bootstrap, topic, a.count)
        for client in clients:
            if a.shape in ("P1", "AP2"):
                make = _face_producer if client == "face" else _engine_producer
                run = produce(a.shape, make, bootstrap, a.count)
            else:
                run = consume(a.shape, client, bootstrap, topic, a.count)
            prof = cProfile.Profile() if a.cprofile and client == "face" else None
            if prof is not None:
                prof.enable()
            t, pt = asyncio.run(run)
            if prof is not None:
                prof.disable()
                pstats.Stats(prof).sort_stats("tottime").print_stats(18)
            print("%s %-6s %d msgs: loop thread %.3f CPU-s/M, process %.3f CPU-s/M"
                  % (a.shape, client, a.count, t / a.count * 1e6, pt / a.count * 1e6))


if __name__ == "__main__":
    main()
