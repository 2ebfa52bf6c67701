"""Type stubs for the compiled module (checked against it by tests/unit/test_stubs.py)."""

import builtins
import contextvars
from asyncio import AbstractEventLoop
from typing import (
    Any,
    Callable,
    ClassVar,
    Dict,
    FrozenSet,
    Generator,
    Generic,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Type,
    Union,
    final,
    overload,
)

from typing_extensions import TypeVar, disjoint_base

# The key and value types of a Message: bytes as read from the broker; a deserializing consumer's
# messages hold its deserializers' objects (``Message[str, dict]``).
_K = TypeVar("_K", default=bytes)
_V = TypeVar("_V", default=bytes)

_HeaderValue = Union[str, bytes, None]
_Headers = Union[List[Tuple[str, _HeaderValue]], Dict[str, _HeaderValue]]
_Buffer = Union[str, bytes, bytearray, memoryview]
_DeliveryCallback = Callable[[Optional["KafkaError"], "Message"], Any]
_RebalanceCallback = Callable[["Consumer", List["TopicPartition"]], Any]

OFFSET_BEGINNING: int
OFFSET_END: int
OFFSET_STORED: int
OFFSET_INVALID: int
TIMESTAMP_NOT_AVAILABLE: int
TIMESTAMP_CREATE_TIME: int
TIMESTAMP_LOG_APPEND_TIME: int

class KafkaException(Exception): ...
class IllegalStateException(RuntimeError): ...
class ConcurrentModificationException(RuntimeError): ...

