"""Share groups (KIP-932) against a real broker: ShareConsumer, DeserializingShareConsumer,
Messages, AcknowledgeType.

librdkafka 2.15.1 needs a broker that serves share groups: Apache Kafka 4.2 (in 4.1, a preview,
the broker rejects the member ids librdkafka generates about half of the time). These tests
start their own 4.2 broker, unless KAFKA_BOOTSTRAP_SERVERS names a cluster to use.
"""

import time
import uuid

import pytest

from confluent_binding import (
    AcknowledgeType,
    DeserializingShareConsumer,
    KafkaError,
    Messages,
    Producer,
    ShareConsumer,
    TopicPartition,
)
from confluent_binding.error import IllegalStateException
from confluent_binding.serialization import StringDeserializer
from confluent_binding.testing import KafkaCluster
from confluent_binding.testing.pytest_plugin import _external

SHARE_KAFKA_VERSION = "4.2.0"
LOCK_MS = 2000


@pytest.fixture(scope="module")
def share_cluster(tmp_path_factory):
    external = _external()
    if external is not None:
        yield external
        return
    cluster = KafkaCluster(version=SHARE_KAFKA_VERSION, fast_startup=True,
                           workdir=tmp_path_factory.mktemp("kafka-share"))
    try:
        cluster.start(timeout=180)
    except Exception:
        cluster.kill()
        raise
    try:
        yield cluster
    finally:
        cluster.stop()


def _admin_module():
    """The AdminClient that sets the share groups' configuration: ours; until this checkout
    has one, confluent-kafka's (it only prepares the broker side)."""
    try:
        from confluent_binding import admin
        admin.AdminClient, admin.ConfigResource
    except (ImportError, AttributeError):
        admin = pytest.importorskip("confluent_kafka.admin")
    return admin


@pytest.fixture(scope="module")
def admin(share_cluster):
    return _admin_module().AdminClient(share_cluster.client_config())


@pytest.fixture
def names(request):
    base = request.node.name.replace("[", "-").replace("]", "")[:80]
    suffix = uuid.uuid4().hex[:8]
    return "%s-%s" % (base, suffix), "g-%s-%s" % (base, suffix)


def make_topic(share_cluster, name, partitions):
    share_cluster.create_topic(name, partitions=partitions)
    return name


def configure_group(admin, group, **configs):
    """Set share-group configs (where a new group starts, lock duration) before any member
    joins: a share group starts at the latest offsets by default."""
    m = _admin_module()
    entries = [m.ConfigEntry(k.replace("_", "."), str(v),
                             incremental_operation=m.AlterConfigOpType.SET)
               for k, v in configs.items()]
    res = m.ConfigResource(m.ResourceType.GROUP, group, incremental_configs=entries)
    admin.incremental_alter_configs([res])[res].result(30)


def produce(share_cluster, topic, values, partition=-1):
    p = Producer(share_cluster.client_config())
    for i, v in enumerate(values):
        p.produce(topic, v, key=b"%d" % i, partition=partition if partition >= 0 else -1)
    assert p.flush(30) == 0
    p.close()


def share_consumer(share_cluster, group, cls=ShareConsumer, **extra):
    conf = share_cluster.client_config(**{"group.id": group})
    conf.update(extra)
    return cls(conf)


def poll_until(consumers, want, timeout=60):
    """Poll the consumers in turn until ``want(received)`` holds; received[i] lists the
    messages consumer i got."""
    received = [[] for _ in consumers]
    deadline = time.monotonic() + timeout
    while not want(received):
        assert time.monotonic() < deadline, [len(r) for r in received]
        for i, c in enumerate(consumers):
            batch = c.poll(0.5)
            assert isinstance(batch, Messages)
            for m in batch:
                assert m.error() is None, m.error()
                received[i].append(m)
    return received


