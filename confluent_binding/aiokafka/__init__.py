"""aiokafka's API on the binding's asyncio engine: ``from confluent_binding import aiokafka``.

AIOKafkaProducer and AIOKafkaConsumer take aiokafka's keyword arguments (mapped onto
librdkafka properties, see ``PRODUCER_KEYWORDS``/``CONSUMER_KEYWORDS``) and offer its calls;
records are aiokafka's ``ConsumerRecord``/``RecordMetadata``. What differs from aiokafka:

- errors are :class:`confluent_binding.KafkaException` (librdkafka's codes and reasons), not
  ``aiokafka.errors`` classes;
- ``ssl_context``, ``sasl_oauth_token_provider``, ``api_version`` and custom ``partitioner``
  callables are not supported (use librdkafka's ``ssl.*`` properties through ``extra``; the
  default partitioner is librdkafka's murmur2_random, aiokafka's too);
- ``group_id=None`` (no group): a private group id is used with auto-commit off; commits are
  then the application's business, as in aiokafka;
- ``send_offsets_to_transaction(offsets, group_id)`` needs a started AIOKafkaConsumer of that
  group in the process (its full group metadata is sent, as KIP-447 wants);
- librdkafka properties without an aiokafka keyword can be given as ``extra={...}``.
"""

import asyncio
import uuid
import weakref

from .. import OFFSET_BEGINNING, OFFSET_END, KafkaError
from .. import TopicPartition as _TP
from ..aio import AIOConsumer, AIOProducer
from ..error import KafkaException
from .structs import (
    ConsumerRecord,
    OffsetAndMetadata,
    OffsetAndTimestamp,
    RecordMetadata,
    TopicPartition,
)

__all__ = ["AIOKafkaProducer", "AIOKafkaConsumer", "ConsumerRebalanceListener", "ConsumerRecord",
           "RecordMetadata", "TopicPartition", "OffsetAndMetadata", "OffsetAndTimestamp"]

_COMMON_KEYWORDS = {
    "client_id": "client.id",
    "metadata_max_age_ms": "metadata.max.age.ms",
    "retry_backoff_ms": "retry.backoff.ms",
    "connections_max_idle_ms": "connections.max.idle.ms",
    "security_protocol": "security.protocol",
    "sasl_mechanism": "sasl.mechanism",
    "sasl_plain_username": "sasl.username",
    "sasl_plain_password": "sasl.password",
    "sasl_kerberos_service_name": "sasl.kerberos.service.name",
}
PRODUCER_KEYWORDS = dict(_COMMON_KEYWORDS, **{
    "acks": "acks",
    "compression_type": "compression.type",
    "max_batch_size": "batch.size",
    "max_request_size": "message.max.bytes",
    "linger_ms": "linger.ms",
    "request_timeout_ms": "request.timeout.ms",
    "enable_idempotence": "enable.idempotence",
    "transactional_id": "transactional.id",
    "transaction_timeout_ms": "transaction.timeout.ms",
})
CONSUMER_KEYWORDS = dict(_COMMON_KEYWORDS, **{
    "group_id": "group.id",
    "group_instance_id": "group.instance.id",
    "fetch_max_wait_ms": "fetch.wait.max.ms",
    "fetch_min_bytes": "fetch.min.bytes",
    "fetch_max_bytes": "fetch.max.bytes",
    "max_partition_fetch_bytes": "max.partition.fetch.bytes",
    "auto_offset_reset": "auto.offset.reset",
    "enable_auto_commit": "enable.auto.commit",
    "auto_commit_interval_ms": "auto.commit.interval.ms",
    "check_crcs": "check.crcs",
    "session_timeout_ms": "session.timeout.ms",
    "heartbeat_interval_ms": "heartbeat.interval.ms",
    "max_poll_interval_ms": "max.poll.interval.ms",
    "isolation_level": "isolation.level",
})
_ACCEPTED = {"loop", "api_version", "request_timeout_ms", "max_poll_records",
             "partition_assignment_strategy", "exclude_internal_topics", "rebalance_timeout_ms",
             "consumer_timeout_ms", "sasl_kerberos_domain_name"}
_UNSUPPORTED = {"ssl_context", "sasl_oauth_token_provider", "partitioner"}

_consumers_by_group = weakref.WeakValueDictionary()


