"""The public names of :mod:`confluent_binding.schema_registry.json_schema`,
under confluent-kafka's ``schema_registry.common.json_schema``."""

from .. import json_schema as _target
from ._mirroring import _mirror

_mirror(globals(), _target)
