"""Field-level encryption end to end: records through the real broker, schemas in the real
registry, DEKs in a DEK Registry.

The registry the tests run (Apicurio's Confluent-compatible API) has no DEK Registry and does not
keep a schema's ruleSet, so: the serdes talk to it through an :class:`HttpGate` that answers
``/dek-registry/v1`` requests itself (:class:`DekRegistry`, Confluent's REST API in the test
process) and forwards everything else, and the rule sets are put back on what the registry
returns (:func:`overlay_class`, as in test_schema_registry_rules.py). Both clients, ours and
confluent-kafka's, use the same gate, so they share the KEKs and DEKs as two applications on
one registry do: what one writes, the other reads.
"""

import base64
import json
import re
import threading
import time
import urllib.parse
import uuid

import pytest

pytest.importorskip("tink")
pytest.importorskip("fastavro")
pytest.importorskip("jsonschema")
pytest.importorskip("google.protobuf")

import confluent_kafka as ck  # noqa: E402
import confluent_kafka.schema_registry as ck_sr  # noqa: E402
import tink  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import json_schema as ck_json  # noqa: E402
from confluent_kafka.schema_registry import protobuf as ck_protobuf  # noqa: E402
from confluent_kafka.schema_registry import rule_registry as ck_rr  # noqa: E402
from confluent_kafka.schema_registry.rules.encryption import encrypt_executor as ck_ee  # noqa: E402
from confluent_kafka.schema_registry.rules.encryption.dek_registry import (  # noqa: E402
    dek_registry_client as ck_dek,
)
from confluent_kafka.schema_registry.rules.encryption.localkms import (  # noqa: E402
    local_driver as ck_local,
)
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

import confluent_binding as cb  # noqa: E402
import confluent_binding.schema_registry as sr  # noqa: E402
from confluent_binding.schema_registry import (  # noqa: E402
    avro,
    json_schema,
    protobuf,
    rule_registry,
)
from confluent_binding.schema_registry.rules.encryption import encrypt_executor  # noqa: E402
from confluent_binding.schema_registry.rules.encryption.dek_registry import (  # noqa: E402
    dek_registry_client,
    mock_dek_registry_client,
)
from confluent_binding.schema_registry.rules.encryption.localkms import (  # noqa: E402
    local_client,
    local_driver,
)

from tests.support.dek_registry import DekRegistry  # noqa: E402
from tests.support.http_gate import HttpGate  # noqa: E402
from tests.support.rules_overlay import overlay_class  # noqa: E402

pytestmark = pytest.mark.integration
pytest.importorskip("celpy")

SECRET = "mysecret"
ENCRYPT = {"encrypt.kek.name": "kek1", "encrypt.kms.type": "local-kms",
           "encrypt.kms.key.id": "mykey"}

local_driver.LocalKmsDriver.register()
ck_local.LocalKmsDriver.register()

