"""Value types of the Schema Registry REST API (schemas, references, rules, metadata, config).

Field names, constructor order, defaults, equality and hashing follow confluent-kafka's
``confluent_kafka.schema_registry`` types; ``to_dict``/``from_dict`` speak the registry's JSON
(camelCase keys).  Plain :mod:`dataclasses`: no third-party dependency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Optional

__all__ = [
    "Association",
    "AssociationCreateOrUpdateInfo",
    "AssociationCreateOrUpdateRequest",
    "AssociationInfo",
    "AssociationResponse",
    "ConfigCompatibilityLevel",
    "Metadata",
    "MetadataProperties",
    "MetadataTags",
    "RegisteredSchema",
    "Rule",
    "RuleKind",
    "RuleMode",
    "RuleParams",
    "RulePhase",
    "RuleSet",
    "Schema",
    "SchemaReference",
    "SchemaVersion",
    "ServerConfig",
]


class _StrEnum(str, Enum):
    def __str__(self) -> str:
        return str(self.value)


class RuleKind(_StrEnum):
    CONDITION = "CONDITION"
    TRANSFORM = "TRANSFORM"


class RulePhase(_StrEnum):
    MIGRATION = "MIGRATION"
    DOMAIN = "DOMAIN"
    ENCODING = "ENCODING"


class RuleMode(_StrEnum):
    UPGRADE = "UPGRADE"
    DOWNGRADE = "DOWNGRADE"
    UPDOWN = "UPDOWN"
    READ = "READ"
    WRITE = "WRITE"
    WRITEREAD = "WRITEREAD"


class ConfigCompatibilityLevel(_StrEnum):
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


@dataclass
class RuleParams:
    params: Dict[str, str] = field(default_factory=dict, hash=False)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.params)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "RuleParams":
        return cls(params=dict(src_dict))

    def __hash__(self) -> int:
        return hash(frozenset(self.params.items()))


@dataclass(frozen=True)
class Rule:
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
    migration_rules: Optional[List[Rule]] = field(hash=False)
    domain_rules: Optional[List[Rule]] = field(hash=False)
    encoding_rules: Optional[List[Rule]] = field(default=None, hash=False)
    enable_at: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {}
        _put(d, "migrationRules", _rules_to_dicts(self.migration_rules))
        _put(d, "domainRules", _rules_to_dicts(self.domain_rules))
        _put(d, "encodingRules", _rules_to_dicts(self.encoding_rules))
        _put(d, "enableAt", self.enable_at)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "RuleSet":
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
    tags: Dict[str, List[str]] = field(default_factory=dict, hash=False)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.tags)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "MetadataTags":
        return cls(tags=dict(src_dict))

    def __hash__(self) -> int:
        return hash(
            frozenset(
                (k, tuple(v) if isinstance(v, (list, tuple)) else v)
                for k, v in (self.tags or {}).items()
            )
        )


@dataclass
class MetadataProperties:
    properties: Dict[str, str] = field(default_factory=dict, hash=False)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.properties)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "MetadataProperties":
        return cls(properties=dict(src_dict))

    def __hash__(self) -> int:
        return hash(frozenset(self.properties.items()))


@dataclass(frozen=True)
class Metadata:
    tags: Optional[MetadataTags]
    properties: Optional[MetadataProperties]
    sensitive: Optional[List[str]] = field(hash=False)

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {}
        _put(d, "tags", None if self.tags is None else self.tags.to_dict())
        _put(d, "properties", None if self.properties is None else self.properties.to_dict())
        _put(d, "sensitive", None if self.sensitive is None else list(self.sensitive))
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "Metadata":
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
    subject: Optional[str]
    version: Optional[int]

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "SchemaVersion":
        return cls(subject=src_dict.get("subject"), version=src_dict.get("version"))


@dataclass(frozen=True)
class SchemaReference:
    name: Optional[str]
    subject: Optional[str]
    version: Optional[int]

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {}
        _put(d, "name", self.name)
        _put(d, "subject", self.subject)
        _put(d, "version", self.version)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "SchemaReference":
        return cls(
            name=src_dict.get("name"),
            subject=src_dict.get("subject"),
            version=src_dict.get("version"),
        )


@dataclass
class ServerConfig:
    compatibility: Optional[ConfigCompatibilityLevel] = None
    compatibility_level: Optional[ConfigCompatibilityLevel] = None
    compatibility_group: Optional[str] = None
    default_metadata: Optional[Metadata] = None
    override_metadata: Optional[Metadata] = None
    default_rule_set: Optional[RuleSet] = None
    override_rule_set: Optional[RuleSet] = None

    def to_dict(self) -> Dict[str, Any]:
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
        d: Dict[str, Any] = self.schema.to_dict() if self.schema is not None else {}
        _put(d, "id", self.schema_id)
        _put(d, "guid", self.guid)
        _put(d, "subject", self.subject)
        _put(d, "version", self.version)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "RegisteredSchema":
        return cls(
            subject=src_dict.get("subject"),
            version=src_dict.get("version"),
            schema_id=src_dict.get("id"),
            guid=src_dict.get("guid"),
            schema=Schema.from_dict(src_dict),
        )


@dataclass(frozen=True)
class Association:
    """An association between a subject and a resource (e.g. a topic)."""

    subject: Optional[str]
    guid: Optional[str]
    resource_name: Optional[str]
    resource_namespace: Optional[str]
    resource_id: Optional[str]
    resource_type: Optional[str]
    association_type: Optional[str]
    frozen: bool = False

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {}
        _put(d, "subject", self.subject)
        _put(d, "guid", self.guid)
        _put(d, "resourceName", self.resource_name)
        _put(d, "resourceNamespace", self.resource_namespace)
        _put(d, "resourceId", self.resource_id)
        _put(d, "resourceType", self.resource_type)
        _put(d, "associationType", self.association_type)
        d["frozen"] = self.frozen
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "Association":
        return cls(
            subject=src_dict.get("subject"),
            guid=src_dict.get("guid"),
            resource_name=src_dict.get("resourceName"),
            resource_namespace=src_dict.get("resourceNamespace"),
            resource_id=src_dict.get("resourceId"),
            resource_type=src_dict.get("resourceType"),
            association_type=src_dict.get("associationType"),
            frozen=src_dict.get("frozen", False),
        )


@dataclass
class AssociationInfo:
    """One association in a response."""

    subject: Optional[str] = None
    association_type: Optional[str] = None
    lifecycle: Optional[str] = None
    frozen: bool = False
    schema: Optional[Schema] = None

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {}
        _put(d, "subject", self.subject)
        _put(d, "associationType", self.association_type)
        _put(d, "lifecycle", self.lifecycle)
        d["frozen"] = self.frozen
        _put(d, "schema", None if self.schema is None else self.schema.to_dict())
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationInfo":
        schema = src_dict.get("schema")
        return cls(
            subject=src_dict.get("subject"),
            association_type=src_dict.get("associationType"),
            lifecycle=src_dict.get("lifecycle"),
            frozen=src_dict.get("frozen", False),
            schema=Schema.from_dict(schema) if schema else None,
        )


@dataclass
class AssociationCreateOrUpdateInfo:
    """One association to create or update."""

    subject: Optional[str] = None
    association_type: Optional[str] = None
    lifecycle: Optional[str] = None
    frozen: Optional[bool] = None
    schema: Optional[Schema] = None
    normalize: Optional[bool] = None

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {}
        _put(d, "subject", self.subject)
        _put(d, "associationType", self.association_type)
        _put(d, "lifecycle", self.lifecycle)
        _put(d, "frozen", self.frozen)
        _put(d, "schema", None if self.schema is None else self.schema.to_dict())
        _put(d, "normalize", self.normalize)
        return d

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationCreateOrUpdateInfo":
        schema = src_dict.get("schema")
        return cls(
            subject=src_dict.get("subject"),
            association_type=src_dict.get("associationType"),
            lifecycle=src_dict.get("lifecycle"),
            frozen=src_dict.get("frozen"),
            schema=Schema.from_dict(schema) if schema else None,
            normalize=src_dict.get("normalize"),
        )


def _resource_dict(obj: Any) -> Dict[str, Any]:
    d: Dict[str, Any] = {}
    _put(d, "resourceName", obj.resource_name)
    _put(d, "resourceNamespace", obj.resource_namespace)
    _put(d, "resourceId", obj.resource_id)
    _put(d, "resourceType", obj.resource_type)
    if obj.associations is not None:
        d["associations"] = [a.to_dict() for a in obj.associations]
    return d


def _resource_fields(src_dict: Dict[str, Any], item: Any) -> Dict[str, Any]:
    items = src_dict.get("associations")
    return {
        "resource_name": src_dict.get("resourceName"),
        "resource_namespace": src_dict.get("resourceNamespace"),
        "resource_id": src_dict.get("resourceId"),
        "resource_type": src_dict.get("resourceType"),
        "associations": [item.from_dict(a) for a in items] if items else None,
    }


@dataclass
class AssociationCreateOrUpdateRequest:
    """Request to create or update the associations of one resource."""

    resource_name: Optional[str] = None
    resource_namespace: Optional[str] = None
    resource_id: Optional[str] = None
    resource_type: Optional[str] = None
    associations: Optional[List[AssociationCreateOrUpdateInfo]] = None

    def to_dict(self) -> Dict[str, Any]:
        return _resource_dict(self)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationCreateOrUpdateRequest":
        return cls(**_resource_fields(src_dict, AssociationCreateOrUpdateInfo))


@dataclass
class AssociationResponse:
    """The registry's answer to creating or updating associations."""

    resource_name: Optional[str] = None
    resource_namespace: Optional[str] = None
    resource_id: Optional[str] = None
    resource_type: Optional[str] = None
    associations: Optional[List[AssociationInfo]] = None

    def to_dict(self) -> Dict[str, Any]:
        return _resource_dict(self)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "AssociationResponse":
        return cls(**_resource_fields(src_dict, AssociationInfo))
