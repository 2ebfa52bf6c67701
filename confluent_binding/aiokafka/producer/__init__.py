"""``aiokafka.producer``: :class:`AIOKafkaProducer`."""

from .producer import AIOKafkaProducer

__all__ = ["AIOKafkaProducer"]
