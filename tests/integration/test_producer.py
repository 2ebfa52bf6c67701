"""The producer against a real broker: payloads, headers, timestamps, partitions, delivery
reports, errors, metadata, idempotence, transactions, statistics, logs and produce_batch.

Where a behaviour is part of the confluent-kafka API, the test runs with both this package and
the installed confluent_kafka (when present) to show they behave the same.
"""
import contextlib
import importlib
import json
import logging
import socket
import struct
import threading
import time
import uuid

import pytest

import confluent_binding as kafka

from tests.support import consume_messages

pytestmark = pytest.mark.integration

KE = kafka.KafkaError


# -- helpers -------------------------------------------------------------------------------


@pytest.fixture(params=["confluent_binding", "confluent_kafka"])
def mod(request):
    """The client module under test: this package, or confluent_kafka for comparison."""
    if request.param == "confluent_kafka":
        return pytest.importorskip("confluent_kafka")
    return importlib.import_module(request.param)


class Reports:
    """Collects delivery reports; checks each one is served inside a serving call
    (poll/flush/...) on the thread that made that call."""

    def __init__(self):
        self.items = []          # (tag, err, msg)
        self.misplaced = []      # reports served outside a serving call or on another thread
        self._inside = None      # ident of the thread inside a serving call

    @contextlib.contextmanager
    def serving(self):
        self._inside = threading.get_ident()
        try:
            yield
        finally:
            self._inside = None

    def in_call(self):
        """True when called from inside a serving call, on the thread that made it."""
        return self._inside == threading.get_ident()

    def cb(self, tag=None):
        def on_delivery(err, msg):
            if not self.in_call():
                self.misplaced.append((tag, threading.current_thread().name))
            self.items.append((tag, err, msg))
        return on_delivery

    def by_tag(self):
        out = {}
        for tag, err, msg in self.items:
            assert tag not in out, "report for %r served twice" % (tag,)
            out[tag] = (err, msg)
        return out


def _consumer(mod, cluster, **conf):
    base = {"group.id": "p-" + uuid.uuid4().hex, "enable.auto.commit": False,
            "enable.partition.eof": True}
    base.update(conf)
    return mod.Consumer(cluster.client_config(base))


def read_topic(mod, cluster, topic, partitions=1, until=None, timeout=30, **conf):
    """All messages of ``topic`` from the beginning.

    Without ``until``: until every partition reported end-of-partition (only valid when
    everything was produced and acknowledged before). With ``until(messages)``: until it is
    true (needed with read_committed, whose end moves when transaction markers land).
    """
    c = _consumer(mod, cluster, **conf)
    try:
        c.assign([mod.TopicPartition(topic, p, mod.OFFSET_BEGINNING) for p in range(partitions)])
        got, eof = [], set()
        deadline = time.monotonic() + timeout
        while (not until(got) if until is not None else len(eof) < partitions):
            assert time.monotonic() < deadline, "read %d messages, eof %s" % (len(got), eof)
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error() is not None:
                assert m.error().code() == KE._PARTITION_EOF, m.error()
                eof.add(m.partition())
                continue
            got.append(m)
        return got
    finally:
        c.close()


def _now_ms():
    return int(time.time() * 1000)


# -- payloads, headers, timestamps, partitions ---------------------------------------------


def test_keys_and_values_of_every_type_round_trip(kafka_cluster, topic):
    cases = [
        # (tag, value given, key given, value expected, key expected)
        ("bytes", b"\x00\x01binary\xff", b"k-bytes", b"\x00\x01binary\xff", b"k-bytes"),
        ("str", "h\u00e9llo \u2603", "k-str-\u00fc",
         "h\u00e9llo \u2603".encode(), "k-str-\u00fc".encode()),
        ("bytearray", bytearray(b"from-bytearray"), bytearray(b"k-ba"), b"from-bytearray", b"k-ba"),
        ("memoryview", memoryview(b"xxfrom-memoryviewxx")[2:-2], memoryview(b"k-mv"),
         b"from-memoryview", b"k-mv"),
        ("empty", b"", b"", b"", b""),
        ("tombstone", None, b"k-tomb", None, b"k-tomb"),
        ("no-key", b"keyless", None, b"keyless", None),
        ("large", bytes(range(256)) * 2000, b"k-large", bytes(range(256)) * 2000, b"k-large"),
    ]
    reports = Reports()
    p = kafka.Producer(kafka_cluster.client_config())
    for tag, value, key, _, _ in cases:
        p.produce(topic, value=value, key=key, on_delivery=reports.cb(tag))
    with reports.serving():
        assert p.flush(30) == 0
    p.close()

    assert reports.misplaced == []
    dr = reports.by_tag()
    assert set(dr) == {c[0] for c in cases}
    for i, (tag, _, _, value, key) in enumerate(cases):
        err, m = dr[tag]
        assert err is None and m.error() is None
        assert (m.topic(), m.partition(), m.offset()) == (topic, 0, i)
        assert m.value() == value and m.key() == key

    got = read_topic(kafka, kafka_cluster, topic)
    assert [(m.offset(), m.value(), m.key()) for m in got] == \
        [(i, c[3], c[4]) for i, c in enumerate(cases)]
    assert got[5].value() is None      # a tombstone stays a null value, not b""
    assert got[4].value() == b"" and got[4].key() == b""


