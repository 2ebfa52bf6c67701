"""aiokafka's record and partition types."""

from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Sequence, Tuple

__all__ = ["TopicPartition", "OffsetAndMetadata", "OffsetAndTimestamp", "RecordMetadata",
           "ConsumerRecord"]


class TopicPartition(NamedTuple):
    topic: str
    partition: int


class OffsetAndMetadata(NamedTuple):
    offset: int
    metadata: str


class OffsetAndTimestamp(NamedTuple):
    offset: int
    timestamp: Optional[int]


class RecordMetadata(NamedTuple):
    """What a send() resolves to."""
    topic: str
    partition: int
    topic_partition: TopicPartition
    offset: int
    timestamp: Optional[int]
    timestamp_type: int
    log_start_offset: Optional[int]


@dataclass
class ConsumerRecord:
    """One consumed record."""
    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: int
    key: Any
    value: Any
    checksum: Optional[int]
    serialized_key_size: int
    serialized_value_size: int
    headers: Sequence[Tuple[str, bytes]]
