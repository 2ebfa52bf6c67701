"""Data-contract rules end to end: records through the real broker, schemas in the real registry.

The registry the tests run (Apicurio Registry's Confluent-compatible API, ccompat v7) accepts a
schema's ``ruleSet`` and ``metadata`` when one registers it but neither stores nor returns them
(a registered schema comes back as its text, type and references only), and has no
``/subjects/{subject}/metadata`` look-up. So each scenario registers its schemas in the real
registry and hands their rule sets to the serdes through the schema objects the registry client
returns: :class:`RulesOverlay` is the real client (ours, or confluent-kafka's for the
side-by-side run) with the registered schemas' ``ruleSet``/``metadata`` put back on what
``get_latest_version``, ``get_schema``, ``lookup_schema`` and ``get_version`` return, keyed by
the id and version the registry gave. Everything else (registration, ids, versions, look-ups,
framing) is the registry's and the broker's.

Every scenario runs on confluent-kafka's serdes and on ours, each on its own topics, and the
outcomes (records read back, exception types and messages, dead-letter records and headers)
must be the same.
"""

import json
import time
import uuid

import pytest

pytest.importorskip("fastavro")
pytest.importorskip("celpy")
pytest.importorskip("jsonata")

import confluent_kafka as ck  # noqa: E402
import confluent_kafka.schema_registry as ck_sr  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import json_schema as ck_json  # noqa: E402
from confluent_kafka.schema_registry import rule_registry as ck_rr  # noqa: E402
from confluent_kafka.schema_registry.rules.cel import cel_executor as ck_cel  # noqa: E402
from confluent_kafka.schema_registry.rules.cel import cel_field_executor as ck_cel_field  # noqa: E402
from confluent_kafka.schema_registry.rules.dlq import dlq_action as ck_dlq  # noqa: E402
from confluent_kafka.schema_registry.rules.jsonata import jsonata_executor as ck_jsonata  # noqa: E402

import confluent_binding as cb  # noqa: E402
import confluent_binding.schema_registry as sr  # noqa: E402
from confluent_binding.schema_registry import avro, json_schema, rule_registry  # noqa: E402
from confluent_binding.schema_registry.rules.cel import cel_executor, cel_field_executor  # noqa: E402
from confluent_binding.schema_registry.rules.dlq import dlq_action  # noqa: E402
from confluent_binding.schema_registry.rules.jsonata import jsonata_executor  # noqa: E402

from tests.support.rules_overlay import overlay_class  # noqa: E402

pytestmark = pytest.mark.integration

