"""Spark: this project's Kafka source and sink ("cbkafka") vs Spark's built-in connector
(spark-sql-kafka), read and write, in local[2] and on a standalone cluster.

    python bench/spark_kafka.py [--rows 2000000] [--rounds 3] [--warmup 3]
                                [--ops count,parquet,write,avro] [--local | --cluster]
                                [--bootstrap SERVERS] [--schema-registry URL]

Read: both sources read the same topic (N x 100 B records in 2 partitions, filled once with
rdkafka_performance) with the same options (subscribe, startingOffsets=earliest,
endingOffsets=latest) into df.count() (``count``) or a parquet sink (``parquet``). Write: both
sinks write the same DataFrame (``spark.range`` of N rows in 2 partitions, a 100 B binary value
each) into a fresh 2-partition topic with their default producer settings (both idempotent,
acks=all); the topic's high watermarks are checked to hold N records.
Avro (``avro``): a 2-partition topic filled once with N records of bench/serdes.py's 10-field
``Payment`` (a decimal, a timestamp-millis, strings, an array among them), each encoded by this
project's AvroSerializer (the Schema Registry wire format: magic byte, schema id, Avro binary;
one schema, registered under ``<topic>-value``) and produced by this project's Producer, then
read into typed columns and aggregated by country over every field (count, sum of the decimal,
min and max of the timestamp, avg of the double, ...: ``AVRO_AGGREGATE``), collected to the
driver. cbkafka decodes in its source (``valueFormat=avro``, the reader schema from the
registry); the connector's side is ``from_avro(substring(value, 6, length(value) - 5), schema)``
of spark-avro (the installed pyspark's version, from Maven Central). Every query's result is
checked against the aggregate computed in Python while the topic was filled (exact, but the
average of the double to a relative 1e-12: the order of the partial sums may differ). The
Schema Registry is a local one started here (tests/support/schema_registry.py) unless
``--schema-registry`` names one.
Modes: ``local`` (one JVM, local[2]) and ``cluster`` (a standalone master and two workers of one
core each, started from PySpark's own ``spark-class`` by tests/support/spark_cluster.py; the
driver is this process's JVM and the executors are JVMs of their own, each with its own Python
workers). Both run by default, one after the other, with the same broker.
The connector's jars are the installed pyspark's version, resolved from Maven Central with mvn
(bench/spark/pom.xml); spark-avro (``avro``) is fetched as `make spark-connector-jars` does, into
the same cache. In every mode, ``--warmup`` queries per source and operation (the JVMs' JIT
warm-up) come first and are not counted; then the measured rounds interleave the two (order
rotated each round). Rows/s per query; the ratio is ours / built-in at the median. Per
query also the CPU seconds (per million rows) of every JVM involved (the driver, and the
executors on the cluster) and of every Python worker under them (this project's reads and
writes, Spark's Arrow hand-off, the data source planning), from /proc, and the load average.
Results: printed and written to bench/results/spark-<UTC time>.json and .md.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _local_broker import broker, fill  # noqa: E402
from serdes import AVRO_SCHEMA, payment  # noqa: E402

RESULTS = os.path.join(ROOT, "bench", "results")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
POM = os.path.join(ROOT, "bench", "spark", "pom.xml")
SIZE = 100
PARTITIONS = 2
SOURCES = ("builtin", "ours")
FORMATS = {"ours": "cbkafka", "builtin": "kafka"}
# Of the connector's runtime dependencies, what pyspark does not ship already.
CONNECTOR_JARS = ("spark-sql-kafka-0-10_", "spark-token-provider-kafka-0-10_", "kafka-clients-",
                  "commons-pool2-")
OPS = ("count", "parquet", "write", "avro")
OP_LABELS = {"count": "read, count()", "parquet": "read, parquet", "write": "write",
             "avro": "read Avro, aggregate"}
# The Avro query: per country (column name, Spark SQL over the decoded record ``v``), every
# field read. Timestamps as microseconds since the epoch (no time zone in the comparison).
AVRO_AGGREGATE = (
    ("n", "count(*)"),
    ("amount", "sum(v.amount)"),
    ("first_at", "unix_micros(min(v.at))"),
    ("last_at", "unix_micros(max(v.at))"),
    ("score", "avg(v.score)"),
    ("items", "sum(v.items)"),
    ("approved", "count_if(v.approved)"),
    ("tags", "sum(size(v.tags))"),
    ("max_id", "max(v.id)"),
    ("customer", "max(v.customer)"),
    ("email_chars", "sum(length(v.email))"),
)


def connector_jars(spark_version: str) -> list:
    from confluent_binding.testing._jars import DEPENDENCY_PLUGIN, cache_dir

    target = cache_dir() / ("spark-kafka-%s" % spark_version)
    stamp = target / ".complete"
    if not stamp.exists():
        tmp = tempfile.mkdtemp(prefix="spark-kafka.tmp-", dir=str(cache_dir()))
        subprocess.run(["mvn", "-B", "-q", "-f", POM, "-Dspark.version=%s" % spark_version,
                        DEPENDENCY_PLUGIN + ":copy-dependencies", "-DincludeScope=runtime",
                        "-DoutputDirectory=%s" % tmp], check=True, stdin=subprocess.DEVNULL)
        shutil.rmtree(str(target), ignore_errors=True)
        os.rename(tmp, str(target))
        stamp.write_text(spark_version)
    jars = sorted(str(p) for p in target.glob("*.jar") if p.name.startswith(CONNECTOR_JARS))
    if len(jars) != len(CONNECTOR_JARS):
        raise RuntimeError("expected %d connector jars in %s, found %s" % (
            len(CONNECTOR_JARS), target, jars))
    return jars


def avro_jars(spark_version: str) -> list:
    """spark-avro (``from_avro``) of ``spark_version`` from Maven Central, in the cache that
    `make spark-connector-jars` fills (its Avro library is among pyspark's own jars)."""
    from confluent_binding.testing._jars import DEPENDENCY_PLUGIN, cache_dir

    target = cache_dir() / ("spark-avro-%s" % spark_version)
    stamp = target / ".complete"
    if not stamp.exists():
        tmp = tempfile.mkdtemp(prefix="spark-avro.tmp-", dir=str(cache_dir()))
        subprocess.run(["mvn", "-B", "-q", DEPENDENCY_PLUGIN + ":copy",
                        "-Dartifact=org.apache.spark:spark-avro_2.13:%s" % spark_version,
                        "-DoutputDirectory=%s" % tmp], check=True, stdin=subprocess.DEVNULL)
        shutil.rmtree(str(target), ignore_errors=True)
        os.rename(tmp, str(target))
        stamp.write_text(spark_version + "\n")
    jars = sorted(str(p) for p in target.glob("spark-avro_*.jar"))
    if len(jars) != 1:
        raise RuntimeError("expected one spark-avro jar in %s, found %s" % (target, jars))
    return jars


def session(jars: list, conf: dict):
    """A SparkSession with ``conf`` (its master included) and the cbkafka source registered."""
    from pyspark.sql import SparkSession

    import confluent_binding.spark

    b = SparkSession.builder.appName("bench-spark-kafka")
    for k, v in dict({"spark.jars": ",".join(jars), "spark.ui.enabled": "false",
                      "spark.ui.showConsoleProgress": "false", "spark.driver.memory": "3g",
                      "spark.sql.shuffle.partitions": "2",
                      "spark.python.worker.reuse": "true"}, **conf).items():
        b = b.config(k, v)
    s = b.getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    confluent_binding.spark.register(s)
    return s


def local_conf() -> dict:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    return {"spark.master": "local[2]"}


def cluster_conf(cluster, workdir: str) -> dict:
    """The tests' session configuration for ``cluster``, with the JVMs' full JIT (the tests
    run theirs with C1 only, for start-up time) and executors of 1 GB."""
    from tests.support.spark_cluster import Driver

    conf = Driver(cluster, workdir, "bench").session_conf()
    conf.update({"spark.app.name": "bench-spark-kafka", "spark.driver.extraJavaOptions": "",
                 "spark.executor.extraJavaOptions": "", "spark.executor.memory": "1g",
                 "spark.task.maxFailures": "1"})
    # The driver JVM's own Python processes (the data source's planning) follow the environment
    # (as the tests' Driver sets it), not spark.pyspark.python.
    os.environ["PYSPARK_PYTHON"] = conf["spark.pyspark.python"]
    return conf


# -- CPU of the processes involved, from /proc ----------------------------------------------

def _stat(pid: int) -> list:
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 when it is gone)."""
    try:
        fields = _stat(pid)
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _parents() -> dict:
    """{pid: parent pid} of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                out[int(d)] = int(_stat(int(d))[1])
            except (OSError, IndexError, ValueError):
                pass
    return out


