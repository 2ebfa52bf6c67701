"""The ``azure-kms://`` driver. Credentials: a client secret from the rule's ``tenant.id``,
``client.id`` and ``client.secret``, else Azure's default credential chain. The KEK property
``encrypt.azure.key.version.save`` (``true``) names the key version in each wrapped DEK (see
:mod:`.azure_aead`)."""

from typing import Any, Dict, NamedTuple, Optional
from urllib.parse import urlparse

from tink import KmsClient, TinkError

from .._sdk import require
from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver
from .azure_client import AzureKmsClient

__all__ = ["AzureKmsClient", "AzureKmsDriver", "ENCRYPT_AZURE_KEY_VERSION_SAVE", "KmsDriver",
           "get_versioned_key_id", "is_versionless", "register_kms_driver", "with_version"]

_PREFIX = "azure-kms://"
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


class AzureKmsDriver(_PrefixDriver):
    prefix = _PREFIX

    def new_kms_client(self, conf: Dict[str, Any], key_url: Optional[str]) -> KmsClient:
        return AzureKmsClient(key_url or _PREFIX, _get_credentials(conf), conf)
