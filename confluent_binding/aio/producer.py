"""``confluent_kafka.aio.producer``: the asyncio producer, also importable from here."""

from ._producer import AIOProducer

__all__ = ["AIOProducer"]
