"""Schema Registry client (``confluent_kafka.schema_registry.schema_registry_client``).

:class:`SchemaRegistryClient` has confluent-kafka 2.16's methods, signatures, defaults, caching
and errors, over httpx (see ``_rest``).  :class:`AsyncSchemaRegistryClient` offers the same methods
as coroutines.  This module offers them with the value types and the REST helpers confluent-kafka's
module has; the code lives in private modules: :mod:`._client` (the blocking client),
:mod:`._aclient` (the asyncio one), :mod:`._caches`, :mod:`._types` and :mod:`._rest`.
"""

from . import _associations, _types
from ._aclient import AsyncSchemaRegistryClient
from ._associations import *  # noqa: F403  (the value types, _associations.__all__)
from ._client import SchemaRegistryClient
from ._rest import (
    VALID_AUTH_PROVIDERS,
    full_jitter,
    is_retriable,
    is_success,
    normalize_identity_pool,
)
from ._types import *  # noqa: F403  (the value types, _types.__all__)
from ._types import RulePhase, SchemaVersion
from .error import SchemaRegistryError

__all__ = [
    "AsyncSchemaRegistryClient",
    "RulePhase",
    "SchemaRegistryClient",
    "SchemaRegistryError",
    "SchemaVersion",
    "VALID_AUTH_PROVIDERS",
    "full_jitter",
    "is_retriable",
    "is_success",
    "normalize_identity_pool",
]
__all__ += _types.__all__
__all__ += _associations.__all__

# the clients are this module's, where confluent-kafka's users find them (and the API reference
# describes them)
SchemaRegistryClient.__module__ = AsyncSchemaRegistryClient.__module__ = __name__
