"""``aiokafka.coordinator.assignors.roundrobin``: :class:`RoundRobinPartitionAssignor`."""

from typing import Any

from .abstract import AbstractPartitionAssignor

__all__ = ["RoundRobinPartitionAssignor"]


class RoundRobinPartitionAssignor(AbstractPartitionAssignor):
    """The partitions of all subscribed topics dealt one by one to the members (librdkafka's
    ``roundrobin``; aiokafka's default)."""

    name = "roundrobin"
    version = 0

    def assign(self, cluster: Any, members: Any) -> Any:
        """Not called here: librdkafka's roundrobin assignor assigns."""
        raise NotImplementedError("librdkafka assigns")
