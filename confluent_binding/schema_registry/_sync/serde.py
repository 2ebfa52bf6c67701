"""confluent-kafka's ``schema_registry._sync.serde``: the names of
:mod:`confluent_binding.schema_registry.serde`."""

from .. import serde as _target
from ..common._mirroring import _mirror

_mirror(globals(), _target)