class KafkaError(KafkaException):
    """A Kafka error: a librdkafka error code with its name, description and flags.

    Every librdkafka error code is a class attribute (``KafkaError._MSG_TIMED_OUT``,
    ``KafkaError.UNKNOWN_TOPIC_OR_PART``, ...), generated from librdkafka at import.

    A value, passed to callbacks and held by messages; and, as confluent-kafka's tests expect,
    ``raise KafkaError(code)`` surfaces as a ``KafkaException`` whose ``args[0]`` is the error
    itself (confluent-kafka's KafkaError is flagged as an exception without deriving from one,
    so there only ``except KafkaError`` or a bare ``except`` catches it).
    """
    @property
    def args(self) -> Tuple["KafkaError"]:  # type: ignore[override]
        """``(self,)``: a KafkaException's ``args[0]`` is its KafkaError (made on each read, so
        that the error holds no reference to itself).
        """
    def __init__(self, error: int, reason: Optional[builtins.str] = None, fatal: bool = False,
                 retriable: bool = False, txn_requires_abort: bool = False) -> None: ...
    def code(self) -> int:
        """The error code (an int, one of the KafkaError constants)."""
    def name(self) -> builtins.str:
        """The error code's name, e.g. ``_MSG_TIMED_OUT``."""
    def str(self) -> builtins.str:
        """A human-readable description: the reason if one was given, else librdkafka's text."""
    def fatal(self) -> bool:
        """True for a fatal error: the client (an idempotent or transactional producer) can do
        nothing more and must be closed."""
    def retriable(self) -> bool:
        """True when the failed operation may succeed if it is tried again."""
    def txn_requires_abort(self) -> bool:
        """True when the current transaction must be aborted (``abort_transaction()``) before
        the producer can go on."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...
    def __lt__(self, other: Union["KafkaError", int]) -> bool: ...
    def __le__(self, other: Union["KafkaError", int]) -> bool: ...
    def __gt__(self, other: Union["KafkaError", int]) -> bool: ...
    def __ge__(self, other: Union["KafkaError", int]) -> bool: ...
    def __getattr__(self, name: builtins.str) -> int: ...  # the error-code constants
    # the error codes (librdkafka's, without the RD_KAFKA_RESP_ERR_ prefix)
    BROKER_NOT_AVAILABLE: ClassVar[int]
    CLUSTER_AUTHORIZATION_FAILED: ClassVar[int]
    CONCURRENT_TRANSACTIONS: ClassVar[int]
    COORDINATOR_LOAD_IN_PROGRESS: ClassVar[int]
    COORDINATOR_NOT_AVAILABLE: ClassVar[int]
    DELEGATION_TOKEN_AUTHORIZATION_FAILED: ClassVar[int]
    DELEGATION_TOKEN_AUTH_DISABLED: ClassVar[int]
    DELEGATION_TOKEN_EXPIRED: ClassVar[int]
    DELEGATION_TOKEN_NOT_FOUND: ClassVar[int]
    DELEGATION_TOKEN_OWNER_MISMATCH: ClassVar[int]
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: ClassVar[int]
    DUPLICATE_RESOURCE: ClassVar[int]
    DUPLICATE_SEQUENCE_NUMBER: ClassVar[int]
    DUPLICATE_VOTER: ClassVar[int]
    ELECTION_NOT_NEEDED: ClassVar[int]
    ELIGIBLE_LEADERS_NOT_AVAILABLE: ClassVar[int]
    FEATURE_UPDATE_FAILED: ClassVar[int]
    FENCED_INSTANCE_ID: ClassVar[int]
    FENCED_LEADER_EPOCH: ClassVar[int]
    FENCED_MEMBER_EPOCH: ClassVar[int]
    FENCED_STATE_EPOCH: ClassVar[int]
    FETCH_SESSION_ID_NOT_FOUND: ClassVar[int]
    GROUP_AUTHORIZATION_FAILED: ClassVar[int]
    GROUP_ID_NOT_FOUND: ClassVar[int]
    GROUP_MAX_SIZE_REACHED: ClassVar[int]
    GROUP_SUBSCRIBED_TO_TOPIC: ClassVar[int]
    ILLEGAL_GENERATION: ClassVar[int]
    ILLEGAL_SASL_STATE: ClassVar[int]
    INCONSISTENT_GROUP_PROTOCOL: ClassVar[int]
    INCONSISTENT_TOPIC_ID: ClassVar[int]
    INCONSISTENT_VOTER_SET: ClassVar[int]
    INVALID_COMMIT_OFFSET_SIZE: ClassVar[int]
    INVALID_CONFIG: ClassVar[int]
    INVALID_FETCH_SESSION_EPOCH: ClassVar[int]
    INVALID_GROUP_ID: ClassVar[int]
    INVALID_MSG: ClassVar[int]
    INVALID_MSG_SIZE: ClassVar[int]
    INVALID_PARTITIONS: ClassVar[int]
    INVALID_PRINCIPAL_TYPE: ClassVar[int]
    INVALID_PRODUCER_EPOCH: ClassVar[int]
    INVALID_PRODUCER_ID_MAPPING: ClassVar[int]
    INVALID_RECORD: ClassVar[int]
    INVALID_RECORD_STATE: ClassVar[int]
    INVALID_REGISTRATION: ClassVar[int]
    INVALID_REGULAR_EXPRESSION: ClassVar[int]
    INVALID_REPLICATION_FACTOR: ClassVar[int]
    INVALID_REPLICA_ASSIGNMENT: ClassVar[int]
    INVALID_REQUEST: ClassVar[int]
    INVALID_REQUIRED_ACKS: ClassVar[int]
    INVALID_SESSION_TIMEOUT: ClassVar[int]
    INVALID_SHARE_SESSION_EPOCH: ClassVar[int]
    INVALID_TIMESTAMP: ClassVar[int]
    INVALID_TRANSACTION_TIMEOUT: ClassVar[int]
    INVALID_TXN_STATE: ClassVar[int]
    INVALID_UPDATE_VERSION: ClassVar[int]
    INVALID_VOTER_KEY: ClassVar[int]
    KAFKA_STORAGE_ERROR: ClassVar[int]
    LEADER_NOT_AVAILABLE: ClassVar[int]
    LISTENER_NOT_FOUND: ClassVar[int]
    LOG_DIR_NOT_FOUND: ClassVar[int]
    MEMBER_ID_REQUIRED: ClassVar[int]
    MISMATCHED_ENDPOINT_TYPE: ClassVar[int]
    MSG_SIZE_TOO_LARGE: ClassVar[int]
    NETWORK_EXCEPTION: ClassVar[int]
    NON_EMPTY_GROUP: ClassVar[int]
    NOT_CONTROLLER: ClassVar[int]
    NOT_COORDINATOR: ClassVar[int]
    NOT_ENOUGH_REPLICAS: ClassVar[int]
    NOT_ENOUGH_REPLICAS_AFTER_APPEND: ClassVar[int]
    NOT_LEADER_FOR_PARTITION: ClassVar[int]
    NO_ERROR: ClassVar[int]
    NO_REASSIGNMENT_IN_PROGRESS: ClassVar[int]
    OFFSET_METADATA_TOO_LARGE: ClassVar[int]
    OFFSET_NOT_AVAILABLE: ClassVar[int]
    OFFSET_OUT_OF_RANGE: ClassVar[int]
    OPERATION_NOT_ATTEMPTED: ClassVar[int]
    OUT_OF_ORDER_SEQUENCE_NUMBER: ClassVar[int]
    POLICY_VIOLATION: ClassVar[int]
    PREFERRED_LEADER_NOT_AVAILABLE: ClassVar[int]
    PRINCIPAL_DESERIALIZATION_FAILURE: ClassVar[int]
    PRODUCER_FENCED: ClassVar[int]
    REASSIGNMENT_IN_PROGRESS: ClassVar[int]
    REBALANCE_IN_PROGRESS: ClassVar[int]
    REBOOTSTRAP_REQUIRED: ClassVar[int]
    RECORD_LIST_TOO_LARGE: ClassVar[int]
    REPLICA_NOT_AVAILABLE: ClassVar[int]
    REQUEST_TIMED_OUT: ClassVar[int]
    RESOURCE_NOT_FOUND: ClassVar[int]
    SASL_AUTHENTICATION_FAILED: ClassVar[int]
    SECURITY_DISABLED: ClassVar[int]
    SHARE_SESSION_LIMIT_REACHED: ClassVar[int]
    SHARE_SESSION_NOT_FOUND: ClassVar[int]
    STALE_BROKER_EPOCH: ClassVar[int]
    STALE_CTRL_EPOCH: ClassVar[int]
    STALE_MEMBER_EPOCH: ClassVar[int]
    STREAMS_INVALID_TOPOLOGY: ClassVar[int]
    STREAMS_INVALID_TOPOLOGY_EPOCH: ClassVar[int]
    STREAMS_TOPOLOGY_FENCED: ClassVar[int]
    TELEMETRY_TOO_LARGE: ClassVar[int]
    THROTTLING_QUOTA_EXCEEDED: ClassVar[int]
    TOPIC_ALREADY_EXISTS: ClassVar[int]
    TOPIC_AUTHORIZATION_FAILED: ClassVar[int]
    TOPIC_DELETION_DISABLED: ClassVar[int]
    TOPIC_EXCEPTION: ClassVar[int]
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED: ClassVar[int]
    TRANSACTION_ABORTABLE: ClassVar[int]
    TRANSACTION_COORDINATOR_FENCED: ClassVar[int]
    UNACCEPTABLE_CREDENTIAL: ClassVar[int]
    UNKNOWN: ClassVar[int]
    UNKNOWN_CONTROLLER_ID: ClassVar[int]
    UNKNOWN_LEADER_EPOCH: ClassVar[int]
    UNKNOWN_MEMBER_ID: ClassVar[int]
    UNKNOWN_PRODUCER_ID: ClassVar[int]
    UNKNOWN_SUBSCRIPTION_ID: ClassVar[int]
    UNKNOWN_TOPIC_ID: ClassVar[int]
    UNKNOWN_TOPIC_OR_PART: ClassVar[int]
    UNRELEASED_INSTANCE_ID: ClassVar[int]
    UNSTABLE_OFFSET_COMMIT: ClassVar[int]
    UNSUPPORTED_ASSIGNOR: ClassVar[int]
    UNSUPPORTED_COMPRESSION_TYPE: ClassVar[int]
    UNSUPPORTED_ENDPOINT_TYPE: ClassVar[int]
    UNSUPPORTED_FOR_MESSAGE_FORMAT: ClassVar[int]
    UNSUPPORTED_SASL_MECHANISM: ClassVar[int]
    UNSUPPORTED_VERSION: ClassVar[int]
    VOTER_NOT_FOUND: ClassVar[int]
    _ALL_BROKERS_DOWN: ClassVar[int]
    _APPLICATION: ClassVar[int]
    _ASSIGNMENT_LOST: ClassVar[int]
    _ASSIGN_PARTITIONS: ClassVar[int]
    _AUTHENTICATION: ClassVar[int]
    _AUTO_OFFSET_RESET: ClassVar[int]
    _BAD_COMPRESSION: ClassVar[int]
    _BAD_MSG: ClassVar[int]
    _BEGIN: ClassVar[int]
    _CONFLICT: ClassVar[int]
    _CRIT_SYS_RESOURCE: ClassVar[int]
    _DESTROY: ClassVar[int]
    _DESTROY_BROKER: ClassVar[int]
    _END: ClassVar[int]
    _EXISTING_SUBSCRIPTION: ClassVar[int]
    _FAIL: ClassVar[int]
    _FATAL: ClassVar[int]
    _FENCED: ClassVar[int]
    _FS: ClassVar[int]
    _GAPLESS_GUARANTEE: ClassVar[int]
    _INCONSISTENT: ClassVar[int]
    _INTR: ClassVar[int]
    _INVALID_ARG: ClassVar[int]
    _INVALID_DIFFERENT_RECORD: ClassVar[int]
    _INVALID_TYPE: ClassVar[int]
    _IN_PROGRESS: ClassVar[int]
    _ISR_INSUFF: ClassVar[int]
    _KEY_DESERIALIZATION: ClassVar[int]
    _KEY_SERIALIZATION: ClassVar[int]
    _LOG_TRUNCATION: ClassVar[int]
    _MAX_POLL_EXCEEDED: ClassVar[int]
    _MSG_TIMED_OUT: ClassVar[int]
    _NODE_UPDATE: ClassVar[int]
    _NOENT: ClassVar[int]
    _NOOP: ClassVar[int]
    _NOT_CONFIGURED: ClassVar[int]
    _NOT_IMPLEMENTED: ClassVar[int]
    _NO_OFFSET: ClassVar[int]
    _OUTDATED: ClassVar[int]
    _PARTIAL: ClassVar[int]
    _PARTITION_EOF: ClassVar[int]
    _PREV_IN_PROGRESS: ClassVar[int]
    _PURGE_INFLIGHT: ClassVar[int]
    _PURGE_QUEUE: ClassVar[int]
    _QUEUE_FULL: ClassVar[int]
    _READ_ONLY: ClassVar[int]
    _RESOLVE: ClassVar[int]
    _RETRY: ClassVar[int]
    _REVOKE_PARTITIONS: ClassVar[int]
    _SSL: ClassVar[int]
    _STATE: ClassVar[int]
    _TIMED_OUT: ClassVar[int]
    _TIMED_OUT_QUEUE: ClassVar[int]
    _TRANSPORT: ClassVar[int]
    _UNDERFLOW: ClassVar[int]
    _UNKNOWN_BROKER: ClassVar[int]
    _UNKNOWN_GROUP: ClassVar[int]
    _UNKNOWN_PARTITION: ClassVar[int]
    _UNKNOWN_PROTOCOL: ClassVar[int]
    _UNKNOWN_TOPIC: ClassVar[int]
    _UNSUPPORTED_FEATURE: ClassVar[int]
    _VALUE_DESERIALIZATION: ClassVar[int]
    _VALUE_SERIALIZATION: ClassVar[int]
    _WAIT_CACHE: ClassVar[int]
    _WAIT_COORD: ClassVar[int]

class ThrottleEvent:
    """A broker throttled this client: passed to ``throttle_cb``."""
    broker_name: str
    """The throttling broker's ``host:port/id`` name."""
    broker_id: int
    """The throttling broker's node id."""
    throttle_time: float
    """How long the broker throttled the client, in seconds."""
    def __init__(self, broker_name: str, broker_id: int, throttle_time: float) -> None: ...

