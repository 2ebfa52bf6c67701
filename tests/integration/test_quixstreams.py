"""quixstreams, unmodified, on confluent_binding: a stateful exactly-once Application against the
real broker, stopped and restarted with its local state gone, recovers that state from its
changelog topics and writes every window total exactly once.

The Application (quixstreams_app/pipeline.py) runs in a child process whose ``confluent_kafka``
and every ``confluent_kafka.*`` module are confluent_binding's (``python -m confluent_binding run
pipeline.py``: the public import alias), although confluent-kafka itself is installed too.
quixstreams is installed without its ``confluent-kafka`` requirement (requirements-nodeps.txt;
its own requirements are pinned in requirements-dev.txt).
"""

import json
import os
import subprocess
import sys
import time
import uuid
from importlib.metadata import version
from pathlib import Path

import pytest

from confluent_binding import Consumer, KafkaError, Producer, TopicPartition
from confluent_binding.admin import AdminClient, ConfigResource

QUIXSTREAMS_VERSION = "3.28.1"
if sys.version_info < (3, 11):
    pytest.skip("quixstreams %s needs Python 3.11+" % QUIXSTREAMS_VERSION,
                allow_module_level=True)

APP_DIR = Path(__file__).with_name("quixstreams_app")
# The records' timestamps: recent (the broker's time-based retention keeps them), a multiple of
# the 10 s window.
T0 = int(time.time() - 600) // 10 * 10_000
RUN_TIMEOUT = 90

# (device key, ms after T0, user, kind, amount). One device per user keeps each user's
# purchases in one input partition, hence in time order through the repartition topic.
DEVICE = {"u1": "dev-a", "u2": "dev-b", "u3": "dev-c"}
FIRST = [
    (0, "u1", "purchase", 3), (1_000, "u2", "purchase", 5), (2_000, "u1", "purchase", 4),
    (3_000, "u2", "view", 50), (4_000, "u3", "purchase", 7),
    # window 1 opens for u1 and u2 (closing their window 0); u3's window 0 stays open
    (11_000, "u1", "purchase", 1), (12_000, "u2", "purchase", 2), (13_000, "u3", "view", 9),
]
SECOND = [
    (14_000, "u1", "purchase", 10), (15_000, "u3", "purchase", 20), (16_000, "u2", "purchase", 6),
    (21_000, "u1", "purchase", 100), (22_000, "u2", "view", 1), (23_000, "u2", "purchase", 200),
    # far-later purchases of nothing: close every user's last real window
    (90_000, "u1", "purchase", 0), (90_000, "u2", "purchase", 0), (90_000, "u3", "purchase", 0),
]


THIRD = [
    (95_000, "u1", "purchase", 5), (101_000, "u1", "purchase", 7), (102_000, "u2", "purchase", 8),
    (103_000, "u3", "purchase", 9), (104_000, "u3", "view", 4),
    (200_000, "u1", "purchase", 0), (200_000, "u2", "purchase", 0), (200_000, "u3", "purchase", 0),
]


def _window(user, index, cents, purchases):
    start = T0 + index * 10_000
    return (user, {"start": start, "end": start + 10_000, "cents": cents,
                   "purchases": purchases})


# Window totals closed by the first run: u1's and u2's window 0.
FIRST_TOTALS = [_window("u1", 0, 700, 2), _window("u2", 0, 500, 1)]
# Closed by the second run, with the first run's part of each still-open window, which the
# second run (with empty local state) can only have from the changelog: u3's window 0 (700),
# u1's window 1 (100 + 1000), u2's window 1 (200 + 600).
SECOND_TOTALS = [
    _window("u3", 0, 700, 1), _window("u1", 1, 1100, 2), _window("u2", 1, 800, 2),
    _window("u3", 1, 2000, 1), _window("u1", 2, 10000, 1), _window("u2", 2, 20000, 1),
]
# Closed after the crash: window 9 holds the second batch's zero purchases (from the changelog).
THIRD_TOTALS = [
    _window("u1", 9, 500, 2), _window("u2", 9, 0, 1), _window("u3", 9, 0, 1),
    _window("u1", 10, 700, 1), _window("u2", 10, 800, 1), _window("u3", 10, 900, 1),
]


def _produce(config, topic, records):
    producer = Producer(config)
    for offset, user, kind, amount in records:
        producer.produce(topic, key=DEVICE[user], timestamp=T0 + offset,
                         value=json.dumps({"user": user, "kind": kind, "amount": amount}))
    assert producer.flush(30) == 0


def _purchases(records):
    return sum(1 for record in records if record[2] == "purchase")


