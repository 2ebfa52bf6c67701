"""The sink: rows of (value, key, topic, partition, headers) produced to Kafka, one producer per
task, flushed before the task reports success. At-least-once, like Spark's connector."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .. import KafkaException, Producer
from .._core import _produce_arrow
from ._formats import Encoding, sink_encodings
from ._metrics import OPTIONS as METRICS_OPTIONS
from ._metrics import MetricsOptions, TaskMetrics, metrics_options
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

# Spark's connector writes with the Java producer, whose default partitioner (no
# partitioner.class) puts a keyed record on murmur2(key) % partitions and spreads records without
# a key: librdkafka's murmur2_random. So keyed rows land where Spark's connector, and every Java
# producer of the topic, puts them. Kafka's built-in Java partitioners map to librdkafka's
# equivalents; the others have none.
_JAVA_PARTITIONERS = {
    "org.apache.kafka.clients.producer.internals.DefaultPartitioner": "murmur2_random",
    # keys ignored, records spread (Java: sticky per batch; librdkafka: per record)
    "org.apache.kafka.clients.producer.UniformStickyPartitioner": "random",
}
DEFAULT_PARTITIONER = "murmur2_random"


def _partitioner(conf: Dict[str, str]) -> None:
    """Sets librdkafka's ``partitioner`` from ``partitioner.class`` (Kafka's built-in Java
    partitioners) or to the Java client's default, unless the options name one."""
    java = conf.pop("partitioner.class", None)
    if java is None:
        conf.setdefault("partitioner", DEFAULT_PARTITIONER)
        return
    if "partitioner" in conf:
        raise ValueError(
            "Kafka options 'partitioner.class' and 'partitioner' are both set: give one"
        )
    if java.strip() not in _JAVA_PARTITIONERS:
        raise ValueError(
            "Kafka option 'partitioner.class' = '%s' is not supported: librdkafka runs no Java "
            "partitioner. Supported: %s; or set 'kafka.partitioner' to one of librdkafka's "
            "(murmur2_random, the Java default; consistent_random, random, murmur2, consistent, "
            "fnv1a, fnv1a_random)" % (java, ", ".join(sorted(_JAVA_PARTITIONERS)))
        )
    conf["partitioner"] = _JAVA_PARTITIONERS[java.strip()]


def producer_config(kafka: Dict[str, str]) -> Dict[str, str]:
    """The sink's producer configuration: keyed rows partitioned as the Java producer that
    Spark's sink uses partitions them (:data:`DEFAULT_PARTITIONER`, or ``partitioner.class``
    mapped), and idempotent unless the options say otherwise, as that producer (Kafka 3.0+).
    Within one task a retried request then never duplicates or reorders a record; a task that
    Spark runs again is a new producer, so its records are written again (at-least-once per
    query, as Spark's connector)."""
    conf = dict(kafka)
    _partitioner(conf)
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
    # the key and value columns encoded in the Schema Registry wire format (valueFormat...)
    encodings: Tuple[Encoding, ...] = ()
    # where the tasks' figures are pushed (metrics.pushGateway), or None
    metrics: Optional[MetricsOptions] = None


def sink_options(options: Any, schema: Any) -> SinkOptions:
    """Checks the options and the DataFrame's columns at planning time."""
    from pyspark.sql.types import ArrayType, BinaryType, IntegerType, StringType, StructType

    opts = lowered(options)
    if "kafka.bootstrap.servers" not in opts:
        raise ValueError(
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer"
        )
    check_known(opts, SINK_OPTIONS + METRICS_OPTIONS, "sink")
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
    encodings = tuple(sink_encodings(opts, schema))
    encoded = {e.field for e in encodings}
    for name in ("value", "key"):
        if name in encoded:
            continue
        if name in fields and not isinstance(fields[name], (StringType, BinaryType)):
            raise ValueError(
                "%s attribute type must be a string or binary, got %s (or set the option "
                "'%sFormat' to avro to write it in the Schema Registry's Avro wire format)"
                % (name, fields[name].simpleString(), name)
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
    return SinkOptions(kafka=kafka, topic=topic, encodings=encodings,
                       metrics=metrics_options(opts))


def _column(batch: Any, name: str) -> Any:
    """The column ``name`` of ``batch`` (case-insensitive, as Spark's), or None."""
    names = [n.lower() for n in batch.schema.names]
    if name not in names:
        return None
    return batch.column(names.index(name))


def _bytes_column(col: Any, text: bool) -> Tuple[Any, bool]:
    """A binary or string column as the compiled loop reads it, and whether its offsets are
    64-bit (the large_ types); other types (views, dictionaries) are cast first."""
    import pyarrow as pa

    t = col.type
    if pa.types.is_binary(t) or pa.types.is_string(t):
        return col, False
    if pa.types.is_large_binary(t) or pa.types.is_large_string(t):
        return col, True
    return col.cast(pa.string() if text else pa.binary()), False


def _headers_type() -> Any:
    import pyarrow as pa

    return pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())]))


