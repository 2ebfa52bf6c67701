"""confluent-kafka's ``schema_registry._sync.schema_registry_client``: the names of
:mod:`confluent_binding.schema_registry.schema_registry_client`, and its REST client under
confluent-kafka's private name."""

from .. import schema_registry_client as _target
from .._rest import RestClient as _RestClient  # noqa: F401
from ..common._mirroring import _mirror

_mirror(globals(), _target)
