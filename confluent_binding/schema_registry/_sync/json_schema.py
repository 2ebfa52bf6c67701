"""confluent-kafka's ``schema_registry._sync.json_schema``: the names of
:mod:`confluent_binding.schema_registry.json_schema`."""

from .. import json_schema as _target
from ..common._mirroring import _mirror

_mirror(globals(), _target)
