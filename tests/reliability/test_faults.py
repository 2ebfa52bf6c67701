"""Faults a single broker can show: killed (SIGKILL) and restarted under a producer, paused
(SIGSTOP) longer than the clients' socket timeout. Every test owns its broker, since it
breaks it, and checks what was written by reading the topic back. Each test also proves that
its fault reached the client: the producer's statistics show messages sent again after the
kills, the clients report the paused broker."""
import collections
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
    rewinds,
    wait_for,
)

pytestmark = pytest.mark.integration

PARTITIONS = 6
# delivered before the first fault: what a new topic costs (its first requests may find the
# leader not ready yet and be sent again) is counted apart from what the faults cost
FIRST = 1000


@pytest.fixture
def broker(tmp_path):
    with KafkaCluster(workdir=tmp_path / "broker") as c:
        yield c


def _kill_twice_while_producing(broker, idempotent, n, record_property):
    """Produce n sequence-numbered messages at a steady pace while another thread SIGKILLs
    the broker twice (once deliveries pass n/6, again past n/2 after the restart), so that
    batches are in flight at each kill and more messages are queued while it is down.

    Returns the topic, the delivery reports and how many times the producer sent a message
    again. Those sent again after the first FIRST had been delivered only the kills can cause
    (each breaks the connection under requests in flight, whose messages go out again): none
    means the kills did not reach the producer, and fails the test."""
    topic = broker.create_topic("faults-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    reports = Reports()
    stats = Statistics()
    p = kafka.Producer(broker.client_config(**{
        "enable.idempotence": idempotent, "acks": "all", "linger.ms": 5,
        "message.timeout.ms": 180_000, "queue.buffering.max.messages": 1_000_000,
        "reconnect.backoff.max.ms": 500, "statistics.interval.ms": INTERVAL_MS,
        "log_level": 0}, on_delivery=reports, stats_cb=stats))
    produce_range(p, topic, 0, FIRST, PARTITIONS)
    assert p.flush(60) == 0
    before = stats.settle(p)["txmsgs"] - FIRST
    kills = []

    def faults():
        for threshold in (n // 6, n // 2):
            wait_for("deliveries to pass %d" % threshold, lambda: reports.ok >= threshold, 180)
            broker.kill()
            kills.append(reports.ok)
            broker.restart()

    killer = threading.Thread(target=faults)
    killer.start()
    for start in range(FIRST, n, 1000):
        produce_range(p, topic, start, min(start + 1000, n), PARTITIONS)
        p.poll(0.01)
    while killer.is_alive():
        p.poll(0.1)
    killer.join()
    assert len(kills) == 2, kills
    record_property("delivered_at_kills", kills)
    assert p.flush(180) == 0
    sent_again = stats.settle(p)["txmsgs"] - n
    p.close()
    assert reports.ok + len(reports.failed) == n   # every message got exactly one report
    record_property("sent_again_at_start", before)
    record_property("sent_again", sent_again)
    print("\n%d messages, idempotence %s, %d sent again (%d at the start); delivered at the "
          "kills: %r" % (n, idempotent, sent_again, before, kills))
    # the positive control: the kills reached the producer, which sent messages again
    assert sent_again - before > 0, "no message sent again after the kills at %r" % kills
    return topic, reports, sent_again


def test_idempotent_producer_loses_and_duplicates_nothing_across_broker_kills(
        broker, record_property):
    n = 300_000
    topic, reports, _ = _kill_twice_while_producing(broker, True, n, record_property)
    assert reports.failed == []
    seen = read_back(broker, topic, PARTITIONS)
    for part in range(PARTITIONS):
        # every message once, in the order produced, although some were sent more than once
        assert seen[part] == list(range(part, n, PARTITIONS)), "partition %d" % part


def test_producer_without_idempotence_loses_nothing_silently(broker, record_property):
    """Without idempotence retries may write a batch twice: the count is a figure, not a
    failure. What must hold: every message is in the log or was reported failed, and every
    copy beyond the first was a message sent again."""
    n = 300_000
    topic, reports, sent_again = _kill_twice_while_producing(broker, False, n, record_property)
    seen = read_back(broker, topic, PARTITIONS)
    failed = {seq for seq, _ in reports.failed}
    missing, duplicates = missing_and_duplicates(seen, n, failed)
    assert missing == []
    assert duplicates <= sent_again, (duplicates, sent_again)
    record_property("duplicates", duplicates)
    record_property("failed", len(failed))
    print("\nwithout idempotence: %d messages, %d sent again, %d duplicates, %d reported failed"
          % (n, sent_again, duplicates, len(failed)))


class _Lines:
    """A ``logger`` for a client: each log line into a bounded deque."""

    def __init__(self, lines):
        self.lines = lines

    def log(self, level, msg, *args):
        self.lines.append(msg % args if args else msg)


# The test broker's controller fences a broker that has not heartbeated for 4 s
# (broker.session.timeout.ms): a pause longer than that makes the resumed broker answer its first
# Metadata requests with no brokers at all, the path on which librdkafka 2.15.1 used to drop every
# broker and stall for good (librdkafka-build/patches/0001-recover-after-empty-metadata.patch).
FENCED_AFTER_S = 6
# how long the clients may take, once the broker runs again, to have everything delivered and read
RECOVERY_S = 60


def _through_a_pause(broker, session_timeout_ms, hold_s):
    """Produce 20,000 numbered messages to a 6-partition topic with an idempotent producer while a
    group consumer reads them; pause the broker (SIGSTOP) after the first half was read, produce
    the second half into the pause, hold the pause until both clients have reported the broker
    unresponsive and at least ``hold_s`` seconds have passed, resume it, and wait (at most
    RECOVERY_S) until every message was delivered and read. Returns what the consumer read
    ({partition: [numbers]}), the numbers each partition must hold, and its rebalance events as
    (what, seconds since the resume)."""
    topic = broker.create_topic("paused-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    fast = {"socket.timeout.ms": 2000, "log_level": 0, "reconnect.backoff.max.ms": 500}
    p_errors, c_errors = [], []
    reports = Reports()
    p = kafka.Producer(broker.client_config(**fast, **{"enable.idempotence": True,
                                                       "message.timeout.ms": 120_000},
                                            error_cb=p_errors.append, on_delivery=reports))
    # what the consumer's group did, for a failure to show: its rebalance callbacks, the error
    # events consume() returned, and the last lines of librdkafka's broker and group log
    group_log, msg_errors, events = collections.deque(maxlen=2000), [], []
    resumed = [None]
    c = kafka.Consumer(broker.client_config(dict(fast, log_level=7), **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "session.timeout.ms": session_timeout_ms, "debug": "cgrp,broker,metadata"},
        error_cb=c_errors.append, logger=_Lines(group_log)))

    def rebalanced(what):
        def record(consumer, parts):
            since = None if resumed[0] is None else time.monotonic() - resumed[0]
            events.append((what, since))
            group_log.append("%s %d partition(s)" % (what, len(parts)))
        return record
    c.subscribe([topic], on_assign=rebalanced("ASSIGNED"), on_revoke=rebalanced("REVOKED"),
                on_lost=rebalanced("LOST"))
    n, got = 20_000, collections.defaultdict(list)
    expected = {part: list(range(part, n, PARTITIONS)) for part in range(PARTITIONS)}

    def consume_some():
        for m in c.consume(1000, 0.05):
            if m.error() is None:
                got[m.partition()].append(int(m.value()))
            else:
                msg_errors.append(str(m.error()))
        p.poll(0)

    def read_up_to(count):
        # read in order, so the numbers below count are all read once the last of them came
        last = {part: max(v for v in expected[part] if v < count) for part in range(PARTITIONS)}
        return lambda: all(got[part] and got[part][-1] == last[part] for part in range(PARTITIONS))

    produce_range(p, topic, 0, n // 2, PARTITIONS)
    wait_for("the first half consumed", read_up_to(n // 2), 60, consume_some)
    paused = time.monotonic()
    broker.pause()
    try:
        produce_range(p, topic, n // 2, n, PARTITIONS)
        timeout_codes = {kafka.KafkaError._TIMED_OUT, kafka.KafkaError._TRANSPORT,
                         kafka.KafkaError._ALL_BROKERS_DOWN}
        wait_for("both clients to report the unresponsive broker",
                 lambda: ({e.code() for e in p_errors} & timeout_codes
                          and {e.code() for e in c_errors} & timeout_codes
                          and time.monotonic() - paused >= hold_s), 60 + hold_s, consume_some)
    finally:
        broker.resume()
        resumed[0] = time.monotonic()

    def state():
        return ("paused %.1f s; delivered %d, failed %d %s; producer errors %s; consumer errors "
                "%s; still queued %d; consumed per partition (count, last) %s; positions %s; "
                "rebalances %s; consumer error events %s; the consumer's last log lines:\n%s"
                % (resumed[0] - paused, reports.ok, len(reports.failed), reports.failed[:3],
                   [str(e) for e in p_errors[-5:]], [str(e) for e in c_errors[-5:]], len(p),
                   {k: (len(v), v[-1]) for k, v in sorted(got.items())},
                   c.position(c.assignment()), events, msg_errors[-5:], "\n".join(group_log)))
    wait_for("everything delivered and read within %d s of the resume" % RECOVERY_S,
             lambda: reports.ok + len(reports.failed) == n and read_up_to(n)(), RECOVERY_S,
             consume_some, state)
    assert reports.ok == n and reports.failed == []
    assert p.flush(10) == 0
    c.close()
    p.close()
    return got, expected, events


def test_paused_broker_reports_timeouts_then_everything_arrives(broker):
    """A pause shorter than the consumer's session (45 s) but long enough for the controller to
    fence the broker: the idempotent producer delivers every message once, and the consumer reads
    on where it was, every message once and in order. Should the pause outlast the session after
    all (a very slow machine), the group rebalances and the consumer may read again what it read
    after its last commit: then each partition must still be read in order, restarting at most
    once per rebalance."""
    got, expected, events = _through_a_pause(broker, 45_000, FENCED_AFTER_S)
    rebalances = sum(1 for what, since in events if what == "ASSIGNED") - 1
    for part in range(PARTITIONS):
        if rebalances == 0:
            assert got[part] == expected[part], "partition %d" % part
        else:
            assert rewinds(got[part], expected[part]) <= rebalances, "partition %d" % part


def test_consumer_rejoins_its_group_after_a_pause_past_its_session(broker):
    """A pause longer than the consumer's session (6 s, the broker's minimum): the consumer loses
    its partitions during the pause (the positive control: its session did time out), joins its
    group again once the broker runs, and reads every message, in order per partition from its
    last commit on."""
    got, expected, events = _through_a_pause(broker, 6_000, 10)
    assert any(what == "LOST" for what, _ in events), events
    rejoined = [since for what, since in events if what == "ASSIGNED" and since is not None]
    assert rejoined and rejoined[0] < RECOVERY_S, events
    for part in range(PARTITIONS):
        assert rewinds(got[part], expected[part]) <= len(rejoined), "partition %d" % part
