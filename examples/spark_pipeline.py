"""A Spark streaming pipeline on Kafka: page views in, per-page counts per 10 s window out.

Produces page-view events (key: user, value: page, timestamp: event time) into a topic, streams
them with Spark through a windowed aggregation (10 s tumbling windows, 5 s watermark) into
another topic, with a checkpoint; stops the query, produces more, restarts it from the
checkpoint, and reads the output topic back to show what arrived. Every event is counted once.

Uses the cluster in $KAFKA_BOOTSTRAP_SERVERS, or starts a local Apache Kafka broker (KRaft).

    python examples/spark_pipeline.py
"""

import collections
import json
import os
import sys
import tempfile
import time
import uuid

from quickstart import cluster

import confluent_binding as kafka

PAGES = ["/home", "/cart", "/search", "/checkout"]


def produce_views(conf, topic, start, n, base_ms):
    """n page views; view i happens at base_ms + i * 250 ms (four per second)."""
    p = kafka.Producer(conf)
    for i in range(start, start + n):
        p.produce(topic, PAGES[i % len(PAGES)].encode(), b"user-%d" % (i % 7),
                  timestamp=base_ms + i * 250)
    assert p.flush(30) == 0
    return n


def run_query(spark, bootstrap, source, sink, checkpoint):
    from pyspark.sql import functions as F

    views = (spark.readStream.format("cbkafka")
             .option("kafka.bootstrap.servers", bootstrap)
             .option("subscribe", source)
             .option("startingOffsets", "earliest")
             .option("maxOffsetsPerTrigger", "100")
             .load())
    counts = (views
              .select(F.col("timestamp"), F.col("value").cast("string").alias("page"))
              .withWatermark("timestamp", "5 seconds")
              .groupBy(F.window("timestamp", "10 seconds"), "page")
              .count())
    out = counts.select(
        F.col("page").cast("binary").alias("key"),
        F.to_json(F.struct(F.col("window.start").cast("string").alias("window"), "page",
                           "count")).alias("value"))
    query = (out.writeStream.format("cbkafka")
             .option("kafka.bootstrap.servers", bootstrap)
             .option("topic", sink)
             .option("checkpointLocation", checkpoint)
             .outputMode("append")
             .start())
    try:
        query.processAllAvailable()
        batches = [p for p in query.recentProgress if p["numInputRows"]]
        print("  %d micro-batches, %d input rows" % (
            len(batches), sum(p["numInputRows"] for p in batches)))
    finally:
        query.stop()


def read_all(conf, topic):
    c = kafka.Consumer(dict(conf, **{"group.id": "demo-%s" % uuid.uuid4().hex,
                                     "auto.offset.reset": "earliest",
                                     "enable.partition.eof": True}))
    c.subscribe([topic])
    out, eof = [], False
    deadline = time.monotonic() + 30
    while not eof and time.monotonic() < deadline:
        for m in c.consume(500, 1.0):
            if m.error() is None:
                out.append(json.loads(m.value()))
            elif m.error().code() == kafka.KafkaError._PARTITION_EOF:
                eof = True
    c.close()
    return out


def main():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import confluent_binding.spark

    with cluster() as c:
        source = "page-views-%s" % uuid.uuid4().hex[:6]
        sink = "page-counts-%s" % uuid.uuid4().hex[:6]
        c.create_topic(source, partitions=3)
        c.create_topic(sink, partitions=1)
        conf = c.client_config()
        base = (int(time.time()) // 60 * 60 - 600) * 1000   # ten minutes ago, on a minute
        t0 = time.perf_counter()
        spark = (SparkSession.builder.master("local[2]").appName("spark-pipeline-demo")
                 .config("spark.ui.enabled", "false")
                 .config("spark.sql.shuffle.partitions", "2")
                 .config("spark.sql.session.timeZone", "UTC")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        confluent_binding.spark.register(spark)
        print("Spark %s local[2] started in %.1f s" % (spark.version, time.perf_counter() - t0))
        checkpoint = tempfile.mkdtemp(prefix="spark-pipeline-checkpoint-")

        n1 = produce_views(conf, source, 0, 240, base)            # one minute of views
        print("produced %d page views into %s; streaming them into %s ..." % (n1, source, sink))
        run_query(spark, c.bootstrap_servers, source, sink, checkpoint)
        n2 = produce_views(conf, source, n1, 240, base)           # the next minute
        print("produced %d more; restarting the query from its checkpoint ..." % n2)
        run_query(spark, c.bootstrap_servers, source, sink, checkpoint)
        spark.stop()

        rows = read_all(conf, sink)
        per_window = collections.OrderedDict()
        for r in sorted(rows, key=lambda r: (r["window"], r["page"])):
            per_window.setdefault(r["window"], {})[r["page"]] = r["count"]
        print("%s holds %d window counts (windows close when the watermark passes them):"
              % (sink, len(rows)))
        for window, pages in list(per_window.items())[:4]:
            print("  %s  %s" % (window, "  ".join("%s=%d" % kv for kv in sorted(pages.items()))))
        if len(per_window) > 4:
            print("  ... %d more windows" % (len(per_window) - 4))
        counted = sum(r["count"] for r in rows)
        once = len({(r["window"], r["page"]) for r in rows}) == len(rows)
        # The last windows are still open: no later event moved the watermark past them.
        print("events counted in closed windows: %d of %d produced; every (window, page) "
              "written once: %s" % (counted, n1 + n2, once))


if __name__ == "__main__":
    main()
