"""Wrapping with an Azure Key Vault key, optionally naming the key version in the output.

Key Vault wraps and unwraps with one explicit version of a key, and its output does not say
which. With the KEK property ``encrypt.azure.key.version.save`` the wrapped DEK starts with
``azure:v1:<32 hex characters of the version>:`` so that it is unwrapped with that version after
the key has been rotated; unwrapping always honours such a header, whatever the setting now.
"""

import string
from typing import Any, Callable, Optional, Tuple

from tink import TinkError, aead

__all__ = ["AzureKmsAead"]

_HEADER = b"azure:v1:"
_VERSION_CHARS = 32
_HEADER_LEN = len(_HEADER) + _VERSION_CHARS + 1


def _valid_version(version: Optional[str]) -> bool:
    return (version is not None and len(version) == _VERSION_CHARS
            and all(c in string.hexdigits for c in version))


def _header_version(wrapped: bytes) -> Optional[str]:
    """The version a wrapped key's header names; None without a header."""
    if len(wrapped) < _HEADER_LEN or not wrapped.startswith(_HEADER) \
            or wrapped[_HEADER_LEN - 1:_HEADER_LEN] != b":":
        return None
    return wrapped[len(_HEADER):_HEADER_LEN - 1].decode("ascii", errors="replace")


class AzureKmsAead(aead.Aead):
    """``default_client`` (a CryptographyClient) wraps, unless ``encrypt_target()`` gives the
    (client, version) to wrap with and name in the header; ``client_factory(version)`` makes the
    client that unwraps a key whose header names ``version``."""

    def __init__(self, default_client: Any, algorithm: Any,
                 encrypt_target: Optional[Callable[[], Tuple[Any, str]]] = None,
                 client_factory: Optional[Callable[[str], Any]] = None):
        if not default_client:
            raise TinkError("client cannot be null.")
        self._default_client = default_client
        self._algorithm = algorithm
        self._encrypt_target = encrypt_target
        self._client_factory = client_factory

    def _call(self, client: Any, operation: str, data: bytes) -> Any:
        try:
            return getattr(client, operation)(self._algorithm, data)
        except ValueError as e:
            raise TinkError(e)

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        """Wrap ``plaintext`` with the default client, or with the client and key version
        ``encrypt_target()`` gives, prefixing the version (``azure:v1:<version>:``).

        Raises:
            tink.TinkError: the key version is malformed, or Key Vault refused.
        """
        if self._encrypt_target is None:
            return self._call(self._default_client, "encrypt", plaintext).ciphertext
        try:
            client, version = self._encrypt_target()
        except Exception as e:
            raise TinkError("failed to resolve kms client for encryption: {}".format(e)) from e
        if not _valid_version(version):
            raise TinkError("kms key version '{}' must be a {}-character hex string; cannot be "
                            "embedded in a fixed-width azure:v1: prefix".format(version,
                                                                                _VERSION_CHARS))
        wrapped = self._call(client, "encrypt", plaintext).ciphertext
        return _HEADER + version.encode("ascii") + b":" + wrapped

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes:
        """Unwrap ``ciphertext``: with the key version its prefix names (through
        ``client_factory``), or with the default client when it has no prefix.

        Raises:
            tink.TinkError: an invalid version prefix, no factory for it, or Key Vault refused.
        """
        version = _header_version(ciphertext)
        if version is None:
            return self._call(self._default_client, "decrypt", ciphertext).plaintext
        if not _valid_version(version):  # the header is not authenticated: check it
            raise TinkError("ciphertext carries an invalid azure:v1: key version: '{}'"
                            .format(version))
        if self._client_factory is None:
            raise TinkError("ciphertext carries a kms key version prefix, but this Aead has no "
                            "client factory to resolve it")
        try:
            client = self._client_factory(version)
        except Exception as e:
            raise TinkError("failed to resolve kms client for embedded key version '{}': {}"
                            .format(version, e)) from e
        return self._call(client, "decrypt", ciphertext[_HEADER_LEN:]).plaintext
