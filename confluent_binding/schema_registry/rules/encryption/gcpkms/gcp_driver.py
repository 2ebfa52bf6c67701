"""The ``gcp-kms://`` driver. Credentials: a service account from the rule's ``client.id``,
``client.email``, ``private.key.id``, ``private.key`` (``account.type`` must be
``service_account``, ``token.uri`` optional), else Google's application default credentials."""

from typing import Any, Dict, Optional

from tink import KmsClient, TinkError

from .._sdk import require
from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver
from .gcp_client import GcpKmsClient

__all__ = ["GcpKmsDriver", "KmsDriver", "register_kms_driver"]

_PREFIX = "gcp-kms://"
_ACCOUNT_TYPE = "account.type"
_CLIENT_ID = "client.id"
_CLIENT_EMAIL = "client.email"
_PRIVATE_KEY_ID = "private.key.id"
_PRIVATE_KEY = "private.key"
_TOKEN_URI = "token.uri"


class GcpKmsDriver(_PrefixDriver):
    """The driver of ``gcp-kms://`` key URLs; ``GcpKmsDriver.register()`` adds it to the
    registry of drivers, as confluent-kafka's does.
    """

    prefix = _PREFIX

    def new_kms_client(self, conf: Dict[str, Any], key_url: Optional[str]) -> KmsClient:
        """A KMS client for ``key_url`` (any ``gcp-kms://`` key when None), configured by
        ``conf``: a service account's ``client.id``, ``client.email``, ``private.key.id`` and
        ``private.key`` (``account.type``, ``token.uri``), else Google's default credentials.
        """
        account_type = conf.get(_ACCOUNT_TYPE) or "service_account"
        if account_type != "service_account":
            raise TinkError("account.type must be 'service_account'")
        fields = [conf.get(k) for k in (_CLIENT_ID, _CLIENT_EMAIL, _PRIVATE_KEY_ID, _PRIVATE_KEY)]
        credentials = None
        if None not in fields:
            service_account = require("google.oauth2.service_account", "Google Cloud KMS",
                                      "encryption-gcp")
            client_id, client_email, private_key_id, private_key = fields
            credentials = service_account.Credentials.from_service_account_info({
                "type": account_type, "client_id": client_id, "client_email": client_email,
                "private_key_id": private_key_id, "private_key": private_key,
                "token_uri": conf.get(_TOKEN_URI) or "https://oauth2.googleapis.com/token"})
        return GcpKmsClient(key_url or _PREFIX, credentials)
