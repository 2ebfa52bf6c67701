"""A client of the DEK Registry: the Schema Registry's store of key-encryption keys (KEKs, held
in a KMS and only named here) and the data-encryption keys (DEKs) they wrap.

Paths, JSON fields and caching are confluent-kafka's: ``/dek-registry/v1/keks`` and
``/dek-registry/v1/keks/{kek}/deks/{subject}[/versions/{version}]``; KEKs and DEKs are cached by
their id once fetched or registered (version ``-1`` asks for the latest DEK and is cached too,
until a DEK of that subject is registered). Requests go through the Schema Registry client's
HTTP transport, with the same configuration keys.
"""

from __future__ import annotations

import base64
import threading
import urllib.parse
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Dict, List, Optional, Tuple, Type, TypeVar

from ...._rest import RestClient, urlencode

__all__ = [
    "CreateDekRequest",
    "CreateKekRequest",
    "Dek",
    "DekAlgorithm",
    "DekId",
    "DekRegistryClient",
    "Kek",
    "KekId",
    "KekKmsProps",
]

_KEKS = "dek-registry/v1/keks"


def _kek_segment(name: str) -> str:
    """A KEK's name in a DEK's path (confluent-kafka leaves ``/`` unescaped there)."""
    return urllib.parse.quote(name)