class ClusterMetadata:
    """Brokers and topics of a cluster, as returned by ``list_topics()``."""
    cluster_id: Optional[str]
    """The cluster id, or None when the broker does not tell it."""
    controller_id: int
    """The current controller broker's id, or -1."""
    brokers: Dict[int, BrokerMetadata]
    """The brokers by id."""
    topics: Dict[str, TopicMetadata]
    """The topics by name."""
    orig_broker_id: int
    """The id of the broker this metadata came from."""
    orig_broker_name: Optional[str]
    """The name of the broker this metadata came from."""
    def __init__(self) -> None: ...

class BrokerMetadata:
    """A broker in :class:`ClusterMetadata` (and the broker of a :class:`GroupMetadata`)."""
    id: int
    """The broker's node id."""
    host: Optional[str]
    """The broker's host name."""
    port: int
    """The broker's port."""
    def __init__(self) -> None: ...

class TopicMetadata:
    """A topic in :class:`ClusterMetadata`: its partitions and error."""
    topic: Optional[str]
    """The topic's name."""
    partitions: Dict[int, PartitionMetadata]
    """The topic's partitions by id."""
    error: Optional[KafkaError]
    """The broker's error for this topic, or None."""
    def __init__(self) -> None: ...

class PartitionMetadata:
    """A partition in :class:`TopicMetadata`: leader, replicas, in-sync replicas, error."""
    id: int
    """The partition's id."""
    leader: int
    """The leader broker's id, or -1."""
    replicas: List[int]
    """The ids of the brokers holding a replica."""
    isrs: List[int]
    """The ids of the in-sync replicas."""
    error: Optional[KafkaError]
    """The broker's error for this partition, or None."""
    def __init__(self) -> None: ...

