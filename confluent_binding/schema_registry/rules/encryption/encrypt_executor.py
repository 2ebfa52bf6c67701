"""``ENCRYPT`` (tagged fields) and ``ENCRYPT_PAYLOAD`` (the whole encoded record) rules.

A rule names a KEK (``encrypt.kek.name``); on the first write the KEK is registered in the DEK
Registry with its KMS (``encrypt.kms.type``, ``encrypt.kms.key.id``). Each subject has a DEK
(``encrypt.dek.algorithm``: ``AES256_GCM`` by default, ``AES128_GCM``, or the deterministic
``AES256_SIV``), made here and stored wrapped by the KEK through the KMS driver, or, for a
``shared`` KEK, made and unwrapped by the registry. With ``encrypt.dek.expiry.days`` a DEK older
than that is replaced by a new version on write, and each ciphertext starts with the version of
its DEK (a zero byte, then the version as 4 big-endian bytes). String fields hold the ciphertext
in base64, bytes fields as is. The parameters come from the rule, else the schema's metadata.

Ciphertext, key formats and the DEK Registry's records are confluent-kafka's, so either client
reads what the other wrote. Needs Google's Tink (``pip install confluent-binding[encryption]``).
"""

import base64
import io
import logging
import os
import threading
import time
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar, cast

try:
    from tink import KmsClient, TinkError, aead, daead
    from tink.core import Registry as _TinkRegistry
    from tink.proto import aes_gcm_pb2, aes_siv_pb2, tink_pb2
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError("field-level encryption needs Google's Tink: pip install "
                      "confluent-binding[encryption] (or the tink package)") from e

from ..._rest import WouldBlock, may_block
from ..._rules import (
    FieldContext,
    FieldRuleExecutor,
    FieldTransform,
    FieldType,
    RuleContext,
    RuleError,
    RuleExecutor,
)
from ..._types import RuleMode
from ...error import SchemaRegistryError
from ...rule_registry import RuleRegistry
from .dek_registry.dek_registry_client import (
    Dek,
    DekAlgorithm,
    DekId,
    DekRegistryClient,
    Kek,
    KekId,
)
from .kms_driver_registry import KmsDriver, get_kms_driver

__all__ = [
    "AeadWrapper", "Clock", "Cryptor", "Dek", "DekAlgorithm", "DekId", "DekRegistryClient",
    "ENCRYPT_ALTERNATE_KMS_KEY_IDS", "ENCRYPT_DEK_ALGORITHM", "ENCRYPT_DEK_EXPIRY_DAYS",
    "ENCRYPT_KEK_NAME", "ENCRYPT_KMS_KEY_ID", "ENCRYPT_KMS_TYPE", "EncryptionExecutor",
    "EncryptionExecutorTransform", "FieldContext", "FieldEncryptionExecutor",
    "FieldEncryptionExecutorTransform", "FieldRuleExecutor", "FieldTransform", "FieldType",
    "Kek", "KekId", "KmsClient", "KmsDriver", "MILLIS_IN_DAY", "RuleContext", "RuleError",
    "RuleExecutor", "RuleMode", "RuleRegistry", "SchemaRegistryError", "TinkError",
    "get_kms_driver", "log",
]

log: logging.Logger = logging.getLogger(__name__)

ENCRYPT_KEK_NAME = "encrypt.kek.name"
ENCRYPT_KMS_KEY_ID = "encrypt.kms.key.id"
ENCRYPT_KMS_TYPE = "encrypt.kms.type"
ENCRYPT_DEK_ALGORITHM = "encrypt.dek.algorithm"
ENCRYPT_DEK_EXPIRY_DAYS = "encrypt.dek.expiry.days"
ENCRYPT_ALTERNATE_KMS_KEY_IDS = "encrypt.alternate.kms.key.ids"

MILLIS_IN_DAY = 24 * 60 * 60 * 1000

_VERSION_MARK = 0  # the first byte of a versioned ciphertext (the framing's magic byte)
_VERSION_PREFIX_LEN = 5