def produce_batch(producer: Producer, topic: Optional[str], batch: Any) -> int:
    """Produces every row of one Arrow record batch (the sink's columns, found by name: value,
    and optional key, topic, partition, headers) in one compiled loop; returns how many.
    ``topic``: the topic option, which wins over a topic column. Delivery reports go to the
    producer's ``on_delivery``, served by its poll()/flush() (and while its queue is full)."""
    import pyarrow as pa

    value = _column(batch, "value")
    if value is None:
        raise ValueError("Required attribute 'value' not found")
    value, wide_value = _bytes_column(value, False)
    key = _column(batch, "key")
    wide_key = False
    if key is not None:
        key, wide_key = _bytes_column(key, False)
    topics = None if topic is not None else _column(batch, "topic")
    wide_topic = False
    if topics is not None:
        topics, wide_topic = _bytes_column(topics, True)
    elif topic is None:
        raise ValueError(
            "topic option required when no 'topic' attribute is present. "
            "Use the topic option for setting a topic."
        )
    partitions = _column(batch, "partition")
    if partitions is not None and partitions.type != pa.int32():
        partitions = partitions.cast(pa.int32())
    headers = _column(batch, "headers")
    if headers is not None and not headers.type.equals(_headers_type(), check_metadata=False):
        headers = headers.cast(_headers_type())
    return int(
        _produce_arrow(
            producer,
            topic,
            value,
            key,
            topics,
            partitions,
            headers,
            wide_value,
            wide_key,
            wide_topic,
        )
    )


def encoded(opts: SinkOptions, batches: Iterator[Any]) -> Iterator[Any]:
    """``batches`` with the key and/or value column encoded in the Schema Registry wire format
    (one serializer per column, for the whole task)."""
    import pyarrow as pa

    encoders = [e.encoder() for e in opts.encodings]
    for batch in batches:
        topics: List[Any]
        if opts.topic is not None:
            topics = [opts.topic] * batch.num_rows
        else:
            column = _column(batch, "topic")
            topics = column.to_pylist() if column is not None else [None] * batch.num_rows
        names = [n.lower() for n in batch.schema.names]
        columns = list(batch.columns)
        for encoder in encoders:
            i = names.index(str(encoder.field))
            columns[i] = encoder.encode(columns[i], topics)
        yield pa.RecordBatch.from_arrays(columns, names=names)


def write_batches(opts: SinkOptions, batches: Iterator[Any]) -> int:
    """Produces every row of ``batches``; returns how many. Raises ``KafkaException`` with the
    first failed delivery's error after the producer flushed (the task then fails). With the
    ``metrics.*`` options, the task's figures are pushed when it ends (``_metrics``)."""
    if opts.metrics is None:
        return _write(opts, batches, None)
    task = TaskMetrics(opts.metrics, "send")
    try:
        count = _write(opts, batches, task)
    except BaseException as e:
        task.tally.clear()  # not known to be delivered
        task.end(e)
        raise
    task.end(None)
    return count


def _write(opts: SinkOptions, batches: Iterator[Any], task: Optional[TaskMetrics]) -> int:
    failures: List[Any] = []

    def on_delivery(err: Any, msg: Any) -> None:
        if err is not None and not failures:
            failures.append(err)

    # Only failed deliveries reach Python: the reports of delivered rows end in C.
    conf: Dict[str, Any] = dict(opts.kafka)
    conf["on_delivery"] = on_delivery
    conf["delivery.report.only.error"] = True
    if opts.encodings:
        batches = encoded(opts, batches)
    producer = Producer(conf if task is None else task.client_conf(conf))
    count = 0
    try:
        for batch in batches:
            count += produce_batch(producer, opts.topic, batch)
            if task is not None:
                task.count_batch(batch, opts.topic)
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