class GroupMember:
    """A member of a group in list_groups()."""
    id: Optional[str]
    """The member id."""
    client_id: Optional[str]
    """The member's client id."""
    client_host: Optional[str]
    """The member's client host."""
    metadata: Optional[bytes]
    """The member's metadata (binary, protocol specific)."""
    assignment: Optional[bytes]
    """The member's assignment (binary, protocol specific)."""
    def __init__(self) -> None: ...

class GroupMetadata:
    """A group as returned by list_groups()."""
    broker: Optional[BrokerMetadata]
    """The group's coordinator broker."""
    id: Optional[str]
    """The group id."""
    error: Optional[KafkaError]
    """The broker's error for this group, or None."""
    state: Optional[str]
    """The group's state."""
    protocol_type: Optional[str]
    """The group's protocol type."""
    protocol: Optional[str]
    """The group's protocol."""
    members: List[GroupMember]
    """The group's members."""
    def __init__(self) -> None: ...

@disjoint_base
class Message(Generic[_K, _V]):
    """A Kafka message: what a consumer receives and what a delivery report describes. Holds
    copies of the topic, key, value and headers; it owns no librdkafka memory. Constructed from
    Python in confluent-kafka's positional and keyword forms, subclassed, pickled (a subclass's
    instance as a Message, as confluent-kafka's), and compared (by topic, partition, offset, key,
    value, headers, error, timestamp and leader epoch).
    """
    def __init__(self, topic: Optional[str] = None, partition: Optional[int] = None,
                 offset: Optional[int] = None, key: Any = None, value: Any = None,
                 headers: Any = None, error: Optional[KafkaError] = None,
                 timestamp: Optional[Tuple[int, int]] = None, latency: Optional[float] = None,
                 leader_epoch: Optional[int] = None,
                 delivery_count: Optional[int] = None) -> None: ...
    def error(self) -> Optional[KafkaError]:
        """None, or the KafkaError of a failed delivery or of a consumer event."""
    def topic(self) -> Optional[str]:
        """The topic's name, or None for an event not tied to a topic."""
    def partition(self) -> Optional[int]:
        """The partition, or None when it is not known (a message not yet delivered,
        an error event).
        """
    def offset(self) -> Optional[int]:
        """The message's offset in its partition, or None when it has none (not yet
        delivered, a failed delivery, an error event).
        """
    def key(self) -> Optional[_K]:
        """The key (bytes as read from the broker; whatever ``set_key()`` stored), or None
        when the message has no key.
        """
    def value(self) -> Optional[_V]:
        """The value (payload): bytes as read from the broker, or None for a null value
        (a tombstone) and for events.
        """
    def headers(self) -> Optional[List[Tuple[str, Optional[bytes]]]]:
        """A list of (str, bytes|None) tuples, or None when the message has no headers."""
    def timestamp(self) -> Tuple[int, int]:
        """(timestamp type, milliseconds since the epoch): one of the TIMESTAMP_* constants."""
    def latency(self) -> Optional[float]:
        """Producer: seconds from produce() to the delivery report; None otherwise."""
    def leader_epoch(self) -> Optional[int]:
        """The leader epoch of the partition when the message was read, or None when
        the broker did not say (old brokers, produced messages).
        """
    def delivery_count(self) -> Optional[int]:
        """Share consumers: how many times the record has been delivered; None otherwise."""
    def deserialized_key(self) -> Any:
        """The key; a DeserializingConsumer's messages hold the deserialized object here."""
    def deserialized_value(self) -> Any:
        """The value; a DeserializingConsumer's messages hold the deserialized object here."""
    def set_headers(self, headers: Any) -> None:
        """Replace the headers with ``headers``, stored as given (confluent-kafka's
        takes a list of ``(str, bytes)`` tuples); ``headers()`` then returns it.
        """
    def set_key(self, key: Any) -> None:
        """Replace the key, e.g. with a deserialized object (confluent-kafka's
        DeserializingConsumer does this).
        """
    def set_value(self, value: Any) -> None:
        """Replace the value, e.g. with a deserialized object (confluent-kafka's
        DeserializingConsumer does this).
        """
    def set_topic(self, topic: Optional[str]) -> None:
        """Replace the topic name."""
    def set_error(self, error: Optional[KafkaError]) -> None:
        """Replace the error (a KafkaError, or None to clear it)."""
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

@disjoint_base
class TopicPartition:
    """A topic partition, optionally with an offset, commit metadata and leader epoch."""
    topic: str
    """The topic's name."""
    partition: int
    """The partition number (-1: not set, or any partition)."""
    offset: int
    """The offset, or one of the logical offsets ``OFFSET_BEGINNING`` (-2),
    ``OFFSET_END`` (-1), ``OFFSET_STORED`` (-1000) and ``OFFSET_INVALID`` (-1001, the default).
    For ``offsets_for_times`` it carries a timestamp in milliseconds on the way in.
    """
    metadata: Optional[str]
    """The commit metadata string stored with a committed offset, or None."""
    leader_epoch: Optional[int]
    """The leader epoch of the offset, or None when it is not known."""
    error: Optional[KafkaError]
    """The per-partition KafkaError of a request's result (commit, committed,
    list offsets...), or None when it succeeded.
    """
    def __init__(self, topic: str, partition: int = -1, offset: int = -1001,
                 metadata: Optional[str] = None, leader_epoch: Optional[int] = None) -> None: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: "TopicPartition", /) -> bool: ...
    def __le__(self, other: "TopicPartition", /) -> bool: ...
    def __gt__(self, other: "TopicPartition", /) -> bool: ...
    def __ge__(self, other: "TopicPartition", /) -> bool: ...

@final
class ConsumerGroupMetadata: ...

@disjoint_base
class _Handle:
    def list_topics(self, topic: Optional[str] = None, timeout: float = -1) -> ClusterMetadata: ...
    def cluster_id(self, timeout: Optional[float] = -1) -> str: ...
    def set_sasl_credentials(self, username: str, password: str) -> None: ...
    def _io_event_enable(self, fd: int) -> None: ...
    def __enter__(self) -> Any: ...
    def __exit__(self, *exc_info: object) -> None: ...

