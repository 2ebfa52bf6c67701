"""AdminClient against a real broker: every request's success and failure paths, the result
thread (futures complete while the caller only waits), close() with requests in flight, and
result shapes compared with confluent-kafka 2.16 running the same request side by side."""

import enum
import gc
import threading
import time
import uuid
import warnings

import pytest

import confluent_binding as kafka
from confluent_binding import (
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    ConsumerGroupType,
    ElectionType,
    IsolationLevel,
    TopicCollection,
    TopicPartition,
)
from confluent_binding.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    KafkaException,
    NewPartitions,
    NewTopic,
    OffsetSpec,
    ResourceType,
)

from tests.support import wait_until

pytestmark = pytest.mark.integration

peer = pytest.importorskip("confluent_kafka")
import confluent_kafka.admin as peer_admin  # noqa: E402

E = kafka.KafkaError


def _name(prefix="adm"):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:10])


@pytest.fixture(scope="module")
def admin(kafka_cluster):
    a = AdminClient(kafka_cluster.client_config())
    yield a
    a.close()


@pytest.fixture(scope="module")
def peer_client(kafka_cluster):
    return peer_admin.AdminClient(kafka_cluster.client_config(log_level=0))


def _result(fut, timeout=30):
    return fut.result(timeout)


def _error_code(fut, timeout=30):
    with pytest.raises(KafkaException) as info:
        fut.result(timeout)
    return info.value.args[0].code()


