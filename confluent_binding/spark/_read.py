"""Executor side of the source: read one offset range into Arrow record batches."""

from __future__ import annotations

import time
from typing import Any, Dict, Iterator, List

from .. import Consumer, KafkaError, KafkaException, TopicPartition
from ._plan import OffsetRange

# Records per Arrow batch handed to Spark.
BATCH_RECORDS = 10000


def arrow_schema(include_headers: bool) -> Any:
    """The Arrow schema of the connector's columns, exactly as Spark expects it from a Python
    data source (timestamps in microseconds, UTC)."""
    import pyarrow as pa

    fields = [
        pa.field("key", pa.binary()),
        pa.field("value", pa.binary()),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("offset", pa.int64()),
        pa.field("timestamp", pa.timestamp("us", tz="UTC")),
        pa.field("timestampType", pa.int32()),
    ]
    if include_headers:
        header = pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())])
        fields.append(pa.field("headers", pa.list_(pa.field("element", header))))
    return pa.schema(fields)


def _to_batch(schema: Any, messages: List[Any], include_headers: bool) -> Any:
    import pyarrow as pa

    timestamps = []
    types = []
    for m in messages:
        kind, ms = m.timestamp()
        # librdkafka: 0 none, 1 create, 2 log append; Kafka/Spark: -1 none, 0 create, 1 log append
        types.append(kind - 1)
        timestamps.append(ms * 1000 if kind else None)
    columns = [
        pa.array([m.key() for m in messages], pa.binary()),
        pa.array([m.value() for m in messages], pa.binary()),
        pa.array([m.topic() for m in messages], pa.string()),
        pa.array([m.partition() for m in messages], pa.int32()),
        pa.array([m.offset() for m in messages], pa.int64()),
        pa.array(timestamps, schema.field("timestamp").type),
        pa.array(types, pa.int32()),
    ]
    if include_headers:
        rows = []
        for m in messages:
            h = m.headers()
            rows.append([{"key": k, "value": v} for k, v in h] if h else None)
        columns.append(pa.array(rows, schema.field("headers").type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def read_range(conf: Dict[str, object], rng: OffsetRange, include_headers: bool,
               poll_timeout_ms: int, fail_on_data_loss: bool) -> Iterator[Any]:
    """Yields record batches of exactly the records ``[rng.start, rng.end)`` of one partition,
    with a consumer of its own (assigned, never in a group, never committing)."""
    if rng.end <= rng.start:
        return
    schema = arrow_schema(include_headers)
    consumer = Consumer(conf)
    try:
        consumer.assign([TopicPartition(rng.topic, rng.partition, rng.start)])
        next_offset = rng.start
        deadline = time.monotonic() + poll_timeout_ms / 1000.0
        while next_offset < rng.end:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(
                    "No record of %s-%d at offset %d within kafkaConsumer.pollTimeoutMs=%d ms"
                    % (rng.topic, rng.partition, next_offset, poll_timeout_ms))
            got = consumer.consume(BATCH_RECORDS, min(remaining, 1.0))
            keep = []
            done = False
            for m in got:
                err = m.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        if m.offset() < rng.end:
                            # The partition ended before the range did: records are gone.
                            if fail_on_data_loss:
                                raise ValueError(
                                    "%s-%d ends at offset %d, before the end of the planned range "
                                    "%d (data loss; set failOnDataLoss=false to allow it)"
                                    % (rng.topic, rng.partition, m.offset(), rng.end))
                        done = True
                        break
                    if err.code() == KafkaError._AUTO_OFFSET_RESET and not fail_on_data_loss:
                        done = True
                        break
                    raise KafkaException(err)
                offset = m.offset()
                if offset >= rng.end:
                    done = True
                    break
                keep.append(m)
                next_offset = offset + 1
            if keep:
                deadline = time.monotonic() + poll_timeout_ms / 1000.0
                yield _to_batch(schema, keep, include_headers)
            if done:
                break
    finally:
        consumer.close()