def test_two_share_consumers_split_the_records(share_cluster, admin, names):
    topic, group = names
    make_topic(share_cluster, topic, 2)
    configure_group(admin, group, share_auto_offset_reset="earliest")
    a = share_consumer(share_cluster, group, **{"max.poll.records": 10})
    b = share_consumer(share_cluster, group, **{"max.poll.records": 10})
    try:
        a.subscribe([topic])
        b.subscribe([topic])
        assert a.subscription() == [topic]
        sent = []
        # Produce in waves until both members have records: the second member's assignment
        # may come after the first member has started fetching.
        received = [[], []]
        deadline = time.monotonic() + 60
        while not (received[0] and received[1]):
            assert time.monotonic() < deadline, [len(r) for r in received]
            wave = [b"v%d" % (len(sent) + i) for i in range(20)]
            produce(share_cluster, topic, wave)
            sent += wave
            more = poll_until([a, b], lambda r: sum(map(len, r)) >= len(wave))
            received[0] += more[0]
            received[1] += more[1]
        rest = poll_until([a, b], lambda r: sum(map(len, received)) + sum(map(len, r))
                          >= len(sent))
        got_a = [m.value() for m in received[0] + rest[0]]
        got_b = [m.value() for m in received[1] + rest[1]]
        assert sorted(got_a + got_b) == sorted(sent)          # every record, once
        assert not set(got_a) & set(got_b)
        assert got_a and got_b
        for m in received[0] + received[1]:
            assert m.delivery_count() == 1 and m.topic() == topic
    finally:
        a.close()
        b.close()


def test_explicit_acknowledge_accept_release_reject(share_cluster, admin, names):
    topic, group = names
    make_topic(share_cluster, topic, 1)
    configure_group(admin, group, share_auto_offset_reset="earliest")
    produce(share_cluster, topic, [b"accept", b"release", b"reject"])
    commits = []
    c = share_consumer(share_cluster, group, **{"share.acknowledgement.mode": "explicit"})
    try:
        c.set_acknowledgement_commit_callback(lambda offsets, exc: commits.append((offsets, exc)))
        c.subscribe([topic])
        first = poll_until([c], lambda r: len(r[0]) >= 3)[0]
        assert [(m.value(), m.offset(), m.delivery_count()) for m in first] == [
            (b"accept", 0, 1), (b"release", 1, 1), (b"reject", 2, 1)]
        c.acknowledge(first[0])                                 # ACCEPT by default
        c.acknowledge(first[1], AcknowledgeType.RELEASE)
        c.acknowledge_offset(topic, 0, 2, AcknowledgeType.REJECT)
        result = c.commit_sync(30)
        assert result == {TopicPartition(topic, 0): None}
        assert all(v is None for v in result.values())
        # the released record comes back, once more delivered
        again = poll_until([c], lambda r: len(r[0]) >= 1)[0]
        assert [(m.value(), m.offset(), m.delivery_count()) for m in again] == [
            (b"release", 1, 2)]
        c.acknowledge(again[0], AcknowledgeType.ACCEPT)
        # A later record arrives; the accepted and the rejected ones never come back.
        produce(share_cluster, topic, [b"sentinel"])
        later = poll_until([c], lambda r: len(r[0]) >= 1)[0]
        assert [(m.value(), m.offset(), m.delivery_count()) for m in later] == [
            (b"sentinel", 3, 1)]
        c.acknowledge(later[0])
        c.commit_sync(30)
        # commit results reach the callback, served inside commit_sync()/poll()
        acked = {}
        for offsets, exc in commits:
            assert exc is None
            for tp, offs in offsets.items():
                acked.setdefault((tp.topic, tp.partition), set()).update(offs)
        assert acked == {(topic, 0): {0, 1, 2, 3}}
    finally:
        c.close()