def test_headers_round_trip(kafka_cluster, topic):
    cases = [
        ("dupes", [("a", b"1"), ("b", b"2"), ("a", b"3"), ("a", b"4")],
         [("a", b"1"), ("b", b"2"), ("a", b"3"), ("a", b"4")]),
        ("none-values", [("n", None), ("e", b""), ("v", b"x")],
         [("n", None), ("e", b""), ("v", b"x")]),
        ("str-values", [("s", "str \u00e9"), ("bin", b"\x00\xff")],
         [("s", "str \u00e9".encode()), ("bin", b"\x00\xff")]),
        ("dict", {"d1": b"one", "d2": "two", "d3": None},
         [("d1", b"one"), ("d2", b"two"), ("d3", None)]),
        ("tuple-of-pairs", (("t", b"1"), ("t", b"2")), [("t", b"1"), ("t", b"2")]),
        ("unicode-name", [("na\u00efve-\u2603", b"v")], [("na\u00efve-\u2603", b"v")]),
        ("many", [("h%d" % i, b"%d" % i) for i in range(40)],
         [("h%d" % i, b"%d" % i) for i in range(40)]),
        ("empty-list", [], None),
    ]
    reports = Reports()
    p = kafka.Producer(kafka_cluster.client_config())
    for tag, headers, _ in cases:
        p.produce(topic, value=tag.encode(), headers=headers, on_delivery=reports.cb(tag))
    with reports.serving():
        assert p.flush(30) == 0
    p.close()

    dr = reports.by_tag()
    for tag, _, expected in cases:
        err, m = dr[tag]
        assert err is None
        assert m.headers() is None, tag     # delivery reports carry none, as confluent-kafka's

    got = read_topic(kafka, kafka_cluster, topic)
    assert [m.value() for m in got] == [c[0].encode() for c in cases]
    for m, (tag, _, expected) in zip(got, cases):
        assert m.headers() == expected, tag


def test_explicit_timestamps_are_create_time(kafka_cluster, topic):
    now = _now_ms()
    stamps = [1234567890123, 1600000000000, 1, now - 60_000]
    reports = Reports()
    p = kafka.Producer(kafka_cluster.client_config())
    for ts in stamps:
        p.produce(topic, value=b"%d" % ts, timestamp=ts, on_delivery=reports.cb(ts))
    before = _now_ms()
    p.produce(topic, value=b"default", on_delivery=reports.cb("default"))
    # timestamp together with headers goes through the other produce path
    p.produce(topic, value=b"with-headers", timestamp=1500000000000, headers=[("h", b"v")],
              on_delivery=reports.cb("with-headers"))
    after = _now_ms()
    with reports.serving():
        assert p.flush(30) == 0
    p.close()

    dr = reports.by_tag()
    for ts in stamps:
        assert dr[ts][0] is None
        assert dr[ts][1].timestamp() == (kafka.TIMESTAMP_CREATE_TIME, ts)
    dtype, dts = dr["default"][1].timestamp()
    assert dtype == kafka.TIMESTAMP_CREATE_TIME and before <= dts <= after
    assert dr["with-headers"][1].timestamp() == (kafka.TIMESTAMP_CREATE_TIME, 1500000000000)

    got = read_topic(kafka, kafka_cluster, topic)
    seen = [m.timestamp() for m in got]
    assert seen == [(kafka.TIMESTAMP_CREATE_TIME, ts) for ts in stamps] + [
        (kafka.TIMESTAMP_CREATE_TIME, dts), (kafka.TIMESTAMP_CREATE_TIME, 1500000000000)]
    assert got[-1].headers() == [("h", b"v")]


def test_explicit_partitions(kafka_cluster, make_topic):
    topic = make_topic(partitions=3)
    plan = [i % 3 for i in range(30)] + [2, 2, 0]   # uneven on purpose
    reports = Reports()
    p = kafka.Producer(kafka_cluster.client_config())
    for i, part in enumerate(plan):
        # the same key everywhere: an explicit partition wins over the partitioner
        p.produce(topic, value=b"m-%d" % i, key=b"same-key", partition=part,
                  on_delivery=reports.cb(i))
    with reports.serving():
        assert p.flush(30) == 0
    p.close()

    dr = reports.by_tag()
    assert len(dr) == len(plan)
    placed = {}
    for i, part in enumerate(plan):
        err, m = dr[i]
        assert err is None
        assert m.partition() == part
        placed[b"m-%d" % i] = (m.partition(), m.offset())
    for part in range(3):
        offsets = [placed[b"m-%d" % i][1] for i, pp in enumerate(plan) if pp == part]
        assert offsets == list(range(plan.count(part)))   # in produce order, no gaps

    got = read_topic(kafka, kafka_cluster, topic, partitions=3)
    assert len(got) == len(plan)
    assert {m.value(): (m.partition(), m.offset()) for m in got} == placed


