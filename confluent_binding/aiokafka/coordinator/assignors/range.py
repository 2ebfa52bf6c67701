"""``aiokafka.coordinator.assignors.range``: :class:`RangePartitionAssignor`."""

from typing import Any

from .abstract import AbstractPartitionAssignor

__all__ = ["RangePartitionAssignor"]


class RangePartitionAssignor(AbstractPartitionAssignor):
    """Each topic's partitions split in consecutive ranges among its members (librdkafka's
    ``range``)."""

    name = "range"
    version = 0

    def assign(self, cluster: Any, members: Any) -> Any:
        """Not called here: librdkafka's range assignor assigns."""
        raise NotImplementedError("librdkafka assigns")
