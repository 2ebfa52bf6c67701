"""AIOKafkaProducer: aiokafka's producer on the binding's asyncio engine (no threads: the loop
is woken by librdkafka when delivery reports are ready)."""

import asyncio
import warnings
import weakref
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple, Union

from ... import TopicPartition as _TP
from ... import _core
from ...aio import AIOProducer
from ...error import KafkaException
from .. import _config
from .._common import _PURGED, translated, translation, warn_unclosed
from ..client import AIOKafkaClient
from ..errors import IllegalOperation, IllegalStateError, ProducerClosed, from_kafka_error
from ..partitioner import DefaultPartitioner
from ..structs import OffsetAndMetadata, RecordMetadata, TopicPartition
from ..util import INTEGER_MAX_VALUE  # noqa: F401 (aiokafka's module has it)

_missing = _config.MISSING     # aiokafka's marker for an ``acks`` not given

__all__ = ["AIOKafkaProducer"]

# started consumers by group id: send_offsets_to_transaction sends a member's full group
# metadata (KIP-447's fencing) when one of that group runs in this process
_consumers_by_group: "weakref.WeakValueDictionary[str, Any]" = weakref.WeakValueDictionary()
_Headers = Optional[Iterable[Tuple[str, Optional[bytes]]]]


# the RecordMetadata of a delivered Message (the core's, which a send()'s future also uses to
# make it straight from the delivery report, src/aio_future.pyx)
_metadata = getattr(_core, "_RecordMetadataOf")(RecordMetadata, TopicPartition)
# what a send()'s future is mapped with (DeliveryFuture._map_as): its result made a
# RecordMetadata when read, its error aiokafka's, and records purged by an abort or stop not
# reported when nobody awaits them. One tuple for every future.
_FACE = (_metadata, from_kafka_error, _PURGED)


def _no_metadata(msg: Any) -> None:
    return None


#: with ``acks=0`` the broker answers nothing: aiokafka's futures resolve with None
_FACE_NO_ACKS = (_no_metadata, from_kafka_error, _PURGED)


def _group_only_metadata(group_id: Any) -> Any:
    """The group metadata of a group id alone (no member, generation -1): what aiokafka sends
    with a transaction's offsets. Built as librdkafka serializes it and read back by the
    core's ConsumerGroupMetadata unpickler."""
    from_bytes = getattr(_core, "_cgmd_from_bytes")
    return from_bytes(b"CGMDv2:\xff\xff\xff\xff" + group_id.encode() + b"\x00\x00\x01")


