"""Value types of the share consumer (KIP-932), as ``confluent_kafka._model`` has them:
:class:`AcknowledgeType` and :class:`Messages` (the batch the compiled core builds, defined
there)."""

from enum import IntEnum

from ._core import (
    SHARE_ACKNOWLEDGE_TYPE_ACCEPT,
    SHARE_ACKNOWLEDGE_TYPE_REJECT,
    SHARE_ACKNOWLEDGE_TYPE_RELEASE,
    Messages,
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