@dataclass
class KekKmsProps:
    """A KEK's KMS properties (credentials and such), by name."""

    properties: Dict[str, str] = field(init=False, default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        """The properties as a plain dict (the registry's JSON)."""
        return dict(self.properties)

    @classmethod
    def from_dict(cls, src_dict: Dict[str, Any]) -> "KekKmsProps":
        """KMS properties from the registry's JSON (a dict of strings)."""
        props = cls()
        props.properties = dict(src_dict)
        return props


_J = TypeVar("_J", bound="_Json")


class _Json:
    """``to_dict``/``from_dict`` in the registry's JSON: ``_json`` pairs each attribute with
    its key; absent (None) values are left out."""

    _json: Tuple[Tuple[str, str], ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {}
        for attr, key in self._json:
            value = getattr(self, attr)
            if isinstance(value, KekKmsProps):
                value = value.to_dict()
            elif isinstance(value, Enum):
                value = str(value)
            if value is not None:
                d[key] = value
        return d

    @classmethod
    def from_dict(cls: Type[_J], src_dict: Dict[str, Any]) -> _J:
        """The value from the registry's JSON object (camelCase keys)."""
        values: Dict[str, Any] = {attr: src_dict.get(key) for attr, key in cls._json}
        if values.get("kms_props") is not None:
            values["kms_props"] = KekKmsProps.from_dict(values["kms_props"])
        if values.get("algorithm") is not None:
            values["algorithm"] = DekAlgorithm(values["algorithm"])
        return cls(**values)


_KEK_JSON: Tuple[Tuple[str, str], ...] = (
    ("name", "name"), ("kms_type", "kmsType"), ("kms_key_id", "kmsKeyId"),
    ("kms_props", "kmsProps"), ("doc", "doc"), ("shared", "shared"))
_DEK_JSON = (("subject", "subject"), ("version", "version"), ("algorithm", "algorithm"),
             ("encrypted_key_material", "encryptedKeyMaterial"))


@dataclass
class _KekFields(_Json):
    """What a KEK is registered with (its name, KMS type and key id, KMS properties, doc,
    whether it is shared), in that order: the first fields of :class:`Kek` and
    :class:`CreateKekRequest`."""

    name: Optional[str]
    kms_type: Optional[str]
    kms_key_id: Optional[str]
    kms_props: Optional[KekKmsProps]
    doc: Optional[str]
    shared: Optional[bool]

    _json = _KEK_JSON


@dataclass
class Kek(_KekFields):
    """A key-encryption key: ``kms_key_id`` names it in the KMS of ``kms_type``; a ``shared``
    KEK lets the registry itself create and unwrap its DEKs."""

    ts: Optional[int] = None
    deleted: Optional[bool] = None

    _json = _KEK_JSON + (("ts", "ts"), ("deleted", "deleted"))


@dataclass
class CreateKekRequest(_KekFields):
    """The body of a KEK registration (``POST /dek-registry/v1/keks``): the KEK's name, KMS
    type and key id, KMS properties, doc and whether it is shared with the registry.
    """


class DekAlgorithm(str, Enum):
    """The cipher of a DEK: AES-GCM (random nonce) or AES-SIV (deterministic)."""

    AES128_GCM = "AES128_GCM"
    AES256_GCM = "AES256_GCM"
    AES256_SIV = "AES256_SIV"

    def __str__(self) -> str:
        return str(self.value)


@dataclass
class Dek(_Json):
    """A data-encryption key of ``subject``: its key material wrapped by the KEK
    (``encrypted_key_material``, base64) and, once unwrapped here or by a shared KEK's
    registry, in the clear (``key_material``, base64)."""

    kek_name: Optional[str]
    subject: Optional[str]
    version: Optional[int]
    algorithm: Optional[DekAlgorithm]
    encrypted_key_material: Optional[str]
    encrypted_key_material_bytes: Optional[bytes] = field(init=False, default=None,
                                                          compare=False, repr=False)
    key_material: Optional[str] = None
    key_material_bytes: Optional[bytes] = field(init=False, default=None, compare=False,
                                                repr=False)
    ts: Optional[int] = None
    deleted: Optional[bool] = None
    _lock: Any = field(init=False, default_factory=threading.Lock, compare=False, repr=False)

    def get_encrypted_key_material_bytes(self) -> Optional[bytes]:
        """The wrapped key material, decoded from base64 (cached), or None."""
        if self.encrypted_key_material is None:
            return None
        with self._lock:
            if self.encrypted_key_material_bytes is None:
                self.encrypted_key_material_bytes = base64.b64decode(self.encrypted_key_material)
            return self.encrypted_key_material_bytes

    def get_key_material_bytes(self) -> Optional[bytes]:
        """The key material in the clear, decoded from base64 (cached), or None while the DEK
        is still wrapped.
        """
        with self._lock:
            if self.key_material is None:
                return None
            if self.key_material_bytes is None:
                self.key_material_bytes = base64.b64decode(self.key_material)
            return self.key_material_bytes

    def set_key_material(self, key_material_bytes: Optional[bytes]) -> None:
        """Set the key material in the clear (stored base64-encoded), or None to forget it."""
        with self._lock:
            self.key_material_bytes = None
            self.key_material = (None if key_material_bytes is None
                                 else base64.b64encode(key_material_bytes).decode("ascii"))

    _json = (("kek_name", "kekName"),) + _DEK_JSON + (
        ("key_material", "keyMaterial"), ("ts", "ts"), ("deleted", "deleted"))


@dataclass
class CreateDekRequest(_Json):
    """The body of a DEK registration under a KEK: the subject, version, algorithm and the
    DEK's key material wrapped by the KEK (base64; None for a shared KEK, where the registry
    generates it).
    """

    subject: Optional[str]
    version: Optional[int]
    algorithm: Optional[DekAlgorithm]
    encrypted_key_material: Optional[str]

    _json = _DEK_JSON



@dataclass(frozen=True)
class KekId:
    """The key a KEK is cached under: its name, whether deleted ones count, and the
    Schema Registry context.
    """

    name: str
    deleted: bool
    context: Optional[str] = None


@dataclass(frozen=True)
class DekId:
    """The key a DEK is cached under: KEK name, subject, version, algorithm and whether
    deleted ones count.
    """

    kek_name: str
    subject: str
    version: int
    algorithm: DekAlgorithm
    deleted: bool


class _Cache:
    """Id -> KEK or DEK, shared by threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: Dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        with self._lock:
            return self._entries.get(key)

    def set(self, key: Any, value: Any) -> None:
        with self._lock:
            self._entries[key] = value

    def remove(self, key: Any) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def keys(self) -> List[Any]:
        with self._lock:
            return list(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    # confluent-kafka's cache method names, for code that reaches into a client's caches
    get_kek = get_dek = get
    get_dek_ids = keys


#: The client class :meth:`DekRegistryClient.new_client` returns for a URL prefix other than
#: HTTP(S): the in-memory MockDekRegistryClient (a subclass, defined above this module) adds
#: itself for ``mock://``; the package loads it with this module.
_CLIENTS_BY_URL_PREFIX: Dict[str, Callable[[Dict[str, Any]], "DekRegistryClient"]] = {}


class DekRegistryClient:
    """A client of the DEK Registry at the Schema Registry's ``url``.

    Args:
        conf (dict): the Schema Registry client's configuration (``url``, authentication, TLS,
            retries, ...).
    """

    def __init__(self, conf: Dict[str, Any]):
        self._conf = conf
        self._rest_client = RestClient(conf)
        self._kek_cache = _Cache()
        self._dek_cache = _Cache()

    def __enter__(self) -> "DekRegistryClient":
        return self

    def __exit__(self, *args: Any) -> None:
        self._rest_client.close()

    def config(self) -> Dict[str, Any]:
        """The configuration the client was made with."""
        return self._conf

    def register_kek(self, name: str, kms_type: str, kms_key_id: str, shared: bool = False,
                     kms_props: Optional[Dict[str, str]] = None, doc: Optional[str] = None,
                     context: Optional[str] = None) -> Kek:
        """Register the KEK ``name`` (in ``context``, the default context if None); the
        registry's answer, cached. Raises SchemaRegistryError (409 when it exists otherwise)."""
        key = KekId(name=name, deleted=False, context=context)
        kek = self._kek_cache.get(key)
        if kek is not None:
            return kek
        request = CreateKekRequest(
            name=name, kms_type=kms_type, kms_key_id=kms_key_id,
            kms_props=None if kms_props is None else KekKmsProps.from_dict(kms_props), doc=doc,
            shared=shared)
        query = None if context is None else {"context": context}
        kek = Kek.from_dict(self._rest_client.post(_KEKS, request.to_dict(), query))
        self._kek_cache.set(key, kek)
        return kek

    def get_kek(self, name: str, deleted: bool = False, context: Optional[str] = None) -> Kek:
        """The KEK ``name`` (cached). Raises SchemaRegistryError (404 when there is none)."""
        key = KekId(name=name, deleted=deleted, context=context)
        kek = self._kek_cache.get(key)
        if kek is not None:
            return kek
        query: Dict[str, Any] = {"deleted": deleted}
        if context is not None:
            query["context"] = context
        kek = Kek.from_dict(self._rest_client.get("{}/{}".format(_KEKS, urlencode(name)), query))
        self._kek_cache.set(key, kek)
        return kek

    def register_dek(self, kek_name: str, subject: str,
                     encrypted_key_material: Optional[str],
                     algorithm: DekAlgorithm = DekAlgorithm.AES256_GCM, version: int = 1) -> Dek:
        """Register a DEK of ``subject`` under the KEK ``kek_name`` (``encrypted_key_material``
        None: a shared KEK's registry makes the key); the registry's answer, cached."""
        key = DekId(kek_name=kek_name, subject=subject, version=version, algorithm=algorithm,
                    deleted=False)
        dek = self._dek_cache.get(key)
        if dek is not None:
            return dek
        if subject is None:
            raise TypeError("Subject cannot be None")
        request = CreateDekRequest(subject=subject, version=version, algorithm=algorithm,
                                   encrypted_key_material=encrypted_key_material)
        deks = "{}/{}/deks".format(_KEKS, _kek_segment(kek_name))
        from ....error import SchemaRegistryError

        try:
            answer = self._rest_client.post("{}/{}".format(deks, urlencode(subject)),
                                            request.to_dict())
        except SchemaRegistryError as e:
            if e.http_status_code != 405:
                raise
            # a registry that predates the subject in the path
            answer = self._rest_client.post(deks, request.to_dict())
        dek = Dek.from_dict(answer)
        self._dek_cache.set(key, dek)
        # the latest version may have changed (also when another client registered it)
        for deleted in (False, True):
            self._dek_cache.remove(DekId(kek_name=kek_name, subject=subject, version=-1,
                                         algorithm=algorithm, deleted=deleted))
        return dek

    def get_dek(self, kek_name: str, subject: str,
                algorithm: DekAlgorithm = DekAlgorithm.AES256_GCM, version: int = 1,
                deleted: bool = False) -> Dek:
        """The DEK ``version`` (-1: the latest) of ``subject`` under ``kek_name`` (cached).
        Raises SchemaRegistryError (404 when there is none)."""
        key = DekId(kek_name=kek_name, subject=subject, version=version, algorithm=algorithm,
                    deleted=deleted)
        dek = self._dek_cache.get(key)
        if dek is not None:
            return dek
        path = "{}/{}/deks/{}/versions/{}".format(_KEKS, _kek_segment(kek_name), urlencode(subject),
                                                  version)
        dek = Dek.from_dict(self._rest_client.get(path, {"algorithm": str(algorithm),
                                                         "deleted": deleted}))
        self._dek_cache.set(key, dek)
        return dek

    @staticmethod
    def new_client(conf: Dict[str, Any]) -> "DekRegistryClient":
        """A client for ``conf``: the in-memory MockDekRegistryClient for a ``mock://`` URL (or
        no URL at all), else a DekRegistryClient."""
        url = conf.get("url")
        if url is None:
            return _CLIENTS_BY_URL_PREFIX["mock://"]({"url": "mock://"})
        for prefix, client_class in _CLIENTS_BY_URL_PREFIX.items():
            if url.startswith(prefix):
                return client_class(conf)
        return DekRegistryClient(conf)
