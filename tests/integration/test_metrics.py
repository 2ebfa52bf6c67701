"""confluent_binding.metrics against the real broker: the parsed statistics, the OpenTelemetry
instruments read through the SDK's in-memory reader for the sync, asyncio and aiokafka-style
clients (turned on by one line each), the error counter, and librdkafka's logs routed through
``logging`` (one logger per client; the same object works as confluent-kafka's ``logger``).
"""
import asyncio
import importlib
import logging
import sys
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding import metrics
from confluent_binding.testing._process import free_ports

from tests.support import consume_messages
from tests.support.sequences import wait_for

pytestmark = pytest.mark.integration

if sys.version_info < (3, 10):
    pytest.skip("the OpenTelemetry SDK the tests read the metrics with is pinned for "
                "Python 3.10+", allow_module_level=True)

from opentelemetry.sdk import metrics as sdk_metrics  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402

STATS_MS = 100


@pytest.fixture
def reader():
    r = InMemoryMetricReader()
    provider = sdk_metrics.MeterProvider(metric_readers=[r])
    r.provider = provider
    yield r
    provider.shutdown()


def points(reader, name, **attrs):
    """{partition or broker attributes: value} of the instrument ``name``'s data points whose
    attributes include ``attrs`` (dots in attribute names given as ``__``)."""
    want = {k.replace("__", "."): v for k, v in attrs.items()}
    data = reader.get_metrics_data()
    out = {}
    for rm in (data.resource_metrics if data else ()):
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                if m.name != name:
                    continue
                for dp in m.data.data_points:
                    a = dict(dp.attributes)
                    if all(a.get(k) == v for k, v in want.items()):
                        out[tuple(sorted(a.items()))] = dp.value
    return out


def total(reader, name, **attrs):
    return sum(points(reader, name, **attrs).values())


def test_parsed_statistics_of_a_producer_and_consumer(kafka_cluster, make_topic):
    topic = make_topic(2)
    samples = []
    cid = "parsed-" + uuid.uuid4().hex[:6]
    p = kafka.Producer(dict(kafka_cluster.client_config(), **{
        "client.id": cid, "statistics.interval.ms": STATS_MS,
        "stats_cb": metrics.parsed_stats_cb(samples.append)}))
    for i in range(10):
        p.produce(topic, b"x" * 10, partition=i % 2)
    assert p.flush(30) == 0
    wait_for("a sample with every message sent and delivered",
             lambda: samples and sum(x.sent for x in samples[-1].partitions()) == 10
             and samples[-1].msg_cnt == 0, 30,
             lambda: p.poll(0.05), lambda: repr(samples[-1:]))
    s = samples[-1]
    assert isinstance(s, metrics.Statistics)
    assert (s.client_id, s.type, s.name.startswith(cid + "#producer-")) == (cid, "producer", True)
    assert s.txmsgs >= 10 and s.tx > 0
    t = s.topics[topic]
    assert sorted(t.partitions) == [0, 1]            # librdkafka's -1 partition left out
    # each message counted once in ``sent``; txmsgs counts one sent again again
    assert [(x.partition, x.sent, x.msgs, x.txmsgs >= 5, x.txbytes >= 50)
            for x in s.partitions()] == [(0, 5, 5, True, True), (1, 5, 5, True, True)]
    learned = [b for b in s.brokers.values() if b.source == "learned"]
    assert learned and all(b.nodeid >= 0 and b.state == "UP" for b in learned)
    assert any(b.rtt.cnt > 0 and b.rtt.avg > 0 for b in learned)
    assert isinstance(learned[0].rtt, metrics.Window)
    assert s.raw["client_id"] == cid and s.cgrp is None

    samples.clear()
    c = kafka.Consumer(dict(kafka_cluster.client_config(), **{
        "group.id": "parsed-" + uuid.uuid4().hex[:6], "auto.offset.reset": "earliest",
        "statistics.interval.ms": STATS_MS, "stats_cb": metrics.parsed_stats_cb(samples.append)}))
    try:
        c.subscribe([topic])
        consume_messages(c, 10)
        c.commit(asynchronous=False)
        wait_for("a sample with the commits", lambda: samples and topic in samples[-1].topics and
                 all(x.committed_offset == 5 for x in samples[-1].topics[topic].partitions.values())
                 and len(samples[-1].topics[topic].partitions) == 2, 30, lambda: c.poll(0.05))
        s = samples[-1]
        assert s.type == "consumer" and s.cgrp is not None and s.cgrp.assignment_size == 2
        assert [(x.partition, x.consumer_lag, x.hi_offset, x.rxmsgs) for x in s.partitions()] == \
            [(0, 0, 5, 5), (1, 0, 5, 5)]
    finally:
        c.close()


