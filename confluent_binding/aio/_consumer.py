"""AIOConsumer: confluent-kafka's asyncio consumer API on the event-driven engine."""

import asyncio
import collections

from .._core import Consumer, KafkaError
from ..error import KafkaException
from ._engine import Background, Deadline, HandleCalls, LoopWatch, Wakeup, wrap_callbacks

__all__ = ["AIOConsumer"]

_CLOSED = "Consumer closed"


class AIOConsumer(HandleCalls):
    """An asyncio consumer with confluent-kafka 2.16's ``confluent_kafka.aio.AIOConsumer`` API,
    plus ``async for msg in consumer``.

    Created inside a running loop. ``poll``/``consume`` serve librdkafka's queue without
    blocking and, when it is empty, wait on the loop until librdkafka signals it (or the
    timeout's loop timer fires). Rebalance callbacks (``on_assign``/``on_revoke``/``on_lost``
    given to :meth:`subscribe`), ``on_commit``, ``error_cb``, ``stats_cb`` and ``throttle_cb``
    may be plain functions or coroutine functions; they receive this AIOConsumer. The
    partitions of a rebalance are (un)assigned after a coroutine callback has finished (unless
    it did so itself), and no message is returned meanwhile.

    ``max_workers`` and ``executor`` are accepted for compatibility and unused (no threads).
    Calls that need one broker round trip and that librdkafka offers only as blocking calls
    (synchronous ``commit``, ``committed``, ``offsets_for_times``, uncached
    ``get_watermark_offsets``, ``list_topics``, ``close``) run on the loop thread with their
    timeout.
    """

    _client_type: type = Consumer

    def __init__(self, consumer_conf=None, max_workers=100, executor=None, **kwargs):
        self._loop = asyncio.get_running_loop()
        self._closed = True
        self._closing = False
        self._background = Background(self._loop)
        self._rebalancing = []
        self._user_assigned = False
        self._buffered = collections.deque()
        conf = wrap_callbacks(dict(consumer_conf or {}, **kwargs), self._background,
                              ("error_cb", "stats_cb", "throttle_cb", "oauth_cb", "on_commit"))
        self._consumer = self._client_type(conf)
        try:
            self._wakeup = Wakeup(self._loop, self._consumer, _nothing, _CLOSED)
            self._watch = LoopWatch(self)
        except BaseException:
            self._consumer.close()
            raise
        self._closed = False

    def _client(self):
        return self._consumer

    def _check_open(self):
        if self._closed or self._closing:
            raise RuntimeError(_CLOSED)

    # -- rebalances --

    def _rebalance_cb(self, kind, cb):
        if cb is None:
            return None

        def served(_consumer, partitions):
            task = self._background.run(cb(self, partitions))
            if task is not None and not self._closing:    # in close(): (un)assigned at once
                cooperative = self._consumer._defer_assignment()
                self._user_assigned = False
                self._rebalancing.append((task, kind, partitions, cooperative))
        return served

    async def _settle_rebalance(self):
        """Finish the rebalances whose coroutine callbacks are running: await each, then
        (un)assign as the group protocol requires unless the callback did."""
        while self._rebalancing:
            rebalance = self._rebalancing[0]
            task, kind, partitions, cooperative = rebalance
            if not task.done():
                # asyncio.wait, not gather: a caller cancelled here (a get* under wait_for)
                # neither cancels the callback nor drops the rebalance, which stays first in
                # line for the next call
                await asyncio.wait((task,))
            if not self._rebalancing or self._rebalancing[0] is not rebalance:
                continue        # another call waiting on it too finished it first
            self._rebalancing.pop(0)
            if self._user_assigned or self._closed:
                continue
            if kind == "assign":
                if cooperative:
                    self._consumer.incremental_assign(partitions)
                else:
                    self._consumer.assign(partitions)
            elif cooperative:
                self._consumer.incremental_unassign(partitions)
            else:
                self._consumer.unassign()

    async def subscribe(self, topics, on_assign=None, on_revoke=None, on_lost=None):
        """Join the group for ``topics`` (names, or ``^regex`` patterns), as
        :meth:`Consumer.subscribe <confluent_binding.Consumer.subscribe>`.

        ``on_assign``, ``on_revoke`` and ``on_lost`` are called as ``cb(consumer, partitions)`` with
        this AIOConsumer, from inside :meth:`poll`/:meth:`consume`; they may be coroutine functions,
        in which case the partitions are (un)assigned once the coroutine has finished, unless it
        called :meth:`assign`/:meth:`incremental_assign` (or the unassign calls) itself.
        """
        self._check_open()
        self._consumer.subscribe(topics, on_assign=self._rebalance_cb("assign", on_assign),
                                 on_revoke=self._rebalance_cb("revoke", on_revoke),
                                 on_lost=self._rebalance_cb("lost", on_lost))

    async def unsubscribe(self):
        """Leave the subscription; the assignment is revoked (``on_revoke`` runs in the next
        poll)."""
        self._check_open()
        self._consumer.unsubscribe()

    async def assign(self, partitions):
        """Replace the assignment with ``partitions`` (TopicPartitions; an offset set in one is
        where fetching starts). Inside a rebalance callback it replaces the automatic assignment.
        """
        self._check_open()
        self._user_assigned = True
        self._consumer.assign(partitions)

    async def unassign(self):
        """Drop the current assignment; inside a revoke callback it replaces the automatic one."""
        self._check_open()
        self._user_assigned = True
        self._consumer.unassign()

    async def incremental_assign(self, partitions):
        """Add ``partitions`` to the assignment (cooperative rebalancing, or manual assignment)."""
        self._check_open()
        self._user_assigned = True
        self._consumer.incremental_assign(partitions)

    async def incremental_unassign(self, partitions):
        """Remove ``partitions`` from the assignment (cooperative rebalancing, or manual
        assignment).
        """
        self._check_open()
        self._user_assigned = True
        self._consumer.incremental_unassign(partitions)

    async def assignment(self):
        """The partitions currently assigned (a list of TopicPartition)."""
        self._check_open()
        return self._consumer.assignment()

    # -- consuming --

    async def poll(self, timeout=-1):
        """The next message or event (a Message with error() set), or None after ``timeout``
        seconds (-1: no limit)."""
        self._check_open()
        if self._buffered:
            return self._buffered.popleft()
        deadline = Deadline(self._loop, timeout)
        while True:
            if self._buffered:
                return self._buffered.popleft()
            msg = await self._poll_settled()
            if msg is not None:
                return msg
            if deadline.passed():
                return None
            await self._wakeup.wait(deadline.left())

    async def _poll_settled(self):
        """The consumer's poll(0), then the rebalances whose coroutine callbacks run finished
        (the message taken is kept for the next call if finishing raises). Called with
        nothing buffered."""
        msg = self._consumer.poll(0)
        if self._rebalancing:
            if msg is not None:
                self._buffered.append(msg)
            await self._settle_rebalance()
            msg = self._buffered.popleft() if self._buffered else None
        return msg

    async def consume(self, num_messages=1, timeout=-1):
        """Up to ``num_messages`` messages: returns when that many arrived or ``timeout``
        seconds passed (-1: no limit)."""
        self._check_open()
        if not isinstance(num_messages, int) or isinstance(num_messages, bool):
            raise TypeError("num_messages must be an int")
        out = []
        while self._buffered and len(out) < num_messages:
            out.append(self._buffered.popleft())
        deadline = Deadline(self._loop, timeout)
        while True:
            if len(out) < num_messages:
                out.extend(self._consumer.consume(num_messages - len(out), 0))
            if self._rebalancing:
                try:
                    await self._settle_rebalance()
                except BaseException:
                    self._buffered.extendleft(reversed(out))     # never lose what was taken
                    raise
            if len(out) >= num_messages or deadline.passed():
                return out
            try:
                await self._wakeup.wait(deadline.left())
            except BaseException:
                self._buffered.extendleft(reversed(out))     # never lose what was taken
                raise

    def __aiter__(self):
        return self

    async def __anext__(self):
        """The next message, waiting as long as it takes; KafkaException for a consumer error
        (partition-EOF events are skipped); the iteration ends when the consumer is closed."""
        while True:
            if self._closed or self._closing:
                raise StopAsyncIteration
            if self._buffered:
                msg = self._buffered.popleft()
            else:
                try:
                    msg = await self._poll_settled()
                    if msg is None:
                        await self._wakeup.wait()
                        continue
                except RuntimeError:
                    if self._closed or self._closing:
                        raise StopAsyncIteration from None
                    raise
            err = msg.error()
            if err is None:
                return msg
            if err.code() != KafkaError._PARTITION_EOF:
                raise KafkaException(err)

    # -- offsets --

    async def commit(self, message=None, offsets=None, asynchronous=True):
        """Commit ``message``'s offset + 1, ``offsets``, or the current positions.

        With ``asynchronous=True`` (the default) returns None at once and the result goes to
        ``on_commit``; with ``asynchronous=False`` waits for the broker on the loop thread and
        returns the committed TopicPartitions (each with its ``error``), raising KafkaException when
        the whole commit failed.
        """
        self._check_open()
        return self._consumer.commit(message=message, offsets=offsets, asynchronous=asynchronous)

    async def store_offsets(self, message=None, offsets=None):
        """Store ``message``'s offset + 1 (or ``offsets`` as given) for the next commit; needs
        ``enable.auto.offset.store=false``.
        """
        self._check_open()
        self._consumer.store_offsets(message=message, offsets=offsets)

    async def committed(self, partitions, timeout=-1):
        """The group's committed offsets for ``partitions``; a broker round trip made on the
        loop thread, up to ``timeout`` seconds (-1: no limit).
        """
        self._check_open()
        return self._consumer.committed(partitions, timeout)

    async def position(self, partitions):
        """The next offset to be read for each of ``partitions`` (from the local state, no
        broker call).
        """
        self._check_open()
        return self._consumer.position(partitions)

    async def seek(self, partition):
        """Move the fetch position of an assigned partition to ``partition.offset``."""
        self._check_open()
        self._consumer.seek(partition)

    async def pause(self, partitions):
        """Stop fetching ``partitions`` until :meth:`resume`; their positions are kept."""
        self._check_open()
        self._consumer.pause(partitions)

    async def resume(self, partitions):
        """Fetch ``partitions`` again after :meth:`pause`."""
        self._check_open()
        self._consumer.resume(partitions)

    async def get_watermark_offsets(self, partition, timeout=-1, cached=False):
        """``(low, high)`` offsets of ``partition``: asked of the broker (on the loop thread, up
        to ``timeout`` seconds), or with ``cached=True`` the last values fetched, without a call.
        """
        self._check_open()
        return self._consumer.get_watermark_offsets(partition, timeout, cached)

    async def offsets_for_times(self, partitions, timeout=-1):
        """For each partition (its ``offset`` a timestamp in ms), the earliest offset whose
        timestamp is at or after it (-1 when there is none); a broker call on the loop thread.
        """
        self._check_open()
        return self._consumer.offsets_for_times(partitions, timeout)

    async def consumer_group_metadata(self):
        """The group's state, for :meth:`AIOProducer.send_offsets_to_transaction
        <confluent_binding.aio.AIOProducer.send_offsets_to_transaction>`.
        """
        self._check_open()
        return self._consumer.consumer_group_metadata()

    async def memberid(self):
        """The group member id, or None while the consumer is not a member."""
        self._check_open()
        return self._consumer.memberid()

    # -- lifetime --

    async def close(self):
        """Leave the group (revoke callbacks run; coroutine ones as tasks awaited here) and free
        the consumer. Tasks waiting in poll/consume get RuntimeError, `async for` ends."""
        if self._closed or self._closing:
            return
        try:
            self._close_consumer()
        finally:
            # the rebalances still waiting for their callbacks were finished by the close (it
            # (un)assigns at once): those callbacks are cancelled, not waited for
            for task, *_ in self._rebalancing:
                task.cancel()
            self._rebalancing.clear()
            await self._background.drain()

    def _release(self):
        if getattr(self, "_closed", True) or self._closing:
            return False
        self._close_consumer()
        return True

    def _close_consumer(self):
        self._closing = True        # rebalance callbacks of the final revoke run at once
        self._watch.close()
        self._wakeup.close()
        try:
            self._consumer.close()
        finally:
            self._closed = True


def _nothing():
    pass