def _context_for(subject: Optional[str]) -> Optional[str]:
    """The registry context of a qualified subject (``:.ctx:subject`` -> ``.ctx``); None for
    an unqualified subject or the default context ``.``."""
    if subject is None or not subject.startswith(":."):
        return None
    end = subject.find(":", 2)
    context = subject[1:end] if end >= 0 else subject[1:]
    return None if context == "." else context


class Clock:
    """Milliseconds since the epoch (DEK ages are measured with it; tests pass their own)."""

    def now(self) -> int:
        """The current time in milliseconds since the epoch."""
        return int(round(time.time() * 1000))


# -- the data cipher ---------------------------------------------------------------------------

_GCM_URL = "type.googleapis.com/google.crypto.tink.AesGcmKey"
_SIV_URL = "type.googleapis.com/google.crypto.tink.AesSivKey"
#: algorithm -> (Tink key type, key bytes)
_FORMATS = {
    DekAlgorithm.AES128_GCM: (_GCM_URL, 16),
    DekAlgorithm.AES256_GCM: (_GCM_URL, 32),
    DekAlgorithm.AES256_SIV: (_SIV_URL, 64),
}


def _raw_primitive(type_url: str, serialized_key: bytes, primitive_class: Any) -> Any:
    """The Tink primitive of one serialized key, unwrapped: the ciphertext is the cipher's
    alone (no key-id prefix) and its failures are the cipher's own."""
    key_data = tink_pb2.KeyData(type_url=type_url, value=serialized_key,
                                key_material_type=tink_pb2.KeyData.SYMMETRIC)
    return _TINK_REGISTRY.primitive(key_data, primitive_class)


aead.register()
daead.register()
_TINK_REGISTRY = _TinkRegistry()


class Cryptor:
    """Encrypts and decrypts with a DEK's key material: a serialized Tink ``AesGcmKey`` (AEAD,
    a random nonce per call) or ``AesSivKey`` (deterministic: equal plaintexts give equal
    ciphertexts)."""

    EMPTY_AAD = b""

    def __init__(self, dek_format: DekAlgorithm):
        if dek_format not in _FORMATS:
            raise RuleError("invalid dek algorithm")
        self.dek_format = dek_format
        self.is_deterministic: bool = dek_format == DekAlgorithm.AES256_SIV
        self._type_url, self._key_size = _FORMATS[dek_format]
        self._primitives: Dict[bytes, Any] = {}
        self._lock = threading.Lock()

    def generate_key(self) -> bytes:
        """New random key material for this algorithm, as a serialized Tink key
        (``AesGcmKey`` or ``AesSivKey``).
        """
        secret = os.urandom(self._key_size)
        if self.is_deterministic:
            return aes_siv_pb2.AesSivKey(version=0, key_value=secret).SerializeToString()
        return aes_gcm_pb2.AesGcmKey(version=0, key_value=secret).SerializeToString()

    def _primitive(self, dek: bytes) -> Any:
        with self._lock:
            found = self._primitives.get(dek)
        if found is None:
            try:
                found = _raw_primitive(self._type_url, dek, daead.DeterministicAead
                                       if self.is_deterministic else aead.Aead)
            except TinkError as e:
                raise RuleError("invalid key material for {}: {}".format(self.dek_format, e))
            with self._lock:
                if len(self._primitives) > 1000:
                    self._primitives.clear()
                self._primitives[dek] = found
        return found

    def encrypt(self, dek: bytes, plaintext: bytes, associated_data: bytes) -> bytes:
        """``plaintext`` encrypted with the key material ``dek`` (a serialized Tink key).

        Raises:
            RuleError: ``dek`` is not valid key material for the algorithm.
        """
        primitive = self._primitive(dek)
        if self.is_deterministic:
            return primitive.encrypt_deterministically(plaintext, associated_data)
        return primitive.encrypt(plaintext, associated_data)

    def decrypt(self, dek: bytes, ciphertext: bytes, associated_data: bytes) -> bytes:
        """``ciphertext`` decrypted with the key material ``dek``.

        Raises:
            RuleError: ``dek`` is not valid key material.
            tink.TinkError: the ciphertext does not decrypt (wrong key, altered data).
        """
        primitive = self._primitive(dek)
        if self.is_deterministic:
            return primitive.decrypt_deterministically(ciphertext, associated_data)
        return primitive.decrypt(ciphertext, associated_data)