def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="JSON object"):
        metrics.parse_statistics("[1, 2]")
    with pytest.raises(ValueError):
        metrics.parse_statistics("{not json")
    with pytest.raises(TypeError, match="callable"):
        metrics.parsed_stats_cb("print")
    with pytest.raises(ValueError, match="positive"):
        metrics.instrument({"statistics.interval.ms": 0})
    with pytest.raises(ValueError, match="whole number"):
        metrics.instrument({}, interval_ms="often")
    with pytest.raises(TypeError, match="stats_cb must be callable"):
        metrics.instrument({"stats_cb": 3})


def test_sync_clients_metrics_and_user_callbacks_kept(kafka_cluster, make_topic, reader):
    topic = make_topic(3)
    raw, errors = [], []
    cid = "m-sync-" + uuid.uuid4().hex[:6]
    p = kafka.Producer(metrics.instrument(dict(kafka_cluster.client_config(), **{
        "client.id": cid, "stats_cb": raw.append, "error_cb": errors.append}),
        reader.provider, interval_ms=STATS_MS))
    for i in range(30):
        p.produce(topic, b"v", key=b"%d" % i)
    assert p.flush(30) == 0
    wait_for("30 sent messages and an empty queue", lambda: total(
        reader, "messaging.client.sent.messages", messaging__client__id=cid) == 30 and total(
        reader, "kafka.producer.queue.messages", messaging__client__id=cid) == 0, 30,
        lambda: p.poll(0.05))
    sent = points(reader, "messaging.client.sent.messages", messaging__client__id=cid)
    assert {dict(k)["messaging.destination.name"] for k in sent} == {topic}
    assert sorted(dict(k)["messaging.destination.partition.id"] for k in sent) == ["0", "1", "2"]
    assert all(dict(k)["messaging.system"] == "kafka" for k in sent)
    rtt = points(reader, "kafka.broker.rtt", messaging__client__id=cid)
    assert rtt and all(v >= 0 for v in rtt.values()) and max(rtt.values()) < 5
    assert all("kafka.broker.name" in dict(k) for k in rtt)
    assert raw and isinstance(raw[-1], str) and '"client_id"' in raw[-1]   # raw JSON, as before
    assert errors == []

    gid = "m-sync-" + uuid.uuid4().hex[:6]
    c = kafka.Consumer(metrics.instrument(dict(kafka_cluster.client_config(), **{
        "client.id": gid, "group.id": gid, "auto.offset.reset": "earliest"}),
        reader.provider, interval_ms=STATS_MS))
    try:
        c.subscribe([topic])
        consume_messages(c, 30)
        c.commit(asynchronous=False)
        wait_for("the consumer's counters", lambda: total(
            reader, "messaging.client.consumed.messages", messaging__client__id=gid) == 30
            and len(points(reader, "kafka.consumer.lag", messaging__client__id=gid)) == 3
            and total(reader, "kafka.consumer.lag", messaging__client__id=gid) == 0, 30,
            lambda: c.poll(0.05))
        assert total(reader, "kafka.consumer.offset.committed", messaging__client__id=gid) == 30
        assert total(reader, "kafka.consumer.group.assigned_partitions",
                     messaging__client__id=gid) == 3
    finally:
        c.close()


