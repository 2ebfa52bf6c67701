"""confluent-kafka's ``confluent_kafka.cimpl`` names, for programs that import from it: the
compiled classes, the admin request types and librdkafka's enum constants."""

from ._core import (
    OFFSET_BEGINNING,
    OFFSET_END,
    OFFSET_INVALID,
    OFFSET_STORED,
    SHARE_ACKNOWLEDGE_TYPE_ACCEPT,
    SHARE_ACKNOWLEDGE_TYPE_REJECT,
    SHARE_ACKNOWLEDGE_TYPE_RELEASE,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    TIMESTAMP_NOT_AVAILABLE,
    Consumer,
    KafkaError,
    Message,
    Producer,
    ShareConsumer,
    TopicPartition,
    _AdminClientImpl,
    libversion,
)
from ._partitioners import consistent, fnv1a, murmur2
from ._version import version
from .admin import (
    CONFIG_SOURCE_DEFAULT_CONFIG,
    CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG,
    CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG,
    CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG,
    CONFIG_SOURCE_GROUP_CONFIG,
    CONFIG_SOURCE_STATIC_BROKER_CONFIG,
    CONFIG_SOURCE_UNKNOWN_CONFIG,
    RESOURCE_ANY,
    RESOURCE_BROKER,
    RESOURCE_GROUP,
    RESOURCE_TOPIC,
    RESOURCE_TRANSACTIONAL_ID,
    RESOURCE_UNKNOWN,
    NewPartitions,
    NewTopic,
    Uuid,
)
from .admin.acls import AclOperation, AclPermissionType, ResourcePatternType
from .admin.configs import AlterConfigOpType
from .admin.groups import ConsumerGroupState, ConsumerGroupType
from .admin.offsets import (
    OFFSET_SPEC_EARLIEST,
    OFFSET_SPEC_LATEST,
    OFFSET_SPEC_MAX_TIMESTAMP,
    ElectionType,
    IsolationLevel,
)
from .admin.scram import ScramMechanism
from .error import ConcurrentModificationException, IllegalStateException, KafkaException

__all__ = [
    "OFFSET_BEGINNING", "OFFSET_END", "OFFSET_INVALID", "OFFSET_STORED",
    "SHARE_ACKNOWLEDGE_TYPE_ACCEPT", "SHARE_ACKNOWLEDGE_TYPE_REJECT",
    "SHARE_ACKNOWLEDGE_TYPE_RELEASE",
    "TIMESTAMP_CREATE_TIME", "TIMESTAMP_LOG_APPEND_TIME", "TIMESTAMP_NOT_AVAILABLE",
    "Consumer", "KafkaError", "Message", "Producer", "ShareConsumer", "TopicPartition",
    "_AdminClientImpl", "libversion", "version", "consistent", "fnv1a", "murmur2",
    "KafkaException", "IllegalStateException", "ConcurrentModificationException",
    "CONFIG_SOURCE_DEFAULT_CONFIG", "CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG",
    "CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG", "CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG",
    "CONFIG_SOURCE_GROUP_CONFIG", "CONFIG_SOURCE_STATIC_BROKER_CONFIG",
    "CONFIG_SOURCE_UNKNOWN_CONFIG",
    "RESOURCE_ANY", "RESOURCE_BROKER", "RESOURCE_GROUP", "RESOURCE_TOPIC",
    "RESOURCE_TRANSACTIONAL_ID", "RESOURCE_UNKNOWN",
    "NewPartitions", "NewTopic", "Uuid",
    "OFFSET_SPEC_EARLIEST", "OFFSET_SPEC_LATEST", "OFFSET_SPEC_MAX_TIMESTAMP",
]

_names = {}
# librdkafka's own names where confluent-kafka's enum members differ
_LIBRDKAFKA_NAME = {"PREPARING_REBALANCING": "PREPARING_REBALANCE",
                    "COMPLETING_REBALANCING": "COMPLETING_REBALANCE",
                    "SCRAM_SHA_256": "SHA_256", "SCRAM_SHA_512": "SHA_512"}
for _prefix, _enum in (
        ("ACL_OPERATION_", AclOperation), ("ACL_PERMISSION_TYPE_", AclPermissionType),
        ("ALTER_CONFIG_OP_TYPE_", AlterConfigOpType), ("RESOURCE_PATTERN_", ResourcePatternType),
        ("ELECTION_TYPE_", ElectionType), ("ISOLATION_LEVEL_", IsolationLevel),
        ("CONSUMER_GROUP_STATE_", ConsumerGroupState), ("CONSUMER_GROUP_TYPE_", ConsumerGroupType),
        ("SCRAM_MECHANISM_", ScramMechanism)):
    for _member in _enum:
        _names[_prefix + _LIBRDKAFKA_NAME.get(_member.name, _member.name)] = _member.value
globals().update(_names)
__all__ += sorted(_names)
del _prefix, _enum, _member, _names, _LIBRDKAFKA_NAME

