"""confluent_binding.metrics.trace() against the real broker, spans read through OpenTelemetry's
in-memory exporter: a produced message's ``send`` span (PRODUCER) ends with its delivery report
and its context travels in the record's ``traceparent`` header; the consumed record's
``process`` span (CONSUMER) is linked to it (and its child when no span is current); a failed
delivery ends its span with an error status; the same through the sync, asyncio and
aiokafka-style clients; and a client not traced adds no header and makes no span.
"""
import asyncio
import subprocess
import sys
import uuid

import pytest

import confluent_binding as kafka
from confluent_binding import metrics

from tests.support import consume_messages, unreachable

pytestmark = pytest.mark.integration

if sys.version_info < (3, 10):
    pytest.skip("the OpenTelemetry SDK the tests read the spans with is pinned for Python 3.10+",
                allow_module_level=True)

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    exporter.provider = provider
    yield exporter
    provider.shutdown()


def finished(exporter, kind):
    return [s for s in exporter.get_finished_spans() if s.kind == kind]


def traceparent(span):
    c = span.context
    return "00-%032x-%016x-%02x" % (c.trace_id, c.span_id, c.trace_flags)


def header(headers, name):
    values = [v for k, v in (headers or ()) if k == name]
    assert len(values) == 1, headers
    return values[0].decode()


def check_pair(send, process, topic, partition, offset, key=None):
    """The consumer's span of a record and the producer's span of it: the conventions'
    attributes, and the record's creation context as the link and the parent."""
    assert send.name == "send " + topic and send.kind == SpanKind.PRODUCER
    assert send.status.status_code == StatusCode.UNSET
    a = dict(send.attributes)
    assert a["messaging.system"] == "kafka"
    assert a["messaging.operation.name"] == "send"
    assert a["messaging.destination.name"] == topic
    assert a["messaging.destination.partition.id"] == str(partition)
    assert a["messaging.kafka.offset"] == offset
    assert "error.type" not in a
    assert process.name == "process " + topic and process.kind == SpanKind.CONSUMER
    b = dict(process.attributes)
    assert b["messaging.system"] == "kafka"
    assert b["messaging.operation.type"] == "process"
    assert b["messaging.destination.name"] == topic
    assert b["messaging.destination.partition.id"] == str(partition)
    assert b["messaging.kafka.offset"] == offset
    if key is not None:
        assert a["messaging.kafka.message.key"] == key == b["messaging.kafka.message.key"]
    assert [link.context.span_id for link in process.links] == [send.context.span_id]
    assert process.context.trace_id == send.context.trace_id
    assert process.parent is not None and process.parent.span_id == send.context.span_id


def check_three_and_a_failure(spans, topic, consumed, key_prefix, group, error_type):
    """The spans of the asyncio faces' tests: three records produced to partition 0 of
    ``topic`` (keys ``key_prefix`` 0 to 2) then one that failed with ``error_type``, the three
    consumed by ``group``; ``consumed``: (offset, headers, the offset its delivery reported)
    per record read. Returns the three sends that succeeded."""
    sends = finished(spans, SpanKind.PRODUCER)
    assert len(sends) == 4
    ok = [s for s in sends if s.status.status_code != StatusCode.ERROR]
    failed = [s for s in sends if s.status.status_code == StatusCode.ERROR]
    assert [s.attributes["error.type"] for s in failed] == [error_type]
    processes = finished(spans, SpanKind.CONSUMER)
    assert len(processes) == 3
    for i, ((offset, headers, delivered), process) in enumerate(zip(consumed, processes)):
        assert offset == delivered
        assert header(headers, "traceparent") == traceparent(ok[i])
        check_pair(ok[i], process, topic, 0, offset, key="%s%d" % (key_prefix, i))
        assert process.attributes["messaging.consumer.group.name"] == group
    return ok


