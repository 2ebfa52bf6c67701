"""aiokafka's small helpers (``aiokafka.util``)."""

import asyncio
from asyncio import get_running_loop, wait_for
from typing import Any, TypeVar

from .structs import OffsetAndMetadata, TopicPartition

__all__ = ["INTEGER_MAX_VALUE", "INTEGER_MIN_VALUE", "NO_EXTENSIONS", "create_future",
           "create_task", "commit_structure_validate", "get_running_loop",
           "parse_kafka_version", "wait_for"]

T = TypeVar("T")

#: Kafka's int32 bounds.
INTEGER_MAX_VALUE = 2 ** 31 - 1
INTEGER_MIN_VALUE = -(2 ** 31)
#: aiokafka's switch for its C record codecs; records are librdkafka's business here.
NO_EXTENSIONS = True


def create_future(loop: Any = None) -> Any:
    """A new future on ``loop`` (the running loop by default)."""
    if loop is None:
        loop = asyncio.get_running_loop()
    return loop.create_future()


def create_task(coro: Any) -> Any:
    """Schedule ``coro`` on the running loop; returns its task."""
    return asyncio.get_running_loop().create_task(coro)


def parse_kafka_version(api_version: Any) -> Any:
    """``"2.8"`` or ``"2.8.1"`` as a 3-tuple of ints (ValueError outside 0.9 to 2.x, the
    range aiokafka accepts)."""
    try:
        parts = tuple(int(p) for p in str(api_version).split("."))
    except ValueError:
        raise ValueError(api_version) from None
    if not 2 <= len(parts) <= 3:
        raise ValueError(api_version)
    version = (parts + (0,))[:3]
    if not (0, 9) <= version < (3, 0):
        raise ValueError(api_version)
    return version


def commit_structure_validate(offsets: Any) -> Any:
    """``offsets`` ({TopicPartition: offset, (offset, metadata) or OffsetAndMetadata}) as
    {TopicPartition: OffsetAndMetadata}; ValueError/TypeError for anything else."""
    if not offsets or not isinstance(offsets, dict):
        raise ValueError(offsets)
    out = {}
    for tp, value in offsets.items():
        if not isinstance(tp, TopicPartition):
            raise TypeError("Key should be TopicPartition instance")
        if isinstance(value, int):
            offset, metadata = value, ""
        else:
            try:
                offset, metadata = value
            except Exception as exc:
                raise ValueError(offsets) from exc
            if not isinstance(metadata, str):
                raise TypeError("Metadata should be a string")
        out[tp] = OffsetAndMetadata(offset, metadata)
    return out
