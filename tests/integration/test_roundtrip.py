"""The end-to-end slice: 10,000 messages through a real broker and back."""
import uuid

import pytest

import confluent_binding as kafka

from tests.support import consume_messages

pytestmark = pytest.mark.integration

N = 10_000


def test_10k_messages_round_trip(kafka_cluster, make_topic):
    topic = make_topic(partitions=3)
    reports = []
    producer = kafka.Producer(kafka_cluster.client_config(**{"linger.ms": 5}))
    for i in range(N):
        producer.produce(topic, value=b"value-%d" % i, key=b"key-%d" % i,
                         on_delivery=lambda err, msg: reports.append((err, msg)))
        if i % 1000 == 0:
            producer.poll(0)
    assert producer.flush(30) == 0
    producer.close()

    # Every delivery report arrived exactly once, without error, with a real offset.
    assert len(reports) == N
    assert all(err is None for err, _ in reports)
    placed = {m.key(): (m.partition(), m.offset()) for _, m in reports}
    assert len(placed) == N
    assert {p for p, _ in placed.values()} == {0, 1, 2}
    for p in range(3):
        offsets = sorted(o for part, o in placed.values() if part == p)
        assert offsets == list(range(len(offsets))), "offsets of partition %d have gaps" % p
    for err, m in reports:
        assert m.topic() == topic
        assert m.value() == b"value-" + m.key()[4:]

    consumer = kafka.Consumer(kafka_cluster.client_config(**{
        "group.id": "rt-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
    consumer.subscribe([topic])
    messages = consume_messages(consumer, N)
    consumer.close()

    got = {m.key(): (m.partition(), m.offset(), m.value()) for m in messages}
    assert len(got) == N, "a message was read twice"
    for key, (partition, offset, value) in got.items():
        assert (partition, offset) == placed[key]
        assert value == b"value-" + key[4:]
