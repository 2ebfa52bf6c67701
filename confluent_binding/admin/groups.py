"""Consumer groups: list_consumer_groups(), describe_consumer_groups(),
delete_consumer_groups(), list/alter_consumer_group_offsets()."""

from typing import Any, List, Optional

from .._core import KafkaError, TopicPartition
from ._convert import OrderedEnum, to_enum, to_enum_list
from .acls import AclOperation
from .cluster import Node


class ConsumerGroupState(OrderedEnum):
    """States of a consumer group (``rd_kafka_consumer_group_state_t``)."""

    UNKNOWN = 0
    UNKOWN = 0  # confluent-kafka's misspelt alias, kept for programs that use it
    PREPARING_REBALANCING = 1
    COMPLETING_REBALANCING = 2
    STABLE = 3
    DEAD = 4
    EMPTY = 5


class ConsumerGroupType(OrderedEnum):
    """Protocol of a consumer group: classic or KIP-848 ``consumer``."""

    UNKNOWN = 0
    CONSUMER = 1
    CLASSIC = 2


class ConsumerGroupTopicPartitions:
    """A group id with partitions (and offsets): request and result of the group-offset calls."""

    def __init__(self, group_id: str,
                 topic_partitions: Optional[List[TopicPartition]] = None) -> None:
        self.group_id: str = group_id
        self.topic_partitions: Optional[List[TopicPartition]] = topic_partitions


class ConsumerGroupListing:
    """One group of list_consumer_groups()."""

    state: ConsumerGroupState
    type: ConsumerGroupType

    def __init__(self, group_id: str, is_simple_consumer_group: bool, state: Any = None,
                 type: Any = None) -> None:
        self.group_id: str = group_id
        self.is_simple_consumer_group: bool = is_simple_consumer_group
        if state is not None:
            self.state = to_enum(state, ConsumerGroupState)
        if type is not None:
            self.type = to_enum(type, ConsumerGroupType)


class ListConsumerGroupsResult:
    """Result of list_consumer_groups(): ``valid`` listings and per-broker ``errors``."""

    def __init__(self, valid: Optional[List[ConsumerGroupListing]] = None,
                 errors: Optional[List[KafkaError]] = None) -> None:
        self.valid: Optional[List[ConsumerGroupListing]] = valid
        self.errors: Optional[List[KafkaError]] = errors


class MemberAssignment:
    """The partitions assigned to a group member."""

    def __init__(self, topic_partitions: Optional[List[TopicPartition]]) -> None:
        self.topic_partitions: List[TopicPartition] = topic_partitions or []


class MemberDescription:
    """A member of a described consumer group."""

    def __init__(self, member_id: str, client_id: str, host: str, assignment: MemberAssignment,
                 group_instance_id: Optional[str] = None,
                 target_assignment: Optional[MemberAssignment] = None) -> None:
        self.member_id: str = member_id
        self.client_id: str = client_id
        self.host: str = host
        self.assignment: MemberAssignment = assignment
        self.target_assignment: Optional[MemberAssignment] = target_assignment
        self.group_instance_id: Optional[str] = group_instance_id


class ConsumerGroupDescription:
    """Result of describe_consumer_groups() for one group."""

    state: ConsumerGroupState
    type: ConsumerGroupType

    def __init__(self, group_id: str, is_simple_consumer_group: bool,
                 members: List[MemberDescription], partition_assignor: str, state: Any,
                 coordinator: Optional[Node], authorized_operations: Optional[List[Any]] = None,
                 type: Any = ConsumerGroupType.UNKNOWN) -> None:
        self.group_id: str = group_id
        self.is_simple_consumer_group: bool = is_simple_consumer_group
        self.members: List[MemberDescription] = members
        self.authorized_operations: Optional[List[AclOperation]] = to_enum_list(
            authorized_operations, AclOperation)
        self.partition_assignor: str = partition_assignor
        if state is not None:
            self.state = to_enum(state, ConsumerGroupState)
        if type is not None:
            self.type = to_enum(type, ConsumerGroupType)
        self.coordinator: Optional[Node] = coordinator