def _conf(keywords, bootstrap_servers, kwargs, extra):
    if isinstance(bootstrap_servers, (list, tuple)):
        bootstrap_servers = ",".join(bootstrap_servers)
    conf = {"bootstrap.servers": bootstrap_servers}
    for name, value in kwargs.items():
        if name in _UNSUPPORTED:
            if value is not None:
                raise ValueError("%s is not supported; give librdkafka's properties in extra"
                                 % name)
        elif name in keywords:
            if value is not None:
                conf[keywords[name]] = (str(value).lower() if isinstance(value, bool)
                                        else str(value))
        elif name not in _ACCEPTED:
            raise TypeError("unexpected keyword argument %r" % name)
    conf.update(extra or {})
    return conf


def _metadata(msg):
    tstype, ts = msg.timestamp()
    tp = TopicPartition(msg.topic(), msg.partition())
    return RecordMetadata(tp.topic, tp.partition, tp, msg.offset(),
                          ts if tstype else None, max(tstype - 1, 0), None)


def _raise_for(err):
    raise KafkaException(err)


class AIOKafkaProducer:
    """aiokafka's producer. ``await send(...)`` returns a future resolved with
    :class:`RecordMetadata`; ``send_and_wait`` awaits it too."""

    def __init__(self, *, bootstrap_servers="localhost", key_serializer=None,
                 value_serializer=None, extra=None, **kwargs):
        self._conf = _conf(PRODUCER_KEYWORDS, bootstrap_servers, kwargs, extra)
        self._key_serializer = key_serializer
        self._value_serializer = value_serializer
        self._producer = None
        self._in_txn = False

    async def start(self):
        if self._producer is None:
            self._producer = AIOProducer(self._conf)
            if "transactional.id" in self._conf:
                await self._producer.init_transactions()

    async def stop(self):
        if self._producer is not None:
            await self._producer.close()

    async def flush(self):
        await self._p().flush()

    def _p(self):
        if self._producer is None:
            raise KafkaException(KafkaError(KafkaError._STATE, "producer is not started"))
        return self._producer

    async def partitions_for(self, topic):
        md = await self._p().list_topics(topic, 10)
        t = md.topics.get(topic)
        if t is None or t.error is not None:
            return set()
        return set(t.partitions)

    async def send(self, topic, value=None, key=None, partition=None, timestamp_ms=None,
                   headers=None):
        if self._key_serializer is not None:
            key = self._key_serializer(key)
        if self._value_serializer is not None:
            value = self._value_serializer(value)
        fut = await self._p().produce(topic, value, key,
                                      partition=-1 if partition is None else partition,
                                      timestamp=timestamp_ms or 0, headers=headers)
        return _mapped(fut, _metadata)

    async def send_and_wait(self, topic, value=None, key=None, partition=None,
                            timestamp_ms=None, headers=None):
        return await (await self.send(topic, value, key, partition, timestamp_ms, headers))

    def create_batch(self):
        return BatchBuilder()

    async def send_batch(self, batch, topic, *, partition):
        """Send a batch; the future resolves with the RecordMetadata of its first record once
        every record is delivered."""
        futs = [await self._p().produce(topic, v, k, partition=partition, timestamp=ts or 0,
                                        headers=h) for k, v, ts, h in batch._records]
        batch._records = []
        return asyncio.ensure_future(_first_of(futs))

    async def begin_transaction(self):
        await self._p().begin_transaction()
        self._in_txn = True

    async def commit_transaction(self):
        self._in_txn = False
        await self._p().commit_transaction()

    async def abort_transaction(self):
        self._in_txn = False
        await self._p().abort_transaction()

    def transaction(self):
        return _Transaction(self)

    async def send_offsets_to_transaction(self, offsets, group_id):
        consumer = _consumers_by_group.get(group_id)
        if consumer is None or consumer._consumer is None:
            raise ValueError("send_offsets_to_transaction needs a started AIOKafkaConsumer of "
                             "group %r in this process" % (group_id,))
        parts = [_TP(tp.topic, tp.partition,
                     o.offset if isinstance(o, OffsetAndMetadata) else o)
                 for tp, o in offsets.items()]
        await self._p().send_offsets_to_transaction(
            parts, await consumer._consumer.consumer_group_metadata())

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc_info):
        await self.stop()


async def _first_of(futs):
    msgs = await asyncio.gather(*futs)
    return _metadata(msgs[0]) if msgs else None


def _mapped(fut, convert):
    out = fut.get_loop().create_future()

    def done(f):
        if out.done():
            return
        if f.cancelled():
            out.cancel()
        elif f.exception() is not None:
            out.set_exception(f.exception())
        else:
            out.set_result(convert(f.result()))
    fut.add_done_callback(done)
    return out


