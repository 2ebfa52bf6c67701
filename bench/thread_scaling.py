"""Scaling with threads in one process: N = 1 and 2 threads, on free-threaded CPython and with the
GIL, ours side by side with confluent-kafka. Two workloads:

- ``consume``: N threads, each with its own Consumer assigned to its own partition of a pre-filled
  topic (JSON values of about 60 B), ``consume(1000, 1.0)`` in a loop, ``json.loads`` of every
  value and the sum of one of its fields (checked against the sum the fill wrote); records/s of
  all threads together, from the moment every thread holds its first record to the last one's
  end (the group-free start-up and the first fetch are excluded);
- ``json``: no Kafka, the consumers' application work alone: N threads each running
  ``json.loads`` and the sum over the same values held in memory; what the interpreter itself
  scales to on this machine at the time (the ceiling of ``consume``);
- ``produce``: N threads sharing one Producer, each producing its share of 100 B messages to
  partition 0 of a fresh topic with a delivery callback that only keeps failures, ``poll(0)``
  every 1000, ``flush()`` by each thread at its end; msgs/s from the start to the last flush
  returning with nothing outstanding; the topic's end offset must equal the count.

Every measurement is a fresh process of the interpreter under test (``--python LABEL=PATH``, the
client module after a colon: ``ours-3.13t=.matrix/3.13t/bin/python:confluent_binding``), runs
interleaved by round with the order rotated, round 0 a warm-up; medians of the counted rounds.
No pinning: the threads of a client need both cores of a 2-CPU machine (the broker runs there
too, which the single-thread runs pay as well). Each run reports whether the GIL was enabled
(``sys._is_gil_enabled()``) after the import and at its end, and how many CPUs the rest of the
machine (the broker included) kept busy during its timed window (``/proc/stat`` minus the run's
own CPU): on a shared 2-CPU machine, a second thread can only scale when that stays well below 1.

    .venv/bin/python bench/thread_scaling.py [--rounds 5] [--count 400000] [--out-dir DIR]

Writes ``<UTC stamp>.json`` (every run, versions, machine), ``latest.json`` (the summary and the
name of that file) and ``latest.md`` (the table) to ``bench/results/threads/``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results", "threads")
THREADS = (1, 2)
WORKLOADS = ("consume", "json", "produce")
VALUE_SIZE = 100
DESCRIPTIONS = {"consume": "records, json.loads + sum", "json": "the same work, no Kafka",
                "produce": "msgs, shared Producer"}


def _record(i: int) -> bytes:
    return b'{"id":%d,"amount":%d,"name":"item-%08d","ok":true}' % (i, i % 1000, i)


# ---- the measured process -----------------------------------------------------------------------

def _run(args: argparse.Namespace) -> dict:
    import importlib
    import threading

    gil = getattr(sys, "_is_gil_enabled", lambda: True)
    kafka = importlib.import_module(args.client)
    gil_after_import = gil()
    sys.path.insert(0, HERE)
    from harness import machine, settings

    n, count = args.threads, args.count
    base = {"bootstrap.servers": args.bootstrap}
    if args.run == "consume":
        conf = dict(base, **settings.librdkafka_consumer())
        conf["enable.auto.commit"] = "false"
        consumers, sums, got, early = [], [0] * n, [0] * n, [0] * n
        ready = threading.Barrier(n + 1)
        ends = [0.0] * n
        errors: list = []

        def consume(t: int, c) -> None:
            try:
                total, seen, first = 0, 0, True
                loads = json.loads
                while seen < count:
                    batch = c.consume(settings.BATCH, 1.0)
                    for m in batch:
                        if m.error() is not None:
                            raise RuntimeError(str(m.error()))
                        total += loads(m.value())["amount"]
                    seen += len(batch)
                    if first and batch:
                        first, early[t] = False, seen
                        ready.wait(120)
                sums[t], got[t], ends[t] = total, seen, time.perf_counter()
            except BaseException as exc:
                errors.append(repr(exc))
                ready.abort()

        for t in range(n):
            c = kafka.Consumer(dict(conf, **{"group.id": "scale-" + uuid.uuid4().hex}))
            c.assign([kafka.TopicPartition(args.topic, t, 0)])
            consumers.append(c)
        threads = [threading.Thread(target=consume, args=(t, consumers[t])) for t in range(n)]
        start, _, cpu, busy = _start_and_time(threads, ready, machine)
        for c in consumers:
            c.close()
        if errors:
            return {"ok": False, "reason": errors[0]}
        elapsed = max(ends) - start
        want = sum(i % 1000 for i in range(count))
        if got != [count] * n or sums != [want] * n:
            return {"ok": False, "reason": "read %s, sums %s (want %d each)" % (got, sums, want)}
        done = n * count - sum(early)  # each thread's first batch came before the clock started
    elif args.run == "json":
        values = [_record(i) for i in range(count)]
        want = sum(i % 1000 for i in range(count))
        sums = [0] * n
        go = threading.Barrier(n + 1)

        def work(t: int) -> None:
            go.wait(120)
            total, loads = 0, json.loads
            for v in values:
                total += loads(v)["amount"]
            sums[t] = total

        threads = [threading.Thread(target=work, args=(t,)) for t in range(n)]
        start, end, cpu, busy = _start_and_time(threads, go, machine)
        elapsed = end - start
        if sums != [want] * n:
            return {"ok": False, "reason": "sums %s, want %d each" % (sums, want)}
        done = n * count
    else:
        conf = dict(base, **settings.librdkafka_producer())
        producer = kafka.Producer(conf)
        failed: list = []
        per = count // n
        value = b"x" * VALUE_SIZE
        go = threading.Barrier(n + 1)

        def on_delivery(err, msg) -> None:
            if err is not None:
                failed.append(err)

        def produce() -> None:
            go.wait(120)
            poll, send = producer.poll, producer.produce
            for i in range(per):
                while True:
                    try:
                        send(args.topic, value, partition=0, on_delivery=on_delivery)
                        break
                    except BufferError:
                        poll(0.01)
                if i % 1000 == 0:
                    poll(0)
            if producer.flush(120) != 0:
                failed.append("flush left messages outstanding")

        threads = [threading.Thread(target=produce) for _ in range(n)]
        start, end, cpu, busy = _start_and_time(threads, go, machine)
        elapsed = end - start
        done = per * n
        if failed:
            return {"ok": False, "reason": "%d failed deliveries: %r" % (len(failed), failed[0])}
        c = kafka.Consumer(dict(base, **{"group.id": "scale-" + uuid.uuid4().hex}))
        high = c.get_watermark_offsets(kafka.TopicPartition(args.topic, 0), timeout=30)[1]
        c.close()
        if high != done:
            return {"ok": False, "reason": "end offset %d, produced %d" % (high, done)}
    return {"ok": True, "count": done, "seconds": elapsed, "rate": done / elapsed,
            "cpu_s": cpu, "others_cpus": max(0.0, busy - cpu) / elapsed,
            "gil_after_import": gil_after_import, "gil_at_end": gil(),
            "python": sys.version.split()[0] + ("t" if _freethreaded() else ""),
            "version": kafka.__version__ if hasattr(kafka, "__version__") else kafka.version()[0],
            "librdkafka": kafka.libversion()[0], "extension_sha256": _extension_sha256(args.client)}


def _start_and_time(threads: list, barrier, machine) -> tuple:
    """Start ``threads``, let them go together (they and this thread meet at ``barrier``),
    wait for them all: (the clock at the start, at the end, this process's CPU seconds and the
    machine's busy CPU seconds meanwhile)."""
    for th in threads:
        th.start()
    barrier.wait(120)
    start, ru0, busy0 = time.perf_counter(), _cpu(), machine.busy_cpu_seconds()
    for th in threads:
        th.join()
    return start, time.perf_counter(), _cpu() - ru0, machine.busy_cpu_seconds() - busy0


def _extension_sha256(client: str) -> str:
    from harness import machine
    ext = sys.modules.get(client + "._core") or sys.modules.get(client + ".cimpl")
    return machine.sha256_of(ext.__file__)[:16] if ext is not None else "?"


def _cpu() -> float:
    import resource
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _freethreaded() -> bool:
    import sysconfig
    return bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


# ---- the orchestrator -------------------------------------------------------------------------

def _parse_python(spec: str) -> tuple:
    label, _, rest = spec.partition("=")
    path, _, module = rest.partition(":")
    return label, os.path.join(ROOT, path) if not os.path.isabs(path) else path, \
        module or "confluent_binding"


DEFAULT_PYTHONS = [
    "ours-3.13t=.matrix/3.13t/bin/python:confluent_binding",
    "ours-3.13=.matrix/3.13/bin/python:confluent_binding",
    "confluent-3.13=.matrix/3.13/bin/python:confluent_kafka",
]


def _measure(python: str, module: str, workload: str, n: int, bootstrap: str, topic: str,
             count: int) -> dict:
    cmd = [python, os.path.abspath(__file__), "--run", workload, "--client", module,
           "--threads", str(n), "--bootstrap", bootstrap, "--topic", topic, "--count", str(count)]
    # outside the checkout, so that the interpreter imports its installed package
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd="/", timeout=900)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"ok": False, "reason": "exit %d: %s" % (
            proc.returncode, proc.stderr[-500:].replace(ROOT + os.sep, ""))}
    return json.loads(lines[-1])


