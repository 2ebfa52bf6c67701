"""asyncio clients without threads: confluent-kafka's ``confluent_kafka.aio`` API.

librdkafka wakes the event loop itself (a pipe the loop watches); the loop thread serves the
client's queue without blocking. See :mod:`confluent_binding.aiokafka` for aiokafka's API on the
same engine.
"""

from .._core import DeliveryFuture
from . import producer  # noqa: F401  (loaded with the package, as confluent-kafka's)
from ._consumer import AIOConsumer
from ._producer import AIOProducer
from ._serializing import AsyncDeserializingConsumer, AsyncSerializingProducer

__all__ = ["AIOConsumer", "AIOProducer", "AsyncDeserializingConsumer", "AsyncSerializingProducer",
           "DeliveryFuture"]
