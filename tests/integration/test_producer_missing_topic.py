"""A producer told by the broker that a topic does not exist names it (librdkafka patch 0006):
an error event, not fatal, with the topic's name and the wait, while confluent-kafka says nothing
until the messages fail after ``topic.metadata.propagation.max.ms``. The messages fail the same
way on both at the end of that wait, and are delivered if the topic appears in time.

When the producer does not ask the broker to create topics (``allow.auto.create.topics=false``)
the first answer names the topic. With the producer's default (it asks), a broker that creates
topics answers "unknown" while it creates one, so the event waits until the topic is still
missing 5 s (at most half the wait) after the first produce: on a cluster without
auto-creation (a broker of its own here, as managed clusters are set up), and never for a topic
the broker creates."""

import time
import uuid

import pytest

import confluent_binding as kafka

pytestmark = pytest.mark.integration

peer = pytest.importorskip("confluent_kafka")

E = kafka.KafkaError
WAIT_MS = 12000
PATIENCE_S = 5.0
TEXT = ("Topic %s not found in the cluster: messages produced to it wait up to %dms for it to "
        "appear (topic.metadata.propagation.max.ms), then fail")


def _conf(cluster, errors, wait_ms=WAIT_MS, **extra):
    return cluster.client_config(error_cb=errors.append,
                                 **{"topic.metadata.propagation.max.ms": wait_ms}, **extra)


def _missing():
    return "missing-%s" % uuid.uuid4().hex[:10]


def test_a_missing_topic_is_named_and_fails_as_confluent_kafka(no_auto_create_cluster):
    topic = _missing()
    ours_errors, theirs_errors, ours_reports, theirs_reports = [], [], [], []
    ours = kafka.Producer(_conf(no_auto_create_cluster, ours_errors))
    theirs = peer.Producer(_conf(no_auto_create_cluster, theirs_errors))
    ours.produce(topic, b"v", on_delivery=lambda err, msg: ours_reports.append(err))
    theirs.produce(topic, b"v", on_delivery=lambda err, msg: theirs_reports.append(err))
    start = time.monotonic()
    while not ours_errors and time.monotonic() - start < WAIT_MS / 1000.0:
        ours.poll(0.05)
        theirs.poll(0.05)
    named_after = time.monotonic() - start
    assert [(e.code(), e.str(), e.fatal()) for e in ours_errors] \
        == [(E.UNKNOWN_TOPIC_OR_PART, TEXT % (topic, WAIT_MS), False)]
    # the producer asks for topics to be created: named once still missing after the patience,
    # well before the wait ends; the message still waits
    assert PATIENCE_S <= named_after < WAIT_MS / 1000.0 - 3, named_after
    assert ours_reports == [] and len(ours) == 1
    # confluent-kafka says nothing in that time
    assert theirs_errors == []

    assert ours.flush(WAIT_MS / 1000.0 + 20) == 0
    assert theirs.flush(WAIT_MS / 1000.0 + 20) == 0
    assert [e.code() for e in ours_reports] == [e.code() for e in theirs_reports] \
        == [E.UNKNOWN_TOPIC_OR_PART]
    # said once for the topic, not for each message or metadata refresh
    assert len(ours_errors) == 1
    ours.close(0)


def test_named_at_once_when_not_asking_for_creation_and_the_messages_still_wait(kafka_cluster):
    topic = _missing()
    errors, reports = [], []
    producer = kafka.Producer(_conf(kafka_cluster, errors, 60000,
                                    **{"allow.auto.create.topics": False}))
    for i in range(3):
        producer.produce(topic, b"v%d" % i,
                         on_delivery=lambda err, msg: reports.append((err, msg.offset())))
    start = time.monotonic()
    while not errors and time.monotonic() - start < 30:
        producer.poll(0.05)
    assert [(e.code(), e.str()) for e in errors] \
        == [(E.UNKNOWN_TOPIC_OR_PART, TEXT % (topic, 60000))]
    assert time.monotonic() - start < PATIENCE_S
    kafka_cluster.create_topic(topic)
    assert producer.flush(60) == 0
    assert reports == [(None, 0), (None, 1), (None, 2)]
    assert len(errors) == 1
    producer.close(0)


def test_topics_that_exist_or_the_broker_creates_are_not_reported(kafka_cluster, make_topic):
    errors, reports = [], []
    producer = kafka.Producer(kafka_cluster.client_config(error_cb=errors.append))
    created_by_the_broker = _missing()
    for topic in (make_topic(), created_by_the_broker):
        producer.produce(topic, b"v", on_delivery=lambda err, msg: reports.append(err))
    assert producer.flush(30) == 0
    assert reports == [None, None]
    # flush() served every event queued before the deliveries: the broker answered "unknown"
    # for the topic it was creating, within the patience
    assert errors == []
    producer.close(0)