def _cmdline(pid: int) -> str:
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class Cpu:
    """CPU seconds, between two snapshots, of the Spark JVMs (this process's driver JVM and,
    on a cluster, the executor JVMs its workers run) and of every process under them (Spark's
    Python workers)."""

    def __init__(self, cluster=None):
        self.cluster = cluster
        drivers = [p for p, pp in _parents().items()
                   if pp == os.getpid() and "SparkSubmit" in _cmdline(p)]
        if len(drivers) != 1:
            raise RuntimeError("expected one Spark driver JVM under this process, found %s"
                               % drivers)
        self.driver = drivers[0]

    def snapshot(self) -> tuple:
        jvms = [self.driver] + (self.cluster.executor_pids() if self.cluster else [])
        parents = _parents()
        workers, todo = [], list(jvms)
        while todo:
            parent = todo.pop()
            kids = [p for p, pp in parents.items() if pp == parent]
            workers += kids
            todo += kids
        return {p: _cpu_seconds(p) for p in jvms}, {p: _cpu_seconds(p) for p in workers}

    @staticmethod
    def delta(before: tuple, after: tuple) -> tuple:
        """(JVMs' CPU-s, Python workers' CPU-s) between two snapshots (a process that started
        in between counts from 0; one that ended in between is not counted)."""
        return tuple(sum(v - b.get(p, 0.0) for p, v in a.items()) for b, a in zip(before, after))


