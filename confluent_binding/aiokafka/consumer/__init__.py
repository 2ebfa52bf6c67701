"""``aiokafka.consumer``: :class:`AIOKafkaConsumer`."""

from .consumer import AIOKafkaConsumer

__all__ = ["AIOKafkaConsumer"]
