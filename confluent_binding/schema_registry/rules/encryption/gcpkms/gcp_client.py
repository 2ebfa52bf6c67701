"""A Google Cloud KMS client for Tink: wraps and unwraps with a symmetric Cloud KMS key."""

from typing import Any, Optional

from tink import KmsClient, TinkError, aead

from .._sdk import require

__all__ = ["GCP_KEYURI_PREFIX", "GcpKmsClient"]

GCP_KEYURI_PREFIX = "gcp-kms://"


class _CloudKmsAead(aead.Aead):
    def __init__(self, client: Any, key_name: str):
        self._client = client
        self._key_name = key_name

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        try:
            return self._client.encrypt(request={
                "name": self._key_name, "plaintext": plaintext,
                "additional_authenticated_data": associated_data}).ciphertext
        except Exception as e:
            raise TinkError(e)

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes:
        try:
            return self._client.decrypt(request={
                "name": self._key_name, "ciphertext": ciphertext,
                "additional_authenticated_data": associated_data}).plaintext
        except Exception as e:
            raise TinkError(e)


class GcpKmsClient(KmsClient):
    """Bound to ``key_uri`` (``gcp-kms://projects/.../cryptoKeys/...``) unless it is empty."""

    def __init__(self, key_uri: Optional[str], credentials: Any = None):
        if key_uri and not key_uri.startswith(GCP_KEYURI_PREFIX):
            raise TinkError("Invalid key_uri.")
        self._key_uri = key_uri or None
        kms_v1 = require("google.cloud.kms_v1", "Google Cloud KMS", "encryption-gcp")
        self._client = kms_v1.KeyManagementServiceClient(credentials=credentials)

    def does_support(self, key_uri: str) -> bool:
        if not self._key_uri:
            return key_uri.startswith(GCP_KEYURI_PREFIX)
        return key_uri == self._key_uri

    def get_aead(self, key_uri: str) -> aead.Aead:
        if self._key_uri and self._key_uri != key_uri:
            raise TinkError("This client is bound to %s and cannot use key %s"
                            % (self._key_uri, key_uri))
        if not key_uri.startswith(GCP_KEYURI_PREFIX):
            raise TinkError("Invalid key_uri.")
        return _CloudKmsAead(self._client, key_uri[len(GCP_KEYURI_PREFIX):])