class AIOKafkaProducer:
    """aiokafka's producer. ``await send(...)`` enqueues a record and returns a future of its
    :class:`RecordMetadata`; ``send_and_wait`` awaits that too.

    Keywords: aiokafka's (``acks``, ``linger_ms``, ``max_batch_size``, ``compression_type``,
    ``enable_idempotence``, ``transactional_id``, ``partitioner``, ``ssl_context`` from
    :func:`aiokafka.helpers.create_ssl_context`, the ``sasl_*``, ...) with aiokafka's defaults,
    mapped to librdkafka properties; ``extra={...}`` gives librdkafka properties that have no
    aiokafka keyword (they win over the keywords). Records are placed as aiokafka's
    :class:`DefaultPartitioner` places them (librdkafka's ``murmur2_random``); another
    ``partitioner`` callable is called for each record sent without a partition. Errors are
    :mod:`aiokafka.errors` classes.
    """

    def __init__(self, *, bootstrap_servers: Union[str, List[str]] = "localhost",
                 key_serializer: Optional[Callable[[Any], Optional[bytes]]] = None,
                 value_serializer: Optional[Callable[[Any], Optional[bytes]]] = None,
                 partitioner: Optional[Callable[..., int]] = None,
                 extra: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        if kwargs.get("loop") is not None:
            warnings.warn("The `loop` parameter has been deprecated since 0.7.1 and will be "
                          "removed in a future release.", DeprecationWarning, stacklevel=2)
        kwargs["partitioner"] = partitioner
        self._conf = _config.build(_config.PRODUCER_KEYWORDS, _config.PRODUCER_DEFAULTS,
                                   bootstrap_servers, kwargs, extra)
        self._conf.setdefault("partitioner", "murmur2_random")
        self._key_serializer = key_serializer
        self._value_serializer = value_serializer
        self._partitioner = partitioner if partitioner is not None else DefaultPartitioner()
        # Python-side placement only for a partitioner other than aiokafka's default
        self._custom_partitioner = type(self._partitioner) is not DefaultPartitioner
        self._transactional = "transactional.id" in self._conf
        self._face = _FACE_NO_ACKS if self._conf["acks"] == "0" else _FACE
        self._producer: Any = None
        self._closed = False
        self._in_txn = False
        self.client = AIOKafkaClient(
            bootstrap_servers=bootstrap_servers, client_id=self._conf["client.id"],
            metadata_max_age_ms=int(self._conf["metadata.max.age.ms"]),
            request_timeout_ms=int(self._conf["request.timeout.ms"]),
            retry_backoff_ms=int(self._conf["retry.backoff.ms"]),
            handle=lambda: self._producer)

    def __del__(self, _warnings: Any = warnings) -> None:
        if getattr(self, "_closed", True) is False:
            warn_unclosed(self, "AIOKafkaProducer", self._producer, _warnings.warn)

    async def start(self) -> None:
        """Create the librdkafka producer (and initialise transactions when
        ``transactional_id`` is set)."""
        if self._producer is None:
            with translated():
                self._producer = AIOProducer(self._conf)
                self._closed = False
                if self._transactional:
                    await self._producer.init_transactions()

    async def stop(self) -> None:
        """Deliver what is outstanding, then close the producer."""
        if not self._closed:
            self._closed = True
            if self._producer is not None:
                with translated():
                    await self._producer.close()

    async def flush(self) -> None:
        """Wait until every record sent so far is delivered (or failed)."""
        with translated(closed=ProducerClosed):
            await self._p().flush()

    def _p(self) -> Any:
        if self._producer is None:
            raise IllegalStateError("The producer is not started: await start() first")
        if self._closed:
            raise ProducerClosed()
        return self._producer

    async def partitions_for(self, topic: str) -> Set[int]:
        """The set of partition ids of ``topic`` (fetched from the broker, then cached)."""
        self._p()
        with translated():
            return await self.client._wait_on_metadata(topic)

    def _partition(self, topic: Any, partition: Any, key: Any, value: Any, serialized_key: Any,
                   serialized_value: Any) -> Any:
        """The partition a record goes to: ``partition`` when given, else the partitioner's
        choice over the cached partitions of ``topic`` (await ``client._wait_on_metadata``
        first)."""
        if partition is not None:
            return partition
        parts, available = self.client._topic_partitions(topic, None)
        return self._partitioner(serialized_key, parts, available)

    async def send(self, topic: str, value: Any = None, key: Any = None,
                   partition: Optional[int] = None, timestamp_ms: Optional[int] = None,
                   headers: _Headers = None) -> "asyncio.Future[RecordMetadata]":
        """Enqueue a record; returns a future resolved with its :class:`RecordMetadata` once
        delivered (or failed with an :mod:`aiokafka.errors` class). Waits for room when
        librdkafka's queue is full. ``headers``: (str, bytes) pairs."""
        if value is None and key is None:
            raise AssertionError("Need at least one: key or value")
        producer = self._producer
        if producer is None or self._closed:
            producer = self._p()        # raises
        if self._transactional and not self._in_txn:
            raise IllegalOperation("Can't send messages while not in transaction")
        if self._key_serializer is not None:
            key = self._key_serializer(key)
        if self._value_serializer is not None:
            value = self._value_serializer(value)
        if type(value) is str or type(key) is str:     # aiokafka's record builder refuses
            _not_bytes(key, value)
        try:
            if partition is None:
                if self._custom_partitioner:
                    await self.client._wait_on_metadata(topic)
                    partition = self._partition(topic, None, None, None, key, value)
                else:
                    partition = -1
            # produce(topic, value, key, partition, on_delivery, timestamp, headers)
            fut = await producer.produce(topic, value, key, partition, None, timestamp_ms or 0,
                                         headers)
        except (KafkaException, RuntimeError) as exc:
            raise translation(exc, closed=ProducerClosed) from exc
        # the future itself, its result made a RecordMetadata when read and its error aiokafka's
        return fut._map_as(self._face)

    async def send_and_wait(self, topic: str, value: Any = None, key: Any = None,
                            partition: Optional[int] = None, timestamp_ms: Optional[int] = None,
                            headers: _Headers = None) -> RecordMetadata:
        """send(), then wait for the record's :class:`RecordMetadata`."""
        return await (await self.send(topic, value, key, partition, timestamp_ms, headers))

    def create_batch(self) -> "BatchBuilder":
        """An empty :class:`BatchBuilder` for :meth:`send_batch` (its ``append`` applies the
        producer's serializers)."""
        return BatchBuilder(int(self._conf.get("batch.size", 16384)),
                            self._key_serializer, self._value_serializer)

    async def send_batch(self, batch: "BatchBuilder", topic: str, *,
                         partition: int) -> "asyncio.Future[Optional[RecordMetadata]]":
        """Send the records of ``batch`` to ``partition`` of ``topic`` (None: the
        partitioner picks one for the batch); returns a future
        resolved with the :class:`RecordMetadata` of the batch's first record once every record
        is delivered."""
        producer = self._p()
        if self._transactional and not self._in_txn:
            raise IllegalOperation("Can't send messages while not in transaction")
        with translated(closed=ProducerClosed):
            if partition is None:       # one partition for the whole batch, as aiokafka
                await self.client._wait_on_metadata(topic)
                partition = self._partition(topic, None, None, None, None, None)
            futs = [await producer.produce(topic, v, k, partition=partition,
                                           timestamp=ts or 0, headers=h)
                    for k, v, ts, h in batch._records]
        batch._records = []
        batch.close()
        return asyncio.ensure_future(_first_of(futs, self._face[0]))

    # -- transactions --

    def _ensure_transactional(self) -> Any:
        if not self._transactional:
            raise IllegalOperation("You need to configure transaction_id to use transactions")

    async def begin_transaction(self) -> None:
        """Start a transaction (``transactional_id`` must be set)."""
        self._ensure_transactional()
        with translated():
            await self._p().begin_transaction()
        self._in_txn = True

    async def commit_transaction(self) -> None:
        """Deliver the transaction's records, then commit it."""
        self._ensure_transactional()
        self._in_txn = False
        with translated():
            await self._p().commit_transaction()

    async def abort_transaction(self) -> None:
        """Abort the transaction: its records are never seen by read_committed consumers."""
        self._ensure_transactional()
        self._in_txn = False
        with translated():
            await self._p().abort_transaction()

    def transaction(self) -> "TransactionContext":
        """``async with producer.transaction():`` begins a transaction, commits it when the
        block ends, aborts it when the block raises."""
        return TransactionContext(self)

    async def send_offsets_to_transaction(
            self, offsets: Mapping[TopicPartition, Union[int, OffsetAndMetadata]],
            group_id: str) -> None:
        """Commit ``offsets`` ({TopicPartition: offset or OffsetAndMetadata}) for ``group_id``
        as part of the transaction. With a started AIOKafkaConsumer of that group in the
        process its member metadata is sent (the broker then fences zombie members);
        otherwise the group id alone, as aiokafka does."""
        self._ensure_transactional()
        if not self._in_txn:
            raise IllegalOperation("Not in the middle of a transaction")
        if not group_id or not isinstance(group_id, str):
            raise ValueError(group_id)
        parts = []
        for tp, o in offsets.items():
            if isinstance(o, OffsetAndMetadata):
                part = _TP(tp.topic, tp.partition, o.offset, metadata=o.metadata or None)
            else:
                part = _TP(tp.topic, tp.partition, o)
            parts.append(part)
        consumer = _consumers_by_group.get(group_id)
        with translated():
            if consumer is not None and consumer._consumer is not None \
                    and not consumer._consumer._closed:
                metadata = await consumer._consumer.consumer_group_metadata()
            else:
                metadata = _group_only_metadata(group_id)
            await self._p().send_offsets_to_transaction(parts, metadata)

    async def __aenter__(self) -> "AIOKafkaProducer":
        await self.start()
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        await self.stop()


def _not_bytes(key: Any, value: Any) -> None:
    """aiokafka's record builder's refusal of a str key or value (no serializer made it
    bytes); librdkafka would send its UTF-8."""
    raise TypeError("a bytes-like object is required, not 'str'")


async def _first_of(futs: Any, result: Any) -> Any:
    with translated():
        msgs = await asyncio.gather(*futs)
    return result(msgs[0]) if msgs else None


class BatchBuilder:
    """Records for one :meth:`AIOKafkaProducer.send_batch` (up to ``max_size`` bytes of keys
    and values, at least one record); keys and values go through the producer's serializers
    when it has them."""

    def __init__(self, max_size: int = 16384, key_serializer: Any = None,
                 value_serializer: Any = None) -> None:
        self._records: List[Tuple[Any, Any, Optional[int], Any]]
        self._records = []
        self._size = 0
        self._max_size = max_size
        self._key_serializer = key_serializer
        self._value_serializer = value_serializer
        self._closed = False

    def append(self, *, timestamp: Optional[int], key: Any, value: Any,
               headers: Optional[Iterable[Tuple[str, Optional[bytes]]]] = ()
               ) -> Optional[int]:
        """Add a record; returns its size estimate, or None when the batch is full (which
        closes it) or closed."""
        if self._closed:
            return None
        if self._key_serializer is not None:
            key = self._key_serializer(key)
        if self._value_serializer is not None:
            value = self._value_serializer(value)
        if type(value) is str or type(key) is str:
            _not_bytes(key, value)
        headers = list(headers or ())
        size = len(key or b"") + len(value or b"") + sum(
            len(k) + len(v or b"") for k, v in headers)
        if self._records and self._size + size > self._max_size:
            self.close()
            return None
        self._records.append((key, value, timestamp, headers or None))
        self._size += size
        return size

    def close(self) -> None:
        """Refuse further records (``append`` returns None); the batch can still be sent."""
        self._closed = True

    def size(self) -> int:
        """The bytes of keys, values and headers appended so far."""
        return self._size

    def record_count(self) -> int:
        """How many records were appended."""
        return len(self._records)


class TransactionContext:
    """The ``async with producer.transaction():`` block."""

    def __init__(self, producer: Any) -> None:
        self._producer = producer

    async def __aenter__(self) -> Any:
        await self._producer.begin_transaction()
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> Any:
        if exc_type is None:
            await self._producer.commit_transaction()
        else:
            await self._producer.abort_transaction()