def test_sync_send_and_process_spans_linked(kafka_cluster, make_topic, spans):
    topic = make_topic(2)
    tag = uuid.uuid4().hex[:6]
    reports = []
    pconf = dict(kafka_cluster.client_config(), **{"client.id": "tr-p-" + tag})
    producer = metrics.trace(kafka.Producer(pconf), spans.provider, conf=pconf)
    for i in range(3):
        producer.produce(topic, b"v%d" % i, key=b"k%d" % i, partition=1,
                         headers=[("app", b"x%d" % i)],
                         on_delivery=lambda err, msg: reports.append((err, msg.offset())))
    # a message without a partition: placed by librdkafka, its span learns it from the report
    producer.produce(topic, b"free", key=b"free")
    assert producer.flush(30) == 0
    assert [err for err, _ in reports] == [None] * 3
    sends = finished(spans, SpanKind.PRODUCER)
    assert len(sends) == 4
    by_key = {s.attributes["messaging.kafka.message.key"]: s for s in sends}
    assert dict(by_key["k0"].attributes)["messaging.client.id"] == "tr-p-" + tag
    assert dict(by_key["free"].attributes)["messaging.destination.partition.id"] in ("0", "1")
    assert [by_key["k%d" % i].attributes["messaging.kafka.offset"] for i in range(3)] == \
        [offset for _, offset in reports]

    cconf = dict(kafka_cluster.client_config(), **{"group.id": "tr-g-" + tag,
                                                     "client.id": "tr-c-" + tag})
    consumer = metrics.trace(kafka.Consumer(cconf), spans.provider, conf=cconf)
    consumer.assign([kafka.TopicPartition(topic, 1, 0)])
    try:
        msgs = consume_messages(consumer, 3)
        # the last record's span is open while the application works on it
        assert len(finished(spans, SpanKind.CONSUMER)) == 2
    finally:
        consumer.close()
    processes = finished(spans, SpanKind.CONSUMER)
    assert len(processes) == 3
    for i, (msg, process) in enumerate(zip(msgs, processes)):
        send = by_key["k%d" % i]
        assert header(msg.headers(), "traceparent") == traceparent(send)
        assert header(msg.headers(), "app") == "x%d" % i      # the application's kept
        check_pair(send, process, topic, 1, msg.offset(), key="k%d" % i)
        b = dict(process.attributes)
        assert b["messaging.consumer.group.name"] == "tr-g-" + tag
        assert b["messaging.client.id"] == "tr-c-" + tag


def test_process_span_inside_an_application_span(kafka_cluster, make_topic, spans):
    """Consumed inside a span of the application's: the process span is that span's child,
    still linked to the producer's span; produce_batch() and consume() give each record a
    span."""
    topic = make_topic(1)
    conf = kafka_cluster.client_config()
    producer = metrics.trace(kafka.Producer(conf), spans.provider)
    reports = []
    batch = [{"value": b"v0", "headers": [("app", b"0")]},
             {"value": b"v1", "callback": lambda err, msg: reports.append(err)}]
    assert producer.produce_batch(topic, batch, partition=0) == 2
    assert producer.flush(30) == 0
    assert reports == [None] and "headers" not in batch[1]     # the caller's dicts unchanged
    sends = finished(spans, SpanKind.PRODUCER)
    assert [s.attributes["messaging.kafka.offset"] for s in sends] == [0, 1]
    consumer = metrics.trace(kafka.Consumer(dict(conf, **{"group.id": uuid.uuid4().hex})),
                             spans.provider)
    consumer.assign([kafka.TopicPartition(topic, 0, 0)])
    tracer = spans.provider.get_tracer("app")
    got = []
    try:
        with tracer.start_as_current_span("batch job") as job:
            while len(got) < 2:
                got += [m for m in consumer.consume(2, 1.0) if m.error() is None]
    finally:
        consumer.close()
    processes = finished(spans, SpanKind.CONSUMER)
    assert len(processes) == 2
    assert header(got[0].headers(), "app") == "0"
    for msg, send, process in zip(got, sends, processes):
        assert header(msg.headers(), "traceparent") == traceparent(send)
        assert process.parent.span_id == job.get_span_context().span_id
        assert [link.context.span_id for link in process.links] == [send.context.span_id]
        assert process.attributes["messaging.kafka.offset"] == send.attributes[
            "messaging.kafka.offset"]


