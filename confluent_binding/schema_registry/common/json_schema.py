"""The public names of :mod:`confluent_binding.schema_registry.json_schema`,
under confluent-kafka's ``schema_registry.common.json_schema``; and the JSON codec under its
private names there (``_HAS_ORJSON``, ``_json_loads``, ``_json_dumps``), chosen when this module
is loaded (see :mod:`confluent_binding.schema_registry._json_codec`)."""

from .. import _json_codec
from .. import json_schema as _target
from .. import serde as _serde
from ._mirroring import _VALIDATION_NAMES, _mirror, _offer

_HAS_ORJSON, _json_loads, _json_dumps = _json_codec.select()

_mirror(globals(), _target)
_offer(globals(), _serde, _VALIDATION_NAMES)
