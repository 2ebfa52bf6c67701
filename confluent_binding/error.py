"""Exceptions raised by confluent_binding, as ``confluent_kafka.error``."""

# The core raises these, so it defines them (as confluent-kafka's cimpl does); KafkaError and
# Message are here too, as in confluent_kafka.error.
from ._core import (
    ConcurrentModificationException,
    IllegalStateException,
    KafkaError,
    KafkaException,
    Message,
)

__all__ = [
    "KafkaException", "ConsumeError", "ProduceError", "KeySerializationError",
    "ValueSerializationError", "KeyDeserializationError", "ValueDeserializationError",
    "IllegalStateException", "ConcurrentModificationException", "KafkaError", "Message",
]


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


class SerializationError(KafkaException):
    """A value could not be serialized or deserialized."""


# its public home is confluent_kafka.serialization's path (which re-exports it from here)
SerializationError.__module__ = "confluent_binding.serialization"


def _serde_error(code_name, exception):
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
