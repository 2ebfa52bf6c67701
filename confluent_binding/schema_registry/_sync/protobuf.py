"""confluent-kafka's ``schema_registry._sync.protobuf``: the names of
:mod:`confluent_binding.schema_registry.protobuf`."""

from .. import protobuf as _target
from ..common._mirroring import _mirror

_mirror(globals(), _target)
