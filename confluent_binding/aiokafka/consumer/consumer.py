"""AIOKafkaConsumer: aiokafka's consumer on the binding's asyncio engine (no threads: the loop
is woken by librdkafka when records or events are ready)."""

import asyncio
import inspect
import logging
import re
import time
import types
import uuid
import warnings
import weakref
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Mapping,
    Optional,
    Set,
    Tuple,
    Union,
)

from ... import OFFSET_BEGINNING, OFFSET_END, OFFSET_INVALID, KafkaError, _core, build_info
from ... import TopicPartition as _TP
from ...aio import AIOConsumer
from ...error import KafkaException
from .. import _config
from .._common import translated, translation, warn_unclosed
from ..abc import ConsumerRebalanceListener
from ..client import AIOKafkaClient
from ..errors import (
    ConsumerStoppedError,
    IllegalOperation,
    IllegalStateError,
    KafkaTimeoutError,
    NoOffsetForPartitionError,
    from_kafka_error,
)
from ..producer.producer import _consumers_by_group
from ..structs import ConsumerRecord, OffsetAndMetadata, OffsetAndTimestamp, TopicPartition
from ..util import commit_structure_validate

__all__ = ["AIOKafkaConsumer"]

# librdkafka's codes (generated on the core's KafkaError at import)
_PARTITION_EOF = getattr(KafkaError, "_PARTITION_EOF")
_DESTROY = getattr(KafkaError, "_DESTROY")
_NO_OFFSET = getattr(KafkaError, "_NO_OFFSET")
_AUTO_OFFSET_RESET = getattr(KafkaError, "_AUTO_OFFSET_RESET")
# errors of the group join that aiokafka's start() raises (its coordinator gives up on them)
_JOIN_ERRORS = frozenset(getattr(KafkaError, name) for name in (
    "INVALID_SESSION_TIMEOUT", "INCONSISTENT_GROUP_PROTOCOL", "GROUP_AUTHORIZATION_FAILED",
    "INVALID_GROUP_ID"))
# consumer events that aiokafka does not raise from getone()/getmany() (it waits, retries or
# rejoins on its own, as librdkafka does): logged instead
_NOT_RAISED = frozenset(getattr(KafkaError, name) for name in (
    "_PARTITION_EOF", "UNKNOWN_TOPIC_OR_PART", "_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION",
    "_TRANSPORT", "_ALL_BROKERS_DOWN", "_RESOLVE", "_MAX_POLL_EXCEEDED", "_TIMED_OUT",
    "LEADER_NOT_AVAILABLE", "NOT_LEADER_FOR_PARTITION", "REQUEST_TIMED_OUT"))
log = logging.getLogger(__name__)
# the core's makers of ConsumerRecords from consumed Messages (src/aio_records.pyx)
_record_of = getattr(_core, "_aiokafka_record")
_batch_of = getattr(_core, "_aiokafka_batch")
# getone() reads the wall clock for last_poll_timestamp() once per this many records
_CLOCK_EVERY = 256


def _quiet(msgs: Any) -> bool:
    """Whether ``msgs`` holds no record and no error getmany() raises."""
    for msg in msgs:
        err = msg.error()
        if err is None or err.code() not in _NOT_RAISED or err.fatal():
            return False
    return True


class _View(types.SimpleNamespace):
    """Attributes of an aiokafka internal object that third-party code reads."""


# where aiokafka's group coordinator logs a listener that raised
_listener_log = logging.getLogger("aiokafka.consumer.group_coordinator")


def _listener_failed(listener: Any, group: Any, method: Any, parts: Any) -> None:
    if method.__name__ == "on_partitions_revoked":
        _listener_log.exception("User provided subscription listener %s for group %s failed "
                                "on_partitions_revoked", listener, group)
    else:
        _listener_log.exception("User provided listener %s for group %s failed on partition "
                                "assignment: %s", listener, group, parts)


async def _heard(listener: Any, group: Any, method: Any, parts: Any) -> None:
    """Call a listener's method (awaiting a coroutine it returns) as aiokafka's coordinator
    does: an exception is logged, not raised, and the rebalance goes on."""
    try:
        result = method(parts)
        if inspect.isawaitable(result):
            await result
    except Exception:
        _listener_failed(listener, group, method, parts)


def _tps(parts: Any) -> Any:
    return {TopicPartition(p.topic, p.partition) for p in parts}


def _check_tps(partitions: Any) -> Any:
    if not all(isinstance(p, TopicPartition) for p in partitions):
        raise TypeError("partitions must be TopicPartition namedtuples")


# What ListOffsets says of a partition without a leader (one that does not exist, or whose
# topic does not): the whole request fails with _NOENT ("No leaders found"), or the partition
# with UNKNOWN_TOPIC_OR_PART
_NO_LEADER = frozenset((KafkaError._NOENT, KafkaError.UNKNOWN_TOPIC_OR_PART,
                        KafkaError._UNKNOWN_PARTITION, KafkaError._UNKNOWN_TOPIC))


