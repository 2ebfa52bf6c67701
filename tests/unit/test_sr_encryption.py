"""Field-level encryption in the process (mock registries, the local KMS), next to
confluent-kafka's: key derivation, ciphers, the mock DEK Registry, configuration errors and
rule parameter errors. Through the broker: tests/integration/test_schema_registry_encryption.py.
"""

import hashlib
import json
import os

import pytest

pytest.importorskip("tink")
pytest.importorskip("fastavro")

import confluent_kafka.schema_registry as ck_sr  # noqa: E402
import tink  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import rule_registry as ck_rr  # noqa: E402
from confluent_kafka.schema_registry.rules.encryption import encrypt_executor as ck_ee  # noqa: E402
from confluent_kafka.schema_registry.rules.encryption import (  # noqa: E402
    kms_driver_registry as ck_kms,
)
from confluent_kafka.schema_registry.rules.encryption.dek_registry import (  # noqa: E402
    mock_dek_registry_client as ck_mock,
)
from confluent_kafka.schema_registry.rules.encryption.localkms import (  # noqa: E402
    local_client as ck_local_client,
)
from confluent_kafka.schema_registry.rules.encryption.localkms import (  # noqa: E402
    local_driver as ck_local,
)
from confluent_kafka.serialization import MessageField as CkField  # noqa: E402
from confluent_kafka.serialization import SerializationContext as CkCtx  # noqa: E402
from tink import TinkError  # noqa: E402

import confluent_binding.schema_registry as sr  # noqa: E402
from confluent_binding.schema_registry import avro, rule_registry  # noqa: E402
from confluent_binding.schema_registry.rules.encryption import (  # noqa: E402
    encrypt_executor,
    kms_driver_registry,
)
from confluent_binding.schema_registry.rules.encryption.azurekms.azure_aead import (  # noqa: E402
    AzureKmsAead,
)
from confluent_binding.schema_registry.rules.encryption.dek_registry import (  # noqa: E402
    mock_dek_registry_client,
)
from confluent_binding.schema_registry.rules.encryption.localkms import (  # noqa: E402
    local_client,
    local_driver,
)
from confluent_binding.serialization import MessageField, SerializationContext  # noqa: E402

local_driver.LocalKmsDriver.register()
ck_local.LocalKmsDriver.register()