def _run_app(client, cluster, names, state_dir, stop, status=0):
    """One run of the Application in its own process, on `client`, until `stop`
    (pipeline.py's STOP)."""
    env = {k: v for k, v in os.environ.items() if k != "CONFLUENT_BINDING_AS"}
    alias = ["-m", "confluent_binding", "run"] if client == "confluent_binding" else []
    proc = subprocess.run(
        [sys.executable, *alias, str(APP_DIR / "pipeline.py"), cluster.bootstrap_servers,
         *names, str(state_dir), stop],
        env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert proc.returncode == status, "the Application exited with %d:\n%s" % (
        proc.returncode, proc.stderr[-6000:])
    return json.loads(proc.stdout.strip().splitlines()[-1]) if status == 0 else None


def _read(cluster, topic, isolation="read_committed"):
    """Everything a consumer at `isolation` sees in `topic`, to the end of every partition."""
    partitions = cluster.topic_partitions(topic)
    consumer = Consumer(cluster.client_config(**{
        "group.id": "reader-" + uuid.uuid4().hex, "isolation.level": isolation,
        "enable.partition.eof": True, "enable.auto.commit": False}))
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        at_end, out = set(), []
        while len(at_end) < partitions:
            msg = consumer.poll(30)
            assert msg is not None, "no end of %s within 30 s" % topic
            if msg.error():
                assert msg.error().code() == KafkaError._PARTITION_EOF, msg.error()
                at_end.add(msg.partition())
                continue
            out.append((msg.key().decode(), json.loads(msg.value())))
    finally:
        consumer.close()
    return out


def _ordered(totals):
    return sorted(totals, key=lambda t: (t[1]["start"], t[0]))


@pytest.mark.parametrize("client", ["confluent_binding", "confluent_kafka"])
def test_quixstreams_application_exactly_once_restarts(client, kafka_cluster, make_topic,
                                                       tmp_path):
    """The same Application on the binding and, for reference, on confluent-kafka itself:
    the same window totals, each exactly once, through a clean stop and a crash."""
    assert version("quixstreams") == QUIXSTREAMS_VERSION
    group = "quix-" + uuid.uuid4().hex[:8]
    input_topic = make_topic(partitions=2)
    output_topic = "totals-" + uuid.uuid4().hex[:8]  # created by quixstreams' TopicManager
    names = (group, input_topic, output_topic)
    config = kafka_cluster.client_config()

    _produce(config, input_topic, FIRST)
    first = _run_app(client, kafka_cluster, names, tmp_path / "state-1",
                     "records=%d" % _purchases(FIRST))
    # Which library the process ran on: with the alias every confluent_kafka module was ours.
    assert first["confluent_kafka"] == client
    assert {"confluent_kafka.admin", "confluent_kafka.cimpl", "confluent_kafka.error",
            "confluent_kafka.serialization"} <= set(first["modules"])
    assert all(real == client + name[len("confluent_kafka"):]
               for name, real in first["modules"].items()), first["modules"]
    assert first["admin_is_ours"] == (client == "confluent_binding"), first["admin_client"]
    assert _ordered(_read(kafka_cluster, output_topic)) == _ordered(FIRST_TOTALS)

    # TopicManager created the output, repartition and changelog topics.
    admin = AdminClient(config)
    topics = admin.list_topics(timeout=30).topics
    internal = [t for t in topics if group in t]
    repartition = [t for t in internal if t.startswith("repartition__")]
    changelogs = [t for t in internal if t.startswith("changelog__")]
    assert len(repartition) == 1 and len(changelogs) == 1, internal
    for name in [output_topic] + repartition + changelogs:
        assert len(topics[name].partitions) == 2, name
    futures = admin.describe_configs([ConfigResource("topic", t) for t in changelogs])
    for resource, future in futures.items():
        assert future.result()["cleanup.policy"].value == "compact", resource

    # A clean stop, then a restart with the local state gone: what the first run aggregated
    # comes back from the changelog.
    _produce(config, input_topic, SECOND)
    second = _run_app(client, kafka_cluster, names, tmp_path / "state-2",
                      "records=%d" % _purchases(SECOND))
    assert second["records"] == _purchases(SECOND)
    assert _ordered(_read(kafka_cluster, output_topic)) == \
        _ordered(FIRST_TOTALS + SECOND_TOTALS)

    # A crash with a window total sent inside an open transaction, then a restart (state gone
    # again): the total is written again, and read_committed sees each total exactly once.
    _produce(config, input_topic, THIRD)
    _run_app(client, kafka_cluster, names, tmp_path / "state-3", "crash=1", status=17)
    fourth = _run_app(client, kafka_cluster, names, tmp_path / "state-4",
                      "outputs=%d" % len(THIRD_TOTALS))
    assert fourth["outputs"] == len(THIRD_TOTALS)
    committed = _read(kafka_cluster, output_topic)
    assert _ordered(committed) == _ordered(FIRST_TOTALS + SECOND_TOTALS + THIRD_TOTALS)
    # the crashed run's total is in the log too, in its aborted transaction
    aborted = _read(kafka_cluster, output_topic, "read_uncommitted")
    for total in committed:
        aborted.remove(total)
    assert len(aborted) == 1 and aborted[0] in THIRD_TOTALS, aborted
