"""Exactly once across faults.

- A pipeline: consume -> transform -> produce in transactions with send_offsets_to_transaction,
  every other transaction aborted (and the input rewound to the committed offsets), the broker
  SIGKILLed and restarted between transactions.
- Transactions on a cluster of three brokers, one of them SIGKILLed inside an open transaction
  (half of it written): the leader of partitions it writes to, or its transaction coordinator.
  The transaction commits once the cluster has recovered, or aborts and is done again.

A read_committed reader sees every record exactly once, in order per partition. Each test
proves that the kill reached the producer, by the producer's own statistics: its connection to
the killed transaction coordinator broke, or the leader epoch it knows of the killed leader's
partitions grew."""
import collections
import threading
import time
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.admin import NewTopic
from confluent_binding.testing import KafkaCluster

from tests.support.client_stats import INTERVAL_MS, Statistics
from tests.support.sequences import wait_for

pytestmark = pytest.mark.integration

PARTITIONS = 3
MESSAGES = 6_000
BROKERS = 3
TRANSACTIONS = 6
PER_TRANSACTION = 600
KILLED_IN = 2   # the transaction the broker dies in


@pytest.fixture
def broker(tmp_path):
    with KafkaCluster(workdir=tmp_path / "broker") as c:
        yield c


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Three brokers as in test_cluster_faults (replication factor 3, min.insync.replicas 2, so
    any one may die), shared by this module's kill cases: each brings its broker back, with
    every replica in sync, before it ends."""
    with KafkaCluster(brokers=BROKERS, min_insync_replicas=2, heap="768m",
                      workdir=tmp_path_factory.mktemp("eos-cluster")) as c:
        yield c


def test_transactions_with_aborts_and_a_broker_restart_deliver_each_input_once(
        broker, record_property):
    src = broker.create_topic("eos-in-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    dst = broker.create_topic("eos-out-" + uuid.uuid4().hex[:8], partitions=PARTITIONS)
    p = kafka.Producer(broker.client_config(**{"linger.ms": 5}))
    for i in range(MESSAGES):
        p.produce(src, b"%d" % i, partition=i % PARTITIONS)
    assert p.flush(60) == 0
    p.close()

    group = uuid.uuid4().hex
    stats = Statistics()
    consumer = kafka.Consumer(broker.client_config(**{
        "group.id": group, "enable.auto.commit": False, "auto.offset.reset": "earliest",
        "isolation.level": "read_committed", "log_level": 0}))
    parts = [kafka.TopicPartition(src, i) for i in range(PARTITIONS)]
    # A new group has nothing committed: start at the beginning explicitly, so that the first
    # fetch does not wait on a committed-offset lookup from a coordinator still loading.
    consumer.assign([kafka.TopicPartition(src, i, kafka.OFFSET_BEGINNING)
                     for i in range(PARTITIONS)])
    producer = kafka.Producer(broker.client_config(**{
        "transactional.id": "eos-" + group, "linger.ms": 5, "log_level": 0,
        "transaction.timeout.ms": 60_000, "message.timeout.ms": 60_000,
        "statistics.interval.ms": INTERVAL_MS}, stats_cb=stats))
    producer.init_transactions(60)

    outcome = collections.Counter()
    restarter = None
    # what the last committed transaction committed: where an aborted one rewinds to
    committed = [kafka.TopicPartition(src, i, kafka.OFFSET_BEGINNING) for i in range(PARTITIONS)]
    deadline = time.monotonic() + 240
    while sum(max(tp.offset, 0) for tp in committed) < MESSAGES:
        assert time.monotonic() < deadline, "pipeline stalled: %r" % outcome
        if outcome["committed"] == 5 and restarter is None:
            # the broker goes down between transactions and is back a few seconds later,
            # while the pipeline keeps working
            broker.kill()
            restarter = threading.Thread(target=broker.restart)
            restarter.start()
        msgs = [m for m in consumer.consume(200, 0.5) if m.error() is None]
        if not msgs:
            continue
        abort = outcome["transactions"] % 2 == 1
        outcome["transactions"] += 1
        try:
            producer.begin_transaction()
            for m in msgs:
                producer.produce(dst, b"out-" + m.value(), partition=m.partition())
            positions = consumer.position(parts)
            producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(),
                                                 60)
            if abort:
                producer.abort_transaction(60)
                outcome["aborted"] += 1
            else:
                _commit(producer)
                outcome["committed"] += 1
                committed = [kafka.TopicPartition(tp.topic, tp.partition, tp.offset)
                             if tp.offset >= 0 else old for tp, old in zip(positions, committed)]
                continue
        except kafka.KafkaException as exc:
            err = exc.args[0]
            assert err.txn_requires_abort() and not err.fatal(), err
            producer.abort_transaction(60)
            outcome["aborted_by_error"] += 1
        for tp in committed:
            consumer.seek(tp)
    if restarter is not None:
        restarter.join()
    # the positive control: the kill broke the producer's connection to its transaction
    # coordinator (a logical broker of its own, which stays in the statistics)
    stats.settle(producer)
    disconnects = stats.disconnects("TxnCoordinator")
    producer.close()
    consumer.close()
    assert restarter is not None and outcome["aborted"] > 0
    assert disconnects >= 1, "the producer's connection outlived the kill"
    for key, value in outcome.items():
        record_property(key, value)

    # the group's committed offsets are the transactions' own
    check = kafka.Consumer(broker.client_config(**{"group.id": group}))
    assert [tp.offset for tp in check.committed(parts, timeout=30)] == \
        [MESSAGES // PARTITIONS] * PARTITIONS
    check.close()

    seen = _read_committed(broker, dst, b"out-")
    for part in range(PARTITIONS):
        assert seen[part] == list(range(part, MESSAGES, PARTITIONS)), "partition %d" % part


TXN_LOG = "__transaction_state"


def _metadata(cluster):
    """The cluster's topics (from a quiet client: a broker that is down is no error here)."""
    with cluster.admin_client(log_level=0) as a:
        return a.list_topics(timeout=10).topics


