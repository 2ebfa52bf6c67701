"""confluent-kafka's ``schema_registry._async.serde``: the names of
:mod:`confluent_binding.schema_registry.serde`."""

from .. import serde as _target
from ..common._mirroring import _mirror

_mirror(globals(), _target)