# -- wrapping DEKs with the KEK through a KMS --------------------------------------------------

_kms_clients: Dict[Tuple[str, Tuple[Tuple[str, str], ...]], KmsClient] = {}
_kms_clients_lock = threading.Lock()


def _kms_client(driver: KmsDriver, config: Dict[str, Any], kek_url: str) -> KmsClient:
    """The KMS client for ``kek_url`` with ``config`` (made once per distinct pair)."""
    key = (kek_url, tuple(sorted((str(k), repr(v)) for k, v in config.items())))
    with _kms_clients_lock:
        client = _kms_clients.get(key)
    if client is None:
        client = driver.new_kms_client(config, kek_url)
        with _kms_clients_lock:
            client = _kms_clients.setdefault(key, client)
    return client


class AeadWrapper(aead.Aead):
    """Wraps and unwraps DEKs with a KEK: its KMS key, then each of its alternate keys
    (``encrypt.alternate.kms.key.ids``, comma-separated) until one works."""

    def __init__(self, config: Dict[str, Any], kek: Kek):
        self._config = config
        self._kek = kek
        self._kms_key_ids = self._get_kms_key_ids()

    def encrypt(self, plaintext: bytes, associated_data: bytes) -> bytes:
        """Wrap ``plaintext`` (a DEK's key material) with the KEK's KMS key, falling back to
        each alternate key in turn.

        Raises:
            RuleError: every key failed.
        """
        return self._each_key("encrypt", plaintext, associated_data)

    def decrypt(self, ciphertext: bytes, associated_data: bytes) -> bytes:
        """Unwrap ``ciphertext`` with the KEK's KMS key or, failing that, each alternate key.

        Raises:
            RuleError: every key failed.
        """
        return self._each_key("decrypt", ciphertext, associated_data)

    def _each_key(self, operation: str, data: bytes, associated_data: bytes) -> bytes:
        last = len(self._kms_key_ids) - 1
        for index, kms_key_id in enumerate(self._kms_key_ids):
            try:
                if self._kek.kms_type is None:
                    raise RuleError("no kms type found for kek")
                primitive = self._get_aead(self._config, self._kek.kms_type, kms_key_id)
                return getattr(primitive, operation)(data, associated_data)
            except Exception as e:
                log.warning("failed to %s with kek %s and kms key id %s", operation,
                            self._kek.name, kms_key_id)
                if index == last:
                    raise RuleError("failed to {} with all KEKs for {}".format(
                        operation, self._kek.name)) from e
        raise RuleError("No KEK found for {}".format(
            "encryption" if operation == "encrypt" else "decryption"))

    def _get_kms_key_ids(self) -> List[str]:
        ids = [] if self._kek.kms_key_id is None else [self._kek.kms_key_id]
        alternates = None
        if self._kek.kms_props is not None:
            alternates = self._kek.kms_props.properties.get(ENCRYPT_ALTERNATE_KMS_KEY_IDS)
        if alternates is None:
            alternates = self._config.get(ENCRYPT_ALTERNATE_KMS_KEY_IDS)
        if alternates is not None:
            ids += [i.strip() for i in alternates.split(",") if i.strip()]
        return ids

    def _get_aead(self, config: Dict[str, Any], kms_type: str, kms_key_id: str) -> aead.Aead:
        kek_url = kms_type + "://" + kms_key_id
        merged = dict(config)
        if self._kek.kms_props is not None:
            merged.update(self._kek.kms_props.properties)
        driver = get_kms_driver(kek_url)
        if not may_block() and kms_type != "local-kms":
            raise WouldBlock()  # a KMS's answer is a request: an asyncio serde waits off-loop
        return _kms_client(driver, merged, kek_url).get_aead(kek_url)