async def _group_served(me: Any) -> None:
    """A subscribed member's group task (``me``: a weak reference to its AIOKafkaConsumer,
    so that an unclosed consumer can be collected), aiokafka's coordinator task as far as
    librdkafka leaves it to the application: while no get* call waits, the group's rebalances
    are served (the listener is called, the assignment changes) without a record handed out:
    librdkafka's queue is served into the core's read-ahead, where positions and offsets to
    commit do not move (``Consumer._read_ahead``; the next get* call returns what it holds).
    That is up to the read-ahead's 64 records: a rebalance queued behind more waits for the
    next get* call. A member in no get* call for ``max_poll_interval_ms`` leaves the group, as
    aiokafka's does (librdkafka's own interval is reset by these reads), and joins again at
    its next get* call. Ends when the consumer stops (or is collected)."""
    face = me()
    consumer = face._consumer
    try:
        while face is not None and not face._closed:
            wait = None
            if face._gets:
                done = face._gets_done
                face = None
                await done.wait()
                face = me()
                continue
            event = face._serve_queue()[1]
            if event is not None:
                face._keep_event(event)
                continue
            if consumer._rebalancing:
                face = None
                await consumer._settle_rebalance()
                face = me()
                continue
            now = time.monotonic()
            if face._polled:
                face._polled = False
                face._idle_since = now
            if not face._left and (face._topics or face._pattern):
                # (after serving: a rebalance that comes when the member has been idle too
                # long is heard, then the member leaves rather than joins again, as aiokafka's)
                idle = now - face._idle_since
                if idle >= face._max_poll_s:
                    face._leave_idle()
                    continue
                # a get* call is noticed at the next look: looks a quarter interval apart
                wait = min(face._max_poll_s - idle, face._max_poll_s / 4)
            face = None
            await consumer._wakeup.wait(wait)
            face = me()
    except Exception:
        if not (consumer._closed or consumer._closing):     # (else: stopped meanwhile)
            log.exception("consumer: the group task failed; rebalances are served only in "
                          "the get* calls from now on")


