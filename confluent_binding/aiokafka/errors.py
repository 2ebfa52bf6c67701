"""aiokafka's exception classes (``aiokafka.errors``), and the mapping of this library's errors
onto them.

Every error the clients of :mod:`confluent_binding.aiokafka` raise is one of these classes, so
``except aiokafka.errors.KafkaTimeoutError`` catches what it catches on aiokafka. A Kafka
protocol error (librdkafka's positive codes are Kafka's) becomes its numbered class
(:func:`for_code`); librdkafka's own (negative) codes map to the class aiokafka raises in that
situation (:func:`from_kafka_error`). The original :class:`confluent_binding.KafkaError` is kept
as the exception's ``kafka_error`` attribute and its ``__cause__``.
"""

from typing import Any, Iterator, Optional

from .. import KafkaError as _LibError

__all__ = [  # noqa: RUF022 (aiokafka's order)
    "ConsumerStoppedError", "NoOffsetForPartitionError", "RecordTooLargeError", "ProducerClosed",
    "KafkaError", "IllegalStateError", "IllegalArgumentError", "NoBrokersAvailable",
    "NodeNotReadyError", "KafkaProtocolError", "CorrelationIdError", "Cancelled",
    "TooManyInFlightRequests", "StaleMetadata", "UnrecognizedBrokerVersion",
    "IncompatibleBrokerVersion", "CommitFailedError", "AuthenticationMethodNotSupported",
    "AuthenticationFailedError", "BrokerResponseError",
    "NoError", "UnknownError", "OffsetOutOfRangeError", "CorruptRecordException",
    "UnknownTopicOrPartitionError", "InvalidFetchRequestError", "LeaderNotAvailableError",
    "NotLeaderForPartitionError", "RequestTimedOutError", "BrokerNotAvailableError",
    "ReplicaNotAvailableError", "MessageSizeTooLargeError", "StaleControllerEpochError",
    "OffsetMetadataTooLargeError", "StaleLeaderEpochCodeError", "GroupLoadInProgressError",
    "GroupCoordinatorNotAvailableError", "NotCoordinatorForGroupError", "InvalidTopicError",
    "RecordListTooLargeError", "NotEnoughReplicasError", "NotEnoughReplicasAfterAppendError",
    "InvalidRequiredAcksError", "IllegalGenerationError", "InconsistentGroupProtocolError",
    "InvalidGroupIdError", "UnknownMemberIdError", "InvalidSessionTimeoutError",
    "RebalanceInProgressError", "InvalidCommitOffsetSizeError", "TopicAuthorizationFailedError",
    "GroupAuthorizationFailedError", "ClusterAuthorizationFailedError", "InvalidTimestampError",
    "UnsupportedSaslMechanismError", "IllegalSaslStateError", "UnsupportedVersionError",
    "TopicAlreadyExistsError", "InvalidPartitionsError", "InvalidReplicationFactorError",
    "InvalidReplicationAssignmentError", "InvalidConfigurationError", "NotControllerError",
    "InvalidRequestError", "UnsupportedForMessageFormatError", "PolicyViolationError",
    "KafkaUnavailableError", "KafkaTimeoutError", "KafkaConnectionError", "UnsupportedCodecError",
]


class KafkaError(RuntimeError):
    """The base of aiokafka's Kafka errors. ``retriable``: the operation may succeed if
    repeated; ``invalid_metadata``: the cluster layout the client knew is stale."""

    retriable = False
    invalid_metadata = False

    def __init_subclass__(cls, retriable: bool = False, invalid_metadata: bool = False,
                          **kwargs: Any) -> None:
        # the flags as class keywords: ``class X(KafkaError, retriable=True)``
        super().__init_subclass__(**kwargs)
        if retriable:
            cls.retriable = True
        if invalid_metadata:
            cls.invalid_metadata = True

    def __str__(self) -> Any:
        if not self.args:
            return type(self).__name__
        return "%s: %s" % (type(self).__name__, super().__str__())


class IllegalStateError(KafkaError):
    """A call made in a state that does not allow it (e.g. on a partition not assigned)."""


class IllegalArgumentError(KafkaError):
    """An argument the call cannot take."""


class NoBrokersAvailable(KafkaError, retriable=True, invalid_metadata=True):
    """No broker of the bootstrap list answered."""


class NodeNotReadyError(KafkaError, retriable=True):
    """The broker is not connected yet."""


class KafkaProtocolError(KafkaError, retriable=True):
    """The broker's response could not be understood."""


