"""Spark: this project's Kafka source and sink ("cbkafka") vs Spark's built-in connector
(spark-sql-kafka), read and write, in local[2] and on a standalone cluster.

    python bench/spark_kafka.py [--rows 2000000] [--rounds 3] [--warmup 3] [--ops count,write]
                                [--local | --cluster]

Read: both sources read the same topic (N x 100 B records in 2 partitions, filled once with
rdkafka_performance) with the same options (subscribe, startingOffsets=earliest,
endingOffsets=latest) into df.count() (``count``) or a parquet sink (``parquet``). Write: both
sinks write the same DataFrame (``spark.range`` of N rows in 2 partitions, a 100 B binary value
each) into a fresh 2-partition topic with their default producer settings (both idempotent,
acks=all); the topic's high watermarks are checked to hold N records.
Modes: ``local`` (one JVM, local[2]) and ``cluster`` (a standalone master and two workers of one
core each, started from PySpark's own ``spark-class`` by tests/support/spark_cluster.py; the
driver is this process's JVM and the executors are JVMs of their own, each with its own Python
workers). Both run by default, one after the other, with the same broker.
The connector's jars are the installed pyspark's version, resolved from Maven Central with mvn
(bench/spark/pom.xml). In every mode, ``--warmup`` queries per source and operation (the JVMs'
JIT warm-up) come first and are not counted; then the measured rounds interleave the two
(order rotated each round). Rows/s per query; the ratio is ours / built-in at the median. Per
query also the CPU seconds (per million rows) of every JVM involved (the driver, and the
executors on the cluster) and of every Python worker under them (this project's reads and
writes, Spark's Arrow hand-off, the data source planning), from /proc, and the load average.
Results: printed and written to bench/results/spark-<UTC time>.json and .md.
"""

from __future__ import annotations

import argparse
import json
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

RESULTS = os.path.join(ROOT, "bench", "results")
POM = os.path.join(ROOT, "bench", "spark", "pom.xml")
SIZE = 100
PARTITIONS = 2
SOURCES = ("builtin", "ours")
FORMATS = {"ours": "cbkafka", "builtin": "kafka"}
# Of the connector's runtime dependencies, what pyspark does not ship already.
CONNECTOR_JARS = ("spark-sql-kafka-0-10_", "spark-token-provider-kafka-0-10_", "kafka-clients-",
                  "commons-pool2-")


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", "--counts", dest="rows", default="2000000",
                    help="records per query; a comma-separated list runs each size")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=3,
                    help="warm-up queries per source and operation in each mode")
    ap.add_argument("--ops", "--sinks", dest="ops", default="count,write",
                    help="of count (read into df.count()), parquet (read into parquet), write")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--local", dest="modes", action="store_const", const=["local"],
                      help="only local[2]")
    mode.add_argument("--cluster", dest="modes", action="store_const", const=["cluster"],
                      help="only the standalone cluster")
    ap.add_argument("--bootstrap", help="use this broker instead of starting one")
    args = ap.parse_args()
    args.modes = args.modes or ["local", "cluster"]
    args.ops = args.ops.split(",")
    unknown = set(args.ops) - {"count", "parquet", "write"}
    if unknown:
        ap.error("unknown --ops: %s" % ", ".join(sorted(unknown)))
    import pyspark

    jars = connector_jars(pyspark.__version__)
    with broker(args.bootstrap, "bench-spark-") as (bootstrap, cluster):
        return run(args, bootstrap, cluster, jars, pyspark.__version__)


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
               "warmup": args.warmup, "cpus": os.cpu_count(), "cases": []}
    counts = [int(c) for c in args.rows.split(",")]
    topics = {}
    try:
        if set(args.ops) & {"count", "parquet"}:
            for count in counts:
                topics[count] = "bench-spark-%d-%s" % (count, uuid.uuid4().hex[:6])
                kafka.create_topic(topics[count], partitions=PARTITIONS)
                print("filling %s: %d x %d B in %d partitions"
                      % (topics[count], count, SIZE, PARTITIONS), flush=True)
                fill(bootstrap, topics[count], count, PARTITIONS, SIZE)
        for mode in args.modes:
            run_mode(args, mode, bootstrap, kafka, jars, counts, topics, out_dir, results)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
        for topic in topics.values():
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


def run_mode(args, mode, bootstrap, kafka, jars, counts, topics, out_dir, results) -> None:
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
    lines = ["Spark %s, %d cores; N x %d B records in %d partitions; %d measured rounds "
             "(sources interleaved) after %d warm-up queries per source and operation; rows/s "
             "median (min-max); CPU-s per M rows (JVMs + Python workers), median"
             % (results["spark"], results.get("cpus") or 0, results["size"],
                results["partitions"], results["rounds"], results["warmup"]),
             "", "| mode | rows | operation | built-in connector | cbkafka (this project) | ratio "
             "| CPU built-in | CPU cbkafka | load average |",
             "|---|---|---|---|---|---|---|---|---|"]
    for case in results["cases"]:
        load = case["load"]
        loadtxt = "%.1f (%.1f-%.1f)" % (statistics.median(load), min(load), max(load))
        ops = sorted({k.split("/")[1] for k in case["runs"]}, key=["count", "parquet",
                                                                   "write"].index)
        for op in ops:
            b, o = case["runs"]["builtin/%s" % op], case["runs"]["ours/%s" % op]
            bc, oc = case["cpu"]["builtin/%s" % op], case["cpu"]["ours/%s" % op]

            def cpu(c):
                return "%.2f + %.2f" % (statistics.median(x[0] for x in c),
                                        statistics.median(x[1] for x in c))

            lines.append("| %s | %s | %s | %s (%s-%s) | %s (%s-%s) | %.2fx | %s | %s | %s |" % (
                case["mode"], _k(case["count"]), "read, count()" if op == "count" else
                "read, parquet" if op == "parquet" else "write", "{:,.0f}".format(
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