@disjoint_base
class Producer(_Handle):
    """Asynchronous Kafka producer (confluent-kafka compatible).

    ``Producer(conf)``, ``Producer(conf, **kwargs)`` or ``Producer(**kwargs)`` with librdkafka
    properties plus ``on_delivery``, ``delivery.report.only.error``, ``error_cb``, ``stats_cb``,
    ``throttle_cb``, ``oauth_cb``, ``logger``. Delivery reports and all callbacks are served only
    inside ``poll()``, ``flush()`` and ``close()``, on the calling thread. With OAUTHBEARER,
    construction also calls ``oauth_cb`` (on the constructing thread) and, as confluent-kafka's,
    returns once it has set the first token (KafkaException after 10 seconds without one).
    """
    def __init__(self, *args: Dict[str, Any], **kwargs: Any) -> None: ...
    def produce(self, topic: str, value: Optional[_Buffer] = None, key: Optional[_Buffer] = None,
                partition: int = -1, on_delivery: Optional[_DeliveryCallback] = None,
                callback: Optional[_DeliveryCallback] = None, timestamp: int = 0,
                headers: Optional[_Headers] = None) -> None:
        """Enqueue a message for ``topic``; its delivery report is served by poll()/flush().

        ``value``/``key``: bytes, str (UTF-8) or any buffer. ``headers``: a list of
        ``(str, bytes|str|None)`` or a dict. ``on_delivery(err, msg)`` overrides the configured
        callback. Raises BufferError when the local queue is full, at once unless the producer
        was configured with ``max.block.ms`` (an extension: then it first waits up to that
        long for room, serving delivery reports meanwhile as poll() does).
        """
    def produce_batch(self, topic: str, messages: Sequence[Any], partition: int = -1,
                      on_delivery: Optional[_DeliveryCallback] = None,
                      callback: Optional[_DeliveryCallback] = None) -> int:
        """Enqueue a list of messages for ``topic``; returns how many were enqueued.

        Each item is a dict with any of ``value`` and ``key`` (bytes or str), ``partition``,
        ``callback`` (or ``on_delivery``) and, beyond confluent-kafka (which refuses the first
        and drops the second), ``timestamp`` and ``headers``, which are produced. As
        confluent-kafka: every message is checked before any is enqueued (TypeError or
        ValueError naming its index); a dict that cannot be enqueued gets ``item['_error']``, a
        KafkaError ("Message failed: ..."). Every enqueued message gets its own delivery report.
        """
    def poll(self, timeout: Optional[float] = -1) -> int:
        """Serve delivery reports and other callbacks; wait up to ``timeout`` seconds (-1:
        forever) for the first one. Returns the number of events served.
        """
    def flush(self, timeout: Optional[float] = -1) -> int:
        """Wait until every message is delivered (or failed) and its report served.

        Returns the number of messages still outstanding when ``timeout`` ran out.
        """
    def _send_now(self, timeout: Optional[float]) -> None: ...
    def purge(self, in_queue: bool = True, in_flight: bool = True,
              blocking: bool = True) -> None:
        """Purge queued and/or in-flight messages; their reports (with _PURGE_QUEUE /
        _PURGE_INFLIGHT) are served by the next poll()/flush().
        """
    def __len__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def init_transactions(self, timeout: Optional[float] = -1) -> None:
        """Initialise transactions for this producer's ``transactional.id``: fences
        older producers with the same id and aborts their open transaction. Call once, before
        ``begin_transaction()``.

        Raises:
            KafkaException: the error, with ``retriable()``/``fatal()`` set as librdkafka says;
                a timeout (``_TIMED_OUT``) can be retried with the same call.
        """
    def begin_transaction(self) -> None:
        """Start a transaction: every message produced from now on, and offsets
        sent with ``send_offsets_to_transaction()``, commit or abort together.

        Raises:
            KafkaException: ``_STATE`` when ``init_transactions()`` was not called or a
                transaction is already open.
        """
    def send_offsets_to_transaction(self, positions: List[TopicPartition],
                                    group_metadata: ConsumerGroupMetadata,
                                    timeout: Optional[float] = -1) -> None:
        """Add a consumer's offsets (``positions``) to the current transaction."""
    def commit_transaction(self, timeout: Optional[float] = -1) -> None:
        """Deliver everything produced in the transaction (serving its reports), then commit."""
    def abort_transaction(self, timeout: Optional[float] = -1) -> None:
        """Abort the transaction: its queued messages are purged (their reports, with
        _PURGE_QUEUE, and those of messages in flight are served by this call).
        """
    def close(self, timeout: Optional[float] = -1) -> bool:
        """Wait up to ``timeout`` for outstanding deliveries, purge the rest (serving every
        report), and free the producer. Returns True, as confluent-kafka's; closing twice is
        harmless.
        """
    def _produce_delivery(self, topic: str, value: Optional[_Buffer], key: Optional[_Buffer],
                          partition: int, timestamp: int, headers: Optional[_Headers],
                          loop: AbstractEventLoop) -> DeliveryFuture: ...