def test_failed_delivery_ends_the_span_with_an_error(kafka_cluster, make_topic, spans):
    # no broker: the message times out; the configured callback is still called
    reports = []
    conf = unreachable(**{"message.timeout.ms": 300,
                          "on_delivery": lambda err, msg: reports.append(err)})
    producer = metrics.trace(kafka.Producer(conf), spans.provider, conf=conf)
    producer.produce("nowhere", b"lost", key="k")
    assert producer.flush(30) == 0
    assert [e.code() for e in reports] == [kafka.KafkaError._MSG_TIMED_OUT]
    (send,) = finished(spans, SpanKind.PRODUCER)
    assert send.status.status_code == StatusCode.ERROR
    assert send.attributes["error.type"] == "_MSG_TIMED_OUT"
    assert "timed out" in send.status.description
    assert "messaging.kafka.offset" not in send.attributes

    # a partition the topic does not have: refused at once, or failed by its report
    topic = make_topic(1)
    producer = metrics.trace(kafka.Producer(kafka_cluster.client_config()), spans.provider)
    producer.list_topics(topic, timeout=30)
    failed = []
    try:
        producer.produce(topic, b"x", partition=7,
                         on_delivery=lambda err, msg: failed.append(err))
    except kafka.KafkaException as e:
        failed.append(e.args[0])
    assert producer.flush(30) == 0
    assert [e.code() for e in failed] == [kafka.KafkaError._UNKNOWN_PARTITION]
    errors = [s for s in finished(spans, SpanKind.PRODUCER) if s.attributes.get(
        "messaging.destination.name") == topic]
    assert len(errors) == 1 and errors[0].status.status_code == StatusCode.ERROR
    assert errors[0].attributes["error.type"] == "_UNKNOWN_PARTITION"


def test_not_traced_adds_no_header_and_makes_no_span(kafka_cluster, make_topic, spans):
    topic = make_topic(1)
    tracer = spans.provider.get_tracer("app")
    producer = kafka.Producer(kafka_cluster.client_config())
    with tracer.start_as_current_span("request"):
        producer.produce(topic, b"plain", partition=0)
    assert producer.flush(30) == 0
    consumer = kafka.Consumer(dict(kafka_cluster.client_config(), **{
        "group.id": uuid.uuid4().hex}))
    consumer.assign([kafka.TopicPartition(topic, 0, 0)])
    try:
        (msg,) = consume_messages(consumer, 1)
    finally:
        consumer.close()
    assert msg.value() == b"plain" and msg.headers() is None
    assert [s.name for s in spans.get_finished_spans()] == ["request"]