def test_delivery_report_message_fields(kafka_cluster, topic):
    reports = Reports()
    p = kafka.Producer(kafka_cluster.client_config(**{"linger.ms": 20}))
    p.produce(topic, value=b"the-value", key=b"the-key", headers=[("h1", b"x"), ("h2", None)],
              timestamp=1700000000000, on_delivery=reports.cb("m"))
    assert reports.items == []            # nothing is served outside poll/flush
    deadline = time.monotonic() + 30
    while not reports.items:
        assert time.monotonic() < deadline
        with reports.serving():
            p.poll(0.5)
    p.close()

    assert reports.misplaced == []
    (_, err, m), = reports.items
    assert err is None and m.error() is None
    assert isinstance(m, kafka.Message)
    assert m.topic() == topic
    assert m.partition() == 0
    assert m.offset() == 0
    assert m.key() == b"the-key"
    assert m.value() == b"the-value"
    assert m.headers() is None            # as confluent-kafka's delivery reports
    assert m.timestamp() == (kafka.TIMESTAMP_CREATE_TIME, 1700000000000)
    assert len(m) == len(b"the-value")
    lat = m.latency()
    assert isinstance(lat, float) and 0 < lat < 30


def test_configured_on_delivery_and_only_error_reports(kafka_cluster, topic):
    # on_delivery from the configuration; a per-message callback overrides it
    conf_reports, own_reports = Reports(), Reports()
    p = kafka.Producer(kafka_cluster.client_config(), on_delivery=conf_reports.cb("conf"))
    for i in range(5):
        p.produce(topic, value=b"c%d" % i)
    p.produce(topic, value=b"own", on_delivery=own_reports.cb("own"))
    with conf_reports.serving(), own_reports.serving():
        assert p.flush(30) == 0
    p.close()
    assert [m.value() for _, _, m in conf_reports.items] == [b"c%d" % i for i in range(5)]
    assert [(e, m.value()) for _, e, m in own_reports.items] == [(None, b"own")]

    # delivery.report.only.error: successes are not reported, failures are
    only_err = Reports()
    p = kafka.Producer(kafka_cluster.client_config({"delivery.report.only.error": True}),
                       on_delivery=only_err.cb())
    for i in range(5):
        p.produce(topic, value=b"ok%d" % i)
    p.produce(topic, value=b"bad", partition=5)
    with only_err.serving():
        assert p.flush(30) == 0
    p.close()
    assert [(e.code(), m.value()) for _, e, m in only_err.items] == \
        [(KE._UNKNOWN_PARTITION, b"bad")]


# -- errors --------------------------------------------------------------------------------


def test_unknown_partition_is_reported_in_delivery_report(mod, kafka_cluster, topic):
    reports = []
    p = mod.Producer(kafka_cluster.client_config())
    # Whether produce() already knows the partition count depends on whether the metadata of
    # the first broker connection has arrived: it refuses the message at once then, and
    # otherwise queues it and the delivery report carries the error. Either way with one code,
    # and the message is never written.
    try:
        p.produce(topic, value=b"nowhere", key=b"k", partition=7,
                  on_delivery=lambda err, msg: reports.append((err, msg)))
    except mod.KafkaException as e:
        assert e.args[0].code() == mod.KafkaError._UNKNOWN_PARTITION
        assert p.flush(30) == 0
        assert reports == []
    else:
        assert p.flush(30) == 0
        (err, m), = reports
        assert err.code() == mod.KafkaError._UNKNOWN_PARTITION
        assert m.error().code() == mod.KafkaError._UNKNOWN_PARTITION
        assert (m.topic(), m.partition(), m.offset(), m.value()) == (topic, 7, None, b"nowhere")

    # once the partition count is known, produce() refuses it at once, with the same code
    assert len(p.list_topics(topic, timeout=30).topics[topic].partitions) == 1
    reports.clear()
    with pytest.raises(mod.KafkaException) as ei:
        p.produce(topic, value=b"again", partition=7,
                  on_delivery=lambda err, msg: reports.append((err, msg)))
    assert ei.value.args[0].code() == mod.KafkaError._UNKNOWN_PARTITION
    assert p.flush(30) == 0
    assert reports == []
    assert len(read_topic(mod, kafka_cluster, topic)) == 0


def test_message_larger_than_client_max_raises(mod, kafka_cluster, topic):
    reports = []
    p = mod.Producer(kafka_cluster.client_config(**{"message.max.bytes": 100_000}))
    with pytest.raises(mod.KafkaException) as ei:
        p.produce(topic, value=b"x" * 200_000, on_delivery=lambda e, m: reports.append(e))
    assert ei.value.args[0].code() == mod.KafkaError.MSG_SIZE_TOO_LARGE
    # still usable, and the refused message never gets a report
    p.produce(topic, value=b"small", on_delivery=lambda e, m: reports.append(e))
    assert p.flush(30) == 0
    assert reports == [None]


def test_message_larger_than_topic_max_fails_in_delivery_report(mod, kafka_cluster, make_topic):
    topic = make_topic(1, config={"max.message.bytes": "10000"})
    reports = []
    p = mod.Producer(kafka_cluster.client_config())
    big = bytes(range(256)) * 200   # 51,200 bytes: under the client's limit, over the topic's
    p.produce(topic, value=big, on_delivery=lambda e, m: reports.append((e, m)))
    assert p.flush(30) == 0
    (err, m), = reports
    assert err.code() == mod.KafkaError.MSG_SIZE_TOO_LARGE
    assert (m.topic(), m.partition(), m.offset()) == (topic, 0, None)
    assert m.value() == big
    assert len(read_topic(mod, kafka_cluster, topic)) == 0


