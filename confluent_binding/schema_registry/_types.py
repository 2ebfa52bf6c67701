"""Value types of the Schema Registry REST API (schemas, references, rules, metadata, config).

Field names, constructor order, defaults, equality and hashing follow confluent-kafka's
``confluent_kafka.schema_registry`` types; ``to_dict``/``from_dict`` speak the registry's JSON
(camelCase keys).  Plain :mod:`dataclasses`: no third-party dependency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Dict, List, Optional, Type, TypeVar

# the types confluent-kafka's ``schema_registry`` package offers (the package and the client
# module take them from here, and those of ._associations); RulePhase and SchemaVersion are offered
# by the client module only
__all__ = [
    "ConfigCompatibilityLevel",
    "Metadata",
    "MetadataProperties",
    "MetadataTags",
    "RegisteredSchema",
    "Rule",
    "RuleKind",
    "RuleMode",
    "RuleParams",
    "RuleSet",
    "Schema",
    "SchemaReference",
    "ServerConfig",
]


class _StrEnum(str, Enum):
    def __str__(self) -> str:
        return str(self.value)


class RuleKind(_StrEnum):
    """What a rule does with a record.

    ``CONDITION``: the rule's executor checks the record; a false result fails the rule (its
    ``onFailure`` action runs, by default raising :class:`SerializationError`).
    ``TRANSFORM``: the executor returns the record (or field value) to use instead.
    """

    CONDITION = "CONDITION"
    TRANSFORM = "TRANSFORM"


class RulePhase(_StrEnum):
    """Which list of a :class:`RuleSet` a rule belongs to.

    ``MIGRATION``: between two versions of a subject, ``DOMAIN``: on every record a serde writes
    or reads, ``ENCODING``: on the serialized bytes (whole-payload encryption, for one).
    """

    MIGRATION = "MIGRATION"
    DOMAIN = "DOMAIN"
    ENCODING = "ENCODING"


class RuleMode(_StrEnum):
    """When a rule runs.

    Domain and encoding rules: ``WRITE`` (serializing), ``READ`` (deserializing) or ``WRITEREAD``
    (both). Migration rules: ``UPGRADE`` (a record written with an older schema read as a newer
    one), ``DOWNGRADE`` (newer read as older) or ``UPDOWN`` (both).
    """

    UPGRADE = "UPGRADE"
    DOWNGRADE = "DOWNGRADE"
    UPDOWN = "UPDOWN"
    READ = "READ"
    WRITE = "WRITE"
    WRITEREAD = "WRITEREAD"


class ConfigCompatibilityLevel(_StrEnum):
    """A subject's (or the registry's) compatibility check for new schema versions.

    ``BACKWARD``: readers of the new schema can read data written with the previous one;
    ``FORWARD``: readers of the previous schema can read data written with the new one; ``FULL``:
    both. The ``_TRANSITIVE`` variants check against every earlier version, not just the latest;
    ``NONE`` checks nothing. The members are strings (``str(level)`` is the registry's name).
    """

    BACKWARD = "BACKWARD"
    BACKWARD_TRANSITIVE = "BACKWARD_TRANSITIVE"
    FORWARD = "FORWARD"
    FORWARD_TRANSITIVE = "FORWARD_TRANSITIVE"
    FULL = "FULL"
    FULL_TRANSITIVE = "FULL_TRANSITIVE"
    NONE = "NONE"


def _put(d: Dict[str, Any], key: str, value: Any) -> None:
    """The registry's JSON leaves absent fields out instead of sending nulls."""
    if value is not None:
        d[key] = value


def _dict_of(obj: Any) -> Any:
    """``obj.to_dict()`` for our types; a plain dict (as confluent allows in ServerConfig) as is."""
    return obj.to_dict() if hasattr(obj, "to_dict") else obj


def _enum_or_none(enum: type, value: Any) -> Any:
    return None if value is None else enum(value)


_S = TypeVar("_S", bound="_StringMap")


class _StringMap:
    """A value type that is one dict of strings (the field ``_field``), which is its registry
    JSON object too; equal and hashed by its items."""

    _field: ClassVar[str]

    def to_dict(self) -> Dict[str, Any]:
        """The registry's JSON object (a copy of the dict)."""
        return dict(getattr(self, self._field))

    @classmethod
    def from_dict(cls: Type[_S], src_dict: Dict[str, Any]) -> _S:
        """The value from the registry's JSON object (name to value; copied)."""
        return cls(**{cls._field: dict(src_dict)})

    def __hash__(self) -> int:
        return hash(frozenset(getattr(self, self._field).items()))


@dataclass
class RuleParams(_StringMap):
    """A rule's parameters: free-form string settings its executor reads.

    Args:
        params: parameter name to value (for example an encryption rule's ``encrypt.kek.name``).
            :meth:`RuleContext.get_parameter` falls back to the target schema's metadata
            properties for a name missing here.
    """

    params: Dict[str, str] = field(default_factory=dict, hash=False)

    _field = "params"
    def __hash__(self) -> int:  # (a dataclass's own __hash__ would be None)
        return _StringMap.__hash__(self)


@dataclass(frozen=True)
class Rule:
    """One rule of a data contract's :class:`RuleSet`.

    Args:
        name: the rule's name, unique within its rule set.
        doc: a description; a failed CONDITION reports it as its message.
        kind: :class:`RuleKind` (CONDITION or TRANSFORM).
        mode: :class:`RuleMode`: when the rule runs.
        type: the executor's type, the key it is found under in the rule registry (``CEL``,
            ``CEL_FIELD``, ``JSONATA``, ``ENCRYPT``, ``ENCRYPT_PAYLOAD``, ...).
        tags: for a field-level rule, the tags of the fields it applies to.
        params: :class:`RuleParams` for the executor.
        expr: the executor's expression (a CEL condition, a JSONata transformation, ...).
        on_success: the action after the rule succeeds (``NONE`` when unset); for a migration
            rule ``"UPGRADE_ACTION,DOWNGRADE_ACTION"`` may give one per direction.
        on_failure: the action after it fails (``ERROR`` when unset: raise), or ``DLQ``,
            ``NONE`` or a registered action's type.
        disabled: True to skip the rule.

    Instances are immutable and hashable (``tags`` is left out of the hash), as in
    confluent-kafka.
    """

    name: Optional[str]
    doc: Optional[str]
    kind: Optional[RuleKind]
    mode: Optional[RuleMode]
    type: Optional[str]
    tags: Optional[List[str]] = field(hash=False)
    params: Optional[RuleParams]
    expr: Optional[str]
    on_success: Optional[str]
    on_failure: Optional[str]
    disabled: Optional[bool]

    def to_dict(self) -> Dict[str, Any]:
        """The rule as the registry's JSON object (camelCase keys; unset fields left out)."""
        d: Dict[str, Any] = {}
        _put(d, "name", self.name)
        _put(d, "doc", self.doc)
        _put(d, "kind", None if self.kind is None else self.kind.value)
        _put(d, "mode", None if self.mode is None else self.mode.value)
        _put(d, "type", self.type)
        _put(d, "tags", self.tags)
        _put(d, "params", None if self.params is None else self.params.to_dict())
        _put(d, "expr", self.expr)
        _put(d, "onSuccess", self.on_success)
        _put(d, "onFailure", self.on_failure)
        _put(d, "disabled", self.disabled)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "Rule":
        """A rule from the registry's JSON object.

        Args:
            src_dict: the JSON object (``onSuccess``, ``onFailure``, ...); missing keys become None,
                ``kind`` and ``mode`` become :class:`RuleKind` and :class:`RuleMode`.

        Returns:
            Rule: the new instance.

        Raises:
            ValueError: ``kind`` or ``mode`` is not a known name.
        """
        params = src_dict.get("params")
        return cls(
            name=src_dict.get("name"),
            doc=src_dict.get("doc"),
            kind=_enum_or_none(RuleKind, src_dict.get("kind")),
            mode=_enum_or_none(RuleMode, src_dict.get("mode")),
            type=src_dict.get("type"),
            tags=src_dict.get("tags"),
            params=None if params is None else RuleParams.from_dict(params),
            expr=src_dict.get("expr"),
            on_success=src_dict.get("onSuccess"),
            on_failure=src_dict.get("onFailure"),
            disabled=src_dict.get("disabled"),
        )


def _rules_to_dicts(rules: Optional[List[Rule]]) -> Optional[List[Dict[str, Any]]]:
    return None if rules is None else [r.to_dict() for r in rules]


def _rules_from_dicts(items: Optional[List[Dict[str, Any]]]) -> List[Rule]:
    return [Rule.from_dict(r) for r in items or []]


@dataclass
class RuleSet:
    """A schema's data-contract rules, in the order they run.

    Args:
        migration_rules: rules run between versions of a subject (:attr:`RuleMode.UPGRADE`,
            ``DOWNGRADE``, ``UPDOWN``) when a deserializer reads with another version than the
            writer's (``use.latest.version`` or ``use.latest.with.metadata``).
        domain_rules: rules run on every record written or read with the schema.
        encoding_rules: rules run on the serialized payload (after writing, before reading).
        enable_at: where the rules run: unset, ``ALL`` or ``CLIENT`` run them in this client;
            any other value (a server-side stage) leaves them to the registry.

    Hashable over its rules and ``enable_at``, as in confluent-kafka.
    """

    migration_rules: Optional[List[Rule]] = field(hash=False)
    domain_rules: Optional[List[Rule]] = field(hash=False)
    encoding_rules: Optional[List[Rule]] = field(default=None, hash=False)
    enable_at: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        """The rule set as the registry's JSON object (``migrationRules``, ``domainRules``,
        ``encodingRules``, ``enableAt``; unset lists left out).
        """
        d: Dict[str, Any] = {}
        _put(d, "migrationRules", _rules_to_dicts(self.migration_rules))
        _put(d, "domainRules", _rules_to_dicts(self.domain_rules))
        _put(d, "encodingRules", _rules_to_dicts(self.encoding_rules))
        _put(d, "enableAt", self.enable_at)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "RuleSet":
        """A rule set from the registry's JSON object.

        Args:
            src_dict: the JSON object; a missing rule list becomes an empty list.

        Returns:
            RuleSet: the new instance, its rules parsed with :meth:`Rule.from_dict`.
        """
        return cls(
            migration_rules=_rules_from_dicts(src_dict.get("migrationRules")),
            domain_rules=_rules_from_dicts(src_dict.get("domainRules")),
            encoding_rules=_rules_from_dicts(src_dict.get("encodingRules")),
            enable_at=src_dict.get("enableAt"),
        )

    def __hash__(self) -> int:
        rules = (
            (self.migration_rules or []) + (self.domain_rules or []) + (self.encoding_rules or [])
        )
        return hash((frozenset(rules), self.enable_at))


@dataclass
class MetadataTags:
    """Tags a schema's metadata gives fields, by field path.

    Args:
        tags: field path (a wildcard pattern such as ``com.example.User.ssn`` or ``**.ssn``) to
            the tags of the fields it matches; a field-level rule with one of those tags applies
            to them (field-level encryption, for one).
    """

    tags: Dict[str, List[str]] = field(default_factory=dict, hash=False)

    def to_dict(self) -> Dict[str, Any]:
        """The tags as the registry's JSON object (path to list of tags)."""
        return dict(self.tags)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "MetadataTags":
        """Tags from the registry's JSON object (copied).

        Args:
            src_dict: path to list of tags.

        Returns:
            MetadataTags: the new instance.
        """
        return cls(tags=dict(src_dict))

    def __hash__(self) -> int:
        return hash(
            frozenset(
                (k, tuple(v) if isinstance(v, (list, tuple)) else v)
                for k, v in (self.tags or {}).items()
            )
        )


@dataclass
class MetadataProperties(_StringMap):
    """Free-form string properties of a schema's metadata.

    Args:
        properties: name to value. ``use.latest.with.metadata`` selects a subject's version by
            them (``{"application.major.version": "2"}``), and rules read them as parameters
            their own :class:`RuleParams` lack.
    """

    properties: Dict[str, str] = field(default_factory=dict, hash=False)

    _field = "properties"

    def __hash__(self) -> int:
        return _StringMap.__hash__(self)


@dataclass(frozen=True)
class Metadata:
    """A schema's metadata: field tags, properties and the names of sensitive properties.

    Args:
        tags: :class:`MetadataTags`: tags of fields, by path.
        properties: :class:`MetadataProperties`.
        sensitive: names of properties whose values are sensitive (secrets).

    Immutable; hashable over ``tags`` and ``properties``.
    """

    tags: Optional[MetadataTags]
    properties: Optional[MetadataProperties]
    sensitive: Optional[List[str]] = field(hash=False)

    def to_dict(self) -> Dict[str, Any]:
        """The metadata as the registry's JSON object (unset parts left out)."""
        d: Dict[str, Any] = {}
        _put(d, "tags", None if self.tags is None else self.tags.to_dict())
        _put(d, "properties", None if self.properties is None else self.properties.to_dict())
        _put(d, "sensitive", None if self.sensitive is None else list(self.sensitive))
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "Metadata":
        """Metadata from the registry's JSON object.

        Args:
            src_dict: the JSON object with ``tags``, ``properties`` and ``sensitive`` (any may be
                missing; a missing ``sensitive`` becomes an empty list).

        Returns:
            Metadata: the new instance.
        """
        tags = src_dict.get("tags")
        props = src_dict.get("properties")
        return cls(
            tags=None if tags is None else MetadataTags.from_dict(tags),
            properties=None if props is None else MetadataProperties.from_dict(props),
            sensitive=list(src_dict.get("sensitive") or []),
        )


def _nested(kind: Any, data: Any) -> Any:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise TypeError(
            "expected a JSON object for %s, got %s" % (kind.__name__, type(data).__name__)
        )
    return kind.from_dict(data)


@dataclass(frozen=True)
class SchemaVersion:
    """A (subject, version) pair: where a schema id is registered, as the registry's
    ``/schemas/ids/{id}/versions`` lists them.

    Args:
        subject: the subject name.
        version: the version number within the subject.
    """

    subject: Optional[str]
    version: Optional[int]

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "SchemaVersion":
        """A pair from the registry's JSON object (``subject``, ``version``).

        Args:
            src_dict: the JSON object.

        Returns:
            SchemaVersion: the new instance.
        """
        return cls(subject=src_dict.get("subject"), version=src_dict.get("version"))


@dataclass(frozen=True)
class SchemaReference:
    """A schema's reference to another registered schema (an imported Protobuf file,
    an Avro named type, a JSON Schema ``$ref``).

    Args:
        name: the name the referencing schema uses for it (the import path, the type's full
            name, the ``$ref`` URL).
        subject: the subject the referenced schema is registered under.
        version: its version in that subject.
    """

    name: Optional[str]
    subject: Optional[str]
    version: Optional[int]

    def to_dict(self) -> Dict[str, Any]:
        """The reference as the registry's JSON object (unset fields left out)."""
        d: Dict[str, Any] = {}
        _put(d, "name", self.name)
        _put(d, "subject", self.subject)
        _put(d, "version", self.version)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "SchemaReference":
        """A reference from the registry's JSON object.

        Args:
            src_dict: the JSON object with ``name``, ``subject`` and ``version``.

        Returns:
            SchemaReference: the new instance.
        """
        return cls(
            name=src_dict.get("name"),
            subject=src_dict.get("subject"),
            version=src_dict.get("version"),
        )


@dataclass
class ServerConfig:
    """A subject's or the registry's configuration (``/config``), as read and set by
    ``get_config``/``set_config``.

    Args:
        compatibility: the :class:`ConfigCompatibilityLevel` to set (the request's field).
        compatibility_level: the level the registry reports (the response's field).
        compatibility_group: the metadata property whose value splits a subject's versions into
            groups checked for compatibility separately.
        default_metadata: :class:`Metadata` given to new schemas that bring none.
        override_metadata: :class:`Metadata` that replaces what new schemas bring.
        default_rule_set: :class:`RuleSet` given to new schemas that bring none.
        override_rule_set: :class:`RuleSet` that replaces what new schemas bring.

    A level may be given as the enum or its name; a plain dict is accepted for the metadata and
    rule sets, as in confluent-kafka.
    """

    compatibility: Optional[ConfigCompatibilityLevel] = None
    compatibility_level: Optional[ConfigCompatibilityLevel] = None
    compatibility_group: Optional[str] = None
    default_metadata: Optional[Metadata] = None
    override_metadata: Optional[Metadata] = None
    default_rule_set: Optional[RuleSet] = None
    override_rule_set: Optional[RuleSet] = None

    def to_dict(self) -> Dict[str, Any]:
        """The configuration as the registry's JSON object (camelCase keys; unset fields left
        out).

        Raises:
            ValueError: a compatibility level is not a known name.
        """
        d: Dict[str, Any] = {}
        _put(
            d,
            "compatibility",
            None
            if self.compatibility is None
            else ConfigCompatibilityLevel(self.compatibility).value,
        )
        _put(
            d,
            "compatibilityLevel",
            None
            if self.compatibility_level is None
            else ConfigCompatibilityLevel(self.compatibility_level).value,
        )
        _put(d, "compatibilityGroup", self.compatibility_group)
        _put(d, "defaultMetadata", _dict_of(self.default_metadata))
        _put(d, "overrideMetadata", _dict_of(self.override_metadata))
        _put(d, "defaultRuleSet", _dict_of(self.default_rule_set))
        _put(d, "overrideRuleSet", _dict_of(self.override_rule_set))
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "ServerConfig":
        """A configuration from the registry's JSON object.

        Args:
            src_dict: the JSON object (``compatibilityLevel``, ``defaultRuleSet``, ...).

        Returns:
            ServerConfig: the new instance.

        Raises:
            TypeError: a nested metadata or rule set is not a JSON object.
            ValueError: a compatibility level is not a known name.
        """
        return cls(
            compatibility=_enum_or_none(ConfigCompatibilityLevel, src_dict.get("compatibility")),
            compatibility_level=_enum_or_none(
                ConfigCompatibilityLevel, src_dict.get("compatibilityLevel")
            ),
            compatibility_group=src_dict.get("compatibilityGroup"),
            default_metadata=_nested(Metadata, src_dict.get("defaultMetadata")),
            override_metadata=_nested(Metadata, src_dict.get("overrideMetadata")),
            default_rule_set=_nested(RuleSet, src_dict.get("defaultRuleSet")),
            override_rule_set=_nested(RuleSet, src_dict.get("overrideRuleSet")),
        )


@dataclass(frozen=True)
class Schema:
    """An unregistered schema: its text, type (``AVRO``, ``JSON``, ``PROTOBUF``) and references."""

    schema_str: Optional[str]
    schema_type: Optional[str] = "AVRO"
    references: Optional[List[SchemaReference]] = field(default_factory=list, hash=False)
    metadata: Optional[Metadata] = None
    rule_set: Optional[RuleSet] = None

    def to_dict(self) -> Dict[str, Any]:
        """The schema as the registry's JSON object: ``schema``, ``schemaType``,
        ``references`` (always present), and ``metadata`` and ``ruleSet`` when set. This is the body
        ``register_schema`` and ``lookup_schema`` send.
        """
        d: Dict[str, Any] = {}
        _put(d, "schema", self.schema_str)
        _put(d, "schemaType", self.schema_type)
        d["references"] = [r.to_dict() for r in self.references or []]
        if isinstance(self.metadata, Metadata):
            d["metadata"] = self.metadata.to_dict()
        if isinstance(self.rule_set, RuleSet):
            d["ruleSet"] = self.rule_set.to_dict()
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "Schema":
        """A schema from the registry's JSON object.

        Args:
            src_dict: the JSON object; a missing ``schemaType`` means ``AVRO`` (the registry leaves
                it out for Avro).

        Returns:
            Schema: the new instance, with its references, metadata and rule set parsed.

        Raises:
            TypeError: ``metadata`` or ``ruleSet`` is not a JSON object.
        """
        return cls(
            schema_str=src_dict.get("schema"),
            # The registry leaves schemaType out for Avro, its default.
            schema_type=src_dict.get("schemaType", "AVRO"),
            references=[SchemaReference.from_dict(r) for r in src_dict.get("references") or []],
            metadata=_nested(Metadata, src_dict.get("metadata")),
            rule_set=_nested(RuleSet, src_dict.get("ruleSet")),
        )


@dataclass(frozen=True)
class RegisteredSchema:
    """A schema as registered: its id (and guid), the subject and version it is registered under."""

    subject: Optional[str]
    version: Optional[int]
    schema_id: Optional[int]
    guid: Optional[str]
    schema: Schema

    def to_dict(self) -> Dict[str, Any]:
        """The registered schema as the registry's JSON object: the schema's fields
        (:meth:`Schema.to_dict`) plus ``id``, ``guid``, ``subject`` and ``version`` when set.
        """
        d: Dict[str, Any] = self.schema.to_dict() if self.schema is not None else {}
        _put(d, "id", self.schema_id)
        _put(d, "guid", self.guid)
        _put(d, "subject", self.subject)
        _put(d, "version", self.version)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "RegisteredSchema":
        """A registered schema from the registry's JSON object (a subject version, a
        lookup's answer).

        Args:
            src_dict: the JSON object; ``id`` becomes :attr:`schema_id`, the schema's own fields
                become :attr:`schema`.

        Returns:
            RegisteredSchema: the new instance.
        """
        return cls(
            subject=src_dict.get("subject"),
            version=src_dict.get("version"),
            schema_id=src_dict.get("id"),
            guid=src_dict.get("guid"),
            schema=Schema.from_dict(src_dict),
        )
