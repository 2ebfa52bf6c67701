"""``aiokafka.coordinator.assignors.abstract``: :class:`AbstractPartitionAssignor`."""

import abc
from typing import Any, Optional

__all__ = ["AbstractPartitionAssignor"]


class AbstractPartitionAssignor(abc.ABC):
    """An assignor named by ``name``. librdkafka computes the assignment itself (in C, on
    the member chosen as the group leader), so ``partition_assignment_strategy`` takes the
    assignors librdkafka has by their ``name`` ("roundrobin", "range"); an assignor of
    another name is refused, naming librdkafka's ``partition.assignment.strategy``."""

    name: Optional[str] = None
    version = 0

    @abc.abstractmethod
    def assign(self, cluster: Any, members: Any) -> Any:
        """Not called here: librdkafka assigns."""

    @classmethod
    def metadata(cls, topics: Any) -> Any:
        """Not called here: librdkafka sends the member metadata."""
        raise NotImplementedError("librdkafka sends the group member metadata")

    @classmethod
    def on_assignment(cls, assignment: Any) -> Any:
        """Not called here: librdkafka receives the assignment."""
