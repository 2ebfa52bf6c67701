"""confluent-kafka's ``schema_registry._async.mock_schema_registry_client``: the names of
:mod:`confluent_binding.schema_registry.mock_schema_registry_client`."""

from .. import mock_schema_registry_client as _target
from ..common._mirroring import _mirror

_mirror(globals(), _target)
