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
from .hcvault_client import VAULT_KEYURI_PREFIX, HcVaultKmsClient

__all__ = ["HcVaultKmsClient", "HcVaultKmsDriver", "KmsDriver", "register_kms_driver"]

# the client's token, namespace, AppRole role and secret ids: the rule's parameter, else the
# environment variable
_SETTINGS = (("token.id", "VAULT_TOKEN"), ("namespace", "VAULT_NAMESPACE"),
             ("approle.role.id", "VAULT_APPROLE_ROLE_ID"),
             ("approle.secret.id", "VAULT_APPROLE_SECRET_ID"))
_SSL_CERTIFICATE_LOCATION = "ssl.certificate.location"
_SSL_KEY_LOCATION = "ssl.key.location"


class HcVaultKmsDriver(_PrefixDriver):
    """The driver of ``hcvault://`` key URLs (its settings: see the module)."""

    prefix = VAULT_KEYURI_PREFIX

    def _client(self, conf: Dict[str, Any], key_url: str) -> KmsClient:
        token, ns, role_id, secret_id = (setting(conf, param, env) for param, env in _SETTINGS)
        return HcVaultKmsClient(key_url, token, ns, role_id, secret_id, self._get_verify(conf),
                                self._get_cert(conf))

    @staticmethod
    def _get_verify(conf: Dict[str, Any]) -> Union[bool, str]:
        # an empty location means unset: it must never turn verification off
        return conf.get("ssl.ca.location") or os.getenv("VAULT_CACERT") or True

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
