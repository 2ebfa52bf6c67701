"""The ``azure-kms://`` driver. Credentials: a client secret from the rule's ``tenant.id``,
``client.id`` and ``client.secret``, else Azure's default credential chain."""

from typing import Any, Dict, Optional

from tink import KmsClient

from .._sdk import require
from ..kms_driver_registry import KmsDriver, register_kms_driver
from .azure_client import AzureKmsClient

__all__ = ["AzureKmsClient", "AzureKmsDriver", "KmsDriver", "register_kms_driver"]

_PREFIX = "azure-kms://"
_TENANT_ID = "tenant.id"
_CLIENT_ID = "client.id"
_CLIENT_SECRET = "client.secret"


def _get_credentials(conf: Dict[str, Any]) -> Any:
    identity = require("azure.identity", "Azure Key Vault", "encryption-azure")
    tenant, client, secret = (conf.get(k) for k in (_TENANT_ID, _CLIENT_ID, _CLIENT_SECRET))
    if tenant is not None and client is not None and secret is not None:
        return identity.ClientSecretCredential(tenant, client, secret)
    return identity.DefaultAzureCredential()


class AzureKmsDriver(KmsDriver):
    def get_key_url_prefix(self) -> str:
        return _PREFIX

    def new_kms_client(self, conf: Dict[str, Any], key_url: Optional[str]) -> KmsClient:
        return AzureKmsClient(key_url or _PREFIX, _get_credentials(conf), conf)

    @classmethod
    def register(cls) -> None:
        register_kms_driver(cls())
