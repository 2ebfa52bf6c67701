"""What the Schema Registry serdes share: subject naming, configuration, registry look-ups and
the base classes (the wire format is :mod:`._wire`'s).

This module imports nothing from the registry client at load time, so the package's
``__init__`` can re-export its names. Its public face is :mod:`.serde` (confluent-kafka's
``schema_registry.serde``), which adds the asyncio bases of :mod:`._aserde`.
"""

import collections
import enum
import inspect
import io
import logging
import threading
import types
from typing import Any, Callable, Dict, Optional, Tuple

from .._serdes import maybe_await
from ..serialization import (
    Deserializer,
    DeserializerBuilder,
    MessageField,
    SerializationContext,
    SerializationError,
    Serializer,
    SerializerBuilder,
)
from ._rest import WouldBlock, may_block
from ._rule_runner import _RuleRunner
from ._rules import (
    clear_original_key,
    set_original_key,
)
from ._steps import drive, finish
from ._wire import (
    SchemaId,
    dual_schema_id_deserializer,
    prefix_schema_id_deserializer,
    prefix_schema_id_serializer,
)
from .error import SchemaRegistryError

# offered by confluent-kafka's serde module (.serde)
__all__ = [
    "topic_subject_name_strategy",
    "topic_record_subject_name_strategy",
    "record_subject_name_strategy",
    "reference_subject_name_strategy",
    "BaseSerde",
    "BaseSerializer",
    "BaseDeserializer",
    "SubjectNameStrategyType",
    "STRATEGY_TYPE_MAP",
    "AssociatedNameStrategy",
    "KAFKA_CLUSTER_ID",
    "FALLBACK_TYPE",
    "ParsedSchemaCache",
    "build_serde",
]

# -- subject name strategies ------------------------------------------------------------------


def _need_ctx(ctx: Optional[SerializationContext], name: str) -> SerializationContext:
    if ctx is None:
        raise ValueError(
            "SerializationContext is required for {}. Either provide a SerializationContext "
            "or use record_subject_name_strategy.".format(name)
        )
    return ctx


def topic_subject_name_strategy(ctx: Optional[SerializationContext],
                                record_name: Optional[str]) -> Optional[str]:
    """``{topic}-key`` or ``{topic}-value``."""
    ctx = _need_ctx(ctx, "topic_subject_name_strategy")
    return ctx.topic + "-" + ctx.field


def topic_record_subject_name_strategy(ctx: Optional[SerializationContext],
                                       record_name: Optional[str]) -> Optional[str]:
    """``{topic}-{record name}``."""
    ctx = _need_ctx(ctx, "topic_record_subject_name_strategy")
    return None if record_name is None else ctx.topic + "-" + record_name


def record_subject_name_strategy(ctx: Optional[SerializationContext],
                                 record_name: Optional[str]) -> Optional[str]:
    """``{record name}`` (the context is not needed)."""
    return record_name


def reference_subject_name_strategy(ctx: Optional[SerializationContext],
                                    schema_ref: Any) -> Optional[str]:
    """A referenced schema's subject is the reference's name."""
    return None if schema_ref is None else schema_ref.name


#: the strategies whose subject depends only on the context's topic and field and the record
#: name, which is fixed per serde (a serde caches per topic and field what follows from them)
_FIXED_STRATEGIES = (topic_subject_name_strategy, topic_record_subject_name_strategy,
                     record_subject_name_strategy)


class SubjectNameStrategyType(str, enum.Enum):
    """The subject name strategies ``subject.name.strategy.type`` names."""

    NONE = "NONE"
    TOPIC = "TOPIC"
    RECORD = "RECORD"
    TOPIC_RECORD = "TOPIC_RECORD"
    ASSOCIATED = "ASSOCIATED"


#: The strategy functions behind the types that are plain functions (not NONE or ASSOCIATED).
STRATEGY_TYPE_MAP = {
    SubjectNameStrategyType.TOPIC: topic_subject_name_strategy,
    SubjectNameStrategyType.RECORD: record_subject_name_strategy,
    SubjectNameStrategyType.TOPIC_RECORD: topic_record_subject_name_strategy,
}

