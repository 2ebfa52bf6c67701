"""``aiokafka.admin.records_to_delete``: :class:`RecordsToDelete`."""

from typing import Any

__all__ = ["RecordsToDelete"]


class RecordsToDelete:
    """Delete a partition's records before offset ``before_offset``."""

    def __init__(self, before_offset: Any) -> None:
        self.before_offset = before_offset