def test_invalid_topic_name_fails_in_delivery_report(mod, kafka_cluster, topic):
    reports = []
    p = mod.Producer(kafka_cluster.client_config())
    p.produce("bad topic!", value=b"v", key=b"k", on_delivery=lambda e, m: reports.append((e, m)))
    assert p.flush(30) == 0
    (err, m), = reports
    assert err.code() == mod.KafkaError.TOPIC_EXCEPTION
    assert (m.topic(), m.offset(), m.value(), m.key()) == ("bad topic!", None, b"v", b"k")
    # the producer is unharmed
    reports.clear()
    p.produce(topic, value=b"fine", on_delivery=lambda e, m: reports.append((e, m)))
    assert p.flush(30) == 0
    assert [(e, m.offset()) for e, m in reports] == [(None, 0)]


# -- metadata ------------------------------------------------------------------------------


def test_list_topics_all(mod, kafka_cluster, make_topic):
    topic = make_topic(partitions=3)
    p = mod.Producer(kafka_cluster.client_config())
    md = p.list_topics(timeout=30)
    host, port = kafka_cluster.bootstrap_servers.split(",")[0].rsplit(":", 1)
    assert len(md.brokers) == 1
    (bid, b), = md.brokers.items()
    assert (b.id, b.host, b.port) == (bid, host, int(port))
    assert md.controller_id == bid
    assert md.orig_broker_name.startswith("%s:%s/" % (host, port))
    assert isinstance(md.cluster_id, str) and md.cluster_id
    if getattr(kafka_cluster, "cluster_id", None):
        assert md.cluster_id == kafka_cluster.cluster_id
    assert topic in md.topics
    t = md.topics[topic]
    assert t.topic == topic and t.error is None
    assert sorted(t.partitions) == [0, 1, 2]
    for pid, pm in t.partitions.items():
        assert pm.id == pid
        assert pm.leader == bid and pm.replicas == [bid] and pm.isrs == [bid]
        assert pm.error is None


