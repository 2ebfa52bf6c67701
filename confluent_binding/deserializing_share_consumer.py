"""DeserializingShareConsumer: a ShareConsumer whose poll() deserializes keys and values."""

# KafkaError, Message, Messages, MessageField, SerializationContext: confluent's module offers
# them too
from ._core import KafkaError, Message, ShareConsumer  # noqa: F401
from ._model import Messages  # noqa: F401
from ._serdes import deserialize
from .error import KeyDeserializationError, ValueDeserializationError
from .serialization import MessageField, SerializationContext  # noqa: F401

__all__ = ["DeserializingShareConsumer"]


class DeserializingShareConsumer(ShareConsumer):
    """A :class:`ShareConsumer` that deserializes keys and values, as confluent-kafka's.

    Extra configuration properties: ``key.deserializer`` and ``value.deserializer``, callables
    ``(bytes, SerializationContext) -> object``.

    :meth:`poll` returns a :class:`~confluent_binding.Messages` batch like the share consumer's.
    A record whose key or value cannot be deserialized stays in the batch with its raw bytes
    and ``error()`` set to a ``_KEY_DESERIALIZATION``/``_VALUE_DESERIALIZATION`` KafkaError, so
    it can still be acknowledged (for instance rejected); the rest of the batch is unaffected.
    """

    def __init__(self, conf):
        if not isinstance(conf, dict):
            raise TypeError("expected configuration dict")
        conf = dict(conf)
        self._key_deserializer = conf.pop("key.deserializer", None)
        self._value_deserializer = conf.pop("value.deserializer", None)
        super().__init__(conf)

    def poll(self, timeout=-1):
        """A batch of messages, their keys and values deserialized in place."""
        messages = super().poll(timeout)
        for msg in messages:
            if msg.error() is None:
                self._deserialize(msg)
        return messages

    def _deserialize(self, msg):
        if msg.topic() is None:
            raise TypeError("Message topic is None")
        try:
            deserialize(msg, self._key_deserializer, self._value_deserializer)
        except (KeyDeserializationError, ValueDeserializationError) as e:
            # the record stays in the batch, raw, marked: it can still be acknowledged
            msg.set_error(e.args[0])