def test_tracing_code_is_not_loaded_until_asked_for():
    code = ("import sys, confluent_binding, confluent_binding.metrics as m\n"
            "assert 'confluent_binding.metrics._tracing' not in sys.modules\n"
            "assert not any(k.startswith('opentelemetry.trace') for k in sys.modules)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_what_trace_accepts(spans):
    producer = kafka.Producer(unreachable())
    traced = metrics.trace(producer, spans.provider)
    assert traced.wrapped is producer
    assert traced.purge == producer.purge        # every call but the traced ones is the client's
    with pytest.raises(ValueError):
        metrics.trace(traced)
    with pytest.raises(TypeError):
        metrics.trace(object())
    producer.close(0)


def test_asyncio_clients(kafka_cluster, make_topic, spans):
    from confluent_binding.aio import AIOConsumer, AIOProducer

    topic = make_topic(1)
    conf = kafka_cluster.client_config()

    async def run():
        async with metrics.trace(AIOProducer(conf), spans.provider) as producer:
            called = []
            delivered = [await (await producer.produce(
                topic, b"a%d" % i, key=b"a%d" % i, partition=0,
                on_delivery=lambda err, msg: called.append(err))) for i in range(3)]
            assert called == [None] * 3
        bad = metrics.trace(AIOProducer(unreachable(**{"message.timeout.ms": 300})),
                            spans.provider)
        try:
            fut = await bad.produce("nowhere", b"lost")
            assert await bad.flush(30) == 0
            with pytest.raises(kafka.KafkaException):
                await fut
        finally:
            await bad.close()
        consumer = metrics.trace(AIOConsumer(dict(conf, **{"group.id": "tr-aio"})),
                                 spans.provider, conf={"group.id": "tr-aio"})
        await consumer.assign([kafka.TopicPartition(topic, 0, 0)])
        got = []
        try:
            msg = None
            while msg is None:
                msg = await consumer.poll(1.0)
            got.append(msg)
            async for msg in consumer:
                got.append(msg)
                if len(got) == 3:
                    break
        finally:
            await consumer.close()
        return delivered, got

    delivered, got = asyncio.run(run())
    check_three_and_a_failure(spans, topic, [(m.offset(), m.headers(), d.offset())
                                             for m, d in zip(got, delivered)],
                              "a", "tr-aio", "_MSG_TIMED_OUT")


def test_aiokafka_clients(kafka_cluster, make_topic, spans):
    from confluent_binding.aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from confluent_binding.aiokafka.errors import KafkaTimeoutError

    topic = make_topic(1)
    extra = kafka_cluster.client_config()

    async def run():
        producer = metrics.trace(AIOKafkaProducer(
            bootstrap_servers=kafka_cluster.bootstrap_servers, client_id="tr-ak",
            extra=extra), spans.provider)
        async with producer:
            metas = [await producer.send_and_wait(topic, b"b%d" % i, key=b"b%d" % i,
                                                  partition=0, headers=[("app", b"1")])
                     for i in range(3)]
        bad = metrics.trace(AIOKafkaProducer(extra=unreachable(**{"message.timeout.ms": 300})),
                            spans.provider)
        await bad.start()
        try:
            fut = await bad.send("nowhere", b"lost")
            await bad.flush()
            with pytest.raises(KafkaTimeoutError):
                await fut
        finally:
            await bad.stop()
        consumer = metrics.trace(AIOKafkaConsumer(
            topic, bootstrap_servers=kafka_cluster.bootstrap_servers, group_id="tr-akg",
            auto_offset_reset="earliest", extra=extra), spans.provider)
        await consumer.start()
        try:
            got = [await consumer.getone()]
            while len(got) < 3:
                for recs in (await consumer.getmany(timeout_ms=1000)).values():
                    got += recs
        finally:
            await consumer.stop()
        return metas, got

    metas, got = asyncio.run(run())
    ok = check_three_and_a_failure(spans, topic, [(r.offset, r.headers, m.offset)
                                                  for r, m in zip(got, metas)],
                                   "b", "tr-akg", "KafkaTimeoutError")
    assert [s.attributes["messaging.client.id"] for s in ok] == ["tr-ak"] * 3
    assert [header(rec.headers, "app") for rec in got[:3]] == ["1"] * 3


def test_serializing_producers_traced(spans):
    """The serializing producers take the key first: their spans name the key given, and a
    failed delivery (no broker) ends them with the error."""
    from confluent_binding.aio import AsyncSerializingProducer
    from confluent_binding.serialization import StringSerializer

    conf = unreachable(**{"message.timeout.ms": 300, "key.serializer": StringSerializer(),
                          "value.serializer": StringSerializer()})
    producer = metrics.trace(kafka.SerializingProducer(conf), spans.provider, conf=conf)
    producer.produce("nowhere", key="sync-key", value="v")
    assert producer.flush(30) == 0

    async def run():
        aio = metrics.trace(await AsyncSerializingProducer(conf), spans.provider)
        try:
            fut = await aio.produce("nowhere", key="aio-key", value="v")
            assert await aio.flush(30) == 0
            with pytest.raises(kafka.KafkaException):
                await fut
        finally:
            await aio.close()

    asyncio.run(run())
    sends = finished(spans, SpanKind.PRODUCER)
    assert [(s.attributes["messaging.kafka.message.key"], s.attributes["error.type"],
             s.status.status_code) for s in sends] == [
        ("sync-key", "_MSG_TIMED_OUT", StatusCode.ERROR),
        ("aio-key", "_MSG_TIMED_OUT", StatusCode.ERROR)]
