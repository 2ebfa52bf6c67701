"""What the cloud KMS drivers share: their SDK imported when a client is first made (not when
they load), settings with environment fallbacks, and clients bound to one key URL."""

import importlib
import os
from typing import Any, Dict, Optional

from tink import KmsClient, TinkError


def require(module: str, kms: str, extra: str):
    """``module`` imported; TinkError naming what to install when it is absent."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise TinkError("the {} driver needs the {} package: pip install "
                        "confluent-binding[{}] ({})".format(kms, module.split(".")[0], extra, e))


def setting(conf: Dict[str, Any], key: str, env: str) -> Optional[str]:
    """The rule's (or KEK's) ``key``, else the environment variable ``env``."""
    value = conf.get(key)
    return os.getenv(env) if value is None else value


class BoundKmsClient(KmsClient):
    """A KMS client for the one key URL it was made for (``prefix`` and the key's id)."""

    prefix = ""

    def __init__(self, key_uri: Optional[str]):
        if key_uri and not key_uri.startswith(self.prefix):
            raise TinkError("Invalid key_uri.")
        self._key_uri = key_uri or None

    def does_support(self, key_uri: str) -> bool:
        if not self._key_uri:
            return key_uri.startswith(self.prefix)
        return key_uri == self._key_uri

    def _key_id(self, key_uri: str) -> str:
        """What follows the prefix in ``key_uri``, which must be this client's."""
        if self._key_uri and self._key_uri != key_uri:
            raise TinkError("This client is bound to %s and cannot use key %s"
                            % (self._key_uri, key_uri))
        if not key_uri.startswith(self.prefix):
            raise TinkError("Invalid key_uri.")
        return key_uri[len(self.prefix):]
