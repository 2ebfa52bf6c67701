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
import time
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
)
from confluent_binding.schema_registry.rules.encryption.localkms import (  # noqa: E402
    local_client,
    local_driver,
)
from tests.support.dek_registry import DekRegistry  # noqa: E402
from tests.support.http_gate import HttpGate  # noqa: E402
from tests.support.rules_overlay import overlay_class  # noqa: E402

pytestmark = pytest.mark.integration

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

    def rule(self, name, rtype, tags=None, params=None, mode="WRITEREAD", on_failure=None):
        return self.sr.Rule(name, None, self.sr.RuleKind.TRANSFORM, self.sr.RuleMode(mode), rtype,
                            tags, self.sr.RuleParams(params) if params else None, None, None,
                            on_failure, False)

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


@pytest.fixture
def gate(schema_registry):
    """The registry with a DEK Registry of its own (a fresh one per test)."""
    with HttpGate(schema_registry.url, local=DekRegistry(_shared_dek)) as g:
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