USER_V1 = json.dumps({"type": "record", "name": "User", "namespace": "example", "fields": [
    {"name": "name", "type": "string", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"}]})
USER_V2 = json.dumps({"type": "record", "name": "User", "namespace": "example", "fields": [
    {"name": "full_name", "type": "string", "confluent:tags": ["PII"]},
    {"name": "age", "type": "int"}]})
GOOD = {"name": "ann", "age": 31}
BAD = {"name": "bob", "age": -1}
UPGRADE = "$merge([$sift($, function($v, $k) {$k != 'name'}), {'full_name': $.name}])"


class Side:
    def __init__(self, ours):
        self.ours = ours
        self.kafka = cb if ours else ck
        self.sr = sr if ours else ck_sr
        self.avro = avro if ours else ck_avro
        self.rr = rule_registry if ours else ck_rr
        self.executors = ((cel_executor.CelExecutor, cel_field_executor.CelFieldExecutor,
                           jsonata_executor.JsonataExecutor) if ours else
                          (ck_cel.CelExecutor, ck_cel_field.CelFieldExecutor,
                           ck_jsonata.JsonataExecutor))
        self.dlq = dlq_action.DlqAction if ours else ck_dlq.DlqAction

    def client(self, url):
        return overlay_class(self.sr.SchemaRegistryClient)({"url": url})

    def registry(self, *actions):
        registry = self.rr.RuleRegistry()
        for executor in self.executors:
            registry.register_executor(executor())
        for action in actions:
            registry.register_action(action)
        return registry

    def rule_set(self, domain=(), migration=()):
        def rule(name, kind, mode, rtype, expr, tags=None, on_failure=None):
            return self.sr.Rule(name, None, self.sr.RuleKind(kind), self.sr.RuleMode(mode),
                                rtype, tags, None, expr, None, on_failure, False)

        return self.sr.RuleSet([rule(*r) for r in migration], [rule(*r) for r in domain])



def produce(side, conf, topic, records, value_serializer):
    """Per record None, or the exception: (its type, its KafkaError's code name, the wrapped
    serializer exception's type and message, that exception's cause's type and message)."""
    producer = side.kafka.SerializingProducer(dict(conf, **{
        "key.serializer": side.kafka.serialization.StringSerializer(),
        "value.serializer": value_serializer}))
    outcomes, delivered = [], []
    for i, record in enumerate(records):
        try:
            value = record if hasattr(record, "DESCRIPTOR") else dict(record)  # Protobuf
            producer.produce(topic, key="k%d" % i, value=value,
                             headers=[("trace", b"t%d" % i)],
                             on_delivery=lambda err, msg: delivered.append(err))
            outcomes.append(None)
        except Exception as e:
            inner = e.exception
            outcomes.append((type(e).__name__, e.args[0].name(), type(inner).__name__,
                             str(inner), type(inner.__cause__).__name__, str(inner.__cause__)))
    assert producer.flush(30) == 0
    producer.close()
    assert delivered == [None] * outcomes.count(None)
    return outcomes


def consume(side, conf, topic, count, value_deserializer=None, key_deserializer="str"):
    """(key, value, headers) of the (one-partition) topic's records, which must be ``count``."""
    consumer = side.kafka.DeserializingConsumer(dict(conf, **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "key.deserializer": (side.kafka.serialization.StringDeserializer()
                             if key_deserializer == "str" else key_deserializer),
        "value.deserializer": value_deserializer}))
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    try:
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None:
                got.append((msg.key(), msg.value(), msg.headers()))
        _, high = consumer.get_watermark_offsets(side.kafka.TopicPartition(topic, 0), 30)
    finally:
        consumer.close()
    assert len(got) == count and high == count
    return got


def both(scenario):
    theirs, ours = scenario(Side(False)), scenario(Side(True))
    assert ours == theirs
    return ours


def test_what_the_registry_returns_of_a_rule_set(schema_registry):
    """Why the overlay: Apicurio gives a registered schema back without its ruleSet (a registry
    that keeps it, such as Confluent's, must give it back unchanged)."""
    client = sr.SchemaRegistryClient({"url": schema_registry.url})
    subject = "rules-" + uuid.uuid4().hex
    rules = Side(True).rule_set([("age_ok", "CONDITION", "WRITE", "CEL", "message.age >= 0")])
    client.register_schema(subject, sr.Schema(USER_V1, "AVRO", [], None, rules))
    returned = client.get_latest_version(subject).schema.rule_set
    if "/apis/ccompat/" in schema_registry.url:
        assert returned is None
    else:
        assert returned == rules


def test_cel_condition_rejects_a_bad_record(kafka_cluster, schema_registry, make_topic):
    conf = kafka_cluster.client_config()

    def scenario(side):
        topic = make_topic()
        client = side.client(schema_registry.url)
        client.register_with_rules(topic + "-value", side.sr.Schema(
            USER_V1, "AVRO", [], None,
            side.rule_set([("age_ok", "CONDITION", "WRITE", "CEL", "message.age >= 0")])))
        ser = side.avro.AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                           "use.latest.version": True},
                                       rule_registry=side.registry())
        outcomes = produce(side, conf, topic, [GOOD, BAD, GOOD], ser)
        got = consume(side, conf, topic, 2, side.avro.AvroDeserializer(
            client, rule_registry=side.registry()))
        return outcomes, [(k, v) for k, v, _ in got]

    outcomes, got = both(scenario)
    assert outcomes == [None, ("ValueSerializationError", "_VALUE_SERIALIZATION",
                               "SerializationError", "", "RuleConditionError",
                               "Rule expr failed: message.age >= 0"), None]
    assert got == [("k0", GOOD), ("k2", GOOD)]


def test_cel_field_transform_on_write_and_read(kafka_cluster, schema_registry, make_topic):
    conf = kafka_cluster.client_config()

    def scenario(side):
        topic = make_topic()
        client = side.client(schema_registry.url)
        client.register_with_rules(topic + "-value", side.sr.Schema(
            USER_V1, "AVRO", [], None, side.rule_set([
                ("mask", "TRANSFORM", "WRITE", "CEL_FIELD", "value + '-w'", ["PII"]),
                ("age_r", "TRANSFORM", "READ", "CEL_FIELD", "name == 'age' ; value * 2")])))
        ser = side.avro.AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                           "use.latest.version": True},
                                       rule_registry=side.registry())
        assert produce(side, conf, topic, [GOOD], ser) == [None]
        read = consume(side, conf, topic, 1, side.avro.AvroDeserializer(
            client, rule_registry=side.registry()))
        plain = consume(side, conf, topic, 1, side.avro.AvroDeserializer(
            side.sr.SchemaRegistryClient({"url": schema_registry.url})))
        return read[0][1], plain[0][1]

    read, plain = both(scenario)
    assert read == {"name": "ann-w", "age": 62}
    assert plain == {"name": "ann-w", "age": 31}  # on the wire: the write rule's result


