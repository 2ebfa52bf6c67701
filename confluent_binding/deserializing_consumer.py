"""DeserializingConsumer: a Consumer whose poll() runs key and value deserializers."""

from typing import Generic, TypeVar

from ._core import Consumer, Message  # noqa: F401  (confluent's module offers Message too)
from ._serdes import (  # noqa: F401  (confluent's module offers these helpers too)
    SharedClusterIdResolver,
    build_serdes,
    close_serdes,
    deserialize,
    pop_serde_props,
    propagate_cluster_id_resolver,
    set_up,
    take_serdes,
)
from .error import (  # noqa: F401  (and these, as confluent's does)
    ConsumeError,
    KeyDeserializationError,
    ValueDeserializationError,
)
from .serialization import MessageField, SerializationContext  # noqa: F401

__all__ = ["DeserializingConsumer"]

# the key and value types (``DeserializingConsumer[str, User]``), as confluent-kafka's
K = TypeVar("K")
V = TypeVar("V")


class DeserializingConsumer(Consumer, Generic[K, V]):
    """A :class:`Consumer` that deserializes keys and values, as confluent-kafka's.

    Extra configuration properties: ``key.deserializer`` and ``value.deserializer`` (callables
    ``(bytes, SerializationContext) -> object``), or ``key.deserializer.builder`` /
    ``value.deserializer.builder`` (a
    :class:`~confluent_binding.serialization.DeserializerBuilder`; what it builds belongs to the
    consumer and is closed by :meth:`close`).

    :meth:`poll` raises :class:`ConsumeError` for an error event, and
    :class:`KeyDeserializationError`/:class:`ValueDeserializationError` when a deserializer
    fails (``kafka_message`` holds the raw message).
    """

    def __init__(self, conf):
        (self._key_deserializer, self._value_deserializer, self._owned_serdes,
         client_conf) = take_serdes(conf, "key.deserializer", "value.deserializer")
        set_up(self, (self._key_deserializer, self._value_deserializer), self._owned_serdes,
               lambda: super(DeserializingConsumer, self).__init__(client_conf))

    def close(self):
        """Close the consumer, then the deserializers it built (ready-made ones stay open)."""
        super().close()
        owned, self._owned_serdes = self._owned_serdes, []
        close_serdes(owned)

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()
        return None

    def poll(self, timeout=-1):
        """The next message with its key and value deserialized, or None on timeout."""
        msg = super().poll(timeout)
        if msg is None:
            return None
        error = msg.error()
        if error is not None:
            raise ConsumeError(error, kafka_message=msg)
        return deserialize(msg, self._key_deserializer, self._value_deserializer)

    def consume(self, num_messages=1, timeout=-1):
        """Not supported, as in confluent-kafka: use :meth:`poll`."""
        raise NotImplementedError
