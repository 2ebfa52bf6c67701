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
