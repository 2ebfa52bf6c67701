"""Offsets and records: list_offsets(), delete_records(), elect_leaders()."""

from typing import Dict, Optional

from ._convert import OrderedEnum


class IsolationLevel(OrderedEnum):
    """Which offsets list_offsets() may return (``rd_kafka_IsolationLevel_t``)."""

    READ_UNCOMMITTED = 0
    READ_COMMITTED = 1


class ElectionType(OrderedEnum):
    """Leader election kinds for elect_leaders() (``rd_kafka_ElectionType_t``)."""

    PREFERRED = 0
    UNCLEAN = 1


# librdkafka's rd_kafka_OffsetSpec_t values for the special specs
OFFSET_SPEC_MAX_TIMESTAMP = -3
OFFSET_SPEC_EARLIEST = -2
OFFSET_SPEC_LATEST = -1


class OffsetSpec:
    """What list_offsets() looks up for a partition: ``OffsetSpec.earliest()``,
    ``latest()``, ``max_timestamp()`` or ``for_timestamp(ms)``.

    ``OffsetSpec(n)`` gives the special spec for a negative ``n`` (-1 latest, -2 earliest,
    -3 max timestamp) and ``for_timestamp(n)`` otherwise. Specs order by their value.
    """

    _specials: Dict[int, "OffsetSpec"] = {}

    def __new__(cls, index: int) -> "OffsetSpec":
        if index < 0:
            return cls._specials[index]
        return TimestampSpec(index)

    @classmethod
    def earliest(cls) -> "OffsetSpec":
        """The spec of a partition's earliest offset (its log start), as ``OffsetSpec(-2)``."""
        return cls._specials[OFFSET_SPEC_EARLIEST]

    @classmethod
    def latest(cls) -> "OffsetSpec":
        """The spec of a partition's latest offset (the next one to be written, the high
        watermark), as ``OffsetSpec(-1)``.
        """
        return cls._specials[OFFSET_SPEC_LATEST]

    @classmethod
    def max_timestamp(cls) -> "OffsetSpec":
        """The spec of the offset of the message with the largest timestamp, as
        ``OffsetSpec(-3)``.
        """
        return cls._specials[OFFSET_SPEC_MAX_TIMESTAMP]

    @classmethod
    def for_timestamp(cls, timestamp: int) -> "OffsetSpec":
        """The spec of the earliest offset whose timestamp is at or after ``timestamp``
        (milliseconds since the epoch); list_offsets() gives -1 when there is none.
        """
        return TimestampSpec(timestamp)

    @property
    def _value(self) -> int:
        raise NotImplementedError

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, OffsetSpec):
            return NotImplemented
        return self._value < other._value


class TimestampSpec(OffsetSpec):
    """The first offset whose timestamp is at or after ``timestamp`` (ms)."""

    def __new__(cls, timestamp: int) -> "TimestampSpec":
        return object.__new__(cls)

    def __init__(self, timestamp: int) -> None:
        self.timestamp: int = timestamp

    @property
    def _value(self) -> int:
        return self.timestamp


class _SpecialSpec(OffsetSpec):
    _number: int

    def __new__(cls) -> "_SpecialSpec":
        return object.__new__(cls)

    @property
    def _value(self) -> int:
        return self._number


class MaxTimestampSpec(_SpecialSpec):
    """The offset of the record with the largest timestamp."""

    _number = OFFSET_SPEC_MAX_TIMESTAMP


class LatestSpec(_SpecialSpec):
    """The offset after the last record (the high watermark)."""

    _number = OFFSET_SPEC_LATEST


class EarliestSpec(_SpecialSpec):
    """The first offset still in the log."""

    _number = OFFSET_SPEC_EARLIEST


OffsetSpec._specials.update(
    {cls._number: cls() for cls in (MaxTimestampSpec, LatestSpec, EarliestSpec)})


class ListOffsetsResultInfo:
    """Result of list_offsets() for one partition (``leader_epoch`` None when unknown)."""

    def __init__(self, offset: int, timestamp: int, leader_epoch: int) -> None:
        self.offset: int = offset
        self.timestamp: int = timestamp
        self.leader_epoch: Optional[int] = leader_epoch if leader_epoch >= 0 else None


class DeletedRecords:
    """Result of delete_records() for one partition: its new low watermark."""

    def __init__(self, low_watermark: int) -> None:
        self.low_watermark: int = low_watermark
