"""poll() takes messages from librdkafka a batch ahead, yet what the application can observe is
what one message per call gives, as confluent-kafka's poll() does: the position, the stored and
committed offsets follow the messages handed out, and a seek, pause, unassign or transaction
marker acts on the read-ahead messages as librdkafka's own queue acts on its messages. Each
scenario runs on both clients against the real broker and must give the same result."""

import uuid

import pytest

import confluent_binding as kafka

from tests.support import consume_messages, wait_until

peer = pytest.importorskip("confluent_kafka")

pytestmark = pytest.mark.integration

CLIENTS = [kafka, peer]
N = 300


def _fill(cluster, topic, partitions=1, n=N):
    p = kafka.Producer(cluster.client_config(**{"linger.ms": 5}))
    for part in range(partitions):
        for i in range(n):
            p.produce(topic, b"%d-%d" % (part, i), partition=part)
    assert p.flush(30) == 0


def _consumer(mod, cluster, topic, partitions=1, **extra):
    conf = {"group.id": "ahead-" + uuid.uuid4().hex, "enable.auto.commit": False,
            "auto.offset.reset": "earliest", **extra}
    c = mod.Consumer(cluster.client_config(**conf))
    c.assign([mod.TopicPartition(topic, p, 0) for p in range(partitions)])
    return c


def _take(c, n):
    """n messages from poll(), as (partition, offset)."""
    return [(m.partition(), m.offset()) for m in consume_messages(c, n, 30)]


def _read_ahead(mod, c):
    # this client's poll() did read ahead, where its build does: the scenario tests something
    if mod is kafka and kafka.build_info()["read_ahead"]:
        assert c._taken_ahead() > 0


def _positions(mod, c, topic, partitions=1):
    return [p.offset for p in c.position([mod.TopicPartition(topic, i)
                                          for i in range(partitions)])]


@pytest.mark.parametrize("mod", CLIENTS, ids=["ours", "confluent_kafka"])
def test_position_and_commit_are_what_poll_handed_out(kafka_cluster, make_topic, mod):
    topic = make_topic(partitions=1)
    _fill(kafka_cluster, topic)
    c = _consumer(mod, kafka_cluster, topic)
    assert _take(c, 3) == [(0, 0), (0, 1), (0, 2)]
    _read_ahead(mod, c)
    assert _positions(mod, c, topic) == [3]
    assert [p.offset for p in c.commit(asynchronous=False)] == [3]
    assert [p.offset for p in c.committed([mod.TopicPartition(topic, 0)], 10)] == [3]
    assert _take(c, N - 3) == [(0, i) for i in range(3, N)]
    assert _positions(mod, c, topic) == [N]
    c.close()


@pytest.mark.parametrize("mod", CLIENTS, ids=["ours", "confluent_kafka"])
def test_auto_commit_never_passes_what_poll_handed_out(kafka_cluster, make_topic, mod):
    topic = make_topic(partitions=1)
    _fill(kafka_cluster, topic)
    c = _consumer(mod, kafka_cluster, topic,
                  **{"enable.auto.commit": True, "auto.commit.interval.ms": 100})
    _take(c, 3)
    _read_ahead(mod, c)
    tp = mod.TopicPartition(topic, 0)
    committed = []

    def auto_committed():
        committed[:] = [p.offset for p in c.committed([tp], 10)]
        return committed[0] >= 0
    assert wait_until(auto_committed, lambda: None, 30), "no auto-commit"
    assert committed == [3]
    c.close()


@pytest.mark.parametrize("mod", CLIENTS, ids=["ours", "confluent_kafka"])
def test_seek_drops_what_was_read_ahead(kafka_cluster, make_topic, mod):
    topic = make_topic(partitions=1)
    _fill(kafka_cluster, topic)
    c = _consumer(mod, kafka_cluster, topic)
    _take(c, 3)
    _read_ahead(mod, c)
    c.seek(mod.TopicPartition(topic, 0, 200))
    assert _take(c, 2) == [(0, 200), (0, 201)]
    c.seek(mod.TopicPartition(topic, 0, 1))
    assert _take(c, N - 1) == [(0, i) for i in range(1, N)]
    c.close()


@pytest.mark.parametrize("mod", CLIENTS, ids=["ours", "confluent_kafka"])
def test_pause_stops_at_once_and_resume_goes_on_from_the_position(kafka_cluster, make_topic,
                                                                  mod):
    topic = make_topic(partitions=2)
    _fill(kafka_cluster, topic, partitions=2)
    c = _consumer(mod, kafka_cluster, topic, partitions=2)
    got = _take(c, 3)
    _read_ahead(mod, c)
    paused = got[-1][0]
    c.pause([mod.TopicPartition(topic, paused)])
    # the other partition goes on to its end; nothing more of the paused one
    other = [m for m in _take(c, N - sum(1 for p, _ in got if p != paused)) if m[0] == paused]
    assert other == []
    assert c.poll(0.5) is None
    assert _positions(mod, c, topic, 2)[paused] == got[-1][1] + 1
    c.resume([mod.TopicPartition(topic, paused)])
    start = got[-1][1] + 1
    assert _take(c, N - start) == [(paused, i) for i in range(start, N)]
    c.close()


@pytest.mark.parametrize("mod", CLIENTS, ids=["ours", "confluent_kafka"])
def test_no_message_of_an_unassigned_partition_after_incremental_unassign(kafka_cluster,
                                                                         make_topic, mod):
    topic = make_topic(partitions=2)
    _fill(kafka_cluster, topic, partitions=2)
    c = _consumer(mod, kafka_cluster, topic, partitions=2)
    got = _take(c, 3)
    _read_ahead(mod, c)
    gone = got[-1][0]
    c.incremental_unassign([mod.TopicPartition(topic, gone)])
    kept = 1 - gone
    rest = _take(c, N - sum(1 for p, _ in got if p == kept))
    assert {p for p, _ in rest} == {kept}
    assert sorted(o for _, o in got + rest if _ == kept) == list(range(N))
    assert c.poll(0.5) is None
    c.close()


@pytest.mark.parametrize("mod", CLIENTS, ids=["ours", "confluent_kafka"])
def test_transaction_markers_move_the_position_in_order(kafka_cluster, make_topic, mod):
    """Two committed transactions of 10 (offsets 0-9, marker 10, 11-20, marker 21): a
    read_committed consumer gets the 20 records; the position passes a marker when the next
    poll() steps over it, as librdkafka's own queue does."""
    topic = make_topic(partitions=1)
    p = kafka.Producer(kafka_cluster.client_config(**{"transactional.id": uuid.uuid4().hex}))
    p.init_transactions(30)
    for t in range(2):
        p.begin_transaction()
        for i in range(10):
            p.produce(topic, b"%d-%d" % (t, i), partition=0)
        p.commit_transaction(30)
    c = _consumer(mod, kafka_cluster, topic, **{"isolation.level": "read_committed"})
    assert [o for _, o in _take(c, 20)] == list(range(10)) + list(range(11, 21))
    assert _positions(mod, c, topic) == [21]
    assert c.poll(1.0) is None
    assert _positions(mod, c, topic) == [22]
    assert [p.offset for p in c.commit(asynchronous=False)] == [22]
    c.close()
