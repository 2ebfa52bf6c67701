"""confluent_binding: a fast Python client for Apache Kafka over librdkafka.

A drop-in for confluent-kafka: ``import confluent_binding as confluent_kafka``.
"""

from ._core import (
    OFFSET_BEGINNING,
    OFFSET_END,
    OFFSET_INVALID,
    OFFSET_STORED,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    TIMESTAMP_NOT_AVAILABLE,
    Consumer,
    ConsumerGroupMetadata,
    KafkaError,
    Message,
    Producer,
    ShareConsumer,
    ThrottleEvent,
    TopicPartition,
    libversion,
)
from ._model import AcknowledgeType, Messages
from ._partitioners import consistent, fnv1a, murmur2
from ._version import __version__
from .admin.cluster import Node
from .admin.groups import ConsumerGroupState, ConsumerGroupTopicPartitions, ConsumerGroupType
from .admin.offsets import ElectionType, IsolationLevel
from .admin.topics import TopicCollection, TopicPartitionInfo, Uuid
from .deserializing_consumer import DeserializingConsumer
from .deserializing_share_consumer import DeserializingShareConsumer
from .error import (
    ConcurrentModificationException,
    ConsumeError,
    IllegalStateException,
    KafkaException,
    ProduceError,
)
from .serializing_producer import SerializingProducer

__all__ = [
    "Consumer", "ConsumerGroupMetadata", "KafkaError", "KafkaException", "Message", "Producer",
    "ThrottleEvent", "TopicPartition", "ConsumeError", "ProduceError",
    "SerializingProducer", "DeserializingConsumer",
    "OFFSET_BEGINNING", "OFFSET_END", "OFFSET_INVALID", "OFFSET_STORED",
    "TIMESTAMP_CREATE_TIME", "TIMESTAMP_LOG_APPEND_TIME", "TIMESTAMP_NOT_AVAILABLE",
    "libversion", "version", "murmur2", "consistent", "fnv1a",
    "ShareConsumer", "DeserializingShareConsumer", "Messages", "AcknowledgeType",
    "IllegalStateException", "ConcurrentModificationException",
    "ConsumerGroupState", "ConsumerGroupTopicPartitions", "ConsumerGroupType", "ElectionType",
    "IsolationLevel", "Node", "TopicCollection", "TopicPartitionInfo", "Uuid",
]


def version():
    """This package's version string, like confluent_kafka.version()."""
    return __version__
