"""Faults only a cluster shows: three brokers (replication factor 3, min.insync.replicas 2,
acks=all), the broker leading the partitions SIGKILLed under a producer and restarted, twice.
An idempotent producer loses and duplicates nothing and keeps each partition's order, checked
by reading the topic back; a producer without idempotence reports its duplicates (a figure),
each of them a message it sent again. Both prove that the kills reached the producer: by its
statistics, produce requests were in flight to each broker killed, and every message in them
was sent again.

The default suite sends 200,000 messages per test; the 1,000,000-message runs are marked slow
(make reliability-long)."""
import threading
import time
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.testing import KafkaCluster

from tests.support.client_stats import INTERVAL_MS, Statistics
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
# delivered before the first kill: what a new topic costs (its first requests may find a
# leader not ready yet and be sent again) is counted apart from what the kills cost
FIRST = 1000


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


def _leading(cluster, topic):
    """(the node leading partition 0, how many partitions it leads)."""
    leader = cluster.leader(topic, 0)
    return leader, sum(cluster.leader(topic, part) == leader for part in range(PARTITIONS))


def _kill_leaders_while_producing(cluster, idempotent, n, record_property):
    """Produce n sequence-numbered messages; once deliveries pass n/6, SIGKILL the broker that
    leads partition 0 (and others), restart it and wait until every replica is back in sync
    (in another thread, while producing goes on); again once deliveries pass n/2 (by then
    another broker may lead).

    Every kill finds produce requests in flight: the producing loop pauses the leader (SIGSTOP:
    it answers nothing), produces a chunk, waits until the producer's statistics show messages
    in flight to it and kills it. (A kill right after a chunk is not enough: the requests can
    all be answered before it lands.) The loop does not produce past a kill's threshold before
    the previous fault has recovered, nor more than n/10 past it before the kill.

    Returns the topic, the delivery reports and how many times the producer sent a message
    again. Those sent again after the first FIRST had been delivered only the kills can cause:
    fewer than were in flight to the killed brokers fails the test."""
    topic = cluster.create_topic("leaders-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    assert _in_sync(cluster, topic)
    reports = Reports()
    stats = Statistics()
    p = kafka.Producer(cluster.client_config(**{
        "enable.idempotence": idempotent, "acks": "all", "linger.ms": 5,
        "message.timeout.ms": 300_000, "queue.buffering.max.messages": 1_000_000,
        "reconnect.backoff.max.ms": 500, "statistics.interval.ms": INTERVAL_MS,
        "log_level": 0}, on_delivery=reports, stats_cb=stats))
    thresholds = [n // 6, n // 2]
    window = n // 10
    kills, recovery, recovery_failed = [], None, []
    # who leads partition 0 is looked up before each kill is due, so the kill is immediate
    next_leader = [_leading(cluster, topic)]

    def recover(leader, kill, t0):
        try:
            wait_for("partition 0 to get a new leader",
                     lambda: cluster.leader(topic, 0) not in (leader, -1), 60)
            kill["leader_moved_s"] = round(time.monotonic() - t0, 1)
            cluster.node(leader).restart()
            wait_for("every replica back in sync", lambda: _in_sync(cluster, topic), 120)
            kill["back_in_sync_s"] = round(time.monotonic() - t0, 1)
            next_leader[0] = _leading(cluster, topic)
        except BaseException as exc:   # failed in the test's thread, below
            recovery_failed.append(exc)

    def recovered():
        if recovery_failed:
            raise recovery_failed[0]
        return recovery is None or not recovery.is_alive()

    def in_flight(node):
        """Messages in produce requests the node has not answered, by a sample taken now."""
        stats.settle(p)
        return stats.broker(node)["waitresp_msg_cnt"]

    def kill_paused(leader, led):
        nonlocal recovery
        wait_for("messages in flight to the paused node %d" % leader,
                 lambda: in_flight(leader) > 0, 60)
        t_kill = time.monotonic()
        cluster.node(leader).kill()
        kill = {"node": leader, "partitions_led": led, "delivered": reports.ok,
                "in_flight": stats.broker(leader)["waitresp_msg_cnt"]}
        kills.append(kill)
        recovery = threading.Thread(target=recover, args=(leader, kill, t_kill))
        recovery.start()

    t0 = time.monotonic()
    produce_range(p, topic, 0, FIRST, PARTITIONS)
    assert p.flush(60) == 0
    before = stats.settle(p)["txmsgs"] - FIRST
    paused = None
    try:
        for start in range(FIRST, n, 1000):
            if thresholds and start >= thresholds[0]:
                wait_for("the previous fault to recover", recovered, 300, lambda: p.poll(0.05))
            if thresholds and start >= thresholds[0] + window:
                wait_for("deliveries to pass %d" % thresholds[0],
                         lambda: reports.ok >= thresholds[0], 300, lambda: p.poll(0.05))
            produce_range(p, topic, start, min(start + 1000, n), PARTITIONS)
            if paused is not None:
                kill_paused(*paused)
                paused = None
            elif thresholds and reports.ok >= thresholds[0] and recovered():
                thresholds.pop(0)
                paused = next_leader[0]
                cluster.node(paused[0]).pause()
            p.poll(0.01)
        if paused is not None:
            kill_paused(*paused)
        while thresholds or not recovered():
            # the last threshold not reached while producing: deliveries pass it now
            if thresholds and reports.ok >= thresholds[0] and recovered():
                raise AssertionError("all %d produced before the kill at %d" % (n, thresholds[0]))
            p.poll(0.1)
    finally:
        if paused is not None and cluster.node(paused[0]).is_running:
            cluster.node(paused[0]).resume()   # failed before its kill
        if recovery is not None:
            recovery.join()
    recovered()
    assert len(kills) == 2 and all(k["in_flight"] > 0 for k in kills), kills
    assert p.flush(300) == 0
    elapsed = time.monotonic() - t0
    sent_again = stats.settle(p)["txmsgs"] - n
    p.close()
    assert reports.ok + len(reports.failed) == n   # every message got exactly one report
    record_property("kills", kills)
    record_property("produce_seconds", round(elapsed, 1))
    record_property("sent_again_at_start", before)
    record_property("sent_again", sent_again)
    print("\n%d messages, idempotence %s, %.1f s, %d sent again (%d at the start); kills: %r"
          % (n, idempotent, elapsed, sent_again, before, kills))
    # the positive control: the kills reached the producer, which sent again every message
    # that was in flight to a killed broker
    assert sent_again - before >= sum(k["in_flight"] for k in kills), (sent_again, before, kills)
    return topic, reports, sent_again


def _idempotent(cluster, n, record_property):
    topic, reports, _ = _kill_leaders_while_producing(cluster, True, n, record_property)
    assert reports.failed == []
    seen = read_back(cluster, topic, PARTITIONS, timeout=300)
    for part in range(PARTITIONS):
        # every message once, in the order produced
        assert seen[part] == list(range(part, n, PARTITIONS)), "partition %d" % part


def _not_idempotent(cluster, n, record_property):
    topic, reports, sent_again = _kill_leaders_while_producing(cluster, False, n,
                                                               record_property)
    seen = read_back(cluster, topic, PARTITIONS, timeout=300)
    failed = {seq for seq, _ in reports.failed}
    missing, duplicates = missing_and_duplicates(seen, n, failed)
    assert missing == []
    # a copy beyond the first is a message sent again, never more copies than that
    assert duplicates <= sent_again, (duplicates, sent_again)
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
