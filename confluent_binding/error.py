"""Exceptions raised by confluent_binding (pure Python), as ``confluent_kafka.error``."""

__all__ = [
    "KafkaException", "ConsumeError", "ProduceError", "KeySerializationError",
    "ValueSerializationError", "KeyDeserializationError", "ValueDeserializationError",
    "IllegalStateException", "ConcurrentModificationException",
]


class KafkaException(Exception):
    """An error from Kafka or librdkafka: ``args[0]`` is a :class:`KafkaError`."""


class IllegalStateException(RuntimeError):
    """A share consumer call made in a state that does not allow it (closed, not subscribed,
    not in explicit acknowledgement mode, records left unacknowledged): ``str(exc)`` is
    librdkafka's reason."""


class ConcurrentModificationException(RuntimeError):
    """A share consumer was called from a second thread while a call was in progress."""


class _KafkaClientError(KafkaException):
    """A KafkaException raised by a client call about a particular message."""

    def __init__(self, kafka_error, exception=None, kafka_message=None):
        super().__init__(kafka_error)
        self.exception = exception
        self.kafka_message = kafka_message

    @property
    def code(self):
        return self.args[0].code()

    @property
    def name(self):
        return self.args[0].name()


class ConsumeError(_KafkaClientError):
    """A message could not be consumed; ``kafka_message`` is the failing message."""


class ProduceError(_KafkaClientError):
    """A message could not be produced."""

    def __init__(self, kafka_error, exception=None):
        super().__init__(kafka_error, exception, None)


# serialization's SerializationError derives from KafkaException above, so it is imported only
# once KafkaException exists (either module may be imported first).
from .serialization import SerializationError  # noqa: E402


def _serde_error(code_name, exception):
    # _core imports this module while it loads, so KafkaError is looked up when first needed
    from ._core import KafkaError

    return KafkaError(getattr(KafkaError, code_name), str(exception))


class KeySerializationError(ProduceError, SerializationError):
    """The key serializer raised ``exception``; the message was not produced."""

    def __init__(self, exception=None):
        super().__init__(_serde_error("_KEY_SERIALIZATION", exception), exception=exception)


class ValueSerializationError(ProduceError, SerializationError):
    """The value serializer raised ``exception``; the message was not produced."""

    def __init__(self, exception=None):
        super().__init__(_serde_error("_VALUE_SERIALIZATION", exception), exception=exception)


class KeyDeserializationError(ConsumeError, SerializationError):
    """The key deserializer raised ``exception``; ``kafka_message`` holds the raw message."""

    def __init__(self, exception=None, kafka_message=None):
        super().__init__(_serde_error("_KEY_DESERIALIZATION", exception),
                         exception=exception, kafka_message=kafka_message)


class ValueDeserializationError(ConsumeError, SerializationError):
    """The value deserializer raised ``exception``; ``kafka_message`` holds the raw message."""

    def __init__(self, exception=None, kafka_message=None):
        super().__init__(_serde_error("_VALUE_DESERIALIZATION", exception),
                         exception=exception, kafka_message=kafka_message)


def __getattr__(name):
    # confluent_kafka.error also offers the compiled KafkaError and Message; _core imports this
    # module while it loads, so they are looked up on first use
    if name in ("KafkaError", "Message"):
        from . import _core

        return getattr(_core, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
