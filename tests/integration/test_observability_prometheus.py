"""The clients' metrics scraped by a real Prometheus server.

A producer and a consumer, each with its own ``/metrics`` endpoint
(:func:`confluent_binding.metrics.serve_prometheus`), run against the real broker while a
Prometheus process (tests/support/prometheus.py) scrapes both every half second. What an
operator would ask Prometheus, asked through its HTTP API: the sent-message counter adds up to
what was produced (per partition, as the delivery reports place the messages), the consumer lag
is what is left to read once half is committed, and falls to 0 after the consumer caught up.

Also runs the Prometheus example of the observability guide as it is written there.
"""
import collections
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import confluent_binding as kafka
from confluent_binding import metrics

from tests.support import consume_messages
from tests.support.prometheus import PrometheusServer

pytestmark = pytest.mark.integration

if sys.version_info < (3, 10):
    pytest.skip("opentelemetry-exporter-prometheus is pinned for Python 3.10+",
                allow_module_level=True)

COUNT = 300
PARTITIONS = 3
STATS_MS = 200


@pytest.fixture
def endpoints():
    made = []

    def make():
        made.append(metrics.serve_prometheus(0))
        return made[-1]
    yield make
    for e in made:
        e.close()


def _target(endpoint):
    return "127.0.0.1:%d" % endpoint.port


def test_prometheus_sees_sent_messages_and_consumer_lag(kafka_cluster, make_topic, endpoints,
                                                       tmp_path):
    topic = make_topic(PARTITIONS)
    tag = uuid.uuid4().hex[:8]
    producer_id, consumer_id = "obs-p-" + tag, "obs-c-" + tag
    p_end, c_end = endpoints(), endpoints()
    producer = kafka.Producer(metrics.instrument(
        dict(kafka_cluster.client_config(), **{"client.id": producer_id, "linger.ms": 5}),
        p_end, interval_ms=STATS_MS))
    consumer = kafka.Consumer(metrics.instrument(
        dict(kafka_cluster.client_config(), **{
            "client.id": consumer_id, "group.id": "obs-" + tag,
            "auto.offset.reset": "earliest", "enable.auto.commit": False}),
        c_end, interval_ms=STATS_MS))
    try:
        with PrometheusServer(tmp_path / "prometheus",
                              {"producer": [_target(p_end)], "consumer": [_target(c_end)]}) as prom:
            per_partition = collections.Counter()

            def delivered(err, msg):
                assert err is None, err
                per_partition[str(msg.partition())] += 1
            for i in range(COUNT):
                producer.produce(topic, b"v%d" % i, key=b"k%d" % i, on_delivery=delivered)
            assert producer.flush(30) == 0
            assert sum(per_partition.values()) == COUNT and len(per_partition) == PARTITIONS

            sent = 'messaging_client_sent_messages_total{messaging_client_id="%s",' \
                   'messaging_destination_name="%s"}' % (producer_id, topic)
            assert prom.wait_value("sum(%s)" % sent, lambda v: v == COUNT,
                                   serve=lambda: producer.poll(0.05)) == COUNT
            by_partition = prom.query("sum by (messaging_destination_partition_id) (%s)" % sent)
            assert {dict(k)["messaging_destination_partition_id"]: v
                    for k, v in by_partition.items()} == dict(per_partition)
            assert prom.value('up{job="producer"}') == 1
            assert prom.value('sum(kafka_producer_queue_messages{messaging_client_id="%s"})'
                              % producer_id) == 0

            # half read and committed, the rest held back (paused): the lag is the rest
            consumer.subscribe([topic])
            half = COUNT // 2
            next_offsets = {p: 0 for p in range(PARTITIONS)}
            for m in consume_messages(consumer, half):
                # (the furthest read: a rebalance while joining may hand records out again)
                next_offsets[m.partition()] = max(next_offsets[m.partition()], m.offset() + 1)
            behind = COUNT - sum(next_offsets.values())
            consumer.pause(consumer.assignment())
            # every partition committed (one left unread at 0), so each has a known lag
            consumer.commit(offsets=[kafka.TopicPartition(topic, p, o)
                                     for p, o in next_offsets.items()], asynchronous=False)
            lag = 'kafka_consumer_lag{messaging_client_id="%s",messaging_destination_name="%s"}' \
                  % (consumer_id, topic)

            def serve_consumer():
                assert consumer.poll(0.05) is None    # paused: nothing more is read

            assert prom.wait_value("sum(%s)" % lag, lambda v: v == behind,
                                   serve=serve_consumer) == behind
            assert prom.value("count(%s)" % lag) == PARTITIONS

            # caught up: the lag falls to 0 on every partition
            consumer.resume(consumer.assignment())
            consume_messages(consumer, behind)
            consumer.commit(asynchronous=False)
            assert prom.wait_value("max(%s)" % lag, lambda v: v == 0,
                                   serve=lambda: consumer.poll(0.05)) == 0
            assert prom.value("sum(%s)" % lag) == 0
            consumed = 'sum(messaging_client_consumed_messages_total{messaging_client_id="%s",' \
                       'messaging_destination_name="%s"})' % (consumer_id, topic)
            # received from the broker: at least every message; those fetched before the pause
            # and dropped by it were fetched again after resume, and count again
            assert prom.wait_value(consumed, lambda v: v >= COUNT,
                                   serve=lambda: consumer.poll(0.05)) >= COUNT
            assert prom.value('up{job="consumer"}') == 1
    finally:
        consumer.close()
        producer.flush(10)


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "observability.md"


def guide_block(heading):
    """The first Python block under a heading of the observability guide."""
    text = GUIDE.read_text()
    section = text[text.index("\n## %s\n" % heading):]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_guide_prometheus_example_runs(kafka_cluster, make_topic):
    if kafka_cluster.client_config() != {"bootstrap.servers": kafka_cluster.bootstrap_servers}:
        pytest.skip("the guide's example takes bootstrap servers only")
    code = guide_block("Prometheus example")
    for old, new in (('"localhost:9092"', repr(kafka_cluster.bootstrap_servers)),
                     ('"events"', repr(make_topic())), ("serve_prometheus(9464)",
                                                         "serve_prometheus(0)")):
        assert old in code
        code = code.replace(old, new)
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120,
                          cwd=str(GUIDE.parents[2]))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["sent 100.0"]
