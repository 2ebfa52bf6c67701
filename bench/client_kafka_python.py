"""Benchmark runner: kafka-python (pure Python). See bench/_common.py for the protocol.

P1 ``send()`` per message, ``flush()`` at the end; P2 the same plus ``add_callback`` /
``add_errback`` on each future (counters only); C1 the consumer iterator (one record per
``next()``); C2 ``poll(max_records=1000)``. Settings as in bench/_rdkafka_api.py where kafka-python
has them (acks=all, no idempotence, linger 5 ms, batch 1 MiB, 5 in flight, CRC checks off,
read_uncommitted).
"""

import logging
import sys
import time

import kafka
from kafka import KafkaConsumer, KafkaProducer

from _common import (BATCH, CHUNK, FIRST_MESSAGE_TIMEOUT, IDLE_TIMEOUT, Run, deadline, main_guard,
                     parse_args, payload)

logging.basicConfig(level=logging.ERROR)


def produce(run: Run, with_callback: bool) -> None:
    a = run.args
    p = KafkaProducer(bootstrap_servers=a.bootstrap, acks=-1, enable_idempotence=False, linger_ms=5,
                      batch_size=1048576, max_in_flight_requests_per_connection=5,
                      compression_type=None)
    p.partitions_for(a.topic)    # topic metadata before the clock starts: send() would block on it
    value, topic, n = payload(a.size), a.topic, a.count
    send = p.send
    ok = err = 0
    first_error = []

    def on_ok(_metadata):
        nonlocal ok
        ok += 1

    def on_err(exc):
        nonlocal err
        err += 1
        if not first_error:
            first_error.append(repr(exc))

    rss_every = a.rss_every
    sent = 0
    run.start()
    if not with_callback:
        while sent < n:
            k = CHUNK if n - sent >= CHUNK else n - sent
            for _ in range(k):
                send(topic, value=value, partition=0)
            sent += k
            if sent % rss_every == 0:
                run.sample(sent)
    else:
        while sent < n:
            k = CHUNK if n - sent >= CHUNK else n - sent
            for _ in range(k):
                send(topic, value=value, partition=0).add_callback(on_ok).add_errback(on_err)
            sent += k
            if sent % rss_every == 0:
                run.sample(sent)
    p.flush(timeout=300)
    run.stop(sent, sent * a.size)
    if with_callback and (ok != n or err):
        run.problem("delivery reports: %d ok, %d failed, expected %d ok%s"
                    % (ok, err, n, (" (first error: %s)" % first_error[0]) if first_error else ""))
    p.close(timeout=30)
    run.finish(delivered_ok=ok if with_callback else None, delivery_errors=err)


def _consumer(run: Run) -> KafkaConsumer:
    a = run.args
    return KafkaConsumer(a.topic, bootstrap_servers=a.bootstrap, group_id=a.group,
                         auto_offset_reset="earliest", enable_auto_commit=True,
                         auto_commit_interval_ms=5000, check_crcs=False,
                         isolation_level="read_uncommitted", consumer_timeout_ms=1000)


def consume_one(run: Run) -> None:
    a = run.args
    c = _consumer(run)
    nxt, n_want, rss_every = c.__next__, a.count, a.rss_every
    first = None
    stop = deadline(FIRST_MESSAGE_TIMEOUT)
    while first is None and time.monotonic() < stop:
        try:
            first = nxt()
        except StopIteration:
            pass
    if first is None:
        run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
        c.close()
        run.finish()
        return
    run.start()
    run.checkpoint(0, first.offset, first.value)
    n, nbytes = 1, len(first.value)
    idle_since = None
    while n < n_want:
        try:
            m = nxt()
        except StopIteration:   # consumer_timeout_ms without a record
            now = time.monotonic()
            idle_since = idle_since or now
            if now - idle_since > IDLE_TIMEOUT:
                break
            continue
        v = m.value
        nbytes += len(v)
        if n % CHUNK == 0:
            run.checkpoint(n, m.offset, v)
            if n % rss_every == 0:
                run.sample(n)
        n += 1
    run.stop(n, nbytes)
    run.check_consumed(n, nbytes)
    c.close()
    run.finish()


def consume_batch(run: Run) -> None:
    a = run.args
    c = _consumer(run)
    poll, n_want, rss_every = c.poll, a.count, a.rss_every
    got = {}
    stop = deadline(FIRST_MESSAGE_TIMEOUT)
    while not got and time.monotonic() < stop:
        got = poll(timeout_ms=1000, max_records=BATCH)
    if not got:
        run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
        c.close()
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
        got = poll(timeout_ms=1000, max_records=BATCH if n_want - n >= BATCH else n_want - n)
    run.stop(n, nbytes)
    run.check_consumed(n, nbytes)
    c.close()
    run.finish()


def main() -> int:
    args = parse_args()
    run = Run("kafka_python", kafka.__version__, "", args)
    body = {"P1": lambda r: produce(r, False), "P2": lambda r: produce(r, True),
            "C1": consume_one, "C2": consume_batch}[args.workload]
    return main_guard(run, body)


if __name__ == "__main__":
    sys.exit(main())