def _plain(value):
    """Model objects (ours or confluent's) as comparable plain data."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (kafka.KafkaError, peer.KafkaError)):
        return ("KafkaError", value.code())
    if isinstance(value, (kafka.KafkaException, peer.KafkaException)):
        return ("KafkaException", _plain(value.args[0]))
    if isinstance(value, (kafka.TopicPartition, peer.TopicPartition)):
        return ("TP", value.topic, value.partition, value.offset, _plain(value.error))
    if isinstance(value, dict):
        return sorted((repr(_plain(k)), _plain(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if type(value).__name__ == "Uuid":
        return ("Uuid", str(value))
    if hasattr(value, "__dict__"):
        return (type(value).__name__, {k: _plain(v) for k, v in vars(value).items()})
    return value


def _outcome(fut, timeout=30):
    try:
        return ("ok", _plain(fut.result(timeout)))
    except Exception as exc:
        return ("raises", type(exc).__name__, _plain(exc))


def _same(ours, theirs):
    """Per-key outcomes of two future maps (or two futures) are equal."""
    if isinstance(ours, dict):
        assert sorted(map(repr, ours)) == sorted(map(repr, theirs))
        ours = {repr(k): _outcome(f) for k, f in ours.items()}
        theirs = {repr(k): _outcome(f) for k, f in theirs.items()}
    else:
        ours, theirs = _outcome(ours), _outcome(theirs)
    assert ours == theirs
    return ours


def _eventually(fetch, cond, timeout=30):
    """fetch() again until cond(value) holds; the last value (the assertion shows it)."""
    box = [fetch()]
    assert wait_until(lambda: cond(box[0]), lambda: box.__setitem__(0, fetch()), timeout), box[0]
    return box[0]


# -- topics -------------------------------------------------------------------------------------

def test_create_describe_delete_topics(admin, kafka_cluster):
    a, b = _name(), _name()
    fs = admin.create_topics(
        [NewTopic(a, 3, 1), NewTopic(b, 1, 1, config={"cleanup.policy": "compact"})],
        operation_timeout=30)
    assert sorted(fs) == sorted([a, b])
    assert [_result(f) for f in fs.values()] == [None, None]
    # the broker's metadata follows the controller's commit a moment later
    md = _eventually(lambda: admin.list_topics(timeout=10),
                     lambda md: a in md.topics and b in md.topics)
    assert len(md.topics[a].partitions) == 3 and len(md.topics[b].partitions) == 1

    desc = _result(admin.describe_topics(TopicCollection([a]))[a])
    assert desc.name == a and desc.is_internal is False
    assert [p.id for p in desc.partitions] == [0, 1, 2]
    assert all(p.leader.id == 1 and [n.id for n in p.isr] == [1] for p in desc.partitions)
    assert len(str(desc.topic_id)) == 22

    fs = admin.delete_topics([a, b], operation_timeout=30)
    assert [_result(f) for f in fs.values()] == [None, None]


def test_create_topic_failures(admin, kafka_cluster):
    existing = kafka_cluster.create_topic(_name())
    fs = admin.create_topics([NewTopic(existing, 1, 1)])
    assert _error_code(fs[existing]) == E.TOPIC_ALREADY_EXISTS
    bad = _name()
    assert _error_code(admin.create_topics([NewTopic(bad, 0, 1)])[bad]) == E.INVALID_PARTITIONS
    fs = admin.create_topics([NewTopic(bad, 1, 1, config={"cleanup.policy": "nonsense"})])
    assert _error_code(fs[bad]) == E.INVALID_CONFIG
    fs = admin.create_topics([NewTopic(bad, 1, 1)], validate_only=True)
    assert _result(fs[bad]) is None
    assert bad not in admin.list_topics(timeout=10).topics
    missing = _name()
    assert _error_code(admin.delete_topics([missing])[missing]) == E.UNKNOWN_TOPIC_OR_PART


def test_duplicate_topics_in_one_request_fail_every_future(admin, peer_client):
    t = _name()
    ours = admin.create_topics([NewTopic(t, 1, 1), NewTopic(t, 1, 1)])
    theirs = peer_client.create_topics([peer_admin.NewTopic(t, 1, 1), peer_admin.NewTopic(t, 1, 1)])
    outcome = _same(ours, theirs)
    assert outcome[repr(t)][0] == "raises"


def test_create_partitions(admin, kafka_cluster):
    t = kafka_cluster.create_topic(_name(), partitions=1)
    assert _result(admin.create_partitions([NewPartitions(t, 3)])[t]) is None
    _eventually(lambda: _result(admin.describe_topics(TopicCollection([t]))[t]),
                lambda d: len(d.partitions) == 3)
    assert _error_code(admin.create_partitions([NewPartitions(t, 2)])[t]) == E.INVALID_PARTITIONS
    assert _result(admin.create_partitions([NewPartitions(t, 5)], validate_only=True)[t]) is None


def test_unknown_topic_described_like_confluent(admin, peer_client):
    t = _name()
    outcome = _same(admin.describe_topics(TopicCollection([t])),
                    peer_client.describe_topics(peer.TopicCollection([t])))
    assert outcome[repr(t)][0] == "raises"


def test_describe_topics_like_confluent(admin, peer_client, kafka_cluster):
    t = kafka_cluster.create_topic(_name(), partitions=2)
    _same(admin.describe_topics(TopicCollection([t]), include_authorized_operations=True),
          peer_client.describe_topics(peer.TopicCollection([t]),
                                      include_authorized_operations=True))


# -- cluster ------------------------------------------------------------------------------------

def test_describe_cluster(admin, peer_client):
    d = _result(admin.describe_cluster())
    assert d.cluster_id == admin.list_topics(timeout=10).cluster_id
    assert d.controller.id == 1 and [n.id for n in d.nodes] == [1]
    assert d.authorized_operations is None
    _same(admin.describe_cluster(include_authorized_operations=True),
          peer_client.describe_cluster(include_authorized_operations=True))


# -- configs ------------------------------------------------------------------------------------

def test_describe_configs_like_confluent(admin, peer_client, kafka_cluster):
    t = kafka_cluster.create_topic(_name(), config={"retention.ms": "12345"})
    ours = admin.describe_configs([ConfigResource("topic", t),
                                   ConfigResource(ResourceType.BROKER, "1")])
    theirs = peer_client.describe_configs(
        [peer_admin.ConfigResource("topic", t),
         peer_admin.ConfigResource(peer_admin.ResourceType.BROKER, "1")])
    _same(ours, theirs)
    entries = _result(ours[ConfigResource("topic", t)])
    assert entries["retention.ms"].value == "12345"
    # a number, as in confluent-kafka
    assert entries["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert entries["compression.type"].is_default


def test_incremental_alter_configs_set_delete_append_subtract(admin, kafka_cluster):
    t = kafka_cluster.create_topic(_name(), config={"retention.ms": "600000"})
    res = ConfigResource("topic", t)

    def alter(*entries):
        r = ConfigResource("topic", t, incremental_configs=list(entries))
        return _result(admin.incremental_alter_configs([r])[r])

    def described(policy):
        # the broker applies an altered config once the controller's commit reaches it
        return _eventually(lambda: _result(admin.describe_configs([res])[res]),
                           lambda d: set(d["cleanup.policy"].value.split(","))
                           == set(policy.split(",")))

    op = AlterConfigOpType
    assert alter(ConfigEntry("cleanup.policy", "compact", incremental_operation=op.SET),
                 ConfigEntry("retention.ms", None, incremental_operation=op.DELETE)) is None
    d = described("compact")
    assert d["cleanup.policy"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    # back to the broker's setting (the test broker keeps records forever)
    assert d["retention.ms"].source == ConfigSource.STATIC_BROKER_CONFIG.value
    alter(ConfigEntry("cleanup.policy", "delete", incremental_operation=op.APPEND))
    described("compact,delete")
    alter(ConfigEntry("cleanup.policy", "compact", incremental_operation=op.SUBTRACT))
    described("delete")

    r = ConfigResource("topic", t, incremental_configs=[
        ConfigEntry("retention.ms", "not-a-number", incremental_operation=AlterConfigOpType.SET)])
    assert _error_code(admin.incremental_alter_configs([r])[r]) == E.INVALID_CONFIG


def test_alter_configs(admin, kafka_cluster):
    t = kafka_cluster.create_topic(_name())
    r = ConfigResource("topic", t, set_config={"retention.ms": "7200000"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert _result(admin.alter_configs([r])[r]) is None
    entries = _eventually(lambda: _result(admin.describe_configs([r])[r]),
                          lambda d: d["retention.ms"].value == "7200000")
    assert entries["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value


# -- offsets and records ------------------------------------------------------------------------

def _produce(kafka_cluster, topic, timestamps, partition=0):
    p = kafka.Producer(kafka_cluster.client_config())
    for ts in timestamps:
        p.produce(topic, b"v", partition=partition, timestamp=ts)
    assert p.flush(30) == 0
    p.close()


def test_list_offsets_and_delete_records(admin, peer_client, kafka_cluster):
    t = kafka_cluster.create_topic(_name(), partitions=1)
    _produce(kafka_cluster, t, [1000, 5000, 3000, 2000])
    tp = TopicPartition(t, 0)

    def offsets(spec, **kw):
        fs = admin.list_offsets({tp: spec}, **kw)
        (key, fut), = fs.items()
        assert (key.topic, key.partition) == (t, 0)
        return _result(fut)

    assert offsets(OffsetSpec.earliest()).offset == 0
    assert offsets(OffsetSpec.latest()).offset == 4
    mx = offsets(OffsetSpec.max_timestamp())
    assert (mx.offset, mx.timestamp) == (1, 5000)
    assert offsets(OffsetSpec.for_timestamp(2500)).offset == 1
    assert offsets(OffsetSpec.for_timestamp(2500),
                   isolation_level=IsolationLevel.READ_COMMITTED).offset == 1
    _same(admin.list_offsets({tp: OffsetSpec.max_timestamp()}),
          peer_client.list_offsets(
              {peer.TopicPartition(t, 0): peer_admin.OffsetSpec.max_timestamp()}))

    fs = admin.delete_records([TopicPartition(t, 0, 2)])
    assert _result(fs[TopicPartition(t, 0)]).low_watermark == 2
    assert offsets(OffsetSpec.earliest()).offset == 2
    c = kafka.Consumer(kafka_cluster.client_config(**{"group.id": _name("g")}))
    assert c.get_watermark_offsets(TopicPartition(t, 0), timeout=10) == (2, 4)
    c.close()

    missing = _name()
    outcome = _same(admin.list_offsets({TopicPartition(missing, 0): OffsetSpec.latest()}),
                    peer_client.list_offsets({peer.TopicPartition(missing, 0):
                                              peer_admin.OffsetSpec.latest()}))
    assert list(outcome.values())[0][0] == "raises"


def test_elect_leaders_like_confluent(admin, peer_client, kafka_cluster):
    t = kafka_cluster.create_topic(_name())
    outcome = _same(admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(t, 0)]),
                    peer_client.elect_leaders(peer.ElectionType.PREFERRED,
                                              [peer.TopicPartition(t, 0)]))
    # one broker: its replica already leads
    assert outcome[0] == "ok"
    assert outcome[1][0][1] == ("KafkaError", E.ELECTION_NOT_NEEDED)
    # the key carries the partition's code in librdkafka's words, the value the broker's message
    (key, error), = _result(admin.elect_leaders(ElectionType.PREFERRED,
                                                [TopicPartition(t, 0)])).items()
    (peer_key, peer_error), = _result(peer_client.elect_leaders(
        peer.ElectionType.PREFERRED, [peer.TopicPartition(t, 0)])).items()
    assert (key.error.str(), error.str()) == (peer_key.error.str(), peer_error.str())


# -- consumer groups ----------------------------------------------------------------------------

@pytest.fixture
def active_groups(kafka_cluster):
    """A classic and a KIP-848 group, each with one member that owns the topic's partition."""
    t = kafka_cluster.create_topic(_name(), partitions=2)
    _produce(kafka_cluster, t, [1, 2, 3])
    consumers = {}
    for protocol in ("classic", "consumer"):
        g = _name("g-" + protocol)
        c = kafka.Consumer(kafka_cluster.client_config(**{
            "group.id": g, "group.protocol": protocol, "auto.offset.reset": "earliest",
            "enable.auto.commit": False}))
        c.subscribe([t])
        consumers[protocol] = (g, c)
    deadline = time.monotonic() + 60
    for g, c in consumers.values():
        while not c.assignment():
            assert time.monotonic() < deadline, "no assignment"
            c.poll(0.2)
    yield t, {p: g for p, (g, _) in consumers.items()}, consumers
    for _, c in consumers.values():
        c.close()