class AIOKafkaConsumer:
    """aiokafka's consumer: ``getone()``/``getmany()``/``async for`` return
    :class:`ConsumerRecord`; offsets, seeks, pauses, the group (``group_id``, ``subscribe`` with
    a :class:`ConsumerRebalanceListener`) and the metadata calls as aiokafka has them.

    Keywords: aiokafka's, with aiokafka's defaults (``auto_offset_reset="latest"``,
    ``enable_auto_commit=True``, ``isolation_level="read_uncommitted"``,
    ``session_timeout_ms=10000``, the round-robin assignor, ...), mapped to librdkafka
    properties; ``extra={...}`` gives librdkafka properties that have no aiokafka keyword.
    With ``group_id=None`` the consumer uses a private group of its own (commits are refused
    with IllegalOperation, as aiokafka refuses them). Errors are :mod:`aiokafka.errors`
    classes; the ``get*`` calls of a stopped consumer raise ConsumerStoppedError.
    """

    def __init__(self, *topics: str, bootstrap_servers: Union[str, List[str]] = "localhost",
                 group_id: Optional[str] = None,
                 key_deserializer: Optional[Callable[[Optional[bytes]], Any]] = None,
                 value_deserializer: Optional[Callable[[Optional[bytes]], Any]] = None,
                 max_poll_records: Optional[int] = None,
                 extra: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        if kwargs.get("loop") is not None:
            warnings.warn("The loop argument is deprecated since 0.7.1, and scheduled for "
                          "removal in 0.9.0", DeprecationWarning, stacklevel=2)
        if max_poll_records is not None and (not isinstance(max_poll_records, int)
                                             or max_poll_records < 1):
            raise ValueError("`max_poll_records` should be positive Integer")
        kwargs["group_id"] = group_id
        self._conf = _config.build(_config.CONSUMER_KEYWORDS, _config.CONSUMER_DEFAULTS,
                                   bootstrap_servers, kwargs, extra)
        self._group_id = group_id
        self._group_instance_id = kwargs.get("group_instance_id")   # aiokafka's attribute
        if group_id is None:
            self._conf["group.id"] = "no-group-" + uuid.uuid4().hex
            self._conf["enable.auto.commit"] = "false"
        self._max_poll_records = max_poll_records
        self._exclude_internal_topics = kwargs.get("exclude_internal_topics", True)
        self._key_deserializer = key_deserializer
        self._value_deserializer = value_deserializer
        self._client = AIOKafkaClient(
            bootstrap_servers=bootstrap_servers, client_id=self._conf["client.id"],
            metadata_max_age_ms=int(self._conf["metadata.max.age.ms"]),
            request_timeout_ms=int(self._conf["socket.timeout.ms"]),
            retry_backoff_ms=int(self._conf["retry.backoff.ms"]),
            handle=lambda: self._consumer)
        self._consumer: Any = None
        self._closed = False
        self._stopping = False
        self._topics = frozenset(topics)
        self._pattern: Optional[str] = None
        self._listener: Optional[ConsumerRebalanceListener] = None
        self._joins = 0     # assignments the group has given (start() waits for the first)
        self._revoked = False   # the listener heard a revoke since the last assignment
        self._manual: Optional[List[Any]] = None
        self._held: List[ConsumerRecord] = []
        self._paused: Set[TopicPartition] = set()
        self._last_poll: Dict[Any, int] = {}
        self._clock_ms = 0
        self._clock_uses = 0
        # (topic, partition) -> the offset of a seek that no record has followed yet
        self._sought: Dict[Any, int] = {}
        # (topic, partition) -> the first record fetched but dropped on unsubscribe() or
        # assign(): where a later assignment of the partition starts
        self._rewind: Dict[Any, int] = {}
        # (topic, partition) -> the reset error librdkafka stopped fetching it with
        self._stuck: Dict[Any, Exception] = {}
        # the group task (_group_served): aiokafka's max_poll_interval_ms, the get* calls
        # waiting (aiokafka's fetch context), whether one returned since the task last looked,
        # and whether the member left the group for want of them
        self._max_poll_s = int(kwargs.get("max_poll_interval_ms", 300000)) / 1e3
        self._group_task: Optional["asyncio.Task[None]"] = None
        self._gets = 0
        self._gets_done: Optional[asyncio.Event] = None
        self._polled = False
        self._idle_since = time.monotonic()    # idle since made, as aiokafka's member
        self._left = False
        self._assignment_heard: Optional[asyncio.Event] = None     # (_assignment_waited)
        self._joins_heard = 0           # joins in effect, their listener called
        self._joins_subscribed = 0      # self._joins_heard when subscribe() was last called
        if topics:
            self._validate_topics(topics)

    def __del__(self, _warnings: Any = warnings) -> None:
        if getattr(self, "_closed", True) is False:
            warn_unclosed(self, "AIOKafkaConsumer", self._consumer, _warnings.warn)

    @staticmethod
    def _validate_topics(topics: Any) -> Any:
        if not all(isinstance(t, str) for t in topics):
            raise TypeError("Topics should be list of strings")

    async def start(self) -> None:
        """Create the librdkafka consumer and subscribe (or assign) as configured. A consumer
        subscribed to topics (or a pattern) returns once it has its first assignment, as
        aiokafka's does: the topics' metadata is waited for first (a topic the broker may
        create is created), UnknownTopicOrPartitionError when a topic still does not exist
        after ``request_timeout_ms``; then the group join is served (the rebalance listener is
        called) until the assigned partitions have their fetch positions, for up to
        ``request_timeout_ms`` more (past that, start() returns and the join goes on in the
        ``get*`` calls). Records fetched meanwhile are kept for the next ``get*`` call."""
        if self._consumer is not None:
            return
        with translated():
            self._consumer = AIOConsumer(self._conf)
        sibling = None
        if self._group_id is not None:
            sibling = _consumers_by_group.get(self._group_id)
            _consumers_by_group[self._group_id] = self
        if self._topics or self._pattern:
            self._subscribe_now()
            # With group_id=None too: aiokafka's start() then assigns every partition of the
            # topics (here the private group assigns them). Another member of the group in
            # this process has its rebalance served by its group task; without one (the build
            # that reads nothing ahead) only in its own get* calls, not while this start()
            # waits: the join then goes on in the get* calls.
            if (sibling is None or sibling._group_task is not None
                    or sibling._consumer is None or sibling._consumer._closed):
                await self._wait_joined()
            self._start_group_task()
        elif self._manual is not None:
            self._consumer._consumer.assign(self._manual)

    def _start_group_task(self) -> None:
        """Start the group task of a subscribed member (_group_served), in the build that
        reads ahead."""
        if (self._group_task is None and self._group_id is not None
                and build_info()["read_ahead"]):
            self._gets_done = asyncio.Event()
            self._gets_done.set()
            self._group_task = self._consumer._loop.create_task(_group_served(weakref.ref(self)))

    def _leave_idle(self) -> None:
        """Leave the group after ``max_poll_interval_ms`` without a get* call, as aiokafka's
        member does; the next get* call joins again (_rejoin)."""
        log.warning("consumer: no getone()/getmany() call for %.1f s (max_poll_interval_ms): "
                    "leaving group %s until the next one", self._max_poll_s, self._group_id)
        self._left = True
        self._drop_fetched(())
        with translated():
            self._consumer._consumer.unsubscribe()

    def _rejoin(self) -> None:
        """A get* call of a member that left the group for want of them joins again."""
        self._left = False
        self._idle_since = time.monotonic()
        self._subscribe_now()

    async def _wait_joined(self) -> None:
        """Until the group's first assignment is in (see start()), serving the consumer's
        queue: its records are kept in the engine's buffer (the next get* call returns them),
        as is an error event get* raises (which ends the wait); the others are logged."""
        consumer = self._consumer
        wait_s = int(self._conf["socket.timeout.ms"]) / 1e3
        for topic in sorted(self._topics):
            with translated():
                await self._client._wait_on_metadata(topic)
        if self._pattern and not await self._pattern_matches():
            return      # nothing to assign (aiokafka's group gives an empty assignment)
        deadline = time.monotonic() + wait_s
        joins = self._joins
        try:
            while self._joins == joins or consumer._rebalancing or not self._fetching():
                took, event = self._serve_queue()
                if event is not None:
                    if event.error().code() in _JOIN_ERRORS:
                        raise from_kafka_error(event.error())   # as aiokafka's start() does
                    if self._keep_event(event):
                        return      # raised by the next get* call, as aiokafka's fetcher
                if consumer._rebalancing:
                    await consumer._settle_rebalance()
                    continue
                if took or event is not None:
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    log.warning("consumer: group %s has not assigned partitions (or their "
                                "fetch positions are not known) after %.0f s; the get* calls "
                                "go on waiting", self._group_id, wait_s)
                    return
                # woken by librdkafka; fetch positions are not signalled: looked at again soon
                await consumer._wakeup.wait(min(left, 0.02) if self._joins != joins else left)
        except (KafkaException, RuntimeError) as exc:
            raise translation(exc, closed=ConsumerStoppedError) from exc

    def _keep_event(self, event: Any) -> bool:
        """An error event served with no get* call to raise it (start(), the group task): one
        aiokafka would raise is kept for the next get* call (True); the others are logged."""
        if _quiet([event]):
            self._raise_for(event.error())      # logged
            return False
        self._consumer._buffered.append(event)
        return True

    def _serve_queue(self) -> Any:
        """Serve the consumer's queue once with no get* call to hand its records to (start(),
        the group task): the callbacks run (rebalances), the records are read ahead, in the
        core's custody, where their positions and the offsets to commit do not move (see
        ``Consumer._read_ahead``); the next get* call returns them. Returns ``(took, event)``:
        whether records were taken, and the event (a Message with ``error()`` set) first in
        line, taken for the caller to raise or log. In the build that reads nothing ahead a
        record is taken as a get* call takes it (its position moves) and kept in the engine's
        buffer for the next get* call."""
        core = self._consumer._consumer
        before = core._taken_ahead()
        ahead = core._read_ahead()
        if ahead is not None:
            if not ahead[1]:
                return ahead[0] > before, None
            return True, core.poll(0)       # the event, first in line: no record overtaken
        msg = core.poll(0)
        if msg is None or msg.error() is not None:
            return msg is not None, msg
        self._consumer._buffered.append(msg)
        return True, None

    def _fetching(self) -> bool:
        """Whether every assigned partition has its fetch position (librdkafka knows its
        watermarks once it has one): a record produced after that is fetched, with
        ``auto_offset_reset="latest"`` too."""
        core = self._consumer._consumer
        return all(core.get_watermark_offsets(tp, cached=True)[1] >= 0
                   for tp in core.assignment()
                   if TopicPartition(tp.topic, tp.partition) not in self._paused)

    async def _pattern_matches(self) -> bool:
        """Whether a topic of the cluster matches the subscribed pattern."""
        timeout = int(self._conf["socket.timeout.ms"]) / 1e3
        with translated():
            md = await self._consumer.list_topics(None, timeout)
        pattern = re.compile(self._pattern or "")
        return any(pattern.match(name) for name in md.topics
                   if not (self._exclude_internal_topics and name.startswith("__")))

    async def stop(self) -> None:
        """Leave the group (committing first when auto-commit is on) and close; pending and
        later ``get*`` calls raise ConsumerStoppedError."""
        if self._consumer is None:
            self._closed = True
        elif not self._closed:
            self._stopping = True
            self._closed = True
            if self._group_task is not None:
                self._group_task.cancel()
            with translated():
                await self._consumer.close()
            # the get* calls it interrupted end (getmany with {}, getone with
            # ConsumerStoppedError) before stop() returns, as aiokafka's
            await asyncio.sleep(0)

    def _c(self) -> Any:
        if self._closed:
            raise ConsumerStoppedError()
        if self._consumer is None:
            raise IllegalStateError("The consumer is not started: await start() first")
        return self._consumer

    @property
    def _loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the consumer runs on (aiokafka's attribute, which rebalance
        listeners written for aiokafka create their tasks on)."""
        if self._consumer is not None:
            return self._consumer._loop
        return asyncio.get_running_loop()

    @property
    def _subscription(self) -> Any:
        """What third-party code reads of aiokafka's subscription state: ``topics``, and
        ``wait_for_assignment()``."""
        return _View(topics=self.subscription(), wait_for_assignment=self._assignment_waited)

    async def _assignment_waited(self) -> None:
        """Until the subscription has partitions assigned (the listener has heard them): a
        subscription made since the last join waits for the next one."""
        self._c()
        while self._joins_heard == self._joins_subscribed:
            if self._assignment_heard is None:
                self._assignment_heard = asyncio.Event()
            self._assignment_heard.clear()
            await self._assignment_heard.wait()

    @property
    def _coordinator(self) -> Any:
        """What third-party code reads of aiokafka's group coordinator: ``member_id``."""
        member = None
        if self._consumer is not None and not self._closed:
            member = self._consumer._consumer.memberid()
        return _View(member_id=member)

    # -- subscription --

    def subscribe(self, topics: Iterable[str] = (), pattern: Optional[str] = None,
                  listener: Optional[ConsumerRebalanceListener] = None) -> None:
        """Join the group for ``topics`` (or the topics matching the regular expression
        ``pattern``); ``listener``'s methods are called as partitions are revoked and
        assigned."""
        if not (topics or pattern):
            raise TypeError("You should provide either `topics` or `pattern`")
        if topics and pattern:
            raise TypeError("You can't provide both `topics` and `pattern`")
        if listener is not None and not isinstance(listener, ConsumerRebalanceListener):
            raise TypeError("listener should be an instance of ConsumerRebalanceListener")
        if self._manual:
            raise IllegalStateError("Subscription to topics, partitions and pattern are "
                                    "mutually exclusive")
        if topics:
            if not isinstance(topics, (tuple, set, list, frozenset)):
                raise TypeError("Topics should be list of strings")
            self._validate_topics(topics)
        if pattern:
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError("{!r} is not a valid pattern: {}".format(pattern, err)) from err
        self._topics = frozenset(topics)
        self._pattern = pattern
        self._listener = listener
        self._left = False
        self._joins_subscribed = self._joins_heard
        if self._consumer is not None:
            self._subscribe_now()
            self._start_group_task()

    def _subscribe_now(self) -> Any:
        names = sorted(self._topics) or ["^" + (self._pattern or "").lstrip("^")]
        listener: Any = self._listener
        # held weakly by the engine's callbacks: an unclosed consumer can be collected
        me = weakref.ref(self)

        def assigned(consumer: Any, parts: Any) -> Any:
            face = me()
            if face is None:
                return None
            face._joins += 1
            if listener is None:
                face._join_heard()
                return None
            revoke_first = not face._revoked
            face._revoked = False
            return face._join_listened(listener, parts, revoke_first)

        def revoked(consumer: Any, parts: Any) -> Any:
            face = me()
            if face is not None and face._manual is not None and not face._stopping:
                # the revoke of the subscription left by unsubscribe(), served after assign()
                # (librdkafka queues it): answered as librdkafka expects (no partitions), then
                # the partitions assigned by hand are assigned again at their positions
                core = consumer._consumer
                kept = core.position(core.assignment())
                core.unassign()
                core.assign(kept)
                return None
            if face is None or face._stopping or listener is None:
                return None     # aiokafka does not call the listener when stopping
            face._revoked = True
            return _heard(listener, face._group_id, listener.on_partitions_revoked, _tps(parts))

        kw: Dict[str, Any] = {"on_assign": self._consumer._rebalance_cb("assign", assigned),
                              "on_revoke": self._consumer._rebalance_cb("revoke", revoked)}
        with translated():
            self._consumer._consumer.subscribe(names, **kw)

    async def _join_listened(self, listener: Any, parts: Any, revoke_first: bool) -> None:
        """A join with a listener, in aiokafka's order: the listener hears a revoke before
        every join (an empty one when nothing was assigned: librdkafka revokes only what it had
        assigned), then the assignment takes effect, then ``on_partitions_assigned`` runs (so
        it may seek, or read positions and committed offsets)."""
        if revoke_first:
            await _heard(listener, self._group_id, listener.on_partitions_revoked, set())
        engine = self._consumer
        me = asyncio.current_task()
        cooperative = any(r[0] is me and r[3] for r in engine._rebalancing)
        if not (engine._closed or engine._closing):
            await (engine.incremental_assign if cooperative else engine.assign)(parts)
        await _heard(listener, self._group_id, listener.on_partitions_assigned, _tps(parts))
        self._join_heard()

    def _join_heard(self) -> None:
        """A join took effect, its listener called (see _assignment_waited)."""
        self._joins_heard += 1
        if self._assignment_heard is not None:
            self._assignment_heard.set()

    def subscription(self) -> FrozenSet[str]:
        """The subscribed topics (a frozenset; for a pattern, the assigned topics)."""
        if self._pattern and self._consumer is not None and not self._closed:
            return frozenset(tp.topic for tp in self.assignment())
        return self._topics

    def unsubscribe(self) -> None:
        """Leave the group and drop the subscription and the assignment."""
        self._topics, self._pattern, self._manual = frozenset(), None, None
        self._left = False
        if self._consumer is not None and not self._closed:
            self._drop_fetched(())
            with translated():
                self._consumer._consumer.unsubscribe()

    def _drop_fetched(self, keep: Any) -> None:
        """Forget the records fetched (and not returned yet) of partitions not in ``keep``
        (pairs of topic and partition): they are fetched again from the position of a later
        assignment, as aiokafka's fetcher drops what it holds of unassigned partitions."""
        first: Dict[Any, int] = {}
        for where, offset in [((r.topic, r.partition), r.offset) for r in self._held] + [
                ((m.topic(), m.partition()), m.offset()) for m in self._consumer._buffered
                if m.error() is None]:
            if where not in keep and offset < first.get(where, offset + 1):
                first[where] = offset
        self._held = [r for r in self._held if (r.topic, r.partition) in keep]
        buffered = self._consumer._buffered
        kept = [m for m in buffered
                if m.error() is None and (m.topic(), m.partition()) in keep]
        buffered.clear()
        buffered.extend(kept)
        self._sought = {k: v for k, v in self._sought.items() if k in keep}
        self._stuck = {k: v for k, v in self._stuck.items() if k in keep}
        if first:
            # librdkafka counts them consumed: what it commits (and the next assignment
            # fetches from) is moved back to the first of them
            self._rewind.update(first)
            if self._group_id is not None:
                assigned = _tps(self._consumer._consumer.assignment())
                parts = [_TP(t, p, o) for (t, p), o in first.items()
                         if TopicPartition(t, p) in assigned]
                if parts:
                    try:
                        self._consumer._consumer.store_offsets(offsets=parts)
                    except KafkaException as exc:
                        log.debug("consumer: offsets not stored back: %s", exc)

    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        """Consume exactly ``partitions`` (no group rebalancing)."""
        _check_tps(partitions)
        if self._topics or self._pattern:
            raise IllegalStateError("Subscription to topics, partitions and pattern are "
                                    "mutually exclusive")
        self._manual = [_TP(tp.topic, tp.partition) for tp in partitions]
        if self._rewind:
            self._manual = [_TP(tp.topic, tp.partition, self._rewind.pop(
                (tp.topic, tp.partition), OFFSET_INVALID)) for tp in partitions]
        if self._consumer is not None:
            with translated():
                self._c()._consumer.assign(self._manual)
            self._drop_fetched({(tp.topic, tp.partition) for tp in self._manual})

    def assignment(self) -> Set[TopicPartition]:
        """The partitions assigned to the consumer (a set of TopicPartition)."""
        if self._consumer is None or self._closed:
            return set()
        return _tps(self._consumer._consumer.assignment())

    def _assigned(self, partitions: Any) -> Any:
        assigned = self.assignment()
        missing = set(partitions) - assigned
        if missing:
            raise IllegalStateError("Partitions %s are not assigned" % (missing,))

    # -- fetching --

    def _raise_for(self, err: Any, msg: Any = None, partitions: Any = ()) -> Any:
        """Raise a consumer error event as aiokafka would, or log it when aiokafka would not
        raise it (a missing topic, a broker connection lost, ...)."""
        if err.code() == _DESTROY or self._closed:
            raise ConsumerStoppedError()
        if err.code() in _NOT_RAISED and not err.fatal():
            if err.code() != _PARTITION_EOF:
                log.warning("consumer: %s", err.str())
            return
        if err.code() == _AUTO_OFFSET_RESET:
            exc: Any
            if "no previously committed offset" in err.str():
                # auto_offset_reset="none" and no committed offset: aiokafka's class for that
                exc = NoOffsetForPartitionError(err.str())
                exc.kafka_error = err
            else:
                exc = from_kafka_error(err)
            if msg is not None:
                # librdkafka reports it once and stops fetching the partition; aiokafka
                # raises it from every get* call (for that partition) until it is sought
                where = (msg.topic(), msg.partition())
                self._stuck[where] = exc
                if partitions and where not in partitions:
                    return
            raise exc
        raise from_kafka_error(err)

    def _raise_stuck(self, partitions: Any) -> None:
        """Raise again the reset error of a partition librdkafka stopped fetching (see
        :meth:`_raise_for`)."""
        for where, exc in self._stuck.items():
            if where in self._c_assigned() and (not partitions or where in partitions):
                raise exc

    def _c_assigned(self) -> Any:
        return {(tp.topic, tp.partition) for tp in self._consumer._consumer.assignment()}

    async def getone(self, *partitions: TopicPartition) -> ConsumerRecord:
        """The next record (of ``partitions`` when given), waiting as long as it takes."""
        if partitions:
            _check_tps(partitions)
        consumer = self._c()
        if self._left:
            self._rejoin()
        self._polled = True
        if self._stuck:
            self._raise_stuck(partitions)
        while True:
            if self._held:
                for i, rec in enumerate(self._held):
                    if not partitions or (rec.topic, rec.partition) in partitions:
                        return self._held.pop(i)
            try:
                # what is ready now is taken without a wait (and without the engine's
                # coroutine); an empty queue (or the engine's own buffer or rebalance to
                # settle) goes through the engine's poll, which waits on the loop
                msg = None
                if not (consumer._buffered or consumer._rebalancing):
                    msg = consumer._consumer.poll(0)
                if msg is None or consumer._rebalancing:
                    msg = await self._getone_waits(consumer, msg)
                    if msg is None:
                        continue
            except (KafkaException, RuntimeError) as exc:
                raise translation(exc, closed=ConsumerStoppedError) from exc
            if msg.error() is not None:
                self._raise_for(msg.error(), msg, partitions)
                continue
            rec = _record_of(msg, ConsumerRecord, self._key_deserializer,
                             self._value_deserializer)
            where = (rec.topic, rec.partition)
            if self._sought:
                self._sought.pop(where, None)
            # last_poll_timestamp(): the wall clock read once per _CLOCK_EVERY records handed
            # out (and whenever getone() had to wait), not once per record
            self._clock_uses -= 1
            if self._clock_uses <= 0:
                self._clock_uses = _CLOCK_EVERY
                self._clock_ms = int(time.time() * 1000)
            self._last_poll[where] = self._clock_ms
            if not partitions or where in partitions:
                return rec
            self._held.append(rec)

    async def _getone_waits(self, consumer: Any, msg: Any) -> Any:
        """getone() when it has to wait: for a rebalance's listener to finish (``msg``, taken
        before it, is kept should the wait be cancelled), or for a record."""
        self._gets_begun()
        try:
            if consumer._rebalancing:
                if msg is not None:
                    consumer._buffered.append(msg)
                    msg = None
                await consumer._settle_rebalance()
            if msg is None:
                self._clock_uses = 0
                msg = await consumer.poll(-1)
            return msg
        finally:
            self._gets_ended()

    def _gets_begun(self) -> None:
        """A get* call waits (aiokafka's fetch context): the group task serves nothing."""
        self._gets += 1
        if self._gets_done is not None:
            self._gets_done.clear()

    def _gets_ended(self) -> None:
        self._gets -= 1
        self._polled = True
        if self._gets == 0 and self._gets_done is not None:
            self._gets_done.set()

    async def getmany(self, *partitions: TopicPartition, timeout_ms: int = 0,
                      max_records: Optional[int] = None
                      ) -> Dict[TopicPartition, List[ConsumerRecord]]:
        """The records ready now ({TopicPartition: [ConsumerRecord]}), waiting up to
        ``timeout_ms`` for the first when none is; at most ``max_records`` (default:
        ``max_poll_records``, else 500)."""
        if partitions:
            _check_tps(partitions)
        if max_records is not None and (not isinstance(max_records, int) or max_records < 1):
            raise ValueError("`max_records` must be a positive Integer")
        consumer = self._c()
        if self._left:
            self._rejoin()
        if self._stuck:
            self._raise_stuck(partitions)
        limit = max_records or self._max_poll_records or 500
        self._gets_begun()
        try:
            msgs = await consumer.consume(limit - min(len(self._held), limit), 0)
            if not self._held and timeout_ms and _quiet(msgs):
                # nothing to return yet (events that are only logged, such as a topic that
                # does not exist yet, do not end the wait)
                deadline = time.monotonic() + timeout_ms / 1000.0
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    try:
                        more = await consumer.consume(1, left)
                    except RuntimeError:
                        if self._stopping:
                            return {}     # stopped while waiting: aiokafka returns nothing
                        raise
                    msgs += more
                    if not _quiet(more):
                        msgs += await consumer.consume(limit - 1, 0)
                        break
        except (KafkaException, RuntimeError) as exc:
            raise translation(exc, closed=ConsumerStoppedError) from exc
        finally:
            self._gets_ended()
        # grouped by (topic, partition), the records held back first; the new ones made and
        # grouped in one compiled call
        groups: Dict[Tuple[str, int], List[ConsumerRecord]] = {}
        for rec in self._held:
            where = (rec.topic, rec.partition)
            group = groups.get(where)
            if group is None:
                groups[where] = [rec]
            else:
                group.append(rec)
        self._held = []
        events = _batch_of(msgs, ConsumerRecord, self._key_deserializer,
                           self._value_deserializer, groups)
        if self._sought:
            for where in groups:
                self._sought.pop(where, None)
        for msg in events:
            try:
                self._raise_for(msg.error(), msg, partitions)
            except Exception as exc:    # raised now; the records come with the next call
                for group in groups.values():
                    self._held.extend(group)
                raise exc
        out: Dict[TopicPartition, List[ConsumerRecord]] = {}
        now = int(time.time() * 1000)
        for where, group in groups.items():
            self._last_poll[where] = now
            if partitions and where not in partitions:
                self._held.extend(group)
            else:
                out[TopicPartition(*where)] = group
        return out

    def __aiter__(self) -> "AIOKafkaConsumer":
        if self._closed:
            raise ConsumerStoppedError()
        return self

    async def __anext__(self) -> ConsumerRecord:
        """The next record; the iteration ends when the consumer is stopped."""
        try:
            return await self.getone()
        except ConsumerStoppedError:
            raise StopAsyncIteration from None

    # -- positions and offsets --

    def seek(self, partition: TopicPartition, offset: int) -> None:
        """Fetch ``partition`` from ``offset`` next."""
        if not isinstance(offset, int) or offset < 0:
            raise ValueError("Offset must be a positive integer")
        self._assigned([partition])
        self._seek(partition, offset)

    def _seek(self, partition: Any, offset: Any) -> Any:
        tp = _TP(partition.topic, partition.partition, offset)
        consumer = self._c()._consumer
        try:
            consumer.seek(tp)
        except KafkaException:
            # not fetching yet (just assigned): start the partition at that offset instead
            parts = [tp if (p.topic, p.partition) == (tp.topic, tp.partition) else p
                     for p in consumer.assignment()]
            with translated():
                consumer.assign(parts)
        self._held = [r for r in self._held
                      if (r.topic, r.partition) != (tp.topic, tp.partition)]
        self._sought[(tp.topic, tp.partition)] = offset
        self._stuck.pop((tp.topic, tp.partition), None)

    async def seek_to_beginning(self, *partitions: TopicPartition) -> None:
        """Fetch ``partitions`` (default: all assigned) from their first offset next."""
        _check_tps(partitions)
        self._assigned(partitions)
        for tp in partitions or self.assignment():
            self._seek(tp, OFFSET_BEGINNING)

    async def seek_to_end(self, *partitions: TopicPartition) -> None:
        """Fetch ``partitions`` (default: all assigned) from their end next."""
        _check_tps(partitions)
        self._assigned(partitions)
        for tp in partitions or self.assignment():
            self._seek(tp, OFFSET_END)

    async def seek_to_committed(self, *partitions: TopicPartition
                                ) -> Dict[TopicPartition, Optional[int]]:
        """Fetch ``partitions`` (default: all assigned) from their committed offsets next;
        returns {TopicPartition: committed offset or None}."""
        _check_tps(partitions)
        self._assigned(partitions)
        out = {}
        for tp in partitions or self.assignment():
            out[tp] = offset = await self.committed(tp)
            if offset is not None and offset > 0:
                self._seek(tp, offset)
        return out

    def _require_group(self) -> Any:
        if self._group_id is None:
            raise IllegalOperation("Requires group_id")

    async def commit(self, offsets: Optional[Mapping[
            TopicPartition, Union[int, Tuple[int, str], OffsetAndMetadata]]] = None) -> None:
        """Commit ``offsets`` ({TopicPartition: offset, (offset, metadata) or
        OffsetAndMetadata}; ValueError/TypeError for another structure, as aiokafka), or the
        positions of every assigned partition; waits for the broker. CommitFailedError when
        the group has rebalanced meanwhile."""
        self._require_group()
        consumer = self._c()
        if not (self._topics or self._pattern or self._manual):
            raise IllegalStateError("Not subscribed to any topics")
        assigned = self.assignment()
        if not assigned:
            raise IllegalStateError("No partitions assigned")
        if offsets is None:
            with translated(committing=True):
                try:
                    await consumer.commit(asynchronous=False)
                except KafkaException as exc:
                    if exc.args[0].code() == _NO_OFFSET:
                        return      # nothing consumed since the last commit
                    raise
            return
        valid = commit_structure_validate(offsets)
        for tp in valid:
            if tp not in assigned:
                raise IllegalStateError("Partition {} is not assigned".format(tp))
        parts = [_TP(tp.topic, tp.partition, o.offset, metadata=o.metadata or None)
                 for tp, o in valid.items()]
        with translated(committing=True):
            await consumer.commit(offsets=parts, asynchronous=False)

    async def committed(self, partition: TopicPartition) -> Optional[int]:
        """The group's committed offset of ``partition`` (None when there is none)."""
        self._require_group()
        with translated():
            res = await self._c().committed([_TP(partition.topic, partition.partition)], 10)
        return res[0].offset if res[0].offset >= 0 else None

    async def position(self, partition: TopicPartition) -> int:
        """The offset of the next record fetched from ``partition``."""
        self._assigned([partition])
        consumer = self._c()
        tp = _TP(partition.topic, partition.partition)
        sought = self._sought.get((tp.topic, tp.partition))
        if sought is not None:
            if sought >= 0:
                return sought
            with translated():
                lo, hi = await consumer.get_watermark_offsets(tp, 10)
            return lo if sought == OFFSET_BEGINNING else hi
        with translated():
            res = await consumer.position([tp])
            if res[0].offset >= 0:
                return res[0].offset
            if self._group_id is not None:
                committed = await self.committed(partition)
                if committed is not None:
                    return committed
            lo, hi = await consumer.get_watermark_offsets(tp, 10)
        return lo if self._conf.get("auto.offset.reset") in ("earliest", "smallest") else hi

    def highwater(self, partition: TopicPartition) -> Optional[int]:
        """The high watermark of ``partition`` as of the last fetch (None before one)."""
        self._assigned([partition])
        lo, hi = self._c()._consumer.get_watermark_offsets(
            _TP(partition.topic, partition.partition), cached=True)
        return hi if hi >= 0 else None

    def last_stable_offset(self, partition: TopicPartition) -> Optional[int]:
        """The partition's last stable offset as of the last fetch (None before one): below
        it, every transaction is decided. In the public-API build, which cannot read it, the
        high watermark (the same while no transaction is open)."""
        self._assigned([partition])
        lso = self._c()._consumer._last_stable_offset(_TP(partition.topic, partition.partition))
        if lso is None:
            return self.highwater(partition)
        return lso if lso >= 0 else None

    def last_poll_timestamp(self, partition: TopicPartition) -> Optional[int]:
        """When records of ``partition`` were last returned (ms since the epoch; None before
        any)."""
        self._assigned([partition])
        return self._last_poll.get((partition.topic, partition.partition))

    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching from ``partitions`` until :meth:`resume`."""
        _check_tps(partitions)
        self._assigned(partitions)
        with translated():
            self._c()._consumer.pause([_TP(tp.topic, tp.partition) for tp in partitions])
        self._paused |= set(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        """Fetch from paused ``partitions`` again."""
        _check_tps(partitions)
        self._assigned(partitions)
        with translated():
            self._c()._consumer.resume([_TP(tp.topic, tp.partition) for tp in partitions])
        self._paused -= set(partitions)

    def paused(self) -> Set[TopicPartition]:
        """The paused partitions (a set)."""
        return self._paused & self.assignment()

    async def _watermarks(self, partitions: Any) -> Any:
        _check_tps(partitions)
        consumer = self._c()
        with translated():
            return {tp: await consumer.get_watermark_offsets(_TP(tp.topic, tp.partition), 10)
                    for tp in partitions}

    async def beginning_offsets(self, partitions: Iterable[TopicPartition]
                                ) -> Dict[TopicPartition, int]:
        """{TopicPartition: first offset} (asks the broker)."""
        return {tp: lo for tp, (lo, _) in (await self._watermarks(partitions)).items()}

    async def end_offsets(self, partitions: Iterable[TopicPartition]
                          ) -> Dict[TopicPartition, int]:
        """{TopicPartition: end offset} (asks the broker; the last stable offset with
        read_committed)."""
        return {tp: hi for tp, (_, hi) in (await self._watermarks(partitions)).items()}

    async def offsets_for_times(self, timestamps: Mapping[TopicPartition, int]
                                ) -> Dict[TopicPartition, Optional[OffsetAndTimestamp]]:
        """{TopicPartition: OffsetAndTimestamp of the first record at or after the timestamp,
        or None when there is none}."""
        _check_tps(list(timestamps))
        for ts in timestamps.values():
            if not isinstance(ts, int) or ts < 0:
                raise ValueError("The target time for partition {} is {}. The target time "
                                 "cannot be negative.".format(timestamps, ts))
        if not timestamps:
            return {}
        core = self._c()._consumer
        parts = [(tp.topic, tp.partition, ts) for tp, ts in timestamps.items()]
        timeout = int(self._conf["socket.timeout.ms"]) / 1e3
        # ListOffsets answers with the found record's timestamp, as aiokafka gives it
        # (offsets_for_times() only has the offset); a broker round trip off the loop thread
        try:
            rows = await self._loop.run_in_executor(None, core._list_offsets, parts, timeout)
            found = {(r.topic, r.partition): r for r in rows}
            for tp in timestamps:
                error = found[(tp.topic, tp.partition)].error
                if error is not None:
                    raise KafkaException(error)
        except KafkaException as exc:
            if exc.args[0].code() in _NO_LEADER:
                # aiokafka waits for the partition's leader until its timeout
                raise KafkaTimeoutError("Failed to get offsets by times: %s"
                                        % exc.args[0].str()) from exc
            raise translation(exc) from exc
        out: Dict[TopicPartition, Optional[OffsetAndTimestamp]] = {}
        for tp in timestamps:
            r = found[(tp.topic, tp.partition)]
            out[tp] = OffsetAndTimestamp(r.offset, r.timestamp) if r.offset >= 0 else None
        return out

    async def topics(self) -> Set[str]:
        """The names of the cluster's topics (a set; Kafka's internal topics left out unless
        ``exclude_internal_topics=False``)."""
        with translated():
            md = await self._c().list_topics(None, 10)
        names = set(md.topics)
        if self._exclude_internal_topics:
            names = {n for n in names if not n.startswith("__")}
        return names

    def partitions_for_topic(self, topic: str) -> Optional[Set[int]]:
        """The partition ids of ``topic`` (a set), or None when the cluster does not have
        it."""
        with translated():
            md = self._c()._consumer.list_topics(topic, 10)
        t = md.topics.get(topic)
        return None if t is None or t.error is not None else set(t.partitions)

    async def __aenter__(self) -> "AIOKafkaConsumer":
        await self.start()
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        await self.stop()