#: ``subject.name.strategy.conf`` key: the Kafka cluster id association look-ups are made under.
KAFKA_CLUSTER_ID = "subject.name.strategy.kafka.cluster.id"
#: ``subject.name.strategy.conf`` key: the strategy used when a topic has no association.
FALLBACK_TYPE = "subject.name.strategy.fallback.type"
_ANY_NAMESPACE = "-"
# (an enum member read from its class costs a descriptor call: these are read per record)
_KEY = MessageField.KEY
_ASSOCIATION_CACHE_CAPACITY = 1000


def _fallback_type(conf):
    value = (conf or {}).get(FALLBACK_TYPE)
    if value is None:
        return SubjectNameStrategyType.TOPIC
    try:
        fallback = SubjectNameStrategyType(str(getattr(value, "value", value)).upper())
    except ValueError:
        fallback = None
    if fallback is None:
        raise ValueError("Invalid value for {}: {}. Valid values are: {}".format(
            FALLBACK_TYPE, getattr(value, "value", value), ", ".join(
                t.value for t in SubjectNameStrategyType
                if t != SubjectNameStrategyType.ASSOCIATED)))
    return fallback


class AssociatedNameStrategy:
    """The subject a topic's key or value is associated with in the registry.

    Called as ``strategy(ctx, record_name, schema_registry_client, conf)``, it asks the registry
    for the associations of the topic (resource type ``topic``, association type ``key`` or
    ``value``) in the namespace ``conf[KAFKA_CLUSTER_ID]``, else the cluster id the client's
    resolver returns (see :meth:`set_cluster_id_resolver`), else ``-`` (any). One association
    gives its subject; several raise SerializationError; none (or a registry without the
    associations API, answering 404) falls back to ``conf[FALLBACK_TYPE]``: ``TOPIC`` (the
    default), ``RECORD``, ``TOPIC_RECORD`` or ``NONE`` (SerializationError). Answers are kept
    in an LRU cache of ``cache_capacity`` entries.
    """

    def __init__(self, cache_capacity: int = _ASSOCIATION_CACHE_CAPACITY) -> None:
        self._capacity = cache_capacity
        self._cache: "collections.OrderedDict[Tuple[Any, ...], str]" = collections.OrderedDict()
        self._lock = threading.Lock()
        self._cluster_id_resolver: Optional[Callable[[], str]] = None
        # counts the answers forgotten or replaced (clear_cache, eviction): a serde's framing
        # cached under one generation stays valid while the generation is unchanged
        self.generation = 0

    def set_cluster_id_resolver(self, resolver: Optional[Callable[[], str]]) -> None:
        """``resolver()`` returns the Kafka cluster id; called on a cache miss only, so creating
        a client never waits on a broker. The latest resolver set wins."""
        self._cluster_id_resolver = resolver

    def _namespace(self, conf):
        configured = (conf or {}).get(KAFKA_CLUSTER_ID)
        if configured:
            return configured
        resolver = self._cluster_id_resolver
        if resolver is None:
            return _ANY_NAMESPACE
        try:
            cluster_id = resolver()
        except Exception as e:
            raise SerializationError(
                "associated name strategy: could not resolve the Kafka cluster id, which "
                "typically means the client has not reached a broker yet; set {} to supply it "
                "explicitly: {}".format(KAFKA_CLUSTER_ID, e)) from e
        if not cluster_id:
            raise SerializationError(
                "associated name strategy: the Kafka cluster id resolved to an empty string; "
                "set {} to supply it explicitly".format(KAFKA_CLUSTER_ID))
        return cluster_id

    def _look_up(self, ctx, topic, is_key, record_name, client, conf):
        if client is None:
            return topic_subject_name_strategy(ctx, record_name)
        fallback = _fallback_type(conf)
        try:
            associations = client.get_associations_by_resource_name(
                resource_name=topic, resource_namespace=self._namespace(conf),
                resource_type="topic", association_types=["key" if is_key else "value"],
                offset=0, limit=-1)
        except SchemaRegistryError as e:
            if e.http_status_code != 404:
                raise
            associations = []
        if len(associations) > 1:
            raise SerializationError("Multiple associated subjects found for topic " + topic)
        if associations:
            return associations[0].subject
        if fallback == SubjectNameStrategyType.NONE:
            raise SerializationError("No associated subject found for topic " + topic)
        if fallback == SubjectNameStrategyType.ASSOCIATED:
            raise ValueError("Invalid value for {}: {}. {} cannot be used as a fallback "
                             "strategy.".format(FALLBACK_TYPE, fallback.value, fallback.value))
        return STRATEGY_TYPE_MAP[fallback](ctx, record_name)

    def __call__(self, ctx: Optional[SerializationContext], record_name: Optional[str],
                 schema_registry_client: Any,
                 conf: Optional[Dict[str, Any]] = None) -> Optional[str]:
        if ctx is None:
            raise ValueError(
                "SerializationContext is required for {}. Either provide a "
                "SerializationContext or use a different strategy.".format(type(self).__name__))
        topic = ctx.topic
        if topic is None:
            return None
        key = (topic, ctx.field == _KEY, record_name)
        with self._lock:
            subject = self._cache.get(key)
            if subject is not None:
                self._cache.move_to_end(key)
                return subject
        subject = self._look_up(ctx, topic, key[1], record_name, schema_registry_client, conf)
        if subject is not None:
            with self._lock:
                if self._cache.get(key, subject) != subject:
                    self.generation += 1
                self._cache[key] = subject
                while len(self._cache) > self._capacity:
                    self._cache.popitem(last=False)
                    self.generation += 1
        return subject

    def clear_cache(self) -> None:
        """Forget the subjects looked up so far."""
        with self._lock:
            self._cache.clear()
            self.generation += 1