class CorrelationIdError(KafkaProtocolError, retriable=True):
    """A response did not match its request."""


class Cancelled(KafkaError, retriable=True):
    """The request was cancelled."""


class TooManyInFlightRequests(KafkaError, retriable=True):
    """Too many requests are outstanding on the connection."""


class StaleMetadata(KafkaError, retriable=True, invalid_metadata=True):
    """The cluster metadata is out of date."""


class MetadataEmptyBrokerList(KafkaError, retriable=True):
    """The metadata named no broker."""


class UnrecognizedBrokerVersion(KafkaError):
    """The broker's version could not be determined."""


class IncompatibleBrokerVersion(KafkaError):
    """The broker is too old for the call."""


class CommitFailedError(KafkaError):
    """The commit failed because the group rebalanced (the partitions went to another member,
    the generation or member id is stale, or ``max_poll_interval_ms`` was exceeded)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(
            "Commit cannot be completed since the group has already rebalanced and may have "
            "assigned the partitions to another member (see max_poll_interval_ms and "
            "max_poll_records)", *args, **kwargs)


class AuthenticationMethodNotSupported(KafkaError):
    """The SASL mechanism is not supported."""


class AuthenticationFailedError(KafkaError):
    """Authentication with the broker failed."""


class KafkaUnavailableError(KafkaError):
    """Kafka is unavailable."""


class KafkaTimeoutError(KafkaError):
    """The operation did not complete in time."""


class KafkaConnectionError(KafkaError, retriable=True, invalid_metadata=True):
    """The connection to a broker failed."""


class UnsupportedCodecError(KafkaError):
    """The compression codec is not available."""


class KafkaConfigurationError(KafkaError):
    """The client's configuration is invalid."""


class QuotaViolationError(KafkaError):
    """A quota was exceeded."""


class ConsumerStoppedError(Exception):
    """Raised by the consumer's ``get*`` calls once it is stopped, pending ones included."""


class IllegalOperation(Exception):
    """The call is not available with this configuration (e.g. a commit without
    ``group_id``, a transaction call without ``transactional_id``)."""


class NoOffsetForPartitionError(KafkaError):
    """No committed offset and no reset policy (``auto_offset_reset="none"``)."""


class RecordTooLargeError(KafkaError):
    """The record is larger than the batch may hold."""


class ProducerClosed(KafkaError):
    """The producer was stopped before the record could be sent."""


class ProducerFenced(KafkaError):
    """A newer producer with the same transactional id exists, or the transaction timed
    out."""

    def __init__(self, msg: str = ("There is a newer producer using the same transactional_id "
                                   "or transaction timeout occurred (check that processing "
                                   "time is below transaction_timeout_ms)")) -> None:
        super().__init__(msg)


class BrokerResponseError(KafkaError):
    """A Kafka protocol error code; ``errno`` is the code, ``message`` its Kafka name."""

    errno: int
    message: str = ""
    description: str = ""

    def __init_subclass__(cls, errno: Optional[int] = None, message: str = "",
                          **kwargs: Any) -> None:
        # one class a code, declared as ``class X(BrokerResponseError, errno=1, message=...)``
        super().__init_subclass__(**kwargs)
        if errno is not None:
            cls.errno = errno
            cls.message = message
            if cls.__doc__ is None:
                cls.__doc__ = "Kafka error %d, %s." % (errno, message)

    def __str__(self) -> Any:
        return "[Error %s] %s" % (self.errno, super().__str__())


class UnknownError(BrokerResponseError, errno=-1, message="UNKNOWN"):
    """Kafka error -1, UNKNOWN (also any code without a class of its own)."""


# One class a Kafka error code, one line each: aiokafka's class name, the code, the code's name
# in aiokafka, and the flags where aiokafka sets them (the docstring is made from code and name).
class NoError(BrokerResponseError, errno=0, message="NO_ERROR"): ...
class OffsetOutOfRangeError(BrokerResponseError, errno=1, message="OFFSET_OUT_OF_RANGE"): ...
class CorruptRecordException(BrokerResponseError, errno=2, message="CORRUPT_MESSAGE"): ...
class UnknownTopicOrPartitionError(BrokerResponseError,
                                   errno=3, message="UNKNOWN_TOPIC_OR_PARTITION", retriable=True,
                                   invalid_metadata=True): ...
class InvalidFetchRequestError(BrokerResponseError, errno=4, message="INVALID_FETCH_SIZE"): ...
class LeaderNotAvailableError(BrokerResponseError,
                              errno=5, message="LEADER_NOT_AVAILABLE", retriable=True,
                              invalid_metadata=True): ...