def test_migration_between_two_versions(kafka_cluster, schema_registry, make_topic):
    conf = kafka_cluster.client_config()

    def scenario(side):
        topic = make_topic()
        subject = topic + "-value"
        client = side.client(schema_registry.url)
        client.register_with_rules(subject, side.sr.Schema(USER_V1, "AVRO"))
        client.register_with_rules(subject, side.sr.Schema(USER_V2, "AVRO", [], None,
                                                           side.rule_set(migration=[
                                                               ("up", "TRANSFORM", "UPGRADE",
                                                                "JSONATA", UPGRADE)])))
        # a producer still on version 1
        ser = side.avro.AvroSerializer(client, USER_V1, conf={"auto.register.schemas": False},
                                       rule_registry=side.registry())
        assert produce(side, conf, topic, [GOOD, BAD], ser) == [None, None]
        got = consume(side, conf, topic, 2, side.avro.AvroDeserializer(
            client, conf={"use.latest.version": True}, rule_registry=side.registry()))
        return [v for _, v, _ in got]

    assert both(scenario) == [{"full_name": "ann", "age": 31}, {"full_name": "bob", "age": -1}]


def test_dlq_action_sends_the_record_to_a_dead_letter_topic(kafka_cluster, schema_registry,
                                                             make_topic):
    conf = kafka_cluster.client_config()

    def scenario(side):
        topic, dead = make_topic(), make_topic()
        subject = topic + "-value"
        client = side.client(schema_registry.url)
        client.register_with_rules(subject, side.sr.Schema(USER_V1, "AVRO", [], None,
                                                           side.rule_set([(
                                                               "age_ok", "CONDITION", "WRITE",
                                                               "CEL", "message.age >= 0", None,
                                                               "DLQ")])))
        action = side.dlq(dict(conf, **{"dlq.topic": dead, "dlq.auto.flush": True}))
        registry = side.registry(action)
        ser = side.avro.AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                           "use.latest.version": True},
                                       rule_registry=registry)
        try:
            outcomes = produce(side, conf, topic, [GOOD, BAD], ser)
        finally:
            action.close()
        kept = consume(side, conf, topic, 1, side.avro.AvroDeserializer(
            client, rule_registry=side.registry()))
        dead_letters = consume(side, conf, dead, 1)
        [(key, value, headers)] = dead_letters
        # this run's topic names, made comparable across the two runs
        names = {subject.encode(): b"<subject>", topic.encode(): b"<topic>"}
        headers = [(k, names.get(v, v)) for k, v in headers]
        return outcomes, [(k, v) for k, v, _ in kept], key, json.loads(value), headers

    outcomes, kept, key, value, headers = both(scenario)
    assert outcomes == [None, ("ValueSerializationError", "_VALUE_SERIALIZATION",
                               "SerializationError", "Rule failed: age_ok", "RuleConditionError",
                               "Rule expr failed: message.age >= 0")]
    assert kept == [("k0", GOOD)]
    # the key serde was not a Schema Registry serde: no original key to keep
    assert key is None and value == BAD
    assert headers[0] == ("trace", b"t1")
    assert headers[1:] == [("__rule.name", b"age_ok"), ("__rule.mode", b"WRITE"),
                           ("__rule.subject", b"<subject>"), ("__rule.topic", b"<topic>"),
                           ("__rule.exception", b"Rule expr failed: message.age >= 0")]


