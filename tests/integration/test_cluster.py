"""Tests of the Kafka test harness itself (confluent_binding.testing).

The first group uses the session broker from the ``kafka_cluster`` fixture;
restart/kill and SSL/SASL tests start brokers of their own.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from confluent_binding import KafkaError, KafkaException
from confluent_binding.admin import AdminClient
from confluent_binding.testing import (
    KafkaCluster,
    KafkaClusterError,
    _jars,
    ensure_kafka_jars,
)

# ---------------------------------------------------------------------------
# No broker needed


def test_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("CONFLUENT_BINDING_CACHE", str(tmp_path))
    assert _jars.cache_dir() == tmp_path
    assert _jars.find_kafka_jars("0.0.0-none") is None


# ---------------------------------------------------------------------------
# Session broker


@pytest.mark.integration
def test_broker_answers_metadata(kafka_cluster):
    md = kafka_cluster.metadata()
    assert md.brokers, md
    assert md.controller_id >= 0
    conf = kafka_cluster.client_config(group_id="g",
                                       **{"auto.offset.reset": "earliest", "a.b_c": 1})
    assert conf["bootstrap.servers"] == kafka_cluster.bootstrap_servers
    assert conf["group.id"] == "g" and conf["auto.offset.reset"] == "earliest"
    assert conf["a.b_c"] == 1


@pytest.mark.integration
def test_create_topic_with_partitions(kafka_cluster, make_topic):
    name = make_topic(partitions=3)
    assert kafka_cluster.topic_partitions(name) == 3
    md = kafka_cluster.metadata([name])
    assert sorted(md.topics[name].partitions) == [0, 1, 2]
    assert all(p.leader >= 0 for p in md.topics[name].partitions.values())
    with pytest.raises(KafkaException) as e:
        kafka_cluster.create_topic(name, partitions=1)
    assert e.value.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS
    kafka_cluster.create_topic(name, partitions=1, exist_ok=True)


@pytest.mark.integration
def test_topic_fixture_and_delete(kafka_cluster, topic):
    assert kafka_cluster.topic_partitions(topic) == 1
    kafka_cluster.delete_topic(topic)
    assert kafka_cluster.topic_partitions(topic) is None
    assert kafka_cluster.topic_partitions("no-such-topic-%d" % os.getpid()) is None


# ---------------------------------------------------------------------------
# Brokers of their own


@pytest.fixture(scope="module")
def kafka_libs():
    """Jars for private brokers (these tests need a local java)."""
    external = bool(os.environ.get("KAFKA_BOOTSTRAP_SERVERS"))
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        if external:
            pytest.skip("needs a local java to run private brokers")
        pytest.fail("needs a local java (17+) to run private Kafka brokers")
    try:
        return ensure_kafka_jars()
    except Exception as e:
        if external:
            pytest.skip("Kafka jars unavailable: %s" % e)
        pytest.fail("Kafka jars unavailable: %s" % e)


@pytest.fixture(scope="module")
def private_cluster(kafka_libs):
    cluster = KafkaCluster(libs_dir=kafka_libs, fast_startup=True)
    cluster.start()
    yield cluster
    cluster.cleanup()


@pytest.mark.integration
def test_restart_keeps_data(private_cluster):
    k = private_cluster
    if not k.is_running:
        k.start()
    ports, cluster_id = dict(k.ports), k.cluster_id
    name = k.create_topic("keep-me", partitions=2)

    k.restart()  # clean stop + start
    assert k.is_running and k.ports == ports and k.cluster_id == cluster_id
    assert k.topic_partitions(name) == 2

    k.kill()  # unclean: SIGKILL, then recover the same data
    assert not k.is_running
    k.restart()
    assert k.topic_partitions(name) == 2
    assert all(p.leader >= 0 for p in k.metadata([name]).topics[name].partitions.values())


@pytest.mark.integration
def test_kill_then_start_fresh(private_cluster):
    k = private_cluster
    if not k.is_running:
        k.start()
    old_id = k.cluster_id
    k.create_topic("gone-after-start", partitions=1, exist_ok=True)
    pid = k.pid
    k.kill()
    assert not k.is_running
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    k.start()
    assert k.is_running and k.cluster_id != old_id
    assert k.topic_partitions("gone-after-start") is None
    assert k.create_topic("fresh", partitions=2) == "fresh"
    assert k.topic_partitions("fresh") == 2


@pytest.mark.integration
def test_failed_start_reports_broker_log(kafka_libs):
    # Conflicts with the default G1 flag: the JVM exits at once.
    k = KafkaCluster(libs_dir=kafka_libs, extra_jvm_opts=["-XX:+UseSerialGC"])
    t0 = time.monotonic()
    try:
        with pytest.raises(KafkaClusterError, match="Multiple garbage collectors"):
            k.start(timeout=60)
        assert time.monotonic() - t0 < 30
        assert not k.is_running
    finally:
        k.cleanup()


@pytest.mark.integration
def test_ssl_and_sasl_listeners(kafka_libs):
    with KafkaCluster(ssl=True, sasl=True, libs_dir=kafka_libs, fast_startup=True) as k:
        # SSL listener: TLS verified against the generated CA and the 127.0.0.1 SAN
        conf = k.ssl_client_config()
        assert conf["security.protocol"] == "SSL"
        assert conf["bootstrap.servers"] == k.ssl_bootstrap_servers
        for conf in (conf, k.ssl_client_config(client_cert=True)):
            with AdminClient(conf) as a:
                assert a.list_topics(timeout=20).brokers

        # SASL listener: the users can log in with every mechanism (SCRAM credentials were
        # added at format time), over SASL_SSL too...
        for mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
            conf = k.sasl_client_config(mechanism, username="alice")
            assert conf["security.protocol"] == "SASL_PLAINTEXT"
            with AdminClient(conf) as a:
                assert a.list_topics(timeout=20).brokers
        with AdminClient(k.sasl_ssl_client_config("SCRAM-SHA-512")) as a:
            assert a.list_topics(timeout=20).brokers
        # ...and a wrong password is refused
        errors = []
        with AdminClient(k.sasl_client_config("SCRAM-SHA-256", "alice", "wrong",
                                              error_cb=errors.append, log_level=0)) as a:
            deadline = time.monotonic() + 20
            while not any(e.code() == KafkaError._AUTHENTICATION for e in errors):
                assert time.monotonic() < deadline, errors
                a.poll(0.2)
