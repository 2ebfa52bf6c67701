"""Many threads on the clients at once, against a real broker: a shared Producer fed by several
threads while others serve its delivery reports (poll() and flush() from several threads), one
Consumer per thread on a shared topic and on topics of their own, close() racing poll() and
consume() on another thread, and one AdminClient used by many threads. One client shared by
threads at once: a Consumer polled and consumed from several threads (each message handed out
exactly once), close() racing poll()/consume()/commit() and produce()/poll()/flush(), and
store_offsets()/seek()/pause() from one thread while another polls.

The same tests run with the GIL and on free-threaded CPython (3.13t, `make matrix`), where
nothing serialises the threads but the clients themselves. Every message is accounted for by
key, partition, offset and bytes: none lost, none delivered or read twice; every thread ends
within a bound. `--slow` runs each scenario more times over (ROUNDS_SLOW)."""

import threading
import time
import uuid
from collections import Counter

import pytest

import confluent_binding as kafka
from confluent_binding import TopicCollection, TopicPartition
from confluent_binding.admin import AdminClient, NewTopic

from tests.support import consume_messages, wait_until

pytestmark = pytest.mark.integration

ROUNDS_SLOW = 5
JOIN = 60.0  # seconds any worker thread may take before the test calls it hung

rounds = pytest.mark.parametrize(
    "rounds", [1, pytest.param(ROUNDS_SLOW, marks=pytest.mark.slow, id="repeated")])


def _value(thread, i):
    # Lengths vary with i, so a value handed to the wrong report would show in its bytes.
    return b"%d:%d:" % (thread, i) + bytes([65 + thread % 26]) * (i % 97)


class _Workers:
    """Threads whose exceptions are kept and re-raised on the test's thread, and that must all
    end within JOIN seconds."""

    def __init__(self):
        self.threads = []
        self.errors = []

    def start(self, fn, *args, name=None):
        def body():
            try:
                fn(*args)
            except BaseException as exc:  # re-raised by join() on the test's thread
                self.errors.append(exc)

        t = threading.Thread(target=body, name=name, daemon=True)
        self.threads.append(t)
        t.start()
        return t

    def join(self):
        deadline = time.monotonic() + JOIN
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))
        hung = [t.name for t in self.threads if t.is_alive()]
        assert not hung, "threads still running after %.0f s: %s" % (JOIN, hung)
        if self.errors:
            raise self.errors[0]


def _fill(kafka_cluster, topic, count, partition=None):
    """Produce count messages (key b"k<i>", value _value(0, i)) and wait for every report.
    Idempotent, so that message i is at offset i (the readers check it): without it, a batch
    retried on a topic just created (its leader not known at once) lands after later ones."""
    p = kafka.Producer(kafka_cluster.client_config(**{"linger.ms": 5,
                                                      "enable.idempotence": True}))
    failed = []

    def report(err, msg):
        if err is not None:
            failed.append(err)

    for i in range(count):
        kw = {} if partition is None else {"partition": partition}
        p.produce(topic, value=_value(0, i), key=b"k%d" % i, on_delivery=report, **kw)
        if i % 1000 == 0:
            p.poll(0)
    assert p.flush(30) == 0
    p.close()
    assert failed == []


# ---- one Producer, many threads ---------------------------------------------------------------