# -- the queries ----------------------------------------------------------------------------

def read(spark, source: str, sink: str, bootstrap: str, topic: str, out_dir: str) -> tuple:
    df = (spark.read.format(FORMATS[source]).option("kafka.bootstrap.servers", bootstrap)
          .option("subscribe", topic).option("startingOffsets", "earliest")
          .option("endingOffsets", "latest").load())
    t0 = time.perf_counter()
    if sink == "count":
        n = df.count()
        return n, time.perf_counter() - t0
    path = os.path.join(out_dir, "%s-%s" % (source, uuid.uuid4().hex[:6]))
    df.write.mode("overwrite").parquet(path)
    secs = time.perf_counter() - t0
    n = spark.read.parquet(path).count()
    shutil.rmtree(path, ignore_errors=True)
    return n, secs


def _records(bootstrap: str, topic: str) -> int:
    from confluent_binding import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-spark-check"})
    try:
        return sum(c.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1]
                   for p in range(PARTITIONS))
    finally:
        c.close()


def write(spark, source: str, bootstrap: str, cluster, count: int) -> tuple:
    topic = "bench-spark-w-%s-%s" % (source, uuid.uuid4().hex[:6])
    cluster.create_topic(topic, partitions=PARTITIONS)
    df = spark.range(0, count, numPartitions=PARTITIONS).selectExpr(
        "CAST(lpad(CAST(id AS STRING), %d, '-') AS BINARY) AS value" % SIZE)
    try:
        t0 = time.perf_counter()
        (df.write.format(FORMATS[source]).mode("append")
         .option("kafka.bootstrap.servers", bootstrap).option("topic", topic).save())
        secs = time.perf_counter() - t0
        return _records(bootstrap, topic), secs
    finally:
        cluster.delete_topic(topic)