AVRO_USER = json.dumps({"type": "record", "name": "User", "namespace": "enc", "fields": [
    {"name": "name", "type": "string", "confluent:tags": ["PII"]},
    {"name": "photo", "type": "bytes", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"}]})
JSON_USER = json.dumps({"type": "object", "title": "User", "properties": {
    "name": {"type": "string", "confluent:tags": ["PII"]},
    "city": {"type": "string"},
    "age": {"type": "integer"}}})


def _user_class():
    proto = descriptor_pb2.FileDescriptorProto(name="enc_user.proto", package="enc",
                                               syntax="proto3")
    user = proto.message_type.add(name="User")
    user.field.add(name="name", number=1, type=9, label=1)
    user.field.add(name="photo", number=2, type=12, label=1)
    user.field.add(name="age", number=3, type=5, label=1)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("enc.User"))


PB_USER = _user_class()
PB_SCHEMA = base64.standard_b64encode(PB_USER.DESCRIPTOR.file.serialized_pb).decode()


class Side:
    def __init__(self, ours):
        self.ours = ours
        self.kafka = cb if ours else ck
        self.sr = sr if ours else ck_sr
        self.rr = rule_registry if ours else ck_rr
        self.ee = encrypt_executor if ours else ck_ee
        self.dek = dek_registry_client if ours else ck_dek
        self.serdes = {
            "avro": (avro.AvroSerializer, avro.AvroDeserializer) if ours else
                    (ck_avro.AvroSerializer, ck_avro.AvroDeserializer),
            "json": (json_schema.JSONSerializer, json_schema.JSONDeserializer) if ours else
                    (ck_json.JSONSerializer, ck_json.JSONDeserializer),
            "protobuf": (protobuf.ProtobufSerializer, protobuf.ProtobufDeserializer) if ours else
                        (ck_protobuf.ProtobufSerializer, ck_protobuf.ProtobufDeserializer),
        }

    def __repr__(self):
        return "ours" if self.ours else "confluent"

    def client(self, url):
        return overlay_class(self.sr.SchemaRegistryClient)({"url": url})

    def rule(self, name, rtype, tags=None, params=None, mode="WRITEREAD", expr=None):
        return self.sr.Rule(name, None, self.sr.RuleKind.TRANSFORM, self.sr.RuleMode(mode), rtype,
                            tags, self.sr.RuleParams(params) if params else None, expr, None,
                            None, False)

    def registry(self, executor):
        registry = self.rr.RuleRegistry()
        registry.register_executor(executor)
        return registry

    def field_registry(self, clock=None):
        return self.registry(self.ee.FieldEncryptionExecutor(clock or self.ee.Clock()))

    def payload_registry(self):
        return self.registry(self.ee.EncryptionExecutor())

    def serializer(self, fmt, client, registry, secret=SECRET):
        conf = {"auto.register.schemas": False, "use.latest.version": True}
        kwargs = {"rule_conf": {"secret": secret}, "rule_registry": registry}
        if fmt == "protobuf":
            conf["use.deprecated.format"] = False
            return self.serdes[fmt][0](PB_USER, client, conf, **kwargs)
        if fmt == "json":
            return self.serdes[fmt][0](None, client, conf=conf, **kwargs)
        return self.serdes[fmt][0](client, None, conf=conf, **kwargs)

    def deserializer(self, fmt, client, registry=None, secret=SECRET):
        kwargs = {}
        if registry is not None:
            kwargs = {"rule_conf": {"secret": secret}, "rule_registry": registry}
        if fmt == "protobuf":
            return self.serdes[fmt][1](PB_USER, {"use.deprecated.format": False},
                                       schema_registry_client=client, **kwargs)
        if fmt == "json":
            return self.serdes[fmt][1](None, schema_registry_client=client, **kwargs)
        return self.serdes[fmt][1](client, **kwargs)


OURS, THEIRS = Side(True), Side(False)


@pytest.fixture(autouse=True)
def _fresh_tink_kms_clients():
    """confluent-kafka keeps the first KMS client made for a key URL in Tink's process-wide
    list, whatever secret later rules name: each test starts without one."""
    tink._kms_clients.reset_kms_clients()


@pytest.fixture
def gate(schema_registry):
    """The registry with a DEK Registry of its own (a fresh one per test, ``gate.deks``)."""
    deks = DekRegistry(_shared_dek)
    with HttpGate(schema_registry.url, local=deks) as g:
        g.deks = deks
        yield g


def _shared_dek(kek, algorithm):
    """What a registry does for a shared KEK: makes the DEK and wraps it with the KEK's KMS."""
    key = encrypt_executor.Cryptor(dek_registry_client.DekAlgorithm[algorithm]).generate_key()
    wrapped = local_client.LocalKmsClient(SECRET).get_aead("local-kms://" + kek["kmsKeyId"])
    return (base64.b64encode(key).decode(), base64.b64encode(wrapped.encrypt(key, b"")).decode())


def register(side, client, fmt, subject, rules, encoding=None, metadata=None):
    text, kind = {"avro": (AVRO_USER, "AVRO"), "json": (JSON_USER, "JSON"),
                  "protobuf": (PB_SCHEMA, "PROTOBUF")}[fmt]
    rule_set = side.sr.RuleSet(None, rules, encoding) if encoding else side.sr.RuleSet(None,
                                                                                       rules)
    return client.register_with_rules(subject, side.sr.Schema(text, kind, [], metadata,
                                                              rule_set))


def record(fmt, name, age=30):
    if fmt == "avro":
        return {"name": name, "photo": name.encode() * 2, "age": age}
    if fmt == "json":
        return {"name": name, "city": "Oslo", "age": age}
    return PB_USER(name=name, photo=name.encode() * 2, age=age)


def records(fmt):
    """Two new records (a serializer's rules change the record they are given, in place, as
    confluent-kafka's do)."""
    return [record(fmt, "ann"), record(fmt, "bob", 41)]


def as_dict(value):
    if isinstance(value, PB_USER):
        return {"name": value.name, "photo": value.photo, "age": value.age}
    return value


def produce(side, conf, topic, records, serializer):
    producer = side.kafka.SerializingProducer(dict(conf, **{"value.serializer": serializer}))
    delivered = []
    for value in records:
        producer.produce(topic, value=value, on_delivery=lambda err, msg: delivered.append(err))
    assert producer.flush(30) == 0
    producer.close()
    assert delivered == [None] * len(records)


def consume(side, conf, topic, count, deserializer):
    """The topic's values, which must be ``count``; a deserializer's failure is returned as
    (exception type, its inner exception's type and message, the inner's cause chain)."""
    consumer = side.kafka.DeserializingConsumer(dict(conf, **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "value.deserializer": deserializer}))
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    try:
        while len(got) < count and time.monotonic() < deadline:
            try:
                msg = consumer.poll(1.0)
            except Exception as e:
                got.append(failure(e))
                continue
            if msg is not None:
                got.append(as_dict(msg.value()))
    finally:
        consumer.close()
    assert len(got) == count
    return got


def failure(e):
    inner = getattr(e, "exception", e)
    chain, cause = [], inner.__cause__
    while cause is not None:
        chain.append((type(cause).__name__, str(cause)))
        cause = cause.__cause__
    return (type(e).__name__, type(inner).__name__, str(inner), chain)


def raw_values(conf, topic, count):
    """The topic's values as bytes (read with a plain consumer)."""
    consumer = cb.Consumer(dict(conf, **{"group.id": uuid.uuid4().hex,
                                         "auto.offset.reset": "earliest"}))
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    try:
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                got.append(msg.value())
    finally:
        consumer.close()
    assert len(got) == count
    return got


def field_bytes(value, field="name"):
    """A field's ciphertext: a string field holds it in base64, a bytes field as is."""
    found = value[field]
    return base64.b64decode(found) if isinstance(found, str) else found


def field_client(side, gate, fmt, topic, params=ENCRYPT):
    """A client of ``side`` on which ``topic``'s value schema has an ENCRYPT rule on the PII
    fields (for Protobuf, tags and rule parameters come from the schema's metadata)."""
    client = side.client(gate.url)
    metadata = None
    if fmt == "protobuf":
        metadata = side.sr.Metadata(side.sr.MetadataTags({"enc.User.name": ["PII"],
                                                          "enc.User.photo": ["PII"]}),
                                    side.sr.MetadataProperties(dict(params)), None)
    register(side, client, fmt, topic + "-value", [side.rule(
        "enc", "ENCRYPT", ["PII"], None if metadata else params)], metadata=metadata)
    return client


@pytest.mark.parametrize("fmt", ["avro", "json", "protobuf"])
def test_tagged_fields_are_encrypted_and_read_back_by_both_clients(
        kafka_cluster, gate, make_topic, fmt):
    """Each client writes its own topic; each topic is read back decrypted by both clients,
    and as stored (read without the rule) its tagged fields are ciphertext, the others plain."""
    conf = kafka_cluster.client_config()
    plain = [as_dict(r) for r in records(fmt)]
    topics = {}
    for side in (OURS, THEIRS):
        topic = topics[side] = make_topic()
        client = field_client(side, gate, fmt, topic)
        produce(side, conf, topic, records(fmt),
                side.serializer(fmt, client, side.field_registry()))
    for side in (OURS, THEIRS):
        for written_by, topic in topics.items():
            client = field_client(side, gate, fmt, topic)
            stored = consume(side, conf, topic, 2, side.deserializer(
                fmt, side.sr.SchemaRegistryClient({"url": gate.url})))
            for value, original in zip(stored, plain):
                assert not isinstance(value, tuple), value
                assert value["age"] == original["age"]
                if fmt == "json":
                    assert value["city"] == original["city"]
                for name in ("name",) if fmt == "json" else ("name", "photo"):
                    plaintext = original[name]
                    plaintext = plaintext.encode() if isinstance(plaintext, str) else plaintext
                    assert value[name] != original[name]
                    # AES-GCM: a 12-byte nonce and a 16-byte tag around the ciphertext
                    assert len(field_bytes(value, name)) == 12 + len(plaintext) + 16
            read = consume(side, conf, topic, 2, side.deserializer(
                fmt, client, side.field_registry()))
            assert read == plain, (side, "reading what was written by", written_by)


def stored_names(side, conf, gate, topic, count, fmt="avro"):
    """The ``name`` field of the topic's records as stored, decoded from base64."""
    plain = side.deserializer(fmt, side.sr.SchemaRegistryClient({"url": gate.url}))
    return [field_bytes(v) for v in consume(side, conf, topic, count, plain)]


def test_payload_encryption(kafka_cluster, gate, make_topic):
    """ENCRYPT_PAYLOAD encrypts the whole encoded record after the schema id framing."""
    conf = kafka_cluster.client_config()
    rule = ("payload", "ENCRYPT_PAYLOAD", None, ENCRYPT)
    topics = {}
    for side in (OURS, THEIRS):
        topic = topics[side] = make_topic()
        client = side.client(gate.url)
        register(side, client, "avro", topic + "-value", [], encoding=[side.rule(*rule)])
        produce(side, conf, topic, records("avro"),
                side.serializer("avro", client, side.payload_registry()))
        avro_length = 1 + 3 + 1 + 6 + 1  # name, photo (each length-prefixed), age
        for value in raw_values(conf, topic, 2):
            assert value[0] == 0 and len(value) == 5 + 12 + avro_length + 16
            assert b"ann" not in value and b"bob" not in value
    for side in (OURS, THEIRS):
        for written_by, topic in topics.items():
            client = side.client(gate.url)
            register(side, client, "avro", topic + "-value", [], encoding=[side.rule(*rule)])
            read = consume(side, conf, topic, 2, side.deserializer(
                "avro", client, side.payload_registry()))
            assert read == [as_dict(r) for r in records("avro")], (side, written_by)


class _LaterClock:
    """A clock ``offset_ms`` ahead of the real one."""

    offset_ms = 0

    def now(self):
        return int(round(time.time() * 1000)) + self.offset_ms


def test_dek_rotation_and_key_versions(kafka_cluster, gate, make_topic):
    """With encrypt.dek.expiry.days a DEK older than that is replaced by the next version on
    write; each ciphertext names its DEK's version and is read with that version."""
    conf = kafka_cluster.client_config()
    params = dict(ENCRYPT, **{"encrypt.dek.expiry.days": "1"})
    topics = {}
    for side in (OURS, THEIRS):
        gate.deks.clock_offset_ms = 0
        topic = topics[side] = make_topic()
        client = field_client(side, gate, "avro", topic, params)
        clock = type("Clock", (_LaterClock, side.ee.Clock), {})()
        ser = side.serializer("avro", client, side.field_registry(clock))
        produce(side, conf, topic, [record("avro", "ann")], ser)
        produce(side, conf, topic, [record("avro", "bob")], ser)  # DEK v1 still young
        # two days later, on the client and in the registry
        clock.offset_ms = gate.deks.clock_offset_ms = 2 * 24 * 3600 * 1000
        produce(side, conf, topic, [record("avro", "cid")], ser)
        produce(side, conf, topic, [record("avro", "dan")], ser)
        versions = gate.deks.deks[("kek1", topic + "-value", "AES256_GCM")]
        assert sorted(versions) == [1, 2]
        names = stored_names(side, conf, gate, topic, 4)
        # a zero byte, the DEK version (4 bytes, big-endian), then AES-GCM's nonce, the
        # ciphertext and the tag
        assert [n[:5] for n in names] == [b"\0\0\0\0\1"] * 2 + [b"\0\0\0\0\2"] * 2
        assert [len(n) for n in names] == [5 + 12 + 3 + 16] * 4
    for side in (OURS, THEIRS):
        for written_by, topic in topics.items():
            client = field_client(side, gate, "avro", topic, params)
            read = consume(side, conf, topic, 4, side.deserializer("avro", client,
                                                                   side.field_registry()))
            assert [r["name"] for r in read] == ["ann", "bob", "cid", "dan"], (side, written_by)


def test_deterministic_aes_siv(kafka_cluster, gate, make_topic):
    """AES256_SIV: equal plaintexts give equal ciphertexts, whichever client wrote them (with
    the subject's one DEK)."""
    conf = kafka_cluster.client_config()
    params = dict(ENCRYPT, **{"encrypt.dek.algorithm": "AES256_SIV"})
    topic = make_topic()
    for side in (OURS, THEIRS):
        client = field_client(side, gate, "avro", topic, params)
        produce(side, conf, topic, [record("avro", n) for n in ("ann", "ann", "bob")],
                side.serializer("avro", client, side.field_registry()))
    names = stored_names(OURS, conf, gate, topic, 6)
    assert names[0] == names[1] == names[3] == names[4]
    assert names[2] == names[5] != names[0]
    assert len(names[0]) == 16 + 3  # SIV: a 16-byte synthetic IV, no nonce
    assert list(gate.deks.deks) == [("kek1", topic + "-value", "AES256_SIV")]
    for side in (OURS, THEIRS):
        client = field_client(side, gate, "avro", topic, params)
        read = consume(side, conf, topic, 6, side.deserializer("avro", client,
                                                               side.field_registry()))
        assert [r["name"] for r in read] == ["ann", "ann", "bob"] * 2


def _without_thread_ids(value):
    """BoringSSL's error strings start with the thread's id."""
    return json.loads(re.sub(r"\b\d{6,}:error:", "<thread>:error:", json.dumps(value)))


def test_wrong_secret_and_missing_driver(kafka_cluster, gate, make_topic):
    """Reading with another local KMS secret, and writing with a KMS type no driver serves,
    fail as with confluent-kafka: same exceptions, same messages."""
    conf = kafka_cluster.client_config()
    topic = make_topic()
    client = field_client(OURS, gate, "avro", topic)
    produce(OURS, conf, topic, [record("avro", "ann")],
            OURS.serializer("avro", client, OURS.field_registry()))
    outcomes = {}
    for side in (OURS, THEIRS):
        # confluent-kafka's KMS client of the right secret, made for OURS' reading: forgotten
        tink._kms_clients.reset_kms_clients()
        client = field_client(side, gate, "avro", topic)
        wrong = consume(side, conf, topic, 1, side.deserializer(
            "avro", client, side.field_registry(), secret="not-the-secret"))
        missing_topic = make_topic()
        nowhere = field_client(side, gate, "avro", missing_topic,
                               dict(ENCRYPT, **{"encrypt.kek.name": "kek-nowhere",
                                                "encrypt.kms.type": "nosuch-kms"}))
        ser = side.serializer("avro", nowhere, side.field_registry())
        producer = side.kafka.SerializingProducer(dict(conf, **{"value.serializer": ser}))
        with pytest.raises(Exception) as raised:
            producer.produce(missing_topic, value=record("avro", "ann"))
        producer.close()
        outcomes[side] = _without_thread_ids(wrong), failure(raised.value)
    assert outcomes[OURS] == outcomes[THEIRS]
    wrong, missing = outcomes[OURS]
    [(kind, inner, text, [(rule_error, why), (tink_error, cipher_says)])] = wrong
    assert (kind, inner, text) == ("ValueDeserializationError", "SerializationError", "")
    assert (rule_error, why) == ("RuleError", "failed to decrypt with all KEKs for kek1")
    assert tink_error == "TinkError" and cipher_says.startswith(
        "INTERNAL: Authentication failed")
    assert missing[:3] == ("ValueSerializationError", "SerializationError", "")
    assert missing[3][:2] == [
        ("RuleError", "failed to encrypt with all KEKs for kek-nowhere"),
        ("RuleError", "no KMS driver found for key URL: nosuch-kms://mykey")]


def test_shared_kek(kafka_cluster, gate, make_topic):
    """With a shared KEK the registry makes the DEK: the client sends none and uses the key
    material the registry returns."""
    conf = kafka_cluster.client_config()
    admin = dek_registry_client.DekRegistryClient({"url": gate.url})
    admin.register_kek("shared1", "local-kms", "mykey", shared=True)
    params = dict(ENCRYPT, **{"encrypt.kek.name": "shared1"})
    topic = make_topic()
    client = field_client(OURS, gate, "avro", topic, params)
    start = gate.request_count()
    produce(OURS, conf, topic, records("avro"),
            OURS.serializer("avro", client, OURS.field_registry()))
    posts = [json.loads(r.body) for r in gate.requests[start:]
             if r.method == "POST" and "/deks/" in r.path]
    assert posts == [{"subject": topic + "-value", "version": 1, "algorithm": "AES256_GCM"}]
    for side in (OURS, THEIRS):
        client = field_client(side, gate, "avro", topic, params)
        read = consume(side, conf, topic, 2, side.deserializer("avro", client,
                                                               side.field_registry()))
        assert read == [as_dict(r) for r in records("avro")]


def _dek_client_calls(module, url):
    """The same calls on ``module``'s DekRegistryClient: each call's outcome."""
    algorithm = module.DekAlgorithm.AES256_SIV
    client = module.DekRegistryClient({"url": url})
    calls = [
        lambda: client.register_kek("k1", "local-kms", "key1", kms_props={"p": "v"}, doc="d"),
        lambda: client.get_kek("k1"),  # cached
        lambda: client.get_kek("k2"),
        lambda: client.get_kek("k1", deleted=True, context=".ctx"),
        lambda: client.register_kek("k1", "local-kms", "key1"),  # cached
        lambda: client.register_kek("k3", "local-kms", "key3", context=".ctx"),
        lambda: client.register_kek("k3", "local-kms", "key3"),  # exists: 409
        lambda: client.register_dek("k1", "sub/ject", "ZW5j", algorithm),
        lambda: client.get_dek("k1", "sub/ject", algorithm),  # cached
        lambda: client.get_dek("k1", "sub/ject", algorithm, -1),
        lambda: client.register_dek("k1", "sub/ject", "ZW5jMg==", algorithm, 2),
        lambda: client.get_dek("k1", "sub/ject", algorithm, -1),  # latest forgotten
        lambda: client.get_dek("k1", "sub/ject", version=3),
    ]
    outcomes = []
    for call in calls:
        try:
            value = call().to_dict()
            value.pop("ts", None)
            outcomes.append(value)
        except Exception as e:
            outcomes.append((type(e).__name__, e.http_status_code, e.error_code, e.error_message))
    return outcomes


def _requests(gate, start):
    return [(r.method, urllib.parse.urlsplit(r.path).path,
             sorted(urllib.parse.parse_qsl(urllib.parse.urlsplit(r.path).query)),
             json.loads(r.body) if r.body else None) for r in gate.requests[start:]]


@pytest.mark.parametrize("legacy", [False, True])
def test_dek_registry_client_requests_as_confluent_kafka(schema_registry, legacy):
    """Our DekRegistryClient sends what confluent-kafka's sends, request by request, and
    gives the same answers (a registry without subjects in DEK paths answers 405 there)."""
    seen = {}
    for module in (dek_registry_client, ck_dek):
        deks = DekRegistry(legacy=legacy)
        with HttpGate(schema_registry.url, local=deks) as gate:
            outcomes = _dek_client_calls(module, gate.url)
            seen[module] = outcomes, _requests(gate, 0)
    assert seen[dek_registry_client] == seen[ck_dek]
    outcomes, requests = seen[dek_registry_client]
    assert [r[:2] for r in requests][:3] == [
        ("POST", requests[0][1]), ("GET", requests[0][1] + "/k2"),
        ("GET", requests[0][1] + "/k1")]
    assert requests[0][1].endswith("/dek-registry/v1/keks")
    assert outcomes[2] == ("SchemaRegistryError", 404, 40470, "Key k2 not found")
    assert outcomes[6][:3] == ("SchemaRegistryError", 409, 40972)
    assert outcomes[11]["version"] == 2 and outcomes[12][1] == 404
    posts = [r[1] for r in requests if r[0] == "POST" and "/deks" in r[1]]
    assert posts[0].endswith("/keks/k1/deks/sub%2Fject")
    if legacy:
        assert posts[1].endswith("/keks/k1/deks")


@pytest.mark.asyncio
async def test_asyncio_serdes(kafka_cluster, gate, make_topic):
    """The asyncio serdes encrypt and decrypt through the broker. A record whose DEK must be
    made (here a rotated one) stops the serializer's try on the event loop halfway, after a
    CEL_FIELD rule changed the record; the try off the loop starts from the record as given,
    so that rule applies once."""
    from confluent_binding.aio import AsyncDeserializingConsumer, AsyncSerializingProducer
    from confluent_binding.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor

    topic = make_topic()
    client = OURS.client(gate.url)
    params = dict(ENCRYPT, **{"encrypt.dek.expiry.days": "1"})
    register(OURS, client, "avro", topic + "-value", [
        OURS.rule("mark", "CEL_FIELD", ["PII"], mode="WRITE",
                  expr="name == 'name' ; value + '-w'"),
        OURS.rule("enc", "ENCRYPT", ["PII"], params)])
    clock = type("Clock", (_LaterClock, encrypt_executor.Clock), {})()
    registry = OURS.field_registry(clock)
    registry.register_executor(CelFieldExecutor())
    conf = {"auto.register.schemas": False, "use.latest.version": True}
    ser = await avro.AsyncAvroSerializer(client, None, conf=conf,
                                         rule_conf={"secret": SECRET}, rule_registry=registry)
    producer = await AsyncSerializingProducer(dict(kafka_cluster.client_config(), **{
        "value.serializer": ser}))
    delivered = [await (await producer.produce(topic, value=record("avro", "ann")))]
    clock.offset_ms = gate.deks.clock_offset_ms = 2 * 24 * 3600 * 1000
    posts = gate.request_count()
    delivered.append(await (await producer.produce(topic, value=record("avro", "bob"))))
    await producer.close()
    # DEK version 2 made (then, for the next field, the latest version fetched again)
    assert [r.method for r in gate.requests[posts:]] == ["POST", "GET"]
    assert sorted(gate.deks.deks[("kek1", topic + "-value", "AES256_GCM")]) == [1, 2]

    de = await avro.AsyncAvroDeserializer(client, rule_conf={"secret": SECRET},
                                          rule_registry=OURS.field_registry())
    consumer = await AsyncDeserializingConsumer(dict(kafka_cluster.client_config(), **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "value.deserializer": de}))
    await consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    while len(got) < 2 and time.monotonic() < deadline:
        msg = await consumer.poll(1.0)
        if msg is not None:
            got.append(msg.value())
    await consumer.close()
    assert [g["name"] for g in got] == ["ann-w", "bob-w"]
    assert [g["photo"] for g in got] == [b"annann", b"bobbob"]


class _ThreadNotingKms(local_driver.LocalKmsDriver):
    """A KMS (the local one underneath) that notes the thread of each wrap and unwrap, as a
    cloud KMS's network call would run."""

    prefix = "noting-kms://"
    threads = []

    def new_kms_client(self, conf, key_url):
        local = super().new_kms_client(conf, key_url)
        threads = self.threads

        class Client(type(local)):
            def __init__(self):
                self._inner = local.get_aead(key_url)

            def does_support(self, key_uri):
                return key_uri == key_url

            def get_aead(self, key_uri):
                inner = self._inner

                class Noting(tink.aead.Aead):
                    def encrypt(self, plaintext, associated_data):
                        threads.append(threading.current_thread())
                        return inner.encrypt(plaintext, associated_data)

                    def decrypt(self, ciphertext, associated_data):
                        threads.append(threading.current_thread())
                        return inner.decrypt(ciphertext, associated_data)

                return Noting()

        return Client()


@pytest.mark.asyncio
async def test_asyncio_serdes_call_a_kms_off_the_event_loop(kafka_cluster, gate, make_topic):
    """A KMS other than the local one is a network call: the asyncio serdes make it in a
    worker thread, never on the event loop (here the DEK Registry is in memory, so the KMS
    call is the only thing that waits)."""
    from confluent_binding.aio import AsyncSerializingProducer

    _ThreadNotingKms.register()
    _ThreadNotingKms.threads.clear()
    topic = make_topic()
    client = OURS.client(gate.url)
    params = dict(ENCRYPT, **{"encrypt.kms.type": "noting-kms"})
    schema_id, _ = register(OURS, client, "avro", topic + "-value", [
        OURS.rule("enc", "ENCRYPT", ["PII"], params)])
    # the schema in the client's caches: the serdes' first tries on the loop need no request
    client.get_latest_version(topic + "-value")
    client.get_schema(schema_id)

    def registry():
        executor = encrypt_executor.FieldEncryptionExecutor()
        executor.executor.client = mock_dek_registry_client.MockDekRegistryClient(
            client.config())
        return OURS.registry(executor), executor.executor.client

    # the topic's subject without asking the registry for associations
    conf = {"auto.register.schemas": False, "use.latest.version": True,
            "subject.name.strategy": sr.topic_subject_name_strategy}
    ser_registry, deks = registry()
    ser = await avro.AsyncAvroSerializer(client, None, conf=conf, rule_conf={"secret": SECRET},
                                         rule_registry=ser_registry)
    loop_thread = threading.current_thread()
    producer = await AsyncSerializingProducer(dict(kafka_cluster.client_config(), **{
        "value.serializer": ser}))
    for name in ("ann", "bob"):
        await (await producer.produce(topic, value=record("avro", name)))
    await producer.close()
    # the DEK made for the first record wrapped, and unwrapped again as registered (as
    # confluent-kafka does), both off the loop; the second record used it as cached
    assert len(_ThreadNotingKms.threads) == 2
    assert loop_thread not in _ThreadNotingKms.threads

    de_registry, de_deks = registry()
    for dek_id in deks._dek_cache.keys():  # the records the writer's registry holds
        dek = deks._dek_cache.get(dek_id)
        de_deks.register_kek("kek1", "noting-kms", "mykey")
        de_deks.register_dek("kek1", dek.subject, dek.encrypted_key_material, dek.algorithm,
                             dek.version)
    de = await avro.AsyncAvroDeserializer(client, conf={
        "subject.name.strategy": sr.topic_subject_name_strategy},
        rule_conf={"secret": SECRET}, rule_registry=de_registry)
    values = raw_values(kafka_cluster.client_config(), topic, 2)
    ctx = cb.serialization.SerializationContext(topic, cb.serialization.MessageField.VALUE)
    assert [(await de(v, ctx))["name"] for v in values] == ["ann", "bob"]
    # one unwrap, off the loop
    assert len(_ThreadNotingKms.threads) == 3 and loop_thread not in _ThreadNotingKms.threads
