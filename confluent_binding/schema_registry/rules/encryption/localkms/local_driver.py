"""The ``local-kms://`` driver: its KEK comes from the rule's ``secret`` parameter, else the
``LOCAL_SECRET`` environment variable."""

import os
from typing import Any, Dict, Optional

from tink import KmsClient, TinkError

from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver
from .local_client import LocalKmsClient

__all__ = ["KmsDriver", "LocalKmsClient", "LocalKmsDriver", "register_kms_driver"]

_PREFIX = "local-kms://"
_SECRET = "secret"


class LocalKmsDriver(_PrefixDriver):
    """The driver of ``local-kms://`` key URLs; ``LocalKmsDriver.register()`` adds it to the
    registry of drivers, as confluent-kafka's does.
    """

    prefix = _PREFIX

    def new_kms_client(self, conf: Dict[str, Any], key_url: Optional[str]) -> KmsClient:
        """A KMS client for ``key_url`` (any ``local-kms://`` key when None), configured by
        ``conf``: ``secret`` (or the ``LOCAL_SECRET`` variable), the secret the KEK is derived
        from.
        """
        secret = conf.get(_SECRET)
        if secret is None:
            secret = os.getenv("LOCAL_SECRET")
        if secret is None:
            raise TinkError("cannot load secret")
        return LocalKmsClient(secret)