class NotLeaderForPartitionError(BrokerResponseError,
                                 errno=6, message="NOT_LEADER_FOR_PARTITION", retriable=True,
                                 invalid_metadata=True): ...
class RequestTimedOutError(BrokerResponseError,
                           errno=7, message="REQUEST_TIMED_OUT", retriable=True): ...
class BrokerNotAvailableError(BrokerResponseError, errno=8, message="BROKER_NOT_AVAILABLE"): ...
class ReplicaNotAvailableError(BrokerResponseError, errno=9, message="REPLICA_NOT_AVAILABLE"): ...
class MessageSizeTooLargeError(BrokerResponseError, errno=10, message="MESSAGE_SIZE_TOO_LARGE"): ...
class StaleControllerEpochError(BrokerResponseError,
                                errno=11, message="STALE_CONTROLLER_EPOCH"): ...
class OffsetMetadataTooLargeError(BrokerResponseError,
                                  errno=12, message="OFFSET_METADATA_TOO_LARGE"): ...
class StaleLeaderEpochCodeError(BrokerResponseError,
                                errno=13, message="STALE_LEADER_EPOCH_CODE"): ...
class GroupLoadInProgressError(BrokerResponseError,
                               errno=14, message="COORDINATOR_LOAD_IN_PROGRESS",
                               retriable=True): ...
class GroupCoordinatorNotAvailableError(BrokerResponseError,
                                        errno=15, message="COORDINATOR_NOT_AVAILABLE",
                                        retriable=True): ...
class NotCoordinatorForGroupError(BrokerResponseError,
                                  errno=16, message="NOT_COORDINATOR", retriable=True): ...
class InvalidTopicError(BrokerResponseError, errno=17, message="INVALID_TOPIC"): ...
class RecordListTooLargeError(BrokerResponseError, errno=18, message="RECORD_LIST_TOO_LARGE"): ...
class NotEnoughReplicasError(BrokerResponseError,
                             errno=19, message="NOT_ENOUGH_REPLICAS", retriable=True): ...
class NotEnoughReplicasAfterAppendError(BrokerResponseError,
                                        errno=20, message="NOT_ENOUGH_REPLICAS_AFTER_APPEND",
                                        retriable=True): ...
class InvalidRequiredAcksError(BrokerResponseError, errno=21, message="INVALID_REQUIRED_ACKS"): ...
class IllegalGenerationError(BrokerResponseError, errno=22, message="ILLEGAL_GENERATION"): ...
class InconsistentGroupProtocolError(BrokerResponseError,
                                     errno=23, message="INCONSISTENT_GROUP_PROTOCOL"): ...
class InvalidGroupIdError(BrokerResponseError, errno=24, message="INVALID_GROUP_ID"): ...
class UnknownMemberIdError(BrokerResponseError, errno=25, message="UNKNOWN_MEMBER_ID"): ...
class InvalidSessionTimeoutError(BrokerResponseError,
                                 errno=26, message="INVALID_SESSION_TIMEOUT"): ...
class RebalanceInProgressError(BrokerResponseError, errno=27, message="REBALANCE_IN_PROGRESS"): ...
class InvalidCommitOffsetSizeError(BrokerResponseError,
                                   errno=28, message="INVALID_COMMIT_OFFSET_SIZE"): ...
class TopicAuthorizationFailedError(BrokerResponseError,
                                    errno=29, message="TOPIC_AUTHORIZATION_FAILED"): ...
class GroupAuthorizationFailedError(BrokerResponseError,
                                    errno=30, message="GROUP_AUTHORIZATION_FAILED"): ...
class ClusterAuthorizationFailedError(BrokerResponseError,
                                      errno=31, message="CLUSTER_AUTHORIZATION_FAILED"): ...
class InvalidTimestampError(BrokerResponseError, errno=32, message="INVALID_TIMESTAMP"): ...
class UnsupportedSaslMechanismError(BrokerResponseError,
                                    errno=33, message="UNSUPPORTED_SASL_MECHANISM"): ...
class IllegalSaslStateError(BrokerResponseError, errno=34, message="ILLEGAL_SASL_STATE"): ...
class UnsupportedVersionError(BrokerResponseError, errno=35, message="UNSUPPORTED_VERSION"): ...
class TopicAlreadyExistsError(BrokerResponseError, errno=36, message="TOPIC_ALREADY_EXISTS"): ...
class InvalidPartitionsError(BrokerResponseError, errno=37, message="INVALID_PARTITIONS"): ...
class InvalidReplicationFactorError(BrokerResponseError,
                                    errno=38, message="INVALID_REPLICATION_FACTOR"): ...
