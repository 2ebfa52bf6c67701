"""Confluent Schema Registry support (``confluent_kafka.schema_registry``).

:class:`SchemaRegistryClient` (and :class:`AsyncSchemaRegistryClient`) speak Confluent's Schema
Registry REST API over httpx2 (httpx below Python 3.10), as confluent-kafka's do; the value types
(:class:`Schema`, :class:`RegisteredSchema`, :class:`SchemaReference`, ...) and
:class:`SchemaRegistryError` follow confluent-kafka 2.16.
"""

from ..serialization import (  # noqa: F401  (confluent's module imports these too)
    MessageField,
    SerializationContext,
    SerializationError,
)
from . import _associations, _types
from ._associations import *  # noqa: F403  (the value types, _associations.__all__)
from ._types import *  # noqa: F403  (the value types, _types.__all__)
from .error import SchemaRegistryError
from .schema_registry_client import AsyncSchemaRegistryClient, SchemaRegistryClient
from .serde import (
    dual_schema_id_deserializer,
    header_schema_id_serializer,
    prefix_schema_id_deserializer,
    prefix_schema_id_serializer,
    record_subject_name_strategy,
    topic_record_subject_name_strategy,
    topic_subject_name_strategy,
)
from .serde import (
    reference_subject_name_strategy as reference_subject_name_strategy,
)

__all__ = [
    "SchemaRegistryClient",
    "AsyncSchemaRegistryClient",
    "SchemaRegistryError",
    "topic_subject_name_strategy",
    "topic_record_subject_name_strategy",
    "record_subject_name_strategy",
    "header_schema_id_serializer",
    "prefix_schema_id_serializer",
    "dual_schema_id_deserializer",
    "prefix_schema_id_deserializer",
]
__all__ += _types.__all__
__all__ += _associations.__all__

# loaded with the package, as confluent-kafka's; the mock client serves
# SchemaRegistryClient.new_client's mock:// URLs once loaded; the OAuth token clients' drivers
# (the REST clients build them by credentials source) are defined in _async and _sync
from . import common, mock_schema_registry_client  # noqa: E402, F401
from ._async import schema_registry_client as _async_client  # noqa: E402, F401
from ._sync import schema_registry_client as _sync_client  # noqa: E402, F401