class ParsedSchemaCache:
    """A thread-safe map from :class:`Schema` to its parsed form (whatever the format's parser
    makes of it)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.parsed_schemas = {}

    def set(self, schema, parsed_schema):
        """Remember ``parsed_schema`` as the parsed form of ``schema`` (a :class:`Schema`)."""
        with self.lock:
            self.parsed_schemas[schema] = parsed_schema

    def get_parsed_schema(self, schema):
        """The parsed schema, or None if ``schema`` was not parsed yet."""
        with self.lock:
            return self.parsed_schemas.get(schema)

    def clear(self):
        """Forget every parsed schema."""
        with self.lock:
            self.parsed_schemas.clear()


# -- configuration ----------------------------------------------------------------------------

# properties a serde takes only at their defaults here (a serializer takes the validation.rules
# ones itself, before this check)
_RULE_DEFAULTS = {
    "validation.rules.execution": ("DISABLED",),
    "validation.rules.fail.fast": (False,),
    "validation.rules.executor": (None,),
}


class _Conf:
    """A serde's configuration: defaults updated with the user's; checked as each key is taken."""

    def __init__(self, defaults, conf):
        self._values = dict(defaults)
        if conf is not None:
            self._values.update(conf)

    def take(self, key, *default):
        return self._values.pop(key, *default)

    def take_bool(self, key):
        value = self._values.pop(key)
        if not isinstance(value, bool):
            raise ValueError("{} must be a boolean value".format(key))
        return value

    def take_callable(self, key):
        value = self._values.pop(key)
        if not callable(value):
            raise ValueError("{} must be callable".format(key))
        return value

    def finish(self):
        for key, allowed in _RULE_DEFAULTS.items():
            if key in self._values:
                value = self._values.pop(key)
                if value not in allowed and str(value) not in allowed:
                    raise ValueError("{} is not supported by this client".format(key))
        if self._values:
            raise ValueError("Unrecognized properties: {}".format(", ".join(self._values)))


_SERIALIZER_DEFAULTS = {
    "auto.register.schemas": True,
    "normalize.schemas": False,
    "use.schema.id": None,
    "use.latest.version": False,
    "use.latest.with.metadata": None,
    "subject.name.strategy": None,
    "subject.name.strategy.type": None,
    "subject.name.strategy.conf": None,
    "schema.id.serializer": prefix_schema_id_serializer,
}
_DESERIALIZER_DEFAULTS = {
    "use.latest.version": False,
    "use.latest.with.metadata": None,
    "subject.name.strategy": None,
    "subject.name.strategy.type": None,
    "subject.name.strategy.conf": None,
    "schema.id.deserializer": dual_schema_id_deserializer,
}


class BaseSerde(_RuleRunner):
    """Subject naming, the reader-schema look-up and rule execution both directions share."""

    _schema_type: Optional[str] = None  # "AVRO", "JSON" or "PROTOBUF"
    # the registry's rendering of schemas this serde reads ("serialized" for Protobuf)
    _fmt: Optional[str] = None

    def _configure_common(self, conf):
        self._use_latest_version = conf.take_bool("use.latest.version")
        self._use_latest_with_metadata = conf.take("use.latest.with.metadata")
        if self._use_latest_with_metadata is not None and not isinstance(
            self._use_latest_with_metadata, dict
        ):
            raise ValueError("use.latest.with.metadata must be a dict value")
        self.configure_subject_name_strategy(
            conf.take("subject.name.strategy.type"),
            conf.take("subject.name.strategy.conf"),
            conf.take("subject.name.strategy"),
        )

    def configure_subject_name_strategy(self, subject_name_strategy_type: Any = None,
                                        subject_name_strategy_conf: Optional[Dict[str, Any]] = None,
                                        subject_name_strategy: Optional[Callable[..., Any]] = None
                                        ) -> None:
        """Choose how subjects are named: the callable ``subject_name_strategy`` if given, else
        the :class:`SubjectNameStrategyType` (or its name) ``subject_name_strategy_type``, else
        an :class:`AssociatedNameStrategy` (which falls back to the topic strategy).
        ``subject_name_strategy_conf`` is what an associated strategy is called with."""
        self._subject_name_conf = subject_name_strategy_conf
        strategy = subject_name_strategy
        if strategy is not None:
            if not callable(strategy):
                raise ValueError("subject.name.strategy must be callable")
        elif subject_name_strategy_type is None:
            strategy = self._associated_strategy_type()
        else:
            kind = subject_name_strategy_type
            if not isinstance(kind, SubjectNameStrategyType):
                try:
                    kind = SubjectNameStrategyType(str(kind).upper())
                except ValueError:
                    raise ValueError(
                        "Invalid subject.name.strategy.type: {}. Valid values are: {}".format(
                            subject_name_strategy_type,
                            [t.value for t in SubjectNameStrategyType])) from None
            if kind == SubjectNameStrategyType.NONE:
                raise ValueError("Invalid subject.name.strategy.type: {}. NONE cannot be used "
                                 "as a subject name strategy.".format(kind))
            if kind == SubjectNameStrategyType.ASSOCIATED:
                strategy = self._associated_strategy_type()
            else:
                strategy = STRATEGY_TYPE_MAP[kind]
        self._subject_name_func = strategy
        self._strategy_accepts_client = isinstance(strategy, AssociatedNameStrategy)
        # the subject of a topic's key or value cannot change from one record to the next with
        # the built-in strategies (the record name is the serde's schema's); an associated
        # strategy's answers stay while its generation does
        self._associated: Optional[AssociatedNameStrategy] = (
            strategy if isinstance(strategy, AssociatedNameStrategy) else None)
        self._subject_fixed = self._strategy_accepts_client or strategy in _FIXED_STRATEGIES
        self._framings: Dict[Tuple[Any, ...], Tuple[Any, ...]] = {}

    _associated_strategy_type = AssociatedNameStrategy

    def _generation(self) -> int:
        """The generation of the subject strategy's answers (see :attr:`_framings`)."""
        associated = self._associated
        return 0 if associated is None else associated.generation

    def _cached_framing(self, key: Tuple[Any, ...]) -> Optional[Tuple[Any, ...]]:
        """The entry kept under ``key`` in :attr:`_framings` (``(generation, ...)``) while the
        subject strategy's answers it followed from are unchanged, else None.

        A serde keeps there, per topic and field (and, deserializing, framing), what it
        resolved for a record when nothing of it can change from one record to the next: no
        use.latest.version or use.latest.with.metadata (the latest may change), no use.schema.id
        or rules (the selected schema's rules run per record), the default framing, a subject
        strategy of :data:`_FIXED_STRATEGIES` or an associated one (whose generation is kept).
        A serializer's schema id per subject is kept for good (confluent-kafka's serializers
        keep it too); a schema id names one schema for good."""
        entry = self._framings.get(key)
        if entry is None:
            return None
        associated = self._associated
        if associated is not None and entry[0] != associated.generation:
            return None
        return entry

    def set_cluster_id_resolver(self, resolver: Optional[Callable[[], str]]) -> None:
        """Hand ``resolver`` (returning the Kafka cluster id) to an associated strategy; other
        strategies do not need it."""
        if isinstance(self._subject_name_func, AssociatedNameStrategy):
            self._subject_name_func.set_cluster_id_resolver(resolver)

    def own_schema_registry_client(self) -> None:
        """Close the registry client with this serde (a builder made the client for it)."""
        self._owns_registry = True

    @staticmethod
    def _remember_key(ctx, key):
        """A key serde leaves its record's key for the value serde's rules (a DLQ record keeps
        it); the value serde clears it."""
        if ctx is not None and ctx.field == _KEY:
            set_original_key(key)
        else:
            clear_original_key()

    def close(self) -> None:
        """Release what the serde holds: close the executors and actions of its own
        ``rule_registry`` (never the process-wide registry's), and the Schema Registry client when a
        builder made it for this serde. The client passed to the constructor stays open: its owner
        closes it.
        """
        try:
            self._close_rules()
        finally:
            self._close_registry()

    def _close_registry(self):
        if getattr(self, "_owns_registry", False):
            self._owns_registry = False
            close = getattr(self._registry, "close", None)
            if callable(close):
                close()

    def _subject(self, ctx, record_name):
        if self._strategy_accepts_client:
            return self._subject_name_func(ctx, record_name, self._registry,
                                           self._subject_name_conf)
        return self._subject_name_func(ctx, record_name)

    def _get_reader_schema(self, subject):
        """The registered schema use.latest.with.metadata/use.latest.version select, else None."""
        if self._use_latest_with_metadata is not None:
            return self._registry.get_latest_with_metadata(
                subject, self._use_latest_with_metadata, deleted=True, fmt=self._fmt
            )
        if self._use_latest_version:
            return self._registry.get_latest_version(subject, fmt=self._fmt)
        return None


