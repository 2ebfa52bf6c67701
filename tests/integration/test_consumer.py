"""The Consumer against a real broker: groups (classic and KIP-848), rebalance callbacks,
offsets, positioning, batches, events."""
import pickle
import threading
import time
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding import (
    OFFSET_BEGINNING,
    OFFSET_END,
    OFFSET_INVALID,
    TIMESTAMP_CREATE_TIME,
    Consumer,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)

pytestmark = pytest.mark.integration

# Classic groups rebalance on heartbeats: keep them quick. The KIP-848 protocol takes none
# of these settings (the broker owns them) and librdkafka refuses them there.
_CLASSIC = {"group.protocol": "classic", "session.timeout.ms": 6000, "heartbeat.interval.ms": 500}
PROTOCOLS = {
    "range": dict(_CLASSIC, **{"partition.assignment.strategy": "range"}),
    "roundrobin": dict(_CLASSIC, **{"partition.assignment.strategy": "roundrobin"}),
    "cooperative-sticky": dict(_CLASSIC, **{"partition.assignment.strategy": "cooperative-sticky"}),
    "consumer": {"group.protocol": "consumer"},
}
# Protocols whose rebalances are incremental (the callback must use incremental_assign).
INCREMENTAL = {"cooperative-sticky", "consumer"}


def _group_id():
    return "test-consumer-" + uuid.uuid4().hex


def _conf(kafka_cluster, protocol=None, group=None, **extra):
    """Consumer configuration: ``protocol`` is a PROTOCOLS key (None: librdkafka's defaults);
    a fresh group.id unless ``group`` is given (librdkafka's consumer needs one even for
    manual assignment)."""
    conf = kafka_cluster.client_config()
    if protocol is not None:
        conf.update(PROTOCOLS[protocol])
    conf["group.id"] = group or _group_id()
    conf.update(extra)
    return conf


def _produce(kafka_cluster, topic, messages):
    """Produce ``messages`` (dicts of produce() keyword arguments); return their delivery
    reports (Messages carrying partition and offset) in the order of ``messages``."""
    reports = {}
    producer = Producer(kafka_cluster.client_config(**{"linger.ms": 2}))
    for i, kw in enumerate(messages):
        producer.produce(topic, **kw,
                         on_delivery=lambda err, msg, i=i: reports.__setitem__(i, (err, msg)))
    assert producer.flush(30) == 0
    producer.close()
    assert len(reports) == len(messages)
    out = []
    for i in range(len(messages)):
        err, msg = reports[i]
        assert err is None, err
        out.append(msg)
    return out


def _produce_n(kafka_cluster, topic, n, partition, start=0):
    return _produce(kafka_cluster, topic, [
        {"key": b"k%d" % i, "value": b"p%d-v%d" % (partition, i), "partition": partition}
        for i in range(start, start + n)])


def _until(consumers, done, timeout=30.0, on_message=None, what="the condition"):
    """Poll ``consumers`` in turn until ``done()``; every message goes to
    ``on_message(consumer, msg)`` (None: a message is a test failure)."""
    if not isinstance(consumers, (list, tuple)):
        consumers = [consumers]
    wait = 0.1 / len(consumers)
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))
        for c in consumers:
            m = c.poll(wait)
            if m is not None:
                if on_message is None:
                    raise AssertionError("unexpected message %r" % (m,))
                on_message(c, m)