def _summarize(runs: list, labels: list, workloads: tuple = WORKLOADS) -> dict:
    cells = {}
    for label in labels:
        for w in workloads:
            for n in THREADS:
                counted = [r for r in runs if r["label"] == label and r["workload"] == w
                           and r["threads"] == n and r["round"] > 0 and r.get("ok")]
                rates = [r["rate"] for r in counted]
                others = [r["others_cpus"] for r in counted]
                cells["%s|%s|%d" % (label, w, n)] = {
                    "median": statistics.median(rates) if rates else None,
                    "min": min(rates) if rates else None, "max": max(rates) if rates else None,
                    "rates": [round(x) for x in rates],
                    "others_cpus": round(statistics.median(others), 2) if others else None}
    ratios = {}
    for w in workloads:
        for label in labels:
            one, two = (cells["%s|%s|%d" % (label, w, n)]["median"] for n in THREADS)
            ratios["%s|%s|2/1" % (label, w)] = two / one if one and two else None
        peers = [cells["%s|%s|%d" % (label, w, n)]["median"] for label in labels
                 if label.startswith("confluent") for n in THREADS]
        peers = [p for p in peers if p]
        for label in labels:
            two = cells["%s|%s|2" % (label, w)]["median"]
            if label.startswith("ours") and peers and two and w != "json":
                ratios["%s|%s|2 threads / confluent best" % (label, w)] = two / max(peers)
    return {"cells": cells, "ratios": ratios}


