"""Jobs the Spark standalone tests run in their driver process (tests/support/spark_cluster.py):
each takes the driver's SparkSession and JSON arguments and returns JSON."""

import os

from confluent_binding.spark import NAME


def _executor_pid() -> int:
    """In a Python worker: the pid of the executor JVM it works for (the worker is forked by
    the executor's Python daemon, a child of the executor)."""
    daemon = os.getppid()
    with open("/proc/%d/stat" % daemon) as f:
        stat = f.read()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _source(spark, bootstrap, topic, stream=False, **options):
    r = (spark.readStream if stream else spark.read).format(NAME)
    r = r.option("kafka.bootstrap.servers", bootstrap).option("subscribe", topic)
    r = r.option("startingOffsets", "earliest")
    for k, v in options.items():
        r = r.option(k, str(v))
    return r.load()


def read_to_parquet(spark, bootstrap, topic, out, **options):
    """A batch read into parquet, each row tagged with the executor that read it."""
    from pyspark.sql.functions import udf

    df = _source(spark, bootstrap, topic, **options)
    tasks = df.rdd.getNumPartitions()
    executor = udf(lambda _: _executor_pid(), "int")
    (
        df.selectExpr("partition", "offset", "CAST(value AS STRING) AS value")
        .withColumn("executor", executor("offset"))
        .write.mode("overwrite")
        .parquet(out)
    )
    return {"tasks": tasks}


def read_parquet(spark, path):
    """Rows of a parquet directory (a file sink's through its log) as [partition, offset,
    value, executor?]."""
    df = spark.read.parquet(path)
    cols = [c for c in ("partition", "offset", "value", "executor") if c in df.columns]
    return [list(r) for r in df.select(*cols).collect()]


def stream_to_parquet(spark, bootstrap, topic, out, checkpoint, **options):
    """A streaming query from the topic into a parquet file sink, until it has read everything
    there is; the sizes of its micro-batches."""
    query = (
        _source(spark, bootstrap, topic, stream=True, **options)
        .selectExpr("partition", "offset", "CAST(value AS STRING) AS value")
        .writeStream.format("parquet")
        .option("path", out)
        .option("checkpointLocation", checkpoint)
        .start()
    )
    try:
        query.processAllAvailable()
        return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    finally:
        query.stop()


def stream_to_kafka(spark, bootstrap, topic, out_topic, checkpoint, select=("key", "value"),
                    where=None, sink_options=None, **options):
    """A streaming query from one topic into another through the sink (the rows filtered by
    ``where``, the columns ``select``: SQL expressions; ``sink_options`` for the sink), until
    it has read everything there is; the sizes of its micro-batches."""
    df = _source(spark, bootstrap, topic, stream=True, **options)
    if where:
        df = df.where(where)
    writer = (
        df.selectExpr(*select)
        .writeStream.format(NAME)
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", out_topic)
        .option("checkpointLocation", checkpoint)
    )
    for k, v in (sink_options or {}).items():
        writer = writer.option(k, v)
    query = writer.start()
    try:
        query.processAllAvailable()
        return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    finally:
        query.stop()


def batch_write(spark, bootstrap, topic, n, tasks):
    """Writes values 0 .. n-1 (keys the same) through the sink from ``tasks`` tasks."""
    (
        spark.range(0, n, numPartitions=tasks)
        .selectExpr("CAST(id AS STRING) AS key", "CAST(id AS STRING) AS value")
        .write.format(NAME)
        .mode("append")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", topic)
        .save()
    )
    return n


# The typed value columns of the Schema Registry tests' topic (test_spark_schema_registry.py),
# with the timestamp as microseconds (independent of the session's time zone), and one JSON
# string per row of them.
AVRO_COLUMNS = (
    "value.id AS id",
    "unix_micros(value.ts) AS ts",
    "value.tags AS tags",
    "value.kind AS kind",
    "value.price AS price",
    "value.day AS day",
    "value.attrs AS attrs",
    "value.uid AS uid",
    "value.line AS line",
)
AVRO_JSON = "to_json(struct(offset, %s)) AS row" % ", ".join(AVRO_COLUMNS)


def read_avro_json(spark, bootstrap, topic, registry):
    """A batch read of Avro values (valueFormat=avro), as sorted JSON strings (AVRO_JSON)."""
    df = _source(spark, bootstrap, topic, valueFormat="avro", **{"schema.registry.url": registry})
    return sorted(r[0] for r in df.selectExpr(AVRO_JSON).collect())


def registry_json(df, columns):
    """The rows of a read of Schema Registry values as sorted JSON strings of
    struct(offset, columns...), each column a SQL expression (named c0, c1, ...): the same
    strings for the same rows, whichever session read them."""
    fields = ", ".join("%s AS c%d" % (c, i) for i, c in enumerate(columns))
    rows = df.selectExpr("to_json(struct(offset, %s)) AS row" % fields).collect()
    return sorted(r[0] for r in rows)


def read_registry_json(spark, bootstrap, topic, registry, columns, **options):
    """A batch read of Schema Registry values (``options``: valueFormat, mode, valueSubject,
    ...) as sorted JSON strings (registry_json)."""
    options["schema.registry.url"] = registry
    return registry_json(_source(spark, bootstrap, topic, **options), columns)