# -- the executors -----------------------------------------------------------------------------


_R = TypeVar("_R", bound="_Registered")


class _Registered:
    """``register()``/``register_with_clock(clock)``: a new executor in the global registry."""

    @classmethod
    def register(cls) -> None:
        """Register a new executor with the global :class:`RuleRegistry`."""
        RuleRegistry.register_rule_executor(cast(RuleExecutor, cls()))

    @classmethod
    def register_with_clock(cls: Type[_R], clock: Clock) -> _R:
        """Register a new executor reading time from ``clock`` and return it."""
        executor = cls(clock)  # type: ignore[call-arg]  # (each executor's __init__ takes it)
        RuleRegistry.register_rule_executor(cast(RuleExecutor, executor))
        return executor


class EncryptionExecutor(_Registered, RuleExecutor):
    """``ENCRYPT_PAYLOAD``: encrypts a serializer's whole encoded record (an ENCODING rule)."""

    def __init__(self, clock: Clock = Clock()) -> None:
        self.client: Optional[DekRegistryClient] = None
        self.config: Optional[Dict[str, Any]] = None
        self.clock: Clock = clock
        self._lock = threading.Lock()

    def configure(self, client_conf: Dict[str, Any], rule_conf: Dict[str, Any]) -> None:
        """Take the Schema Registry client's configuration (to reach the DEK Registry) and the
        rule configuration (``encrypt.*`` settings, KMS credentials) of the serde that uses it.

        Raises:
            RuleError: the executor is already configured with a different client configuration or
                a different value for a rule configuration key.
        """
        with self._lock:
            if client_conf:
                if self.client is None:
                    self.client = DekRegistryClient.new_client(client_conf)
                elif self.client.config() != client_conf:
                    raise RuleError("executor already configured")
            if self.config is None:
                self.config = dict(rule_conf) if rule_conf else {}
            else:
                for key, value in (rule_conf or {}).items():
                    current = self.config.get(key)
                    if current is None:
                        self.config[key] = value
                    elif current != value:
                        raise RuleError("rule config key already set: {}".format(key))

    def type(self) -> str:
        """The rule type: ``"ENCRYPT_PAYLOAD"``."""
        return "ENCRYPT_PAYLOAD"

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        """Encrypt (WRITE) or decrypt (READ) the whole encoded record ``message`` (bytes)."""
        return self.new_transform(ctx).transform(ctx, FieldType.BYTES, message)

    def new_transform(self, ctx: RuleContext) -> "EncryptionExecutorTransform":
        """The transform for one rule run: the rule's cipher (``encrypt.dek.algorithm``),
        KEK (``encrypt.kek.name``) and DEK expiry (``encrypt.dek.expiry.days``).

        Raises:
            RuleError: no or an empty KEK name, or an invalid expiry.
        """
        return EncryptionExecutorTransform(self, self._get_cryptor(ctx), self._get_kek_name(ctx),
                                           self._get_dek_expiry_days(ctx))

    def close(self) -> None:
        """Close the DEK Registry client."""
        if self.client is not None:
            self.client.__exit__()

    def _get_cryptor(self, ctx: RuleContext) -> Cryptor:
        name = ctx.get_parameter(ENCRYPT_DEK_ALGORITHM)
        if name is None:
            return Cryptor(DekAlgorithm.AES256_GCM)
        return Cryptor(DekAlgorithm[name])  # an unknown name: KeyError, as confluent-kafka

    def _get_kek_name(self, ctx: RuleContext) -> str:
        name = ctx.get_parameter(ENCRYPT_KEK_NAME)
        if name is None:
            raise RuleError("no kek name found")
        if name == "":
            raise RuleError("empty kek name")
        return name

    def _get_dek_expiry_days(self, ctx: RuleContext) -> int:
        value = ctx.get_parameter(ENCRYPT_DEK_EXPIRY_DAYS)
        if value is None:
            return 0
        try:
            days = int(value)
        except ValueError:
            raise RuleError("invalid expiry days")
        if days < 0:
            raise RuleError("negative expiry days")
        return days