class InvalidReplicationAssignmentError(BrokerResponseError,
                                        errno=39, message="INVALID_REPLICATION_ASSIGNMENT"): ...
class InvalidConfigurationError(BrokerResponseError, errno=40, message="INVALID_CONFIG"): ...
class NotControllerError(BrokerResponseError,
                         errno=41, message="NOT_CONTROLLER", retriable=True): ...
class InvalidRequestError(BrokerResponseError, errno=42, message="INVALID_REQUEST"): ...
class UnsupportedForMessageFormatError(BrokerResponseError,
                                       errno=43, message="UNSUPPORTED_FOR_MESSAGE_FORMAT"): ...
class PolicyViolationError(BrokerResponseError, errno=44, message="POLICY_VIOLATION"): ...
class OutOfOrderSequenceNumber(BrokerResponseError,
                               errno=45, message="OUT_OF_ORDER_SEQUENCE_NUMBER"): ...
class DuplicateSequenceNumber(BrokerResponseError,
                              errno=46, message="DUPLICATE_SEQUENCE_NUMBER"): ...
class InvalidProducerEpoch(BrokerResponseError, errno=47, message="INVALID_PRODUCER_EPOCH"): ...
class InvalidTxnState(BrokerResponseError, errno=48, message="INVALID_TXN_STATE"): ...
class InvalidProducerIdMapping(BrokerResponseError,
                               errno=49, message="INVALID_PRODUCER_ID_MAPPING"): ...
class InvalidTransactionTimeout(BrokerResponseError,
                                errno=50, message="INVALID_TRANSACTION_TIMEOUT"): ...
class ConcurrentTransactions(BrokerResponseError, errno=51, message="CONCURRENT_TRANSACTIONS"): ...
class TransactionCoordinatorFenced(BrokerResponseError,
                                   errno=52, message="TRANSACTION_COORDINATOR_FENCED"): ...
class TransactionalIdAuthorizationFailed(BrokerResponseError,
                                         errno=53,
                                         message="TRANSACTIONAL_ID_AUTHORIZATION_FAILED"): ...
class SecurityDisabled(BrokerResponseError, errno=54, message="SECURITY_DISABLED"): ...
class OperationNotAttempted(BrokerResponseError, errno=55, message="OPERATION_NOT_ATTEMPTED"): ...
class KafkaStorageError(BrokerResponseError,
                        errno=56, message="KAFKA_STORAGE_ERROR", retriable=True,
                        invalid_metadata=True): ...
class LogDirNotFound(BrokerResponseError, errno=57, message="LOG_DIR_NOT_FOUND"): ...
class SaslAuthenticationFailed(BrokerResponseError,
                               errno=58, message="SASL_AUTHENTICATION_FAILED"): ...
class UnknownProducerId(BrokerResponseError, errno=59, message="UNKNOWN_PRODUCER_ID"): ...
class ReassignmentInProgress(BrokerResponseError, errno=60, message="REASSIGNMENT_IN_PROGRESS"): ...
class DelegationTokenAuthDisabled(BrokerResponseError,
                                  errno=61, message="DELEGATION_TOKEN_AUTH_DISABLED"): ...
class DelegationTokenNotFound(BrokerResponseError,
                              errno=62, message="DELEGATION_TOKEN_NOT_FOUND"): ...
class DelegationTokenOwnerMismatch(BrokerResponseError,
                                   errno=63, message="DELEGATION_TOKEN_OWNER_MISMATCH"): ...
class DelegationTokenRequestNotAllowed(BrokerResponseError,
                                       errno=64,
                                       message="DELEGATION_TOKEN_REQUEST_NOT_ALLOWED"): ...
class DelegationTokenAuthorizationFailed(BrokerResponseError,
                                         errno=65,
                                         message="DELEGATION_TOKEN_AUTHORIZATION_FAILED"): ...
class DelegationTokenExpired(BrokerResponseError, errno=66, message="DELEGATION_TOKEN_EXPIRED"): ...
class InvalidPrincipalType(BrokerResponseError, errno=67, message="INVALID_PRINCIPAL_TYPE"): ...
class NonEmptyGroup(BrokerResponseError, errno=68, message="NON_EMPTY_GROUP"): ...
class GroupIdNotFound(BrokerResponseError, errno=69, message="GROUP_ID_NOT_FOUND"): ...
class FetchSessionIdNotFound(BrokerResponseError,
                             errno=70, message="FETCH_SESSION_ID_NOT_FOUND"): ...
