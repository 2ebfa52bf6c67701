"""The harness's three-broker cluster: one controller quorum over three nodes, topics
replicated to all of them, min.insync.replicas enforced, each node killed, paused and
restarted on its own, SSL and SASL listeners on every node."""
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.testing import KafkaCluster, KafkaClusterError, KafkaNode

from tests.support.sequences import wait_for

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with KafkaCluster(brokers=3, min_insync_replicas=2, ssl=True, sasl=True, heap="512m",
                      workdir=tmp_path_factory.mktemp("three")) as c:
        yield c


def _partition(cluster, topic, part=0):
    """The partition's metadata as the broker(s) ``cluster`` names see it: pass one node to
    ask that broker alone. Each broker learns of a new topic from the controller at its own
    time, and the broker a client asks may not have it yet: wait until it does."""
    p = kafka.Producer(cluster.client_config(log_level=0))
    found = []

    def known():
        t = p.list_topics(topic, timeout=10).topics.get(topic)
        pm = None if t is None or t.error is not None else t.partitions.get(part)
        if pm is not None and pm.error is None and pm.leader >= 0:
            found[:] = [pm]
        return bool(found)

    try:
        wait_for("partition %d of %s in the metadata" % (part, topic), known, 30,
                 serve=lambda: p.poll(0.1))
        return found[0]
    finally:
        p.close()


def _produce_one(conf, topic, value):
    """Produce one message and flush: its delivery error (None when written)."""
    result = []
    p = kafka.Producer(conf, on_delivery=lambda err, msg: result.append(err))
    p.produce(topic, value)
    assert p.flush(60) == 0
    p.close()
    return result[0]


def test_three_nodes_one_quorum_replicated_topics(cluster):
    assert [n.node_id for n in cluster.nodes] == [1, 2, 3]
    assert all(isinstance(n, KafkaNode) for n in cluster.nodes)
    assert [n.workdir.name for n in cluster.nodes] == ["node-1", "node-2", "node-3"]
    assert len({n.pid for n in cluster.nodes}) == 3 and cluster.pid is None
    assert len(cluster.bootstrap_servers.split(",")) == 3
    assert all(n.cluster_id == cluster.cluster_id for n in cluster.nodes)
    md = cluster.metadata()
    assert sorted(md.brokers) == [1, 2, 3]
    topic = cluster.create_topic("three-" + uuid.uuid4().hex[:8], partitions=6)
    p = kafka.Producer(cluster.client_config(log_level=0))
    parts = p.list_topics(topic, timeout=10).topics[topic].partitions
    p.close()
    # create_topic returns once every broker's metadata shows the topic, whichever one a new
    # client asks
    assert sorted(parts) == list(range(6))
    for pm in parts.values():
        assert sorted(pm.replicas) == [1, 2, 3] and sorted(pm.isrs) == [1, 2, 3]
    # leadership is spread over the brokers
    assert len({pm.leader for pm in parts.values()}) > 1
    assert cluster.leader(topic, 0) == parts[0].leader
    with pytest.raises(KeyError):
        cluster.node(4)


def test_every_node_serves_ssl_and_sasl(cluster):
    topic = cluster.create_topic("secure3-" + uuid.uuid4().hex[:8], partitions=3)
    for conf in (cluster.ssl_client_config(), cluster.sasl_client_config(),
                 cluster.sasl_ssl_client_config(mechanism="SCRAM-SHA-512")):
        assert len(conf["bootstrap.servers"].split(",")) == 3
        # each bootstrap address alone works: every node has every listener
        for server in conf["bootstrap.servers"].split(","):
            one = dict(conf, **{"bootstrap.servers": server, "log_level": 0})
            assert _produce_one(one, topic, b"via " + server.encode()) is None


def test_min_insync_replicas_refuses_acks_all_below_it(cluster):
    # two replicas, so that one broker down leaves one in sync, below min.insync.replicas=2
    topic = cluster.create_topic("isr-" + uuid.uuid4().hex[:8], replication_factor=2)
    pm = _partition(cluster, topic)
    assert len(pm.replicas) == 2
    follower = next(r for r in pm.replicas if r != pm.leader)
    leader = cluster.node(pm.leader)
    cluster.node(follower).kill()
    try:
        # Ask the leader itself: it refuses acks=all only once it has applied the smaller ISR,
        # and another broker may learn of it first. A write the leader accepts with the old
        # ISR waits for a high watermark that, below min.insync.replicas, Kafka 4.1 (strict
        # min ISR, KIP-966) never advances, and fails as REQUEST_TIMED_OUT instead. The
        # leader's metadata may show the smaller ISR a moment before its produce path applies
        # it: until the refusal comes, a write times out (never succeeds), and is tried again.
        wait_for("the leader to see the ISR shrink",
                 lambda: len(_partition(leader, topic).isrs) == 1, 60)
        conf = cluster.client_config(acks="all", retries=0, log_level=0,
                                     **{"request.timeout.ms": 3000})
        errors = []

        def refused():
            errors.append(_produce_one(conf, topic, b"refused"))
            assert errors[-1] is not None and errors[-1].code() in (
                kafka.KafkaError.NOT_ENOUGH_REPLICAS, kafka.KafkaError.REQUEST_TIMED_OUT), errors
            return errors[-1].code() == kafka.KafkaError.NOT_ENOUGH_REPLICAS

        wait_for("the leader to refuse acks=all", refused, 60, state=lambda: str(errors))
        # acks=1 does not need the other replica
        assert _produce_one(cluster.client_config(acks=1, log_level=0), topic, b"ok") is None
    finally:
        cluster.node(follower).restart()
    wait_for("the ISR to grow back", lambda: len(_partition(cluster, topic).isrs) == 2, 60)
    assert _produce_one(cluster.client_config(acks="all", log_level=0), topic, b"ok") is None


def test_a_paused_node_stops_answering_until_resumed(cluster):
    node = cluster.node(3)

    def state():
        with open("/proc/%d/stat" % node.pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]

    node.pause()
    try:
        assert state() == "T"
    finally:
        node.resume()
    assert state() != "T"
    assert node.is_running


def test_replication_settings_are_checked():
    with pytest.raises(ValueError, match="replication_factor"):
        KafkaCluster(brokers=2, replication_factor=3)
    with pytest.raises(ValueError, match="min_insync_replicas"):
        KafkaCluster(brokers=3, replication_factor=2, min_insync_replicas=3)
    with pytest.raises(ValueError, match="brokers"):
        KafkaCluster(brokers=0)
    # the single-broker default sets nothing about replication
    assert "min.insync.replicas" not in KafkaCluster().broker_properties
    with pytest.raises(KafkaClusterError, match="not been started"):
        KafkaCluster(brokers=3).bootstrap_servers
