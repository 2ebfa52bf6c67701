"""A HashiCorp Vault client for Tink: wraps and unwraps with a transit engine key."""

from typing import Optional, Tuple, Union
from urllib.parse import urlparse

from tink import aead

from .._sdk import BoundKmsClient, require

__all__ = ["HcVaultKmsClient", "VAULT_KEYURI_PREFIX"]

VAULT_KEYURI_PREFIX = "hcvault://"


def __getattr__(name):
    # ``hcvault_client.hvac``, the SDK module, as confluent-kafka's module offers it (imported
    # when first asked for, so that loading this module needs no hvac)
    if name == "hvac":
        return require("hvac", "HashiCorp Vault", "encryption-hcvault")
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


class HcVaultKmsClient(BoundKmsClient):
    """Bound to ``key_uri``: ``hcvault://`` then the Vault URL and the key's path
    (``https://vault:8200/transit/keys/my-key``). With ``role_id`` and ``secret_id`` it logs in
    with AppRole; ``verify`` (True or a CA bundle path) and ``cert`` are for TLS."""

    def __init__(self, key_uri: str, token: Optional[str], ns: Optional[str] = None,
                 role_id: Optional[str] = None, secret_id: Optional[str] = None,
                 verify: Union[bool, str] = True,
                 cert: Optional[Union[str, Tuple[str, str]]] = None):
        super().__init__(key_uri)
        hvac = require("hvac", "HashiCorp Vault", "encryption-hcvault")
        parsed = urlparse(key_uri[len(VAULT_KEYURI_PREFIX):])
        self._client = hvac.Client(url=parsed.scheme + "://" + parsed.netloc, token=token,
                                   namespace=ns, verify=verify, cert=cert)
        if role_id and secret_id:
            self._client.auth.approle.login(role_id=role_id, secret_id=secret_id)

    prefix = VAULT_KEYURI_PREFIX

    def get_aead(self, key_uri: str) -> aead.Aead:
        """The AEAD that wraps and unwraps with Vault's transit key of ``key_uri``.

        Raises:
            tink.TinkError: ``key_uri`` is not the key this client is bound to.
        """
        key_id = self._key_id(key_uri)
        hcvault = require("tink.integration.hcvault", "HashiCorp Vault", "encryption-hcvault")
        return hcvault.new_aead(urlparse(key_id).path, self._client)
