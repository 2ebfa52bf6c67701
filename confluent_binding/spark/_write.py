"""The sink: rows of (value, key, topic, partition, headers) produced to Kafka, one producer per
task, flushed before the task reports success. At-least-once, like Spark's connector."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional

from .. import KafkaException, Producer
from ._options import SINK_OPTIONS, check_known, kafka_params, lowered

_PRODUCER_FORBIDDEN = {"key.serializer", "value.serializer"}

# Settings that, set by the user without enable.idempotence, turn the Java producer's default
# idempotence off (it needs acks=all and at most 5 requests in flight) instead of failing.
_NOT_IDEMPOTENT = {
    "acks": lambda v: v.strip().lower() not in ("all", "-1"),
    "request.required.acks": lambda v: v.strip().lower() not in ("all", "-1"),
    "max.in.flight.requests.per.connection": lambda v: int(v) > 5,
    "max.in.flight": lambda v: int(v) > 5,
}


def producer_config(kafka: Dict[str, str]) -> Dict[str, str]:
    """The sink's producer configuration: idempotent unless the options say otherwise, as the
    Java producer (Kafka 3.0+) that Spark's sink uses. Within one task a retried request then
    never duplicates or reorders a record; a task that Spark runs again is a new producer, so
    its records are written again (at-least-once per query, as Spark's connector)."""
    conf = dict(kafka)
    if "enable.idempotence" not in conf:
        try:
            clash = any(k in conf and test(conf[k]) for k, test in _NOT_IDEMPOTENT.items())
        except ValueError:
            clash = False  # not a number: librdkafka names the bad value when the task starts
        conf["enable.idempotence"] = "false" if clash else "true"
    return conf


@dataclass(frozen=True)
class SinkOptions:
    kafka: Dict[str, str]
    topic: Optional[str]


def sink_options(options: Any, schema: Any) -> SinkOptions:
    """Checks the options and the DataFrame's columns at planning time."""
    from pyspark.sql.types import ArrayType, BinaryType, IntegerType, StringType, StructType

    opts = lowered(options)
    if "kafka.bootstrap.servers" not in opts:
        raise ValueError(
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer"
        )
    check_known(opts, SINK_OPTIONS, "sink")
    kafka = kafka_params(opts)
    for name in _PRODUCER_FORBIDDEN:
        kafka.pop(name, None)
    kafka = producer_config(kafka)
    topic = opts.get("topic")
    fields = {f.name.lower(): f.dataType for f in schema.fields}
    if "value" not in fields:
        raise ValueError(
            "Required attribute 'value' not found: the DataFrame to write needs a "
            "'value' column (string or binary)"
        )
    for name in ("value", "key"):
        if name in fields and not isinstance(fields[name], (StringType, BinaryType)):
            raise ValueError(
                "%s attribute type must be a string or binary, got %s"
                % (name, fields[name].simpleString())
            )
    if topic is None:
        if "topic" not in fields:
            raise ValueError(
                "topic option required when no 'topic' attribute is present. "
                "Use the topic option for setting a topic."
            )
    elif not topic.strip():
        raise ValueError("Option 'topic' must not be empty")
    if "topic" in fields and not isinstance(fields["topic"], StringType):
        raise ValueError(
            "topic attribute type must be a string, got %s" % fields["topic"].simpleString()
        )
    if "partition" in fields and not isinstance(fields["partition"], IntegerType):
        raise ValueError(
            "partition attribute type must be an int, got %s" % fields["partition"].simpleString()
        )
    if "headers" in fields:
        h = fields["headers"]
        ok = (
            isinstance(h, ArrayType)
            and isinstance(h.elementType, StructType)
            and [f.name for f in h.elementType.fields] == ["key", "value"]
            and isinstance(h.elementType.fields[0].dataType, StringType)
            and isinstance(h.elementType.fields[1].dataType, BinaryType)
        )
        if not ok:
            raise ValueError(
                "headers attribute type must be array<struct<key:string,value:binary>>, "
                "got %s" % h.simpleString()
            )
    return SinkOptions(kafka=kafka, topic=topic)


def _column(batch: Any, name: str) -> Optional[List[Any]]:
    names = [n.lower() for n in batch.schema.names]
    if name not in names:
        return None
    col = batch.column(names.index(name))
    return col.to_pylist()


def _bytes(v: Any) -> Any:
    return v.encode("utf-8") if isinstance(v, str) else v


def write_batches(opts: SinkOptions, batches: Iterator[Any]) -> int:
    """Produces every row of ``batches``; returns how many. Raises ``KafkaException`` with the
    first failed delivery's error after the producer flushed (the task then fails)."""
    failures: List[Any] = []

    def on_delivery(err: Any, msg: Any) -> None:
        if err is not None and not failures:
            failures.append(err)

    producer = Producer(opts.kafka)
    count = 0
    try:
        for batch in batches:
            values = _column(batch, "value")
            n = batch.num_rows
            keys = _column(batch, "key") or [None] * n
            topics = [opts.topic] * n if opts.topic is not None else _column(batch, "topic")
            parts = _column(batch, "partition") or [None] * n
            headers = _column(batch, "headers") or [None] * n
            for i in range(n):
                topic = topics[i]
                if topic is None:
                    raise ValueError(
                        "Null topic present in the data. Use the topic option for "
                        "setting a default topic."
                    )
                part = parts[i]
                hdrs = headers[i]
                kwargs = {}
                if part is not None:
                    kwargs["partition"] = part
                if hdrs:
                    kwargs["headers"] = [(h["key"], h["value"]) for h in hdrs]
                while True:
                    try:
                        producer.produce(
                            topic,
                            _bytes(values[i]),
                            _bytes(keys[i]),
                            on_delivery=on_delivery,
                            **kwargs,
                        )
                        break
                    except BufferError:
                        producer.poll(0.1)
                count += 1
                if failures:
                    break
            producer.poll(0)
            if failures:
                break
        producer.flush()
    finally:
        remaining = producer.flush(30)
    if failures:
        raise KafkaException(failures[0])
    if remaining:
        raise KafkaException("%d messages were still not delivered when the task ended" % remaining)
    return count
