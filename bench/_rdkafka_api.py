"""The workload loops for clients with confluent-kafka's API (confluent_binding, confluent-kafka).

Both modules run exactly this code, so any difference is the binding's.
"""

from __future__ import annotations

import os
import time

from _common import (BATCH, CHUNK, FIRST_MESSAGE_TIMEOUT, IDLE_TIMEOUT, Run, deadline, main_guard,
                     parse_args, payload)

# performance notes §6.3: the settings held equal for every librdkafka-based client.
PRODUCER_CONF = {
    "acks": "-1",
    "linger.ms": "5",
    "batch.size": "1048576",
    "max.in.flight.requests.per.connection": "5",
    "enable.idempotence": "false",
    "compression.type": "none",
    "queue.buffering.max.messages": "1000000",
}
CONSUMER_CONF = {
    "auto.offset.reset": "earliest",
    "isolation.level": "read_uncommitted",
    "enable.auto.commit": "true",
    "auto.commit.interval.ms": "5000",
    # librdkafka stops fetching for fetch.queue.backoff.ms (default 1000) whenever its
    # queue holds >= queued.min.messages; a consumer slower than the broker then idles for most
    # of each second. Held equal (and low) for every librdkafka client, the C tool included.
    "fetch.queue.backoff.ms": os.environ.get("BENCH_FETCH_QUEUE_BACKOFF_MS", "10"),
}
RETRY_TIMEOUT = 120.0    # a full queue that does not drain for this long fails the run


def _produce(kafka, run: Run, with_callback: bool) -> None:
    a = run.args
    p = kafka.Producer(dict(PRODUCER_CONF, **{"bootstrap.servers": a.bootstrap}))
    value, topic, n = payload(a.size), a.topic, a.count
    produce, poll = p.produce, p.poll
    ok = err = 0
    retries = 0
    first_error = []

    def on_delivery(e, msg):
        nonlocal ok, err
        if e is None:
            ok += 1
        else:
            err += 1
            if not first_error:
                first_error.append(str(e))

    def retry(cb):
        # Queue full: serve delivery reports and try again; never drop a message.
        nonlocal retries
        stop = deadline(RETRY_TIMEOUT)
        while time.monotonic() < stop:
            retries += 1
            poll(0.01)
            try:
                if cb is None:
                    produce(topic, value, partition=0)
                else:
                    produce(topic, value, partition=0, on_delivery=cb)
                return
            except BufferError:
                continue
        raise RuntimeError("producer queue stayed full for %.0f s" % RETRY_TIMEOUT)

    rss_every = a.rss_every
    sent = 0
    # Two copies of the loop so that each call site is spelled exactly as an application would.
    if not with_callback:
        run.start()
        while sent < n:
            k = CHUNK if n - sent >= CHUNK else n - sent
            for _ in range(k):
                try:
                    produce(topic, value, partition=0)
                except BufferError:
                    retry(None)
            sent += k
            poll(0)
            if sent % rss_every == 0:
                run.sample(sent)
    else:
        cb = on_delivery
        run.start()
        while sent < n:
            k = CHUNK if n - sent >= CHUNK else n - sent
            for _ in range(k):
                try:
                    produce(topic, value, partition=0, on_delivery=cb)
                except BufferError:
                    retry(cb)
            sent += k
            poll(0)
            if sent % rss_every == 0:
                run.sample(sent)
    left = p.flush(120)
    run.stop(sent, sent * a.size)
    if left or len(p):
        run.problem("%d messages still outstanding after flush" % max(left, len(p)))
    if with_callback and (ok != n or err):
        run.problem("delivery reports: %d ok, %d failed, expected %d ok%s"
                    % (ok, err, n, (" (first error: %s)" % first_error[0]) if first_error else ""))
    run.finish(delivered_ok=ok if with_callback else None, delivery_errors=err,
               queue_full_retries=retries)


def _consumer(kafka, run: Run):
    a = run.args
    c = kafka.Consumer(dict(CONSUMER_CONF, **{"bootstrap.servers": a.bootstrap, "group.id": a.group}))
    c.subscribe([a.topic])
    return c


def _consume_one(kafka, run: Run) -> None:
    a = run.args
    c = _consumer(kafka, run)
    poll, n_want, rss_every = c.poll, a.count, a.rss_every
    first = None
    stop = deadline(FIRST_MESSAGE_TIMEOUT)
    while first is None and time.monotonic() < stop:
        m = poll(1.0)
        if m is not None:
            if m.error() is not None:
                run.problem("error event before the first message: %s" % m.error())
                break
            first = m
    if first is None:
        run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
        c.close()
        run.finish()
        return
    run.start()
    run.checkpoint(0, first.offset(), first.value())
    n, nbytes = 1, len(first.value())
    idle_since = None
    errors = 0
    while n < n_want:
        m = poll(1.0)
        if m is None:
            now = time.monotonic()
            idle_since = idle_since or now
            if now - idle_since > IDLE_TIMEOUT:
                break
            continue
        if m.error() is not None:
            errors += 1
            run.problem("error event: %s" % m.error())
            if errors > 10:
                break
            continue
        v = m.value()
        nbytes += len(v)
        if n % CHUNK == 0:
            run.checkpoint(n, m.offset(), v)
            if n % rss_every == 0:
                run.sample(n)
        n += 1
    run.stop(n, nbytes)
    run.check_consumed(n, nbytes)
    c.close()
    run.finish()


def _consume_batch(kafka, run: Run) -> None:
    a = run.args
    c = _consumer(kafka, run)
    consume, n_want, rss_every = c.consume, a.count, a.rss_every
    msgs = []
    stop = deadline(FIRST_MESSAGE_TIMEOUT)
    while not msgs and time.monotonic() < stop:
        msgs = consume(BATCH, 1.0)
    if not msgs:
        run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
        c.close()
        run.finish()
        return
    run.start()
    n = nbytes = 0
    next_sample = rss_every
    idle_since = None
    errors = 0
    while True:
        if msgs:
            idle_since = None
            k = 0
            for m in msgs:
                if m.error() is not None:
                    errors += 1
                    run.problem("error event: %s" % m.error())
                    continue
                nbytes += len(m.value())
                k += 1
            if k:
                good = msgs if k == len(msgs) else [m for m in msgs if m.error() is None]
                run.checkpoint(n, good[0].offset(), good[0].value())
                if good[-1].offset() != n + k - 1:
                    run.problem("batch at #%d: last offset %d, expected %d (lost or duplicated)"
                                % (n, good[-1].offset(), n + k - 1))
                n += k
                if n >= next_sample:
                    run.sample(n)
                    next_sample += rss_every
            if n >= n_want or errors > 10:
                break
        else:
            now = time.monotonic()
            idle_since = idle_since or now
            if now - idle_since > IDLE_TIMEOUT:
                break
        msgs = consume(BATCH if n_want - n >= BATCH else n_want - n, 1.0)
    run.stop(n, nbytes)
    run.check_consumed(n, nbytes)
    c.close()
    run.finish()


def main(kafka, client: str, version: str) -> int:
    args = parse_args()
    run = Run(client, version, kafka.libversion()[0], args)
    body = {
        "P1": lambda r: _produce(kafka, r, False),
        "P2": lambda r: _produce(kafka, r, True),
        "C1": lambda r: _consume_one(kafka, r),
        "C2": lambda r: _consume_batch(kafka, r),
    }[args.workload]
    return main_guard(run, body)
