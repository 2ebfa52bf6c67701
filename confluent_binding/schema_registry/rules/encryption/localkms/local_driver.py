"""The ``local-kms://`` driver: its KEK comes from the rule's ``secret`` parameter, else the
``LOCAL_SECRET`` environment variable."""

from typing import Any, Dict

from tink import KmsClient, TinkError

from .._sdk import setting
from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver
from .local_client import LocalKmsClient

__all__ = ["KmsDriver", "LocalKmsClient", "LocalKmsDriver", "register_kms_driver"]


class LocalKmsDriver(_PrefixDriver):
    """The driver of ``local-kms://`` key URLs (the KEK is derived from ``secret``)."""

    prefix = "local-kms://"

    def _client(self, conf: Dict[str, Any], key_url: str) -> KmsClient:
        secret = setting(conf, "secret", "LOCAL_SECRET")
        if secret is None:
            raise TinkError("cannot load secret")
        return LocalKmsClient(secret)