# -- Avro: the topic, the expected aggregate, the queries ---------------------------------------

def _micros(at) -> int:
    return (at - EPOCH) // datetime.timedelta(microseconds=1)


def _tally(acc: dict, rec: dict) -> None:
    """Adds ``rec`` (a ``payment``) to the per-country aggregate ``acc`` (AVRO_AGGREGATE's
    columns, the average as its sum until :func:`_finish`)."""
    a = acc.get(rec["country"])
    at = _micros(rec["at"])
    if a is None:
        a = acc[rec["country"]] = {"n": 0, "amount": decimal.Decimal(0), "first_at": at,
                                   "last_at": at, "score": 0.0, "items": 0, "approved": 0,
                                   "tags": 0, "max_id": rec["id"], "customer": rec["customer"],
                                   "email_chars": 0}
    a["n"] += 1
    a["amount"] += rec["amount"]
    a["first_at"] = min(a["first_at"], at)
    a["last_at"] = max(a["last_at"], at)
    a["score"] += rec["score"]
    a["items"] += rec["items"]
    a["approved"] += rec["approved"]
    a["tags"] += len(rec["tags"])
    a["max_id"] = max(a["max_id"], rec["id"])
    a["customer"] = max(a["customer"], rec["customer"])
    a["email_chars"] += len(rec["email"])


def _finish(acc: dict) -> dict:
    for a in acc.values():
        a["score"] /= a["n"]
    return acc


def fill_avro(bootstrap: str, topic: str, count: int, registry_url: str) -> dict:
    """Produces ``payment(0..count-1)`` into ``topic`` (record i into partition i % 2), each
    encoded by this project's AvroSerializer (one schema, registered under ``<topic>-value``);
    returns the expected aggregate, the mean record size and the fill's seconds."""
    from confluent_binding import Producer
    from confluent_binding.schema_registry import SchemaRegistryClient
    from confluent_binding.schema_registry.avro import AvroSerializer
    from confluent_binding.serialization import MessageField, SerializationContext

    client = SchemaRegistryClient({"url": registry_url})
    serialize = AvroSerializer(client, AVRO_SCHEMA)
    ctx = SerializationContext(topic, MessageField.VALUE)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5,
                         "batch.size": 1048576, "queue.buffering.max.messages": 1000000,
                         "enable.idempotence": False, "acks": "all"})
    acc: dict = {}
    size, header = 0, None
    t0 = time.perf_counter()
    for i in range(count):
        rec = payment(i)
        value = serialize(rec, ctx)
        if header is None:
            header = value[:5]
        assert value[:5] == header, (i, value[:5], header)  # one schema id throughout
        size += len(value)
        while True:
            try:
                producer.produce(topic, value, partition=i % PARTITIONS)
                break
            except BufferError:
                producer.poll(0.01)
        if i % 10000 == 9999:
            producer.poll(0)
        _tally(acc, rec)
    left = producer.flush(120)
    secs = time.perf_counter() - t0
    assert left == 0, "%d records undelivered" % left
    registered = client.get_latest_version(topic + "-value")
    assert header == b"\0" + registered.schema_id.to_bytes(4, "big"), (header, registered)
    assert _records(bootstrap, topic) == count
    return {"expected": _finish(acc), "record_bytes": size / count, "fill_seconds": secs}


