"""AsyncSerializingProducer and AsyncDeserializingConsumer: the asyncio clients over the
serializing ones (serializers run inside produce(), deserializers inside poll())."""

from ..deserializing_consumer import DeserializingConsumer
from ..serializing_producer import SerializingProducer
from ._consumer import AIOConsumer
from ._producer import AIOProducer

__all__ = ["AsyncSerializingProducer", "AsyncDeserializingConsumer"]


class AsyncSerializingProducer(AIOProducer):
    """:class:`AIOProducer` whose produce() serializes key and value first, as
    confluent-kafka's ``AsyncSerializingProducer`` (configuration: ``key.serializer``,
    ``value.serializer`` as for :class:`~confluent_binding.SerializingProducer`)."""

    _client_type = SerializingProducer

    async def produce(self, topic, key=None, value=None, partition=-1, on_delivery=None,
                      timestamp=0, headers=None):
        """Serialize, enqueue, return a future resolved with the delivered Message."""
        return await AIOProducer.produce(self, topic, value, key, partition=partition,
                                         on_delivery=on_delivery, timestamp=timestamp,
                                         headers=headers)


class AsyncDeserializingConsumer(AIOConsumer):
    """:class:`AIOConsumer` whose poll() deserializes key and value, as confluent-kafka's
    ``AsyncDeserializingConsumer`` (``key.deserializer``, ``value.deserializer``); poll()
    raises ConsumeError for an error event. consume() is not supported, as there."""

    _client_type = DeserializingConsumer

    async def consume(self, num_messages=1, timeout=-1):
        raise NotImplementedError

    async def _next_batch(self):
        msg = await self.poll(0)
        return [] if msg is None else [msg]