@rounds
def test_one_producer_many_threads_every_report_once(kafka_cluster, make_topic, rounds):
    threads, per_thread, partitions = 8, 2500, 3
    for _ in range(rounds):
        topic = make_topic(partitions=partitions)
        producer = kafka.Producer(kafka_cluster.client_config(**{"linger.ms": 2}))
        reports = []          # list.append is atomic with or without the GIL
        served_by = Counter()
        lock = threading.Lock()
        producing = threading.Event()

        def on_delivery(err, msg):
            reports.append((err, msg.key(), msg.value(), msg.partition(), msg.offset()))
            with lock:
                served_by[threading.current_thread().name] += 1

        def produce(t):
            for i in range(per_thread):
                while True:
                    try:
                        producer.produce(topic, value=_value(t, i), key=b"%d-%d" % (t, i),
                                         on_delivery=on_delivery)
                        break
                    except BufferError:
                        producer.poll(0.01)
                if i % 100 == 0:
                    producer.poll(0)
            # every producing thread flushes: flush() from several threads at once
            assert producer.flush(30) == 0

        def serve():
            while producing.is_set():
                producer.poll(0.05)

        producing.set()
        w = _Workers()
        for t in range(2):
            w.start(serve, name="poller-%d" % t)
        producers = _Workers()
        for t in range(threads):
            producers.start(produce, t, name="producer-%d" % t)
        producers.join()
        producing.clear()
        w.join()
        assert producer.flush(10) == 0
        assert len(producer) == 0
        producer.close()

        total = threads * per_thread
        assert len(reports) == total
        assert [r for r in reports if r[0] is not None] == []
        by_key = {key: (value, p, o) for _, key, value, p, o in reports}
        assert len(by_key) == total, "a delivery report came twice"
        for t in range(threads):
            for i in range(per_thread):
                value, _, _ = by_key[b"%d-%d" % (t, i)]
                assert value == _value(t, i)
        for p in range(partitions):
            offsets = sorted(o for _, part, o in by_key.values() if part == p)
            assert offsets == list(range(len(offsets))), "partition %d has gaps" % p
        # reports were served by the pollers and the flushing producer threads, nobody else
        assert set(served_by) <= {"poller-0", "poller-1"} | {"producer-%d" % t
                                                             for t in range(threads)}

        # the broker holds exactly those bytes at those places
        consumer = kafka.Consumer(kafka_cluster.client_config(**{
            "group.id": "stress-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
        consumer.subscribe([topic])
        got = consume_messages(consumer, total)
        consumer.close()
        assert {m.key(): (m.value(), m.partition(), m.offset()) for m in got} == by_key
        assert len(got) == total


# ---- one Consumer per thread ------------------------------------------------------------------

def _drain(consumer, want, batch, got):
    """Read until want messages arrived (poll() when batch is 0, else consume(batch))."""
    end = time.monotonic() + JOIN - 10
    while len(got) < want:
        assert time.monotonic() < end, "read %d of %d" % (len(got), want)
        msgs = consumer.consume(batch, 0.2) if batch else [consumer.poll(0.2)]
        for m in msgs:
            if m is None:
                continue
            assert m.error() is None, m.error()
            got.append((m.topic(), m.partition(), m.offset(), m.key(), m.value()))


@rounds
def test_consumer_per_thread_on_one_topic_partitions_assigned(kafka_cluster, make_topic, rounds):
    partitions, per_partition = 4, 3000
    topic = make_topic(partitions=partitions)
    for p in range(partitions):
        _fill(kafka_cluster, topic, per_partition, partition=p)
    for _ in range(rounds):
        results = [[] for _ in range(partitions)]

        def read(p):
            c = kafka.Consumer(kafka_cluster.client_config(**{
                "group.id": "stress-" + uuid.uuid4().hex, "enable.auto.commit": False}))
            c.assign([TopicPartition(topic, p, 0)])
            _drain(c, per_partition, 500 if p % 2 else 0, results[p])
            c.close()

        w = _Workers()
        for p in range(partitions):
            w.start(read, p, name="consumer-%d" % p)
        w.join()
        for p in range(partitions):
            assert len(results[p]) == per_partition
            assert [r[2] for r in results[p]] == list(range(per_partition))
            for _, part, offset, key, value in results[p]:
                assert part == p
                assert key == b"k%d" % offset
                assert value == _value(0, offset)


@rounds
def test_consumer_per_thread_each_in_its_group_on_its_topic(kafka_cluster, make_topic, rounds):
    threads, per_topic = 4, 3000
    topics = [make_topic(partitions=2) for _ in range(threads)]
    for topic in topics:
        _fill(kafka_cluster, topic, per_topic)
    for _ in range(rounds):
        results = [[] for _ in range(threads)]

        def read(t):
            c = kafka.Consumer(kafka_cluster.client_config(**{
                "group.id": "stress-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
            c.subscribe([topics[t]])
            _drain(c, per_topic, 0 if t % 2 else 700, results[t])
            c.close()

        w = _Workers()
        for t in range(threads):
            w.start(read, t, name="consumer-%d" % t)
        w.join()
        for t in range(threads):
            seen = {(part, offset): (top, key, value)
                    for top, part, offset, key, value in results[t]}
            assert len(seen) == len(results[t]) == per_topic, "a message was read twice"
            keys = sorted(int(key[1:]) for top, key, value in seen.values())
            assert keys == list(range(per_topic))
            for top, key, value in seen.values():
                assert top == topics[t]
                assert value == _value(0, int(key[1:]))


# ---- close() racing the calls of another thread ------------------------------------------------

@rounds
@pytest.mark.parametrize("call", ["poll", "consume", "commit"])
def test_consumer_close_racing_a_reading_thread(kafka_cluster, make_topic, rounds, call):
    topic = make_topic(partitions=2)
    _fill(kafka_cluster, topic, 2000)
    for attempt in range(4 * rounds):
        c = kafka.Consumer(kafka_cluster.client_config(**{
            "group.id": "stress-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
        c.subscribe([topic])
        read = []
        reading = threading.Event()
        ended = []

        def reader():
            try:
                while True:
                    if call == "consume":
                        got = c.consume(50, 0.05)
                    else:
                        m = c.poll(0.05)
                        got = [] if m is None else [m]
                        if m is not None and call == "commit":
                            # a synchronous commit: a GIL-free wait close() must not free
                            # the consumer under
                            committed = c.commit(message=m, asynchronous=False)
                            assert committed[0].offset == m.offset() + 1
                    for m in got:
                        assert m.error() is None, m.error()
                        read.append((m.partition(), m.offset(), m.value()))
                    if read:
                        reading.set()
            except RuntimeError as exc:   # the clear end: "Consumer closed"
                ended.append(exc)

        w = _Workers()
        w.start(reader, name="reader")
        assert reading.wait(30), "the reader got nothing"
        # vary where close() lands in the reader's loop
        if attempt % 2:
            time.sleep(0.001 * attempt)
        started = time.monotonic()
        c.close()
        assert time.monotonic() - started < 15, "close() took too long"
        w.join()
        assert len(ended) == 1 and "closed" in str(ended[0])
        # whatever was read before close() is intact and read once
        assert len({(p, o) for p, o, _ in read}) == len(read)
        for _, _, value in read:
            assert value.count(b":") == 2
        with pytest.raises(RuntimeError):
            c.poll(0)


@rounds
@pytest.mark.parametrize("serve", ["poll", "flush"])
def test_producer_close_racing_poll_and_produce(kafka_cluster, make_topic, rounds, serve):
    topic = make_topic(partitions=1)
    for _ in range(3 * rounds):
        # close() delivers what is queued first: a queue of at most 5,000 keeps that within the
        # bound below on a loaded machine (librdkafka's default of 100,000 did not, once)
        producer = kafka.Producer(kafka_cluster.client_config(
            **{"linger.ms": 1, "queue.buffering.max.messages": 5000}))
        reports = []
        ended = {}
        busy = threading.Barrier(3)
        delivered = threading.Event()

        def on_delivery(err, msg):
            reports.append((err, msg.offset()))
            if len(reports) >= 500:
                delivered.set()

        def producing():
            busy.wait(10)
            i = 0
            try:
                while True:
                    try:
                        producer.produce(topic, value=_value(1, i), on_delivery=on_delivery)
                        i += 1
                    except BufferError:
                        producer.poll(0.01)
            except RuntimeError as exc:
                ended["producer"] = (exc, i)

        def polling():
            busy.wait(10)
            try:
                while True:
                    if serve == "poll":
                        producer.poll(0.01)
                    else:
                        producer.flush(0.01)
            except RuntimeError as exc:
                ended["poller"] = (exc, None)

        w = _Workers()
        w.start(producing, name="producer")
        w.start(polling, name="poller")
        busy.wait(10)
        assert delivered.wait(30), "no deliveries"
        started = time.monotonic()
        producer.close()
        assert time.monotonic() - started < 15, "close() took too long"
        w.join()
        assert set(ended) == {"producer", "poller"}
        for exc, _ in ended.values():
            assert "closed" in str(exc)
        # a report is served at most once; those that came are in offset order of delivery
        ok = [o for e, o in reports if e is None]
        assert len(set(ok)) == len(ok)
        assert len(reports) <= ended["producer"][1]


# ---- one Consumer shared by several threads ---------------------------------------------------

@rounds
@pytest.mark.parametrize("threads", [2, 4])
def test_one_consumer_shared_by_threads_hands_out_each_message_once(kafka_cluster, make_topic,
                                                                      rounds, threads):
    partitions, per_partition = 3, 2000
    total = partitions * per_partition
    topic = make_topic(partitions=partitions)
    for p in range(partitions):
        _fill(kafka_cluster, topic, per_partition, partition=p)
    for _ in range(rounds):
        c = kafka.Consumer(kafka_cluster.client_config(**{
            "group.id": "stress-" + uuid.uuid4().hex, "enable.auto.commit": False}))
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        got = [[] for _ in range(threads)]     # each thread's own list, in its order
        lock = threading.Lock()
        count = [0]

        def read(t):
            # even threads poll(), odd ones consume() batches: both share one custody
            end = time.monotonic() + JOIN - 10
            while True:
                with lock:
                    if count[0] >= total:
                        return
                assert time.monotonic() < end, "read %d of %d" % (count[0], total)
                msgs = c.consume(97, 0.1) if t % 2 else [c.poll(0.1)]
                msgs = [m for m in msgs if m is not None]
                for m in msgs:
                    assert m.error() is None, m.error()
                    got[t].append((m.partition(), m.offset(), m.key(), m.value()))
                with lock:
                    count[0] += len(msgs)

        w = _Workers()
        for t in range(threads):
            w.start(read, t, name="reader-%d" % t)
        w.join()
        # no message arrives after the last one: what every thread got is all there is
        assert c.poll(0.5) is None
        c.close()
        every = [r for rs in got for r in rs]
        assert len(every) == total
        assert len({(p, o) for p, o, _, _ in every}) == total, "a message was handed out twice"
        for p, o, key, value in every:
            assert key == b"k%d" % o
            assert value == _value(0, o)
        # each thread saw each partition's messages in offset order
        for rs in got:
            for p in range(partitions):
                offsets = [o for part, o, _, _ in rs if part == p]
                assert offsets == sorted(offsets)


@rounds
def test_offsets_seek_and_pause_from_another_thread_while_polling(kafka_cluster, make_topic,
                                                                  rounds):
    count = 3000
    topic = make_topic(partitions=1)
    _fill(kafka_cluster, topic, count, partition=0)
    for _ in range(rounds):
        group = "stress-" + uuid.uuid4().hex
        c = kafka.Consumer(kafka_cluster.client_config(**{
            "group.id": group, "enable.auto.commit": False,
            "enable.auto.offset.store": False}))
        tp = TopicPartition(topic, 0, 0)
        c.assign([tp])
        seen = {}                  # offset -> value
        first = threading.Event()
        meddled = threading.Event()
        stored = []

        def poller():
            end = time.monotonic() + JOIN - 10
            while not (meddled.is_set() and len(seen) == count):
                assert time.monotonic() < end, "read %d of %d" % (len(seen), count)
                m = c.poll(0.05)
                if m is None:
                    continue
                assert m.error() is None, m.error()
                assert m.partition() == 0
                seen[m.offset()] = m.value()
                first.set()

        def meddler():
            assert first.wait(30), "the poller got nothing"
            for i in range(60):
                c.pause([TopicPartition(topic, 0)])
                c.resume([TopicPartition(topic, 0)])
                offset = 1 + (i * 37) % count
                c.store_offsets(offsets=[TopicPartition(topic, 0, offset)])
                stored.append(offset)
                if i % 6 == 0:
                    # back to the start: read again, nothing skipped
                    c.seek(TopicPartition(topic, 0, 0))
            committed = c.commit(asynchronous=False)
            assert [(t.topic, t.partition, t.offset) for t in committed] == [
                (topic, 0, stored[-1])]
            meddled.set()

        w = _Workers()
        w.start(poller, name="poller")
        w.start(meddler, name="meddler")
        w.join()
        assert sorted(seen) == list(range(count))
        for offset, value in seen.items():
            assert value == _value(0, offset)
        assert c.committed([TopicPartition(topic, 0)], timeout=30)[0].offset == stored[-1]
        c.close()


# ---- one AdminClient, many threads --------------------------------------------------------------

@rounds
def test_admin_client_from_many_threads(kafka_cluster, rounds):
    threads, per_thread = 6, 3
    admin = AdminClient(kafka_cluster.client_config())
    try:
        for _ in range(rounds):
            run = uuid.uuid4().hex[:8]
            described = {}

            def work(t):
                names = ["stress-admin-%s-%d-%d" % (run, t, j) for j in range(per_thread)]
                created = admin.create_topics(
                    [NewTopic(n, num_partitions=1 + j, replication_factor=1)
                     for j, n in enumerate(names)], operation_timeout=30)
                assert sorted(created) == sorted(names)
                for f in created.values():
                    assert f.result(60) is None
                end = time.monotonic() + 30
                while True:  # metadata reaches the describe after the create returns
                    futs = admin.describe_topics(TopicCollection(names))
                    try:
                        descs = {n: f.result(60) for n, f in futs.items()}
                        break
                    except kafka.KafkaException:
                        assert time.monotonic() < end, "topics not described within 30 s"
                for n, d in descs.items():
                    described[n] = (d.name, len(d.partitions))
                deleted = admin.delete_topics(names, operation_timeout=30)
                assert sorted(deleted) == sorted(names)
                for f in deleted.values():
                    assert f.result(60) is None

            w = _Workers()
            for t in range(threads):
                w.start(work, t, name="admin-%d" % t)
            w.join()
            assert described == {"stress-admin-%s-%d-%d" % (run, t, j):
                                 ("stress-admin-%s-%d-%d" % (run, t, j), 1 + j)
                                 for t in range(threads) for j in range(per_thread)}
            # the deletions reach the metadata the cluster serves
            listed = [set(described)]

            def refresh():
                listed[0] = set(admin.list_topics(timeout=30).topics)

            assert wait_until(lambda: not set(described) & listed[0], refresh, timeout=30)
    finally:
        admin.close()

