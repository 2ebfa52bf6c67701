"""KMS drivers by key URL: a driver makes the KMS client (a :class:`tink.KmsClient`) that wraps
and unwraps DEKs with a KEK whose URL starts with its prefix (``local-kms://``,
``aws-kms://``, ``azure-kms://``, ``gcp-kms://``, ``hcvault://``)."""

import abc
import threading
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..._rules import RuleError

if TYPE_CHECKING:  # tink is needed only once a client is made
    from tink import KmsClient

__all__ = ["KmsDriver", "RuleError", "get_kms_driver", "register_kms_driver",
           "reset_kms_drivers"]


class KmsDriver(metaclass=abc.ABCMeta):
    """A KMS's driver (confluent-kafka's ``KmsDriver``): the key-URL prefix it serves and a
    factory of tink ``KmsClient`` objects; :func:`register_kms_driver` makes it available.
    """

    @abc.abstractmethod
    def get_key_url_prefix(self) -> str:
        """The start of the key URLs this driver serves."""
        raise NotImplementedError()

    @abc.abstractmethod
    def new_kms_client(self, conf: Dict[str, Any], key_url: str) -> Any:
        """A tink ``KmsClient`` for ``key_url``, configured by ``conf`` (the rule's parameters
        and the KEK's KMS properties)."""
        raise NotImplementedError()


class _PrefixDriver(KmsDriver):
    """A driver of the key URLs starting with its ``prefix`` (its module says which settings
    its clients read); ``register()`` adds one to the registry of drivers, as confluent-kafka's
    drivers do."""

    prefix = ""

    def get_key_url_prefix(self) -> str:
        return self.prefix

    def new_kms_client(self, conf: Dict[str, Any], key_url: Optional[str]) -> "KmsClient":
        """A KMS client for ``key_url`` (any key under the driver's prefix when None),
        configured by ``conf``: the rule's parameters and the KEK's KMS properties (the
        driver's module lists the settings it reads)."""
        return self._client(conf, key_url or self.prefix)

    @abc.abstractmethod
    def _client(self, conf: Dict[str, Any], key_url: str) -> "KmsClient":
        """:meth:`new_kms_client` with the key URL defaulted."""

    @classmethod
    def register(cls) -> None:
        """Add an instance of this driver to the registry of drivers."""
        register_kms_driver(cls())


_drivers: List[KmsDriver] = []
_drivers_lock = threading.Lock()


def register_kms_driver(driver: KmsDriver) -> None:
    """Add ``driver`` to the process-wide list (the first one serving a URL is used)."""
    with _drivers_lock:
        _drivers.append(driver)


def get_kms_driver(key_url: str) -> KmsDriver:
    """The first registered driver whose prefix ``key_url`` starts with; RuleError if none."""
    with _drivers_lock:
        for driver in _drivers:
            if key_url.startswith(driver.get_key_url_prefix()):
                return driver
    raise RuleError("no KMS driver found for key URL: " + key_url)


def reset_kms_drivers() -> None:
    """Forget every registered driver (for tests)."""
    with _drivers_lock:
        _drivers.clear()