def test_list_topics_one_topic(mod, kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    make_topic(partitions=1)   # another topic, which must not be listed
    p = mod.Producer(kafka_cluster.client_config())
    md = p.list_topics(topic, timeout=30)
    assert list(md.topics) == [topic]
    assert md.topics[topic].error is None
    assert sorted(md.topics[topic].partitions) == [0, 1]
    assert len(md.brokers) == 1


def test_list_topics_unknown_topic(mod, kafka_cluster):
    name = "never-created-" + uuid.uuid4().hex[:8]
    p = mod.Producer(kafka_cluster.client_config(**{"allow.auto.create.topics": False}))
    md = p.list_topics(name, timeout=30)
    assert md.topics[name].error.code() == mod.KafkaError.UNKNOWN_TOPIC_OR_PART
    assert md.topics[name].partitions == {}
    assert kafka_cluster.topic_partitions(name) is None   # asking did not create it


class _StallingProxy:
    """A TCP proxy to the broker that passes back only the first response of each connection
    (ApiVersions): the client sees the broker come up, but later requests go unanswered."""

    def __init__(self, upstream):
        host, port = upstream.split(",")[0].rsplit(":", 1)
        self._upstream = (host, int(port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.address = "127.0.0.1:%d" % self._listener.getsockname()[1]
        self._stop = threading.Event()
        self._socks = []
        self._thread = threading.Thread(target=self._accept, name="stalling-proxy", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)
        for s in self._socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        self._listener.close()

    def _accept(self):
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except socket.timeout:
                continue
            broker = socket.create_connection(self._upstream)
            self._socks += [client, broker]
            for args in ((client, broker, None), (broker, client, 1)):
                threading.Thread(target=self._pump, args=args, daemon=True).start()

    @staticmethod
    def _pump(src, dst, frames):
        """Copy src to dst; with ``frames=n`` only the first n length-prefixed frames."""
        buf = b""
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    return
                if frames is None:
                    dst.sendall(data)
                    continue
                buf += data
                while frames and len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">i", buf[:4])[0]:
                    n = 4 + struct.unpack(">i", buf[:4])[0]
                    dst.sendall(buf[:n])
                    buf, frames = buf[n:], frames - 1
                if not frames:
                    buf = b""
        except OSError:
            return


def test_list_topics_times_out_on_silent_broker(mod, kafka_cluster):
    with _StallingProxy(kafka_cluster.bootstrap_servers) as proxy:
        p = mod.Producer({"bootstrap.servers": proxy.address})
        t0 = time.monotonic()
        with pytest.raises(mod.KafkaException) as ei:
            p.list_topics(timeout=1.0)
        elapsed = time.monotonic() - t0
        del p
    assert ei.value.args[0].code() == mod.KafkaError._TIMED_OUT
    assert 0.9 <= elapsed < 5


def test_list_topics_without_reachable_broker(mod):
    with socket.socket() as s:       # accepts connections (in its backlog), never answers
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        p = mod.Producer({"bootstrap.servers": "127.0.0.1:%d" % s.getsockname()[1]})
        t0 = time.monotonic()
        with pytest.raises(mod.KafkaException) as ei:
            p.list_topics(timeout=0.5)
        elapsed = time.monotonic() - t0
        del p
    # no broker became usable within the timeout
    assert ei.value.args[0].code() == mod.KafkaError._TRANSPORT
    assert 0.4 <= elapsed < 5


# -- idempotence and transactions ----------------------------------------------------------


def test_idempotent_producer_5000_messages_without_faults_land_once_in_order(
        kafka_cluster, topic):
    """The happy path only: nothing breaks here. Idempotence under broker kills is
    tests/reliability's (test_faults, test_cluster_faults)."""
    n = 5000
    offsets = [None] * n
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)
            return
        i = int(msg.key())
        assert offsets[i] is None, "report for %d served twice" % i
        offsets[i] = msg.offset()

    p = kafka.Producer(kafka_cluster.client_config(**{
        "enable.idempotence": True, "linger.ms": 5}), on_delivery=on_delivery)
    for i in range(n):
        p.produce(topic, value=b"v-%d" % i, key=b"%d" % i)
        if i % 500 == 0:
            p.poll(0)
    assert p.flush(60) == 0
    p.close()

    assert errors == []
    # one partition, no fault: one report per message, offsets in produce order
    assert offsets == list(range(n))

    got = read_topic(kafka, kafka_cluster, topic, timeout=60)
    assert len(got) == n
    assert [(m.offset(), m.key(), m.value()) for m in got] == \
        [(i, b"%d" % i, b"v-%d" % i) for i in range(n)]


def _txn_producer(kafka_cluster, **extra):
    conf = {"transactional.id": "txn-" + uuid.uuid4().hex}
    conf.update(extra)
    p = kafka.Producer(kafka_cluster.client_config(conf))
    p.init_transactions(60)
    return p


def test_transaction_commit_and_abort(kafka_cluster, topic):
    reports = Reports()
    # a long linger keeps the messages of a transaction queued until commit/abort flushes them
    p = _txn_producer(kafka_cluster, **{"linger.ms": 1000})

    # committed transaction: every report served (with an offset) by commit_transaction()
    p.begin_transaction()
    for i in range(100):
        p.produce(topic, value=b"committed-%d" % i, on_delivery=reports.cb(("c", i)))
    with reports.serving():
        p.commit_transaction(60)
    committed = reports.by_tag()
    assert len(committed) == 100
    assert all(err is None for err, _ in committed.values())
    assert sorted(m.offset() for _, m in committed.values()) == list(range(100))
    reports.items.clear()

    # aborted while queued: abort_transaction() serves each report once, as purged
    p.begin_transaction()
    for i in range(100):
        p.produce(topic, value=b"aborted-q-%d" % i, on_delivery=reports.cb(("q", i)))
    with reports.serving():
        p.abort_transaction(60)
    queued = reports.by_tag()
    assert len(queued) == 100
    assert {err.code() for err, _ in queued.values()} == {KE._PURGE_QUEUE}
    assert all(m.offset() is None for _, m in queued.values())
    reports.items.clear()
    with reports.serving():
        assert p.poll(0) == 0          # nothing left over
    assert reports.items == []

    # aborted after being written: the reports were served by flush(), with offsets
    p.begin_transaction()
    for i in range(100):
        p.produce(topic, value=b"aborted-w-%d" % i, on_delivery=reports.cb(("w", i)))
    with reports.serving():
        assert p.flush(60) == 0
    written = reports.by_tag()
    assert len(written) == 100 and all(err is None for err, _ in written.values())
    aborted_offsets = sorted(m.offset() for _, m in written.values())
    reports.items.clear()
    with reports.serving():
        p.abort_transaction(60)
    assert reports.items == []

    # the producer goes on: a transaction after the aborts commits fine
    p.begin_transaction()
    for i in range(10):
        p.produce(topic, value=b"after-%d" % i, on_delivery=reports.cb(("a", i)))
    with reports.serving():
        p.commit_transaction(60)
    after = reports.by_tag()
    assert len(after) == 10 and all(err is None for err, _ in after.values())
    p.close()
    assert reports.misplaced == []

    last = b"after-9"
    rc = read_topic(kafka, kafka_cluster, topic, until=lambda got: got and got[-1].value() == last,
                    **{"isolation.level": "read_committed"})
    assert [m.value() for m in rc] == \
        [b"committed-%d" % i for i in range(100)] + [b"after-%d" % i for i in range(10)]
    assert [m.offset() for m in rc[:100]] == list(range(100))

    ru = read_topic(kafka, kafka_cluster, topic, until=lambda got: got and got[-1].value() == last,
                    **{"isolation.level": "read_uncommitted"})
    values = [m.value() for m in ru]
    # read_uncommitted also sees the aborted records that were written, at their offsets
    assert values == [b"committed-%d" % i for i in range(100)] + \
        [b"aborted-w-%d" % i for i in range(100)] + [b"after-%d" % i for i in range(10)]
    assert [m.offset() for m in ru[100:200]] == aborted_offsets
    assert not any(v.startswith(b"aborted-q-") for v in values)


def test_abort_right_after_a_commit_is_not_fatal(mod, kafka_cluster, topic):
    """A transaction begun right after a commit has its AddPartitionsToTxn refused with
    CONCURRENT_TRANSACTIONS while the commit's markers are still being written; aborting it
    failed with the fatal INVALID_TXN_STATE (librdkafka issue #4849, fixed here by
    librdkafka-build/patches/0005; confluent-kafka's librdkafka still fails). Each round aborts
    once the coordinator answered the AddPartitionsToTxn, until three refused ones were
    aborted."""
    answers = []

    class Answers(logging.Handler):
        def emit(self, record):
            text = record.getMessage()
            if "registered with transaction" in text:
                answers.append("added")
            elif "AddPartitionsToTxn response: partition" in text:
                answers.append("refused")

    logger = logging.getLogger("txn-abort-" + uuid.uuid4().hex)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(Answers())
    p = mod.Producer(kafka_cluster.client_config({
        "transactional.id": "txn-" + uuid.uuid4().hex, "debug": "eos", "logger": logger}))
    p.init_transactions(60)
    refused_aborts = rounds = 0
    while refused_aborts < 3:
        rounds += 1
        assert rounds <= 60, "%s: only %d of 60 refused transactions aborted" % (
            "ours" if mod is kafka else "theirs (none failed)", refused_aborts)
        p.begin_transaction()
        p.produce(topic, value=b"committed-%d" % rounds)
        p.commit_transaction(60)
        answers.clear()
        p.begin_transaction()
        p.produce(topic, value=b"aborted-%d" % rounds)
        deadline = time.monotonic() + 30
        while not answers:
            assert time.monotonic() < deadline, "AddPartitionsToTxn not answered"
            p.poll(0.01)
        if answers[0] == "refused" and mod is not kafka:
            # (its retry of the refused request may still be accepted before the abort decides)
            try:
                p.abort_transaction(60)
            except mod.KafkaException as exc:
                assert exc.args[0].code() == mod.KafkaError.INVALID_TXN_STATE
                assert exc.args[0].fatal()
                return
            continue
        refused_aborts += answers[0] == "refused"
        p.abort_transaction(60)
    p.close()

    last = b"committed-%d" % rounds
    got = read_topic(kafka, kafka_cluster, topic, until=lambda got: got and got[-1].value() == last,
                     **{"isolation.level": "read_committed"})
    assert [m.value() for m in got] == [b"committed-%d" % i for i in range(1, rounds + 1)]


def test_send_offsets_to_transaction(kafka_cluster, make_topic):
    src = make_topic(partitions=2)
    dst = make_topic(partitions=1)
    n = 60
    feeder = kafka.Producer(kafka_cluster.client_config())
    for i in range(n):
        feeder.produce(src, value=b"in-%d" % i, partition=i % 2)
    assert feeder.flush(30) == 0
    feeder.close()

    group = "ctp-" + uuid.uuid4().hex
    consumer = kafka.Consumer(kafka_cluster.client_config({
        "group.id": group, "enable.auto.commit": False, "auto.offset.reset": "earliest",
        "isolation.level": "read_committed"}))
    consumer.subscribe([src])
    batch = consume_messages(consumer, n)

    producer = _txn_producer(kafka_cluster)
    producer.begin_transaction()
    for m in batch:
        producer.produce(dst, value=m.value().replace(b"in-", b"out-"), key=b"%d" % m.partition())
    positions = consumer.position(consumer.assignment())
    assert sorted((tp.partition, tp.offset) for tp in positions) == [(0, n // 2), (1, n // 2)]
    producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), 30)
    producer.commit_transaction(60)
    producer.close()

    # the group's committed offsets are the ends of the input partitions
    ends = {p: consumer.get_watermark_offsets(kafka.TopicPartition(src, p), timeout=10)[1]
            for p in (0, 1)}
    assert ends == {0: n // 2, 1: n // 2}
    want = [kafka.TopicPartition(src, p) for p in (0, 1)]
    deadline = time.monotonic() + 30
    while True:
        committed = {tp.partition: tp.offset for tp in consumer.committed(want, timeout=10)}
        if committed == ends or time.monotonic() > deadline:
            break
        consumer.poll(0.2)
    consumer.close()
    assert committed == ends

    out = read_topic(kafka, kafka_cluster, dst, until=lambda got: len(got) >= n,
                     **{"isolation.level": "read_committed"})
    assert len(out) == n
    assert sorted(m.value() for m in out) == sorted(b"out-%d" % i for i in range(n))


# -- statistics and logs -------------------------------------------------------------------


def _in_worker(fn):
    """Run fn() in a named thread; re-raise what it raised."""
    result = {}

    def run():
        try:
            result["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            result["exc"] = exc

    t = threading.Thread(target=run, name="producer-worker")
    t.start()
    t.join(120)
    assert not t.is_alive()
    if "exc" in result:
        raise result["exc"]
    return result["value"], t.ident


def test_stats_cb_served_in_poll(kafka_cluster, topic):
    def work():
        gate = Reports()
        stats = []

        def stats_cb(text):
            stats.append((json.loads(text), gate.in_call()))

        p = kafka.Producer(kafka_cluster.client_config(
            {"statistics.interval.ms": 200, "client.id": "stats-probe"}), stats_cb=stats_cb)
        for i in range(3):
            p.produce(topic, value=b"s%d" % i)
        with gate.serving():
            assert p.flush(30) == 0
        # wait (serving) until a statistics report shows the three messages sent
        deadline = time.monotonic() + 30
        while not any(topic in s.get("topics", {}) and s["txmsgs"] == 3 for s, _ in stats):
            assert time.monotonic() < deadline, "no statistics with the messages"
            with gate.serving():
                p.poll(0.25)
        # nothing arrives between calls
        n = len(stats)
        p.list_topics(topic, timeout=10)
        assert len(stats) == n
        p.close()
        return stats

    stats, _ = _in_worker(work)
    assert all(inside for _, inside in stats), "stats_cb ran outside poll()/flush()"
    for s, _ in stats:
        assert s["type"] == "producer"
        assert s["client_id"] == "stats-probe"
        assert s["name"].startswith("stats-probe#producer-")
        assert isinstance(s["ts"], int) and isinstance(s["brokers"], dict)
    final = next(s for s, _ in stats if topic in s["topics"] and s["txmsgs"] == 3)
    assert final["topics"][topic]["partitions"]["0"]["txmsgs"] == 3


class _Collect(logging.Handler):
    def __init__(self, gate):
        super().__init__(logging.DEBUG)
        self.gate = gate
        self.records = []

    def emit(self, record):
        self.records.append((record, self.gate.in_call()))


def test_logger_served_only_in_poll_and_flush(kafka_cluster, topic):
    gate = Reports()
    handler = _Collect(gate)
    logger = logging.getLogger("test_producer.rdkafka." + uuid.uuid4().hex[:8])
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    logger.addHandler(handler)

    def work():
        p = kafka.Producer(kafka_cluster.client_config(
            {"debug": "broker,topic,msg", "client.id": "log-probe"}), logger=logger)
        p.produce(topic, value=b"logged", on_delivery=gate.cb("m"))
        # librdkafka is busy (connecting, metadata) while nothing serves: no record may appear
        p.list_topics(topic, timeout=10)
        assert handler.records == []
        with gate.serving():
            assert p.flush(30) == 0
        deadline = time.monotonic() + 10
        while not any(r.args[0] == "PRODUCE" and "Produce MessageSet with 1 message" in
                      r.getMessage() for r, _ in handler.records):
            assert time.monotonic() < deadline, "no produce-related log record"
            with gate.serving():
                p.poll(0.2)
        with gate.serving():
            p.close()
        return len(handler.records)

    try:
        n, worker = _in_worker(work)
    finally:
        logger.removeHandler(handler)
    assert n > 0
    assert [(tag, e) for tag, e, _ in gate.items] == [("m", None)]
    outside = [r.getMessage() for r, inside in handler.records if not inside]
    assert outside == [], "log records emitted outside poll/flush/close"
    for r, _ in handler.records:
        assert r.thread == worker and r.threadName == "producer-worker"
        assert r.name == logger.name
        assert "log-probe#producer-" in r.getMessage()
    assert any(r.levelno == logging.DEBUG for r, _ in handler.records)
    facs = {r.args[0] for r, _ in handler.records}
    assert facs & {"BROKER", "STATE", "CONNECT", "TOPIC", "METADATA", "PRODUCE"}


# -- produce_batch -------------------------------------------------------------------------


def test_produce_batch_round_trip(kafka_cluster, make_topic):
    topic = make_topic(partitions=3)
    reports = Reports()
    messages = []
    for i in range(30):
        item = {"value": b"b-%d" % i, "key": b"k-%d" % i, "partition": i % 3,
                "headers": [("i", b"%d" % i), ("dup", b"a"), ("dup", b"b")],
                "timestamp": 1600000000000 + i}
        if i % 5 == 0:
            item["on_delivery"] = reports.cb(("own", i))
        messages.append(item)
    messages.append({"value": "as-str", "key": "str-key", "partition": 1})
    messages.append({"value": b"plain-bytes"})

    p = kafka.Producer(kafka_cluster.client_config())
    n = p.produce_batch(topic, messages, partition=2, on_delivery=reports.cb("batch"))
    assert n == len(messages)
    assert not any("_error" in m for m in messages)
    with reports.serving():
        assert p.flush(30) == 0
    p.close()

    assert reports.misplaced == []
    by_value = {}
    for tag, err, m in reports.items:
        assert err is None
        assert m.value() not in by_value, "report served twice"
        by_value[m.value()] = (tag, m)
    assert len(by_value) == len(messages)
    for i in range(30):
        tag, m = by_value[b"b-%d" % i]
        assert tag == (("own", i) if i % 5 == 0 else "batch")
        assert (m.key(), m.partition()) == (b"k-%d" % i, i % 3)
        assert m.timestamp() == (kafka.TIMESTAMP_CREATE_TIME, 1600000000000 + i)
    assert by_value[b"as-str"][1].partition() == 1
    assert by_value[b"plain-bytes"][1].partition() == 2   # the call's partition

    got = read_topic(kafka, kafka_cluster, topic, partitions=3)
    assert len(got) == len(messages)
    for m in got:
        tag, dm = by_value[m.value()]
        assert (m.partition(), m.offset(), m.key()) == (dm.partition(), dm.offset(), dm.key())
        if m.value().startswith(b"b-"):
            i = int(m.value()[2:])
            assert m.headers() == [("i", b"%d" % i), ("dup", b"a"), ("dup", b"b")]
            assert m.timestamp() == (kafka.TIMESTAMP_CREATE_TIME, 1600000000000 + i)
        else:
            assert m.headers() is None
    assert {m.value(): m.key() for m in got}[b"as-str"] == b"str-key"


def test_produce_batch_reports_per_item_errors(kafka_cluster, topic):
    reports = Reports()
    messages = [{"value": b"ok-0"}, {"value": b"bad", "partition": 9}, {"value": b"ok-1"}]
    p = kafka.Producer(kafka_cluster.client_config())
    n = p.produce_batch(topic, messages, on_delivery=reports.cb())
    with reports.serving():
        assert p.flush(30) == 0
    p.close()
    # an unknown partition is either refused at once (item['_error']) or fails in its report
    refused = [m["value"] for m in messages if "_error" in m]
    failed = [m.value() for _, e, m in reports.items if e is not None]
    assert sorted(refused + failed) == [b"bad"]
    assert n == 3 - len(refused)
    for m in messages:
        if "_error" in m:
            assert m["_error"].code() == KE._UNKNOWN_PARTITION
    for _, e, m in reports.items:
        if e is not None:
            assert e.code() == KE._UNKNOWN_PARTITION
    assert sorted(m.value() for _, e, m in reports.items if e is None) == [b"ok-0", b"ok-1"]


# -- the same code with confluent_kafka -----------------------------------------------------


def test_api_identical_round_trip(mod, kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    reports = []
    p = mod.Producer({"bootstrap.servers": kafka_cluster.bootstrap_servers, "linger.ms": 2})
    for i in range(20):
        p.produce(topic, value="v-%d" % i, key=b"k-%d" % i, partition=i % 2,
                  headers=[("n", b"%d" % i), ("n", None)], timestamp=1650000000000 + i,
                  callback=lambda err, msg: reports.append((err, msg)))
    p.poll(0)
    assert p.flush(30) == 0
    assert len(p) == 0
    assert len(reports) == 20 and all(err is None for err, _ in reports)
    placed = {m.key(): (m.partition(), m.offset(), m.timestamp()) for _, m in reports}

    c = mod.Consumer({"bootstrap.servers": kafka_cluster.bootstrap_servers,
                      "group.id": "compat-" + uuid.uuid4().hex, "auto.offset.reset": "earliest",
                      "enable.auto.commit": False})
    c.subscribe([topic])
    got = {m.key(): m for m in consume_messages(c, 20)}
    c.close()
    for i in range(20):
        m = got[b"k-%d" % i]
        assert m.value() == b"v-%d" % i
        assert m.headers() == [("n", b"%d" % i), ("n", None)]
        assert (m.partition(), m.offset(), m.timestamp()) == placed[b"k-%d" % i]
        assert m.timestamp() == (mod.TIMESTAMP_CREATE_TIME, 1650000000000 + i)
        assert m.partition() == i % 2


def _poller(producer, stop):
    """A thread serving ``producer``'s events (poll()) until ``stop`` is set."""
    def run():
        while not stop.is_set():
            producer.poll(0.005)
    t = threading.Thread(target=run)
    t.start()
    return t


def test_flush_returns_when_another_thread_served_the_last_report(mod, kafka_cluster, topic):
    # flush() waits for an event GIL-free; when another thread (here: flushing too) takes the
    # last delivery report, the count it waits on reaches 0 without an event for it: it must
    # notice soon (librdkafka's own flush looks every 10 ms), not at the end of its wait.
    p = mod.Producer(kafka_cluster.client_config(**{"linger.ms": 0}))
    late = []
    for _ in range(7):
        delivered, returned = [], []

        def flush():
            assert p.flush(30) == 0
            returned.append(time.monotonic())
        p.produce(topic, b"v", on_delivery=lambda err, msg: delivered.append(
            (err, time.monotonic())))
        other = threading.Thread(target=flush)
        other.start()
        flush()
        other.join()
        assert [err for err, _ in delivered] == [None]
        late.append(max(returned) - delivered[0][1])
    # a whole GIL-free wait (200 ms) before, a few ms now, on both libraries
    assert sorted(late)[len(late) // 2] < 0.06, late


def test_produce_waiting_for_room_sees_room_another_thread_made(kafka_cluster, topic):
    # max.block.ms (an extension): produce() waits for room while its queue is full; when
    # another thread's poll() serves the reports that make room, it must try again soon, not
    # wait for an event of its own until max.block.ms ran out.
    p = kafka.Producer(kafka_cluster.client_config(**{
        "max.block.ms": 20000, "queue.buffering.max.messages": 1, "linger.ms": 0}))
    stop = threading.Event()
    poller = _poller(p, stop)
    took = []
    try:
        for i in range(5):
            start = time.monotonic()
            p.produce(topic, b"v%d" % i)     # waits until the previous one's report was served
            took.append(time.monotonic() - start)
        assert p.flush(30) == 0
    finally:
        stop.set()
        poller.join()
    assert max(took) < 5, took
    c = kafka.Consumer(kafka_cluster.client_config(**{
        "group.id": "room-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
    try:
        c.subscribe([topic])
        got = consume_messages(c, 5)
    finally:
        c.close()
    assert [m.value() for m in got] == [b"v%d" % i for i in range(5)]