def test_describe_and_list_consumer_groups(admin, peer_client, active_groups):
    t, groups, _ = active_groups
    fs = admin.describe_consumer_groups([groups["classic"], groups["consumer"]])
    classic, modern = _result(fs[groups["classic"]]), _result(fs[groups["consumer"]])
    assert classic.type is ConsumerGroupType.CLASSIC and modern.type is ConsumerGroupType.CONSUMER
    for d in (classic, modern):
        assert d.state is ConsumerGroupState.STABLE
        assert d.coordinator.id == 1 and d.is_simple_consumer_group is False
        (member,) = d.members
        assert sorted((tp.topic, tp.partition) for tp in member.assignment.topic_partitions) \
            == [(t, 0), (t, 1)]
    assert classic.partition_assignor == "range"

    listing = _result(admin.list_consumer_groups(request_timeout=10))
    found = {g.group_id: g for g in listing.valid}
    assert found[groups["classic"]].type is ConsumerGroupType.CLASSIC
    assert found[groups["consumer"]].type is ConsumerGroupType.CONSUMER
    assert listing.errors == []
    only = _result(admin.list_consumer_groups(types={ConsumerGroupType.CONSUMER},
                                              states={ConsumerGroupState.STABLE}))
    ids = {g.group_id for g in only.valid}
    assert groups["consumer"] in ids and groups["classic"] not in ids

    legacy = {g.id: g for g in admin.list_groups(timeout=10)}
    assert legacy[groups["classic"]].state == "Stable"
    assert len(legacy[groups["classic"]].members) == 1