@final
class DeliveryFuture:
    """The future ``await AIOProducer.produce(...)`` returns: its result is the delivered
    :class:`Message`, or it raises :class:`KafkaException` when delivery failed.

    It follows asyncio's future protocol (``asyncio.isfuture()`` is true; tasks await it;
    ``gather``, ``wait``, ``wait_for``, ``shield`` and ``wrap``-style chaining accept it), with
    ``result``, ``exception``, ``done``, ``cancelled``, ``cancel``, ``add_done_callback`` /
    ``remove_done_callback`` (with ``context``), ``get_loop``, ``set_result`` and
    ``set_exception``. It is not a subclass of ``asyncio.Future``. Done-callbacks run on the
    loop, in the context they were added with, never inside the call that resolved the future:
    those of every future one served batch of delivery reports resolved are run by one loop
    callback, in order. An exception a done-callback raises goes to the loop's exception
    handler, as asyncio does. Cancelling it does not withdraw the message: its delivery report
    is still served, once.
    """
    _asyncio_future_blocking: bool
    _source_traceback: None
    def __init__(self, *, loop: Optional[AbstractEventLoop] = None) -> None: ...
    def get_loop(self) -> AbstractEventLoop:
        """The event loop the future belongs to."""
    def done(self) -> bool:
        """True once the delivery report has been served (delivered or failed) or the future
        was cancelled.
        """
    def cancelled(self) -> bool:
        """True when the future was cancelled (the message itself is not recalled)."""
    def result(self) -> Message:
        """The delivered Message.

        Raises:
            KafkaException: the delivery failed (its KafkaError is ``args[0]``).
            asyncio.InvalidStateError: the report has not been served yet.
            asyncio.CancelledError: the future was cancelled.
        """
    def exception(self) -> Optional[BaseException]:
        """The KafkaException of a failed delivery, or None when it was delivered; raises
        as :meth:`result` does while it is pending or cancelled.
        """
    def add_done_callback(self, fn: Callable[[DeliveryFuture], object], *,
                          context: Optional[contextvars.Context] = None) -> None:
        """Call ``fn(future)`` on the loop once the future is done."""
    def remove_done_callback(self, fn: Callable[[DeliveryFuture], object]) -> int:
        """Remove every pending ``fn``; returns how many were removed."""
    def cancel(self, msg: Optional[Any] = None) -> bool:
        """Cancel the future (the message is not withdrawn: its report is still served)."""
    def _map(self, result: Callable[[Message], Any],
             error: Callable[[KafkaException], BaseException],
             quiet: Iterable[int] = ...) -> DeliveryFuture: ...
    def set_result(self, result: Message) -> None:
        """Resolve the future with ``result`` (done by the producer when the report is
        served; asyncio's future protocol).
        """
    def set_exception(self, exception: Union[Type[BaseException], BaseException]) -> None:
        """Fail the future with ``exception`` (done by the producer for a failed delivery;
        asyncio's future protocol).
        """
    def __await__(self) -> Generator[Any, None, Message]: ...
    def __iter__(self) -> Generator[Any, None, Message]: ...
    def __next__(self) -> Any: ...

@disjoint_base
class Consumer(_Handle):
    """High-level Kafka consumer (confluent-kafka compatible), classic and KIP-848 groups.

    Callbacks (on_assign/on_revoke/on_lost, on_commit, error_cb, stats_cb, throttle_cb,
    oauth_cb, logger) are served only inside ``poll()``, ``consume()`` and ``close()``, on the
    calling thread; with OAUTHBEARER construction serves ``oauth_cb`` too (see Producer).
    """
    def __init__(self, *args: Dict[str, Any], **kwargs: Any) -> None: ...
    def subscribe(self, topics: List[str], on_assign: Optional[_RebalanceCallback] = None,
                  on_revoke: Optional[_RebalanceCallback] = None,
                  on_lost: Optional[_RebalanceCallback] = None) -> None:
        """Join the group for ``topics`` (names, or ``^regex`` patterns)."""
    def unsubscribe(self) -> None:
        """Leave the subscription: the current assignment is revoked (``on_revoke`` is
        served by the next poll) and no more messages of the subscribed topics arrive.
        """
    def assign(self, partitions: List[TopicPartition]) -> None:
        """Replace the assignment with ``partitions`` (a list of TopicPartition)."""
    def unassign(self) -> None:
        """Drop the current (manual or rebalance) assignment; no partition is fetched
        until the next ``assign()``.
        """
    def incremental_assign(self, partitions: List[TopicPartition]) -> None:
        """Add ``partitions`` (TopicPartitions, offsets optional) to the current
        assignment: for the cooperative-sticky assignor's ``on_assign`` or manual assignment.
        """
    def incremental_unassign(self, partitions: List[TopicPartition]) -> None:
        """Remove ``partitions`` from the current assignment (cooperative rebalancing
        or manual assignment); the rest keep being fetched.
        """
    def _defer_assignment(self) -> bool: ...
    def assignment(self) -> List[TopicPartition]:
        """The partitions currently assigned to this consumer (a list of TopicPartition,
        offsets not set).
        """
    def poll(self, timeout: Optional[float] = -1) -> Optional[Message]:
        """The next message or event (a Message with error() set), or None after ``timeout``
        seconds (-1: wait forever).
        """
    def consume(self, num_messages: int = 1, timeout: Optional[float] = -1) -> List[Message]:
        """Up to ``num_messages`` messages (and events): returns when that many have arrived
        or ``timeout`` seconds have passed (-1: wait forever), like confluent-kafka.
        """
    def consume_arrow(self, num_messages: int = 10000, timeout: Optional[float] = -1,
                      end_offsets: Optional[Dict[Tuple[str, int], int]] = None,
                      headers: bool = False) -> Any:
        """Up to ``num_messages`` messages as one ``pyarrow.RecordBatch`` with the columns of
        Spark's Kafka source: key, value (binary), topic (string), partition (int32), offset
        (int64), timestamp (timestamp[us, UTC], null when unknown), timestampType (int32: -1
        none, 0 create time, 1 log append time) and, with ``headers=True``, headers
        (list<struct<key: string, value: binary>>, null when a record has none).

        The records go from librdkafka into Arrow buffers in C, without a Python object per
        record (needs pyarrow). Waits like consume(): until ``num_messages`` arrived or
        ``timeout`` seconds passed (-1: forever).

        ``end_offsets``: {(topic, partition): end} makes the read range-bounded: records at
        or after a partition's end are dropped, and the call returns as soon as every listed
        partition reached its end (a record at end - 1, or, with enable.partition.eof, the
        partition's end). Partition-EOF events never become rows. An error event ends the
        batch: it is raised as KafkaException, by the next call when rows came before it. A
        batch also ends before a record that would take a column past Arrow's 2 GiB.

        Nothing is lost when the call raises (a callback it serves raised, Ctrl-C, no memory):
        the messages it had taken are delivered first by the next poll()/consume()/
        consume_arrow().
        """
    def commit(self, message: Optional[Message] = None,
               offsets: Optional[List[TopicPartition]] = None,
               asynchronous: bool = True) -> Optional[List[TopicPartition]]:
        """Commit ``message``'s offset + 1, ``offsets``, or the current positions.

        Asynchronous: returns None, the result goes to on_commit. Synchronous: returns the
        committed TopicPartition list (per-partition errors set) or raises KafkaException.
        """
    def committed(self, partitions: List[TopicPartition],
                  timeout: Optional[float] = -1) -> List[TopicPartition]:
        """The group's committed offsets for ``partitions``."""
    def position(self, partitions: List[TopicPartition]) -> List[TopicPartition]:
        """The next offset this consumer will read for each of ``partitions``."""
    def store_offsets(self, message: Optional[Message] = None,
                      offsets: Optional[List[TopicPartition]] = None) -> None:
        """Store offsets (message offset + 1, or ``offsets`` as given) for the next commit."""
    def seek(self, partition: TopicPartition) -> None:
        """Move the fetch position of an assigned partition to ``partition.offset``."""
    def pause(self, partitions: List[TopicPartition]) -> None:
        """Stop fetching ``partitions`` (keeping their positions) until ``resume()``;
        the group membership is unaffected.
        """
    def resume(self, partitions: List[TopicPartition]) -> None:
        """Fetch ``partitions`` again after ``pause()``, from where they stopped."""
    def get_watermark_offsets(self, partition: TopicPartition, timeout: float = -1,
                              cached: bool = False) -> Tuple[int, int]:
        """(low, high) offsets of ``partition``: asked of the broker, or the cached values."""
    def offsets_for_times(self, partitions: List[TopicPartition],
                          timeout: float = -1) -> List[TopicPartition]:
        """For each partition (its ``offset`` a timestamp in ms): the earliest offset whose
        timestamp is at or after it (-1 when there is none).
        """
    def memberid(self) -> Optional[str]:
        """The group member id, or None while the consumer is not a member (as confluent-kafka)."""
    def consumer_group_metadata(self) -> ConsumerGroupMetadata:
        """The group's state (id, generation, member id) to pass to
        ``Producer.send_offsets_to_transaction()`` in a consume-transform-produce loop.
        """
    def close(self) -> None:
        """Leave the group (committing offsets if auto-commit is on), serve the final
        rebalance callbacks, and free the consumer. Closing twice is harmless.

        The wait (up to ``session.timeout.ms`` when the group coordinator cannot be reached)
        is served in short GIL-free chunks, so Ctrl-C interrupts it: the consumer then stays
        closed to every other call, and calling close() again resumes the wait.
        """
    def __iter__(self) -> "Consumer": ...
    def __next__(self) -> Message: ...

