"""Kafka as a PySpark data source and sink, on confluent_binding (extra ``[spark]``).

The options and the schema are those of Spark's built-in Kafka connector, so switching is a
change of the format name: ``spark.read.format("cbkafka")`` instead of ``format("kafka")``
(the short name ``cbkafka`` does not clash with Spark's own ``kafka``)::

    import confluent_binding.spark
    confluent_binding.spark.register(spark)      # or: installed packages are found by name
    df = (spark.read.format("cbkafka")
          .option("kafka.bootstrap.servers", "localhost:9092")
          .option("subscribe", "events")
          .load())

Read (batch and streaming): ``subscribe`` / ``subscribePattern`` / ``assign``,
``startingOffsets`` / ``endingOffsets`` (``earliest``, ``latest``, per-partition JSON),
``startingTimestamp`` / ``endingTimestamp`` / ``startingOffsetsByTimestamp`` /
``endingOffsetsByTimestamp`` / ``startingOffsetsByTimestampStrategy``, ``minPartitions``,
``maxRecordsPerPartition``, ``includeHeaders``, ``failOnDataLoss``,
``kafkaConsumer.pollTimeoutMs``, ``fetchOffset.numRetries`` / ``fetchOffset.retryIntervalMs``,
``groupIdPrefix``, ``maxOffsetsPerTrigger`` / ``minOffsetsPerTrigger`` / ``maxTriggerDelay``
(streaming; ``Trigger.AvailableNow`` too), ``arrowBatchRecords`` (records per Arrow batch a
task hands Spark, default 10000; not an option of Spark's connector), and every ``kafka.*``
option, passed to librdkafka without the prefix (the Java client's SASL/JAAS and PEM
truststore/keystore spellings translated, JKS stores refused: see ``_options.translate_java``).
Any other option is refused with its name. Reads are ``read_uncommitted`` unless
``kafka.isolation.level`` says otherwise, as with Spark's connector. Offsets are planned on the
driver; each task reads exactly its range with a consumer of its own (assigned, never
committing) and hands Spark Arrow record batches.

Write (batch and streaming): columns ``value`` (required, string or binary), ``key``, ``topic``
(or option ``topic``, which wins), ``partition``, ``headers``; one idempotent producer per task
(unless ``kafka.enable.idempotence`` or settings that exclude it say otherwise), flushed before
the task succeeds; a failed delivery fails the task with the Kafka error (at-least-once, like
the built-in connector: a task Spark runs again writes its rows again). Batch writes use
``.mode("append")`` (Spark requires a save mode for Python data sources; Kafka topics are only
ever appended to).

Schema Registry data (both ways): ``valueFormat`` / ``keyFormat`` = ``avro`` read the Schema
Registry wire format into typed columns (each record with its writer's schema, resolved to the
reader schema: ``valueSubject``, ``valueSchemaVersion``, ``valueSchema``; ``mode`` FAILFAST or
PERMISSIVE) and write any column in it (``valueSchema``, ``auto.register.schemas``,
``use.latest.version``, ``value.subject.name.strategy``); ``schema.registry.*`` options go to
the Schema Registry client without the prefix.

Metrics: ``metrics.pushGateway`` (and ``metrics.job``) on the source or sink pushes each task's
records, bytes, outcome and client statistics to a Prometheus Pushgateway (``_metrics``).

The Spark Python workers must run the interpreter that has this package installed
(``PYSPARK_PYTHON`` / ``spark.pyspark.python``).
"""

from __future__ import annotations

from typing import Any, Iterator, List, Optional, Tuple

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.pandas.types import from_arrow_schema
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadMaxRows,
    ReadMinRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from .._arrow import schema as arrow_schema
from ._formats import Decoding, source_decodings
from ._metrics import TaskMetrics, counted_read
from ._options import SourceOptions, _topics, flag, lowered, source_options, subscription
from ._plan import OffsetRange, consumer_config, plan_batch
from ._read import decoded, decoded_schema, read_range
from ._stream import StreamPlanner, from_json, to_json
from ._write import SinkOptions, sink_options, write_batches

__all__ = [
    "NAME",
    "KafkaDataSource",
    "register",
    "kafka_schema",
    "source_schema",
    "arrow_schema",
]

#: The name to use in ``spark.read.format(...)`` / ``df.write.format(...)``.
NAME = "cbkafka"


