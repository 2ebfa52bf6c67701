"""The DEK Registry client (:mod:`.dek_registry_client`) and its in-memory stand-in for tests
(:mod:`.mock_dek_registry_client`)."""

# the mock client serves DekRegistryClient.new_client's mock:// URLs once loaded
from . import dek_registry_client, mock_dek_registry_client  # noqa: F401