def read_avro(spark, source: str, bootstrap: str, topic: str, registry_url: str) -> tuple:
    """The aggregate of the Avro topic by ``source``: ({country: {column: value}}, seconds of
    the query)."""
    from pyspark.sql.functions import col, expr

    reader = (spark.read.format(FORMATS[source]).option("kafka.bootstrap.servers", bootstrap)
              .option("subscribe", topic).option("startingOffsets", "earliest")
              .option("endingOffsets", "latest"))
    if source == "ours":
        df = (reader.option("valueFormat", "avro").option("schema.registry.url", registry_url)
              .load().select(col("value").alias("v")))
    else:
        from pyspark.sql.avro.functions import from_avro

        df = reader.load().select(from_avro(expr("substring(value, 6, length(value) - 5)"),
                                            AVRO_SCHEMA, {"mode": "FAILFAST"}).alias("v"))
    query = df.groupBy(col("v.country").alias("country")).agg(
        *[expr(sql).alias(name) for name, sql in AVRO_AGGREGATE])
    t0 = time.perf_counter()
    rows = query.collect()
    secs = time.perf_counter() - t0
    return {r["country"]: {k: v for k, v in r.asDict().items() if k != "country"}
            for r in rows}, secs


def avro_query(spark, source: str, bootstrap: str, topic: dict, registry_url: str) -> tuple:
    """(rows aggregated, seconds) of one checked Avro query (``topic``: :func:`fill_avro`'s
    result and the topic's name)."""
    got, secs = read_avro(spark, source, bootstrap, topic["topic"], registry_url)
    return check_aggregate(source, got, topic["expected"]), secs


def check_aggregate(source: str, got: dict, expected: dict) -> int:
    """Raises unless ``got`` is ``expected`` (the average of the double to a relative 1e-12);
    returns the rows counted."""
    problems = []
    if sorted(got) != sorted(expected):
        problems.append("countries %s, expected %s" % (sorted(got), sorted(expected)))
    for country in sorted(set(got) & set(expected)):
        for name, want in expected[country].items():
            have = got[country][name]
            same = (math.isclose(have, want, rel_tol=1e-12) if name == "score"
                    else have == want)
            if not same:
                problems.append("%s %s: %r, expected %r" % (country, name, have, want))
    if problems:
        raise AssertionError("%s: the Avro aggregate differs: %s" % (source,
                                                                    "; ".join(problems)))
    return sum(a["n"] for a in got.values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", "--counts", dest="rows", default="2000000",
                    help="records per query; a comma-separated list runs each size")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=3,
                    help="warm-up queries per source and operation in each mode")
    ap.add_argument("--ops", "--sinks", dest="ops", default="count,write",
                    help="of count (read into df.count()), parquet (read into parquet), write, "
                         "avro (read Avro records into typed columns and aggregate)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--local", dest="modes", action="store_const", const=["local"],
                      help="only local[2]")
    mode.add_argument("--cluster", dest="modes", action="store_const", const=["cluster"],
                      help="only the standalone cluster")
    ap.add_argument("--bootstrap", help="use this broker instead of starting one")
    ap.add_argument("--schema-registry", help="(avro) use this Schema Registry instead of "
                                              "starting one")
    args = ap.parse_args()
    args.modes = args.modes or ["local", "cluster"]
    args.ops = args.ops.split(",")
    unknown = set(args.ops) - set(OPS)
    if unknown:
        ap.error("unknown --ops: %s" % ", ".join(sorted(unknown)))
    import pyspark

    jars = connector_jars(pyspark.__version__)
    if "avro" in args.ops:
        jars += avro_jars(pyspark.__version__)
    registry = None
    if "avro" in args.ops and not args.schema_registry:
        from tests.support.schema_registry import SchemaRegistryServer

        registry = SchemaRegistryServer().start()
        args.schema_registry = registry.url
    try:
        with broker(args.bootstrap, "bench-spark-") as (bootstrap, cluster):
            return run(args, bootstrap, cluster, jars, pyspark.__version__)
    finally:
        if registry is not None:
            registry.stop()


def _measure(case: dict, key: str, cpu: Cpu, fn, count: int, label: str) -> None:
    before = cpu.snapshot()
    n, secs = fn()
    jvm, py = cpu.delta(before, cpu.snapshot())
    load = os.getloadavg()[0]
    assert n == count, (key, n, count)
    case["runs"].setdefault(key, []).append(n / secs)
    case["cpu"].setdefault(key, []).append([jvm / (n / 1e6), py / (n / 1e6)])
    case["load"].append(load)
    print("%-8s %-7s %-7s %10.0f rows/s  CPU-s per M rows: JVMs %.2f, Python workers %.2f  "
          "load %.1f" % ((label,) + tuple(key.split("/")) + (n / secs, jvm / (n / 1e6),
                                                             py / (n / 1e6), load)), flush=True)


