"""confluent-kafka's ``schema_registry._async.avro``: the names of
:mod:`confluent_binding.schema_registry.avro`."""

from .. import avro as _target
from ..common._mirroring import _mirror

_mirror(globals(), _target)
