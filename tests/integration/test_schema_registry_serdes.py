"""The Avro, JSON Schema and Protobuf serdes against the real registry and the real broker.

Every format round-trips through SerializingProducer/DeserializingConsumer, and across to
confluent-kafka's serdes (talking to the same registry) both ways; references; bad input.
"""
import time
import uuid

import pytest

pytest.importorskip("fastavro")
pytest.importorskip("jsonschema")
pytest.importorskip("google.protobuf")

import confluent_kafka as ck  # noqa: E402
import confluent_kafka.schema_registry as ck_sr  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import json_schema as ck_json  # noqa: E402
from confluent_kafka.schema_registry import protobuf as ck_pb  # noqa: E402

import confluent_binding as cb  # noqa: E402
from confluent_binding import error  # noqa: E402
from confluent_binding.schema_registry import (  # noqa: E402
    Schema,
    SchemaReference,
    SchemaRegistryClient,
    avro,
    json_schema,
    protobuf,
)
from confluent_binding.serialization import StringDeserializer, StringSerializer  # noqa: E402

from tests.support.protobuf_messages import build_messages  # noqa: E402

pytestmark = pytest.mark.integration

AVRO_USER = """{"type": "record", "name": "User", "namespace": "example",
 "fields": [{"name": "name", "type": "string"},
            {"name": "age", "type": ["null", "int"], "default": null}]}"""
JSON_USER = """{"$schema": "http://json-schema.org/draft-07/schema#", "title": "User",
 "type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
 "required": ["name"]}"""
DICTS = [{"name": "ann", "age": 31}, {"name": "żółw", "age": None}, {"name": "z", "age": -5}]
_, ORDER, _ = build_messages()
ORDERS = [ORDER(id=1, note="first", ship_to={"city": "Oslo"}), ORDER(id=2), ORDER(note="ü")]


def registry_url(schema_registry):
    return schema_registry.url


def records_for(fmt):
    if fmt == "protobuf":
        return ORDERS
    if fmt == "json":
        return [{k: v for k, v in d.items() if v is not None} for d in DICTS]
    return DICTS


def serializer(side, fmt, client):
    """(value serializer, value deserializer) of ``side`` (our modules or confluent's)."""
    if fmt == "avro":
        mod = avro if side == "ours" else ck_avro
        return mod.AvroSerializer(client, AVRO_USER), mod.AvroDeserializer(client)
    if fmt == "json":
        mod = json_schema if side == "ours" else ck_json
        return mod.JSONSerializer(JSON_USER, client), mod.JSONDeserializer(JSON_USER)
    mod = protobuf if side == "ours" else ck_pb
    return (mod.ProtobufSerializer(ORDER, client),
            mod.ProtobufDeserializer(ORDER, {"use.deprecated.format": False}))


def client_for(side, url):
    return SchemaRegistryClient({"url": url}) if side == "ours" else ck_sr.SchemaRegistryClient(
        {"url": url})


def produce(side, conf, topic, records, value_serializer):
    module = cb if side == "ours" else ck
    producer = module.SerializingProducer(dict(conf, **{
        "key.serializer": module.serialization.StringSerializer(),
        "value.serializer": value_serializer}))
    errors = []
    for i, record in enumerate(records):
        producer.produce(topic, key="k%d" % i, value=record,
                         on_delivery=lambda err, msg: errors.append(err))
    assert producer.flush(30) == 0
    producer.close()
    assert errors == [None] * len(records)


def consume(side, conf, topic, count, value_deserializer):
    module = cb if side == "ours" else ck
    consumer = module.DeserializingConsumer(dict(conf, **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "key.deserializer": module.serialization.StringDeserializer(),
        "value.deserializer": value_deserializer}))
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    try:
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None:
                got.append((msg.key(), msg.value()))
    finally:
        consumer.close()
    return got


@pytest.mark.parametrize("fmt", ["avro", "json", "protobuf"])
@pytest.mark.parametrize("writer,reader", [("ours", "ours"), ("ours", "confluent"),
                                           ("confluent", "ours")])
