"""SerializingProducer: a Producer whose produce() runs key and value serializers first."""

from typing import Generic, TypeVar

from ._core import Producer
from ._serdes import (  # noqa: F401  (confluent's module offers these helpers too)
    SharedClusterIdResolver,
    build_serdes,
    close_serdes,
    pop_serde_props,
    producing_context,
    propagate_cluster_id_resolver,
    set_up,
    take_serdes,
)
from ._types import DeliveryCallback, HeadersType  # noqa: F401  (confluent's module has them)
from .error import KeySerializationError, ValueSerializationError
from .serialization import MessageField, SerializationContext  # noqa: F401  (confluent has it)

__all__ = ["SerializingProducer"]

_VALUE = MessageField.VALUE  # (set per record: an enum member read from its class costs more)

# the key and value types (``SerializingProducer[str, User]``), as confluent-kafka's
K = TypeVar("K")
V = TypeVar("V")


class SerializingProducer(Producer, Generic[K, V]):
    """A :class:`Producer` that serializes keys and values, as confluent-kafka's.

    Extra configuration properties: ``key.serializer`` and ``value.serializer`` (callables
    ``(obj, SerializationContext) -> bytes``), or ``key.serializer.builder`` /
    ``value.serializer.builder`` (a :class:`~confluent_binding.serialization.SerializerBuilder`;
    what it builds belongs to the producer and is closed by :meth:`close`). Without a serializer
    the key or value is passed to :meth:`Producer.produce` as is.

    A serializer that raises turns into :class:`KeySerializationError` or
    :class:`ValueSerializationError` (``exception`` holds the original) and nothing is produced.
    """

    def __init__(self, conf):
        self._key_serializer, self._value_serializer, self._owned_serdes, client_conf = take_serdes(
            conf, "key.serializer", "value.serializer")
        self._closed = False
        set_up(self, (self._key_serializer, self._value_serializer), self._owned_serdes,
               lambda: super(SerializingProducer, self).__init__(client_conf))

    def close(self, *args, **kwargs):
        """Close the producer, then the serializers it built (ready-made ones stay open)."""
        result = super().close(*args, **kwargs)
        self._closed = True
        owned, self._owned_serdes = self._owned_serdes, []
        close_serdes(owned)
        return result

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()
        return None

    def produce(self, topic, key=None, value=None, partition=-1, on_delivery=None, timestamp=0,
                headers=None):
        """Serialize ``key`` and ``value`` (key first) and produce the message.

        Raises KeySerializationError/ValueSerializationError when a serializer fails,
        RuntimeError once closed and TypeError for a non-str topic, both before any serializer
        runs; otherwise what :meth:`Producer.produce` raises.
        """
        ctx = producing_context(self._closed, topic, headers)
        if self._key_serializer is not None:
            try:
                key = self._key_serializer(key, ctx)
            except Exception as e:
                raise KeySerializationError(e)
        ctx.field = _VALUE
        if self._value_serializer is not None:
            try:
                value = self._value_serializer(value, ctx)
            except Exception as e:
                raise ValueSerializationError(e)
        super().produce(topic, value, key, headers=headers, partition=partition,
                        timestamp=timestamp, on_delivery=on_delivery)