class BaseSerializer(BaseSerde, Serializer):
    """Resolves the schema id a serializer frames its records with."""

    # each format's serializer: (obj, ctx) -> the framed record
    _serialize: Callable[[Any, Optional[SerializationContext]], Any]

    def __call__(self, obj: Any, ctx: Optional[SerializationContext] = None) -> Optional[bytes]:
        try:
            return None if obj is None else self._serialize(obj, ctx)
        finally:
            self._remember_key(ctx, obj)

    def _configure(self, schema_registry_client, conf, defaults=None, extra_defaults=None):
        self._registry = schema_registry_client
        values = dict(_SERIALIZER_DEFAULTS if defaults is None else defaults)
        values.update(extra_defaults or {})
        conf = _Conf(values, conf)
        self._auto_register = conf.take_bool("auto.register.schemas")
        self._normalize_schemas = conf.take_bool("normalize.schemas")
        self._use_schema_id = conf.take("use.schema.id")
        if self._use_schema_id is not None and not isinstance(self._use_schema_id, int):
            raise ValueError("use.schema.id must be an int value")
        self._configure_common(conf)
        self._configure_validation(conf)
        if self._use_latest_version and self._auto_register:
            raise ValueError("cannot enable both use.latest.version and auto.register.schemas")
        self._schema_id_serializer = conf.take_callable("schema.id.serializer")
        self._known_subjects = {}
        self._lock = threading.Lock()
        # the SchemaId the last record with a subject was framed with (None before the first),
        # under confluent-kafka's name: its own tests read ``serializer._schema_id.id``
        self._schema_id = None
        return conf

    def _framing_allowed(self) -> bool:
        return (self._subject_fixed and self._use_schema_id is None
                and not self._use_latest_version and self._use_latest_with_metadata is None
                and not self._validation_enabled()
                and self._schema_id_serializer is prefix_schema_id_serializer)

    def _keep_framing(self, ctx, generation, schema_id, selected):
        """Keep ``schema_id`` and its framing for ``ctx``'s topic and field where the next
        records of them are framed the same (see :meth:`_cached_framing`)."""
        if (selected is None and ctx is not None and schema_id.id is not None
                and self._framing_allowed()):
            self._framings[(ctx.topic, ctx.field)] = (generation, schema_id,
                                                      schema_id.id_to_bytes())

    def _schema_id_for(self, subject, schema):
        """(SchemaId, RegisteredSchema or None): the id to frame with and the selected schema.

        The registered schema is returned when use.latest.version/use.latest.with.metadata or
        use.schema.id chose it (the record is then written with that schema); otherwise ``schema``
        is registered (auto.register.schemas) or looked up once per subject (``schema`` may be a
        callable making it, called then). The SchemaId is kept as ``_schema_id`` (the one
        object: Protobuf's message indexes, set on it next, are there too).
        """
        schema_id, selected = self._resolve_schema_id(subject, schema)
        if subject is not None:
            self._schema_id = schema_id
        return schema_id, selected

    def _resolve_schema_id(self, subject, schema):
        if self._use_schema_id is not None:
            registered = self._registry.get_schema(
                self._use_schema_id, subject_name=subject, fmt=self._fmt
            )
            return SchemaId(self._schema_type, self._use_schema_id), _Selected(
                self._use_schema_id, registered
            )
        latest = self._get_reader_schema(subject) if subject is not None else None
        if latest is not None:
            return SchemaId(
                self._schema_type, latest.schema_id, getattr(latest, "guid", None)
            ), latest
        if subject is None:
            # no subject to register under: framing then fails with "Schema ID is not set"
            return SchemaId(self._schema_type), None
        with _holding(self._lock):
            known = self._known_subjects.get(subject)
            if known is None:
                if callable(schema):
                    schema = schema()
                if self._auto_register:
                    full = getattr(self._registry, "register_schema_full_response", None)
                    if full is not None:
                        registered = full(
                            subject, schema, normalize_schemas=self._normalize_schemas
                        )
                        known = (registered.schema_id, getattr(registered, "guid", None))
                    else:
                        known = (
                            self._registry.register_schema(
                                subject, schema, normalize_schemas=self._normalize_schemas
                            ),
                            None,
                        )
                else:
                    registered = self._registry.lookup_schema(
                        subject, schema, normalize_schemas=self._normalize_schemas
                    )
                    known = (registered.schema_id, getattr(registered, "guid", None))
                self._known_subjects[subject] = known
        return SchemaId(self._schema_type, known[0], known[1]), None

    def _prepare(self, obj, ctx):
        """(SchemaId, selected schema or None, the value to encode, subject) for a dict-based
        format."""
        generation = self._generation()
        subject = self._subject(ctx, self._schema_name)
        schema_id, selected = self._schema_id_for(subject, self._schema)
        self._keep_framing(ctx, generation, schema_id, selected)
        if self._to_dict is None:
            return schema_id, selected, obj, subject
        if ctx is None:
            raise TypeError("SerializationContext cannot be None")
        return schema_id, selected, self._to_dict(obj, ctx), subject


