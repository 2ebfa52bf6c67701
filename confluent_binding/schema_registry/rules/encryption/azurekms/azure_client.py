"""An Azure Key Vault client for Tink: wraps and unwraps DEKs with an RSA key (RSA-OAEP-256)."""

import logging
from typing import Any, Dict, Optional

from tink import TinkError, aead

from .._sdk import BoundKmsClient, require
from .azure_aead import AzureKmsAead

__all__ = ["AZURE_KEYURI_PREFIX", "AzureKmsAead", "AzureKmsClient", "azure_driver", "log"]

AZURE_KEYURI_PREFIX = "azure-kms://"

log = logging.getLogger(__name__)


class AzureKmsClient(BoundKmsClient):
    """Bound to ``key_uri``: ``azure-kms://`` then the key's identifier
    (``https://<vault>.vault.azure.net/keys/<name>[/<version>]``). ``conf`` (the rule's
    parameters and the KEK's properties) may turn on ``encrypt.azure.key.version.save``."""

    def __init__(self, key_uri: str, credentials: Any, conf: Optional[Dict[str, Any]] = None):
        super().__init__(key_uri)
        self._credentials = credentials
        self._conf = conf if conf is not None else {}

    prefix = AZURE_KEYURI_PREFIX

    def get_aead(self, key_uri: str) -> aead.Aead:
        key_id = self._key_id(key_uri)
        crypto = require("azure.keyvault.keys.crypto", "Azure Key Vault", "encryption-azure")
        save = str(self._conf.get(azure_driver.ENCRYPT_AZURE_KEY_VERSION_SAVE,
                                  False)).lower() == "true"
        if not save:
            try:
                if azure_driver.is_versionless(key_id):
                    log.warning("Azure Key Vault key '%s' is versionless and %s is not enabled; "
                                "DEKs wrapped with it may become undecryptable after the key is "
                                "rotated.", key_id, azure_driver.ENCRYPT_AZURE_KEY_VERSION_SAVE)
            except TinkError:
                pass  # a malformed id fails where it is used

        def client_for(version: str) -> Any:
            return crypto.CryptographyClient(azure_driver.with_version(key_id, version),
                                             self._credentials)

        def latest() -> Any:
            version = azure_driver.get_versioned_key_id(self._conf, key_id).rsplit("/", 1)[-1]
            return client_for(version), version

        return AzureKmsAead(crypto.CryptographyClient(key_id, self._credentials),
                            crypto.EncryptionAlgorithm.rsa_oaep_256, latest if save else None,
                            client_for)


# last: azure_driver imports this module's AzureKmsClient
from . import azure_driver  # noqa: E402
