"""confluent-kafka's admin API: ``AdminClient`` and its model types.

The names, constructors, reprs, equality, hashing and ordering are confluent-kafka's, so
``from confluent_binding.admin import ...`` replaces ``from confluent_kafka.admin import ...``.
"""

# the metadata classes are the core's, as admin._metadata names them
from .._core import (
    OFFSET_INVALID,
    BrokerMetadata,
    ClusterMetadata,
    GroupMember,
    GroupMetadata,
    KafkaError,
    PartitionMetadata,
    TopicMetadata,
    TopicPartition,
)
from .._core import _AdminClientImpl as _AdminClientImpl
from ..error import KafkaException
from . import _metadata  # noqa: F401  (loaded by the package's import, as confluent's)
from ._client import AdminClient
from .acls import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    ResourcePatternType,
    ResourceType,
)
from .cluster import DescribeClusterResult, Node
from .configs import AlterConfigOpType, ConfigEntry, ConfigResource, ConfigSource
from .groups import (
    ConsumerGroupDescription,
    ConsumerGroupListing,
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    ConsumerGroupType,
    ListConsumerGroupsResult,
    MemberAssignment,
    MemberDescription,
)
from .offsets import DeletedRecords, ElectionType, IsolationLevel, ListOffsetsResultInfo, OffsetSpec
from .scram import (
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialAlteration,
    UserScramCredentialDeletion,
    UserScramCredentialsDescription,
    UserScramCredentialUpsertion,
)
from .topics import (
    NewPartitions,
    NewTopic,
    TopicCollection,
    TopicDescription,
    TopicPartitionInfo,
    Uuid,
)

# confluent-kafka's module-level constants (librdkafka's enum values)
CONFIG_SOURCE_UNKNOWN_CONFIG = ConfigSource.UNKNOWN_CONFIG.value
CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG = ConfigSource.DYNAMIC_TOPIC_CONFIG.value
CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG = ConfigSource.DYNAMIC_BROKER_CONFIG.value
CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG = ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value
CONFIG_SOURCE_STATIC_BROKER_CONFIG = ConfigSource.STATIC_BROKER_CONFIG.value
CONFIG_SOURCE_DEFAULT_CONFIG = ConfigSource.DEFAULT_CONFIG.value
CONFIG_SOURCE_GROUP_CONFIG = ConfigSource.GROUP_CONFIG.value
RESOURCE_UNKNOWN = ResourceType.UNKNOWN.value
RESOURCE_ANY = ResourceType.ANY.value
RESOURCE_TOPIC = ResourceType.TOPIC.value
RESOURCE_GROUP = ResourceType.GROUP.value
RESOURCE_BROKER = ResourceType.BROKER.value
RESOURCE_TRANSACTIONAL_ID = ResourceType.TRANSACTIONAL_ID.value

# the private aliases confluent-kafka's admin module has for the names it imports (its own tests
# import some of them)
_ConsumerGroupState = ConsumerGroupState
_ConsumerGroupTopicPartitions = ConsumerGroupTopicPartitions
_ConsumerGroupType = ConsumerGroupType
_ElectionType = ElectionType
_IsolationLevel = IsolationLevel
_TopicCollection = TopicCollection
_TopicPartition = TopicPartition

__all__ = [
    "AclBinding", "AclBindingFilter", "AclOperation", "AclPermissionType", "AdminClient",
    "AlterConfigOpType", "BrokerMetadata", "ClusterMetadata", "ConfigEntry", "ConfigResource",
    "ConfigSource", "ConsumerGroupDescription", "ConsumerGroupListing", "ConsumerGroupState",
    "ConsumerGroupTopicPartitions", "ConsumerGroupType", "DeletedRecords",
    "DescribeClusterResult", "ElectionType", "GroupMember", "GroupMetadata", "IsolationLevel",
    "KafkaError", "KafkaException", "ListConsumerGroupsResult", "ListOffsetsResultInfo",
    "MemberAssignment", "MemberDescription", "NewPartitions", "NewTopic", "Node",
    "OFFSET_INVALID", "OffsetSpec", "PartitionMetadata", "ResourcePatternType", "ResourceType",
    "ScramCredentialInfo", "ScramMechanism", "TopicCollection", "TopicDescription",
    "TopicMetadata", "TopicPartitionInfo", "UserScramCredentialAlteration",
    "UserScramCredentialDeletion", "UserScramCredentialUpsertion",
    "UserScramCredentialsDescription", "Uuid",
    "CONFIG_SOURCE_UNKNOWN_CONFIG", "CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG",
    "CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG", "CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG",
    "CONFIG_SOURCE_STATIC_BROKER_CONFIG", "CONFIG_SOURCE_DEFAULT_CONFIG",
    "CONFIG_SOURCE_GROUP_CONFIG", "RESOURCE_UNKNOWN", "RESOURCE_ANY", "RESOURCE_TOPIC",
    "RESOURCE_GROUP", "RESOURCE_BROKER", "RESOURCE_TRANSACTIONAL_ID",
]