def test_error_counter_by_code(reader):
    (port,) = free_ports(1)     # nothing listens there
    errors = []
    cid = "m-err-" + uuid.uuid4().hex[:6]
    p = kafka.Producer(metrics.instrument({"bootstrap.servers": "127.0.0.1:%d" % port,
                                           "client.id": cid, "error_cb": errors.append,
                                           "log_level": 0}, reader.provider))
    wait_for("an error", lambda: errors, 30, lambda: p.poll(0.1))
    counted = points(reader, "kafka.client.errors", messaging__client__id=cid)
    by_type = {dict(k)["error.type"]: v for k, v in counted.items()}
    assert sum(by_type.values()) == len(errors)
    assert set(by_type) == {e.name() for e in errors}
    assert by_type.keys() & {"_TRANSPORT", "_ALL_BROKERS_DOWN"}


def test_asyncio_and_aiokafka_clients(kafka_cluster, make_topic, reader):
    from confluent_binding.aio import AIOProducer
    from confluent_binding.aiokafka import AIOKafkaProducer

    topic = make_topic(1)
    tag = uuid.uuid4().hex[:6]

    async def run():
        samples = []

        async def user_stats(text):      # a coroutine stats_cb keeps working
            samples.append(text)
        aio = AIOProducer(metrics.instrument(dict(kafka_cluster.client_config(), **{
            "client.id": "m-aio-" + tag, "stats_cb": user_stats}), reader.provider,
            interval_ms=STATS_MS))
        try:
            for i in range(7):
                await (await aio.produce(topic, b"a%d" % i))
            for _ in range(600):
                if total(reader, "messaging.client.sent.messages",
                         messaging__client__id="m-aio-" + tag) == 7 and samples:
                    break
                await asyncio.sleep(0.05)    # the asyncio client polls on the loop meanwhile
        finally:
            await aio.close()

        ak = AIOKafkaProducer(bootstrap_servers=kafka_cluster.bootstrap_servers,
                              client_id="m-ak-" + tag,
                              extra=dict(kafka_cluster.client_config(), **metrics.instrument(
                                  {}, reader.provider, interval_ms=STATS_MS)))
        await ak.start()
        try:
            for i in range(4):
                await ak.send_and_wait(topic, b"b%d" % i)
            for _ in range(600):
                if total(reader, "messaging.client.sent.messages",
                         messaging__client__id="m-ak-" + tag) == 4:
                    break
                await asyncio.sleep(0.05)
        finally:
            await ak.stop()
        return samples

    samples = asyncio.run(run())
    assert samples and isinstance(samples[0], str)
    assert total(reader, "messaging.client.sent.messages", messaging__client__id="m-aio-" + tag,
                 messaging__destination__name=topic) == 7
    assert total(reader, "messaging.client.sent.messages", messaging__client__id="m-ak-" + tag,
                 messaging__destination__name=topic) == 4


@pytest.mark.parametrize("modname", ["confluent_binding", "confluent_kafka"])
def test_route_logs_one_logger_per_client(modname, caplog):
    mod = importlib.import_module(modname)
    (port,) = free_ports(1)
    cid = "m-log-" + uuid.uuid4().hex[:6]
    p = mod.Producer(metrics.route_logs({"bootstrap.servers": "127.0.0.1:%d" % port,
                                         "client.id": cid}))
    name = metrics.LOGGER_PREFIX + "." + cid + "#producer-"
    with caplog.at_level(logging.DEBUG, logger=metrics.LOGGER_PREFIX):
        wait_for("a connection failure logged", lambda: any(
            r.name.startswith(name) and "Connection refused" in r.getMessage()
            for r in caplog.records), 30, lambda: p.poll(0.1))
    fail = [r for r in caplog.records if r.name.startswith(name) and "[FAIL]" in r.getMessage()]
    assert fail and fail[0].levelno == logging.ERROR       # librdkafka's level 3
    assert fail[0].getMessage().startswith("[FAIL] ")
    assert "127.0.0.1:%d" % port in fail[0].getMessage()
    p.flush(0)
