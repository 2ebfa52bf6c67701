"""The ``hcvault://`` driver. Settings (rule parameter, else environment variable):
``token.id`` (VAULT_TOKEN), ``namespace`` (VAULT_NAMESPACE), ``approle.role.id``
(VAULT_APPROLE_ROLE_ID), ``approle.secret.id`` (VAULT_APPROLE_SECRET_ID), ``ssl.ca.location``
(VAULT_CACERT; the server certificate is always verified), ``ssl.certificate.location``
(VAULT_CLIENT_CERT) and ``ssl.key.location`` (VAULT_CLIENT_KEY)."""

import os
from typing import Any, Dict, Optional, Tuple, Union

from tink import KmsClient

from .._sdk import setting
from ..kms_driver_registry import KmsDriver, _PrefixDriver, register_kms_driver
from .hcvault_client import HcVaultKmsClient

__all__ = ["HcVaultKmsClient", "HcVaultKmsDriver", "KmsDriver", "register_kms_driver"]

_PREFIX = "hcvault://"
_TOKEN_ID = "token.id"
_NAMESPACE = "namespace"
_APPROLE_ROLE_ID = "approle.role.id"
_APPROLE_SECRET_ID = "approle.secret.id"
_SSL_CA_LOCATION = "ssl.ca.location"
_SSL_CERTIFICATE_LOCATION = "ssl.certificate.location"
_SSL_KEY_LOCATION = "ssl.key.location"


class HcVaultKmsDriver(_PrefixDriver):
    """The driver of ``hcvault://`` key URLs; ``HcVaultKmsDriver.register()`` adds it to the
    registry of drivers, as confluent-kafka's does.
    """

    prefix = _PREFIX

    def new_kms_client(self, conf: Dict[str, Any], key_url: Optional[str]) -> KmsClient:
        """A KMS client for ``key_url`` (any ``hcvault://`` key when None), configured by
        ``conf``: ``token.id`` (``VAULT_TOKEN``), ``namespace``, ``approle.role.id`` and
        ``approle.secret.id`` for AppRole, ``ssl.ca.location``, ``ssl.certificate.location`` and
        ``ssl.key.location`` (each also from its ``VAULT_*`` variable).
        """
        return HcVaultKmsClient(
            key_url or _PREFIX, setting(conf, _TOKEN_ID, "VAULT_TOKEN"),
            setting(conf, _NAMESPACE, "VAULT_NAMESPACE"),
            setting(conf, _APPROLE_ROLE_ID, "VAULT_APPROLE_ROLE_ID"),
            setting(conf, _APPROLE_SECRET_ID, "VAULT_APPROLE_SECRET_ID"),
            self._get_verify(conf), self._get_cert(conf))

    @staticmethod
    def _get_verify(conf: Dict[str, Any]) -> Union[bool, str]:
        # an empty location means unset: it must never turn verification off
        return conf.get(_SSL_CA_LOCATION) or os.getenv("VAULT_CACERT") or True

    @staticmethod
    def _get_cert(conf: Dict[str, Any]) -> Optional[Union[str, Tuple[str, str]]]:
        cert = setting(conf, _SSL_CERTIFICATE_LOCATION, "VAULT_CLIENT_CERT")
        key = setting(conf, _SSL_KEY_LOCATION, "VAULT_CLIENT_KEY")
        if key is not None and cert is None:
            raise ValueError("{} required when configuring {}".format(_SSL_CERTIFICATE_LOCATION,
                                                                     _SSL_KEY_LOCATION))
        if cert is not None and key is not None:
            return cert, key
        return cert
