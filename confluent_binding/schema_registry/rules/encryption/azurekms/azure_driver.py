"""The ``azure-kms://`` driver. Credentials: a client secret from the rule's ``tenant.id``,
``client.id`` and ``client.secret``, else Azure's default credential chain. The KEK property
``encrypt.azure.key.version.save`` (``true``) names the key version in each wrapped DEK (see
:mod:`.azure_aead`)."""

from typing import Any, Dict

from tink import KmsClient

from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver
from .azure_client import (
    AZURE_KEYURI_PREFIX,
    ENCRYPT_AZURE_KEY_VERSION_SAVE,
    AzureKmsClient,
    _get_credentials,
    get_versioned_key_id,
    is_versionless,
    with_version,
)

__all__ = ["AzureKmsClient", "AzureKmsDriver", "ENCRYPT_AZURE_KEY_VERSION_SAVE", "KmsDriver",
           "get_versioned_key_id", "is_versionless", "register_kms_driver", "with_version"]


class AzureKmsDriver(_PrefixDriver):
    """The driver of ``azure-kms://`` key URLs (its settings: see the module)."""

    prefix = AZURE_KEYURI_PREFIX

    def _client(self, conf: Dict[str, Any], key_url: str) -> KmsClient:
        return AzureKmsClient(key_url, _get_credentials(conf), conf)
