"""``aiokafka.admin.new_partitions``: :class:`NewPartitions`."""

from typing import Any

__all__ = ["NewPartitions"]


class NewPartitions:
    """A topic's new partition count ``total_count``; ``new_assignments``: the replicas
    ([broker ids]) of each added partition (the broker chooses when None)."""

    def __init__(self, total_count: Any, new_assignments: Any = None) -> None:
        self.total_count = total_count
        self.new_assignments = new_assignments
