"""An exactly-once pipeline: consume -> transform -> produce in transactions with
send_offsets_to_transaction, every other transaction aborted (and the input rewound to the
committed offsets), the broker SIGKILLed and restarted mid-run. A read_committed reader of the
output sees every input exactly once, in input order per partition."""
import collections
import threading
import time
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.testing import KafkaCluster

pytestmark = pytest.mark.integration

PARTITIONS = 3
MESSAGES = 6_000


@pytest.fixture
def broker(tmp_path):
    with KafkaCluster(workdir=tmp_path / "broker") as c:
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
        "transaction.timeout.ms": 60_000, "message.timeout.ms": 60_000}))
    producer.init_transactions(60)

    stats = collections.Counter()
    restarter = None
    # what the last committed transaction committed: where an aborted one rewinds to
    committed = [kafka.TopicPartition(src, i, kafka.OFFSET_BEGINNING) for i in range(PARTITIONS)]
    deadline = time.monotonic() + 240
    while sum(max(tp.offset, 0) for tp in committed) < MESSAGES:
        assert time.monotonic() < deadline, "pipeline stalled: %r" % stats
        if stats["committed"] == 5 and restarter is None:
            # the broker goes down between transactions and is back a few seconds later,
            # while the pipeline keeps working
            broker.kill()
            restarter = threading.Thread(target=broker.restart)
            restarter.start()
        msgs = [m for m in consumer.consume(200, 0.5) if m.error() is None]
        if not msgs:
            continue
        abort = stats["transactions"] % 2 == 1
        stats["transactions"] += 1
        try:
            producer.begin_transaction()
            for m in msgs:
                producer.produce(dst, b"out-" + m.value(), partition=m.partition())
            positions = consumer.position(parts)
            producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(),
                                                 60)
            if abort:
                producer.abort_transaction(60)
                stats["aborted"] += 1
            else:
                _commit(producer)
                stats["committed"] += 1
                committed = [kafka.TopicPartition(tp.topic, tp.partition, tp.offset)
                             if tp.offset >= 0 else old for tp, old in zip(positions, committed)]
                continue
        except kafka.KafkaException as exc:
            err = exc.args[0]
            assert err.txn_requires_abort() and not err.fatal(), err
            producer.abort_transaction(60)
            stats["aborted_by_error"] += 1
        for tp in committed:
            consumer.seek(tp)
    if restarter is not None:
        restarter.join()
    producer.close()
    consumer.close()
    assert restarter is not None and stats["aborted"] > 0
    for key, value in stats.items():
        record_property(key, value)

    # the group's committed offsets are the transactions' own
    check = kafka.Consumer(broker.client_config(**{"group.id": group}))
    assert [tp.offset for tp in check.committed(parts, timeout=30)] == \
        [MESSAGES // PARTITIONS] * PARTITIONS
    check.close()

    reader = kafka.Consumer(broker.client_config(**{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest",
        "isolation.level": "read_committed", "enable.partition.eof": True}))
    reader.assign([kafka.TopicPartition(dst, i, kafka.OFFSET_BEGINNING)
                   for i in range(PARTITIONS)])
    seen, eof = collections.defaultdict(list), set()
    deadline = time.monotonic() + 60
    while len(eof) < PARTITIONS:
        assert time.monotonic() < deadline
        for m in reader.consume(1000, 0.5):
            if m.error() is None:
                seen[m.partition()].append(int(m.value()[4:]))
            elif m.error().code() == kafka.KafkaError._PARTITION_EOF:
                eof.add(m.partition())
    reader.close()
    for part in range(PARTITIONS):
        assert seen[part] == list(range(part, MESSAGES, PARTITIONS)), "partition %d" % part


def _commit(producer):
    """commit_transaction, retried while librdkafka calls the failure retriable."""
    while True:
        try:
            producer.commit_transaction(60)
            return
        except kafka.KafkaException as exc:
            if not exc.args[0].retriable():
                raise
