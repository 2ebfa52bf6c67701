"""Soak (make soak): 10 M messages produced with delivery callbacks and consumed back, the
process's RSS sampled as it goes; 2,000 clients created and closed. Memory must not grow with
the work done: the RSS slope over the messages stays under 1 MB per million after a warm-up of
the first 30 % (librdkafka's fetch buffers and the allocator's arenas grow to their working size
in steps while the load varies; a leak grows with every message), and
creating and closing clients leaves no memory, threads or file descriptors behind."""
import gc
import os
import threading
import time
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.testing import KafkaCluster

# long by design: no per-test limit of the default suite
pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(3600)]

MESSAGES = int(os.environ.get("SOAK_MESSAGES", 10_000_000))
CLIENTS = int(os.environ.get("SOAK_CLIENTS", 2_000))
ROUND = 500_000
PARTITIONS = 4
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def slope(points):
    """Least-squares slope of [(x, y)]."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    return (sum((x - mx) * (y - my) for x, y in points)
            / sum((x - mx) ** 2 for x, _ in points))


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with KafkaCluster(workdir=tmp_path_factory.mktemp("soak")) as c:
        yield c


def test_ten_million_messages_rss_flat(broker, record_property):
    topic = broker.create_topic("soak-" + uuid.uuid4().hex[:8], partitions=PARTITIONS,
                                config={"retention.ms": "-1"})
    delivered = [0]
    errors = []

    def on_delivery(err, msg):
        if err is None:
            delivered[0] += 1
        else:
            errors.append(err)

    # idempotent: a retried batch cannot land behind a later one, so the order check holds
    # even when the loaded machine makes a produce request time out
    p = kafka.Producer(broker.client_config(**{
        "enable.idempotence": True, "linger.ms": 20, "batch.num.messages": 10_000,
        "compression.type": "lz4", "queue.buffering.max.messages": 500_000}),
        on_delivery=on_delivery)
    c = kafka.Consumer(broker.client_config(**{
        "group.id": uuid.uuid4().hex, "enable.auto.commit": False,
        "fetch.max.bytes": 4 << 20, "queued.max.messages.kbytes": 16384}))
    c.assign([kafka.TopicPartition(topic, i, kafka.OFFSET_BEGINNING) for i in range(PARTITIONS)])
    consumed, expect = 0, [0] * PARTITIONS
    samples = []   # (messages done, RSS MB)
    t0 = time.monotonic()
    for start in range(0, MESSAGES, ROUND):
        stop = min(start + ROUND, MESSAGES)
        for i in range(start, stop):
            while True:
                try:
                    p.produce(topic, b"%d" % i, key=b"%d" % (i % 97), partition=i % PARTITIONS)
                    break
                except BufferError:
                    p.poll(0.05)
            if i % 5000 == 0:
                p.poll(0)
        assert p.flush(120) == 0
        assert errors == [] and delivered[0] == stop, (delivered[0], stop, errors[:3])
        deadline = time.monotonic() + 120
        while consumed < stop:
            assert time.monotonic() < deadline, "consume stalled at %d of %d" % (consumed, stop)
            for m in c.consume(10_000, 1.0):
                assert m.error() is None, m.error()
                part = m.partition()
                # every partition's values come back in the order produced
                assert int(m.value()) == expect[part] * PARTITIONS + part
                expect[part] += 1
                consumed += 1
        samples.append((stop / 1e6, rss_mb()))
    elapsed = time.monotonic() - t0
    p.close()
    c.close()
    assert errors == [] and delivered[0] == MESSAGES and consumed == MESSAGES
    steady = [s for s in samples if s[0] > 0.3 * MESSAGES / 1e6]
    mb_per_million = slope(steady)
    record_property("messages", MESSAGES)
    record_property("seconds", round(elapsed, 1))
    record_property("rss_mb", [round(mb, 1) for _, mb in samples])
    record_property("rss_slope_mb_per_million", round(mb_per_million, 3))
    print("\n%d messages produced (callbacks) and consumed in %.1f s; RSS %.1f -> %.1f MB, "
          "slope after the warm-up %.3f MB per million; samples (M, MB): %s"
          % (MESSAGES, elapsed, samples[0][1], samples[-1][1], mb_per_million,
             [(m, round(mb, 1)) for m, mb in samples]))
    assert mb_per_million <= 1.0, samples


def _resources():
    gc.collect()
    return (rss_mb(), threading.active_count(), len(os.listdir("/proc/self/task")),
            len(os.listdir("/proc/self/fd")))


def test_two_thousand_clients_created_and_closed_leave_nothing(broker, record_property):
    topic = broker.create_topic("soak-clients-" + uuid.uuid4().hex[:8])
    reports = []

    def one(i):
        if i % 2 == 0:
            p = kafka.Producer(broker.client_config(), on_delivery=lambda e, m: reports.append(e))
            p.produce(topic, b"%d" % i)
            assert p.flush(30) == 0
            p.close()
        else:
            c = kafka.Consumer(broker.client_config(**{"group.id": "soak-" + topic}))
            c.assign([kafka.TopicPartition(topic, 0, kafka.OFFSET_BEGINNING)])
            c.consume(1, 0.01)
            c.close()

    warmup = CLIENTS // 10
    for i in range(warmup):
        one(i)
    before = _resources()
    samples = [(warmup, before[0])]
    t0 = time.monotonic()
    for i in range(warmup, CLIENTS):
        one(i)
        if (i + 1) % 200 == 0:
            samples.append((i + 1, rss_mb()))
    elapsed = time.monotonic() - t0
    after = _resources()
    assert len(reports) == CLIENTS // 2 and all(e is None for e in reports)
    kb_per_client = slope(samples) * 1024
    record_property("clients", CLIENTS)
    record_property("seconds", round(elapsed, 1))
    record_property("rss_mb_before_after", (round(before[0], 1), round(after[0], 1)))
    record_property("rss_slope_kb_per_client", round(kb_per_client, 2))
    print("\n%d clients created and closed in %.1f s; RSS %.1f -> %.1f MB (slope %.2f KB per "
          "client); threads %d -> %d, fds %d -> %d"
          % (CLIENTS, elapsed, before[0], after[0], kb_per_client, before[2], after[2],
             before[3], after[3]))
    # no thread and no descriptor is left behind; memory does not grow with the clients
    assert after[1:] == before[1:]
    assert kb_per_client < 2.0, samples
