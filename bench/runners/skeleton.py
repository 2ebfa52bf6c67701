"""One produce loop and one consume loop for every client; a runner spells only its own calls.

A runner module defines a ``Client`` subclass (how to make a producer or consumer, which bound
calls produce and fetch, how a delivery is reported, how a message's value/offset/error are read)
and ends with ``sys.exit(main(TheClient()))``. The loops below do everything else, the same way
for every client: the clock, checkpoints, RSS samples, idle and error limits, the checks and the
JSON line (``runners.protocol``).

The loops are coroutines so that one text serves synchronous and asyncio clients. For a
synchronous client (``aio = False``) every hook is a coroutine that never suspends and the loop is
driven without an event loop (``drive``): nothing is awaited on the hot path, which stays what an
application would write (``produce(topic, value, partition=0)``, ``m = poll(1.0)``,
``m.value()``). For an asyncio client (``aio = True``) the hot calls return awaitables and the
loop runs under ``asyncio.run``.

Workloads: ``Client.workloads()`` maps a workload id to a coroutine function of the run; a client
adds one (e.g. a columnar consume) by extending that table, usually with ``consume_batches`` and
its own ``fetch`` and ``account`` (see bench/README.md).
"""

from __future__ import annotations

import asyncio
import collections
import time
from operator import attrgetter, methodcaller

from harness.settings import AP2_WINDOW, AT2_WINDOW, BATCH, CHUNK

from runners.protocol import (
    FIRST_MESSAGE_TIMEOUT,
    IDLE_TIMEOUT,
    Run,
    deadline,
    main_guard,
    parse_args,
    payload,
)

RETRY_TIMEOUT = 120.0  # a full producer queue that does not drain for this long fails the run
MAX_ERRORS = 10  # error events before a consumer run gives up


class Deliveries:
    """Delivery reports of one P2 run, counted by the client's callback."""

    __slots__ = ("expected", "ok", "err", "first_error")

    def __init__(self, expected: int):
        self.expected = expected
        self.ok = self.err = 0
        self.first_error = None

    def failed(self, what) -> None:
        self.err += 1
        if self.first_error is None:
            self.first_error = str(what)


class Client:
    """What a runner spells. Hooks are coroutines (see the module docstring); the callables that
    ``send``, ``serve``, ``poll_one`` and ``poll_batch`` return sit on the hot path: return the
    client's own bound methods where the call shape allows it."""

    name = ""  # the result key, as in harness.catalog
    aio = False  # hot calls return awaitables; the run happens on an asyncio event loop

    def versions(self) -> tuple:
        """(client version, librdkafka version or "")."""
        raise NotImplementedError

    def workloads(self) -> dict:
        return {
            "P1": lambda run: produce(self, run, with_callback=False),
            "P2": lambda run: produce(self, run, with_callback=True),
            "C1": lambda run: consume_one(self, run),
            "C2": lambda run: consume_batches(self, run, self.poll_batch, self.account_messages()),
            "AP2": lambda run: produce_awaited(self, run),
            "AT2": lambda run: produce_tasks(self, run),
        }

    # -- producer --
    async def producer(self, run: Run):
        """A producer for ``run.args``, ready to send (topic metadata fetched where the client
        would otherwise fetch it inside the timed window)."""
        raise NotImplementedError

    def send(self, producer):
        """``send(topic, value, partition=0[, on_delivery=cb])``; its result is awaited when
        ``aio`` and handed to the delivery tracker in P2."""
        raise NotImplementedError

    def delivery(self, producer, deliveries: Deliveries) -> tuple:
        """P2: ("on_delivery", cb) to call ``send(..., on_delivery=cb)``, or ("future", track) to
        call ``track(result of send)``; either counts into ``deliveries``."""
        raise NotImplementedError

    def serve(self, producer):
        """``serve(timeout)`` serving delivery reports (called every CHUNK sends and while the
        queue is full), or None for clients that serve them on their own."""
        return None

    async def flush(self, producer, deliveries) -> int:
        """Wait until everything is delivered (and, in P2, reported); returns what is left."""
        raise NotImplementedError

    async def close_producer(self, producer) -> None:
        pass

    # -- consumer --
    async def consumer(self, run: Run):
        """A consumer in group ``run.args.group`` subscribed to ``run.args.topic``."""
        raise NotImplementedError

    def poll_one(self, consumer):
        """``fetch(timeout_s)``: one message, or None when the timeout passed."""
        raise NotImplementedError

    def first_one(self, consumer):
        """Like ``poll_one``, for the wait before the first message (default: the same)."""
        return self.poll_one(consumer)

    def poll_batch(self, consumer):
        """``fetch(max_messages, timeout_s)``: a batch (empty when the timeout passed)."""
        raise NotImplementedError

    def message_fields(self) -> tuple:
        """(value_of, offset_of, error_of): read a message; error_of is None when the client raises
        instead of returning error events. Prefer C-level callables (unbound methods,
        ``operator.attrgetter``): they run once per message."""
        return attrgetter("value"), attrgetter("offset"), None

    def partitions(self, batch):
        """The per-partition lists of messages in one batch (each in offset order)."""
        return (batch,)

    async def close_consumer(self, consumer) -> None:
        pass

    def account_messages(self):
        return account_messages(self.partitions, *self.message_fields())