def _registry_error(e: Exception, status: int) -> bool:
    return isinstance(e, SchemaRegistryError) and e.http_status_code == status


class EncryptionExecutorTransform:
    """One rule's encryption on one record: its cipher, KEK and DEK look-ups."""

    def __init__(self, executor: EncryptionExecutor, cryptor: Cryptor, kek_name: str,
                 dek_expiry_days: int):
        self._executor = executor
        self._cryptor = cryptor
        self._kek_name = kek_name
        self._kek: Optional[Kek] = None
        self._dek_expiry_days = dek_expiry_days

    def _is_dek_rotated(self) -> bool:
        return self._dek_expiry_days > 0

    def _client(self) -> DekRegistryClient:
        if self._executor.client is None:
            raise RuleError("client not configured")
        return self._executor.client

    # -- KEK --

    def _get_kek(self, ctx: RuleContext) -> Kek:
        if self._kek is None:
            self._kek = self._get_or_create_kek(ctx)
        return self._kek

    def _get_or_create_kek(self, ctx: RuleContext) -> Kek:
        reading = ctx.rule_mode == RuleMode.READ
        kms_type = ctx.get_parameter(ENCRYPT_KMS_TYPE)
        kms_key_id = ctx.get_parameter(ENCRYPT_KMS_KEY_ID)
        kek_id = KekId(self._kek_name, False, _context_for(ctx.subject))
        kek = self._retrieve_kek_from_registry(kek_id)
        if kek is None:
            during = "consume" if reading else "produce"
            if reading:
                raise RuleError("no kek found for {} during {}".format(self._kek_name, during))
            if not kms_type:
                raise RuleError("no kms type found for {} during {}".format(self._kek_name,
                                                                           during))
            if not kms_key_id:
                raise RuleError("no kms key id found for {} during {}".format(self._kek_name,
                                                                             during))
            kek = self._store_kek_to_registry(kek_id, kms_type, kms_key_id, False)
            if kek is None:  # registered meanwhile by another client (409)
                kek = self._retrieve_kek_from_registry(kek_id)
            if kek is None:
                raise RuleError("no kek found for {} during {}".format(self._kek_name, during))
        if kms_type and kek.kms_type != kms_type:
            raise RuleError("found {} with kms type {} which differs from rule kms type {}"
                            .format(self._kek_name, kek.kms_type, kms_type))
        if kms_key_id and kek.kms_key_id != kms_key_id:
            raise RuleError("found {} with kms key id {} which differs from rule kms key id {}"
                            .format(self._kek_name, kek.kms_key_id, kms_key_id))
        return kek

    def _retrieve_kek_from_registry(self, kek_id: KekId) -> Optional[Kek]:
        client = self._client()
        try:
            return client.get_kek(kek_id.name, kek_id.deleted, kek_id.context)
        except Exception as e:
            if _registry_error(e, 404):
                return None
            raise RuleError("could not get kek {}".format(kek_id.name)) from e

    def _store_kek_to_registry(self, kek_id: KekId, kms_type: str, kms_key_id: str,
                               shared: bool) -> Optional[Kek]:
        client = self._client()
        try:
            return client.register_kek(kek_id.name, kms_type, kms_key_id, shared,
                                       context=kek_id.context)
        except Exception as e:
            if _registry_error(e, 409):
                return None
            raise RuleError("could not register kek {}".format(kek_id.name)) from e

    # -- DEK --

    def _get_or_create_dek(self, ctx: RuleContext, version: Optional[int]) -> Dek:
        kek = self._get_kek(ctx)
        if kek.name is None:
            raise RuleError("no name found for kek")
        reading = ctx.rule_mode == RuleMode.READ
        dek_id = DekId(kek.name, ctx.subject, version or 1, self._cryptor.dek_format, reading)
        dek = self._retrieve_dek_from_registry(dek_id)
        expired = self._is_expired(ctx, dek)
        wrapper = None
        if dek is None or expired:
            if reading:
                raise RuleError("no dek found for {} during consume".format(dek_id.kek_name))
            encrypted = None
            if not kek.shared:  # a shared KEK's registry makes the key itself
                wrapper = AeadWrapper(self._executor.config or {}, kek)
                encrypted = wrapper.encrypt(self._cryptor.generate_key(), Cryptor.EMPTY_AAD)
            new_version = 1
            if dek is not None and expired and dek.version is not None:
                new_version = dek.version + 1
            try:
                dek = self._create_dek(dek_id, new_version, encrypted)
            except RuleError:
                if dek is None:
                    raise
                log.warning("failed to create dek for %s, subject %s, version %d, using "
                            "existing dek", kek.name, ctx.subject, new_version)
        if dek.get_key_material_bytes() is None:
            if wrapper is None:
                wrapper = AeadWrapper(self._executor.config or {}, kek)
            encrypted_material = dek.get_encrypted_key_material_bytes()
            if encrypted_material is None:
                raise RuleError("no encrypted key material found for dek")
            raw = wrapper.decrypt(encrypted_material, Cryptor.EMPTY_AAD)
            dek.set_key_material(raw)
        return dek

    def _create_dek(self, dek_id: DekId, new_version: int, encrypted: Optional[bytes]) -> Dek:
        new_id = DekId(dek_id.kek_name, dek_id.subject, new_version, dek_id.algorithm,
                       dek_id.deleted)
        dek = self._store_dek_to_registry(new_id, encrypted)
        if dek is None:  # registered meanwhile by another client (409)
            dek = self._retrieve_dek_from_registry(dek_id)
        if dek is None:
            raise RuleError("no dek found for {} during produce".format(dek_id.kek_name))
        return dek

    def _retrieve_dek_from_registry(self, key: DekId) -> Optional[Dek]:
        try:
            dek = self._client().get_dek(key.kek_name, key.subject, key.algorithm,
                                         key.version or 1, key.deleted)
        except Exception as e:
            if _registry_error(e, 404):
                return None
            raise RuleError("could not get dek for kek {}, subject {}".format(
                key.kek_name, key.subject)) from e
        return dek if dek is not None and dek.encrypted_key_material else None

    def _store_dek_to_registry(self, key: DekId, encrypted: Optional[bytes]) -> Optional[Dek]:
        material = base64.b64encode(encrypted).decode("ascii") if encrypted else None
        try:
            return self._client().register_dek(key.kek_name, key.subject, material,
                                               key.algorithm, key.version)
        except Exception as e:
            if _registry_error(e, 409):
                return None
            raise RuleError("could not register dek for kek {}, subject {}".format(
                key.kek_name, key.subject)) from e

    def _is_expired(self, ctx: RuleContext, dek: Optional[Dek]) -> bool:
        if ctx.rule_mode == RuleMode.READ or self._dek_expiry_days <= 0 or dek is None:
            return False
        age_days = (self._executor.clock.now() - (dek.ts or 0)) / MILLIS_IN_DAY
        return age_days > self._dek_expiry_days

    # -- values --

    def transform(self, ctx: RuleContext, field_type: FieldType, field_value: Any) -> Any:
        """Encrypt (WRITE mode) or decrypt (READ mode) one value of ``field_type`` (STRING or
        BYTES). On WRITE it finds or creates the subject's DEK (a new version when the DEK has
        expired), encrypts, and prefixes the DEK version when DEKs rotate; a STRING becomes the
        base64 of its ciphertext. On READ it reverses that. None stays None.

        Raises:
            RuleError: an unsupported type or mode, a missing KEK or DEK, a KMS failure.
        """
        if field_value is None:
            return None
        if ctx.rule_mode == RuleMode.WRITE:
            plaintext = self._to_bytes(field_type, field_value)
            if plaintext is None:
                raise RuleError("type {} not supported for encryption".format(field_type))
            dek = self._get_or_create_dek(ctx, -1 if self._is_dek_rotated() else None)
            key = dek.get_key_material_bytes()
            if key is None:
                raise RuleError("no key material bytes found for dek")
            ciphertext = self._cryptor.encrypt(key, plaintext, Cryptor.EMPTY_AAD)
            if self._is_dek_rotated():
                if dek.version is None:
                    raise RuleError("no version found for dek")
                ciphertext = self._prefix_version(dek.version, ciphertext)
            if field_type == FieldType.STRING:
                return base64.b64encode(ciphertext).decode("ascii")
            return self._to_object(field_type, ciphertext)
        if ctx.rule_mode == RuleMode.READ:
            received: Optional[bytes] = (base64.b64decode(field_value)
                                         if field_type == FieldType.STRING
                                         else self._to_bytes(field_type, field_value))
            if received is None:
                return field_value
            ciphertext = received
            version = None
            if self._is_dek_rotated():
                version, ciphertext = self._extract_version(ciphertext)
                if version is None:
                    raise RuleError("no version found in ciphertext")
            dek = self._get_or_create_dek(ctx, version)
            key = dek.get_key_material_bytes()
            if key is None:
                raise RuleError("no key material bytes found for dek")
            return self._to_object(field_type, self._cryptor.decrypt(key, ciphertext,
                                                                     Cryptor.EMPTY_AAD))
        raise RuleError("unsupported rule mode {}".format(ctx.rule_mode))

    @staticmethod
    def _prefix_version(version: int, ciphertext: bytes) -> bytes:
        return bytes((_VERSION_MARK,)) + version.to_bytes(4, "big") + ciphertext

    @staticmethod
    def _extract_version(ciphertext: bytes) -> Tuple[Optional[int], bytes]:
        if len(ciphertext) < _VERSION_PREFIX_LEN:
            return None, ciphertext
        return (int.from_bytes(ciphertext[1:_VERSION_PREFIX_LEN], "big"),
                ciphertext[_VERSION_PREFIX_LEN:])

    @staticmethod
    def _to_bytes(field_type: FieldType, value: Any) -> Optional[bytes]:
        if field_type == FieldType.STRING:
            return value.encode("utf-8")
        if field_type == FieldType.BYTES:
            if isinstance(value, io.BytesIO):
                return value.read()
            return bytes(value)
        return None

    @staticmethod
    def _to_object(field_type: FieldType, value: bytes) -> Any:
        if field_type == FieldType.STRING:
            return value.decode("utf-8")
        if field_type == FieldType.BYTES:
            return value
        return None


