"""AsyncSerializingProducer and AsyncDeserializingConsumer: the asyncio clients with key and
value serdes, as confluent-kafka's (created with ``await``, like its)."""

from typing import Generic, TypeVar

from .._serdes import (
    AsyncSharedClusterIdResolver,
    async_build_serdes,
    async_close_serdes,
    maybe_await,
    pop_serde_props,
    producing_context,
    propagate_async_cluster_id_resolver,
)
from ..error import (
    ConsumeError,
    KeyDeserializationError,
    KeySerializationError,
    ValueDeserializationError,
    ValueSerializationError,
)
from ..serialization import MessageField, SerializationContext
from ._consumer import AIOConsumer
from ._producer import AIOProducer

__all__ = ["AsyncSerializingProducer", "AsyncDeserializingConsumer"]

# the key and value types (``AsyncDeserializingConsumer[str, User]``), as confluent-kafka's
K = TypeVar("K")
V = TypeVar("V")


class _AwaitedInit:
    """``client = await Cls(conf, **kwargs)``: the constructor builds the serdes, which the
    asyncio Schema Registry builders do with ``await``."""

    def __new__(cls, *args, **kwargs):
        return cls._create(args, kwargs)

    @classmethod
    async def _create(cls, args, kwargs):
        self = super(_AwaitedInit, cls).__new__(cls)   # the client's own (a compiled base)
        await self._init(*args, **kwargs)
        return self

    async def _init_with_serdes(self, conf, key_prop, value_prop, init_client):
        if not isinstance(conf, dict):
            raise TypeError("expected configuration dict")
        specs, rest = pop_serde_props(conf, key_prop, value_prop)
        serdes, self._owned_serdes, client_conf = await async_build_serdes(specs, rest)
        try:
            init_client(client_conf)
            propagate_async_cluster_id_resolver(
                AsyncSharedClusterIdResolver(self.cluster_id), serdes)
        except BaseException:
            owned, self._owned_serdes = self._owned_serdes, []
            try:
                await async_close_serdes(owned)
            except Exception:
                pass
            raise
        return serdes

    async def _close_serdes(self):
        owned, self._owned_serdes = self._owned_serdes, []
        await async_close_serdes(owned)


class AsyncSerializingProducer(_AwaitedInit, AIOProducer, Generic[K, V]):
    """:class:`AIOProducer` whose produce() serializes key and value first, as
    confluent-kafka's ``AsyncSerializingProducer``: ``await AsyncSerializingProducer(conf)``.

    ``key.serializer``/``value.serializer`` are asyncio serializers (``AsyncAvroSerializer``
    and friends, awaited) or blocking callables (run on the loop: keep them cheap); or
    ``key.serializer.builder``/``value.serializer.builder`` build them
    (``AsyncAvroSerializerBuilder`` and friends), and :meth:`close` closes what was built.
    """

    async def _init(self, conf, **kwargs):
        self._key_serializer, self._value_serializer = await self._init_with_serdes(
            conf, "key.serializer", "value.serializer",
            lambda client_conf: AIOProducer.__init__(self, client_conf, **kwargs))

    async def close(self):
        """Deliver what is outstanding and close the producer, then the serializers it built."""
        if not self._closed:
            await super().close()
        await self._close_serdes()

    async def produce(self, topic, key=None, value=None, partition=-1, timestamp=0,
                      headers=None, on_delivery=None):
        """Serialize key and value (KeySerializationError/ValueSerializationError), enqueue,
        return a future resolved with the delivered Message. ``on_delivery(err, msg)`` is an
        extension: called with the delivery report as well."""
        ctx = producing_context(self._closed, topic, headers)
        if self._key_serializer is not None:
            try:
                key = await maybe_await(self._key_serializer(key, ctx))
            except Exception as e:
                raise KeySerializationError(e)
        ctx.field = MessageField.VALUE
        if self._value_serializer is not None:
            try:
                value = await maybe_await(self._value_serializer(value, ctx))
            except Exception as e:
                raise ValueSerializationError(e)
        return await AIOProducer.produce(self, topic, value, key, partition=partition,
                                         on_delivery=on_delivery, timestamp=timestamp,
                                         headers=headers)


class AsyncDeserializingConsumer(_AwaitedInit, AIOConsumer, Generic[K, V]):
    """:class:`AIOConsumer` whose poll() and consume() deserialize keys and values, as
    confluent-kafka's ``AsyncDeserializingConsumer``: ``await AsyncDeserializingConsumer(conf)``
    with ``key.deserializer``/``value.deserializer`` (asyncio or blocking) or their
    ``.builder`` properties.

    poll() raises ConsumeError for an error event; consume() returns error events as they are,
    in the batch. A deserializer that fails raises KeyDeserializationError or
    ValueDeserializationError carrying the raw message.
    """

    async def _init(self, conf, **kwargs):
        self._key_deserializer, self._value_deserializer = await self._init_with_serdes(
            conf, "key.deserializer", "value.deserializer",
            lambda client_conf: AIOConsumer.__init__(self, client_conf, **kwargs))

    async def close(self):
        """Leave the group and close the consumer, then the deserializers it built."""
        if not self._closed:
            await super().close()
        await self._close_serdes()

    async def poll(self, timeout=-1):
        """The next message, deserialized, or None after ``timeout`` seconds."""
        msg = await super().poll(timeout)
        if msg is None:
            return None
        if msg.error() is not None:
            raise ConsumeError(msg.error(), kafka_message=msg)
        return await self._deserialize(msg)

    async def consume(self, num_messages=1, timeout=-1):
        """Up to ``num_messages`` messages, deserialized (error events as they are)."""
        batch = await super().consume(num_messages, timeout)
        return [msg if msg.error() is not None else await self._deserialize(msg)
                for msg in batch]

    async def _deserialize(self, msg):
        # the key first: a key deserializer may leave state for the value's
        ctx = SerializationContext(msg.topic(), MessageField.KEY, msg.headers())
        key = msg.key()
        if self._key_deserializer is not None:
            try:
                key = await maybe_await(self._key_deserializer(key, ctx))
            except Exception as e:
                raise KeyDeserializationError(exception=e, kafka_message=msg)
        value = msg.value()
        if self._value_deserializer is not None:
            ctx.field = MessageField.VALUE
            try:
                value = await maybe_await(self._value_deserializer(value, ctx))
            except Exception as e:
                raise ValueDeserializationError(exception=e, kafka_message=msg)
        msg.set_key(key)
        msg.set_value(value)
        return msg
