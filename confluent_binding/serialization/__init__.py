"""Serializers and deserializers for message keys and values, as ``confluent_kafka.serialization``.

A serializer is a callable ``(obj, ctx) -> bytes | None``; a deserializer is a callable
``(bytes | None, ctx) -> obj``. :class:`SerializingProducer` and :class:`DeserializingConsumer`
take them through the ``key.serializer``/``value.serializer`` and ``key.deserializer``/
``value.deserializer`` configuration properties.

The built-in ones use the Java client's encodings: ``IntegerSerializer`` writes a big-endian int32,
``DoubleSerializer`` a big-endian IEEE 754 binary64, ``StringSerializer`` the string in its codec
(UTF-8 unless told otherwise). ``None`` stays ``None`` (a Kafka null) both ways.
"""

import struct
from enum import Enum
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._types import HeadersType  # noqa: F401  (confluent's module offers it too)
from ..error import KafkaException, SerializationError  # noqa: F401  (confluent's offers both)

__all__ = [
    "Deserializer", "DeserializerBuilder", "IntegerDeserializer", "IntegerSerializer",
    "DoubleDeserializer", "DoubleSerializer", "StringDeserializer", "StringSerializer",
    "MessageField", "SerializationContext", "SerializationError", "Serializer", "SerializerBuilder",
]

_INT32 = struct.Struct(">i")
_DOUBLE = struct.Struct(">d")


class MessageField(str, Enum):
    """Which part of a message a serializer is working on; ``str(field)`` is its plain value."""

    NONE = "none"
    KEY = "key"
    VALUE = "value"

    def __str__(self) -> str:
        return str(self.value)


class SerializationContext:
    """What a (de)serializer is told about the data: its topic, field and headers."""

    def __init__(self, topic: str, field: MessageField, headers: Any = None) -> None:
        self.topic = topic
        self.field = field
        self.headers = headers


class Serializer:
    """Base class of serializers: subclasses implement ``__call__(obj, ctx=None) -> bytes``."""

    __slots__: List[str] = []

    def __call__(self, obj: Any, ctx: Optional[SerializationContext] = None) -> Optional[bytes]:
        raise NotImplementedError

    def set_cluster_id_resolver(self, resolver: Callable[[], Any]) -> None:
        """Take a callable returning the Kafka cluster id (the client hands one over); ignored
        here."""

    def close(self) -> None:
        """Release what the serializer created for itself; nothing here."""


class Deserializer:
    """Base class of deserializers: subclasses implement ``__call__(value, ctx=None) -> object``."""

    __slots__: List[str] = []

    def __call__(self, value: Optional[bytes], ctx: Optional[SerializationContext] = None) -> Any:
        raise NotImplementedError

    def set_cluster_id_resolver(self, resolver: Callable[[], Any]) -> None:
        """Take a callable returning the Kafka cluster id (the client hands one over); ignored
        here."""

    def close(self) -> None:
        """Release what the deserializer created for itself; nothing here."""


class SerializerBuilder:
    """Builds a serializer when its client is created (``key.serializer.builder`` and friends).

    ``build(conf, is_key)`` receives the client's configuration and returns the serializer and
    the configuration it did not consume; the client owns (and closes) what a builder built.
    """

    __slots__: List[str] = []

    def build(self, conf: Dict[str, Any], is_key: bool) -> Tuple[Serializer, Dict[str, Any]]:
        """The serializer for this client's key (``is_key``) or value.

        Args:
            conf: the client's configuration.
            is_key: True for ``key.serializer.builder``, False for the value's.

        Returns:
            ``(serializer, conf)``: the serializer, and ``conf`` without the properties the
            builder consumed (the client passes the rest to librdkafka).
        """
        raise NotImplementedError


class DeserializerBuilder:
    """The deserializing counterpart of :class:`SerializerBuilder`."""

    __slots__: List[str] = []

    def build(self, conf: Dict[str, Any], is_key: bool) -> Tuple[Deserializer, Dict[str, Any]]:
        """The deserializer for this client's key (``is_key``) or value.

        Args:
            conf: the client's configuration.
            is_key: True for ``key.deserializer.builder``, False for the value's.

        Returns:
            ``(deserializer, conf)``: the deserializer, and ``conf`` without the properties the
            builder consumed.
        """
        raise NotImplementedError


def _pack(layout: struct.Struct, obj: Any) -> Optional[bytes]:
    if obj is None:
        return None
    try:
        return layout.pack(obj)
    except struct.error as e:
        raise SerializationError(str(e))


def _unpack(layout: struct.Struct, value: Optional[bytes]) -> Any:
    if value is None:
        return None
    try:
        return layout.unpack(value)[0]
    except struct.error as e:
        raise SerializationError(str(e))


class DoubleSerializer(Serializer):
    """float -> IEEE 754 binary64, big-endian (Java's DoubleSerializer)."""

    def __call__(self, obj: Optional[float],
                 ctx: Optional[SerializationContext] = None) -> Optional[bytes]:
        return _pack(_DOUBLE, obj)


class DoubleDeserializer(Deserializer):
    """IEEE 754 binary64, big-endian -> float (Java's DoubleDeserializer)."""

    def __call__(self, value: Optional[bytes],
                 ctx: Optional[SerializationContext] = None) -> Optional[float]:
        return _unpack(_DOUBLE, value)


class IntegerSerializer(Serializer):
    """int -> signed int32, big-endian (Java's IntegerSerializer)."""

    def __call__(self, obj: Optional[int],
                 ctx: Optional[SerializationContext] = None) -> Optional[bytes]:
        return _pack(_INT32, obj)


class IntegerDeserializer(Deserializer):
    """Signed int32, big-endian -> int (Java's IntegerDeserializer)."""

    def __call__(self, value: Optional[bytes],
                 ctx: Optional[SerializationContext] = None) -> Optional[int]:
        return _unpack(_INT32, value)


class StringSerializer(Serializer):
    """str -> bytes in ``codec`` (any Python codec name; ``utf_8`` by default)."""

    def __init__(self, codec: str = "utf_8") -> None:
        self.codec = codec

    def __call__(self, obj: Optional[str],
                 ctx: Optional[SerializationContext] = None) -> Optional[bytes]:
        if obj is None:
            return None
        try:
            return obj.encode(self.codec)
        except UnicodeError as e:
            raise SerializationError(str(e))


class StringDeserializer(Deserializer):
    """bytes in ``codec`` -> str (``utf_8`` by default)."""

    def __init__(self, codec: str = "utf_8") -> None:
        self.codec = codec

    def __call__(self, value: Optional[bytes],
                 ctx: Optional[SerializationContext] = None) -> Optional[str]:
        if value is None:
            return None
        try:
            return value.decode(self.codec)
        except UnicodeError as e:
            raise SerializationError(str(e))