def kafka_schema(include_headers: bool = False) -> StructType:
    """The Spark schema of the source: the built-in connector's, converted from the Arrow schema
    of the batches the source reads (:func:`arrow_schema`, the one list of the columns)."""
    return from_arrow_schema(arrow_schema(include_headers), prefer_timestamp_ntz=False)


def register(spark: Any) -> None:
    """Registers the source and sink with ``spark`` under :data:`NAME`."""
    spark.dataSource.register(KafkaDataSource)


class KafkaInputPartition(InputPartition):
    """One task's work: an offset range of one Kafka partition."""

    def __init__(self, rng: OffsetRange):
        super().__init__(rng)
        self.range = rng

    def __repr__(self) -> str:
        r = self.range
        return "KafkaInputPartition(%s-%d [%d, %d))" % (r.topic, r.partition, r.start, r.end)


def source_schema(include_headers: bool, decodings: Any = ()) -> StructType:
    """The source's schema: :func:`kafka_schema`, with the key and value columns that the
    ``keyFormat`` / ``valueFormat`` options decode typed (the reader schema's columns), and in
    PERMISSIVE mode an error column per decoded one (``valueError``, ``keyError``)."""
    if not decodings:
        return kafka_schema(include_headers)
    return from_arrow_schema(decoded_schema(arrow_schema(include_headers), decodings),
                             prefer_timestamp_ntz=True)


def _check_schema(schema: StructType, include_headers: bool, decodings: Any = ()) -> None:
    expected = source_schema(include_headers, decodings)
    if schema is not None and [(f.name, f.dataType) for f in schema.fields] != [
        (f.name, f.dataType) for f in expected.fields
    ]:
        raise ValueError(
            "The Kafka source has a fixed schema (the one its options give) and cannot be set "
            "with a custom one "
            "(expected %s, got %s)" % (expected.simpleString(), schema.simpleString())
        )


def _read(opts: SourceOptions, partition: InputPartition) -> Iterator[Any]:
    rng = getattr(partition, "range", None)
    if rng is None:  # Spark's single placeholder partition when planning found no records
        return iter(())
    conf = consumer_config(opts)
    task = TaskMetrics(opts.metrics, "receive") if opts.metrics is not None else None
    batches = read_range(
        conf if task is None else task.client_conf(conf),
        rng,
        opts.include_headers,
        opts.poll_timeout_ms,
        opts.fail_on_data_loss,
        opts.batch_records,
    )
    if task is not None:  # counted as read: the raw key and value bytes
        batches = counted_read(task, rng.topic, rng.partition, batches)
    return decoded(batches, opts.decodings) if opts.decodings else batches


