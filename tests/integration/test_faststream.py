"""FastStream, unmodified, on confluent_binding: its confluent broker (``faststream.confluent``,
through the ``confluent_kafka`` alias) and its aiokafka broker (``faststream.kafka``, through the
``aiokafka`` alias) run one application (faststream_app/app.py) against the real broker: single
records and batches round-trip through subscribers and publishers (bytes, keys, headers), a
subscriber's rebalance callback sees its assignment, and
manual acknowledgement behaves as FastStream documents it for Kafka, checked by the committed
offsets read back with our Consumer:

- ``ack()`` commits the consumed position; ``reject()`` does the same (the record is skipped);
  ``nack()`` seeks back to the record, which comes again, and commits nothing;
- AckPolicy.MANUAL: a record never acked stays uncommitted, so the group gets it again after a
  restart; AckPolicy.NACK_ON_ERROR: a handler that raises gets the record again;
  AckPolicy.ACK: the record is committed even when the handler raises.

FastStream's in-memory test broker (TestKafkaBroker), which on ``faststream.confluent`` delivers
its own subclass of ``confluent_kafka.Message``, works through the alias too.

Each scenario runs in a child process on the binding (``python -m confluent_binding run``) and,
for reference, on the library FastStream was written for (confluent-kafka, aiokafka; both
installed): the same deliveries and the same committed offsets on both.
"""

import json
import os
import queue
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from confluent_binding import Consumer, KafkaError, Producer, TopicPartition

from tests.support.waiting import wait_until

FASTSTREAM_VERSION = "0.7.8"
if sys.version_info < (3, 10):
    pytest.skip("FastStream %s needs Python 3.10+" % FASTSTREAM_VERSION, allow_module_level=True)

APP = Path(__file__).with_name("faststream_app") / "app.py"
IN_MEMORY = APP.with_name("in_memory.py")
RUN_TIMEOUT = 90
RESULT = "RESULT "  # the app's result line starts with it
MAX_RECORDS = 4

# (value, key, headers) of the records the single-record subscriber answers; the second value is
# not UTF-8, the third is empty
SINGLE = [
    (b"first", b"k-1", [("app-note", b"one"), ("app-trace", b"t-1")]),
    (b"\x00\xff\x80binary", b"k-2", [("app-note", b"two")]),
    (b"", b"k-3", []),
    (b"fourth", None, [("app-note", b"four")]),
]
# (value, key, headers) of the records the batch subscriber gets
BATCH = [(b"b-%02d" % i, b"bk-%d" % (i % 3), [("app-index", b"%d" % i)]) for i in range(10)]
# the values at offsets 0-4; each says what the manual subscriber does with its record
MANUAL = [b"ack-0", b"nack-1", b"reject-2", b"ack-3", b"hold-4"]
# the offset the group has committed once the first run handled MANUAL: 4, since ack-3 committed
# position 4 and hold-4 was never acked
MANUAL_COMMITTED = 4
NACK_ON_ERROR = [b"boom-0", b"fine-1"]
ACK = [b"boom-0", b"fine-1"]


