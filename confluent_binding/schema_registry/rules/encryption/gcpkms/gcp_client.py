"""A Google Cloud KMS client for Tink: wraps and unwraps with a symmetric Cloud KMS key."""

from typing import Any, Optional

from tink import TinkError, aead

from .._sdk import BoundKmsClient, require

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


class GcpKmsClient(BoundKmsClient):
    """Bound to ``key_uri`` (``gcp-kms://projects/.../cryptoKeys/...``) unless it is empty."""

    def __init__(self, key_uri: Optional[str], credentials: Any = None):
        super().__init__(key_uri)
        kms_v1 = require("google.cloud.kms_v1", "Google Cloud KMS", "encryption-gcp")
        self._client = kms_v1.KeyManagementServiceClient(credentials=credentials)

    prefix = GCP_KEYURI_PREFIX

    def get_aead(self, key_uri: str) -> aead.Aead:
        """The AEAD that wraps and unwraps with the Cloud KMS key of ``key_uri``.

        Raises:
            tink.TinkError: ``key_uri`` is not the key this client is bound to.
        """
        return _CloudKmsAead(self._client, self._key_id(key_uri))