def _quiet_for(consumer, seconds, on_message):
    """Keep polling for ``seconds`` (an observation window: proving that nothing arrives)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        m = consumer.poll(0.1)
        if m is not None:
            on_message(consumer, m)


def _data_only(sink):
    """on_message that fails on error events and appends data messages to ``sink``."""
    def on_message(consumer, m):
        assert m.error() is None, m.error()
        sink.append(m)
    return on_message


def _parts(tps):
    return sorted((tp.topic, tp.partition) for tp in tps)


# -- groups: splitting a topic, hand-over, rebalance callbacks --------------------------------


@pytest.mark.parametrize("protocol", ["cooperative-sticky", "range", "consumer"])
def test_two_consumers_split_and_hand_over_exactly_once(kafka_cluster, make_topic, protocol):
    topic = make_topic(partitions=6)
    group = _group_id()
    all_parts = [(topic, p) for p in range(6)]
    produced = []
    producer = Producer(kafka_cluster.client_config(**{"linger.ms": 2}))

    def produce(start, n):
        for i in range(start, start + n):
            key = b"key-%05d" % i
            producer.produce(topic, key=key, value=b"value-%05d" % i)  # keyed: spread over all 6
            produced.append(key)
        assert producer.flush(30) == 0

    seen = {}          # key -> (consumer name, partition, offset)
    duplicates = []
    commits = []       # (consumer name, committed TopicPartitions) made in on_revoke
    events = {"a": [], "b": []}

    def make(name):
        c = Consumer(_conf(kafka_cluster, protocol, group, **{
            "enable.auto.commit": False, "auto.offset.reset": "earliest"}))

        def on_assign(consumer, parts):
            events[name].append(("assign", _parts(parts)))

        def on_revoke(consumer, parts):
            events[name].append(("revoke", _parts(parts)))
            # Commit what this consumer has read of the partitions it gives up, synchronously,
            # so the next owner starts exactly after it.
            positions = [tp for tp in consumer.position(parts) if tp.offset >= 0]
            if positions:
                done = consumer.commit(offsets=positions, asynchronous=False)
                assert [(tp.partition, tp.offset, tp.error) for tp in done] == \
                    [(tp.partition, tp.offset, None) for tp in positions]
                commits.append((name, done))

        c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
        return c

    def record(name):
        def on_message(consumer, m):
            assert m.error() is None, m.error()
            if m.key() in seen:
                duplicates.append((m.key(), seen[m.key()], (name, m.partition(), m.offset())))
            else:
                seen[m.key()] = (name, m.partition(), m.offset())
        return on_message

    consumers = {}

    def on_message(consumer, m):
        record("a" if consumer is consumers.get("a") else "b")(consumer, m)

    produce(0, 300)
    a = consumers["a"] = make("a")
    _until(a, lambda: len(a.assignment()) == 6 and len(seen) >= 100, on_message=on_message,
           what="the first consumer to own all 6 partitions and read 100 messages")

    b = consumers["b"] = make("b")
    produce(300, 300)   # more data while the group rebalances

    def split():
        pa, pb = _parts(a.assignment()), _parts(b.assignment())
        return pa and pb and not set(pa) & set(pb) and sorted(pa + pb) == all_parts

    _until([a, b], split, timeout=60, on_message=on_message,
           what="the two consumers to split the 6 partitions")
    pa, pb = _parts(a.assignment()), _parts(b.assignment())
    assert len(pa) == 3 and len(pb) == 3, (pa, pb)   # every assignor here balances 6 over 2
    assert not set(pa) & set(pb) and sorted(pa + pb) == all_parts

    # Let the first consumer read a little more of its own partitions only, then close it
    # mid-stream: the rest of its partitions is left for the second one.
    mark = len(seen)
    _until(a, lambda: len(seen) >= mark + 20, on_message=on_message,
           what="the first consumer to read more of its partitions")
    a.close()
    assert events["a"][-1] == ("revoke", pa), events["a"]   # close() revokes what it owned
    assert commits and commits[-1][0] == "a"

    produce(600, 300)   # and more after the hand-over
    _until(b, lambda: len(b.assignment()) == 6, timeout=60, on_message=on_message,
           what="the remaining consumer to own all 6 partitions")
    _until(b, lambda: len(seen) + len(duplicates) >= len(produced), timeout=60,
           on_message=on_message, what="all %d messages" % len(produced))
    b.close()
    producer.close()

    assert duplicates == []
    assert sorted(seen) == sorted(produced)
    # b read every partition, and each from exactly where a's last commit (made in on_revoke,
    # at the split or at close) left it.
    a_committed = {}
    for name, done in commits:
        if name == "a":
            a_committed.update((tp.partition, tp.offset) for tp in done)
    b_first = {}
    for name, part, offset in seen.values():
        if name == "b":
            b_first[part] = min(offset, b_first.get(part, offset))
    assert sorted(b_first) == list(range(6))
    assert b_first == {p: a_committed.get(p, 0) for p in range(6)}
    assert sum(a_committed.values()) >= 120   # a read (and committed) a real share first
    # Per partition, offsets seen are exactly 0..n-1: nothing skipped, nothing repeated.
    for p in range(6):
        offsets = sorted(o for _, part, o in seen.values() if part == p)
        assert offsets == list(range(len(offsets)))
    assert ("assign", all_parts) in events["a"]


def _run_in_thread(fn):
    """Run fn() on a new thread; return (its thread id, its result); re-raise its exception."""
    box = {}

    def body():
        box["ident"] = threading.get_ident()
        try:
            box["result"] = fn()
        except BaseException as e:  # re-raised on the test's thread
            box["error"] = e

    t = threading.Thread(target=body)
    t.start()
    t.join(120)
    assert not t.is_alive(), "consumer thread hung"
    if "error" in box:
        raise box["error"]
    return box["ident"], box["result"]


@pytest.mark.parametrize("via", ["poll", "consume"])
@pytest.mark.parametrize("protocol", ["range", "roundrobin", "cooperative-sticky", "consumer"])
def test_rebalance_callbacks_run_inside_poll_on_the_polling_thread(kafka_cluster, make_topic,
                                                                  protocol, via):
    topic = make_topic(partitions=3)
    for p in range(3):
        _produce_n(kafka_cluster, topic, 4, partition=p)
    calls = []
    where = {"in": None}   # which consumer call is running on the polling thread

    def on_assign(consumer, parts):
        calls.append(("assign", threading.get_ident(), where["in"], parts))

    def on_revoke(consumer, parts):
        calls.append(("revoke", threading.get_ident(), where["in"], parts))

    def body():
        c = Consumer(_conf(kafka_cluster, protocol, _group_id(),
                           **{"auto.offset.reset": "earliest"}))
        where["in"] = "subscribe"
        c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
        where["in"] = None
        got = []

        def on_message(consumer, m):
            assert m.error() is None, m.error()
            got.append(m)

        deadline = time.monotonic() + 30
        while len(got) < 12:
            assert time.monotonic() < deadline, "timed out consuming"
            where["in"] = via
            if via == "poll":
                m = c.poll(0.1)
                batch = [] if m is None else [m]
            else:
                batch = c.consume(12 - len(got), 0.1)
            where["in"] = None
            for m in batch:
                on_message(c, m)
        where["in"] = "close"
        c.close()
        where["in"] = None
        return got

    ident, got = _run_in_thread(body)
    # The callbacks did not assign: the binding did, and messages flowed.
    assert sorted((m.partition(), m.offset()) for m in got) == \
        [(p, o) for p in range(3) for o in range(4)]
    assert [c[0] for c in calls] == ["assign", "revoke"], calls
    for kind, thread, inside, parts in calls:
        assert thread == ident and thread != threading.get_ident()
        assert inside == (via if kind == "assign" else "close")
        assert isinstance(parts, list) and all(type(tp) is TopicPartition for tp in parts)
        assert _parts(parts) == [(topic, p) for p in range(3)]


@pytest.mark.parametrize("protocol", ["range", "cooperative-sticky", "consumer"])
def test_on_assign_with_explicit_offsets_is_honoured(kafka_cluster, make_topic, protocol):
    topic = make_topic(partitions=2)
    for p in range(2):
        _produce_n(kafka_cluster, topic, 10, partition=p)
    # auto.offset.reset=latest: without the callback's offsets nothing would be read.
    c = Consumer(_conf(kafka_cluster, protocol, _group_id(), **{"auto.offset.reset": "latest"}))
    assigned = []

    def on_assign(consumer, parts):
        start = {0: OFFSET_BEGINNING, 1: 6}
        mine = [TopicPartition(tp.topic, tp.partition, start[tp.partition]) for tp in parts]
        if protocol in INCREMENTAL:
            consumer.incremental_assign(mine)
        else:
            consumer.assign(mine)
        assigned.append(_parts(parts))

    c.subscribe([topic], on_assign=on_assign)
    got = []
    _until(c, lambda: len(got) >= 14, on_message=_data_only(got), what="14 messages")
    _quiet_for(c, 0.5, _data_only(got))
    c.close()
    assert assigned == [[(topic, 0), (topic, 1)]]
    assert sorted((m.partition(), m.offset()) for m in got) == \
        [(0, o) for o in range(10)] + [(1, o) for o in range(6, 10)]
    assert all(m.value() == b"p%d-v%d" % (m.partition(), m.offset()) for m in got)


@pytest.mark.parametrize("protocol", ["consumer", "cooperative-sticky"])
def test_on_lost_when_max_poll_interval_is_exceeded(kafka_cluster, make_topic, protocol):
    topic = make_topic(partitions=2)
    # The classic protocol needs max.poll.interval.ms >= session.timeout.ms (>= 6 s at the
    # broker); KIP-848 lets it be short.
    max_poll_ms = 1500 if protocol == "consumer" else 6000
    c = Consumer(_conf(kafka_cluster, protocol, _group_id(),
                       **{"max.poll.interval.ms": max_poll_ms}))
    calls = []
    where = {"in": None}

    def cb(kind):
        return lambda consumer, parts: calls.append(
            (kind, threading.get_ident(), where["in"], _parts(parts)))

    c.subscribe([topic], on_assign=cb("assign"), on_revoke=cb("revoke"), on_lost=cb("lost"))
    _until(c, lambda: len(c.assignment()) == 2, what="the assignment")
    assert [k for k, *_ in calls] == ["assign"]
    # The stimulus itself: not calling poll() for longer than max.poll.interval.ms.
    time.sleep(max_poll_ms / 1000.0 + 1.5)
    assert [k for k, *_ in calls] == ["assign"]   # nothing runs outside poll()
    errors = []

    def on_message(consumer, m):
        assert m.error() is not None, m
        errors.append(m.error().code())

    both = [(topic, 0), (topic, 1)]
    me = threading.get_ident()
    where["in"] = "poll"
    _until(c, lambda: len(calls) > 2 and calls[-1] == ("assign", me, "poll", both), timeout=30,
           on_message=on_message, what="on_lost and a new assignment")
    where["in"] = None
    assert KafkaError._MAX_POLL_EXCEEDED in errors
    assert calls[1] == ("lost", me, "poll", both)   # on_lost, not on_revoke
    # then the group is joined again (possibly through an empty assignment first)
    assert all(call == ("assign", me, "poll", []) for call in calls[2:-1]), calls
    c.close()


@pytest.mark.parametrize("protocol", ["range", "cooperative-sticky", "consumer"])
def test_raising_on_assign_surfaces_from_poll_and_consumer_keeps_working(kafka_cluster,
                                                                         make_topic, protocol):
    topic = make_topic(partitions=2)
    for p in range(2):
        _produce_n(kafka_cluster, topic, 3, partition=p)

    class Boom(Exception):
        pass

    boom = Boom("from on_assign")

    def on_assign(consumer, parts):
        raise boom

    c = Consumer(_conf(kafka_cluster, protocol, _group_id(), **{"auto.offset.reset": "earliest"}))
    c.subscribe([topic], on_assign=on_assign)
    got = []
    deadline = time.monotonic() + 30
    with pytest.raises(Boom) as info:
        while time.monotonic() < deadline:
            m = c.poll(0.1)
            if m is not None:
                got.append(m)
    assert info.value is boom
    assert got == []
    # The binding still assigned the partitions: the consumer goes on.
    _until(c, lambda: len(got) >= 6, on_message=_data_only(got), what="6 messages")
    assert _parts(c.assignment()) == [(topic, 0), (topic, 1)]
    assert sorted((m.partition(), m.offset()) for m in got) == \
        [(p, o) for p in range(2) for o in range(3)]
    c.close()


@pytest.mark.parametrize("protocol", ["range", "consumer"])
def test_memberid_and_consumer_group_metadata(kafka_cluster, make_topic, protocol):
    topic = make_topic(partitions=1)
    _produce_n(kafka_cluster, topic, 10, partition=0)
    group = _group_id()
    c = Consumer(_conf(kafka_cluster, protocol, group, **{
        "auto.offset.reset": "earliest", "enable.auto.commit": False}))
    if protocol != "consumer":
        assert c.memberid() is None     # classic: the broker hands out the id on join
    c.subscribe([topic])
    got = []
    _until(c, lambda: got, on_message=_data_only(got), what="a message")
    member = c.memberid()
    assert isinstance(member, str) and member
    cgmd = c.consumer_group_metadata()
    assert type(cgmd) is kafka.ConsumerGroupMetadata
    assert type(pickle.loads(pickle.dumps(cgmd))) is kafka.ConsumerGroupMetadata

    # The metadata is what a transactional producer needs to commit offsets for the group.
    producer = Producer(kafka_cluster.client_config(**{"transactional.id": "txn-" + group}))
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.send_offsets_to_transaction([TopicPartition(topic, 0, 7)],
                                         pickle.loads(pickle.dumps(cgmd)), 30)
    producer.commit_transaction(30)
    producer.close()
    assert [(tp.offset, tp.error) for tp in c.committed([TopicPartition(topic, 0)], timeout=10)] \
        == [(7, None)]
    c.close()


# -- offsets ------------------------------------------------------------------------------


def test_commit_committed_and_position_agree(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    for p in range(2):
        _produce_n(kafka_cluster, topic, 10, partition=p)
    group = _group_id()
    commits = []
    where = {"in": None}

    def on_commit(err, parts):
        commits.append((err, [(tp.topic, tp.partition, tp.offset, tp.error) for tp in parts],
                        where["in"]))

    c = Consumer(_conf(kafka_cluster, None, group, on_commit=on_commit, **{
        "enable.auto.commit": False}))
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    assert [tp.offset for tp in c.committed([tp0, tp1], timeout=10)] == [OFFSET_INVALID] * 2
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    assert [tp.offset for tp in c.position([tp0])] == [OFFSET_INVALID]   # nothing read yet
    got = []
    _until(c, lambda: len(got) >= 6, on_message=_data_only(got), what="6 messages")
    assert [m.offset() for m in got] == list(range(6))
    assert [(tp.partition, tp.offset) for tp in c.position([tp0])] == [(0, 6)]

    # Synchronous commit of the current position returns what was committed.
    done = c.commit(asynchronous=False)
    assert [(tp.topic, tp.partition, tp.offset, tp.error) for tp in done] == \
        [(topic, 0, 6, None)]
    assert [(tp.partition, tp.offset) for tp in c.committed([tp0], timeout=10)] == [(0, 6)]

    # commit(message=m) commits m.offset() + 1.
    done = c.commit(message=got[3], asynchronous=False)
    assert [(tp.partition, tp.offset) for tp in done] == [(0, 4)]
    assert [tp.offset for tp in c.committed([tp0], timeout=10)] == [4]
    assert [tp.offset for tp in c.position([tp0])] == [6]   # the position does not move

    # commit(offsets=...), for a partition this consumer does not even read, with metadata.
    done = c.commit(offsets=[TopicPartition(topic, 1, 7, metadata="checkpoint-7")],
                    asynchronous=False)
    assert [(tp.partition, tp.offset, tp.error) for tp in done] == [(1, 7, None)]
    both = c.committed([tp0, tp1], timeout=10)
    assert [(tp.partition, tp.offset) for tp in both] == [(0, 4), (1, 7)]
    assert both[1].metadata == "checkpoint-7"

    # Asynchronous commit: returns None, the result is served to on_commit inside poll().
    # (Paused, so that the position stays at 6 while polling for the callback.)
    c.pause([tp0])
    assert c.commit(asynchronous=True) is None
    assert commits == []
    where["in"] = "poll"
    _until(c, lambda: commits, what="on_commit")
    where["in"] = None
    assert commits == [(None, [(topic, 0, 6, None)], "poll")]
    assert [tp.offset for tp in c.committed([tp0, tp1], timeout=10)] == [6, 7]
    c.close()

    # A new member of the group resumes right after the last commit of each partition.
    c2 = Consumer(_conf(kafka_cluster, "range", group, **{"auto.offset.reset": "earliest"}))
    c2.subscribe([topic])
    resumed = []
    _until(c2, lambda: len(resumed) >= 4 + 3, on_message=_data_only(resumed),
           what="the rest of both partitions")
    c2.close()
    assert sorted((m.partition(), m.offset()) for m in resumed) == \
        [(0, o) for o in range(6, 10)] + [(1, o) for o in range(7, 10)]


COMMIT_METADATA = (None, "", "hello world", "h\u00e9llo \u2603")


def test_commit_metadata_reads_the_same_in_both_clients(kafka_cluster, topic):
    """A group's committed metadata is shared by the consumers of both clients: what either
    commits (none, '', ASCII, non-ASCII) both read back as it was committed. (confluent-kafka
    writes the C string, its NUL included, so '' is not "no metadata"; it reads up to the
    NUL.)"""
    peer = pytest.importorskip("confluent_kafka")
    clients = {"confluent-kafka": peer, "confluent_binding": kafka}
    read = {}
    for value in COMMIT_METADATA:
        for writer, w in clients.items():
            group = _group_id()
            c = w.Consumer(_conf(kafka_cluster, None, group, **{"enable.auto.commit": False}))
            tp = w.TopicPartition(topic, 0, 5) if value is None else \
                w.TopicPartition(topic, 0, 5, value)
            c.commit(offsets=[tp], asynchronous=False)
            c.close()
            for reader, r in clients.items():
                c = r.Consumer(_conf(kafka_cluster, None, group))
                got = c.committed([r.TopicPartition(topic, 0)], timeout=10)[0]
                c.close()
                read[value, writer, reader] = (got.offset, got.metadata)
    assert read == {key: (5, key[0]) for key in read}
    assert len(read) == len(COMMIT_METADATA) * 4


def test_close_commits_when_auto_commit_is_on(kafka_cluster, make_topic):
    topic = make_topic(partitions=1)
    _produce_n(kafka_cluster, topic, 20, partition=0)
    group = _group_id()
    tp = TopicPartition(topic, 0)
    # Auto-commit on, but its timer too slow to fire during the test: only close() commits.
    c = Consumer(_conf(kafka_cluster, "cooperative-sticky", group, **{
        "auto.offset.reset": "earliest", "auto.commit.interval.ms": 600000}))
    c.subscribe([tp.topic])
    got = []
    _until(c, lambda: len(got) >= 8, on_message=_data_only(got), what="8 messages")
    assert [m.offset() for m in got] == list(range(8))
    assert [t.offset for t in c.committed([tp], timeout=10)] == [OFFSET_INVALID]
    c.close()

    c2 = Consumer(_conf(kafka_cluster, "cooperative-sticky", group,
                        **{"auto.offset.reset": "earliest"}))
    assert [t.offset for t in c2.committed([tp], timeout=10)] == [8]
    c2.subscribe([topic])
    rest = []
    _until(c2, lambda: len(rest) >= 12, on_message=_data_only(rest), what="12 messages")
    c2.close()
    assert [m.offset() for m in rest] == list(range(8, 20))


def test_store_offsets_then_commit_commits_exactly_the_stored_offsets(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    for p in range(2):
        _produce_n(kafka_cluster, topic, 10, partition=p)
    c = Consumer(_conf(kafka_cluster, None, _group_id(), **{
        "enable.auto.commit": False, "enable.auto.offset.store": False}))
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(2)])
    got = []
    _until(c, lambda: len(got) >= 20, on_message=_data_only(got), what="20 messages")
    # Nothing stored yet: there is nothing to commit although everything has been read.
    with pytest.raises(KafkaException) as info:
        c.commit(asynchronous=False)
    assert info.value.args[0].code() == KafkaError._NO_OFFSET

    m3 = next(m for m in got if m.partition() == 0 and m.offset() == 3)
    c.store_offsets(message=m3)
    c.store_offsets(offsets=[TopicPartition(topic, 1, 7)])
    done = c.commit(asynchronous=False)
    assert (sorted((tp.partition, tp.offset, tp.error) for tp in done)
            == [(0, 4, None), (1, 7, None)])
    tps = [TopicPartition(topic, p) for p in range(2)]
    assert [(tp.partition, tp.offset) for tp in c.committed(tps, timeout=10)] == [(0, 4), (1, 7)]
    assert [tp.offset for tp in c.position(tps)] == [10, 10]
    c.close()


# -- positioning ---------------------------------------------------------------------------


def test_seek_then_next_message_has_that_offset(kafka_cluster, topic):
    _produce_n(kafka_cluster, topic, 20, partition=0)
    c = Consumer(_conf(kafka_cluster, **{"enable.partition.eof": True}))   # manual assignment
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    eofs = []

    def next_message():
        got = []

        def on_message(consumer, m):
            if m.error() is not None:
                assert m.error().code() == KafkaError._PARTITION_EOF, m.error()
                eofs.append(m.offset())
            elif not got:
                got.append(m)

        _until(c, lambda: got, on_message=on_message, what="a message")
        return got[0]

    assert next_message().offset() == 0
    for target in (15, 3, 19, 0):
        c.seek(TopicPartition(topic, 0, target))
        m = next_message()
        assert (m.offset(), m.value()) == (target, b"p0-v%d" % target)
        if target < 19:
            assert next_message().offset() == target + 1
    # Seek to the end; once the consumer reports being there, new data is the next message.
    c.seek(TopicPartition(topic, 0, OFFSET_END))
    del eofs[:]
    _until(c, lambda: eofs, what="the end of the partition",
           on_message=lambda consumer, m: eofs.append(m.error().code()))
    assert eofs == [KafkaError._PARTITION_EOF]
    _produce_n(kafka_cluster, topic, 1, partition=0, start=20)
    m = next_message()
    assert (m.offset(), m.value()) == (20, b"p0-v20")
    c.close()


def test_pause_and_resume(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    for p in range(2):
        _produce_n(kafka_cluster, topic, 5, partition=p)
    c = Consumer(_conf(kafka_cluster))
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(2)])
    tp0 = TopicPartition(topic, 0)
    c.pause([tp0])
    got = []
    _until(c, lambda: sum(m.partition() == 1 for m in got) >= 5, on_message=_data_only(got),
           what="partition 1")
    _produce_n(kafka_cluster, topic, 3, partition=0, start=5)
    _quiet_for(c, 1.0, _data_only(got))
    assert [(m.partition(), m.offset()) for m in got] == [(1, o) for o in range(5)]

    c.resume([tp0])
    _until(c, lambda: len(got) >= 13, on_message=_data_only(got), what="partition 0")
    assert [(m.partition(), m.offset()) for m in got[5:]] == [(0, o) for o in range(8)]
    c.close()


def test_offsets_for_times(kafka_cluster, topic):
    base = int(time.time() * 1000) - 60_000
    _produce(kafka_cluster, topic, [
        {"value": b"t%d" % i, "partition": 0, "timestamp": base + 1000 * i} for i in range(10)])
    c = Consumer(_conf(kafka_cluster))

    def lookup(ts):
        res = c.offsets_for_times([TopicPartition(topic, 0, ts)], timeout=10)
        assert len(res) == 1 and res[0].error is None
        assert (res[0].topic, res[0].partition) == (topic, 0)
        return res[0].offset

    assert lookup(base - 5000) == 0
    assert lookup(base) == 0
    assert lookup(base + 2500) == 3          # the first message at or after the time
    assert lookup(base + 5000) == 5
    assert lookup(base + 9000) == 9
    assert lookup(base + 9001) == OFFSET_END  # after the last message: -1
    assert OFFSET_END == -1

    # Seek by time: assign the offset found, read the message, check its timestamp.
    c.assign([TopicPartition(topic, 0, lookup(base + 4200))])
    got = []
    _until(c, lambda: got, on_message=_data_only(got), what="a message")
    assert (got[0].offset(), got[0].timestamp()) == (5, (TIMESTAMP_CREATE_TIME, base + 5000))
    c.close()


def test_get_watermark_offsets_queried_and_cached(kafka_cluster, topic):
    tp = TopicPartition(topic, 0)
    c = Consumer(_conf(kafka_cluster))
    assert c.get_watermark_offsets(tp, timeout=10) == (0, 0)
    _produce_n(kafka_cluster, topic, 7, partition=0)
    assert c.get_watermark_offsets(tp, timeout=10) == (0, 7)
    assert c.get_watermark_offsets(tp, timeout=10, cached=False) == (0, 7)

    # Cached values come from fetch responses: none yet for this partition.
    assert c.get_watermark_offsets(tp, cached=True) == (OFFSET_INVALID, OFFSET_INVALID)
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got = []
    _until(c, lambda: len(got) >= 7, on_message=_data_only(got), what="7 messages")
    assert c.get_watermark_offsets(tp, cached=True) == (0, 7)
    _produce_n(kafka_cluster, topic, 3, partition=0, start=7)
    _until(c, lambda: len(got) >= 10, on_message=_data_only(got), what="3 more messages")
    assert c.get_watermark_offsets(tp, cached=True)[1] == 10
    assert c.get_watermark_offsets(tp, timeout=10) == (0, 10)
    c.close()


# -- consuming ------------------------------------------------------------------------------


def test_consume_returns_full_batches_in_order(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    n = 1250
    for p in range(2):
        _produce_n(kafka_cluster, topic, n, partition=p)
    c = Consumer(_conf(kafka_cluster))
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(2)])
    batches = [c.consume(1000, timeout=20), c.consume(1000, timeout=20)]
    # Only 500 are left: the call returns them once its timeout has passed.
    t0 = time.monotonic()
    batches.append(c.consume(1000, timeout=1.0))
    assert time.monotonic() - t0 >= 0.9
    assert [len(b) for b in batches] == [1000, 1000, 500]
    assert c.consume(1000, timeout=0) == []
    c.close()

    msgs = [m for b in batches for m in b]
    assert all(type(m) is kafka.Message and m.error() is None for m in msgs)
    for p in range(2):
        mine = [m for m in msgs if m.partition() == p]
        assert [m.offset() for m in mine] == list(range(n))
        assert [m.value() for m in mine] == [b"p%d-v%d" % (p, i) for i in range(n)]
        assert [m.key() for m in mine] == [b"k%d" % i for i in range(n)]
        assert all(m.topic() == topic for m in mine)


def test_headers_and_timestamps_round_trip(kafka_cluster, topic):
    ts = int(time.time() * 1000) - 12_345
    sent = [
        {"key": b"with-headers", "value": b"v0", "timestamp": ts,
         "headers": [("h1", b"one"), ("empty", b""), ("none", None), ("h1", b"again"),
                     ("bin", bytes(range(256)))]},
        {"key": b"no-headers", "value": b"v1", "timestamp": ts + 1},
        {"key": None, "value": None, "timestamp": ts + 2, "headers": {"only": b"x"}},
        {"key": b"", "value": b"", "headers": [("unicode-\u00e9", "caf\u00e9")]},
    ]
    reports = _produce(kafka_cluster, topic, [dict(kw, partition=0) for kw in sent])
    c = Consumer(_conf(kafka_cluster))
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got = []
    _until(c, lambda: len(got) >= 4, on_message=_data_only(got), what="4 messages")
    c.close()

    assert [m.offset() for m in got] == [r.offset() for r in reports] == [0, 1, 2, 3]
    assert [(m.key(), m.value()) for m in got] == \
        [(b"with-headers", b"v0"), (b"no-headers", b"v1"), (None, None), (b"", b"")]
    assert got[0].headers() == [("h1", b"one"), ("empty", b""), ("none", None),
                                ("h1", b"again"), ("bin", bytes(range(256)))]
    assert got[1].headers() is None
    assert got[2].headers() == [("only", b"x")]
    assert got[3].headers() == [("unicode-\u00e9", "caf\u00e9".encode())]
    assert [m.timestamp() for m in got[:3]] == [(TIMESTAMP_CREATE_TIME, ts + i) for i in range(3)]
    # No explicit timestamp: the producer's clock at produce() time.
    assert got[3].timestamp()[0] == TIMESTAMP_CREATE_TIME
    assert abs(got[3].timestamp()[1] - time.time() * 1000) < 120_000
    assert got[3].timestamp() == reports[3].timestamp()


def test_partition_eof_events(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    _produce_n(kafka_cluster, topic, 3, partition=0)
    c = Consumer(_conf(kafka_cluster, **{"enable.partition.eof": True}))
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(2)])
    data, eofs = [], []

    def on_message(consumer, m):
        if m.error() is None:
            data.append((m.partition(), m.offset()))
        else:
            assert m.error().code() == KafkaError._PARTITION_EOF, m.error()
            assert not m.error().fatal()
            eofs.append((m.topic(), m.partition(), m.offset()))

    _until(c, lambda: len(eofs) >= 2, on_message=on_message, what="two EOF events")
    assert data == [(0, 0), (0, 1), (0, 2)]
    assert sorted(eofs) == [(topic, 0, 3), (topic, 1, 0)]

    # New data past the end: the message, then a new EOF at the new end.
    _produce_n(kafka_cluster, topic, 1, partition=1)
    _until(c, lambda: len(eofs) >= 3, on_message=on_message, what="a third EOF event")
    assert data[3:] == [(1, 0)]
    assert eofs[2] == (topic, 1, 1)
    c.close()


@pytest.mark.parametrize("protocol", ["cooperative-sticky", "consumer"])
def test_subscribe_with_regex_pattern(kafka_cluster, make_topic, protocol):
    prefix = "rx%s" % uuid.uuid4().hex[:10]
    t_a = make_topic(1, name=prefix + "-a")
    t_b = make_topic(2, name=prefix + "-b")
    other = make_topic(1, name="other" + prefix)
    for t, parts in ((t_a, 1), (t_b, 2), (other, 1)):
        for p in range(parts):
            _produce_n(kafka_cluster, t, 2, partition=p)
    c = Consumer(_conf(kafka_cluster, protocol, _group_id(), **{
        "auto.offset.reset": "earliest", "topic.metadata.refresh.interval.ms": 1000}))
    c.subscribe(["^%s-.*" % prefix])
    got = []
    _until(c, lambda: len(got) >= 6, on_message=_data_only(got), what="6 messages")
    _quiet_for(c, 0.5, _data_only(got))
    assert sorted((m.topic(), m.partition(), m.offset()) for m in got) == sorted(
        [(t_a, 0, 0), (t_a, 0, 1)] + [(t_b, p, o) for p in range(2) for o in range(2)])
    assert _parts(c.assignment()) == [(t_a, 0), (t_b, 0), (t_b, 1)]
    c.close()


def test_unsubscribe_stops_delivery(kafka_cluster, topic):
    _produce_n(kafka_cluster, topic, 5, partition=0)
    revoked = []
    c = Consumer(_conf(kafka_cluster, "range", _group_id(), **{"auto.offset.reset": "earliest"}))
    c.subscribe([topic], on_revoke=lambda consumer, parts: revoked.append(_parts(parts)))
    got = []
    _until(c, lambda: len(got) >= 5, on_message=_data_only(got), what="5 messages")
    assert _parts(c.assignment()) == [(topic, 0)]
    c.unsubscribe()
    _until(c, lambda: revoked and not c.assignment(), on_message=_data_only(got),
           what="the revocation")
    assert revoked == [[(topic, 0)]]
    _produce_n(kafka_cluster, topic, 5, partition=0, start=5)
    _quiet_for(c, 1.5, _data_only(got))
    assert [m.offset() for m in got] == list(range(5))
    c.close()


@pytest.mark.parametrize("lib", ["confluent_binding", "confluent_kafka"])
def test_commit_after_unsubscribe_then_assign(kafka_cluster, topic, lib):
    """After unsubscribe() (the group left: no member id), partitions assigned by hand are read
    and their offsets committed, as a consumer that never joined commits them. confluent-kafka's
    librdkafka sends that commit with the generation of the group it left, and the broker
    refuses it (UNKNOWN_MEMBER_ID); the pinned build is patched (librdkafka-build/patches/0007)."""
    m = pytest.importorskip(lib)
    _produce_n(kafka_cluster, topic, 5, partition=0)
    revoked = []
    c = m.Consumer(_conf(kafka_cluster, "range", _group_id(), **{"auto.offset.reset": "earliest"}))
    c.subscribe([topic], on_revoke=lambda consumer, parts: revoked.append(len(parts)))
    got = []
    _until(c, lambda: len(got) >= 5, on_message=_data_only(got), what="5 messages")
    c.unsubscribe()
    _until(c, lambda: revoked and not c.assignment() and c.memberid() is None,
           on_message=_data_only(got), what="the group left")
    c.assign([m.TopicPartition(topic, 0, 2)])
    got.clear()
    _until(c, lambda: len(got) >= 3, on_message=_data_only(got), what="3 messages")
    assert [msg.offset() for msg in got] == [2, 3, 4]
    offsets = [m.TopicPartition(topic, 0, 5)]
    if lib == "confluent_kafka":
        with pytest.raises(m.KafkaException) as refused:
            c.commit(offsets=offsets, asynchronous=False)
        assert refused.value.args[0].code() == m.KafkaError.UNKNOWN_MEMBER_ID
    else:
        committed = c.commit(offsets=offsets, asynchronous=False)
        assert [(tp.partition, tp.offset, tp.error) for tp in committed] == [(0, 5, None)]
        assert [tp.offset for tp in c.committed([m.TopicPartition(topic, 0)], 10)] == [5]
    c.close()


def test_manual_assignment_without_subscription(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    for p in range(2):
        _produce_n(kafka_cluster, topic, 5, partition=p)
    c = Consumer(_conf(kafka_cluster))
    assert c.assignment() == []
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING), TopicPartition(topic, 1, 2)])
    asg = c.assignment()
    assert _parts(asg) == [(topic, 0), (topic, 1)]
    assert all(type(tp) is TopicPartition for tp in asg)
    got = []
    _until(c, lambda: len(got) >= 8, on_message=_data_only(got), what="8 messages")
    _quiet_for(c, 0.3, _data_only(got))
    assert sorted((m.partition(), m.offset()) for m in got) == \
        [(0, o) for o in range(5)] + [(1, o) for o in range(2, 5)]
    assert c.memberid() is None   # assign() does not join the group
    c.unassign()
    assert c.assignment() == []
    c.close()


def test_incremental_assign_and_unassign(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    for p in range(2):
        _produce_n(kafka_cluster, topic, 5, partition=p)
    c = Consumer(_conf(kafka_cluster))
    got = []
    c.incremental_assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    assert _parts(c.assignment()) == [(topic, 0)]
    _until(c, lambda: len(got) >= 5, on_message=_data_only(got), what="partition 0")
    c.incremental_assign([TopicPartition(topic, 1, 3)])
    assert _parts(c.assignment()) == [(topic, 0), (topic, 1)]
    _until(c, lambda: len(got) >= 7, on_message=_data_only(got), what="partition 1")
    assert [(m.partition(), m.offset()) for m in got] == \
        [(0, o) for o in range(5)] + [(1, 3), (1, 4)]

    c.incremental_unassign([TopicPartition(topic, 0)])
    assert _parts(c.assignment()) == [(topic, 1)]
    _produce_n(kafka_cluster, topic, 2, partition=0, start=5)
    _produce_n(kafka_cluster, topic, 2, partition=1, start=5)
    _until(c, lambda: len(got) >= 9, on_message=_data_only(got), what="partition 1 again")
    _quiet_for(c, 1.0, _data_only(got))
    assert [(m.partition(), m.offset()) for m in got[7:]] == [(1, 5), (1, 6)]
    # Assigning a partition already assigned is an error, reported by librdkafka.
    with pytest.raises(KafkaException):
        c.incremental_assign([TopicPartition(topic, 1)])
    c.close()


def test_list_topics_on_consumer(kafka_cluster, make_topic):
    topic = make_topic(partitions=3)
    c = Consumer(_conf(kafka_cluster, None, _group_id()))
    md = c.list_topics(topic, timeout=10)
    assert list(md.topics) == [topic]
    tm = md.topics[topic]
    assert tm.error is None
    assert sorted(tm.partitions) == [0, 1, 2]
    assert all(pm.error is None and pm.leader in md.brokers for pm in tm.partitions.values())
    assert md.brokers
    everything = c.list_topics(timeout=10)
    assert topic in everything.topics
    missing = "missing-" + uuid.uuid4().hex
    md = c.list_topics(missing, timeout=10)
    assert md.topics[missing].error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    c.close()


@pytest.mark.parametrize("protocol", ["range", "consumer"])
def test_subscribe_to_unknown_topic_then_it_appears(kafka_cluster, make_topic, protocol):
    missing = "missing-" + uuid.uuid4().hex
    c = Consumer(_conf(kafka_cluster, protocol, _group_id(), **{
        "auto.offset.reset": "earliest", "topic.metadata.propagation.max.ms": 10,
        "topic.metadata.refresh.interval.ms": 1000}))
    c.subscribe([missing])
    errors = []

    def on_message(consumer, m):
        assert m.error() is not None, "data from a topic that does not exist: %r" % (m,)
        errors.append(m.error())

    if protocol == "consumer":
        # KIP-848: the broker resolves the subscription; librdkafka reports nothing for a
        # topic that does not exist (neither does confluent-kafka over the same librdkafka).
        _quiet_for(c, 3.0, on_message)
        assert errors == []
    else:
        # Classic: librdkafka's metadata lookup reports it as a consumer error event.
        _until(c, lambda: errors, timeout=30, on_message=on_message, what="an error event")
        assert len(errors) == 1
        assert errors[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART, errors[0]
        assert missing in errors[0].str()
        assert not errors[0].fatal()
    assert c.assignment() == []

    # The topic appears: the same subscription picks it up and its data flows.
    make_topic(2, name=missing)
    _produce_n(kafka_cluster, missing, 2, partition=0)
    _produce_n(kafka_cluster, missing, 1, partition=1)
    got = []

    def collect(consumer, m):
        if m.error() is None:
            got.append(m)
        else:
            assert m.error().code() == KafkaError.UNKNOWN_TOPIC_OR_PART, m.error()

    _until(c, lambda: len(got) >= 3, timeout=60, on_message=collect, what="3 messages")
    assert sorted((m.topic(), m.partition(), m.offset()) for m in got) == \
        [(missing, 0, 0), (missing, 0, 1), (missing, 1, 0)]
    assert _parts(c.assignment()) == [(missing, 0), (missing, 1)]
    c.close()
