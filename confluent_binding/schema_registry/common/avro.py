"""The public names of :mod:`confluent_binding.schema_registry.avro`,
under confluent-kafka's ``schema_registry.common.avro``."""

from .. import avro as _target
from .. import serde as _serde
from ._mirroring import _VALIDATION_NAMES, _mirror, _offer

_mirror(globals(), _target)
_offer(globals(), _serde, _VALIDATION_NAMES)
