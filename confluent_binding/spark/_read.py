"""Executor side of the source: read one offset range into Arrow record batches."""

from __future__ import annotations

import time
from typing import Any, Dict, Iterator

from .. import Consumer, KafkaError, KafkaException, TopicPartition
from ._plan import OffsetRange


def read_range(
    conf: Dict[str, object],
    rng: OffsetRange,
    include_headers: bool,
    poll_timeout_ms: int,
    fail_on_data_loss: bool,
    batch_records: int = 10000,
) -> Iterator[Any]:
    """Yields record batches of exactly the records ``[rng.start, rng.end)`` of one partition,
    with a consumer of its own (assigned, never in a group, never committing), through the
    columnar consume path (Consumer.consume_arrow: no Python object per record)."""
    if rng.end <= rng.start:
        return
    tp = TopicPartition(rng.topic, rng.partition, rng.start)
    ends = {(rng.topic, rng.partition): rng.end}
    consumer = Consumer(conf)
    try:
        consumer.assign([tp])
        deadline = time.monotonic() + poll_timeout_ms / 1000.0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(
                    "%s-%d: no record up to the planned end %d within "
                    "kafkaConsumer.pollTimeoutMs=%d ms"
                    % (rng.topic, rng.partition, rng.end, poll_timeout_ms)
                )
            try:
                batch = consumer.consume_arrow(
                    batch_records, min(remaining, 1.0), end_offsets=ends, headers=include_headers
                )
            except KafkaException as e:
                err = e.args[0]
                if (
                    not fail_on_data_loss
                    and isinstance(err, KafkaError)
                    and err.code() == KafkaError._AUTO_OFFSET_RESET
                ):
                    return  # the rest of the range is gone; failOnDataLoss=false skips it
                raise
            if batch.num_rows:
                deadline = time.monotonic() + poll_timeout_ms / 1000.0
                yield batch
                if batch.column("offset")[-1].as_py() + 1 >= rng.end:
                    return
            # Records that are not data (transaction markers) may end a range: the consumer's
            # position then passes the end without a record at end - 1.
            if consumer.position([tp])[0].offset >= rng.end:
                return
    finally:
        consumer.close()


def decoded_schema(base: Any, decodings: Any) -> Any:
    """The Arrow schema of the decoded batches: ``base`` (the connector's columns) with the key
    and value columns of ``decodings`` typed, and a string error column per decoded column in
    PERMISSIVE mode (``valueError``, ``keyError``), last."""
    import pyarrow as pa

    fields = list(base)
    for d in decodings:
        i = base.get_field_index(d.field)
        fields[i] = pa.field(d.field, d.arrow_type())
    for d in decodings:
        if d.permissive:
            fields.append(pa.field(d.field + "Error", pa.string()))
    return pa.schema(fields)


def decoded(batches: Iterator[Any], decodings: Any) -> Iterator[Any]:
    """The record batches of ``batches`` with the key and/or value column decoded from the
    Schema Registry wire format (one decoder per column, for the whole task: writer schemas
    are fetched once per schema id)."""
    import pyarrow as pa

    decoders = [d.decoder() for d in decodings]
    for batch in batches:
        topics, partitions, offsets = (
            batch.column(name) for name in ("topic", "partition", "offset")
        )

        def where(i: int) -> str:
            return "%s-%d at offset %d" % (
                topics[i].as_py(),
                partitions[i].as_py(),
                offsets[i].as_py(),
            )

        columns = list(batch.columns)
        names = list(batch.schema.names)
        errors = []
        for decoder in decoders:
            i = names.index(decoder.field)
            columns[i], error = decoder.decode(batch.column(i), where)
            if error is not None:
                errors.append((decoder.field + "Error", error))
        for name, error in errors:
            names.append(name)
            columns.append(error)
        yield pa.RecordBatch.from_arrays(columns, names=names)