class FieldEncryptionExecutor(_Registered, FieldRuleExecutor):
    """``ENCRYPT``: encrypts the string and bytes fields the rule's tags select."""

    def __init__(self, clock: Clock = Clock()) -> None:
        self.executor: EncryptionExecutor = EncryptionExecutor(clock)

    def configure(self, client_conf: Dict[str, Any], rule_conf: Dict[str, Any]) -> None:
        """As :meth:`EncryptionExecutor.configure`."""
        self.executor.configure(client_conf, rule_conf)

    def type(self) -> str:
        """The rule type: ``"ENCRYPT"``."""
        return "ENCRYPT"

    def new_transform(self, ctx: RuleContext) -> FieldTransform:
        """The per-field transform of one rule run: each selected field encrypted or
        decrypted as :meth:`EncryptionExecutorTransform.transform` does.
        """
        return FieldEncryptionExecutorTransform(self.executor.new_transform(ctx)).transform

    def close(self) -> None:
        """Close the DEK Registry client."""
        self.executor.close()


class FieldEncryptionExecutorTransform:
    """An :class:`EncryptionExecutorTransform` applied field by field (``ENCRYPT`` rules)."""

    def __init__(self, executor_transform: EncryptionExecutorTransform):
        self.executor_transform = executor_transform

    def transform(self, ctx: RuleContext, field_ctx: FieldContext, field_value: Any) -> Any:
        """Encrypt or decrypt the field's value according to its type (``field_ctx.field_type``)."""
        return self.executor_transform.transform(ctx, field_ctx.field_type, field_value)