class _BatchReader(DataSourceReader):
    def __init__(self, opts: SourceOptions):
        self.opts = opts

    def partitions(self) -> List[InputPartition]:
        return [KafkaInputPartition(r) for r in plan_batch(self.opts)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        return _read(self.opts, partition)


class _StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    def __init__(self, opts: SourceOptions):
        self.opts = opts
        self.planner = StreamPlanner(opts)

    def initialOffset(self) -> dict:
        return to_json(self.planner.initial())

    def getDefaultReadLimit(self) -> Any:
        # Python's read limits are single ones (no composite of minimum and maximum): with both
        # options the engine gets the maximum back, and latestOffset applies the minimum too.
        if self.opts.max_offsets_per_trigger:
            return ReadMaxRows(self.opts.max_offsets_per_trigger)
        if self.opts.min_offsets_per_trigger:
            return ReadMinRows(self.opts.min_offsets_per_trigger)
        return ReadAllAvailable()

    def latestOffset(self, start: dict, limit: Any) -> dict:
        # ReadAllAvailable (Trigger.Once, or no limit option) ignores the limit options.
        max_rows: Optional[int] = limit.max_rows if isinstance(limit, ReadMaxRows) else None
        min_rows: Optional[int] = None
        if isinstance(limit, ReadMinRows):
            min_rows = limit.min_rows
        elif isinstance(limit, ReadMaxRows):
            min_rows = self.opts.min_offsets_per_trigger
        return to_json(self.planner.latest(from_json(start), max_rows, min_rows))

    def prepareForTriggerAvailableNow(self) -> None:
        self.planner.prepare_available_now()

    def reportLatestOffset(self) -> Optional[dict]:
        seen = self.planner.seen
        return to_json(seen) if seen is not None else None

    def partitions(self, start: dict, end: dict) -> List[InputPartition]:
        return [
            KafkaInputPartition(r) for r in self.planner.ranges(from_json(start), from_json(end))
        ]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        return _read(self.opts, partition)

    def commit(self, end: dict) -> None:
        pass  # offsets live in Spark's checkpoint; nothing is committed to Kafka

    def stop(self) -> None:
        pass


class KafkaCommitMessage(WriterCommitMessage):
    """What one write task reports to the driver: ``count``, how many rows it produced (every
    one delivered: the task flushed its producer before it returned)."""

    def __init__(self, count: int):
        self.count = count


class _BatchWriter(DataSourceArrowWriter):
    def __init__(self, opts: SinkOptions):
        self.opts = opts

    def write(self, iterator: Iterator[Any]) -> KafkaCommitMessage:
        return KafkaCommitMessage(write_batches(self.opts, iterator))

    def commit(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        pass  # every task flushed its producer before it succeeded

    def abort(self, messages: List[Optional[WriterCommitMessage]]) -> None:
        pass  # what was delivered stays delivered (at-least-once, like Spark's connector)


class _StreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, opts: SinkOptions):
        self.opts = opts

    def write(self, iterator: Iterator[Any]) -> KafkaCommitMessage:
        return KafkaCommitMessage(write_batches(self.opts, iterator))

    def commit(self, messages: List[Optional[WriterCommitMessage]], batchId: int) -> None:
        pass

    def abort(self, messages: List[Optional[WriterCommitMessage]], batchId: int) -> None:
        pass


class KafkaDataSource(DataSource):
    """Kafka through confluent_binding, with the options of Spark's Kafka connector."""

    @classmethod
    def name(cls) -> str:
        """The format name, :data:`NAME` (``spark.read.format("cbkafka")``)."""
        return NAME

    def _decodings(self) -> Tuple[Decoding, ...]:
        """The decoded columns, resolved once per DataFrame (the reader schema the DataFrame's
        schema was made of, even if a newer version is registered before the query runs)."""
        found = self.__dict__.get("_resolved")
        if found is None:
            opts = lowered(self.options)
            topics = _topics(subscription(opts)) if "subscribe" in opts or "assign" in opts else []
            found = self.__dict__["_resolved"] = tuple(source_decodings(opts, topics))
        return found

    def schema(self) -> StructType:
        """The source's schema: the built-in connector's (:func:`kafka_schema`), with
        ``headers`` when the ``includeHeaders`` option is true, and the key and value typed
        when ``keyFormat`` / ``valueFormat`` decode them (:func:`source_schema`)."""
        opts = lowered(self.options)
        return source_schema(flag(opts, "includeHeaders", False), self._decodings())

    def reader(self, schema: StructType) -> DataSourceReader:
        """The batch reader: checks the options (an unknown one raises ValueError naming it)
        and plans one task per offset range on the driver."""
        opts = source_options(self.options, streaming=False, decodings=self._decodings())
        _check_schema(schema, opts.include_headers, opts.decodings)
        return _BatchReader(opts)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        """The streaming reader: offsets as the connector's JSON, the trigger options
        (``maxOffsetsPerTrigger``, ``minOffsetsPerTrigger``, ``maxTriggerDelay``) and
        ``Trigger.AvailableNow``."""
        opts = source_options(self.options, streaming=True, decodings=self._decodings())
        _check_schema(schema, opts.include_headers, opts.decodings)
        return _StreamReader(opts)

    def writer(self, schema: StructType, overwrite: bool) -> _BatchWriter:
        """The batch sink (append only): checks the options and the DataFrame's columns at
        planning time; each task produces its Arrow batches with one idempotent producer."""
        if overwrite:
            raise ValueError(
                "Save mode Overwrite not allowed for Kafka. Allowed save modes are "
                "Append (df.write.mode('append'))"
            )
        return _BatchWriter(sink_options(self.options, schema))

    def streamWriter(self, schema: StructType, overwrite: bool) -> _StreamWriter:
        """The streaming sink: as :meth:`writer`, once per micro-batch (at-least-once)."""
        return _StreamWriter(sink_options(self.options, schema))
