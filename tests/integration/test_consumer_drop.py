"""A consumer that lost its partitions, or whose assignment nobody served, is dropped unclosed,
closed, or left to interpreter exit, and each finishes in seconds with no librdkafka thread left
running; run side by side with confluent-kafka where it does not hang.

The hang this guards: librdkafka waited for ever for the application's assign call when an
instance was destroyed without closing the consumer while an incremental assignment was
pending, its main thread busy in a loop (librdkafka-build/patches/0003). confluent-kafka 2.16.1
hangs so in the states marked below; the steps that reached it here only because the lost
partitions' revoke was served inside the poll() that raised are checked to serve it one call
later, as confluent-kafka does. Also guarded: a consumer given one of its partitions again at
once after unsubscribe() aborted the process when dropped (librdkafka-build/patches/0004); and
close() waited for ever for a revoke's unassign that the application had put off (the asyncio
consumer while a coroutine rebalance callback runs; through the aiokafka face, stop() or the
face collected unstopped inside gc.collect()), and a destroy after such a close, left
unfinished, waited for ever too (patch 0003). Each consumer runs in a process of its own
(drop_consumer_child.py), all at once: a hang is a timeout of that process, not of the suite."""
import json
import os
import subprocess
import sys
import time
import uuid

import pytest

import confluent_binding as kafka

pytestmark = pytest.mark.integration

CHILD = os.path.join(os.path.dirname(__file__), "drop_consumer_child.py")
OURS, PEER = "confluent_binding", "confluent_kafka"
COOP, EAGER, KIP848 = "cooperative-sticky", "range", "consumer"
# (library, state, end, strategy). The peer runs where it finishes; it hangs in
# revoke-served and never-polled with the cooperative-sticky assignor and with KIP-848 groups
# (not run here: a spinning core for nothing).
CASES = [
    (OURS, "max-poll", "del", COOP), (PEER, "max-poll", "del", COOP),
    (OURS, "max-poll", "close", COOP), (PEER, "max-poll", "close", COOP),
    (OURS, "max-poll", "exit", COOP), (PEER, "max-poll", "exit", COOP),
    (OURS, "revoke-served", "del", COOP),
    (OURS, "revoke-served", "close", COOP),
    (OURS, "revoke-served", "exit", COOP),
    (OURS, "never-polled", "del", COOP),
    (OURS, "never-polled", "exit", COOP),
    (OURS, "revoke-served", "del", EAGER), (PEER, "revoke-served", "del", EAGER),
    (OURS, "never-polled", "del", EAGER), (PEER, "never-polled", "del", EAGER),
    (OURS, "max-poll", "del", KIP848), (PEER, "max-poll", "del", KIP848),
    (OURS, "revoke-served", "del", KIP848),
    (OURS, "never-polled", "del", KIP848),
    # The revoked partitions' fetchers still stopping when one of them is assigned again and
    # the destroy removes it once more: librdkafka asserted (process aborted) on the second
    # stop's reply (librdkafka-build/patches/0004), some of the time.
    (OURS, "reassigned", "del", EAGER), (PEER, "reassigned", "del", EAGER),
    (OURS, "reassigned", "close", EAGER), (PEER, "reassigned", "close", EAGER),
    (OURS, "reassigned", "exit", EAGER), (PEER, "reassigned", "exit", EAGER),
    # A revoke whose unassign the application put off (the asyncio consumer's coroutine
    # callbacks) and never made: close() waited for it for ever (cooperative and KIP-848);
    # it now unassigns. Dropped unclosed, it ends as before.
    (OURS, "revoke-deferred", "close", COOP), (OURS, "revoke-deferred", "close", KIP848),
    (OURS, "revoke-deferred", "close", EAGER), (OURS, "revoke-deferred", "del", COOP),
    (OURS, "face-revoke-deferred", "close", COOP), (OURS, "face-revoke-deferred", "del", COOP),
    (OURS, "face-revoke-deferred", "close", EAGER), (OURS, "face-revoke-deferred", "del", EAGER),
]
# States that need a partition for a second member or one to assign again.
TWO_PARTITIONS = ("reassigned", "revoke-deferred", "face-revoke-deferred")
# How long a drop, close or interpreter exit may take (they take well under a second here;
# without the fix they never end).
QUICK = 10.0


