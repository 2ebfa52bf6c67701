"""Faults only a cluster shows: three brokers (replication factor 3, min.insync.replicas 2,
acks=all), the broker leading the partitions SIGKILLed under a producer and restarted, twice.
An idempotent producer loses and duplicates nothing and keeps each partition's order, checked
by reading the topic back; a producer without idempotence reports its duplicates (a figure).

The default suite sends 200,000 messages per test; the 1,000,000-message runs are marked slow
(make reliability-long)."""
import threading
import time
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.testing import KafkaCluster

from tests.support.sequences import (
    Reports,
    missing_and_duplicates,
    produce_range,
    read_back,
    wait_for,
)

pytestmark = pytest.mark.integration

PARTITIONS = 6
BROKERS = 3


@pytest.fixture
def cluster(tmp_path):
    with KafkaCluster(brokers=BROKERS, min_insync_replicas=2, heap="768m",
                      workdir=tmp_path / "cluster") as c:
        yield c


def _in_sync(cluster, topic):
    """Every partition has a leader and all its replicas in sync."""
    p = kafka.Producer(cluster.client_config(log_level=0))
    try:
        md = p.list_topics(topic, timeout=10).topics[topic]
    finally:
        p.close()
    return len(md.partitions) == PARTITIONS and all(
        pm.leader >= 0 and len(pm.isrs) == BROKERS for pm in md.partitions.values())


def _kill_leaders_while_producing(cluster, idempotent, n, record_property):
    """Produce n sequence-numbered messages; once deliveries pass n/6, SIGKILL the broker that
    leads partition 0 (and others), restart it and wait until every replica is back in sync
    (in another thread, while producing goes on); again once deliveries pass n/2 (by then
    another broker may lead).

    The kill is done by the producing loop right after it produced a chunk, so every kill
    finds messages in flight; the loop does not produce past a kill's threshold before the
    previous fault has recovered, nor more than n/10 past it before the kill."""
    topic = cluster.create_topic("leaders-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    assert _in_sync(cluster, topic)
    reports = Reports()
    p = kafka.Producer(cluster.client_config(**{
        "enable.idempotence": idempotent, "acks": "all", "linger.ms": 5,
        "message.timeout.ms": 300_000, "queue.buffering.max.messages": 1_000_000,
        "reconnect.backoff.max.ms": 500, "log_level": 0}, on_delivery=reports))
    thresholds = [n // 6, n // 2]
    window = n // 10
    kills, recovery = [], None
    # who leads partition 0 is looked up before each kill is due, so the kill is immediate
    next_leader = [cluster.leader(topic, 0)]

    def recover(leader, kill, t0):
        wait_for("partition 0 to get a new leader",
                 lambda: cluster.leader(topic, 0) not in (leader, -1), 60)
        kill["leader_moved_s"] = round(time.monotonic() - t0, 1)
        cluster.node(leader).restart()
        wait_for("every replica back in sync", lambda: _in_sync(cluster, topic), 120)
        kill["back_in_sync_s"] = round(time.monotonic() - t0, 1)
        next_leader[0] = cluster.leader(topic, 0)

    def recovered():
        return recovery is None or not recovery.is_alive()

    t0 = time.monotonic()
    try:
        for start in range(0, n, 1000):
            if thresholds and start >= thresholds[0]:
                wait_for("the previous fault to recover", recovered, 300, lambda: p.poll(0.05))
            if thresholds and start >= thresholds[0] + window:
                wait_for("deliveries to pass %d" % thresholds[0],
                         lambda: reports.ok >= thresholds[0], 300, lambda: p.poll(0.05))
            produce_range(p, topic, start, min(start + 1000, n), PARTITIONS)
            if thresholds and reports.ok >= thresholds[0] and recovered():
                thresholds.pop(0)
                leader = next_leader[0]
                led = sum(cluster.leader(topic, part) == leader for part in range(PARTITIONS))
                t_kill = time.monotonic()
                cluster.node(leader).kill()
                kill = {"node": leader, "partitions_led": led, "delivered": reports.ok,
                        "in_flight": len(p)}
                kills.append(kill)
                recovery = threading.Thread(target=recover, args=(leader, kill, t_kill))
                recovery.start()
            p.poll(0.01)
        while thresholds or not recovered():
            # the last threshold not reached while producing: deliveries pass it now
            if thresholds and reports.ok >= thresholds[0] and recovered():
                raise AssertionError("all %d produced before the kill at %d" % (n, thresholds[0]))
            p.poll(0.1)
    finally:
        if recovery is not None:
            recovery.join()
    assert len(kills) == 2 and all(k["in_flight"] > 0 for k in kills), kills
    assert p.flush(300) == 0
    elapsed = time.monotonic() - t0
    p.close()
    assert reports.ok + len(reports.failed) == n   # every message got exactly one report
    record_property("kills", kills)
    record_property("produce_seconds", round(elapsed, 1))
    print("\n%d messages, idempotence %s, %.1f s; kills: %r" % (n, idempotent, elapsed, kills))
    return topic, reports


def _idempotent(cluster, n, record_property):
    topic, reports = _kill_leaders_while_producing(cluster, True, n, record_property)
    assert reports.failed == []
    seen = read_back(cluster, topic, PARTITIONS, timeout=300)
    for part in range(PARTITIONS):
        # every message once, in the order produced
        assert seen[part] == list(range(part, n, PARTITIONS)), "partition %d" % part


def _not_idempotent(cluster, n, record_property):
    topic, reports = _kill_leaders_while_producing(cluster, False, n, record_property)
    seen = read_back(cluster, topic, PARTITIONS, timeout=300)
    failed = {seq for seq, _ in reports.failed}
    missing, duplicates = missing_and_duplicates(seen, n, failed)
    assert missing == []
    record_property("duplicates", duplicates)
    record_property("failed", len(failed))
    print("without idempotence: %d messages, %d duplicates, %d reported failed"
          % (n, duplicates, len(failed)))


def test_idempotent_producer_survives_leader_kills(cluster, record_property):
    _idempotent(cluster, 200_000, record_property)


def test_producer_without_idempotence_reports_duplicates_after_leader_kills(
        cluster, record_property):
    _not_idempotent(cluster, 200_000, record_property)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_idempotent_producer_survives_leader_kills_1m(cluster, record_property):
    _idempotent(cluster, 1_000_000, record_property)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_producer_without_idempotence_after_leader_kills_1m(cluster, record_property):
    _not_idempotent(cluster, 1_000_000, record_property)