def test_round_trip_and_cross_compatibility(kafka_cluster, schema_registry, make_topic, fmt,
                                            writer, reader):
    url = registry_url(schema_registry)
    topic = make_topic()
    conf = kafka_cluster.client_config()
    records = records_for(fmt)
    ser, _ = serializer(writer, fmt, client_for(writer, url))
    produce(writer, conf, topic, records, ser)
    _, de = serializer(reader, fmt, client_for(reader, url))
    got = consume(reader, conf, topic, len(records), de)
    assert got == [("k%d" % i, r) for i, r in enumerate(records)]
    registered = SchemaRegistryClient({"url": url}).get_latest_version(topic + "-value")
    assert registered.schema.schema_type == {"avro": "AVRO", "json": "JSON",
                                             "protobuf": "PROTOBUF"}[fmt]


def test_wire_bytes_are_framed_with_the_registered_id(kafka_cluster, schema_registry, make_topic):
    url = registry_url(schema_registry)
    topic = make_topic()
    conf = kafka_cluster.client_config()
    client = SchemaRegistryClient({"url": url})
    produce("ours", conf, topic, DICTS[:1], avro.AvroSerializer(client, AVRO_USER))
    schema_id = client.get_latest_version(topic + "-value").schema_id
    raw = consume("ours", conf, topic, 1, None)
    assert raw == [("k0", b"\x00" + schema_id.to_bytes(4, "big") + b"\x06ann\x02\x3e")]


def test_references(kafka_cluster, schema_registry, make_topic):
    url = registry_url(schema_registry)
    conf = kafka_cluster.client_config()
    client = SchemaRegistryClient({"url": url})
    ck_client = ck_sr.SchemaRegistryClient({"url": url})
    tag = uuid.uuid4().hex[:8]

    # Avro: a record whose field is a named type registered under its own subject
    address = ('{"type":"record","name":"Address","namespace":"example",'
               '"fields":[{"name":"city","type":"string"}]}')
    person = ('{"type":"record","name":"Person","namespace":"example",'
              '"fields":[{"name":"home","type":"example.Address"}]}')
    client.register_schema("address-" + tag, Schema(address, "AVRO"))
    refs = [SchemaReference("example.Address", "address-" + tag, 1)]
    topic = make_topic()
    record = {"home": {"city": "Oslo"}}
    ser = avro.AvroSerializer(client, Schema(person, "AVRO", refs))
    produce("ours", conf, topic, [record], ser)
    assert consume("confluent", conf, topic, 1, ck_avro.AvroDeserializer(ck_client)) == [
        ("k0", record)]
    assert consume("ours", conf, topic, 1, avro.AvroDeserializer(client)) == [("k0", record)]

    # JSON Schema: a $ref to a schema registered under its own subject
    client.register_schema("city-" + tag, Schema(
        '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}', "JSON"))
    order = ('{"title":"Shipment","type":"object","properties":{"to":{"$ref":"city.json"}},'
             '"required":["to"]}')
    json_refs = [SchemaReference("city.json", "city-" + tag, 1)]
    topic = make_topic()
    ser = json_schema.JSONSerializer(Schema(order, "JSON", json_refs), client)
    produce("ours", conf, topic, [{"to": {"city": "Oslo"}}], ser)
    producer = cb.SerializingProducer(dict(conf, **{"value.serializer": ser}))
    with pytest.raises(error.ValueSerializationError, match="'city' is a required property"):
        producer.produce(topic, value={"to": {}})
    producer.close()
    assert consume("ours", conf, topic, 1, json_schema.JSONDeserializer(
        None, schema_registry_client=client)) == [("k0", {"to": {"city": "Oslo"}})]

    # Protobuf: main.proto imports common/address.proto, registered first as a reference
    topic = make_topic()
    produce("ours", conf, topic, ORDERS[:1], protobuf.ProtobufSerializer(ORDER, client))
    latest = client.get_latest_version(topic + "-value")
    assert [(r.name, r.subject) for r in latest.schema.references] == [
        ("common/address.proto", "common/address.proto")]
    assert consume("confluent", conf, topic, 1, ck_pb.ProtobufDeserializer(
        ORDER, {"use.deprecated.format": False}, ck_client)) == [("k0", ORDERS[0])]


