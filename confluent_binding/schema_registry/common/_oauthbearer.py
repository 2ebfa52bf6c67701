"""confluent-kafka's ``schema_registry.common._oauthbearer``: the bearer field providers both
Schema Registry clients share (see :mod:`confluent_binding.schema_registry._oauth`)."""

from .._oauth import (  # noqa: F401
    _AsyncBearerFieldProvider,
    _BearerFieldProvider,
    _StaticFieldProvider,
    normalize_identity_pool,
)
