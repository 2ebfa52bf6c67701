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
    _set_configured_oauth_cb,
    build_info,
    libversion,
)
from ._model import AcknowledgeType, Messages
from ._partitioners import consistent, fnv1a, murmur2
from ._version import __version__, version  # noqa: F401  (confluent_kafka.__version__)
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


def _configured_oauth_cb(conf):
    """The oauth_cb a configuration names by its properties (AWS IAM), imported only then."""
    if conf.get("sasl.oauthbearer.metadata.authentication.type") != "aws_iam":
        return None
    from . import _aws_iam

    return _aws_iam.oauth_cb_for(conf)


_set_configured_oauth_cb(_configured_oauth_cb)

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
    "install_as_confluent_kafka", "install_as_aiokafka", "build_info",
]


def install_as_confluent_kafka():
    """Make ``import confluent_kafka`` and every ``confluent_kafka.x`` import resolve to this
    package's modules (the same module objects), for code written for confluent-kafka that you
    do not own. Call it before that code first imports ``confluent_kafka``. Without a code
    change: ``CONFLUENT_BINDING_AS=confluent_kafka`` in the environment, or ``python -m
    confluent_binding run app.py``."""
    from . import _alias

    _alias.install("confluent_kafka")


def install_as_aiokafka():
    """Make ``import aiokafka`` and ``aiokafka.x`` resolve to :mod:`confluent_binding.aiokafka`
    (``CONFLUENT_BINDING_AS=aiokafka``, or ``python -m confluent_binding run --as aiokafka``)."""
    from . import _alias

    _alias.install("aiokafka")


# ``import confluent_kafka`` loads its cimpl module too (programs use confluent_kafka.cimpl.X
# without importing it)
from . import cimpl  # noqa: E402, F401