class BatchBuilder:
    """Records for one send_batch()."""

    def __init__(self, max_records=10_000):
        self._records = []
        self._max = max_records

    def append(self, *, timestamp, key, value, headers=()):
        """Add a record; None when the batch is full."""
        if len(self._records) >= self._max:
            return None
        self._records.append((key, value, timestamp, list(headers) or None))
        return len(self._records)

    def record_count(self):
        return len(self._records)


class _Transaction:
    def __init__(self, producer):
        self._producer = producer

    async def __aenter__(self):
        await self._producer.begin_transaction()
        return self

    async def __aexit__(self, exc_type, exc, tb):
        if exc_type is None:
            await self._producer.commit_transaction()
        else:
            await self._producer.abort_transaction()


class ConsumerRebalanceListener:
    """aiokafka's listener: override on_partitions_revoked/on_partitions_assigned (plain
    methods or coroutines); they receive sets of TopicPartition."""

    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        pass


def _tps(parts):
    return {TopicPartition(p.topic, p.partition) for p in parts}


def _record(msg, key_deserializer, value_deserializer):
    tstype, ts = msg.timestamp()
    key, value = msg.key(), msg.value()
    return ConsumerRecord(
        msg.topic(), msg.partition(), msg.offset(), ts, max(tstype - 1, 0),
        key_deserializer(key) if key_deserializer is not None else key,
        value_deserializer(value) if value_deserializer is not None else value,
        None, -1 if key is None else len(key), -1 if value is None else len(value),
        tuple(msg.headers() or ()))