def track_futures(deliveries: Deliveries) -> tuple:
    """``Client.delivery`` of asyncio clients whose send returns a future: count each future's
    outcome when it is done."""

    def on_done(fut):
        if not fut.cancelled() and fut.exception() is None:
            deliveries.ok += 1
        else:
            deliveries.failed("cancelled" if fut.cancelled() else repr(fut.exception()))

    return "future", methodcaller("add_done_callback", on_done)


async def until_reported(deliveries) -> None:
    """After an asyncio client's flush: let the loop run the futures' last done-callbacks."""
    for _ in range(1000):
        if deliveries is None or deliveries.ok + deliveries.err >= deliveries.expected:
            return
        await asyncio.sleep(0)


# ---------------------------------------------------------------------------------------------
# the produce loop


async def produce(client: Client, run: Run, with_callback: bool) -> None:
    a = run.args
    p = await client.producer(run)
    d = Deliveries(a.count)
    retries = 0
    try:
        value, topic, n, aio = payload(a.size), a.topic, a.count, client.aio
        send, serve = client.send(p), client.serve(p)
        on_delivery = track = None
        if with_callback:
            kind, fn = client.delivery(p, d)
            if kind == "on_delivery":
                on_delivery = fn
            elif kind == "future":
                track = fn
            else:
                raise ValueError("delivery(): unknown kind %r" % kind)

        def retry():
            # Queue full: serve delivery reports and try again; never drop a message.
            nonlocal retries
            stop = deadline(RETRY_TIMEOUT)
            while time.monotonic() < stop:
                retries += 1
                serve(0.01)
                try:
                    if on_delivery is None:
                        return send(topic, value, partition=0)
                    return send(topic, value, partition=0, on_delivery=on_delivery)
                except BufferError:
                    continue
            raise RuntimeError("producer queue stayed full for %.0f s" % RETRY_TIMEOUT)

        rss_every = a.rss_every
        sent = 0
        run.start()
        while sent < n:
            k = CHUNK if n - sent >= CHUNK else n - sent
            for _ in range(k):
                try:
                    if on_delivery is None:
                        r = send(topic, value, partition=0)
                    else:
                        r = send(topic, value, partition=0, on_delivery=on_delivery)
                except BufferError:
                    r = retry()
                if aio:
                    r = await r
                if track is not None:
                    track(r)
            sent += k
            if serve is not None:
                serve(0)
            if sent % rss_every == 0:
                run.sample(sent)
        left = await client.flush(p, d if with_callback else None)
        run.stop(sent, sent * a.size)
        if left:
            run.problem("%d messages still outstanding after flush" % left)
        if with_callback and (d.ok != n or d.err):
            run.problem(
                "delivery reports: %d ok, %d failed, expected %d ok%s"
                % (d.ok, d.err, n, (" (first error: %s)" % d.first_error) if d.first_error else "")
            )
    finally:
        await client.close_producer(p)
    run.finish(
        delivered_ok=d.ok if with_callback else None,
        delivery_errors=d.err,
        queue_full_retries=retries,
    )


async def _windowed(run: Run, n: int, start, settle, window: int) -> int:
    """AP2, AT2: ``await start(k)`` makes a batch of k <= CHUNK messages in flight; with
    ``window`` batches in flight the oldest is ``await settle(batch)``-d; at the end all are.
    Returns how many were sent."""
    in_flight = collections.deque()
    rss_every = run.args.rss_every
    sent = 0
    run.start()
    while sent < n:
        k = CHUNK if n - sent >= CHUNK else n - sent
        in_flight.append(await start(k))
        sent += k
        if len(in_flight) >= window:
            await settle(in_flight.popleft())
        if sent % rss_every == 0:
            run.sample(sent)
    while in_flight:
        await settle(in_flight.popleft())
    return sent


