"""The public names of :mod:`confluent_binding.schema_registry.avro`,
under confluent-kafka's ``schema_registry.common.avro``."""

from .. import avro as _target
from ._mirroring import _mirror

_mirror(globals(), _target)
