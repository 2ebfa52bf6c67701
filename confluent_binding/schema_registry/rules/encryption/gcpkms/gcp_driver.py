"""The ``gcp-kms://`` driver. Credentials: a service account from the rule's ``client.id``,
``client.email``, ``private.key.id``, ``private.key`` (``account.type`` must be
``service_account``, ``token.uri`` optional), else Google's application default credentials."""

from typing import Any, Dict

from tink import KmsClient, TinkError

from .._sdk import require
from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver
from .gcp_client import GCP_KEYURI_PREFIX, GcpKmsClient

__all__ = ["GcpKmsDriver", "KmsDriver", "register_kms_driver"]

# the service account's fields: the rule's parameter, and the key of Google's account info
_ACCOUNT_FIELDS = (("client.id", "client_id"), ("client.email", "client_email"),
                   ("private.key.id", "private_key_id"), ("private.key", "private_key"))


class GcpKmsDriver(_PrefixDriver):
    """The driver of ``gcp-kms://`` key URLs (its settings: see the module)."""

    prefix = GCP_KEYURI_PREFIX

    def _client(self, conf: Dict[str, Any], key_url: str) -> KmsClient:
        account_type = conf.get("account.type") or "service_account"
        if account_type != "service_account":
            raise TinkError("account.type must be 'service_account'")
        info = {name: conf.get(param) for param, name in _ACCOUNT_FIELDS}
        credentials = None
        if None not in info.values():
            service_account = require("google.oauth2.service_account", "Google Cloud KMS",
                                      "encryption-gcp")
            info.update(type=account_type,
                        token_uri=conf.get("token.uri") or "https://oauth2.googleapis.com/token")
            credentials = service_account.Credentials.from_service_account_info(info)
        return GcpKmsClient(key_url, credentials)