def _run_all(kafka_cluster, make_topic):
    """Starts one child per case, each on a topic of its own holding one record; returns
    {case: its output}, with "exited" (the wall-clock time its end was seen) added."""
    producer = kafka.Producer(kafka_cluster.client_config())
    procs = {}
    for case in CASES:
        topic = make_topic(name="drop-%s" % uuid.uuid4().hex[:12],
                           partitions=2 if case[1] in TWO_PARTITIONS else 1)
        producer.produce(topic, b"record-0")
        procs[case] = topic
    assert producer.flush(30) == 0
    # a child that crashes prints its Python stack (faulthandler) into what the failure shows
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")
    started = {}
    for case, topic in procs.items():
        lib, state, end, strategy = case
        started[case] = subprocess.Popen(
            [sys.executable, CHILD, lib, state, end, kafka_cluster.bootstrap_servers, topic,
             strategy], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    # Every case waits about 8 s for max.poll.interval.ms, and a rejoin: 120 s is ample.
    deadline = time.monotonic() + 120
    ended = {}
    while len(ended) < len(started) and time.monotonic() < deadline:
        for case, proc in started.items():
            if case not in ended and proc.poll() is not None:
                ended[case] = time.time()
        time.sleep(0.05)    # waiting on processes: nothing else to serve
    hung = [case for case in started if case not in ended]
    for case in hung:
        started[case].kill()
    results = {}
    for case, proc in started.items():
        out, err = proc.communicate()
        assert case not in hung, "%s did not end within 120 s (hung): %s" % (case, err[-2000:])
        assert proc.returncode == 0, "%s exited %s: %s" % (case, proc.returncode, err[-2000:])
        results[case] = dict(json.loads(out.strip().splitlines()[-1]), exited=ended[case])
    return results


def test_consumers_with_lost_or_unserved_partitions_are_dropped_closed_and_exit_in_seconds(
        kafka_cluster, make_topic):
    results = _run_all(kafka_cluster, make_topic)
    for case, out in results.items():
        lib, state, end, strategy = case
        if state in ("max-poll", "revoke-served"):
            assert out["record"] == "record-0", case
            assert out["raised"] == "_MAX_POLL_EXCEEDED", case
        if end == "exit":
            assert out["exited"] - out["exit_at"] < QUICK, (case, out)
        else:
            assert out["took"] < QUICK, (case, out)
            # librdkafka's threads were joined: nothing left running (or spinning)
            assert out["threads_after"] == [], (case, out)
    # The lost partitions' revoke comes in the poll() after the one that raised, on both.
    for lib in (OURS, PEER):
        for strategy in (COOP, KIP848):
            assert results[(lib, "max-poll", "del", strategy)]["events_after_raise"] == [
                "assign"], (lib, strategy)
    for strategy in (COOP, KIP848):
        assert results[(OURS, "revoke-served", "del", strategy)]["events_after_next_poll"] == [
            "assign", "revoke"], strategy
    # Assigned at once after unsubscribe(), on both.
    for end in ("del", "close", "exit"):
        for lib in (OURS, PEER):
            assert results[(lib, "reassigned", end, EAGER)]["assignment"] == [0], (lib, end)
            assert results[(lib, "reassigned", end, EAGER)]["events"] == ["assign"], (lib, end)
    for strategy in (COOP, KIP848, EAGER):
        assert results[(OURS, "revoke-deferred", "close", strategy)]["events"] == [
            "assign", "revoke"], strategy
    # Eager: the same callbacks on both.
    for state in ("revoke-served", "never-polled"):
        assert (results[(OURS, state, "del", EAGER)]["events"]
                == results[(PEER, state, "del", EAGER)]["events"])
