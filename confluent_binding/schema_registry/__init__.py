"""Confluent Schema Registry support (``confluent_kafka.schema_registry``).

:class:`SchemaRegistryClient` (and :class:`AsyncSchemaRegistryClient`) speak Confluent's Schema
Registry REST API with the standard library only; the value types (:class:`Schema`,
:class:`RegisteredSchema`, :class:`SchemaReference`, ...) and :class:`SchemaRegistryError` follow
confluent-kafka 2.16.
"""

from .error import SchemaRegistryError
from .schema_registry_client import (
    Association,
    AssociationCreateOrUpdateInfo,
    AssociationCreateOrUpdateRequest,
    AssociationInfo,
    AssociationResponse,
    AsyncSchemaRegistryClient,
    ConfigCompatibilityLevel,
    Metadata,
    MetadataProperties,
    MetadataTags,
    RegisteredSchema,
    Rule,
    RuleKind,
    RuleMode,
    RuleParams,
    RuleSet,
    Schema,
    SchemaReference,
    SchemaRegistryClient,
    ServerConfig,
)

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
    "RuleSet",
    "Schema",
    "SchemaRegistryClient",
    "AsyncSchemaRegistryClient",
    "SchemaRegistryError",
    "SchemaReference",
    "ServerConfig",
]