def _markdown(doc: dict) -> str:
    s, meta = doc["summary"], doc["meta"]
    out = ["# Scaling with threads in one process (bench/thread_scaling.py)", "",
           "%s; %s rounds counted after a warm-up; %d records (consume: per thread) / messages "
           "(produce: in all) per run; medians (min-max)." % (
               meta["stamp"], meta["rounds"], meta["count"]), ""]
    out += ["| client | Python | GIL (import / end) | workload | 1 thread /s | 2 threads /s | "
            "2 / 1 | 2 threads / confluent-kafka's best | others' CPUs (1 / 2 threads) |",
            "|---|---|---|---|--:|--:|--:|--:|--:|"]
    for label in meta["labels"]:
        info = meta["interpreters"].get(label, {})
        for w in meta.get("workloads", WORKLOADS):
            if s["cells"]["%s|%s|1" % (label, w)]["median"] is None and w == "json":
                continue  # measured once per interpreter
            row = ["`%s`" % label, info.get("python", "?"), info.get("gil", "?"),
                   "%s (%s)" % (w, DESCRIPTIONS[w])]
            others = []
            for n in THREADS:
                c = s["cells"]["%s|%s|%d" % (label, w, n)]
                row.append("–" if c["median"] is None else "{:,.0f} ({:,.0f}–{:,.0f})".format(
                    c["median"], c["min"], c["max"]))
                others.append("–" if c["others_cpus"] is None else "%.2f" % c["others_cpus"])
            r = s["ratios"].get("%s|%s|2/1" % (label, w))
            row.append("–" if r is None else "%.2fx" % r)
            b = s["ratios"].get("%s|%s|2 threads / confluent best" % (label, w))
            row.append("–" if b is None else "%.2fx" % b)
            row.append(" / ".join(others))
            out.append("| " + " | ".join(row) + " |")
    out += [""] + ["- `%s`: %s, Python %s (`%s`), extension sha256 %s…" % (
        label, info.get("client", "?"), info.get("python", "?"), meta["pythons"][label][0],
        info.get("extension_sha256", "?")) for label, info in
        ((lb, meta["interpreters"].get(lb, {})) for lb in meta["labels"])]
    out += ["", "others' CPUs: the median number of CPUs the rest of the machine (the broker "
            "included) kept busy during the timed windows; a second thread can only add what is "
            "left of the machine's CPUs.", "",
            "Machine: %s, %d CPUs, kernel %s; broker: one local Apache Kafka node on the "
            "same CPUs, no pinning. Failed runs: %d." % (
                meta["machine"]["cpu_model"], meta["machine"]["nproc"],
                meta["machine"]["kernel"], meta["failed_runs"]), ""]
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", choices=WORKLOADS, help=argparse.SUPPRESS)
    ap.add_argument("--client", default="confluent_binding", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--topic", help=argparse.SUPPRESS)
    ap.add_argument("--bootstrap", help="an existing broker (default: start a local one)")
    ap.add_argument("--count", type=int, default=400_000,
                    help="records per consumer thread; messages per producer run")
    ap.add_argument("--rounds", type=int, default=5, help="counted rounds (after a warm-up)")
    ap.add_argument("--python", action="append", metavar="LABEL=PATH[:MODULE]",
                    help="an interpreter and client under test (repeatable; default: %s)"
                    % ", ".join(DEFAULT_PYTHONS))
    ap.add_argument("--workloads", default=",".join(WORKLOADS),
                    help="which to measure, comma-separated (default: %(default)s)")
    ap.add_argument("--out-dir", default=RESULTS)
    args = ap.parse_args()
    if args.run:
        print(json.dumps(_run(args)))
        return 0

    sys.path.insert(0, HERE)
    from _local_broker import broker
    from harness import machine, report, settings

    pythons = [_parse_python(p) for p in (args.python or DEFAULT_PYTHONS)]
    workloads = tuple(w for w in WORKLOADS if w in args.workloads.split(","))
    if not workloads or set(args.workloads.split(",")) - set(WORKLOADS):
        ap.error("--workloads: a comma-separated choice of %s" % ", ".join(WORKLOADS))
    labels = [p[0] for p in pythons]
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    runs: list = []
    interpreters = {}
    with broker(args.bootstrap, prefix="bench-threads-") as (bootstrap, cluster):
        import confluent_binding as kafka
        src = "scale-src-" + uuid.uuid4().hex[:8]
        cluster.create_topic(src, partitions=max(THREADS))
        p = kafka.Producer(dict({"bootstrap.servers": bootstrap}, **settings.librdkafka_producer()))
        for part in range(max(THREADS) if "consume" in workloads else 0):
            for i in range(args.count):
                while True:
                    try:
                        p.produce(src, _record(i), partition=part)
                        break
                    except BufferError:
                        p.poll(0.05)
        assert p.flush(300) == 0
        p.close()
        plan, interpreters_seen = [], set()
        for label, py, mod in pythons:
            for w in workloads:
                if w == "json" and py in interpreters_seen:
                    continue  # the interpreter's own ceiling: once per interpreter
                plan += [(label, py, mod, w, n) for n in THREADS]
            interpreters_seen.add(py)
        for rnd in range(args.rounds + 1):
            k = rnd % len(plan)
            for label, py, mod, w, n in plan[k:] + plan[:k]:
                topic = src
                if w == "produce":
                    topic = "scale-p-" + uuid.uuid4().hex[:8]
                    cluster.create_topic(topic, partitions=1)
                r = _measure(py, mod, w, n, bootstrap, topic, args.count)
                if w == "produce":
                    cluster.delete_topic(topic, timeout=30)
                r.update(label=label, workload=w, threads=n, round=rnd)
                runs.append(r)
                if r.get("ok"):
                    interpreters[label] = {
                        "python": r["python"], "client": "%s %s (librdkafka %s)" % (
                            mod, r["version"], r["librdkafka"]),
                        "extension_sha256": r["extension_sha256"],
                        "gil": "%s / %s" % ("on" if r["gil_after_import"] else "off",
                                            "on" if r["gil_at_end"] else "off")}
                print("round %d %-16s %-8s %d: %s" % (
                    rnd, label, w, n, "{:,.0f}/s".format(r["rate"]) if r.get("ok")
                    else "FAILED " + r.get("reason", "")), file=sys.stderr, flush=True)
    doc = {"meta": {"stamp": stamp, "rounds": args.rounds, "count": args.count,
                    "labels": labels, "workloads": list(workloads), "interpreters": interpreters,
                    "pythons": {lb: [os.path.relpath(py, ROOT) if py.startswith(ROOT) else py,
                                     mod] for lb, py, mod in pythons},
                    "machine": machine.describe(os.cpu_count() or 1),
                    "command": " ".join(shlex.quote(a) for a in sys.argv),
                    "failed_runs": sum(1 for r in runs if not r.get("ok"))},
           "runs": runs}
    doc["summary"] = _summarize(runs, labels, workloads)
    doc["meta"]["machine"]["loadavg_end"] = machine.read("/proc/loadavg")
    os.makedirs(args.out_dir, exist_ok=True)
    runs_file = "%s.json" % stamp
    with open(os.path.join(args.out_dir, runs_file), "w") as f:
        f.write(report.dumps({"meta": doc["meta"], "runs": runs}))
    with open(os.path.join(args.out_dir, "latest.json"), "w") as f:
        json.dump({"meta": doc["meta"], "runs_file": runs_file, "summary": doc["summary"]}, f,
                  indent=1)
        f.write("\n")
    md = _markdown(doc)
    with open(os.path.join(args.out_dir, "latest.md"), "w") as f:
        f.write(md)
    print(md)
    return 1 if doc["meta"]["failed_runs"] else 0


if __name__ == "__main__":
    sys.exit(main())
