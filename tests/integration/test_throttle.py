"""throttle_cb against a real broker: a client-id quota makes the broker throttle the producer."""
import threading
import time
import uuid

import pytest

import confluent_binding as kafka

from tests.support.kafka_tools import alter_client_quota

pytestmark = pytest.mark.integration


def test_throttle_cb_served_in_poll_on_the_calling_thread(kafka_cluster, topic):
    client_id = "throttled-" + uuid.uuid4().hex[:8]
    alter_client_quota(kafka_cluster.bootstrap_servers, client_id, {"producer_byte_rate": 1024.0})
    events = []
    p = kafka.Producer(kafka_cluster.client_config(
        **{"client.id": client_id, "log_level": 0},
        throttle_cb=lambda ev: events.append((ev, threading.get_ident()))))
    try:
        # The broker applies the quota once its metadata image has it, a moment after
        # AlterClientQuotas returns: keep producing until a produce response reports a
        # throttle time (the condition under test), rather than betting that a fixed number
        # of messages is sent after the quota took effect.
        deadline = time.monotonic() + 60
        while not events and time.monotonic() < deadline:
            p.produce(topic, b"x" * 10_000)
            assert p.flush(30) == 0
            p.poll(0.1)
        assert events, "no throttle event within 60 s"
        assert all(t == threading.get_ident() for _, t in events)
        # The throttling broker is the one the messages went to: the partition's leader.
        md = p.list_topics(topic, timeout=30)
        leader = md.topics[topic].partitions[0].leader
        broker = md.brokers[leader]
        ev = events[0][0]
        assert isinstance(ev, kafka.ThrottleEvent)
        assert ev.broker_id == leader and ev.throttle_time > 0
        assert ev.broker_name == "%s:%d" % (broker.host, broker.port)
        assert "throttled for" in str(ev)
    finally:
        p.close(0)
        alter_client_quota(kafka_cluster.bootstrap_servers, client_id, {"producer_byte_rate": None})
