"""An Azure Key Vault client for Tink: wraps and unwraps DEKs with an RSA key (RSA-OAEP-256)."""

import logging
from types import ModuleType
from typing import Any, Dict, NamedTuple, Optional
from urllib.parse import urlparse

from tink import TinkError, aead

from .._sdk import BoundKmsClient, require
from .azure_aead import AzureKmsAead

__all__ = ["AZURE_KEYURI_PREFIX", "AzureKmsAead", "AzureKmsClient", "log"]

AZURE_KEYURI_PREFIX = "azure-kms://"

log: logging.Logger = logging.getLogger(__name__)

#: the sibling module, which confluent-kafka's azure_client offers too: the driver imports this
#: module, so the package (azurekms/__init__.py) sets the name once both are loaded
azure_driver: ModuleType


# -- key ids (the driver offers these too) -------------------------------------------------------

_TENANT_ID = "tenant.id"
_CLIENT_ID = "client.id"
_CLIENT_SECRET = "client.secret"

ENCRYPT_AZURE_KEY_VERSION_SAVE = "encrypt.azure.key.version.save"


class _KeyId(NamedTuple):
    vault_url: str
    name: str
    version: Optional[str]


def _parse(kms_key_id: str) -> _KeyId:
    """``https://<vault>/keys/<name>[/<version>]``, taken apart."""
    url = urlparse(kms_key_id)
    segments = [s for s in url.path.split("/") if s]
    if not url.scheme or not url.netloc or not 2 <= len(segments) <= 3 or segments[0] != "keys":
        raise TinkError("invalid Azure Key Vault key id: {}".format(kms_key_id))
    return _KeyId("{}://{}".format(url.scheme, url.netloc), segments[1],
                  segments[2] if len(segments) == 3 else None)


def is_versionless(kms_key_id: str) -> bool:
    """Whether the key id names no version (no request is made)."""
    return _parse(kms_key_id).version is None


def with_version(kms_key_id: str, version: str) -> str:
    """The id of ``version`` of the key ``kms_key_id`` names (whatever version that names)."""
    key = _parse(kms_key_id)
    return "{}/keys/{}/{}".format(key.vault_url, key.name, version)


def get_versioned_key_id(conf: Dict[str, Any], kms_key_id: str) -> str:
    """``kms_key_id`` if it names a version, else the id of the key's current version, asked of
    Key Vault."""
    key = _parse(kms_key_id)
    if key.version is not None:
        return kms_key_id
    keys = require("azure.keyvault.keys", "Azure Key Vault", "encryption-azure")
    failed = "Failed to resolve Azure Key Vault key id for key name '{}' in vault {}".format(
        key.name, key.vault_url)
    try:
        found = keys.KeyClient(vault_url=key.vault_url,
                               credential=_get_credentials(conf)).get_key(key.name)
    except Exception as e:
        raise TinkError(failed) from e
    if found is None or found.id is None:
        raise TinkError(failed)
    if _parse(found.id).version is None:
        raise TinkError("resolved Azure Key Vault key id is missing a version segment: {}"
                        .format(found.id))
    return found.id


def _get_credentials(conf: Dict[str, Any]) -> Any:
    identity = require("azure.identity", "Azure Key Vault", "encryption-azure")
    tenant, client, secret = (conf.get(k) for k in (_TENANT_ID, _CLIENT_ID, _CLIENT_SECRET))
    if tenant is not None and client is not None and secret is not None:
        return identity.ClientSecretCredential(tenant, client, secret)
    return identity.DefaultAzureCredential()


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
        """The AEAD that wraps and unwraps with the Key Vault key of ``key_uri``
        (``azure-kms://https://<vault>/keys/<name>[/<version>]``).

        Raises:
            tink.TinkError: ``key_uri`` is not the key this client is bound to.
        """
        key_id = self._key_id(key_uri)
        crypto = require("azure.keyvault.keys.crypto", "Azure Key Vault", "encryption-azure")
        save = str(self._conf.get(ENCRYPT_AZURE_KEY_VERSION_SAVE,
                                  False)).lower() == "true"
        if not save:
            try:
                if is_versionless(key_id):
                    log.warning("Azure Key Vault key '%s' is versionless and %s is not enabled; "
                                "DEKs wrapped with it may become undecryptable after the key is "
                                "rotated.", key_id, ENCRYPT_AZURE_KEY_VERSION_SAVE)
            except TinkError:
                pass  # a malformed id fails where it is used

        def client_for(version: str) -> Any:
            return crypto.CryptographyClient(with_version(key_id, version),
                                             self._credentials)

        def latest() -> Any:
            version = get_versioned_key_id(self._conf, key_id).rsplit("/", 1)[-1]
            return client_for(version), version

        return AzureKmsAead(crypto.CryptographyClient(key_id, self._credentials),
                            crypto.EncryptionAlgorithm.rsa_oaep_256, latest if save else None,
                            client_for)