class _holding:
    """``with _holding(lock):`` as ``with lock:``, but where waiting is not allowed (see
    ``_rest.cached_only``) a lock held elsewhere raises ``WouldBlock`` instead."""

    __slots__ = ("_lock",)

    def __init__(self, lock):
        self._lock = lock

    def __enter__(self):
        if not self._lock.acquire(blocking=may_block()):
            raise WouldBlock()

    def __exit__(self, *exc):
        self._lock.release()


class _Selected:
    """A schema chosen by id, shaped like the registry's RegisteredSchema as the serdes use it."""

    __slots__ = ("schema_id", "schema", "guid")

    def __init__(self, schema_id, schema):
        self.schema_id = schema_id
        self.schema = schema
        self.guid = None


class BaseDeserializer(BaseSerde, Deserializer):
    """Reads the framing and fetches the writer's schema."""

    # each format's deserializer: (data, ctx) -> the record
    _deserialize: Callable[[bytes, Optional[SerializationContext]], Any]

    def __call__(self, data: Optional[bytes], ctx: Optional[SerializationContext] = None) -> Any:
        try:
            return None if data is None else self._deserialize(data, ctx)
        finally:
            self._remember_key(ctx, data)

    def _configure(self, schema_registry_client, conf, extra_defaults=None):
        self._registry = schema_registry_client
        values = dict(_DESERIALIZER_DEFAULTS)
        values.update(extra_defaults or {})
        conf = _Conf(values, conf)
        self._configure_common(conf)
        self._schema_id_deserializer = conf.take_callable("schema.id.deserializer")
        return conf

    def _keep_reading(self, ctx, generation, schema_id, data, framing_length, *state):
        """Keep ``state`` (what reading needs) for records of ``ctx``'s topic and field framed
        as ``data``'s first ``framing_length`` bytes (magic byte 0 and the schema id, then
        Protobuf's message indexes) where nothing else can change from one record to the next
        (see :meth:`_cached_framing`); the caller checked that no rules apply."""
        if (ctx is not None and not ctx.headers and schema_id.id is not None
                and type(data) is bytes and data[:1] == b"\x00" and self._subject_fixed
                and not self._use_latest_version and self._use_latest_with_metadata is None
                and self._schema_id_deserializer in (dual_schema_id_deserializer,
                                                     prefix_schema_id_deserializer)):
            self._framings[(ctx.topic, ctx.field, data[:5])] = (
                generation, bytes(data[:framing_length])) + state

    def _cached_reading(self, data, ctx):
        """The entry :meth:`_keep_reading` kept for ``data`` in ``ctx``, or None."""
        if ctx is None or ctx.headers or type(data) is not bytes:
            return None
        entry = self._cached_framing((ctx.topic, ctx.field, data[:5]))
        if entry is None or not data.startswith(entry[1]):
            return None
        return entry

    def _unframe(self, data, ctx, check_length=True):
        """(SchemaId, BytesIO positioned at the record) for ``data``."""
        if check_length and len(data) <= 5:
            raise SerializationError(
                "Expecting data framing of length 6 bytes or more but total data size is "
                "{} bytes. This message was not produced with a Confluent Schema Registry "
                "serializer".format(len(data))
            )
        schema_id = SchemaId(self._schema_type)
        payload = self._schema_id_deserializer(data, ctx, schema_id)
        if isinstance(payload, bytes):
            payload = io.BytesIO(payload)
        return schema_id, payload

    def _writer_schema(self, schema_id, subject=None):
        if schema_id.id is None:
            return self._registry.get_schema_by_guid(str(schema_id.guid), fmt=self._fmt)
        return self._registry.get_schema(schema_id.id, subject_name=subject, fmt=self._fmt)


