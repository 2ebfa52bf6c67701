"""The public names of :mod:`confluent_binding.schema_registry.protobuf`,
under confluent-kafka's ``schema_registry.common.protobuf``."""

from .. import protobuf as _target
from ._mirroring import _mirror

_mirror(globals(), _target)