class InvalidFetchSessionEpoch(BrokerResponseError,
                               errno=71, message="INVALID_FETCH_SESSION_EPOCH"): ...
class ListenerNotFound(BrokerResponseError, errno=72, message="LISTENER_NOT_FOUND"): ...
class MemberIdRequired(BrokerResponseError, errno=79, message="MEMBER_ID_REQUIRED"): ...


# the names the Kafka protocol's later versions gave some of these codes
InvalidMessageError = CorruptRecordException
CoordinatorLoadInProgressError = GroupLoadInProgressError
CoordinatorNotAvailableError = GroupCoordinatorNotAvailableError
NotCoordinatorError = NotCoordinatorForGroupError


def _subclasses(cls: type) -> Iterator[type]:
    sub: type
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


#: The numbered classes by Kafka error code.
kafka_errors = {getattr(cls, "errno"): cls for cls in _subclasses(BrokerResponseError)}


def for_code(error_code: Any) -> Any:
    """The class of a Kafka error code (UnknownError for a code without one)."""
    return kafka_errors.get(error_code, UnknownError)


# librdkafka's own (negative) codes: the class aiokafka raises in the same situation
_LOCAL_BY_NAME = {
    "_TIMED_OUT": KafkaTimeoutError,
    "_MSG_TIMED_OUT": KafkaTimeoutError,
    "_TIMED_OUT_QUEUE": KafkaTimeoutError,
    "_TRANSPORT": KafkaConnectionError,
    "_RESOLVE": KafkaConnectionError,
    "_SSL": KafkaConnectionError,
    "_ALL_BROKERS_DOWN": KafkaConnectionError,
    "_DESTROY_BROKER": KafkaConnectionError,
    "_AUTHENTICATION": AuthenticationFailedError,
    "_STATE": IllegalStateError,
    "_INVALID_ARG": IllegalArgumentError,
    "_INVALID_TYPE": IllegalArgumentError,
    "_UNKNOWN_TOPIC": UnknownTopicOrPartitionError,
    "_UNKNOWN_PARTITION": UnknownTopicOrPartitionError,
    "_FENCED": ProducerFenced,
    "_NO_OFFSET": NoOffsetForPartitionError,
    "_AUTO_OFFSET_RESET": OffsetOutOfRangeError,
    "_UNSUPPORTED_FEATURE": UnsupportedVersionError,
    "_BAD_MSG": CorruptRecordException,
    "_BAD_COMPRESSION": UnsupportedCodecError,
    "_NOT_CONFIGURED": IllegalOperation,
    "_PURGE_QUEUE": ProducerClosed,
    "_PURGE_INFLIGHT": ProducerClosed,
    "_MAX_POLL_EXCEEDED": CommitFailedError,
    "_ASSIGNMENT_LOST": CommitFailedError,
    "_UNKNOWN_BROKER": NodeNotReadyError,
}
_LOCAL = {getattr(_LibError, name): cls for name, cls in _LOCAL_BY_NAME.items()}
# a commit failing with these means the group moved on: aiokafka raises CommitFailedError
_COMMIT_FAILED = frozenset({22, 25, 27, getattr(_LibError, "_MAX_POLL_EXCEEDED"),
                            getattr(_LibError, "_ASSIGNMENT_LOST")})
_INVALID_ARG = getattr(_LibError, "_INVALID_ARG")
_PLAIN = (ProducerFenced, CommitFailedError)    # their own message, no argument


def from_kafka_error(err: Any, committing: Any = False) -> Any:
    """The aiokafka exception for a :class:`confluent_binding.KafkaError` (or a
    KafkaException carrying one): a Kafka code's numbered class, or the class aiokafka raises
    for what librdkafka reported; ``committing``: the error of a commit (a stale group then
    gives :class:`CommitFailedError`). The original error is the ``kafka_error`` attribute."""
    if not isinstance(err, _LibError):
        err = err.args[0]
    code = err.code()
    cls: Any
    if committing and code in _COMMIT_FAILED:
        cls = CommitFailedError
    elif code >= 0:
        cls = for_code(code) if code else UnknownError
    elif code == _INVALID_ARG and "transactional" in (err.str() or ""):
        cls = IllegalOperation
    else:
        cls = _LOCAL.get(code, KafkaError)
    exc: Any = cls() if cls in _PLAIN else cls(err.str() or err.name())
    exc.kafka_error = err
    return exc
