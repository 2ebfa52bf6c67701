"""Value types of the share consumer (KIP-932), as ``confluent_kafka._model`` has them:
:class:`AcknowledgeType` and :class:`Messages`."""

from enum import IntEnum

from ._core import (
    SHARE_ACKNOWLEDGE_TYPE_ACCEPT,
    SHARE_ACKNOWLEDGE_TYPE_REJECT,
    SHARE_ACKNOWLEDGE_TYPE_RELEASE,
)

__all__ = ["AcknowledgeType", "Messages"]


class AcknowledgeType(IntEnum):
    """How the broker treats a record a share consumer acknowledges explicitly."""

    #: processed: the record is not delivered again
    ACCEPT = SHARE_ACKNOWLEDGE_TYPE_ACCEPT
    #: not processed: the record becomes available for another delivery attempt
    RELEASE = SHARE_ACKNOWLEDGE_TYPE_RELEASE
    #: not processable: the record is archived and not delivered again
    REJECT = SHARE_ACKNOWLEDGE_TYPE_REJECT


class Messages:
    """The read-only batch :meth:`ShareConsumer.poll` returns: iteration, ``len()``, indexing
    and slicing (a slice is a :class:`Messages` too), ``count()``, ``is_empty()`` and
    ``records()`` (a copy as a list)."""

    __slots__ = ("_records",)

    def __init__(self, messages=()):
        self._records = list(messages)

    @classmethod
    def _from_list(cls, records):
        """Adopt ``records`` (a list nobody else holds) without copying it."""
        batch = cls.__new__(cls)
        batch._records = records
        return batch

    def records(self):
        """The messages of this batch, as a new list."""
        return list(self._records)

    def count(self):
        """How many messages the batch holds."""
        return len(self._records)

    def is_empty(self):
        """True when the batch holds no message."""
        return not self._records

    def __len__(self):
        return len(self._records)

    def __iter__(self):
        return iter(self._records)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._from_list(self._records[index])
        return self._records[index]

    def __repr__(self):
        return "Messages(%r)" % (self._records,)
