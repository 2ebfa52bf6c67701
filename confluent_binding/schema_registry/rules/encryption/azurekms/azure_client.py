"""An Azure Key Vault client for Tink: wraps and unwraps DEKs with an RSA key (RSA-OAEP-256)."""

from typing import Any, Dict, Optional

from tink import KmsClient, TinkError, aead

from .._sdk import require

__all__ = ["AZURE_KEYURI_PREFIX", "AzureKmsClient"]

AZURE_KEYURI_PREFIX = "azure-kms://"


class _KeyVaultAead(aead.Aead):
    def __init__(self, client: Any, algorithm: Any):
        self._client = client
        self._algorithm = algorithm

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        try:
            return self._client.encrypt(self._algorithm, plaintext).ciphertext
        except Exception as e:
            raise TinkError(e)

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes:
        try:
            return self._client.decrypt(self._algorithm, ciphertext).plaintext
        except Exception as e:
            raise TinkError(e)


class AzureKmsClient(KmsClient):
    """Bound to ``key_uri``: ``azure-kms://`` then the key's identifier
    (``https://<vault>.vault.azure.net/keys/<name>[/<version>]``)."""

    def __init__(self, key_uri: str, credentials: Any, conf: Optional[Dict[str, Any]] = None):
        if not key_uri.startswith(AZURE_KEYURI_PREFIX):
            raise TinkError("Invalid key_uri.")
        self._key_uri = key_uri
        self._credentials = credentials
        self._conf = dict(conf or {})

    def does_support(self, key_uri: str) -> bool:
        return key_uri == self._key_uri

    def get_aead(self, key_uri: str) -> aead.Aead:
        if self._key_uri != key_uri:
            raise TinkError("This client is bound to %s and cannot use key %s"
                            % (self._key_uri, key_uri))
        crypto = require("azure.keyvault.keys.crypto", "Azure Key Vault", "encryption-azure")
        client = crypto.CryptographyClient(key_uri[len(AZURE_KEYURI_PREFIX):], self._credentials)
        return _KeyVaultAead(client, crypto.EncryptionAlgorithm.rsa_oaep_256)