#: what a serializer's ``to_dict`` that is not callable raises (the Avro and JSON ones)
_TO_DICT_NOT_CALLABLE = ("to_dict must be callable with the signature "
                        "to_dict(object, SerializationContext)->dict")


def _callable_or_none(value, message):
    """``value``, which must be None or callable (else ValueError with ``message``)."""
    if value is not None and not callable(value):
        raise ValueError(message)
    return value


# -- builders (SerializingProducer's key/value.serializer.builder and the consumer's) -----------


# a serde's parameter -> its builder's field, where the names differ (``conf`` is the builder's
# ``serializer_config``/``deserializer_config``)
_FIELD_OF_PARAMETER = {"schema_str": "schema", "msg_type": "message_type",
                       "rule_conf": "rule_config"}


class _SerdeBuilder:
    """Collects a serde's arguments (positionally in ``_fields`` order, by keyword or by the
    ``set_<field>`` setters, which chain) and builds it when the client is created.

    A format's builder names its serde (``_serde_type``); its fields follow from the serde's
    parameters: the registry's configuration and client, each parameter but the client, in
    order, then the init callback (``serializer_init``/``deserializer_init``).

    With ``schema_registry_config`` the built serde gets its own SchemaRegistryClient and closes
    it with itself; a ``schema_registry_client`` given stays the application's.
    """

    _fields: Tuple[str, ...] = ("schema_registry_config", "schema_registry_client")
    _init_field: Optional[str] = None
    _serde_type: Any = None  # the serde class a format's builder makes
    # (field, the serde's parameter, whether that has a default), from _serde_type
    _parameters: Tuple[Tuple[str, str, bool], ...] = ()

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields):
            raise TypeError(
                "{}() takes at most {} arguments".format(type(self).__name__, len(self._fields))
            )
        values = dict.fromkeys(self._fields)
        values.update(zip(self._fields, args))
        for name, value in kwargs.items():
            if name not in values:
                raise TypeError(
                    "{}() got an unexpected keyword argument '{}'".format(type(self).__name__, name)
                )
            values[name] = value
        self._values = values

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls._serde_type is not None and "_fields" not in vars(cls):
            kind = "serializer" if issubclass(cls._serde_type, Serializer) else "deserializer"
            names = dict(_FIELD_OF_PARAMETER, conf=kind + "_config")
            cls._parameters = tuple(
                (names.get(name, name), name, p.default is not p.empty)
                for name, p in inspect.signature(cls._serde_type).parameters.items()
                if name != "schema_registry_client")
            cls._init_field = kind + "_init"
            cls._fields = (_SerdeBuilder._fields + tuple(f for f, _, _ in cls._parameters)
                           + (cls._init_field,))
        for name in cls._fields:
            if not hasattr(cls, "set_" + name):
                setattr(cls, "set_" + name, _setter(name))

    def _make(self, client, values):
        """The serde over ``client`` with the collected values (one left unset leaves its
        parameter at the serde's default)."""
        arguments = {"schema_registry_client": client}
        for field, parameter, has_default in self._parameters:
            if values[field] is not None or not has_default:
                arguments[parameter] = values[field]
        return self._serde_type(**arguments)

    def build(self, conf, is_key):
        values = self._values
        serde = build_serde(values["schema_registry_client"], values["schema_registry_config"],
                            lambda client: self._make(client, values),
                            values.get(self._init_field))
        return serde, dict(conf)