class App:
    """The application in a child process: its JSON line is read with a timeout, and a line on
    its standard input stops it."""

    def __init__(self, flavor, client, cluster, spec):
        env = {k: v for k, v in os.environ.items() if k != "CONFLUENT_BINDING_AS"}
        alias = []
        if client == "confluent_binding":
            alias = ["-m", "confluent_binding", "run"]
            if flavor == "kafka":
                alias += ["--as", "aiokafka"]
        self.proc = subprocess.Popen(
            [sys.executable, *alias, str(APP), flavor, cluster.bootstrap_servers,
             json.dumps(spec)],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self.stderr.extend, args=(self.proc.stderr,),
                         daemon=True).start()

    def _read_stdout(self):
        for line in self.proc.stdout:
            if line.startswith(RESULT):
                self.lines.put(line[len(RESULT):])
            else:
                self.stderr.append(line)    # FastStream's log
        self.lines.put(None)    # the app exited

    def report(self, timeout=RUN_TIMEOUT):
        """The app's JSON line, once every subscriber has seen what it expects."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            line = None
        if line is None:
            try:
                self.proc.wait(timeout=10)   # it closed its output: let it finish exiting
            except subprocess.TimeoutExpired:
                pass
        assert line, "the app printed nothing (exit status %s):\n%s" % (
            self.proc.poll(), "".join(self.stderr)[-6000:])
        return json.loads(line)

    def stop(self):
        """Let the app stop its broker and exit; it must exit cleanly."""
        try:
            self.proc.stdin.write("stop\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the app did not stop:\n" + "".join(self.stderr)[-6000:])
        assert self.proc.returncode == 0, "the app exited with %d:\n%s" % (
            self.proc.returncode, "".join(self.stderr)[-6000:])

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _produce(config, topic, records):
    producer = Producer(config)
    for value, key, headers in records:
        producer.produce(topic, value=value, key=key, headers=headers or None)
    assert producer.flush(30) == 0


def _read_all(cluster, topic):
    """Every record in `topic` (one partition), to its end."""
    consumer = Consumer(cluster.client_config(**{
        "group.id": "reader-" + uuid.uuid4().hex, "enable.partition.eof": True,
        "enable.auto.commit": False}))
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        out = []
        while True:
            msg = consumer.poll(30)
            assert msg is not None, "no end of %s within 30 s" % topic
            if msg.error():
                assert msg.error().code() == KafkaError._PARTITION_EOF, msg.error()
                return out
            out.append(msg)
    finally:
        consumer.close()


def _wait_committed(cluster, group, topic, offset):
    """Wait until `group` has committed `offset` for partition 0 of `topic` (commits may be
    asynchronous); an AssertionError naming what it has committed if not within 30 s."""
    consumer = Consumer(cluster.client_config(**{"group.id": group,
                                                 "enable.auto.commit": False}))
    state = {}

    def look():
        state["offset"] = consumer.committed([TopicPartition(topic, 0)], timeout=30)[0].offset

    try:
        assert wait_until(lambda: state.get("offset") == offset, look, timeout=30), (
            "group %s committed %s for %s, not %d" % (group, state.get("offset"), topic, offset))
    finally:
        consumer.close()


def _headers(msg):
    return {k: v for k, v in (msg.headers() or []) if k.startswith("app-")}


@pytest.mark.parametrize("client", ["confluent_binding", "reference"])
@pytest.mark.parametrize("flavor", ["confluent", "kafka"])
def test_faststream_application(flavor, client, kafka_cluster, make_topic):
    """One app on each FastStream Kafka broker, on the binding and on the library FastStream
    was written for: the same records out, the same deliveries, the same committed offsets."""
    names = ("single", "single_out", "batch", "batch_out", "manual", "nack_on_error", "ack")
    topics = {name: make_topic() for name in names}
    groups = {name: "fs-%s-%s" % (name, uuid.uuid4().hex[:8])
              for name in ("single", "batch", "manual", "nack_on_error", "ack")}
    config = kafka_cluster.client_config()
    _produce(config, topics["single"], SINGLE)
    _produce(config, topics["batch"], BATCH)
    _produce(config, topics["manual"], [(v, None, None) for v in MANUAL])
    _produce(config, topics["nack_on_error"], [(v, None, None) for v in NACK_ON_ERROR])
    _produce(config, topics["ack"], [(v, None, None) for v in ACK])
    library = {"confluent": "confluent_kafka", "kafka": "aiokafka"}[flavor]
    expected_library = ("confluent_binding" if flavor == "confluent"
                        else "confluent_binding.aiokafka") if client != "reference" else library
    spec = {"phase": "first", "topics": topics, "groups": groups, "max_records": MAX_RECORDS,
            "timeout": RUN_TIMEOUT - 30,
            "expect": {"single": len(SINGLE), "batch": len(BATCH), "manual": len(MANUAL) + 1,
                       "nack_on_error": len(NACK_ON_ERROR) + 1, "ack": len(ACK)}}

    app = App(flavor, client, kafka_cluster, spec)
    try:
        report = app.report()
        assert report["library"] == expected_library, report["library"]
        seen = report["seen"]

        # single records: each answered once, in order, with its bytes, key and headers
        assert [d["offset"] for d in seen["single"]] == list(range(len(SINGLE)))
        assert [bytes.fromhex(d["value"]) for d in seen["single"]] == [r[0] for r in SINGLE]
        assert [d["key"] and bytes.fromhex(d["key"]) for d in seen["single"]] == \
            [r[1] for r in SINGLE]
        assert [d["headers"] for d in seen["single"]] == \
            [{k: v.decode() for k, v in r[2]} for r in SINGLE]
        assert {d["partition"] for d in seen["single"]} == {0}
        # the subscriber's rebalance callback saw its assignment
        assert report["assigned"] == [[topics["single"], 0]]

        # manual acks: nack-1 came again; the rest once, in order
        assert [(d["offset"], d["action"]) for d in seen["manual"]] == [
            (0, "ack"), (1, "nack"), (1, "ack"), (2, "reject"), (3, "ack"), (4, "hold")]
        # NACK_ON_ERROR: the record whose handler raised came again; ACK: it did not
        assert [(d["offset"], d["raised"]) for d in seen["nack_on_error"]] == [
            (0, True), (0, False), (1, False)]
        assert [(d["offset"], d["raised"]) for d in seen["ack"]] == [(0, True), (1, False)]

        # the committed offsets, read while the app's consumers are still in their groups
        _wait_committed(kafka_cluster, groups["manual"], topics["manual"], MANUAL_COMMITTED)
        _wait_committed(kafka_cluster, groups["nack_on_error"], topics["nack_on_error"],
                        len(NACK_ON_ERROR))
        _wait_committed(kafka_cluster, groups["ack"], topics["ack"], len(ACK))

        # what the publishers wrote: each single record answered (value reversed, key kept,
        # headers added), in order
        out = _read_all(kafka_cluster, topics["single_out"])
        assert [m.value() for m in out] == [r[0][::-1] for r in SINGLE]
        assert [m.key() for m in out] == [r[1] for r in SINGLE]
        assert [_headers(m) for m in out] == [
            {"app-origin": str(i).encode(), "app-note": dict(r[2]).get("app-note", b"")}
            for i, r in enumerate(SINGLE)]
        app.stop()
    finally:
        app.kill()

    # batches: every record once, in order, in batches of at most MAX_RECORDS, at least one of
    # them more than one record (all were in the log before the app started)
    batches = seen["batch"]
    assert [o for b in batches for o in b["offsets"]] == list(range(len(BATCH)))
    assert [bytes.fromhex(v) for b in batches for v in b["values"]] == [r[0] for r in BATCH]
    assert [bytes.fromhex(k) for b in batches for k in b["keys"]] == [r[1] for r in BATCH]
    assert [h for b in batches for h in b["headers"]] == [
        {k: v.decode() for k, v in r[2]} for r in BATCH]
    assert max(len(b["offsets"]) for b in batches) <= MAX_RECORDS
    assert max(len(b["offsets"]) for b in batches) > 1
    out = _read_all(kafka_cluster, topics["batch_out"])
    assert [m.value() for m in out] == [r[0].upper() for r in BATCH]
    assert [_headers(m) for m in out] == [
        {"app-batch": str(b["offsets"][0]).encode()} for b in batches for _ in b["offsets"]]

    # a restart in the manual group: the record never acked comes first, and acking it commits
    resume = dict(spec, phase="resume", expect={"manual": 1})
    app = App(flavor, client, kafka_cluster, resume)
    try:
        report = app.report()
        assert [(d["offset"], d["value"]) for d in report["seen"]["manual"]] == [
            (MANUAL_COMMITTED, MANUAL[MANUAL_COMMITTED].hex())]
        _wait_committed(kafka_cluster, groups["manual"], topics["manual"], len(MANUAL))
        app.stop()
    finally:
        app.kill()


@pytest.mark.parametrize("flavor", ["confluent", "kafka"])
def test_faststream_in_memory_broker(flavor):
    """FastStream's in-memory TestKafkaBroker through the alias: on ``faststream.confluent`` it
    hands the subscriber its own subclass of our ``Message`` (made without calling the base
    class's ``__init__``), which must answer as on confluent-kafka."""
    env = {k: v for k, v in os.environ.items() if k != "CONFLUENT_BINDING_AS"}
    runs = {}
    for client in ("confluent_binding", "reference"):
        alias = []
        if client == "confluent_binding":
            alias = ["-m", "confluent_binding", "run"]
            if flavor == "kafka":
                alias += ["--as", "aiokafka"]
        proc = subprocess.run([sys.executable, *alias, str(IN_MEMORY), flavor], env=env,
                              capture_output=True, text=True, timeout=RUN_TIMEOUT)
        assert proc.returncode == 0, proc.stderr[-6000:]
        runs[client] = json.loads(proc.stdout.strip().splitlines()[-1])
    ours, reference = runs["confluent_binding"], runs["reference"]
    library = {"confluent": "confluent_kafka", "kafka": "aiokafka"}[flavor]
    assert reference["library"] == library
    assert ours["library"] == {"confluent": "confluent_binding",
                               "kafka": "confluent_binding.aiokafka"}[flavor]
    assert ours["seen"] == dict(reference["seen"], mro=ours["seen"]["mro"])
    assert ours["seen"]["answer"] == "echo:hello"
    if flavor == "confluent":
        assert ours["seen"]["is_message"] is True
        mro = ours["seen"]["mro"]
        assert mro[0] == "faststream.confluent.testing.MockConfluentMessage", mro
        assert mro[1].startswith("confluent_binding.") and mro[1].endswith(".Message"), mro
