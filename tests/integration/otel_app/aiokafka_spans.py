"""OpenTelemetry's aiokafka instrumentation, unmodified, around a producer and a consumer written
for aiokafka; run by test_otel_aiokafka.py in a child process, as ``python -m confluent_binding
run --as aiokafka aiokafka_spans.py ...`` (its ``aiokafka`` is confluent_binding.aiokafka) or,
for reference, as ``python aiokafka_spans.py ...``.

    python aiokafka_spans.py BOOTSTRAP TOPIC GROUP

``AIOKafkaInstrumentor().instrument()`` wraps ``AIOKafkaProducer.send`` and
``AIOKafkaConsumer.getone`` / ``getmany``. The producer sends RECORDS with ``send_and_wait``
(one with headers of its own); the consumer reads the first two with ``getone()`` and the rest
with ``getmany()``. The spans, collected by the SDK's in-memory exporter, are printed as one JSON
line with what was consumed.
"""

import asyncio
import json
import sys

import aiokafka
from opentelemetry.instrumentation.aiokafka import AIOKafkaInstrumentor
from otel_common import in_memory_tracing, span_dict

# (key, value, headers)
RECORDS = [
    (b"k-0", b"v-0", None),
    (b"k-1", b"v-1", [("app", b"list")]),
    (None, b"v-2", None),
    (b"k-3", b"v-3", None),
]
GOT_ONE = 2
DEADLINE_S = 60


def record_dict(record):
    return {"key": record.key and record.key.decode(), "value": record.value.decode(),
            "partition": record.partition, "offset": record.offset,
            "headers": {k: v.decode() for k, v in record.headers}}


async def main(bootstrap, topic, group):
    provider, exporter = in_memory_tracing()
    AIOKafkaInstrumentor().instrument(tracer_provider=provider)

    producer = aiokafka.AIOKafkaProducer(bootstrap_servers=bootstrap, client_id="otel-producer")
    await producer.start()
    try:
        sent = [await producer.send_and_wait(topic, value, key=key, headers=headers)
                for key, value, headers in RECORDS]
    finally:
        await producer.stop()

    consumer = aiokafka.AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                         client_id="otel-consumer",
                                         auto_offset_reset="earliest")
    await consumer.start()
    got = []

    async def consume():
        while len(got) < GOT_ONE:
            got.append(await consumer.getone())
        while len(got) < len(RECORDS):
            batches = await consumer.getmany(timeout_ms=1000)
            got.extend(r for records in batches.values() for r in records)

    try:
        await asyncio.wait_for(consume(), DEADLINE_S)
    finally:
        await consumer.stop()

    print(json.dumps({
        "library": aiokafka.__name__,
        "sent": [[m.topic, m.partition, m.offset] for m in sent],
        "records": [record_dict(r) for r in got],
        "spans": [span_dict(s) for s in exporter.get_finished_spans()],
    }))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
