"""A KMS in the process: the KEK is derived from a secret (HKDF-SHA256, no salt, no info,
16 bytes) and wraps with AES128-GCM, as confluent-kafka's local KMS does, so DEKs wrapped by
either are unwrapped by the other given the same secret. For development and tests."""

import hashlib
import hmac
from typing import Optional

from tink import KmsClient, aead
from tink.proto import aes_gcm_pb2

__all__ = ["LocalKmsClient"]

_PREFIX = "local-kms://"
_GCM_URL = "type.googleapis.com/google.crypto.tink.AesGcmKey"


def _hkdf_sha256(secret: bytes, length: int) -> bytes:
    """RFC 5869 HKDF with SHA-256, an all-zero salt and empty info."""
    prk = hmac.new(b"\0" * hashlib.sha256().digest_size, secret, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + bytes((counter,)), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


class LocalKmsClient(KmsClient):
    """The ``local-kms://`` KMS: one AES-GCM key derived (HKDF-SHA256) from ``secret``, for
    development and tests; every ``local-kms://`` key URL uses it.

    Raises:
        TypeError: ``secret`` is None.
    """

    def __init__(self, secret: Optional[str] = None):
        if secret is None:
            raise TypeError("secret cannot be None")
        from ..encrypt_executor import _raw_primitive

        key = aes_gcm_pb2.AesGcmKey(version=0, key_value=_hkdf_sha256(secret.encode("utf-8"), 16))
        self._aead = _raw_primitive(_GCM_URL, key.SerializeToString(), aead.Aead)

    def does_support(self, key_uri: str) -> bool:
        """True for every ``local-kms://`` key URL."""
        return key_uri.startswith(_PREFIX)

    def get_aead(self, key_uri: str) -> aead.Aead:
        """The AEAD of the key derived from the secret (the same for every key URL)."""
        return self._aead