def _check_awaited(run: Run, d: Deliveries, left: int) -> None:
    """AP2, AT2: nothing left after flush, every awaited delivery succeeded."""
    if left:
        run.problem("%d messages still outstanding after flush" % left)
    if d.ok != d.expected or d.err:
        run.problem(
            "deliveries: %d ok, %d failed, expected %d ok%s"
            % (d.ok, d.err, d.expected,
               (" (first error: %s)" % d.first_error) if d.first_error else "")
        )


async def _produce_windowed(client: Client, run: Run, shape, window: int) -> None:
    """AP2, AT2: ``shape(send, topic, value, deliveries)`` gives the ``start``/``settle`` pair
    that :func:`_windowed` runs with ``window`` batches in flight; then flush, and check every
    delivery."""
    a = run.args
    p = await client.producer(run)
    d = Deliveries(a.count)
    try:
        start, settle = shape(client.send(p), a.topic, payload(a.size), d)
        sent = await _windowed(run, a.count, start, settle, window)
        left = await client.flush(p, None)
        run.stop(sent, sent * a.size)
        _check_awaited(run, d, left)
    finally:
        await client.close_producer(p)
    run.finish(delivered_ok=d.ok, delivery_errors=d.err)


async def produce_awaited(client: Client, run: Run) -> None:
    """AP2 (asyncio clients): await each delivery, in batches, as a service would without a task
    per message: ``fut = await send(topic, value, partition=0)`` for CHUNK messages, up to
    AP2_WINDOW such batches in flight; when the window is full the oldest batch's futures are
    awaited one by one (``await fut``), each result checked (so the run measures the client,
    not one linger + round trip per batch)."""

    def shape(send, topic, value, d):
        async def settle(batch) -> None:
            for fut in batch:
                try:
                    r = await fut
                except Exception as e:
                    d.failed(repr(e))
                    continue
                if r is None:
                    d.failed("delivery future resolved to None")
                else:
                    d.ok += 1

        async def start(k):
            batch = []
            add = batch.append
            for _ in range(k):
                add(await send(topic, value, partition=0))
            return batch

        return start, settle

    await _produce_windowed(client, run, shape, AP2_WINDOW)


async def produce_tasks(client: Client, run: Run) -> None:
    """AT2 (asyncio clients): every message is a task that awaits its own delivery, as a service
    handling requests would: ``fut = await send(topic, value, partition=0)``, then ``await fut``.
    Tasks start in batches of CHUNK; up to AT2_WINDOW batches are in flight, then the oldest batch
    is awaited (so the run measures the client, not one linger + round trip per batch)."""

    def shape(send, topic, value, d):
        gather = asyncio.gather

        async def one():
            fut = await send(topic, value, partition=0)
            return await fut

        async def start(k):
            return gather(*[one() for _ in range(k)], return_exceptions=True)

        async def settle(batch) -> None:
            for r in await batch:
                if isinstance(r, BaseException):
                    d.failed(repr(r))
                else:
                    d.ok += 1

        return start, settle

    await _produce_windowed(client, run, shape, AT2_WINDOW)


# ---------------------------------------------------------------------------------------------
# the consume loops: one message per call, or batches


async def consume_one(client: Client, run: Run) -> None:
    c = await client.consumer(run)
    try:
        await _consume_one(client, run, c)
    finally:
        await client.close_consumer(c)
    run.finish()


