"""``aiokafka.admin.new_topic``: :class:`NewTopic`."""

from typing import Any

from ..errors import IllegalArgumentError

__all__ = ["NewTopic"]


class NewTopic:
    """A topic to create: ``name``, ``num_partitions`` and ``replication_factor`` (-1 for
    both when ``replica_assignments`` {partition: [broker ids]} is given), ``topic_configs``
    {name: value}."""

    def __init__(self, name: Any, num_partitions: Any, replication_factor: Any,
                 replica_assignments: Any = None, topic_configs: Any = None) -> None:
        if not ((num_partitions == -1 or replication_factor == -1)
                ^ (replica_assignments is None)):
            raise IllegalArgumentError("either num_partitions/replication_factor or "
                                       "replica_assignment must be specified")
        self.name = name
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.replica_assignments = replica_assignments or {}
        self.topic_configs = topic_configs or {}