def run(args, bootstrap, kafka, jars, spark_version) -> int:
    out_dir = tempfile.mkdtemp(prefix="bench-spark-out-")
    results = {"spark": spark_version, "jars": [os.path.basename(j) for j in jars],
               "partitions": PARTITIONS, "size": SIZE, "rounds": args.rounds,
               "warmup": args.warmup, "cpus": os.cpu_count(), "ops": args.ops, "cases": []}
    counts = [int(c) for c in args.rows.split(",")]
    topics, avro = {}, {}
    try:
        if set(args.ops) & {"count", "parquet"}:
            for count in counts:
                topics[count] = "bench-spark-%d-%s" % (count, uuid.uuid4().hex[:6])
                kafka.create_topic(topics[count], partitions=PARTITIONS)
                print("filling %s: %d x %d B in %d partitions"
                      % (topics[count], count, SIZE, PARTITIONS), flush=True)
                fill(bootstrap, topics[count], count, PARTITIONS, SIZE)
        if "avro" in args.ops:
            results["avro"] = {"schema": "bench/serdes.py AVRO_SCHEMA (Payment, 10 fields)",
                               "aggregate": [list(a) for a in AVRO_AGGREGATE], "topics": {}}
            for count in counts:
                topic = "bench-spark-avro-%d-%s" % (count, uuid.uuid4().hex[:6])
                kafka.create_topic(topic, partitions=PARTITIONS)
                avro[count] = dict(fill_avro(bootstrap, topic, count, args.schema_registry),
                                   topic=topic)
                print("filled %s: %d Avro records of %.1f B (framed) in %d partitions in %.1f s"
                      % (topic, count, avro[count]["record_bytes"], PARTITIONS,
                         avro[count]["fill_seconds"]), flush=True)
                results["avro"]["topics"][str(count)] = {
                    "record_bytes": avro[count]["record_bytes"],
                    "fill_seconds": avro[count]["fill_seconds"],
                    "expected": {c: {k: str(v) if isinstance(v, decimal.Decimal) else v
                                     for k, v in a.items()}
                                 for c, a in avro[count]["expected"].items()}}
        for mode in args.modes:
            run_mode(args, mode, bootstrap, kafka, jars, counts, topics, avro, out_dir, results)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
        for topic in list(topics.values()) + [a["topic"] for a in avro.values()]:
            kafka.delete_topic(topic)
    table = summarize(results)
    os.makedirs(RESULTS, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    with open(os.path.join(RESULTS, "spark-%s.json" % stamp), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(RESULTS, "spark-%s.md" % stamp), "w") as f:
        f.write(table)
    print(table)
    return 0


def run_mode(args, mode, bootstrap, kafka, jars, counts, topics, avro, out_dir,
             results) -> None:
    standalone = None
    workdir = tempfile.mkdtemp(prefix="bench-spark-%s-" % mode)
    try:
        if mode == "cluster":
            from tests.support.spark_cluster import SparkStandalone

            standalone = SparkStandalone(os.path.join(workdir, "cluster"), workers=2, cores=1,
                                         worker_memory="1536m").start()
            print("standalone cluster %s: master and 2 workers up in %.1f s"
                  % (standalone.url, standalone.timings["start"]), flush=True)
            conf = cluster_conf(standalone, os.path.join(workdir, "driver"))
        else:
            conf = local_conf()
        spark = session(jars, conf)
        try:
            if standalone is not None:
                standalone.wait_for_executors(2)
            cpu = Cpu(standalone)

            def job(op, src, count):
                if op == "write":
                    return lambda: write(spark, src, bootstrap, kafka, count)
                if op == "avro":
                    return lambda: avro_query(spark, src, bootstrap, avro[count],
                                              args.schema_registry)
                return lambda: read(spark, src, op, bootstrap, topics[count], out_dir)

            for count in counts:
                case = {"mode": mode, "count": count, "first": {}, "warmup": {}, "runs": {},
                        "cpu": {}, "load": []}
                for op in args.ops:
                    for src in SOURCES:
                        for _ in range(args.warmup):
                            n, secs = job(op, src, count)()
                            assert n == count, (mode, op, src, n, count)
                            which = "first" if not case["first"].get(src) else "warmup"
                            case[which].setdefault(src, []).append([op, n / secs])
                            print("%-8s %-7s %-7s %10.0f rows/s (warm-up)"
                                  % (mode, src, op, n / secs), flush=True)
                for rnd in range(args.rounds):
                    order = SOURCES if rnd % 2 == 0 else SOURCES[::-1]
                    for op in args.ops:
                        for src in order:
                            _measure(case, "%s/%s" % (src, op), cpu, job(op, src, count), count,
                                     "%s r%d" % (mode, rnd))
                results["cases"].append(case)
        finally:
            spark.stop()
    finally:
        if standalone is not None:
            standalone.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _k(v: float) -> str:
    return "%.2fM" % (v / 1e6) if v >= 1e6 else "%.0fk" % (v / 1e3)


def summarize(results: dict) -> str:
    avro = results.get("avro")
    records = "N x %d B records" % results["size"]
    if avro:
        sizes = sorted({round(t["record_bytes"]) for t in avro["topics"].values()})
        records = "%sN Avro records of ~%s B (framed; bench/serdes.py's Payment, 10 fields)" % (
            records + " (count, parquet, write), " if set(results.get("ops") or ()) - {"avro"}
            else "", "/".join(str(s) for s in sizes))
    lines = ["Spark %s, %d cores; %s in %d partitions; %d measured rounds "
             "(sources interleaved) after %d warm-up queries per source and operation; rows/s "
             "median (min-max); CPU-s per M rows (JVMs + Python workers), median"
             % (results["spark"], results.get("cpus") or 0, records,
                results["partitions"], results["rounds"], results["warmup"]),
             "", "| mode | rows | operation | built-in connector | cbkafka (this project) | ratio "
             "| CPU built-in | CPU cbkafka | load average |",
             "|---|---|---|---|---|---|---|---|---|"]
    for case in results["cases"]:
        load = case["load"]
        loadtxt = "%.1f (%.1f-%.1f)" % (statistics.median(load), min(load), max(load))
        ops = sorted({k.split("/")[1] for k in case["runs"]}, key=OPS.index)
        for op in ops:
            b, o = case["runs"]["builtin/%s" % op], case["runs"]["ours/%s" % op]
            bc, oc = case["cpu"]["builtin/%s" % op], case["cpu"]["ours/%s" % op]

            def cpu(c):
                return "%.2f + %.2f" % (statistics.median(x[0] for x in c),
                                        statistics.median(x[1] for x in c))

            lines.append("| %s | %s | %s | %s (%s-%s) | %s (%s-%s) | %.2fx | %s | %s | %s |" % (
                case["mode"], _k(case["count"]), OP_LABELS[op], "{:,.0f}".format(
                    statistics.median(b)), _k(min(b)), _k(max(b)),
                "{:,.0f}".format(statistics.median(o)), _k(min(o)), _k(max(o)),
                statistics.median(o) / statistics.median(b), cpu(bc), cpu(oc), loadtxt))
    firsts = ["%s %s: built-in %s, cbkafka %s" % (
        c["mode"], c["first"]["builtin"][0][0], "{:,.0f}".format(c["first"]["builtin"][0][1]),
        "{:,.0f}".format(c["first"]["ours"][0][1])) for c in results["cases"] if c["first"]]
    if firsts:
        lines += ["", "First query of each source in each mode (cold JVMs, Python workers "
                  "starting), rows/s: " + "; ".join(firsts)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
