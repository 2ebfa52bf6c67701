"""Consumer groups: list_consumer_groups(), describe_consumer_groups(),
delete_consumer_groups(), list/alter_consumer_group_offsets()."""

from ._convert import OrderedEnum, to_enum, to_enum_list
from .acls import AclOperation


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

    def __init__(self, group_id, topic_partitions=None):
        self.group_id = group_id
        self.topic_partitions = topic_partitions


class ConsumerGroupListing:
    """One group of list_consumer_groups()."""

    def __init__(self, group_id, is_simple_consumer_group, state=None, type=None):
        self.group_id = group_id
        self.is_simple_consumer_group = is_simple_consumer_group
        if state is not None:
            self.state = to_enum(state, ConsumerGroupState)
        if type is not None:
            self.type = to_enum(type, ConsumerGroupType)


class ListConsumerGroupsResult:
    """Result of list_consumer_groups(): ``valid`` listings and per-broker ``errors``."""

    def __init__(self, valid=None, errors=None):
        self.valid = valid
        self.errors = errors


class MemberAssignment:
    """The partitions assigned to a group member."""

    def __init__(self, topic_partitions):
        self.topic_partitions = topic_partitions or []


class MemberDescription:
    """A member of a described consumer group."""

    def __init__(self, member_id, client_id, host, assignment, group_instance_id=None,
                 target_assignment=None):
        self.member_id = member_id
        self.client_id = client_id
        self.host = host
        self.assignment = assignment
        self.target_assignment = target_assignment
        self.group_instance_id = group_instance_id


class ConsumerGroupDescription:
    """Result of describe_consumer_groups() for one group."""

    def __init__(self, group_id, is_simple_consumer_group, members, partition_assignor, state,
                 coordinator, authorized_operations=None, type=ConsumerGroupType.UNKNOWN):
        self.group_id = group_id
        self.is_simple_consumer_group = is_simple_consumer_group
        self.members = members
        self.authorized_operations = to_enum_list(authorized_operations, AclOperation)
        self.partition_assignor = partition_assignor
        if state is not None:
            self.state = to_enum(state, ConsumerGroupState)
        if type is not None:
            self.type = to_enum(type, ConsumerGroupType)
        self.coordinator = coordinator