def test_unacknowledged_record_returns_after_the_lock_timeout(share_cluster, admin, names):
    topic, group = names
    make_topic(share_cluster, topic, 1)
    configure_group(admin, group, share_auto_offset_reset="earliest",
                    share_record_lock_duration_ms=LOCK_MS)
    produce(share_cluster, topic, [b"locked"])
    holder = share_consumer(share_cluster, group, **{"share.acknowledgement.mode": "explicit"})
    other = share_consumer(share_cluster, group)
    try:
        holder.subscribe([topic])
        (m,) = poll_until([holder], lambda r: len(r[0]) >= 1)[0]
        acquired = time.monotonic()
        assert (m.value(), m.delivery_count()) == (b"locked", 1)
        # holder never acknowledges; the other member gets the record once the lock expires
        other.subscribe([topic])
        (again,) = poll_until([other], lambda r: len(r[0]) >= 1)[0]
        assert (again.value(), again.offset(), again.delivery_count()) == (b"locked", 0, 2)
        assert time.monotonic() - acquired >= LOCK_MS / 1000.0 * 0.9
    finally:
        holder.close()
        other.close()


def test_implicit_mode_accepts_on_the_next_poll(share_cluster, admin, names):
    topic, group = names
    make_topic(share_cluster, topic, 1)
    configure_group(admin, group, share_auto_offset_reset="earliest")
    produce(share_cluster, topic, [b"a", b"b"])
    c = share_consumer(share_cluster, group)
    try:
        c.subscribe([topic])
        got = poll_until([c], lambda r: len(r[0]) >= 2)[0]
        assert [m.value() for m in got] == [b"a", b"b"]
        with pytest.raises(IllegalStateException):
            c.acknowledge(got[0])            # explicit acknowledgement only in explicit mode
        assert c.commit_sync(30) == {TopicPartition(topic, 0): None}
    finally:
        c.close()
    # a new member of the group finds nothing left: both were accepted
    produce(share_cluster, topic, [b"c"])
    d = share_consumer(share_cluster, group)
    try:
        d.subscribe([topic])
        assert [m.value() for m in poll_until([d], lambda r: len(r[0]) >= 1)[0]] == [b"c"]
    finally:
        d.close()


def test_messages_batch(share_cluster, admin, names):
    topic, group = names
    make_topic(share_cluster, topic, 1)
    configure_group(admin, group, share_auto_offset_reset="earliest")
    produce(share_cluster, topic, [b"x%d" % i for i in range(5)])
    with share_consumer(share_cluster, group) as c:
        c.subscribe([topic])
        batch = c.poll(30)
        while len(batch) == 0:
            batch = c.poll(5)
        assert isinstance(batch, Messages)
        assert batch.count() == len(batch) and not batch.is_empty()
        assert [m.value() for m in batch] == [m.value() for m in batch.records()]
        assert isinstance(batch[0:1], Messages) and batch[0:1][0].value() == batch[0].value()
        assert batch[0].headers() is None and batch[0].key() == b"0"
        assert batch[0].timestamp()[0] == 1 and batch[0].timestamp()[1] > 0
    with pytest.raises(IllegalStateException, match="Share consumer closed"):
        c.poll(0)


def test_deserializing_share_consumer(share_cluster, admin, names):
    topic, group = names
    make_topic(share_cluster, topic, 1)
    configure_group(admin, group, share_auto_offset_reset="earliest")
    produce(share_cluster, topic, ["h\u00e9llo".encode(), b"\xff\xfe"])
    c = share_consumer(share_cluster, group, DeserializingShareConsumer,
                       **{"key.deserializer": StringDeserializer(),
                          "value.deserializer": StringDeserializer("utf_8")})
    try:
        c.subscribe([topic])
        got = poll_until_errors(c, 2)
        assert (got[0].key(), got[0].value(), got[0].error()) == ("0", "h\u00e9llo", None)
        assert got[1].error().code() == KafkaError._VALUE_DESERIALIZATION
        assert (got[1].key(), got[1].value()) == (b"1", b"\xff\xfe")   # raw bytes kept
    finally:
        c.close()


