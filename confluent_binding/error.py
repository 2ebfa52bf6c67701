"""Exceptions raised by confluent_binding (pure Python)."""

__all__ = ["KafkaException", "ConsumeError", "ProduceError"]


class KafkaException(Exception):
    """An error from Kafka or librdkafka: ``args[0]`` is a :class:`KafkaError`."""


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