def _roles(cluster, topic):
    """{node id: what it does for the transactions below}: leads partitions of topic, is the
    transaction coordinator (the leader of the transaction log's one partition)."""
    md = _metadata(cluster)
    roles = collections.defaultdict(set)
    for pm in md[topic].partitions.values():
        roles[pm.leader].add("partition leader")
    roles[md[TXN_LOG].partitions[0].leader].add("transaction coordinator")
    return roles


def _in_sync(cluster, *topics):
    """Every partition of these topics led, all its replicas in sync."""
    md = _metadata(cluster)
    return all(name in md and md[name].partitions and all(
        pm.leader >= 0 and len(pm.isrs) == BROKERS for pm in md[name].partitions.values())
        for name in topics)


def _topic_apart_from_coordinator(cluster):
    """A new topic whose partitions are led by the brokers other than the transaction
    coordinator (which keeps a replica of each), so that either role can be killed alone."""
    wait_for("the transaction log in sync", lambda: _in_sync(cluster, TXN_LOG), 60)
    coordinator = _metadata(cluster)[TXN_LOG].partitions[0].leader
    a, b = [n.node_id for n in cluster.nodes if n.node_id != coordinator]
    topic = "eos-kill-" + uuid.uuid4().hex[:8]
    assignment = [[a, b, coordinator], [b, a, coordinator], [a, coordinator, b]][:PARTITIONS]
    with cluster.admin_client(log_level=0) as admin:
        admin.create_topics([NewTopic(topic, PARTITIONS, replica_assignment=assignment)])[
            topic].result(30)
    wait_for("every replica of %s in sync" % topic, lambda: _in_sync(cluster, topic), 60)
    return topic