USER_JSON = json.dumps({"type": "object", "title": "User", "properties": {
    "name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]})


def test_read_rule_sends_the_consumed_bytes_to_the_dead_letter_topic(kafka_cluster,
                                                                     schema_registry,
                                                                     make_topic):
    """A JSON Schema READ condition with onFailure DLQ: the consumer gets the error, the
    dead-letter topic the record's key and value bytes as consumed (the key serde being a
    Schema Registry one, the value serde knows the key)."""
    conf = kafka_cluster.client_config()

    def scenario(side):
        topic, dead = make_topic(), make_topic()
        client = side.client(schema_registry.url)
        client.register_with_rules(topic + "-value", side.sr.Schema(
            USER_JSON, "JSON", [], None, side.rule_set([
                ("age_ok", "CONDITION", "READ", "CEL", "message.age >= 0", None, "DLQ")])))
        json_mod = json_schema if side.ours else ck_json
        key_ser = side.avro.AvroSerializer(client, '"string"')
        value_ser = json_mod.JSONSerializer(USER_JSON, client,
                                            conf={"auto.register.schemas": False})
        producer = side.kafka.SerializingProducer(dict(conf, **{
            "key.serializer": key_ser, "value.serializer": value_ser}))
        for key, record in (("k0", GOOD), ("k1", BAD)):
            producer.produce(topic, key=key, value=dict(record))
        assert producer.flush(30) == 0
        producer.close()
        raw = consume(side, conf, topic, 2, key_deserializer=None)

        action = side.dlq(dict(conf, **{"dlq.topic": dead, "dlq.auto.flush": True}))
        consumer = side.kafka.DeserializingConsumer(dict(conf, **{
            "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
            "key.deserializer": side.avro.AvroDeserializer(client),
            "value.deserializer": json_mod.JSONDeserializer(
                None, schema_registry_client=client, rule_registry=side.registry(action))}))
        consumer.subscribe([topic])
        seen = []
        deadline = time.monotonic() + 60
        try:
            while len(seen) < 2 and time.monotonic() < deadline:
                try:
                    msg = consumer.poll(1.0)
                except Exception as e:
                    inner = e.exception
                    seen.append((type(e).__name__, type(inner).__name__, str(inner),
                                 type(inner.__cause__).__name__))
                    continue
                if msg is not None:
                    seen.append((msg.key(), msg.value()))
        finally:
            consumer.close()
            action.close()
        [(key, value, headers)] = consume(side, conf, dead, 1, key_deserializer=None)
        names = {(topic + "-value").encode(): b"<subject>", topic.encode(): b"<topic>"}
        return (seen, key == raw[1][0], value == raw[1][1],
                [(k, names.get(v, v)) for k, v in headers])

    seen, key_is_raw, value_is_raw, headers = both(scenario)
    assert seen == [("k0", GOOD), ("ValueDeserializationError", "SerializationError",
                                   "Rule failed: age_ok", "RuleConditionError")]
    assert key_is_raw and value_is_raw
    assert headers == [("__rule.name", b"age_ok"), ("__rule.mode", b"READ"),
                       ("__rule.subject", b"<subject>"), ("__rule.topic", b"<topic>"),
                       ("__rule.exception", b"Rule expr failed: message.age >= 0")]


PAYMENT = json.dumps({"type": "record", "name": "Payment", "namespace": "example", "fields": [
    {"name": "label", "type": "string", "confluent:tags": ["TEXT"]},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10,
                                "scale": 2}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}]})


def test_cel_library_functions_pass_and_fail_a_produce(kafka_cluster, schema_registry,
                                                       make_topic):
    """A WRITE condition with decimals.*, timestamp() and format() refuses what it should and
    passes the rest; a WRITE CEL_FIELD transform writes format()/string() of a decimal and a
    timestamp onto the record; the same on confluent-kafka's serdes and on ours."""
    import datetime
    from decimal import Decimal

    conf = kafka_cluster.client_config()
    at = datetime.datetime(2024, 5, 6, 7, 8, 9, 250000, tzinfo=datetime.timezone.utc)
    records = [{"label": "fee", "amount": Decimal("12.34"), "at": at},
               {"label": "refund", "amount": Decimal("-1.00"), "at": at},
               {"label": "old", "amount": Decimal("5.00"),
                "at": datetime.datetime(2019, 1, 1, tzinfo=datetime.timezone.utc)},
               {"label": "max", "amount": Decimal("99999.99"), "at": at}]
    check = ("decimals.gt(message.amount, decimal('0')) && "
             "decimals.lt(message.amount, decimal('99999.99')) && "
             "message.at >= timestamp(1577836800000, 3) && "
             "'%s/%d'.format([message.label, 1]).size() > 2")

    def scenario(side):
        topic = make_topic()
        client = side.client(schema_registry.url)
        client.register_with_rules(topic + "-value", side.sr.Schema(
            PAYMENT, "AVRO", [], None, side.rule_set([
                ("amount_ok", "CONDITION", "WRITE", "CEL", check),
                ("describe", "TRANSFORM", "WRITE", "CEL_FIELD",
                 "'%s: %s at %s'.format([value, string(decimals.round(message.amount, 1)),"
                 " string(message.at)])", ["TEXT"])])))
        ser = side.avro.AvroSerializer(client, None, conf={"auto.register.schemas": False,
                                                           "use.latest.version": True},
                                       rule_registry=side.registry())
        outcomes = produce(side, conf, topic, records, ser)
        got = consume(side, conf, topic, 1, side.avro.AvroDeserializer(
            client, rule_registry=side.registry()))
        return outcomes, [(k, v) for k, v, _ in got]

    outcomes, got = both(scenario)
    refused = ("ValueSerializationError", "_VALUE_SERIALIZATION", "SerializationError", "",
               "RuleConditionError", "Rule expr failed: " + check)
    assert outcomes == [None, refused, refused, refused]
    assert got == [("k0", {"label": "fee: 12.3 at 2024-05-06T07:08:09.250Z",
                           "amount": Decimal("12.34"), "at": at})]


def test_cel_library_in_protobuf_rules(kafka_cluster, schema_registry, make_topic):
    """has() with Protobuf's presence refuses an order with no address (an empty one is
    there), and a CEL transform's map, built with format(), is written back into the message:
    the same on confluent-kafka's Protobuf serdes and on ours."""
    import base64

    from confluent_kafka.schema_registry import protobuf as ck_pb

    from confluent_binding.schema_registry import protobuf

    from tests.support.protobuf_messages import build_messages

    _, order, _ = build_messages()
    conf = kafka_cluster.client_config()
    check = "has(message.ship_to) && message.id > 0"

    def text(descriptor):
        return base64.standard_b64encode(descriptor.file.serialized_pb).decode()

    def scenario(side):
        topic = make_topic()
        client = side.client(schema_registry.url)
        address = side.sr.Schema(text(order.DESCRIPTOR.fields_by_name["ship_to"].message_type),
                                 "PROTOBUF")
        client.register_schema("common/address.proto", address)
        version = client.lookup_schema("common/address.proto", address).version
        client.register_with_rules(topic + "-value", side.sr.Schema(
            text(order.DESCRIPTOR), "PROTOBUF",
            [side.sr.SchemaReference("common/address.proto", "common/address.proto", version)],
            None, side.rule_set([
                ("shipped", "CONDITION", "WRITE", "CEL", check),
                ("stamp", "TRANSFORM", "WRITE", "CEL",
                 "{'id': message.id, 'ship_to': message.ship_to,"
                 " 'note': '%s@%s'.format([message.note, message.ship_to.city])}")])))
        module = protobuf if side.ours else ck_pb
        ser = module.ProtobufSerializer(order, client, {"auto.register.schemas": False,
                                                        "use.latest.version": True},
                                        rule_registry=side.registry())
        records = [order(id=1, note="a", ship_to={"city": "Oslo"}), order(id=2, note="b"),
                   order(id=3, note="c", ship_to={}), order(id=0, note="d", ship_to={})]
        outcomes = produce(side, conf, topic, records, ser)
        got = consume(side, conf, topic, 2, module.ProtobufDeserializer(
            order, {}, schema_registry_client=client, rule_registry=side.registry()))
        return outcomes, [(k, v.id, v.note, v.HasField("ship_to"), v.ship_to.city)
                          for k, v, _ in got]

    outcomes, got = both(scenario)
    refused = ("ValueSerializationError", "_VALUE_SERIALIZATION", "SerializationError", "",
               "RuleConditionError", "Rule expr failed: " + check)
    assert outcomes == [None, refused, None, refused]
    assert got == [("k0", 1, "a@Oslo", True, "Oslo"), ("k2", 3, "c@", True, "")]