def test_describe_unknown_group_like_confluent(admin, peer_client):
    g = _name("nogroup")
    _same(admin.describe_consumer_groups([g]), peer_client.describe_consumer_groups([g]))


def test_delete_groups(admin, peer_client, active_groups, kafka_cluster):
    _, groups, consumers = active_groups
    g = groups["classic"]
    assert _error_code(admin.delete_consumer_groups([g])[g]) == E.NON_EMPTY_GROUP
    consumers["classic"][1].close()

    def empty():    # the coordinator may process the member's LeaveGroup after close() returns
        return _result(admin.describe_consumer_groups([g])[g]).state is ConsumerGroupState.EMPTY

    assert wait_until(empty, lambda: None, timeout=30), "the closed member is still in the group"
    assert _result(admin.delete_consumer_groups([g])[g]) is None
    unknown = _name("nogroup")
    _same(admin.delete_consumer_groups([unknown]), peer_client.delete_consumer_groups([unknown]))


def test_alter_then_list_group_offsets(admin, peer_client, kafka_cluster):
    t = kafka_cluster.create_topic(_name(), partitions=2)
    _produce(kafka_cluster, t, [1, 2, 3])
    g = _name("g")
    req = ConsumerGroupTopicPartitions(g, [TopicPartition(t, 0, 2), TopicPartition(t, 1, 0)])
    res = _result(admin.alter_consumer_group_offsets([req])[g])
    assert isinstance(res, ConsumerGroupTopicPartitions) and res.group_id == g
    assert sorted((tp.topic, tp.partition, tp.offset, tp.error) for tp in res.topic_partitions) \
        == [(t, 0, 2, None), (t, 1, 0, None)]
    listed = _result(admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(g)])[g])
    assert sorted((tp.partition, tp.offset) for tp in listed.topic_partitions) == [(0, 2), (1, 0)]
    _same(admin.list_consumer_group_offsets(
              [ConsumerGroupTopicPartitions(g, [TopicPartition(t, 0)])], require_stable=True),
          peer_client.list_consumer_group_offsets(
              [peer.ConsumerGroupTopicPartitions(g, [peer.TopicPartition(t, 0)])],
              require_stable=True))


