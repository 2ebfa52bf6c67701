"""Type stubs for confluent_binding.aio.producer (the asyncio producer, also importable here)."""

from . import AIOProducer as AIOProducer

__all__ = ["AIOProducer"]
