"""SerializingProducer/DeserializingConsumer through the real broker, and across to
confluent-kafka's."""
import time
import uuid

import confluent_kafka as ck
import pytest

import confluent_binding as cb
from confluent_binding import serialization as ser

pytestmark = pytest.mark.integration

RECORDS = [("alpha", 1, 0.5), ("żółw", -2**31, -1e300), ("", 2**31 - 1, float("inf")),
           (None, 0, None)]


def produce_all(module, conf, topic, headers=None):
    reports = []
    producer = module.SerializingProducer(dict(conf, **{
        "key.serializer": module.serialization.StringSerializer(),
        "value.serializer": module.serialization.DoubleSerializer()}))
    for key, number, value in RECORDS:
        producer.produce(topic, key=key, value=value,
                         headers=[("n", number.to_bytes(4, "big", signed=True))],
                         on_delivery=lambda err, msg: reports.append((err, msg.offset())))
    assert producer.flush(30) == 0
    producer.close()
    assert [err for err, _ in reports] == [None] * len(RECORDS)
    assert [off for _, off in reports] == list(range(len(RECORDS)))


def consume_all(module, conf, topic, count):
    seen = []
    consumer = module.DeserializingConsumer(dict(conf, **{
        "group.id": "serde-" + uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "key.deserializer": module.serialization.StringDeserializer(),
        "value.deserializer": module.serialization.DoubleDeserializer()}))
    consumer.subscribe([topic])
    deadline = time.monotonic() + 60
    while len(seen) < count and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None:
            seen.append((msg.key(), msg.value(), msg.offset(), msg.headers()))
    consumer.close()
    return seen


def expected():
    return [(k, v, i, [("n", n.to_bytes(4, "big", signed=True))])
            for i, (k, n, v) in enumerate(RECORDS)]


@pytest.mark.parametrize("writer,reader", [(cb, cb), (cb, ck), (ck, cb)],
                         ids=["ours-ours", "ours-confluent", "confluent-ours"])
def test_round_trip(kafka_cluster, make_topic, writer, reader):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    produce_all(writer, conf, topic)
    assert consume_all(reader, conf, topic, len(RECORDS)) == expected()


def test_wire_bytes_are_the_java_encodings(kafka_cluster, make_topic):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    producer = cb.SerializingProducer(dict(conf, **{
        "key.serializer": ser.IntegerSerializer(),
        "value.serializer": ser.StringSerializer("utf_16_be")}))
    producer.produce(topic, key=258, value="hé")
    assert producer.flush(30) == 0
    producer.close()
    consumer = cb.Consumer(dict(conf, **{"group.id": uuid.uuid4().hex,
                                         "auto.offset.reset": "earliest"}))
    consumer.subscribe([topic])
    msg = None
    deadline = time.monotonic() + 60
    while msg is None and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
    consumer.close()
    assert (msg.key(), msg.value()) == (b"\x00\x00\x01\x02", b"\x00h\x00\xe9")


def test_failures_surface_per_message_and_consumption_continues(kafka_cluster, make_topic):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    raw = cb.Producer(conf)
    for key, value in ((b"\x00\x00\x00\x01", b"ok"), (b"bad key!", b"ok"),
                       (b"\x00\x00\x00\x03", b"\xc3"), (b"\x00\x00\x00\x04", b"last")):
        raw.produce(topic, value=value, key=key)
    assert raw.flush(30) == 0
    raw.close()

    producer = cb.SerializingProducer(dict(conf, **{"value.serializer": ser.IntegerSerializer()}))
    with pytest.raises(cb.error.ValueSerializationError, match="format requires"):
        producer.produce(topic, value=2**40)
    assert producer.flush(30) == 0
    producer.close()

    consumer = cb.DeserializingConsumer(dict(conf, **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "key.deserializer": ser.IntegerDeserializer(),
        "value.deserializer": ser.StringDeserializer()}))
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    while len(got) < 4 and time.monotonic() < deadline:
        try:
            msg = consumer.poll(1.0)
        except ser.SerializationError as e:
            got.append((type(e).__name__, e.code, e.kafka_message.offset()))
            continue
        if msg is not None:
            got.append((msg.key(), msg.value(), msg.offset()))
    consumer.close()
    assert got == [(1, "ok", 0),
                   ("KeyDeserializationError", cb.KafkaError._KEY_DESERIALIZATION, 1),
                   ("ValueDeserializationError", cb.KafkaError._VALUE_DESERIALIZATION, 2),
                   (4, "last", 3)]
