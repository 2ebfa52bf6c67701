"""Benchmark runner: aiokafka (asyncio; the default event loop). See bench/_common.py.

P1 ``await send()`` per message (the returned future is not awaited), ``flush()`` at the end;
P2 the same plus ``add_done_callback`` on each future (counters only); C1 ``getone()``;
C2 ``getmany(max_records=1000)``. Settings as in bench/_rdkafka_api.py where aiokafka has them
(acks=all, no idempotence, linger 5 ms, batch 1 MiB, CRC checks off, read_uncommitted).
"""

import asyncio
import logging
import sys
import time

import aiokafka
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from _common import (BATCH, CHUNK, FIRST_MESSAGE_TIMEOUT, IDLE_TIMEOUT, Run, deadline, main_guard,
                     parse_args, payload)

logging.basicConfig(level=logging.ERROR)


async def produce(run: Run, with_callback: bool) -> None:
    a = run.args
    p = AIOKafkaProducer(bootstrap_servers=a.bootstrap, acks="all", enable_idempotence=False,
                         linger_ms=5, max_batch_size=1048576, compression_type=None)
    await p.start()
    try:
        await p.partitions_for(a.topic)   # topic metadata before the clock starts
        value, topic, n = payload(a.size), a.topic, a.count
        send = p.send
        ok = err = 0
        first_error = []

        def on_done(fut):
            nonlocal ok, err
            if not fut.cancelled() and fut.exception() is None:
                ok += 1
            else:
                err += 1
                if not first_error:
                    first_error.append(repr(fut.exception()) if not fut.cancelled() else "cancelled")

        rss_every = a.rss_every
        sent = 0
        run.start()
        if not with_callback:
            while sent < n:
                k = CHUNK if n - sent >= CHUNK else n - sent
                for _ in range(k):
                    await send(topic, value, partition=0)
                sent += k
                if sent % rss_every == 0:
                    run.sample(sent)
        else:
            while sent < n:
                k = CHUNK if n - sent >= CHUNK else n - sent
                for _ in range(k):
                    (await send(topic, value, partition=0)).add_done_callback(on_done)
                sent += k
                if sent % rss_every == 0:
                    run.sample(sent)
        await p.flush()
        for _ in range(1000):
            if not with_callback or ok + err >= n:
                break
            await asyncio.sleep(0)   # done-callbacks of the last futures are scheduled: run them
        run.stop(sent, sent * a.size)
        if with_callback and (ok != n or err):
            run.problem("delivery reports: %d ok, %d failed, expected %d ok%s"
                        % (ok, err, n, (" (first error: %s)" % first_error[0]) if first_error else ""))
    finally:
        await p.stop()
    run.finish(delivered_ok=ok if with_callback else None, delivery_errors=err)


def _consumer(run: Run) -> AIOKafkaConsumer:
    a = run.args
    return AIOKafkaConsumer(a.topic, bootstrap_servers=a.bootstrap, group_id=a.group,
                            auto_offset_reset="earliest", enable_auto_commit=True,
                            auto_commit_interval_ms=5000, check_crcs=False,
                            isolation_level="read_uncommitted")


async def consume_one(run: Run) -> None:
    a = run.args
    c = _consumer(run)
    await c.start()
    try:
        getone, n_want, rss_every = c.getone, a.count, a.rss_every
        try:
            first = await asyncio.wait_for(getone(), FIRST_MESSAGE_TIMEOUT)
        except asyncio.TimeoutError:
            run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
            run.finish()
            return
        run.start()
        run.checkpoint(0, first.offset, first.value)
        n, nbytes = 1, len(first.value)
        # getone() waits without a timeout: bench/run.py's per-run timeout bounds a stall.
        while n < n_want:
            m = await getone()
            v = m.value
            nbytes += len(v)
            if n % CHUNK == 0:
                run.checkpoint(n, m.offset, v)
                if n % rss_every == 0:
                    run.sample(n)
            n += 1
        run.stop(n, nbytes)
        run.check_consumed(n, nbytes)
    finally:
        await c.stop()
    run.finish()


async def consume_batch(run: Run) -> None:
    a = run.args
    c = _consumer(run)
    await c.start()
    try:
        getmany, n_want, rss_every = c.getmany, a.count, a.rss_every
        got = {}
        stop = deadline(FIRST_MESSAGE_TIMEOUT)
        while not got and time.monotonic() < stop:
            got = await getmany(timeout_ms=1000, max_records=BATCH)
        if not got:
            run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
            run.finish()
            return
        run.start()
        n = nbytes = 0
        next_sample = rss_every
        idle_since = None
        while True:
            if got:
                idle_since = None
                n, b = run.account_batches(got.values(), n)
                nbytes += b
                if n >= next_sample:
                    run.sample(n)
                    next_sample += rss_every
                if n >= n_want:
                    break
            else:
                now = time.monotonic()
                idle_since = idle_since or now
                if now - idle_since > IDLE_TIMEOUT:
                    break
            got = await getmany(timeout_ms=1000,
                                max_records=BATCH if n_want - n >= BATCH else n_want - n)
        run.stop(n, nbytes)
        run.check_consumed(n, nbytes)
    finally:
        await c.stop()
    run.finish()


def main() -> int:
    args = parse_args()
    run = Run("aiokafka", aiokafka.__version__, "", args)
    coro = {"P1": lambda r: produce(r, False), "P2": lambda r: produce(r, True),
            "C1": consume_one, "C2": consume_batch}[args.workload]
    return main_guard(run, lambda r: asyncio.run(coro(r)))


if __name__ == "__main__":
    sys.exit(main())
