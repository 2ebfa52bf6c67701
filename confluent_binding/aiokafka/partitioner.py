"""aiokafka's partitioner (``aiokafka.partitioner``): Kafka's murmur2 placement of keyed
records, random placement of records without a key.

The producers place records with librdkafka's ``murmur2_random`` partitioner, which puts a
key on the same partition as this class (and as the Java client); a ``partitioner=`` of another
kind is called in Python for each record without an explicit partition.
"""

import random
import struct
from typing import Any

__all__ = ["DefaultPartitioner", "murmur2"]

_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


class DefaultPartitioner:
    """Kafka's default placement: ``murmur2(key)`` (as a positive 31-bit int) modulo the
    partition count; a record without a key goes to a random available partition (any
    partition when none is available)."""

    @classmethod
    def __call__(cls, key: Any, all_partitions: Any, available: Any) -> Any:
        """The partition for ``key`` (bytes or None), from ``all_partitions`` (sorted by id)
        or ``available``."""
        if key is None:
            return random.choice(available or all_partitions)
        return all_partitions[(murmur2(key) & 0x7FFFFFFF) % len(all_partitions)]


def murmur2(data: Any) -> Any:
    """The 32-bit MurmurHash2 of ``data`` (bytes), seeded as Kafka's Java client seeds it; an
    unsigned int."""
    data = bytes(data)
    length = len(data)
    whole = length & ~3
    h = (0x9747B28C ^ length) & _MASK
    for (k,) in struct.iter_unpack("<I", data[:whole]):
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = ((h * _M) & _MASK) ^ k
    if whole < length:
        for shift, byte in enumerate(data[whole:]):
            h ^= byte << (8 * shift)
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h