async def _consume_one(client: Client, run: Run, c) -> None:
    a = run.args
    aio = client.aio
    value_of, offset_of, error_of = client.message_fields()
    first_fetch, fetch = client.first_one(c), client.poll_one(c)
    first = None
    stop = deadline(FIRST_MESSAGE_TIMEOUT)
    while first is None:
        left = stop - time.monotonic()
        if left <= 0:
            break
        m = first_fetch(min(left, 1.0))
        if aio:
            m = await m
        if m is not None and error_of is not None and error_of(m) is not None:
            run.problem("error event before the first message: %s" % error_of(m))
            return
        first = m
    if first is None:
        run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
        return
    run.start()
    v = value_of(first)
    run.checkpoint(0, offset_of(first), v)
    n, nbytes, n_want, rss_every = 1, len(v), a.count, a.rss_every
    idle_since, idle_at = 0.0, -1
    errors = 0
    # the next message number to check (every CHUNK): a comparison per message, where
    # ``n % CHUNK`` would be a global lookup and a division (the loop is the measured one)
    check_at = CHUNK
    while n < n_want:
        m = fetch(1.0)
        if aio:
            m = await m
        if m is None:
            now = time.monotonic()
            if idle_at != n:
                idle_since, idle_at = now, n
            elif now - idle_since > IDLE_TIMEOUT:
                break
            continue
        if error_of is not None and error_of(m) is not None:
            errors += 1
            run.problem("error event: %s" % error_of(m))
            if errors > MAX_ERRORS:
                break
            continue
        v = value_of(m)
        nbytes += len(v)
        if n == check_at:
            run.checkpoint(n, offset_of(m), v)
            if n % rss_every == 0:
                run.sample(n)
            check_at += CHUNK
        n += 1
    run.stop(n, nbytes)
    run.check_consumed(n, nbytes)


async def consume_batches(client: Client, run: Run, fetch_of, account, batch=BATCH) -> None:
    """Consume ``run.args.count`` messages in batches of up to ``batch``.

    ``fetch_of(consumer)`` gives ``fetch(max_messages, timeout_s)``; ``account(run, batch, n)``
    checks one batch whose first message is message number ``n`` and returns
    (messages, value bytes, error events) in it (``account_messages`` for lists of messages)."""
    c = await client.consumer(run)
    try:
        await _consume_batches(client, run, fetch_of(c), account, batch)
    finally:
        await client.close_consumer(c)
    run.finish()


async def _consume_batches(client: Client, run: Run, fetch, account, batch) -> None:
    a = run.args
    aio = client.aio
    n_want, rss_every = a.count, a.rss_every
    got = None
    stop = deadline(FIRST_MESSAGE_TIMEOUT)
    while not got and time.monotonic() < stop:
        got = fetch(batch, 1.0)
        if aio:
            got = await got
    if not got:
        run.problem("no message within %.0f s" % FIRST_MESSAGE_TIMEOUT)
        return
    run.start()
    n = nbytes = errors = 0
    next_sample = rss_every
    idle_since = None
    while True:
        if got:
            idle_since = None
            k, b, e = account(run, got, n)
            n += k
            nbytes += b
            errors += e
            if n >= next_sample:
                run.sample(n)
                next_sample += rss_every
            if n >= n_want or errors > MAX_ERRORS:
                break
        else:
            now = time.monotonic()
            idle_since = idle_since or now
            if now - idle_since > IDLE_TIMEOUT:
                break
        got = fetch(batch if n_want - n >= batch else n_want - n, 1.0)
        if aio:
            got = await got
    run.stop(n, nbytes)
    run.check_consumed(n, nbytes)


def account_messages(partitions, value_of, offset_of, error_of):
    """``account`` for batches of message objects: ``partitions(batch)`` yields per-partition
    lists; error events are counted and skipped; the first and last message of each list are
    checked against their index."""

    def account(run: Run, batch, n: int) -> tuple:
        total = nbytes = errors = 0
        for msgs in partitions(batch):
            k = 0
            for m in msgs:
                if error_of is not None and error_of(m) is not None:
                    errors += 1
                    run.problem("error event: %s" % error_of(m))
                    continue
                nbytes += len(value_of(m))
                k += 1
            if not k:
                continue
            good = msgs if k == len(msgs) else [m for m in msgs if error_of(m) is None]
            run.checkpoint(n, offset_of(good[0]), value_of(good[0]))
            last = offset_of(good[-1])
            if last != n + k - 1:
                run.problem(
                    "batch at #%d: last offset %d, expected %d (lost or duplicated)"
                    % (n, last, n + k - 1)
                )
            n += k
            total += k
        return total, nbytes, errors

    return account


# ---------------------------------------------------------------------------------------------


def drive(coro):
    """Run a coroutine that never suspends (a synchronous client's loop) without an event loop."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("a synchronous client's hook awaited something: set aio = True")


def main(client: Client) -> int:
    """A runner's entry point: parse the arguments, run the workload, print the JSON line."""
    table = client.workloads()
    args = parse_args(table)
    version, lib = client.versions()
    run = Run(client.name, version, lib, args)
    body = table[args.workload]
    if client.aio:
        return main_guard(run, lambda r: asyncio.run(body(r)))
    return main_guard(run, lambda r: drive(body(r)))