def serde_build_steps(schema_registry_client, schema_registry_conf, new_client):
    """How a serde is built, written once for the blocking and the asyncio serdes: a generator
    of the steps a driver runs (:func:`build_serde` calls them, ``async_build_serde`` awaits
    them), each ``(what, obj, why)``:

    - ``("construct", client, None)``: the serde made over ``client``, sent back;
    - ``("init", serde, None)``: the init callback run on it (if there is one);
    - ``("close", obj, why)``: ``obj`` closed after a failure, a failure of that logged only.

    The client is ``schema_registry_client`` or, when only ``schema_registry_conf`` is given,
    ``new_client(schema_registry_conf)``, which the serde then owns (and closes with itself).
    A failure of either step closes what was made here. Both a client and a configuration:
    ValueError. Returns the serde."""
    if schema_registry_client is not None and schema_registry_conf is not None:
        raise ValueError(
            "Cannot specify both a Schema Registry client and a configuration; "
            "use one or the other"
        )
    client = schema_registry_client
    owned = client is None and schema_registry_conf is not None
    if owned:
        client = new_client(schema_registry_conf)
    try:
        serde = yield ("construct", client, None)
    except BaseException:
        if owned:
            yield ("close", client, "the Schema Registry client of a serde that failed to build")
        raise
    if owned:
        serde.own_schema_registry_client()
    try:
        yield ("init", serde, None)
    except BaseException:
        yield ("close", serde, "a serde whose init callback failed")
        raise
    return serde