SHARE_ACKNOWLEDGE_TYPE_ACCEPT: int
SHARE_ACKNOWLEDGE_TYPE_RELEASE: int
SHARE_ACKNOWLEDGE_TYPE_REJECT: int

class Messages:
    """The read-only batch :meth:`ShareConsumer.poll` returns: iteration, ``len()``, indexing
    and slicing (a slice is a :class:`Messages` too), ``count()``, ``is_empty()`` and
    ``records()`` (a copy as a list). (Re-exported by the package as ``confluent_kafka._model``
    has it.)
    """
    def __init__(self, messages: Iterable[Message] = ()) -> None: ...
    @classmethod
    def _from_list(cls, records: List[Message]) -> Messages: ...
    def records(self) -> List[Message]:
        """The messages of this batch, as a new list."""
    def count(self) -> int:
        """How many messages the batch holds."""
    def is_empty(self) -> bool:
        """True when the batch holds no message."""
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Message]: ...
    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Messages: ...

@disjoint_base
class ShareConsumer(_Handle):
    """A share-group consumer (KIP-932, confluent-kafka compatible): the records of the
    subscribed topics are shared out among the group's members, each delivered to one member
    at a time and acknowledged one by one.

    ``ShareConsumer(conf)``, ``ShareConsumer(conf, **kwargs)`` or ``ShareConsumer(**kwargs)``;
    ``group.id`` is required, ``share.acknowledgement.mode`` is ``implicit`` (records of a poll
    are accepted by the next poll or commit) or ``explicit`` (acknowledge() each record, then
    commit). ``error_cb``, ``stats_cb``, ``throttle_cb``, ``logger`` and the
    acknowledgement-commit callback are served only inside poll(), commit_sync(),
    commit_async() and close(), on the calling thread; ``oauth_cb`` as for Producer. Not for
    concurrent use from several threads (a second thread's call raises
    ConcurrentModificationException).
    """
    def __init__(self, *args: Dict[str, Any], **kwargs: Any) -> None: ...
    def subscribe(self, topics: List[str]) -> None:
        """Subscribe to ``topics`` (a list of names; it replaces the current subscription,
        an empty list unsubscribes). The broker assigns the partitions.
        """
    def unsubscribe(self) -> None:
        """Leave the subscription: the broker takes this member out of the share group."""
    def subscription(self) -> List[str]:
        """The subscribed topic names."""
    def poll(self, timeout: Optional[float] = -1) -> Messages:
        """A :class:`~confluent_binding.Messages` batch of the records acquired for this
        member (empty after ``timeout`` seconds; -1: wait forever). Check each message's
        error(). In explicit mode every record of the previous batch must be acknowledged
        first.
        """
    def acknowledge(self, message: Message, ack_type: int = 1) -> None:
        """Explicit mode: record how the broker is to treat ``message`` (ACCEPT, RELEASE or
        REJECT); sent by the next poll(), commit_sync() or commit_async().
        """
    def acknowledge_offset(self, topic: str, partition: int, offset: int,
                           ack_type: int = 1) -> None:
        """Explicit mode: acknowledge the record at ``topic``/``partition``/``offset``."""
    def commit_sync(self, timeout: Optional[float] = 60) -> Dict[TopicPartition, Any]:
        """Send the pending acknowledgements and wait up to ``timeout`` seconds (-1: forever)
        for the broker: {TopicPartition: None or KafkaException}, empty when nothing was
        pending. In implicit mode the records of the last poll are accepted first.
        """
    def commit_async(self) -> None:
        """Send the pending acknowledgements; the outcome goes to the acknowledgement-commit
        callback.
        """
    def set_acknowledgement_commit_callback(
        self, callback: Optional[Callable[[Dict[TopicPartition, Any], Any], Any]]) -> None:
        """``callback(offsets, exception)`` gets the acknowledged offsets
        ({TopicPartition: set of offsets}) and None or a KafkaException, each time the broker
        answers an acknowledgement commit; None clears it.
        """
    def close(self) -> None:
        """Commit the pending acknowledgements, leave the share group and free the consumer
        (callbacks are served meanwhile). Closing twice is harmless.
        """