@pytest.mark.parametrize("role", ["partition leader", "transaction coordinator"])
def test_a_broker_killed_inside_an_open_transaction_costs_no_record_and_adds_none(
        cluster, role, record_property):
    """TRANSACTIONS transactions of PER_TRANSACTION records each; in transaction KILLED_IN,
    once its first half is written (acknowledged by every in-sync replica), the broker in that
    role (and no other) is SIGKILLed, then the second half is produced and the transaction
    committed. Another thread waits for the roles to move, restarts the broker and waits for
    its replicas to catch up."""
    stats = Statistics()
    p = kafka.Producer(cluster.client_config(**{
        "transactional.id": "eos-kill-" + uuid.uuid4().hex, "linger.ms": 5, "log_level": 0,
        "transaction.timeout.ms": 120_000, "message.timeout.ms": 120_000,
        "statistics.interval.ms": INTERVAL_MS}, stats_cb=stats))
    p.init_transactions(60)   # the first one in the cluster creates the transaction log
    topic = _topic_apart_from_coordinator(cluster)
    outcome, kill, recovery_failed = collections.Counter(), {}, []

    def recover(node):
        try:
            t0 = time.monotonic()
            wait_for("node %d's roles to move" % node,
                     lambda: not {node, -1} & set(_roles(cluster, topic)), 60)
            kill["roles_moved_s"] = round(time.monotonic() - t0, 1)
            cluster.node(node).restart()
            wait_for("every replica back in sync", lambda: _in_sync(cluster, topic, TXN_LOG),
                     120)
            kill["back_in_sync_s"] = round(time.monotonic() - t0, 1)
        except BaseException as exc:   # failed in the test's thread, below
            recovery_failed.append(exc)

    recovery = None
    try:
        for t in range(TRANSACTIONS):
            first, last = t * PER_TRANSACTION, (t + 1) * PER_TRANSACTION
            half = (first + last) // 2
            while True:   # until it commits: an aborted transaction is done again
                try:
                    p.begin_transaction()
                    for i in range(first, half):
                        p.produce(topic, b"%d" % i, partition=i % PARTITIONS)
                    if t == KILLED_IN and not kill:
                        assert p.flush(60) == 0
                        stats.settle(p)
                        epochs = {part: stats.partition(topic, part)["leader_epoch"]
                                  for part in range(PARTITIONS)}
                        roles = _roles(cluster, topic)
                        node = min(roles, key=lambda n: (role not in roles[n], len(roles[n]), n))
                        led = [pm.id for pm in _metadata(cluster)[topic].partitions.values()
                               if pm.leader == node]
                        cluster.node(node).kill()
                        kill.update(node=node, roles=sorted(roles[node]), led=led)
                        recovery = threading.Thread(target=recover, args=(node,))
                        recovery.start()
                    for i in range(half, last):
                        p.produce(topic, b"%d" % i, partition=i % PARTITIONS)
                    _commit(p, 120)
                    outcome["committed"] += 1
                    break
                except kafka.KafkaException as exc:
                    err = exc.args[0]
                    assert not err.fatal(), err
                    outcome["aborted: " + err.name()] += 1
                    _abort(p)
    finally:
        if recovery is not None:
            recovery.join()
    if recovery_failed:
        raise recovery_failed[0]
    stats.settle(p)
    # the positive control, from the producer's own statistics: it saw the partitions the
    # killed broker led get a new leader; the connection it had to its transaction
    # coordinator (one of its own) broke
    epochs_after = {part: stats.partition(topic, part)["leader_epoch"]
                    for part in range(PARTITIONS)}
    coordinator_disconnects = stats.disconnects("TxnCoordinator")
    p.close()
    kill.update(coordinator_disconnects=coordinator_disconnects)
    record_property("kill", kill)
    record_property("outcome", dict(outcome))
    print("\nkilled %r inside a transaction (leader epochs before %r, after %r): %r"
          % (kill, epochs, epochs_after, dict(outcome)))
    assert kill["roles"] == [role], kill
    if role == "partition leader":
        assert kill["led"] and all(epochs_after[part] > epochs[part] for part in kill["led"]), \
            (kill, epochs, epochs_after)
    else:
        assert coordinator_disconnects >= 1, kill

    seen = _read_committed(cluster, topic)
    for part in range(PARTITIONS):
        assert seen[part] == list(range(part, TRANSACTIONS * PER_TRANSACTION, PARTITIONS)), \
            "partition %d" % part


def _read_committed(cluster, topic, prefix=b""):
    """{partition: [the numbers after prefix, in log order]} of the committed records."""
    reader = kafka.Consumer(cluster.client_config(**{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "isolation.level": "read_committed", "enable.partition.eof": True}))
    reader.assign([kafka.TopicPartition(topic, i, kafka.OFFSET_BEGINNING)
                   for i in range(PARTITIONS)])
    seen, eof = collections.defaultdict(list), set()
    deadline = time.monotonic() + 60
    while len(eof) < PARTITIONS:
        assert time.monotonic() < deadline, "read %r, at the end of %r" % (
            {p: len(v) for p, v in seen.items()}, eof)
        for m in reader.consume(1000, 0.5):
            if m.error() is None:
                seen[m.partition()].append(int(m.value()[len(prefix):]))
            elif m.error().code() == kafka.KafkaError._PARTITION_EOF:
                eof.add(m.partition())
    reader.close()
    return seen


def _commit(producer, timeout=60):
    """commit_transaction, retried while librdkafka calls the failure retriable."""
    while True:
        try:
            producer.commit_transaction(timeout)
            return
        except kafka.KafkaException as exc:
            if not exc.args[0].retriable():
                raise


def _abort(producer, timeout=120):
    """abort_transaction, retried while librdkafka calls the failure retriable."""
    while True:
        try:
            producer.abort_transaction(timeout)
            return
        except kafka.KafkaException as exc:
            if not exc.args[0].retriable():
                raise
