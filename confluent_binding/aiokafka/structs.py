"""aiokafka's record, partition and metadata types (``aiokafka.structs``)."""

from dataclasses import dataclass
from typing import Any, Generic, List, NamedTuple, Optional, Sequence, Tuple, TypeVar, Union

__all__ = ["BrokerMetadata", "ConsumerRecord", "OffsetAndMetadata", "PartitionMetadata",
           "RecordMetadata", "TopicPartition"]

KT = TypeVar("KT")
VT = TypeVar("VT")


class TopicPartition(NamedTuple):
    """A partition of a topic."""
    topic: str
    partition: int


class BrokerMetadata(NamedTuple):
    """A broker of the cluster: its id, host, port and rack (None when it has none)."""
    nodeId: Union[int, str]  # noqa: N815 (aiokafka's field name)
    host: str
    port: int
    rack: Optional[str]


class PartitionMetadata(NamedTuple):
    """A partition's leader, replicas and in-sync replicas, and its error (None if none)."""
    topic: str
    partition: int
    leader: int
    replicas: List[int]
    isr: List[int]
    error: Any


class OffsetAndMetadata(NamedTuple):
    """An offset to commit, with its metadata string."""
    offset: int
    metadata: str


class RecordMetadata(NamedTuple):
    """What a send() resolves to: where the record was written. ``timestamp`` is the broker's
    time when the topic uses LogAppendTime (``timestamp_type`` 1), else the record's."""
    topic: str
    partition: int
    topic_partition: TopicPartition
    offset: int
    timestamp: Optional[int]
    timestamp_type: int
    log_start_offset: Optional[int]


@dataclass
class ConsumerRecord(Generic[KT, VT]):
    """One consumed record; ``key``/``value`` are deserialized when the consumer has a
    deserializer, ``serialized_*_size`` are the sizes before (-1 for None)."""
    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: int
    key: Optional[KT]
    value: Optional[VT]
    checksum: Optional[int]
    serialized_key_size: int
    serialized_value_size: int
    headers: Sequence[Tuple[str, bytes]]


class OffsetAndTimestamp(NamedTuple):
    """What offsets_for_times() finds: the first offset at or after the timestamp."""
    offset: int
    timestamp: Optional[int]
