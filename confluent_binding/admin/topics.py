"""Topics: create_topics(), delete_topics(), create_partitions(), describe_topics()."""

import base64
from typing import Any, Dict, List, Optional, Tuple, cast

from ._convert import _MISSING, check_int32, check_str_arg, parse_args, to_enum_list
from .acls import AclOperation
from .cluster import Node


class NewTopic:
    """A topic for create_topics().

    ``NewTopic(topic, [num_partitions], [replication_factor], [replica_assignment], [config])``:
    ``num_partitions``/``replication_factor`` -1 mean the broker's defaults (or the
    ``replica_assignment``, a list of broker-id lists, one per partition); ``config`` is a dict
    of topic configs. Equal, hashed and ordered by (topic, num_partitions).
    """

    __slots__ = {
        "_topic": None,
        "num_partitions": "How many partitions; -1: the broker's ``num.partitions``.",
        "replication_factor": "How many replicas each partition has; -1: the broker's\n"
                              "``default.replication.factor``.",
        "replica_assignment": "A list of broker-id lists, one per partition (the first id the\n"
                              "preferred leader), or None to let the broker place them.",
        "config": "Topic configuration properties (``{\"cleanup.policy\": \"compact\"}``); {} by\n"
                  "default.",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        topic, num_partitions, replication_factor, replica_assignment, config = parse_args(
            args, kwargs,
            ("topic", "num_partitions", "replication_factor", "replica_assignment", "config"), 1)
        self._topic: str = check_str_arg(topic, 1)
        self.num_partitions: int = -1 if num_partitions is _MISSING else check_int32(num_partitions)
        self.replication_factor: int = (-1 if replication_factor is _MISSING
                                   else check_int32(replication_factor))
        self.replica_assignment: Optional[List[List[int]]] = (
            None if replica_assignment is _MISSING else replica_assignment)
        if config is not _MISSING and not isinstance(config, dict):
            raise TypeError("config must be a dict of strings")
        self.config: Optional[Dict[str, str]] = None
        if config is not _MISSING:
            self.config = cast(Dict[str, str], config)

    @property
    def topic(self) -> str:
        """Topic name (read-only)."""
        return self._topic

    def _key(self) -> Tuple[str, int]:
        return (self._topic, self.num_partitions)

    def __repr__(self) -> str:
        if self.num_partitions == -1:
            return "NewTopic(topic=%s)" % (self._topic,)
        return "NewTopic(topic=%s,num_partitions=%d)" % (self._topic, self.num_partitions)

    __str__ = __repr__

    def __hash__(self) -> int:
        return hash(self._topic) ^ self.num_partitions

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, NewTopic) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._key() != other._key() if isinstance(other, NewTopic) else NotImplemented

    def __lt__(self, other: object) -> bool:
        return self._key() < other._key() if isinstance(other, NewTopic) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self._key() <= other._key() if isinstance(other, NewTopic) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self._key() > other._key() if isinstance(other, NewTopic) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self._key() >= other._key() if isinstance(other, NewTopic) else NotImplemented


class NewPartitions:
    """A partition-count increase for create_partitions().

    ``NewPartitions(topic, new_total_count, [replica_assignment])``: ``replica_assignment`` lists
    the broker ids of each new partition. Equal, hashed and ordered by (topic, new_total_count).
    """

    __slots__ = {
        "_topic": None,
        "new_total_count": "The partition count the topic will have (not the number added).",
        "replica_assignment": "For each new partition, the list of broker ids of its replicas, or\n"
                              "None to let the broker place them.",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        topic, new_total_count, replica_assignment = parse_args(
            args, kwargs, ("topic", "new_total_count", "replica_assignment"), 2)
        self._topic: str = check_str_arg(topic, 1)
        self.new_total_count: int = check_int32(new_total_count)
        self.replica_assignment: Optional[List[List[int]]] = (
            None if replica_assignment is _MISSING else replica_assignment)

    @property
    def topic(self) -> str:
        """Topic name (read-only)."""
        return self._topic

    def _key(self) -> Tuple[str, int]:
        return (self._topic, self.new_total_count)

    def __repr__(self) -> str:
        return "NewPartitions(topic=%s,new_total_count=%d)" % (self._topic, self.new_total_count)

    __str__ = __repr__

    def __hash__(self) -> int:
        return hash(self._topic) ^ self.new_total_count

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, NewPartitions) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._key() != other._key() if isinstance(other, NewPartitions) else NotImplemented

    def __lt__(self, other: object) -> bool:
        return self._key() < other._key() if isinstance(other, NewPartitions) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self._key() <= other._key() if isinstance(other, NewPartitions) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self._key() > other._key() if isinstance(other, NewPartitions) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self._key() >= other._key() if isinstance(other, NewPartitions) else NotImplemented


def _int64(value: Any) -> int:
    import operator

    value = operator.index(value)
    if not -(1 << 63) <= value < (1 << 63):
        raise OverflowError("int too big to convert")
    return value


class Uuid:
    """A 128-bit id (topic ids): ``Uuid(most_significant_bits, least_significant_bits)``.

    ``str()``/``repr()`` give Kafka's base64 form. Unlike confluent-kafka's (which compares by
    identity), two Uuids with the same bits are equal.
    """

    __slots__ = ("_msb", "_lsb")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        msb, lsb = parse_args(args, kwargs,
                              ("most_significant_bits", "least_significant_bits"), 2)
        self._msb: int = _int64(msb)
        self._lsb: int = _int64(lsb)

    def get_most_significant_bits(self) -> int:
        """The upper 64 bits of the id, as a signed int (Java's ``long``)."""
        return self._msb

    def get_least_significant_bits(self) -> int:
        """The lower 64 bits of the id, as a signed int (Java's ``long``)."""
        return self._lsb

    def __str__(self) -> str:
        raw = (self._msb & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big") + \
            (self._lsb & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")
        return base64.b64encode(raw).rstrip(b"=").decode("ascii")

    __repr__ = __str__

    def __hash__(self) -> int:
        return hash(self._msb ^ self._lsb)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Uuid):
            return NotImplemented
        return self._msb == other._msb and self._lsb == other._lsb


class TopicCollection:
    """Topic names for describe_topics()."""

    def __init__(self, topic_names: List[str]) -> None:
        self.topic_names: List[str] = topic_names


class TopicPartitionInfo:
    """A partition of a TopicDescription: id, leader, replicas and in-sync replicas (Nodes)."""

    def __init__(self, id: int, leader: Optional[Node], replicas: List[Node],
                 isr: List[Node]) -> None:
        self.id: int = id
        self.leader: Optional[Node] = leader
        self.replicas: List[Node] = replicas
        self.isr: List[Node] = isr


class TopicDescription:
    """Result of describe_topics() for one topic."""

    def __init__(self, name: str, topic_id: Optional[Uuid], is_internal: bool,
                 partitions: List[TopicPartitionInfo],
                 authorized_operations: Optional[List[Any]] = None) -> None:
        self.name: str = name
        self.topic_id: Optional[Uuid] = topic_id
        self.is_internal: bool = is_internal
        self.partitions: List[TopicPartitionInfo] = partitions
        self.authorized_operations: Optional[List[AclOperation]] = to_enum_list(
            authorized_operations, AclOperation)
