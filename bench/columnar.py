"""Workload C3 (columnar consume) beside C2 and the C tool, on a real local broker.

    python bench/columnar.py [--count 2000000] [--rounds 5] [--bootstrap host:port]

C2  confluent_binding Consumer.consume(1000): one Message per record
C3  confluent_binding Consumer.consume_arrow(10000): Arrow record batches, no per-record object
C   rdkafka_performance -G <group> -B 1000 (librdkafka's own tool, the C ceiling)

One topic of ``--count`` x 100 B records in one partition is filled once with rdkafka_performance.
Every measurement is a fresh process; the clients' order rotates each round; the first round is
a warm-up (page cache, JIT-less but still: broker caches) and is reported separately. Each
Python run assigns partition 0 from offset 0 and is timed from its first record to the last;
CPU is the process's user+system time (librdkafka's threads included), per million records.
Results: printed, and written to bench/results/columnar-<UTC time>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _local_broker import broker  # noqa: E402
from harness import settings  # noqa: E402

PERF_BIN = os.path.join(ROOT, "librdkafka-build", "static", "bin", "rdkafka_performance")
RESULTS = os.path.join(ROOT, "bench", "results")
SIZE = 100
# The consumer settings of make bench (bench/harness/settings.py), for all three.
CONSUMER_CONF = dict(
    settings.librdkafka_consumer(),
    **{"queued.min.messages": settings.CONSUMER["queued_min_messages"],
       "enable.auto.commit": False, "enable.partition.eof": False},
)


def run_one(kind: str, bootstrap: str, topic: str, count: int) -> dict:
    """One measurement in this process (called in a fresh subprocess)."""
    import confluent_binding as kafka

    conf = dict(CONSUMER_CONF, **{"bootstrap.servers": bootstrap, "group.id": "c3-" + kind})
    c = kafka.Consumer(conf)
    c.assign([kafka.TopicPartition(topic, 0, 0)])
    got = 0
    nbytes = 0
    t0 = None
    cpu0 = None
    if kind == "C3":
        import pyarrow  # noqa: F401  (imported before timing, like the C2 run's classes)

        ends = {(topic, 0): count}
        while got < count:
            b = c.consume_arrow(10000, 1.0, end_offsets=ends)
            if b.num_rows and t0 is None:
                t0, cpu0 = time.perf_counter(), _cpu()
            got += b.num_rows
            nbytes += b.column(1).nbytes if b.num_rows else 0
    else:
        while got < count:
            msgs = c.consume(1000, 1.0)
            if msgs and t0 is None:
                t0, cpu0 = time.perf_counter(), _cpu()
            for m in msgs:
                if m.error() is None:
                    got += 1
                    nbytes += len(m.value())
    t1, cpu1 = time.perf_counter(), _cpu()
    c.close()
    return {"messages": got, "seconds": t1 - t0, "cpu_seconds": cpu1 - cpu0}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


_C_RE = re.compile(r"% (\d+) messages \((\d+) bytes\) consumed in (\d+)ms")


def run_c(bootstrap: str, topic: str, count: int) -> dict:
    cmd = [PERF_BIN, "-G", "c3-perf-%s" % uuid.uuid4().hex[:8], "-t", topic, "-b", bootstrap,
           "-c", str(count), "-B", "1000", "-X", "auto.offset.reset=earliest"]
    cmd += settings.c_tool_consumer_flags(settings.fetch_queue_backoff_ms())
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = _C_RE.findall(out)
    if not m:
        raise RuntimeError("rdkafka_performance printed no summary: %s" % out[-500:])
    got, _nbytes, ms = (int(x) for x in m[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"messages": got, "seconds": int(ms) / 1000.0, "cpu_seconds": cpu,
            "note": "CPU of the whole process (start-up and group join included)"}


def measure(kind: str, bootstrap: str, topic: str, count: int) -> dict:
    if kind == "C":
        return run_c(bootstrap, topic, count)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", kind,
                          "--bootstrap", bootstrap, "--topic", topic, "--count", str(count)],
                         capture_output=True, text=True, timeout=600)
    if out.returncode:
        raise RuntimeError("%s failed: %s" % (kind, out.stderr[-2000:]))
    return json.loads(out.stdout.strip().splitlines()[-1])


def fill(bootstrap: str, topic: str, count: int) -> None:
    cmd = [PERF_BIN, "-P", "-t", topic, "-b", bootstrap, "-s", str(SIZE), "-c", str(count),
           "-p", "0", "-a", "-1", "-X", "linger.ms=5", "-X", "batch.size=1048576",
           "-X", "queue.buffering.max.messages=1000000", "-X", "enable.idempotence=false"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=1200)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=5, help="measured rounds (after one warm-up)")
    ap.add_argument("--bootstrap", help="use this broker instead of starting one")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--topic", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.bootstrap, args.topic, args.count)))
        return 0
    if not os.path.exists(PERF_BIN):
        sys.exit("rdkafka_performance is missing: run 'make bench-setup' first")
    with broker(args.bootstrap, "bench-c3-") as (bootstrap, cluster):
        return run(args, bootstrap, cluster)


def run(args, bootstrap, cluster) -> int:
    topic = "bench-c3-%s" % uuid.uuid4().hex[:8]
    if cluster is not None:
        cluster.create_topic(topic, partitions=1)
    print("filling %s with %d x %d B ..." % (topic, args.count, SIZE), flush=True)
    fill(bootstrap, topic, args.count)
    kinds = ["C", "C2", "C3"]
    runs = {k: [] for k in kinds}
    warm = {}
    for rnd in range(args.rounds + 1):
        order = kinds[rnd % 3:] + kinds[:rnd % 3]
        for k in order:
            r = measure(k, bootstrap, topic, args.count)
            if r["messages"] != args.count:
                raise RuntimeError("%s read %d of %d" % (k, r["messages"], args.count))
            r["rate"] = r["messages"] / r["seconds"]
            r["cpu_s_per_M"] = r["cpu_seconds"] / (r["messages"] / 1e6)
            (runs[k].append(r) if rnd else warm.__setitem__(k, r))
            print("round %d %-3s %10.0f msgs/s  %.2f CPU-s/M" % (
                rnd, k, r["rate"], r["cpu_s_per_M"]), flush=True)
    table = summarize(runs, warm, args)
    os.makedirs(RESULTS, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    with open(os.path.join(RESULTS, "columnar-%s.json" % stamp), "w") as f:
        json.dump({"count": args.count, "size": SIZE, "rounds": runs, "warmup": warm}, f,
                  indent=1)
    with open(os.path.join(RESULTS, "columnar-%s.md" % stamp), "w") as f:
        f.write(table)
    print(table)
    return 0


def summarize(runs: dict, warm: dict, args) -> str:
    c_rate = statistics.median(r["rate"] for r in runs["C"])
    c_cpu = statistics.median(r["cpu_s_per_M"] for r in runs["C"])
    lines = [
        "C3 columnar consume: %d x %d B, one partition, %d rounds after one warm-up, %d cores"
        % (args.count, SIZE, args.rounds, os.cpu_count() or 0),
        "",
        "| workload | msgs/s median (min-max) | vs C tool | CPU-s per M | warm-up msgs/s |",
        "|---|---|---|---|---|",
    ]
    names = {"C": "rdkafka_performance -G -B 1000", "C2": "C2 consume(1000)",
             "C3": "C3 consume_arrow(10000)"}
    for k in ("C", "C2", "C3"):
        rates = [r["rate"] for r in runs[k]]
        cpu = statistics.median(r["cpu_s_per_M"] for r in runs[k])
        lines.append("| %s | %.0f (%.0f-%.0f) | %.2fx | %.2f (%.2fx) | %.0f |" % (
            names[k], statistics.median(rates), min(rates), max(rates),
            statistics.median(rates) / c_rate, cpu, cpu / c_cpu, warm[k]["rate"]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
