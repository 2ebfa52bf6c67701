"""The public names of :mod:`confluent_binding.schema_registry.serde`,
under confluent-kafka's ``schema_registry.common.serde``."""

from .. import serde as _target
from ._mirroring import _mirror

_mirror(globals(), _target)
