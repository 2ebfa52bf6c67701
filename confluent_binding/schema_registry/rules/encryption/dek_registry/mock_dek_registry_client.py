"""An in-memory DEK Registry for tests: what a registry would keep, kept in the client's
caches (no request is sent)."""

import time
from typing import Any, Dict, Optional

from ....error import SchemaRegistryError
from .dek_registry_client import (
    _CLIENTS_BY_URL_PREFIX,
    Dek,
    DekAlgorithm,
    DekId,
    DekRegistryClient,
    Kek,
    KekId,
    KekKmsProps,
)

__all__ = ["Dek", "DekAlgorithm", "DekId", "DekRegistryClient", "Kek", "KekId", "KekKmsProps",
           "MockDekRegistryClient", "SchemaRegistryError"]


def _not_found() -> SchemaRegistryError:
    return SchemaRegistryError(404, 40470, "Key Not Found")


class MockDekRegistryClient(DekRegistryClient):
    """A DEK Registry client whose registry is its own memory: KEKs and DEKs registered
    through it are what it finds (the first registration of an id wins)."""

    def __init__(self, conf: Dict[str, Any]):
        super().__init__(conf)

    def register_kek(self, name: str, kms_type: str, kms_key_id: str, shared: bool = False,
                     kms_props: Optional[Dict[str, str]] = None, doc: Optional[str] = None,
                     context: Optional[str] = None) -> Kek:
        """Keep a KEK in memory and return it (an existing one with the same name and
        context is returned unchanged).
        """
        key = KekId(name=name, deleted=False, context=context)
        kek = self._kek_cache.get(key)
        if kek is None:
            kek = Kek(name=name, kms_type=kms_type, kms_key_id=kms_key_id,
                      kms_props=None if kms_props is None else KekKmsProps.from_dict(kms_props),
                      doc=doc, shared=shared)
            self._kek_cache.set(key, kek)
        return kek

    def get_kek(self, name: str, deleted: bool = False, context: Optional[str] = None) -> Kek:
        """The KEK registered under ``name`` (and ``context``).

        Raises:
            SchemaRegistryError: 404, as the registry answers, when there is none.
        """
        kek = self._kek_cache.get(KekId(name=name, deleted=deleted, context=context))
        if kek is None:
            raise _not_found()
        return kek

    def register_dek(self, kek_name: str, subject: str,
                     encrypted_key_material: Optional[str],
                     algorithm: DekAlgorithm = DekAlgorithm.AES256_GCM, version: int = 1) -> Dek:
        """Keep a DEK in memory and return it (an existing one with the same id is returned
        unchanged).
        """
        key = DekId(kek_name=kek_name, subject=subject, version=version, algorithm=algorithm,
                    deleted=False)
        dek = self._dek_cache.get(key)
        if dek is None:
            dek = Dek(kek_name=kek_name, subject=subject, version=version, algorithm=algorithm,
                      encrypted_key_material=encrypted_key_material,
                      ts=int(round(time.time() * 1000)))
            self._dek_cache.set(key, dek)
        return dek

    def get_dek(self, kek_name: str, subject: str,
                algorithm: DekAlgorithm = DekAlgorithm.AES256_GCM, version: int = 1,
                deleted: bool = False) -> Dek:
        """The DEK of ``kek_name``/``subject``/``algorithm`` at ``version`` (-1: the latest).

        Raises:
            SchemaRegistryError: 404, as the registry answers, when there is none.
        """
        if version == -1:
            versions = [k.version for k in self._dek_cache.keys()
                        if (k.kek_name, k.subject, k.algorithm) == (kek_name, subject, algorithm)]
            if not versions:
                raise _not_found()
            version = max(versions)
        dek = self._dek_cache.get(DekId(kek_name=kek_name, subject=subject, version=version,
                                        algorithm=algorithm, deleted=False))
        if dek is None:
            raise _not_found()
        return dek


# DekRegistryClient.new_client's client for mock:// URLs (and for no URL)
_CLIENTS_BY_URL_PREFIX["mock://"] = MockDekRegistryClient