class AIOKafkaConsumer:
    """aiokafka's consumer."""

    def __init__(self, *topics, bootstrap_servers="localhost", key_deserializer=None,
                 value_deserializer=None, extra=None, **kwargs):
        self._conf = _conf(CONSUMER_KEYWORDS, bootstrap_servers, kwargs, extra)
        self._max_poll_records = kwargs.get("max_poll_records")
        if "group.id" not in self._conf:
            self._conf["group.id"] = "no-group-" + uuid.uuid4().hex
            self._conf.setdefault("enable.auto.commit", "false")
        self._topics = list(topics)
        self._key_deserializer = key_deserializer
        self._value_deserializer = value_deserializer
        self._consumer = None
        self._listener = None
        self._pattern = None
        self._manual = []
        self._held = []

    async def start(self):
        if self._consumer is None:
            self._consumer = AIOConsumer(self._conf)
            _consumers_by_group[self._conf["group.id"]] = self
            if self._topics or self._pattern:
                self._subscribe_now()
            elif self._manual:
                await self._consumer.assign(self._manual)

    async def stop(self):
        if self._consumer is not None:
            await self._consumer.close()

    def _c(self):
        if self._consumer is None:
            raise KafkaException(KafkaError(KafkaError._STATE, "consumer is not started"))
        return self._consumer

    # -- subscription --

    def subscribe(self, topics=(), pattern=None, listener=None):
        if bool(topics) == bool(pattern):
            raise ValueError("subscribe needs topics or a pattern, not both")
        self._topics = list(topics)
        self._pattern = pattern
        self._listener = listener
        if self._consumer is not None:
            self._subscribe_now()

    def _subscribe_now(self):
        names = self._topics or ["^" + self._pattern.lstrip("^")]
        listener = self._listener
        kw = {}
        if listener is not None:
            kw["on_assign"] = lambda c, parts: listener.on_partitions_assigned(_tps(parts))
            kw["on_revoke"] = lambda c, parts: listener.on_partitions_revoked(_tps(parts))
        self._consumer._consumer.subscribe(
            names, **{k: self._consumer._rebalance_cb(k[3:], v) for k, v in kw.items()})

    def subscription(self):
        return set(self._topics)

    def unsubscribe(self):
        self._topics, self._pattern = [], None
        self._c()._consumer.unsubscribe()

    def assign(self, partitions):
        self._manual = [_TP(tp.topic, tp.partition) for tp in partitions]
        if self._consumer is not None:
            self._consumer._consumer.assign(self._manual)

    def assignment(self):
        return _tps(self._c()._consumer.assignment())

    # -- fetching --

    async def getone(self, *partitions):
        while True:
            for i, rec in enumerate(self._held):
                if not partitions or (rec.topic, rec.partition) in partitions:
                    return self._held.pop(i)
            msg = await self._c().poll(-1)
            if msg is None:
                continue
            if msg.error() is not None:
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    continue
                _raise_for(msg.error())
            rec = _record(msg, self._key_deserializer, self._value_deserializer)
            if not partitions or (rec.topic, rec.partition) in partitions:
                return rec
            self._held.append(rec)

    async def getmany(self, *partitions, timeout_ms=0, max_records=None):
        limit = max_records or self._max_poll_records or 500
        msgs = await self._c().consume(limit - min(len(self._held), limit), 0)
        if not msgs and not self._held and timeout_ms:
            msgs = await self._c().consume(1, timeout_ms / 1000.0)
            if msgs:
                msgs += await self._c().consume(limit - 1, 0)
        out = {}
        records = self._held
        self._held = []
        for msg in msgs:
            err = msg.error()
            if err is not None:
                if err.code() != KafkaError._PARTITION_EOF:
                    self._held.extend(records)
                    _raise_for(err)
                continue
            records.append(_record(msg, self._key_deserializer, self._value_deserializer))
        for rec in records:
            if partitions and (rec.topic, rec.partition) not in partitions:
                self._held.append(rec)
            else:
                out.setdefault(TopicPartition(rec.topic, rec.partition), []).append(rec)
        return out

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.getone()
        except RuntimeError:
            if self._consumer is not None and self._consumer._closed:
                raise StopAsyncIteration from None
            raise

    # -- positions and offsets --

    def seek(self, partition, offset):
        tp = _TP(partition.topic, partition.partition, offset)
        try:
            self._c()._consumer.seek(tp)
        except KafkaException:
            # not fetching yet (just assigned): start the partition at that offset instead
            parts = [tp if (p.topic, p.partition) == (tp.topic, tp.partition) else p
                     for p in self._c()._consumer.assignment()]
            self._c()._consumer.assign(parts)

    async def seek_to_beginning(self, *partitions):
        for tp in partitions or self.assignment():
            self.seek(tp, OFFSET_BEGINNING)

    async def seek_to_end(self, *partitions):
        for tp in partitions or self.assignment():
            self.seek(tp, OFFSET_END)

    async def commit(self, offsets=None):
        if offsets is None:
            await self._c().commit(asynchronous=False)
            return
        parts = [_TP(tp.topic, tp.partition,
                     o.offset if isinstance(o, OffsetAndMetadata) else o)
                 for tp, o in offsets.items()]
        await self._c().commit(offsets=parts, asynchronous=False)

    async def committed(self, partition):
        res = await self._c().committed([_TP(partition.topic, partition.partition)], 10)
        return res[0].offset if res[0].offset >= 0 else None

    async def position(self, partition):
        res = await self._c().position([_TP(partition.topic, partition.partition)])
        if res[0].offset >= 0:
            return res[0].offset
        committed = await self.committed(partition)
        if committed is not None:
            return committed
        lo, hi = await self._c().get_watermark_offsets(
            _TP(partition.topic, partition.partition), 10)
        return lo if self._conf.get("auto.offset.reset", "latest") in ("earliest",
                                                                        "smallest") else hi

    def highwater(self, partition):
        lo, hi = self._c()._consumer.get_watermark_offsets(
            _TP(partition.topic, partition.partition), cached=True)
        return hi if hi >= 0 else None

    def pause(self, *partitions):
        self._c()._consumer.pause([_TP(tp.topic, tp.partition) for tp in partitions])
        self._paused = set(getattr(self, "_paused", set())) | set(partitions)

    def resume(self, *partitions):
        self._c()._consumer.resume([_TP(tp.topic, tp.partition) for tp in partitions])
        self._paused = set(getattr(self, "_paused", set())) - set(partitions)

    def paused(self):
        return set(getattr(self, "_paused", set()))

    async def beginning_offsets(self, partitions):
        return {tp: (await self._c().get_watermark_offsets(_TP(tp.topic, tp.partition), 10))[0]
                for tp in partitions}

    async def end_offsets(self, partitions):
        return {tp: (await self._c().get_watermark_offsets(_TP(tp.topic, tp.partition), 10))[1]
                for tp in partitions}

    async def offsets_for_times(self, timestamps):
        res = await self._c().offsets_for_times(
            [_TP(tp.topic, tp.partition, ts) for tp, ts in timestamps.items()], 10)
        out = {}
        for (tp, ts), r in zip(timestamps.items(), res):
            out[tp] = OffsetAndTimestamp(r.offset, ts) if r.offset >= 0 else None
        return out

    async def topics(self):
        md = await self._c().list_topics(None, 10)
        return set(md.topics)

    def partitions_for_topic(self, topic):
        md = self._c()._consumer.list_topics(topic, 10)
        t = md.topics.get(topic)
        return None if t is None or t.error is not None else set(t.partitions)

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc_info):
        await self.stop()
