"""The public names of :mod:`confluent_binding.schema_registry.schema_registry_client`,
under confluent-kafka's ``schema_registry.common.schema_registry_client``."""

from .. import schema_registry_client as _target
from ._mirroring import _mirror

_mirror(globals(), _target)

from .._oauth import _AsyncStaticFieldProvider, _StaticFieldProvider  # noqa: E402, F401
