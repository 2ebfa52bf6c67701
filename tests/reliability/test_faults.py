"""Faults a single broker can show: killed (SIGKILL) and restarted under a producer, paused
(SIGSTOP) longer than the clients' socket timeout. Every test owns its broker, since it
breaks it, and checks what was written by reading the topic back."""
import collections
import threading
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


@pytest.fixture
def broker(tmp_path):
    with KafkaCluster(workdir=tmp_path / "broker") as c:
        yield c


def _kill_twice_while_producing(broker, idempotent, n, record_property):
    """Produce n sequence-numbered messages at a steady pace while another thread SIGKILLs
    the broker twice (once deliveries pass n/6, again past n/2 after the restart), so that
    batches are in flight at each kill and more messages are queued while it is down."""
    topic = broker.create_topic("faults-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    reports = Reports()
    p = kafka.Producer(broker.client_config(**{
        "enable.idempotence": idempotent, "acks": "all", "linger.ms": 5,
        "message.timeout.ms": 180_000, "queue.buffering.max.messages": 1_000_000,
        "reconnect.backoff.max.ms": 500, "log_level": 0}, on_delivery=reports))
    kills = []

    def faults():
        for threshold in (n // 6, n // 2):
            wait_for("deliveries to pass %d" % threshold, lambda: reports.ok >= threshold, 180)
            broker.kill()
            kills.append(reports.ok)
            broker.restart()

    killer = threading.Thread(target=faults)
    killer.start()
    for start in range(0, n, 1000):
        produce_range(p, topic, start, min(start + 1000, n), PARTITIONS)
        p.poll(0.01)
    while killer.is_alive():
        p.poll(0.1)
    killer.join()
    assert len(kills) == 2, kills
    record_property("delivered_at_kills", kills)
    assert p.flush(180) == 0
    p.close()
    assert reports.ok + len(reports.failed) == n   # every message got exactly one report
    return topic, reports


def test_idempotent_producer_loses_and_duplicates_nothing_across_broker_kills(
        broker, record_property):
    n = 300_000
    topic, reports = _kill_twice_while_producing(broker, True, n, record_property)
    assert reports.failed == []
    seen = read_back(broker, topic, PARTITIONS)
    for part in range(PARTITIONS):
        # every message once, in the order produced
        assert seen[part] == list(range(part, n, PARTITIONS)), "partition %d" % part


def test_producer_without_idempotence_loses_nothing_silently(broker, record_property):
    """Without idempotence retries may write a batch twice: the count is a figure, not a
    failure. What must hold: every message is in the log or was reported failed."""
    n = 300_000
    topic, reports = _kill_twice_while_producing(broker, False, n, record_property)
    seen = read_back(broker, topic, PARTITIONS)
    failed = {seq for seq, _ in reports.failed}
    missing, duplicates = missing_and_duplicates(seen, n, failed)
    assert missing == []
    record_property("duplicates", duplicates)
    record_property("failed", len(failed))
    print("\nwithout idempotence: %d messages, %d duplicates, %d reported failed"
          % (n, duplicates, len(failed)))


class _Lines:
    """A ``logger`` for a client: each log line into a bounded deque."""

    def __init__(self, lines):
        self.lines = lines

    def log(self, level, msg, *args):
        self.lines.append(msg % args if args else msg)


def test_paused_broker_reports_timeouts_then_everything_arrives(broker):
    topic = broker.create_topic("paused-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    fast = {"socket.timeout.ms": 2000, "log_level": 0, "reconnect.backoff.max.ms": 500}
    p_errors, c_errors = [], []
    reports = Reports()
    p = kafka.Producer(broker.client_config(**fast, **{"enable.idempotence": True,
                                                       "message.timeout.ms": 120_000},
                                            error_cb=p_errors.append, on_delivery=reports))
    # what the consumer's group did, for a failure to show: its rebalance callbacks, the error
    # events consume() returned, and the last lines of librdkafka's consumer-group log
    group_log, msg_errors = collections.deque(maxlen=1000), []
    c = kafka.Consumer(broker.client_config(dict(fast, log_level=7), **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "session.timeout.ms": 45_000, "debug": "cgrp"},
        error_cb=c_errors.append, logger=_Lines(group_log)))

    def rebalanced(what):
        return lambda consumer, parts: group_log.append("%s %d partition(s)" % (what, len(parts)))
    c.subscribe([topic], on_assign=rebalanced("ASSIGNED"), on_revoke=rebalanced("REVOKED"),
                on_lost=rebalanced("LOST"))
    n, got = 20_000, collections.defaultdict(list)

    def consume_some():
        for m in c.consume(1000, 0.05):
            if m.error() is None:
                got[m.partition()].append(int(m.value()))
            else:
                msg_errors.append(str(m.error()))
        p.poll(0)

    produce_range(p, topic, 0, n // 2, PARTITIONS)
    wait_for("the first half consumed", lambda: sum(map(len, got.values())) >= n // 2, 60,
          consume_some)
    broker.pause()
    try:
        produce_range(p, topic, n // 2, n, PARTITIONS)
        timeout_codes = {kafka.KafkaError._TIMED_OUT, kafka.KafkaError._TRANSPORT,
                         kafka.KafkaError._ALL_BROKERS_DOWN}
        wait_for("both clients to report the unresponsive broker",
              lambda: ({e.code() for e in p_errors} & timeout_codes
                       and {e.code() for e in c_errors} & timeout_codes), 60, consume_some)
    finally:
        broker.resume()
    def state():
        return ("delivered %d, failed %d %s; producer errors %s; consumer errors %s; "
                "still queued %d; consumed per partition (count, last) %s; positions %s; "
                "consumer error events %s; the consumer group's last log lines:\n%s"
                % (reports.ok, len(reports.failed), reports.failed[:3],
                   [str(e) for e in p_errors[-5:]], [str(e) for e in c_errors[-5:]], len(p),
                   {k: (len(v), v[-1]) for k, v in sorted(got.items())},
                   c.position(c.assignment()), msg_errors[-5:], "\n".join(group_log)))
    wait_for("everything consumed after the pause", lambda: sum(map(len, got.values())) >= n, 120,
             consume_some, state)
    assert p.flush(60) == 0
    assert reports.ok == n and reports.failed == []
    for part in range(PARTITIONS):
        assert got[part] == list(range(part, n, PARTITIONS)), "partition %d" % part
    c.close()
    p.close()
