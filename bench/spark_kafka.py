"""Spark: this project's Kafka source ("cbkafka") vs Spark's built-in connector (spark-sql-kafka).

    python bench/spark_kafka.py [--counts 1000000,10000000] [--rounds 3] [--warmup 3]

Both read the same topic (N x 100 B records in 2 partitions, filled once with rdkafka_performance)
in one local[2] SparkSession, with the same options (subscribe, startingOffsets=earliest,
endingOffsets=latest), into df.count() and into a parquet sink. The connector's jars are the
installed pyspark's version, resolved from Maven Central with mvn (bench/spark/pom.xml).
Rounds interleave the two sources (order rotated each round). The first query of each source is
reported on its own; ``--warmup`` queries per source (the JVM's JIT warm-up) precede the measured
rounds and are not counted. Rows/s per query; the ratio is ours / built-in at the median. Per
query also the CPU seconds (per million rows) of the JVM (the tasks: Kafka fetch or Arrow read,
rows, count/parquet) and of Spark's Python workers (this source's reads: consume_arrow and the
Arrow hand-off to the JVM), from /proc, and the load average of the machine.
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


def session(jars: list):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    import confluent_binding.spark

    s = (SparkSession.builder.master("local[2]").appName("bench-spark-kafka")
         .config("spark.jars", ",".join(jars))
         .config("spark.ui.enabled", "false")
         .config("spark.driver.memory", "3g")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.python.worker.reuse", "true")
         .getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    confluent_binding.spark.register(s)
    return s


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 when it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children() -> dict:
    """{pid: parent pid} of every process (Linux /proc; empty elsewhere)."""
    out = {}
    for d in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    out[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return out


class CpuSplit:
    """CPU of the Spark JVM (this process's child) and of its Python workers (its descendants)
    between two snapshots."""

    def __init__(self):
        parents = _children()
        jvms = [p for p, pp in parents.items() if pp == os.getpid()]
        self.jvm = jvms[0] if len(jvms) == 1 else None

    def snapshot(self) -> tuple:
        if self.jvm is None:
            return 0.0, {}
        parents = _children()
        workers, todo = [], [self.jvm]
        while todo:
            parent = todo.pop()
            kids = [p for p, pp in parents.items() if pp == parent]
            workers += kids
            todo += kids
        return _cpu_seconds(self.jvm), {p: _cpu_seconds(p) for p in workers}

    @staticmethod
    def delta(before: tuple, after: tuple) -> tuple:
        """(JVM CPU-s, Python workers' CPU-s) between two snapshots."""
        return after[0] - before[0], sum(v - before[1].get(p, 0.0) for p, v in after[1].items())


def query(spark, source: str, sink: str, bootstrap: str, topic: str, out_dir: str) -> tuple:
    fmt = {"ours": "cbkafka", "builtin": "kafka"}[source]
    df = (spark.read.format(fmt).option("kafka.bootstrap.servers", bootstrap)
          .option("subscribe", topic).option("startingOffsets", "earliest")
          .option("endingOffsets", "latest").load())
    t0 = time.perf_counter()
    if sink == "count":
        n = df.count()
    else:
        path = os.path.join(out_dir, "%s-%s" % (source, uuid.uuid4().hex[:6]))
        df.write.mode("overwrite").parquet(path)
        t1 = time.perf_counter()
        n = spark.read.parquet(path).count()
        shutil.rmtree(path, ignore_errors=True)
        return n, t1 - t0
    return n, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--counts", default="1000000,10000000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=3, help="warm-up queries per source")
    ap.add_argument("--sinks", default="count,parquet")
    ap.add_argument("--bootstrap", help="use this broker instead of starting one")
    args = ap.parse_args()
    import pyspark

    jars = connector_jars(pyspark.__version__)
    with broker(args.bootstrap, "bench-spark-") as (bootstrap, cluster):
        return run(args, bootstrap, cluster, jars, pyspark.__version__)


def run(args, bootstrap, cluster, jars, spark_version) -> int:
    out_dir = tempfile.mkdtemp(prefix="bench-spark-out-")
    results = {"spark": spark_version, "jars": [os.path.basename(j) for j in jars],
               "partitions": PARTITIONS, "size": SIZE, "cases": []}
    try:
        spark = session(jars)
        split = CpuSplit()
        sources = ["builtin", "ours"]
        sinks = args.sinks.split(",")
        for count in (int(c) for c in args.counts.split(",")):
            topic = "bench-spark-%d-%s" % (count, uuid.uuid4().hex[:6])
            cluster.create_topic(topic, partitions=PARTITIONS)
            print("filling %s: %d x %d B in %d partitions" % (topic, count, SIZE, PARTITIONS),
                  flush=True)
            fill(bootstrap, topic, count, PARTITIONS, SIZE)
            case = {"count": count, "first": {}, "warmup": {}, "runs": {}, "cpu": {}, "load": []}
            for src in sources:
                for i in range(args.warmup if not results["cases"] else 1):
                    n, secs = query(spark, src, "count", bootstrap, topic, out_dir)
                    assert n == count, (src, n, count)
                    key = "first" if i == 0 and not results["cases"] else "warmup"
                    case[key].setdefault(src, []).append(n / secs)
                    print("warm-up %-7s %10.0f rows/s" % (src, n / secs), flush=True)
            for rnd in range(args.rounds):
                order = sources if rnd % 2 == 0 else sources[::-1]
                for sink in sinks:
                    for src in order:
                        before = split.snapshot()
                        n, secs = query(spark, src, sink, bootstrap, topic, out_dir)
                        jvm, py = split.delta(before, split.snapshot())
                        load = os.getloadavg()[0]
                        assert n == count, (src, sink, n, count)
                        key = "%s/%s" % (src, sink)
                        case["runs"].setdefault(key, []).append(n / secs)
                        case["cpu"].setdefault(key, []).append([jvm / (n / 1e6), py / (n / 1e6)])
                        case["load"].append(load)
                        print("round %d %-7s %-7s %10.0f rows/s  CPU-s per M rows: JVM %.2f, "
                              "Python workers %.2f  load %.1f"
                              % (rnd, src, sink, n / secs, jvm / (n / 1e6), py / (n / 1e6), load),
                              flush=True)
            results["cases"].append(case)
            cluster.delete_topic(topic)
        spark.stop()
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    table = summarize(results, args)
    os.makedirs(RESULTS, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    with open(os.path.join(RESULTS, "spark-%s.json" % stamp), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(RESULTS, "spark-%s.md" % stamp), "w") as f:
        f.write(table)
    print(table)
    return 0


def summarize(results: dict, args) -> str:
    lines = ["Spark %s, local[2], %d cores; %d x 100 B partitions; %d measured rounds after "
             "%d warm-up queries per source (rows/s, median (min-max))"
             % (results["spark"], os.cpu_count() or 0, PARTITIONS, args.rounds, args.warmup),
             "", "| rows | sink | built-in connector | cbkafka (this project) | ratio "
             "| CPU-s per M rows, built-in: JVM | cbkafka: JVM + Python workers |",
             "|---|---|---|---|---|---|---|"]
    loads = []
    for case in results["cases"]:
        loads += case.get("load", [])
        for sink in args.sinks.split(","):
            b = case["runs"]["builtin/%s" % sink]
            o = case["runs"]["ours/%s" % sink]
            bc = case.get("cpu", {}).get("builtin/%s" % sink) or [[0.0, 0.0]]
            oc = case.get("cpu", {}).get("ours/%s" % sink) or [[0.0, 0.0]]
            row = "| %d | %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.2fx | %.2f | %.2f + %.2f |"
            lines.append(row % (
                case["count"], sink, statistics.median(b), min(b), max(b),
                statistics.median(o), min(o), max(o), statistics.median(o) / statistics.median(b),
                statistics.median(c[0] for c in bc), statistics.median(c[0] for c in oc),
                statistics.median(c[1] for c in oc)))
    if loads:
        lines += ["", "Load average (1 min) during the measured queries: median %.1f (%.1f-%.1f)"
                  % (statistics.median(loads), min(loads), max(loads))]
    first = results["cases"][0]["first"]
    if first:
        lines += ["", "First query of the session (cold JVM), count: built-in %.0f rows/s, "
                  "cbkafka %.0f rows/s" % (first["builtin"][0], first["ours"][0])]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