def build_serde(schema_registry_client, schema_registry_conf, construct, init=None):
    """``construct(client)``, the client being ``schema_registry_client`` or, when only
    ``schema_registry_conf`` is given, a client made from it that the serde then owns (and
    closes with itself). ``init(serde)``, if given, runs on the result; a failure of either
    closes what was made here. Both a client and a configuration: ValueError."""
    from .schema_registry_client import SchemaRegistryClient

    async def perform(step):  # blocking: awaits nothing that waits
        what, obj, why = step
        if what == "construct":
            return construct(obj)
        if what == "init":
            return None if init is None else init(obj)
        await close_after_failure(obj.close, why)

    return finish(drive(serde_build_steps(schema_registry_client, schema_registry_conf,
                                          SchemaRegistryClient.new_client), perform))


async def close_after_failure(close, what):
    """``close()`` (awaited if it is a coroutine function's); a failure of it is logged only,
    the original failure being the one to raise."""
    try:
        await maybe_await(close())
    except Exception:
        logging.getLogger(__name__).warning("Failed to close %s", what, exc_info=True)


def _serde_builders(serializer, deserializer):
    """A format's builders (``<serializer's name>Builder``, ``<deserializer's name>Builder``),
    placed in the serdes' module, as if written there; each takes its fields from its serde's
    parameters (:class:`_SerdeBuilder`)."""
    def builder(serde, kind, key):
        name = serde.__name__ + "Builder"
        namespace = {
            "__module__": serde.__module__, "__qualname__": name, "_serde_type": serde,
            "__doc__": "Builds {} {} for ``key.{}.builder``/``value.{}.builder``.".format(
                "an" if serde.__name__[0] in "AEIOU" else "a", serde.__name__, key, key)}
        return types.new_class(name, (_SerdeBuilder, kind),
                               exec_body=lambda ns: ns.update(namespace))

    return (builder(serializer, SerializerBuilder, "serializer"),
            builder(deserializer, DeserializerBuilder, "deserializer"))


def _setter(name):
    def set_value(self, value):
        self._values[name] = value
        return self

    set_value.__name__ = "set_" + name
    set_value.__doc__ = "Set ``{}``; returns the builder.".format(name)
    return set_value