USER = json.dumps({"type": "record", "name": "User", "namespace": "enc", "fields": [
    {"name": "name", "type": "string", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"}]})


class Side:
    def __init__(self, ours):
        self.ours = ours
        self.sr = sr if ours else ck_sr
        self.avro = avro if ours else ck_avro
        self.rr = rule_registry if ours else ck_rr
        self.ee = encrypt_executor if ours else ck_ee
        self.kms = kms_driver_registry if ours else ck_kms
        self.mock = mock_dek_registry_client if ours else ck_mock
        self.local_client = local_client if ours else ck_local_client
        self.ctx = (lambda: SerializationContext("t", MessageField.VALUE)) if ours else \
            (lambda: CkCtx("t", CkField.VALUE))


OURS, THEIRS = Side(True), Side(False)


@pytest.fixture(autouse=True)
def _fresh_tink_kms_clients():
    """confluent-kafka keeps the first KMS client made for a key URL in Tink's process-wide
    list, whatever secret later rules name: each test starts without one."""
    tink._kms_clients.reset_kms_clients()


def both(scenario):
    ours, theirs = scenario(OURS), scenario(THEIRS)
    assert ours == theirs
    return ours


def outcome(call):
    try:
        return ("ok", call())
    except Exception as e:
        causes, cause = [], e.__cause__
        while cause is not None:
            causes.append((type(cause).__name__, str(cause)))
            cause = cause.__cause__
        return ("error", type(e).__name__, str(e), causes)


@pytest.mark.parametrize("secret", ["mysecret", "", "ünïcødé", "x" * 200])
def test_local_kms_key_is_confluents(secret):
    """HKDF-SHA256 of the secret: a DEK wrapped by either local KMS unwraps with the other."""
    from hkdf import hkdf_expand, hkdf_extract

    expected = hkdf_expand(hkdf_extract(None, secret.encode(), hash=hashlib.sha256), length=16,
                           hash=hashlib.sha256)
    assert local_client._hkdf_sha256(secret.encode(), 16) == expected
    ours = local_client.LocalKmsClient(secret).get_aead("local-kms://k")
    theirs = ck_local_client.LocalKmsClient(secret).get_aead("local-kms://k")
    assert theirs.decrypt(ours.encrypt(b"dek", b""), b"") == b"dek"
    assert ours.decrypt(theirs.encrypt(b"dek", b""), b"") == b"dek"
    other = local_client.LocalKmsClient(secret + "!").get_aead("local-kms://k")
    with pytest.raises(TinkError):
        other.decrypt(ours.encrypt(b"dek", b""), b"")


@pytest.mark.parametrize("algorithm", ["AES128_GCM", "AES256_GCM", "AES256_SIV"])
def test_cryptor_keys_and_ciphertexts_are_confluents(algorithm):
    ours = encrypt_executor.Cryptor(encrypt_executor.DekAlgorithm[algorithm])
    theirs = ck_ee.Cryptor(ck_ee.DekAlgorithm[algorithm])
    ours_key, their_key = ours.generate_key(), theirs.generate_key()
    assert len(ours_key) == len(their_key) and ours_key[:2] == their_key[:2]  # proto header
    assert theirs.decrypt(ours_key, ours.encrypt(ours_key, b"pii", b""), b"") == b"pii"
    assert ours.decrypt(their_key, theirs.encrypt(their_key, b"pii", b""), b"") == b"pii"
    deterministic = ours.encrypt(ours_key, b"pii", b"") == ours.encrypt(ours_key, b"pii", b"")
    assert deterministic == (algorithm == "AES256_SIV")
    if deterministic:
        assert ours.encrypt(ours_key, b"pii", b"") == theirs.encrypt(ours_key, b"pii", b"")


def test_mock_dek_registry_answers_as_confluents():
    def scenario(side):
        client = side.mock.MockDekRegistryClient({"url": "mock://"})
        alg = side.ee.DekAlgorithm.AES256_SIV
        calls = [
            lambda: client.get_kek("k1"),
            lambda: client.register_kek("k1", "local-kms", "key1", kms_props={"a": "b"}),
            lambda: client.register_kek("k1", "other", "key2"),  # the first one stays
            lambda: client.get_kek("k1"),
            lambda: client.get_kek("k1", context=".c"),
            lambda: client.get_dek("k1", "s", alg, -1),
            lambda: client.register_dek("k1", "s", "ZW5j", alg),
            lambda: client.register_dek("k1", "s", "ZW5jMw==", alg, 3),
            lambda: client.get_dek("k1", "s", alg, -1),
            lambda: client.get_dek("k1", "s", alg, 2),
            lambda: client.get_dek("k1", "s"),  # another algorithm
        ]
        out = []
        for call in calls:
            result = outcome(call)
            if result[0] == "ok":
                value = result[1].to_dict()
                value.pop("ts", None)
                result = ("ok", value)
            out.append(result)
        return out

    out = both(scenario)
    assert out[0] == ("error", "SchemaRegistryError", str(ck_sr.SchemaRegistryError(
        404, 40470, "Key Not Found")), [])
    assert out[3][1]["kmsType"] == "local-kms" and out[8][1]["version"] == 3


def test_dek_registry_client_for_a_url():
    assert type(encrypt_executor.DekRegistryClient.new_client({"url": "mock://x"})).__name__ == \
        "MockDekRegistryClient"
    assert type(encrypt_executor.DekRegistryClient.new_client({})).__name__ == \
        "MockDekRegistryClient"
    real = encrypt_executor.DekRegistryClient.new_client({"url": "http://localhost:1"})
    assert type(real) is encrypt_executor.DekRegistryClient


def test_executor_configuration_errors():
    def scenario(side):
        executor = side.ee.FieldEncryptionExecutor()
        executor.configure({"url": "mock://a"}, {"secret": "s"})
        return [outcome(lambda: executor.configure({"url": "mock://a"}, {"secret": "s"})),
                outcome(lambda: executor.configure({"url": "mock://b"}, {})),
                outcome(lambda: executor.configure({"url": "mock://a"}, {"secret": "t"})),
                outcome(lambda: executor.configure({"url": "mock://a"}, {"other": "x"})),
                executor.executor.config, executor.type(), side.ee.EncryptionExecutor().type()]

    out = both(scenario)
    assert out[1] == ("error", "RuleError", "executor already configured", [])
    assert out[2] == ("error", "RuleError", "rule config key already set: secret", [])
    assert out[5:] == ["ENCRYPT", "ENCRYPT_PAYLOAD"]


def test_missing_driver_and_local_secret():
    def scenario(side):
        driver = side.kms.get_kms_driver("local-kms://k")
        os.environ.pop("LOCAL_SECRET", None)
        no_secret = outcome(lambda: driver.new_kms_client({}, "local-kms://k"))
        os.environ["LOCAL_SECRET"] = "from-env"
        try:
            from_env = driver.new_kms_client({}, "local-kms://k").get_aead("local-kms://k")
        finally:
            del os.environ["LOCAL_SECRET"]
        wrapped = from_env.encrypt(b"x", b"")
        unwrapped = local_client.LocalKmsClient("from-env").get_aead("k").decrypt(wrapped, b"")
        return (outcome(lambda: side.kms.get_kms_driver("nosuch-kms://k")), no_secret,
                unwrapped)

    out = both(scenario)
    assert out[0] == ("error", "RuleError", "no KMS driver found for key URL: nosuch-kms://k", [])
    assert out[1] == ("error", "TinkError", "cannot load secret", [])
    assert out[2] == b"x"


@pytest.mark.parametrize("module,cls,url", [
    ("awskms.aws_driver", "AwsKmsDriver", "aws-kms://arn:aws:kms:us-east-1:1:key/k"),
    ("gcpkms.gcp_driver", "GcpKmsDriver", "gcp-kms://projects/p/locations/l/keyRings/r/"
                                          "cryptoKeys/k"),
    ("azurekms.azure_driver", "AzureKmsDriver", "azure-kms://https://v.vault.azure.net/keys/k"),
    ("hcvault.hcvault_driver", "HcVaultKmsDriver", "hcvault://http://127.0.0.1:1/transit/keys/k"),
])
def test_cloud_drivers_name_what_to_install(module, cls, url):
    """The drivers load without their SDK; making a client says which extra to install."""
    import importlib

    loaded = importlib.import_module(
        "confluent_binding.schema_registry.rules.encryption." + module)
    driver = getattr(loaded, cls)()
    assert url.startswith(driver.get_key_url_prefix())
    sdk = {"AwsKmsDriver": "boto3", "GcpKmsDriver": "google.cloud.kms_v1",
           "AzureKmsDriver": "azure.identity", "HcVaultKmsDriver": "hvac"}[cls]
    try:
        importlib.import_module(sdk)
        pytest.skip("the SDK is installed")
    except ImportError:
        pass
    with pytest.raises(TinkError, match=r"pip install confluent-binding\[encryption-"):
        driver.new_kms_client({}, url).get_aead(url)


class _FakeKeyVault:
    """A CryptographyClient stand-in: 'wraps' by prefixing its version."""

    def __init__(self, version):
        self.version = version

    def encrypt(self, algorithm, plaintext):
        return type("R", (), {"ciphertext": self.version.encode() + b"|" + plaintext})

    def decrypt(self, algorithm, ciphertext):
        version, _, plaintext = ciphertext.partition(b"|")
        if version.decode() != self.version:
            raise ValueError("wrong key version")
        return type("R", (), {"plaintext": plaintext})


def test_azure_key_version_header():
    old, new = "a" * 32, "b" * 32
    saving = AzureKmsAead(_FakeKeyVault(new), "RSA-OAEP-256",
                          lambda: (_FakeKeyVault(old), old), _FakeKeyVault)
    wrapped = saving.encrypt(b"dek", b"")
    assert wrapped == b"azure:v1:" + old.encode() + b":" + old.encode() + b"|dek"
    # unwrapped with the version it names, not the default client's
    plain = AzureKmsAead(_FakeKeyVault(new), "RSA-OAEP-256", None, _FakeKeyVault)
    assert plain.decrypt(wrapped, b"") == b"dek"
    assert plain.decrypt(new.encode() + b"|dek", b"") == b"dek"  # no header: the default
    with pytest.raises(TinkError, match="invalid azure:v1: key version"):
        plain.decrypt(b"azure:v1:" + b"z" * 32 + b":x", b"")
    bad = AzureKmsAead(_FakeKeyVault(new), "RSA-OAEP-256", lambda: (_FakeKeyVault("v1"), "v1"))
    with pytest.raises(TinkError, match="must be a 32-character hex string"):
        bad.encrypt(b"dek", b"")


@pytest.mark.parametrize("params", [
    {},
    {"encrypt.kek.name": ""},
    {"encrypt.kek.name": "k", "encrypt.dek.expiry.days": "soon"},
    {"encrypt.kek.name": "k", "encrypt.dek.expiry.days": "-1"},
    {"encrypt.kek.name": "k", "encrypt.dek.algorithm": "ROT13"},
    {"encrypt.kek.name": "k"},
    {"encrypt.kek.name": "k", "encrypt.kms.type": "local-kms"},
])
def test_rule_parameter_errors(params):
    def scenario(side):
        client = side.sr.SchemaRegistryClient.new_client({"url": "mock://"})
        rule = side.sr.Rule("enc", None, side.sr.RuleKind.TRANSFORM, side.sr.RuleMode.WRITEREAD,
                            "ENCRYPT", ["PII"], side.sr.RuleParams(params) if params else None,
                            None, None, None, False)
        client.register_schema("t-value", side.sr.Schema(USER, "AVRO", [], None,
                                                         side.sr.RuleSet(None, [rule])))
        registry = side.rr.RuleRegistry()
        registry.register_executor(side.ee.FieldEncryptionExecutor())
        ser = side.avro.AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                           "use.latest.version": True},
                                       rule_conf={"secret": "s"}, rule_registry=registry)
        return outcome(lambda: ser({"name": "ann", "age": 3}, side.ctx()))

    result = both(scenario)
    assert result[:3] == ("error", "SerializationError", "")
    assert result[3][0][0] in ("RuleError", "KeyError")


def test_payload_and_field_round_trip_in_process():
    """Both executors through our serdes with the mock registries, read by confluent-kafka's
    serdes given the same DEK Registry records."""
    client = sr.SchemaRegistryClient.new_client({"url": "mock://"})
    params = sr.RuleParams({"encrypt.kek.name": "k", "encrypt.kms.type": "local-kms",
                            "encrypt.kms.key.id": "key"})
    rules = [sr.Rule("f", None, sr.RuleKind.TRANSFORM, sr.RuleMode.WRITEREAD, "ENCRYPT",
                     ["PII"], params, None, None, None, False)]
    encoding = [sr.Rule("p", None, sr.RuleKind.TRANSFORM, sr.RuleMode.WRITEREAD,
                        "ENCRYPT_PAYLOAD", None, params, None, None, None, False)]
    client.register_schema("t-value", sr.Schema(USER, "AVRO", [], None,
                                                sr.RuleSet(None, rules, encoding)))
    registry = rule_registry.RuleRegistry()
    field, payload = encrypt_executor.FieldEncryptionExecutor(), \
        encrypt_executor.EncryptionExecutor()
    registry.register_executor(field)
    registry.register_executor(payload)
    ser = avro.AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                  "use.latest.version": True},
                              rule_conf={"secret": "s"}, rule_registry=registry)
    data = ser({"name": "ann", "age": 3}, OURS.ctx())
    assert b"ann" not in data
    de = avro.AvroDeserializer(client, rule_conf={"secret": "s"}, rule_registry=registry)
    assert de(data, OURS.ctx()) == {"name": "ann", "age": 3}

    ck_client = ck_sr.SchemaRegistryClient.new_client({"url": "mock://"})
    ck_rules = [ck_sr.Rule.from_dict(r.to_dict()) for r in rules]
    ck_encoding = [ck_sr.Rule.from_dict(r.to_dict()) for r in encoding]
    ck_client.register_schema("t-value", ck_sr.Schema(USER, "AVRO", [], None,
                                                      ck_sr.RuleSet(None, ck_rules, ck_encoding)))
    ck_registry = ck_rr.RuleRegistry()
    ck_field, ck_payload = ck_ee.FieldEncryptionExecutor(), ck_ee.EncryptionExecutor()
    ck_registry.register_executor(ck_field)
    ck_registry.register_executor(ck_payload)
    ck_de = ck_avro.AvroDeserializer(ck_client, rule_conf={"secret": "s"},
                                     rule_registry=ck_registry)
    # the DEK Registry records ours made, registered in confluent-kafka's executors' registry
    for executor, ck_executor in ((field.executor, ck_field.executor), (payload, ck_payload)):
        for dek_id in executor.client._dek_cache.keys():
            dek = executor.client._dek_cache.get(dek_id)
            ck_executor.client.register_kek("k", "local-kms", "key")
            ck_executor.client.register_dek("k", dek.subject, dek.encrypted_key_material,
                                            ck_ee.DekAlgorithm(str(dek.algorithm)), dek.version)
    assert ck_de(data, THEIRS.ctx()) == {"name": "ann", "age": 3}


@pytest.mark.parametrize("subject", [None, "t-value", ":.ctx:t-value", ":.:t-value", ":.ctx",
                                     ":.a.b:c:d", ":x:y", ":.", "::", ".ctx:s"])
def test_kek_context_of_a_subject(subject):
    """The registry context a KEK is looked up in, from a context-qualified subject."""
    from confluent_binding.schema_registry.rules.encryption.encrypt_executor import _context_for

    assert _context_for(subject) == ck_ee._context_for(subject)
