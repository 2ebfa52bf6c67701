"""Every script in examples/ runs against the session's real broker (and Schema Registry) and
prints what it promises; the docs include these files, so what they show is what runs here.

Each example is run as a user runs it: a separate interpreter, bootstrap servers from
``KAFKA_BOOTSTRAP_SERVERS``, its output checked line by line. The examples that take a topic
name run against a broker that does not create topics on first use (as managed clusters are
set up), with names no topic has yet: each creates what it needs (examples/topics.py).
"""
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from confluent_binding import KafkaError, Producer

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# Scripts with a test of their own here (topics.py: used by the others); the last test checks
# that none is left out.
COVERED = {"topics.py", "producer.py", "consumer.py", "admin.py", "asyncio_clients.py",
           "aiokafka_style.py",
           "transactions.py", "avro_schema_registry.py", "json_schema_registry.py",
           "oauth_bearer.py", "quickstart.py", "spark_pipeline.py",
           "spark_schema_registry.py"}


def run_example(script, *args, env=None, timeout=240, returncode=0):
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    environ.update(env or {})
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, args)],
                          cwd=str(ROOT), env=environ, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)
    assert proc.returncode == returncode, "%s exited %d:\n%s\n%s" % (
        script, proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc.stdout


@pytest.fixture
def broker_env(kafka_cluster):
    if kafka_cluster.client_config() != {"bootstrap.servers": kafka_cluster.bootstrap_servers}:
        pytest.skip("the examples take bootstrap servers only; this cluster needs more settings")
    return {"KAFKA_BOOTSTRAP_SERVERS": kafka_cluster.bootstrap_servers}


@pytest.fixture
def no_auto_create_cluster(no_auto_create_cluster, kafka_cluster):
    """The session's broker with ``auto.create.topics.enable=false`` (tests/conftest.py)."""
    if kafka_cluster.client_config() != {"bootstrap.servers": kafka_cluster.bootstrap_servers}:
        pytest.skip("the examples take bootstrap servers only; this cluster needs more settings")
    return no_auto_create_cluster


@pytest.fixture
def strict_env(no_auto_create_cluster):
    return {"KAFKA_BOOTSTRAP_SERVERS": no_auto_create_cluster.bootstrap_servers}


def new_topic_name(kind):
    return "examples-%s-%s" % (kind, uuid.uuid4().hex[:8])


def test_the_strict_broker_does_not_create_topics_on_first_use(no_auto_create_cluster):
    # The positive control of the tests below: a topic nobody created stays missing.
    topic = new_topic_name("missing")
    errors = []
    p = Producer({"bootstrap.servers": no_auto_create_cluster.bootstrap_servers,
                  "message.timeout.ms": 3000})
    p.produce(topic, b"x", on_delivery=lambda err, msg: errors.append(err))
    p.flush(10)
    assert [e.code() for e in errors] in ([KafkaError._UNKNOWN_TOPIC],
                                          [KafkaError.UNKNOWN_TOPIC_OR_PART],
                                          [KafkaError._MSG_TIMED_OUT]), errors
    assert no_auto_create_cluster.topic_partitions(topic) is None


def test_producer_then_consumer_group_commits(strict_env, no_auto_create_cluster):
    topic = new_topic_name("events")
    out = run_example("producer.py", "--topic", topic, "--count", 25, env=strict_env)
    assert "delivered 25/25 messages to %s" % topic in out
    assert no_auto_create_cluster.topic_partitions(topic) == 3      # created by the example

    group = "examples-%s" % uuid.uuid4().hex[:8]
    out = run_example("consumer.py", "--topic", topic, "--group", group, "--count", 25,
                      env=strict_env)
    assert "processed 25 messages" in out.splitlines()[-1]
    # The committed offsets add up to every message, per partition as the broker has them.
    committed = {}
    for line in out.splitlines():
        if line.startswith("committed "):
            for part in line[len("committed "):].split(", "):
                tp, offset = part.rsplit("@", 1)
                committed[tp] = int(offset)
    assert sum(committed.values()) == 25, out

    # A second run of the same group finds nothing left: the commits were real.
    out = run_example("consumer.py", "--topic", topic, "--group", group, "--count", 1,
                      "--timeout", 5, env=strict_env, returncode=1)
    assert "processed 0 messages" in out


def test_admin_creates_describes_and_deletes(broker_env, kafka_cluster):
    prefix = "examples-%s" % uuid.uuid4().hex[:8]
    out = run_example("admin.py", "--prefix", prefix, env=broker_env)
    assert "created %s-orders" % prefix in out
    assert re.search(r"%s-orders: 3 partitions, leaders \[\d+, \d+, \d+\]" % prefix, out), out
    assert "%s-audit: cleanup.policy=compact" % prefix in out
    assert kafka_cluster.topic_partitions(prefix + "-orders") is None


def test_asyncio_clients(strict_env):
    topic = new_topic_name("aio")
    out = run_example("asyncio_clients.py", "--topic", topic, "--count", 12, env=strict_env)
    assert "delivered 12 messages, last at offset 11" in out
    assert "consumed 12 messages, first 'event 0'" in out


def test_aiokafka_style(strict_env):
    topic = new_topic_name("aiokafka")
    out = run_example("aiokafka_style.py", "--topic", topic, "--count", 7, env=strict_env)
    assert "sent 7 records, last to partition 0 at offset 6" in out
    assert "received 7 records" in out


def test_transactions_exactly_once(strict_env):
    source, sink = new_topic_name("in"), new_topic_name("out")
    out = run_example("transactions.py", "--input", source, "--output", sink, "--count", 30,
                      env=strict_env)
    assert "transformed 30 messages in transactions" in out
    assert "read back 30 committed messages: each input exactly once" in out


def test_avro_with_schema_registry(strict_env, schema_registry):
    if schema_registry.client_config() != {"url": schema_registry.url}:
        pytest.skip("the example takes the registry URL only; this registry needs more settings")
    topic = new_topic_name("users")
    out = run_example("avro_schema_registry.py", "--topic", topic,
                      env=dict(strict_env, SCHEMA_REGISTRY_URL=schema_registry.url))
    assert re.search(r"schema id \d+ registered for %s-value" % re.escape(topic), out), out
    assert "u1: {'name': 'Ann', 'age': 31}" in out
    assert "u2: {'name': 'Bob', 'age': 42}" in out


def test_json_with_schema_registry(strict_env, schema_registry):
    if schema_registry.client_config() != {"url": schema_registry.url}:
        pytest.skip("the example takes the registry URL only; this registry needs more settings")
    topic = new_topic_name("orders")
    out = run_example("json_schema_registry.py", "--topic", topic,
                      env=dict(strict_env, SCHEMA_REGISTRY_URL=schema_registry.url))
    assert re.search(r"refused o3: .*-1", out), out
    assert re.search(r"schema id \d+ registered for %s-value" % re.escape(topic), out), out
    assert "o1: {'id': 'o1', 'amount': 12.5, 'items': ['tea']}" in out
    assert "o2: {'id': 'o2', 'amount': 3, 'items': []}" in out
    assert "o3:" not in out.replace("refused o3:", "")


def test_oauth_bearer(secure_cluster):
    topic = secure_cluster.create_topic("examples-oauth-%s" % uuid.uuid4().hex[:8])
    out = run_example("oauth_bearer.py", "--topic", topic, "--lifetime", 3,
                      env={"KAFKA_BOOTSTRAP_SERVERS": secure_cluster.sasl_bootstrap_servers})
    assert "first token fetched while the producer was created: True" in out
    found = re.search(r"delivered (\d+)/(\d+) messages with (\d+) tokens", out)
    assert found and found.group(1) == found.group(2) and int(found.group(3)) >= 2, out
    low, high = _watermarks(secure_cluster, topic)
    assert high - low == int(found.group(1)), (low, high)


def _watermarks(cluster, topic):
    from confluent_binding import Consumer, TopicPartition
    c = Consumer(cluster.client_config(**{"group.id": "examples-" + uuid.uuid4().hex}))
    try:
        return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        c.close()


def test_quickstart(broker_env):
    out = run_example("quickstart.py", 2000, env=broker_env)
    assert "2000/2000 messages round-tripped" in out


# about 2 min: make demo-spark runs it; tests/integration/spark covers its parts
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_spark_pipeline(broker_env):
    # A local[2] Spark session in the example's own process: its JVM start dominates (a minute
    # or more on a busy machine).
    out = run_example("spark_pipeline.py", env=dict(broker_env, PYSPARK_PYTHON=sys.executable),
                      timeout=840)
    assert re.search(r"Spark \S+ local\[2\] started", out), out
    assert out.count("micro-batches") == 2, out          # the query ran twice, restarted
    found = re.search(r"events counted in closed windows: (\d+) of 480 produced; "
                      r"every \(window, page\) written once: True", out)
    assert found, out
    # Both minutes' windows closed except the last few the watermark has not passed.
    assert 240 < int(found.group(1)) <= 480, out


# As a user runs it, in a process of its own (a JVM start: slow). In the default suite it runs in
# the Spark tests' session: tests/integration/spark/test_spark_schema_registry.py.
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_spark_schema_registry(strict_env, schema_registry):
    if schema_registry.client_config() != {"url": schema_registry.url}:
        pytest.skip("the example takes the registry URL only; this registry needs more settings")
    out = run_example("spark_schema_registry.py",
                      env=dict(strict_env, SCHEMA_REGISTRY_URL=schema_registry.url,
                               PYSPARK_PYTHON=sys.executable), timeout=840)
    assert "read 6 orders written with 2 schema versions" in out, out
    assert "EU  3  61.50" in out and "US  3  40.00" in out, out
    assert "read back 2 totals: [('EU', Decimal('61.50')), ('US', Decimal('40.00'))]" in out, out


def test_every_example_is_covered():
    assert {p.name for p in EXAMPLES.glob("*.py")} == COVERED
