"""OpenTelemetry's confluent-kafka instrumentation, unmodified, around a producer and a consumer
written for confluent-kafka; run by test_otel_confluent_kafka.py in a child process, as ``python
-m confluent_binding run confluent_spans.py ...`` (its ``confluent_kafka`` is confluent_binding)
or, for reference, as ``python confluent_spans.py ...``.

    python confluent_spans.py MODE BOOTSTRAP TOPIC GROUP

MODE ``auto``: ``ConfluentKafkaInstrumentor().instrument()`` replaces ``confluent_kafka.Producer``
and ``Consumer`` with its subclasses, whose ``produce``, ``poll``, ``consume`` and ``close`` it
wraps. MODE ``proxy``: clients made first are wrapped by ``instrument_producer()`` and
``instrument_consumer()`` in its proxy subclasses (which never call the base class's
``__init__``).

The producer sends RECORDS (one without headers, one with a list, one with a dict of headers);
the consumer reads the first two with ``poll()`` and the rest with ``consume()``, then closes.
The spans, collected by the SDK's in-memory exporter, are printed as one JSON line with what was
consumed.
"""

import json
import sys
import time

import confluent_kafka
from opentelemetry.instrumentation.confluent_kafka import ConfluentKafkaInstrumentor
from otel_common import in_memory_tracing, span_dict

# (key, value, headers)
RECORDS = [
    (b"k-0", b"v-0", None),
    (b"k-1", b"v-1", [("app", b"list")]),
    (b"k-2", b"v-2", {"app": b"dict"}),
    (None, b"v-3", None),
]
POLLED = 2
DEADLINE_S = 60


def record_dict(msg):
    return {"key": msg.key() and msg.key().decode(), "value": msg.value().decode(),
            "partition": msg.partition(), "offset": msg.offset(),
            "headers": {k: v.decode() for k, v in (msg.headers() or [])}}


def main(mode, bootstrap, topic, group):
    provider, exporter = in_memory_tracing()
    producer_conf = {"bootstrap.servers": bootstrap}
    consumer_conf = {"bootstrap.servers": bootstrap, "group.id": group,
                     "auto.offset.reset": "earliest"}

    if mode == "auto":
        ConfluentKafkaInstrumentor().instrument(tracer_provider=provider)
        producer = confluent_kafka.Producer(producer_conf)
        consumer = confluent_kafka.Consumer(consumer_conf)
    else:
        producer = ConfluentKafkaInstrumentor.instrument_producer(
            confluent_kafka.Producer(producer_conf), tracer_provider=provider)
        consumer = ConfluentKafkaInstrumentor.instrument_consumer(
            confluent_kafka.Consumer(consumer_conf), tracer_provider=provider)
    classes = {"producer": [c.__module__ + "." + c.__qualname__ for c in type(producer).__mro__],
               "consumer": [c.__module__ + "." + c.__qualname__ for c in type(consumer).__mro__]}

    delivered = []
    for key, value, headers in RECORDS:
        producer.produce(topic, value, key=key, headers=headers,
                         on_delivery=lambda err, msg: delivered.append(err))
    left = producer.flush(30)

    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + DEADLINE_S
    while len(got) < POLLED and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is not None and msg.error() is None:
            got.append(msg)
    while len(got) < len(RECORDS) and time.monotonic() < deadline:
        got.extend(m for m in consumer.consume(num_messages=len(RECORDS), timeout=1.0)
                   if m.error() is None)
    consumer.close()

    print(json.dumps({
        "library": confluent_kafka.__name__,
        "classes": classes,
        "unflushed": left,
        "delivery_errors": [str(e) for e in delivered if e is not None],
        "delivered": len(delivered),
        "records": [record_dict(m) for m in got],
        "spans": [span_dict(s) for s in exporter.get_finished_spans()],
    }))


if __name__ == "__main__":
    main(*sys.argv[1:])
