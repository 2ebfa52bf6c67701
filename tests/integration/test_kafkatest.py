"""confluent_binding.kafkatest's verifiable producer and consumer run as programs against the real
broker: every JSON event they print is checked against what the broker holds, and side by side
with confluent-kafka's own kafkatest clients."""

import json
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

import confluent_binding as cb

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
OURS = "confluent_binding.kafkatest.verifiable_%s"
THEIRS = "tests.support.confluent_kafkatest"


class Client:
    """A verifiable client process; its stdout's JSON events are read as they come."""

    def __init__(self, module_args):
        self.proc = subprocess.Popen([sys.executable, "-m"] + module_args, cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.events = []
        self._lines = queue.Queue()
        self._stderr = []
        threading.Thread(target=self._read, args=(self.proc.stdout, self._lines.put),
                         daemon=True).start()
        self._stderr_reader = threading.Thread(
            target=self._read, args=(self.proc.stderr, self._stderr.append), daemon=True)
        self._stderr_reader.start()

    @staticmethod
    def _read(stream, put):
        for line in stream:
            put(line)
        put(None)

    def wait_for(self, condition, timeout=60):
        """Read events until condition(events) holds; the events read so far."""
        deadline = time.monotonic() + timeout
        while not condition(self.events):
            remaining = deadline - time.monotonic()
            assert remaining > 0, "timed out; events: %s\nstderr: %s" % (
                self.events, "".join(filter(None, self._stderr))[-3000:])
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            assert line is not None, "the client exited; events: %s\nstderr: %s" % (
                self.events, self.stderr()[-3000:])
            self.events.append(json.loads(line))
        return self.events

    def finish(self, terminate=False, timeout=60):
        """SIGTERM (with ``terminate``) and read every event up to the exit; the exit status."""
        if terminate:
            self.proc.send_signal(signal.SIGTERM)
        self.wait_for(lambda evs: evs and evs[-1]["name"] == "shutdown_complete", timeout)
        return self.proc.wait(timeout)

    def stderr(self):
        self.proc.wait(30)
        self._stderr_reader.join(30)
        return "".join(self._stderr[:-1])

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def clients():
    started = []

    def start(*module_args):
        c = Client(list(module_args))
        started.append(c)
        return c

    yield start
    for c in started:
        c.kill()


def named(events, name):
    return [e for e in events if e["name"] == name]


def produce(kafka_cluster, topic, count, partitions):
    p = cb.Producer(kafka_cluster.client_config())
    for i in range(count):
        p.produce(topic, value=b"%d" % i, key=b"k%d" % i, partition=i % partitions)
    assert p.flush(30) == 0


def read_back(kafka_cluster, topic, count):
    c = cb.Consumer(kafka_cluster.client_config(
        {"group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    got = {}
    deadline = time.monotonic() + 60
    while len(got) < count and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got[(m.partition(), m.offset())] = (m.key(), m.value(), m.timestamp())
    c.close()
    assert len(got) == count
    return got


def test_producer_reports_every_delivery_as_the_broker_stored_it(kafka_cluster, make_topic,
                                                                  clients):
    topic = make_topic(3)
    client = clients(OURS % "producer", "--topic", topic, "--broker-list",
                     kafka_cluster.bootstrap_servers, "--max-messages", "60",
                     "--repeating-keys", "7", "--value-prefix", "pre",
                     "--message-create-time", "1700000000123")
    assert client.finish() == 0
    events = client.events
    assert events[0]["name"] == "startup_complete"
    assert [e["name"] for e in events[-2:]] == ["tool_data", "shutdown_complete"]
    sent = named(events, "producer_send_success")
    assert len(sent) + 3 == len(events)
    assert sorted(e["value"] for e in sent) == sorted("pre.%d" % i for i in range(60))
    for e in sent:
        assert set(e) == {"name", "topic", "partition", "offset", "key", "value", "_time"}
        assert e["topic"] == topic
        assert e["key"] == "%d" % (int(e["value"].split(".")[1]) % 7)
    # offsets are each partition's 0, 1, 2, ... and a key always lands on the same partition
    for partition in range(3):
        offsets = sorted(e["offset"] for e in sent if e["partition"] == partition)
        assert offsets == list(range(len(offsets)))
    assert len({(e["key"], e["partition"]) for e in sent}) == 7
    stored = read_back(kafka_cluster, topic, 60)
    for e in sent:
        assert stored[(e["partition"], e["offset"])] == (
            e["key"].encode(), e["value"].encode(), (cb.TIMESTAMP_CREATE_TIME, 1700000000123))
    tool = events[-2]
    assert (tool["sent"], tool["acked"], tool["target_throughput"]) == (60, 60, 0)
    assert tool["avg_throughput"] > 0
    assert events[-1]["_qlen"] == 0


def test_producer_throughput_bound_and_sigterm(kafka_cluster, topic, clients):
    # 20 messages a second: SIGTERM after the 5th delivery ends it cleanly long before its
    # million messages, with every sent message acknowledged
    client = clients(OURS % "producer", "--topic", topic, "--bootstrap-server",
                     kafka_cluster.bootstrap_servers, "--throughput", "20")
    client.wait_for(lambda evs: len(named(evs, "producer_send_success")) >= 5)
    started = time.monotonic()
    assert client.finish(terminate=True) == 0
    assert time.monotonic() - started < 30
    tool = named(client.events, "tool_data")[0]
    sent = named(client.events, "producer_send_success")
    assert tool["sent"] == tool["acked"] == len(sent)
    assert tool["target_throughput"] == 20
    # n messages paced at 20 a second take at least n - 1 slots of 50 ms
    assert tool["avg_throughput"] <= 20 * len(sent) / (len(sent) - 1)
    assert [e["offset"] for e in sent] == list(range(len(sent)))
    assert client.events[-1]["_qlen"] == 0


def test_producer_config_file_and_x_properties(kafka_cluster, topic, clients, tmp_path):
    # acks=0 from a Java-style properties file: the broker sends no offsets back (null)
    props = tmp_path / "producer.properties"
    props.write_text("# a comment\n\nacks=0\n")
    client = clients(OURS % "producer", "--topic", topic, "--broker-list",
                     kafka_cluster.bootstrap_servers, "--max-messages", "3",
                     "--producer.config", str(props))
    assert client.finish() == 0
    assert [e["offset"] for e in named(client.events, "producer_send_success")] == [None] * 3
    # -X overrides: an unknown property is librdkafka's error, reported before any event
    bad = clients(OURS % "producer", "--topic", topic, "--broker-list",
                  kafka_cluster.bootstrap_servers, "-X", "no.such.property=1")
    assert bad.proc.wait(60) != 0
    assert "No such configuration property" in bad.stderr()
    assert bad.events == []


def test_consumer_reports_consumption_commits_and_rebalances(kafka_cluster, make_topic,
                                                              clients):
    topic = make_topic(2)
    produce(kafka_cluster, topic, 250, 2)
    group = "kt-" + uuid.uuid4().hex
    client = clients(OURS % "consumer", "--topic", topic, "--group-id", group,
                     "--broker-list", kafka_cluster.bootstrap_servers, "--max-messages", "250")
    assert client.finish() == 0
    events = client.events
    names = [e["name"] for e in events]
    assert names[:2] == ["startup_complete", "partitions_assigned"]
    assert names[-2:] == ["partitions_revoked", "shutdown_complete"]
    assert events[-1]["failed"] is False
    assigned = sorted((p["topic"], p["partition"]) for p in events[1]["partitions"])
    assert assigned == [(topic, 0), (topic, 1)]
    consumed = named(events, "records_consumed")
    assert sum(e["count"] for e in consumed) == 250
    # every report's per-partition offsets are contiguous with the previous report's
    next_offset = {0: 0, 1: 0}
    for e in consumed:
        assert e["count"] == sum(p["count"] for p in e["partitions"])
        for p in e["partitions"]:
            assert p["minOffset"] == next_offset[p["partition"]]
            assert p["maxOffset"] - p["minOffset"] + 1 == p["count"]
            next_offset[p["partition"]] = p["maxOffset"] + 1
    assert next_offset == {0: 125, 1: 125}
    commits = named(events, "offsets_committed")
    assert commits and all(c["success"] and c["error"] == "" for c in commits)
    assert sorted((o["partition"], o["offset"]) for o in commits[-1]["offsets"]) == [
        (0, 125), (1, 125)]
    # a commit never runs ahead of what was reported consumed
    reported = 0
    for e in events:
        if e["name"] == "records_consumed":
            reported += e["count"]
        elif e["name"] == "offsets_committed":
            assert sum(o["offset"] for o in e["offsets"]) <= reported
    # and the broker holds those offsets for the group
    c = cb.Consumer(kafka_cluster.client_config({"group.id": group}))
    committed = c.committed([cb.TopicPartition(topic, 0), cb.TopicPartition(topic, 1)], 30)
    c.close()
    assert [tp.offset for tp in committed] == [125, 125]


def test_consumer_verbose_reports_each_record(kafka_cluster, topic, clients):
    produce(kafka_cluster, topic, 3, 1)
    client = clients(OURS % "consumer", "--topic", topic, "--group-id", uuid.uuid4().hex,
                     "--bootstrap-server", kafka_cluster.bootstrap_servers,
                     "--max-messages", "3", "--verbose")
    assert client.finish() == 0
    assert [(e["key"], e["value"], e["offset"], e["partition"])
            for e in named(client.events, "record_data")] == [
        ("k0", "0", 0, 0), ("k1", "1", 1, 0), ("k2", "2", 2, 0)]


def test_two_cooperative_consumers_split_the_partitions(kafka_cluster, make_topic, clients):
    topic = make_topic(4)
    produce(kafka_cluster, topic, 40, 4)
    group = "kt-" + uuid.uuid4().hex
    args = ("--topic", topic, "--group-id", group, "--broker-list",
            kafka_cluster.bootstrap_servers, "--assignment-strategy",
            "org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
    first = clients(OURS % "consumer", *args)
    first.wait_for(lambda evs: sum(e["count"] for e in named(evs, "records_consumed")) == 40)
    second = clients(OURS % "consumer", *args)
    # the first gives up two partitions (an incremental revoke), the second is given them
    def partitions(events, name):
        return {p["partition"] for e in named(events, name) for p in e["partitions"]}

    first.wait_for(lambda evs: named(evs, "partitions_revoked"))
    second.wait_for(lambda evs: len(partitions(evs, "partitions_assigned")) == 2)
    revoked = partitions(first.events, "partitions_revoked")
    assert partitions(second.events, "partitions_assigned") == revoked
    assert partitions(first.events, "partitions_assigned") == {0, 1, 2, 3}
    # the second starts where the first committed: nothing is consumed again
    produce(kafka_cluster, topic, 8, 4)
    second.wait_for(lambda evs: sum(e["count"] for e in named(evs, "records_consumed")) == 4)
    first.wait_for(lambda evs: sum(e["count"] for e in named(evs, "records_consumed")) == 44)
    for e in named(second.events, "records_consumed"):
        assert {p["minOffset"] for p in e["partitions"]} == {10}
    assert first.finish(terminate=True) == 0
    assert second.finish(terminate=True) == 0


def consumer_run(kafka_cluster, clients, module, topic, count):
    client = clients(module, "consumer", "--topic", topic, "--group-id", uuid.uuid4().hex,
                     "--broker-list", kafka_cluster.bootstrap_servers) if module == THEIRS \
        else clients(OURS % "consumer", "--topic", topic, "--group-id", uuid.uuid4().hex,
                     "--broker-list", kafka_cluster.bootstrap_servers)
    client.wait_for(lambda evs: any(
        sum(o["offset"] for o in e["offsets"]) == count
        for e in named(evs, "offsets_committed")))
    assert client.finish(terminate=True) == 0
    return client.events


def test_consumer_events_match_confluents(kafka_cluster, make_topic, clients):
    topic = make_topic(2)
    produce(kafka_cluster, topic, 30, 2)
    ours = consumer_run(kafka_cluster, clients, OURS, topic, 30)
    theirs = consumer_run(kafka_cluster, clients, THEIRS, topic, 30)

    def kinds(events):
        return [e["name"] for e in events]

    # confluent's sends no startup_complete (the Java clients and ours do)
    assert kinds(ours)[0] == "startup_complete"
    assert "startup_complete" not in kinds(theirs)
    assert set(kinds(ours)) - {"startup_complete"} == set(kinds(theirs)) == {
        "partitions_assigned", "records_consumed", "offsets_committed", "partitions_revoked",
        "shutdown_complete"}
    # every field confluent's events carry, ours carry (ours add each partition's count)
    for name in set(kinds(theirs)):
        [mine] = {frozenset(e) for e in named(ours, name)}
        [its] = {frozenset(e) for e in named(theirs, name)}
        assert mine >= its, name
    for events in (ours, theirs):
        for e in named(events, "records_consumed"):
            for p in e["partitions"]:
                assert set(p) >= {"topic", "partition", "minOffset", "maxOffset"}

    def outcome(events):
        consumed = sum(e["count"] for e in named(events, "records_consumed"))
        last_commit = sorted((o["partition"], o["offset"])
                             for o in named(events, "offsets_committed")[-1]["offsets"])
        return consumed, last_commit, events[-1]["failed"]

    assert outcome(ours) == outcome(theirs) == (30, [(0, 15), (1, 15)], False)


def test_confluents_producer_cannot_report_deliveries_ours_can(kafka_cluster, topic, clients):
    # confluent-kafka 2.16's verifiable producer puts the delivered bytes into its JSON event
    # and dies on the first delivery report; ours prints them as text (see docs/guides/kafkatest.md)
    theirs = clients(THEIRS, "producer", "--topic", topic, "--broker-list",
                     kafka_cluster.bootstrap_servers, "--max-messages", "1")
    assert theirs.proc.wait(60) != 0
    assert "Object of type bytes is not JSON serializable" in theirs.stderr()
    ours = clients(OURS % "producer", "--topic", topic, "--broker-list",
                   kafka_cluster.bootstrap_servers, "--max-messages", "1")
    assert ours.finish() == 0
    [sent] = named(ours.events, "producer_send_success")
    assert (sent["value"], sent["key"], sent["offset"]) == ("0", None, 1)