@pytest.mark.parametrize("fmt", ["avro", "json", "protobuf"])
def test_serializer_keeps_the_schema_id_it_framed_with_as_confluent(kafka_cluster, schema_registry,
                                                                    make_topic, fmt):
    """confluent-kafka's Protobuf reference test reads ``serializer._schema_id`` after producing
    (then the registered schema's references by that id): each side's serializer, producing
    through its SerializingProducer to a topic of its own, keeps the id its records were framed
    with, the one the registry gives the subject, with Protobuf's message indexes."""
    url = registry_url(schema_registry)
    conf = kafka_cluster.client_config()
    seen = {}
    for side in ("ours", "confluent"):
        client = client_for(side, url)
        ser, _ = serializer(side, fmt, client)
        before = ser._schema_id
        topic = make_topic()
        produce(side, conf, topic, records_for(fmt)[:1], ser)
        sid = ser._schema_id
        registered = client.get_latest_version(topic + "-value")
        framed = consume(side, conf, topic, 1, None)[0][1]
        assert (sid.id, int.from_bytes(framed[1:5], "big")) == (registered.schema_id,) * 2
        refs = [(r.name, r.subject) for r in client.get_schema(sid.id).references]
        seen[side] = (before, type(sid).__name__, sid.message_indexes, refs)
    expected_refs = [("common/address.proto", "common/address.proto")] if fmt == "protobuf" \
        else []
    assert seen["ours"] == seen["confluent"] == (
        None, "SchemaId", [1] if fmt == "protobuf" else None, expected_refs)


def high_watermark(conf, topic):
    consumer = cb.Consumer(dict(conf, **{"group.id": uuid.uuid4().hex}))
    try:
        return consumer.get_watermark_offsets(cb.TopicPartition(topic, 0), timeout=30)[1]
    finally:
        consumer.close()


@pytest.mark.parametrize("fmt,bad", [("avro", {"name": 5}), ("json", {"age": 1}),
                                     ("protobuf", {"id": 1})])
def test_record_not_matching_schema_is_not_produced(kafka_cluster, schema_registry, make_topic,
                                                    fmt, bad):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    ser, _ = serializer("ours", fmt, SchemaRegistryClient({"url": registry_url(schema_registry)}))
    producer = cb.SerializingProducer(dict(conf, **{"value.serializer": ser}))
    with pytest.raises(error.ValueSerializationError) as info:
        producer.produce(topic, key=b"k", value=bad)
    assert info.value.code == cb.KafkaError._VALUE_SERIALIZATION
    assert isinstance(info.value.exception, Exception)
    assert producer.flush(30) == 0
    producer.close()
    assert high_watermark(conf, topic) == 0


def test_wrong_magic_byte_and_unknown_schema_id(kafka_cluster, schema_registry, make_topic):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    raw = cb.Producer(conf)
    raw.produce(topic, key=b"a", value=b"\x07\x00\x00\x00\x01\x02")
    raw.produce(topic, key=b"b", value=b"\x00\x7f\xff\xff\xf0\x02")
    assert raw.flush(30) == 0
    raw.close()
    client = SchemaRegistryClient({"url": registry_url(schema_registry)})
    consumer = cb.DeserializingConsumer(dict(conf, **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "key.deserializer": StringDeserializer(),
        "value.deserializer": avro.AvroDeserializer(client)}))
    consumer.subscribe([topic])
    failures = []
    deadline = time.monotonic() + 60
    while len(failures) < 2 and time.monotonic() < deadline:
        try:
            consumer.poll(1.0)
        except error.ValueDeserializationError as e:
            failures.append((e.kafka_message.key(), type(e.exception).__name__, str(e.exception)))
    consumer.close()
    assert failures[0] == (b"a", "SerializationError", "Invalid magic byte")
    assert failures[1][:2] == (b"b", "SchemaRegistryError")


def test_unreachable_registry(kafka_cluster, make_topic):
    from tests.support import closed_port

    topic = make_topic()
    conf = kafka_cluster.client_config()
    client = SchemaRegistryClient({"url": "http://127.0.0.1:%d" % closed_port()})
    producer = cb.SerializingProducer(dict(conf, **{
        "key.serializer": StringSerializer(),
        "value.serializer": avro.AvroSerializer(client, AVRO_USER)}))
    with pytest.raises(error.ValueSerializationError):
        producer.produce(topic, key="k", value=DICTS[0])
    assert producer.flush(30) == 0
    producer.close()
    assert high_watermark(conf, topic) == 0