def _calls_from_the_ack_commit_callback(module, share_cluster, admin, topic, group):
    """confluent-kafka's re-entrancy test on ``module``'s ShareConsumer: every consumer method
    called from the acknowledgement-commit callback, close() included; what each raised (type,
    message), and whether the consumer is intact afterwards."""
    configure_group(admin, group, share_auto_offset_reset="earliest")
    c = module.ShareConsumer(share_cluster.client_config(**{
        "group.id": group, "share.acknowledgement.mode": "explicit"}))
    outcomes, held = {}, []

    def on_ack_commit(offsets, exc):
        ack = module.AcknowledgeType.ACCEPT
        calls = {
            "poll": lambda: c.poll(0.1),
            "subscribe": lambda: c.subscribe([topic]),
            "unsubscribe": c.unsubscribe,
            "subscription": c.subscription,
            "commit_sync": lambda: c.commit_sync(1.0),
            "commit_async": c.commit_async,
            "acknowledge": lambda: c.acknowledge(held[0], ack),
            "acknowledge_offset": lambda: c.acknowledge_offset(topic, 0, 0, ack),
            "set_acknowledgement_commit_callback":
                lambda: c.set_acknowledgement_commit_callback(on_ack_commit),
            "close": c.close,
        }
        for name, call in calls.items():
            try:
                outcomes[name] = ("returned", call())
            except Exception as exc:  # the outcome under comparison
                outcomes[name] = (type(exc).__name__, str(exc))

    try:
        c.set_acknowledgement_commit_callback(on_ack_commit)
        c.subscribe([topic])
        deadline = time.monotonic() + 60
        while not held:
            assert time.monotonic() < deadline, "no record"
            held += list(c.poll(0.5))
        for m in held:
            c.acknowledge(m, module.AcknowledgeType.ACCEPT)
        c.commit_async()
        deadline = time.monotonic() + 30
        while not outcomes:
            assert time.monotonic() < deadline, "the callback was not served"
            c.poll(0.5)
        intact = c.subscription() == [topic]
    finally:
        c.set_acknowledgement_commit_callback(None)
        c.close()
    return outcomes, intact


def test_calls_from_the_ack_commit_callback_are_refused_as_in_confluent(share_cluster, admin,
                                                                        names):
    """Every method called from the acknowledgement-commit callback, close() included, raises
    confluent-kafka's IllegalStateException with its message, and the consumer stays usable."""
    peer = pytest.importorskip("confluent_kafka")
    import confluent_binding

    topic, group = names
    make_topic(share_cluster, topic, 1)
    produce(share_cluster, topic, [b"a"])
    theirs = _calls_from_the_ack_commit_callback(peer, share_cluster, admin, topic, group + "-p")
    ours = _calls_from_the_ack_commit_callback(confluent_binding, share_cluster, admin, topic,
                                               group + "-o")
    assert ours == theirs
    in_callback = "Share consumer methods are not accessible from user-defined " \
        "acknowledgement commit callback"
    refused = "Local: Erroneous state"
    assert ours == ({
        "poll": ("IllegalStateException", in_callback),
        "subscribe": ("IllegalStateException", "Failed to subscribe: " + refused),
        "unsubscribe": ("IllegalStateException", "Failed to unsubscribe: " + refused),
        "subscription": ("IllegalStateException", "Failed to get subscription: " + refused),
        "commit_sync": ("IllegalStateException", in_callback),
        "commit_async": ("IllegalStateException", in_callback),
        "acknowledge": ("IllegalStateException", "Failed to acknowledge message: " + refused),
        "acknowledge_offset": ("IllegalStateException",
                               "Failed to acknowledge offset: " + refused),
        "set_acknowledgement_commit_callback": ("IllegalStateException", in_callback),
        "close": ("IllegalStateException", in_callback),
    }, True)


def poll_until_errors(c, n, timeout=60):
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < n:
        assert time.monotonic() < deadline
        got += list(c.poll(0.5))
    return got