def test_altered_offsets_carry_their_metadata_like_confluent(admin, peer_client, kafka_cluster):
    """alter_consumer_group_offsets() commits each partition's metadata as confluent-kafka's
    does (the same bytes: each client lists what the other altered)."""
    t = kafka_cluster.create_topic(_name(), partitions=1)
    clients = {"confluent-kafka": (peer, peer_client), "confluent_binding": (kafka, admin)}
    listed = {}
    for value in (None, "", "hello world", "h\u00e9llo \u2603"):
        for writer, (w, w_admin) in clients.items():
            g = _name("g")
            tp = w.TopicPartition(t, 0, 3) if value is None else w.TopicPartition(t, 0, 3, value)
            altered = _result(w_admin.alter_consumer_group_offsets(
                [w.ConsumerGroupTopicPartitions(g, [tp])])[g])
            assert [(p.offset, p.error) for p in altered.topic_partitions] == [(3, None)]
            for reader, (r, r_admin) in clients.items():
                res = _result(r_admin.list_consumer_group_offsets(
                    [r.ConsumerGroupTopicPartitions(g, [r.TopicPartition(t, 0)])])[g])
                listed[value, writer, reader] = [(p.offset, p.metadata)
                                                 for p in res.topic_partitions]
    assert listed == {key: [(3, key[0])] for key in listed} and len(listed) == 16


# -- the result thread --------------------------------------------------------------------------

def test_futures_complete_while_the_caller_only_waits(admin):
    t = _name()
    fut = admin.create_topics([NewTopic(t, 1, 1)])[t]
    done_on = []
    fut.add_done_callback(lambda f: done_on.append(threading.current_thread().name))
    assert fut.result(30) is None
    assert done_on and done_on[0] != threading.current_thread().name


def test_many_requests_from_several_threads(admin, kafka_cluster):
    t = kafka_cluster.create_topic(_name(), partitions=1)
    results, errors = [], []

    def worker():
        try:
            for _ in range(20):
                d = admin.describe_topics(TopicCollection([t]))[t]
                c = admin.describe_cluster()
                results.append((d.result(30).name, c.result(30).controller.id))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert errors == []
    assert results == [(t, 1)] * 120


def test_close_with_requests_in_flight_fails_them(kafka_cluster):
    # nothing listens on port 1: the request waits for a broker until close()
    a = AdminClient({"bootstrap.servers": "127.0.0.1:1", "log_level": 0})
    fut = a.describe_cluster(request_timeout=60)
    topics = a.create_topics([NewTopic("t", 1, 1)], request_timeout=60)
    started = time.monotonic()
    a.close()
    assert time.monotonic() - started < 5
    for f in (fut, topics["t"]):
        assert _error_code(f, timeout=5) == E._DESTROY
    with pytest.raises(RuntimeError):
        a.describe_cluster()


def _result_threads():
    return [t for t in threading.enumerate() if t.name == "AdminClient results"]


def test_result_thread_ends_with_close_and_with_garbage_collection(kafka_cluster):
    before = len(_result_threads())
    a = AdminClient(kafka_cluster.client_config())
    assert len(_result_threads()) == before + 1
    a.close()
    assert len(_result_threads()) == before
    with AdminClient(kafka_cluster.client_config()) as b:
        assert _result(b.describe_cluster()).controller.id == 1
    assert len(_result_threads()) == before
    c = AdminClient(kafka_cluster.client_config())
    assert _result(c.describe_cluster()).controller.id == 1
    del c
    gc.collect()
    deadline = time.monotonic() + 10
    while len(_result_threads()) > before:
        assert time.monotonic() < deadline, "result thread outlived its client"
        time.sleep(0.05)


def test_callbacks_are_served_by_poll_on_the_calling_thread():
    seen = []
    a = AdminClient({"bootstrap.servers": "127.0.0.1:1", "log_level": 0,
                     "error_cb": lambda err: seen.append((err.code(), threading.get_ident()))})
    try:
        deadline = time.monotonic() + 30
        while not seen and time.monotonic() < deadline:
            a.poll(0.5)
        assert seen and all(t == threading.get_ident() for _, t in seen)
        assert {code for code, _ in seen} & {E._TRANSPORT, E._ALL_BROKERS_DOWN}
    finally:
        a.close()


def test_broker_error_in_a_callback_does_not_break_the_thread(admin):
    t = _name()
    fut = admin.create_topics([NewTopic(t, 1, 1)])[t]
    fut.add_done_callback(lambda f: 1 / 0)   # concurrent.futures logs and ignores it
    assert fut.result(30) is None
    assert _result(admin.describe_cluster()).controller.id == 1