@disjoint_base
class _AdminClientImpl(_Handle):
    # the compiled half of confluent_binding.admin.AdminClient; request methods take plain
    # request data and the Future(s) the result completes
    def __init__(self, *args: Optional[Dict[str, Any]], **kwargs: Any) -> None: ...
    def _create_topics(self, specs: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _delete_topics(self, topics: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _create_partitions(self, specs: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _describe_configs(self, resources: List[Any], future: Any,
                          opts: Dict[str, Any]) -> None: ...
    def _alter_configs(self, resources: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _incremental_alter_configs(self, resources: List[Any], future: Any,
                                   opts: Dict[str, Any]) -> None: ...
    def _create_acls(self, acls: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _describe_acls(self, acl_filter: Tuple[Any, ...], future: Any,
                       opts: Dict[str, Any]) -> None: ...
    def _delete_acls(self, filters: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _list_consumer_groups(self, future: Any, opts: Dict[str, Any]) -> None: ...
    def _describe_consumer_groups(self, groups: List[Any], future: Any,
                                  opts: Dict[str, Any]) -> None: ...
    def _delete_consumer_groups(self, groups: List[Any], future: Any,
                                opts: Dict[str, Any]) -> None: ...
    def _list_consumer_group_offsets(self, group: str, parts: Any, future: Any,
                                     opts: Dict[str, Any]) -> None: ...
    def _alter_consumer_group_offsets(self, group: str, parts: List[Any], future: Any,
                                      opts: Dict[str, Any]) -> None: ...
    def _describe_topics(self, topics: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _describe_cluster(self, future: Any, opts: Dict[str, Any]) -> None: ...
    def _list_offsets(self, parts: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _delete_records(self, parts: List[Any], future: Any, opts: Dict[str, Any]) -> None: ...
    def _elect_leaders(self, election_type: int, parts: Any, future: Any,
                       opts: Dict[str, Any]) -> None: ...
    def _describe_user_scram_credentials(self, users: Any, future: Any,
                                         opts: Dict[str, Any]) -> None: ...
    def _alter_user_scram_credentials(self, alterations: List[Any], future: Any,
                                      opts: Dict[str, Any]) -> None: ...
    def _serve_results(self, timeout_ms: int) -> bool: ...
    def _in_flight(self) -> int: ...
    def _stop_results(self) -> None: ...
    def _close(self) -> None: ...
    def poll(self, timeout: Optional[float] = -1) -> int: ...
    def __len__(self) -> int: ...
    def _check_open(self) -> None: ...
    def _list_groups(self, group: Optional[str] = None,
                     timeout: Optional[float] = -1) -> List[GroupMetadata]: ...

def libversion() -> Tuple[str, int]: ...
def build_info() -> Dict[str, Any]: ...
_KEPT_AS_GIVEN: FrozenSet[str]
def _property_name(keyword: str) -> str: ...
def _properties(keywords: Mapping[str, Any]) -> Dict[str, Any]: ...
def _arrow_schema(headers: bool = False) -> Any: ...
def _set_configured_oauth_cb(
        factory: Callable[[Dict[str, Any]], Optional[Callable[[str], Any]]]) -> None: ...
def _partition(name: str, key: bytes, partition_count: int) -> int: ...
_AVRO_OPS: Dict[str, int]
_AVRO_NO_DEFAULT: object
def _avro_encode(program: Tuple[Any, ...], prefix: bytes, datum: Any) -> Optional[bytes]: ...
_AVRO_LAYOUTS: Dict[str, int]
_AVRO_READS: Dict[str, int]
def _avro_schema_ids(validity: Any, offsets: Any, data: Any, offset: int,
                     n: int) -> Optional[Set[int]]: ...
def _avro_decode(validity: Any, offsets: Any, data: Any, offset: int, n: int,
                 programs: Dict[int, Any], layout: Tuple[Any, ...]) -> Optional[List[Any]]: ...
def _produce_arrow(producer: Producer, topic: Optional[str], value: Any, key: Any = None,
                   topics: Any = None, partitions: Any = None, headers: Any = None,
                   wide_value: bool = False, wide_key: bool = False,
                   wide_topic: bool = False) -> int: ...
@final
class _AioPath:
    """AIOProducer's compiled produce path (its producer and loop)."""
    def __new__(cls, producer: Producer, loop: AbstractEventLoop) -> "_AioPath": ...

@disjoint_base
class _AioProducerBase:
    """The asyncio producer's base: what its compiled produce() needs of it."""
    _fast: Optional[_AioPath]
    def _produce(self, topic: Any, value: Any, key: Any, partition: Any, on_delivery: Any,
                 timestamp: Any, headers: Any, callback: Any) -> Any: ...

async def _aio_produce(self: Any, topic: str, value: Optional[_Buffer] = None,
                       key: Optional[_Buffer] = None, partition: int = -1,
                       on_delivery: Optional[_DeliveryCallback] = None, timestamp: int = 0,
                       headers: Optional[_Headers] = None,
                       callback: Optional[_DeliveryCallback] = None) -> DeliveryFuture: ...
