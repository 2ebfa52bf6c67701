"""AIOProducer: confluent-kafka's asyncio producer API on the event-driven engine."""

import asyncio
import functools

from .._core import DeliveryFuture, KafkaError, Producer, _aio_produce, _AioPath, _AioProducerBase
from ..error import KafkaException
from ._engine import (
    Background,
    Deadline,
    HandleCalls,
    LoopWatch,
    Wakeup,
    _waiter_threads,
    report_error,
    wrap_callbacks,
)

__all__ = ["AIOProducer"]

_CLOSED = "Producer has been closed"
_HURRY_PIECE = 0.5      # seconds a thread spends in librdkafka's flush call at a time


def _settle(fut, on_delivery, err, msg):
    """Delivery report of one message: resolve its future (unless its awaiting task gave up on
    it: the report is still served, once) and call the caller's own callback."""
    if not fut.done():
        if err is None:
            fut.set_result(msg)
        else:
            fut.set_exception(KafkaException(err))
    if on_delivery is not None:
        on_delivery(err, msg)


class AIOProducer(HandleCalls, _AioProducerBase):
    """An asyncio producer with confluent-kafka 2.16's ``confluent_kafka.aio.AIOProducer`` API.

    Created inside a running loop. ``await produce(...)`` enqueues the message and returns a
    :class:`DeliveryFuture` (asyncio's future protocol; not a subclass of ``asyncio.Future``)
    that resolves to the delivered :class:`Message` (or raises :class:`KafkaException`; an
    exact ``bytes`` value is read in place, not copied, and is the Message's value); when
    librdkafka's queue is full it waits for room, served by the loop, instead of raising
    BufferError. Delivery reports and every callback (``error_cb``, ``stats_cb``,
    ``throttle_cb`` may be coroutine functions) are served on the loop thread when librdkafka
    signals the loop. Only :meth:`flush` (and so :meth:`close`) has a waiter thread sit in
    librdkafka's flush call, which serves nothing and makes librdkafka send at once.

    ``max_workers``, ``executor``, ``batch_size`` and ``buffer_timeout`` are accepted for
    compatibility and unused: there is no thread pool and no Python-side batching (librdkafka
    batches, ``linger.ms`` applies).
    """

    _client_type: type = Producer

    def __init__(self, producer_conf=None, max_workers=4, executor=None, batch_size=1000,
                 buffer_timeout=1.0, **kwargs):
        self._loop = asyncio.get_running_loop()
        self._closed = True
        self._background = Background(self._loop)
        conf = dict(producer_conf or {}, **kwargs)
        self._fast = None
        self._producer = self._client_type(wrap_callbacks(conf, self._background))
        try:
            self._wakeup = Wakeup(self._loop, self._producer, self._serve, _CLOSED)
            self._watch = LoopWatch(self)
        except BaseException:
            self._producer.close(0)
            raise
        self._closed = False
        # produce()'s compiled path, while open: the delivery report resolves the future inside
        # the serving call. A serializing producer's produce() must run (it serializes).
        if self._client_type is Producer:
            self._fast = _AioPath(self._producer, self._loop)

    # -- the engine: serve what librdkafka signalled --

    def _serve(self):
        """Serve every ready delivery report and callback without blocking (loop thread)."""
        if self._closed:
            return 0
        try:
            return self._producer.poll(0)
        except Exception as exc:     # a user callback raised; nobody awaits this serve
            report_error(self._loop, exc, "a producer callback")
            return 1

    def _client(self):
        return self._producer

    def _check_open(self):
        if self._closed:
            raise RuntimeError(_CLOSED)

    # -- producing --

    # produce(topic, value=None, key=None, partition=-1, on_delivery=None, timestamp=0,
    # headers=None, callback=None): a compiled coroutine that enqueues the message and returns
    # its DeliveryFuture; it awaits _produce() for what it does not do itself
    produce = _aio_produce

    async def _produce(self, topic, value, key, partition, on_delivery, timestamp, headers,
                       callback):
        """produce() with a callback of the caller's, through a serializing producer, or while
        librdkafka's queue is full (then it waits for room on the loop)."""
        if self._closed:
            raise RuntimeError(_CLOSED)
        cb = on_delivery or callback
        fast = self._fast is not None and cb is None
        while True:
            try:
                if fast:
                    # the delivery report resolves the future inside the serving call
                    return self._producer._produce_delivery(topic, value, key, partition,
                                                            timestamp, headers, self._loop)
                fut = DeliveryFuture(loop=self._loop)
                self._producer.produce(topic, value, key, partition=partition,
                                       on_delivery=functools.partial(_settle, fut, cb),
                                       timestamp=timestamp, headers=headers)
                return fut
            except BufferError:
                if not self._serve():           # nothing ready: wait for the next report
                    await self._wakeup.wait()
                self._check_open()

    async def poll(self, timeout=0):
        """Serve delivery reports and callbacks; wait up to ``timeout`` seconds (-1: forever)
        for the first. Returns how many were served."""
        self._check_open()
        deadline = Deadline(self._loop, timeout)
        while True:
            served = self._producer.poll(0)
            if served or timeout == 0 or deadline.passed():
                return served
            await self._wakeup.wait(deadline.left())
            self._check_open()

    async def flush(self, timeout=-1):
        """Wait until every message is delivered and its report served, or ``timeout``
        seconds passed; returns how many are still outstanding."""
        self._check_open()
        deadline = Deadline(self._loop, timeout)
        self._serve()
        hurry = None
        try:
            while len(self._producer) and not deadline.passed():
                if hurry is None or hurry.done():
                    # librdkafka ignores linger.ms only while a thread is inside its flush
                    # call: one waits there in short pieces, while the loop serves the reports
                    if hurry is not None and not hurry.cancelled():
                        hurry.exception()       # closed meanwhile: _check_open() says so
                    hurry = self._loop.run_in_executor(
                        _waiter_threads(), self._producer._send_now, _HURRY_PIECE)
                left = deadline.left()
                await self._wakeup.wait(_HURRY_PIECE if left is None else min(left, _HURRY_PIECE))
                self._check_open()
                self._serve()
            if hurry is not None and not hurry.done() and not len(self._producer):
                # everything delivered: the thread's flush call returns at once. Waiting for
                # it means linger.ms holds again for what is produced after flush() returns
                # (while a thread is inside librdkafka's flush, new messages go out at once)
                await asyncio.wait((hurry,))
        finally:
            if hurry is not None and not hurry.done():
                hurry.cancel()      # the thread's piece ends on its own, within _HURRY_PIECE
        return len(self._producer)

    async def purge(self, in_queue=True, in_flight=True, blocking=True):
        """Purge queued and/or in-flight messages; their futures fail with ``_PURGE_QUEUE`` or
        ``_PURGE_INFLIGHT`` as the loop serves their reports (``await flush()`` waits for
        them). The loop is never blocked: librdkafka's broker threads purge their own queues
        after this returns, whatever ``blocking`` says (a broker thread may be busy, e.g.
        resolving a host name, for seconds)."""
        self._check_open()
        self._producer.purge(in_queue, in_flight, False)
        self._serve()

    def __len__(self):
        return 0 if self._closed else len(self._producer)

    # -- transactions --

    async def init_transactions(self, timeout=-1):
        """Initialise transactions for the ``transactional.id`` (fencing older producers with
        the same id); call once before :meth:`begin_transaction`. librdkafka's call is waited for
        off the loop, up to ``timeout`` seconds (-1: no limit), while the loop keeps running.

        Raises:
            KafkaException: with ``retriable()``/``fatal()`` as librdkafka says.
        """
        await self._ended(self._producer.init_transactions, timeout)

    async def begin_transaction(self):
        """Start a transaction: what is produced from now on commits or aborts together.

        Raises:
            KafkaException: ``_STATE`` without :meth:`init_transactions` or with a transaction open.
        """
        self._check_open()
        self._producer.begin_transaction()

    async def send_offsets_to_transaction(self, positions, group_metadata, timeout=-1):
        """librdkafka's call, made at once with ``timeout`` (it is not resumed in pieces: a
        timed-out attempt followed by another overlaps on the broker); it blocks the loop for
        the round trips to the group and transaction coordinators."""
        self._check_open()
        self._serve()
        self._producer.send_offsets_to_transaction(positions, group_metadata, timeout)

    async def commit_transaction(self, timeout=-1):
        """Deliver everything produced in the transaction (serving its reports), then
        commit."""
        deadline = Deadline(self._loop, timeout)
        if await self.flush(-1 if deadline.left() is None else deadline.left()):
            raise KafkaException(KafkaError(KafkaError._TIMED_OUT,
                                            "Transactional messages not delivered in time",
                                            retriable=True))
        left = deadline.left()
        await self._ended(self._producer.commit_transaction, -1 if left is None else left)

    async def abort_transaction(self, timeout=-1):
        """Abort the transaction: queued messages are purged (their futures fail with
        ``_PURGE_QUEUE``) and the broker discards what was written. Waited for off the loop, up
        to ``timeout`` seconds.
        """
        await self._ended(self._producer.abort_transaction, timeout)

    async def _ended(self, call, timeout):
        """init, commit or abort: one call with the whole timeout, waited for off the loop (the
        loop keeps serving the client). Resumed in timeout-0 pieces, librdkafka 2.15.1 aborted
        the process about once in 25 transactions ("Invalid transaction state transition
        attempted: CommittingTransaction -> AbortedNotAcked")."""
        self._check_open()
        return await self._loop.run_in_executor(_waiter_threads(), call, timeout)

    # -- lifetime --

    async def close(self):
        """Deliver what is outstanding, then free the producer. Tasks waiting for room get
        RuntimeError; every message's future is resolved (delivered, or failed when purged)."""
        if self._closed:
            return
        try:
            await self.flush()
        finally:
            if not self._closed:
                self._closed = True
                self._fast = None
                self._watch.close()
                self._wakeup.close()
                self._producer.close(0)     # purges what is left, serving each report once
                await self._background.drain()

    def _release(self):
        if getattr(self, "_closed", True):
            return False
        self._closed = True
        self._fast = None
        self._watch.close()
        self._wakeup.close()
        # dropped unsent, as an unclosed transport's buffer is: close(0) alone would flush,
        # which sends what waits for its linger, and a fast broker may acknowledge it first
        self._producer.purge()
        self._producer.close(0)     # serves the purge's reports: each future fails once
        return True
