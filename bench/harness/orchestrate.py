"""The orchestrator: set-up, broker, fills, interleaved rounds of runner processes, M1, results.

Every measurement is a fresh process, ``python -m runners.<client> ...`` run from bench/ and pinned
to the client CPU, printing one JSON line (``runners.protocol``); this module adds what only the
parent can see (the process's wall and CPU time, the broker's CPU, other load on the machine),
checks the result (a producer's topic must end at offset N) and derives the rates.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field

from harness import catalog, machine, report, settings
from harness.broker import Broker, log, pick_log_dir, source_topic
from harness.catalog import BENCH, C_TOOL, PERF_BIN, ROOT


@dataclass
class Plan:
    """What one invocation measures (``run.py`` builds it from the mode and the options)."""

    mode: str
    sizes: list
    counts: dict  # size -> (librdkafka-based clients, pure-Python peers)
    rounds: int
    m1: bool
    m1_counts: tuple
    clients: list
    workloads: list
    pin: tuple = (None, None)  # (broker CPU, client CPU) or (None, None)
    log_dir: str = "auto"
    heap: str = "1g"
    fetch_backoff_ms: int = settings.CONSUMER["fetch_queue_backoff_ms"]
    argv: list = field(default_factory=list)

    def count_for(self, client: str, size: int, m1: bool = False) -> int:
        fast, slow = self.m1_counts if m1 else self.counts[size]
        return slow if catalog.CLIENTS[client].pure_python else fast

    def fill_counts(self) -> dict:
        """Messages each source topic needs: the largest consumer run (M1 at the first size)."""
        fill = {}
        for s in self.sizes:
            need = max(self.counts[s])
            if self.m1 and s == self.sizes[0]:
                need = max(need, max(self.m1_counts))
            fill[s] = need
        return fill


def m1_rss_every(count: int) -> int:
    """M1 samples RSS 20 times per run: every 500k messages over 10M."""
    return max(1000, count // 20 // 1000 * 1000)


def run_timeout(count: int) -> float:
    return 120 + count / 2000.0


class Bench:
    """Runs one measurement at a time and keeps every record."""

    def __init__(self, plan: Plan, env: dict, broker: Broker, code_dir: str = BENCH):
        self.plan, self.env, self.broker, self.code_dir = plan, env, broker, code_dir
        cpu = plan.pin[1]
        self.taskset = ["taskset", "-c", str(cpu)] if cpu is not None else []
        self.runs = []

    def run(self, client, workload, size, rnd, position, m1=False):
        count = self.plan.count_for(client, size, m1)
        rec = {
            "client": client,
            "workload": workload,
            "size": size,
            "count": count,
            "round": rnd,
            "warmup": rnd == 0 and not m1,
            "position": position,
            "m1": m1,
            "ok": False,
            "error": None,
        }
        producer = catalog.WORKLOADS[workload].producer
        topic = None
        try:
            if producer:
                topic = "bench-%s-%d-%s-r%d-%s" % (
                    workload,
                    size,
                    client,
                    rnd,
                    uuid.uuid4().hex[:6],
                )
                self.broker.create_topic(topic)
            else:
                topic = source_topic(size)
            rec["topic"] = topic
            cmd = self.taskset + [
                sys.executable,
                "-m",
                "runners.%s" % client,
                "--workload",
                workload,
                "--bootstrap",
                self.broker.bootstrap,
                "--topic",
                topic,
                "--size",
                str(size),
                "--count",
                str(count),
                "--broker-pid",
                str(self.broker.pid),
            ]
            if not producer:
                cmd += ["--group", "bench-%s-%s-%s" % (client, workload, uuid.uuid4().hex[:10])]
            if m1:
                cmd += ["--rss-every", str(m1_rss_every(count))]
            self._run_runner(rec, cmd, count)
            if producer and rec["ok"]:
                end = self.broker.end_offset(topic)
                rec["end_offset"] = end
                if end != count:
                    rec["ok"] = False
                    rec["error"] = "topic end offset %d after producing %d (lost or duplicated)" % (
                        end,
                        count,
                    )
        except Exception as e:  # noqa: BLE001 - recorded as a failed run
            rec["ok"], rec["error"] = False, "%s: %s" % (type(e).__name__, e)
        finally:
            if producer and topic:
                self.broker.delete_topic(topic)
        derive(rec)
        self.runs.append(rec)
        if rec["ok"]:
            log(
                "  %-3s %5d B %-20s %10.0f msg/s %8.1f MB/s  cpu %.2f s/M  broker %.0f%%%s"
                % (
                    workload,
                    size,
                    client,
                    rec["msgs_per_s"],
                    rec["mb_per_s"],
                    rec["cpu_s_per_m"],
                    100 * (rec.get("broker_util") or 0),
                    ("  other-load %.2f" % rec["other_cpu"])
                    if rec.get("other_cpu", 0) > report.OTHER_LOAD_FLAG
                    else "",
                )
            )
        else:
            log("  %-3s %5d B %-20s FAILED: %s" % (workload, size, client, rec["error"]))
        return rec

    def _measure(self, cmd, timeout):
        """Run one runner process (in its own process group, so a timeout ends all of it)."""
        b0, c0 = machine.proc_cpu_seconds(self.broker.pid), machine.children_cpu()
        s0, w0 = machine.busy_cpu_seconds(), time.monotonic()
        p = subprocess.Popen(
            cmd,
            env=self.env,
            cwd=self.code_dir,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            rc, err = None, err + b"\n(timed out after %.0f s)" % timeout
        except BaseException:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
        wall = time.monotonic() - w0
        b1, c1, s1 = (
            machine.proc_cpu_seconds(self.broker.pid),
            machine.children_cpu(),
            machine.busy_cpu_seconds(),
        )
        life = {
            "process_wall_seconds": wall,
            "process_cpu_seconds": c1 - c0,
            "process_broker_cpu_seconds": (b1 - b0) if b0 is not None and b1 is not None else None,
        }
        # CPU used by anything else on the machine meanwhile (other users' jobs): a noise flag.
        other = (s1 - s0) - (c1 - c0) - (life["process_broker_cpu_seconds"] or 0)
        life["other_cpu"] = max(0.0, other) / wall if wall > 0 else 0.0
        return rc, out, err, life

    def _run_runner(self, rec, cmd, count):
        rc, out, err, life = self._measure(cmd, run_timeout(count))
        rec.update(life)
        line = next((x for x in reversed(out.splitlines()) if x.startswith("{")), None)
        if line is None:
            rec["error"] = "no result line (exit %s): %s" % (rc, err.strip()[-1500:])
            return
        res = json.loads(line)
        for k in ("client", "workload", "size", "count", "topic"):
            res.pop(k, None)
        rec.update(res)
        if rec["ok"] and rec.get("messages") != count:
            rec["ok"], rec["error"] = False, "runner reported %s messages" % rec.get("messages")
        if not rec["ok"] and not rec.get("error"):
            rec["error"] = "exit %s: %s" % (rc, err.strip()[-1500:])


def derive(rec) -> None:
    """Rates, CPU per message and utilisation of one successful record."""
    if not rec.get("ok") or not rec.get("seconds"):
        return
    s, n = rec["seconds"], rec["messages"]
    rec["msgs_per_s"] = n / s
    rec["mb_per_s"] = rec["bytes"] / s / 1e6
    # a runner whose CPU time covers more than the timed window says over which (the C tool)
    window = rec.get("cpu_window_seconds") or s
    if rec.get("cpu_seconds") is not None:
        rec["cpu_s_per_m"] = rec["cpu_seconds"] / n * 1e6
        rec["client_util"] = rec["cpu_seconds"] / window
    if rec.get("broker_cpu_seconds") is not None:
        rec["broker_cpu_s_per_m"] = rec["broker_cpu_seconds"] / n * 1e6
        rec["broker_util"] = rec["broker_cpu_seconds"] / window
    slope = rss_slope(rec.get("rss") or [], n)
    if slope is not None:
        rec["rss_slope_mb_per_m"] = slope


def rss_slope(samples, n_total):
    """Least-squares slope of RSS over messages, MB per million, after the first 20 % (warm-up);
    samples at the same message count (the final one after flush/close) are dropped."""
    pts, seen = [], set()
    for n, rss in samples:
        if n in seen or n <= 0:
            continue
        seen.add(n)
        pts.append((n, rss))
    pts = [(n, r) for n, r in pts if n >= 0.2 * n_total and n < n_total]
    if len(pts) < 3:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None
    sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
    return sxy / sxx  # bytes per message = MB per million messages


def snapshot_runners(tmp: str) -> str:
    """Copy the code the runner processes import (runners/, harness/): an edit in the work tree
    during the run cannot change what is measured. Returns the directory runners start in."""
    dst = os.path.join(tmp, "bench")
    for name in ("runners", "harness"):
        shutil.copytree(
            os.path.join(BENCH, name),
            os.path.join(dst, name),
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return dst


def snapshot_package(tmp: str) -> tuple:
    """Copy confluent_binding/ (with its built extension) so that a rebuild in the work tree
    during the run cannot change or break what is measured. Returns (path, extension sha256)."""
    src = os.path.join(ROOT, "confluent_binding")
    dst = os.path.join(tmp, "pkg")
    shutil.copytree(
        src, os.path.join(dst, "confluent_binding"), ignore=shutil.ignore_patterns("__pycache__")
    )
    exts = [
        f
        for f in os.listdir(os.path.join(dst, "confluent_binding"))
        if f.startswith("_core") and (f.endswith(".so") or f.endswith(".pyd"))
    ]
    if not exts:
        raise SystemExit(
            "confluent_binding is not built (no _core extension): run `make all` first"
        )
    return dst, machine.sha256_of(os.path.join(dst, "confluent_binding", exts[0]))


def execute(plan: Plan) -> dict:
    """Measure the plan; returns the result document (meta, runs, summary)."""
    t_start = time.monotonic()
    if C_TOOL in plan.clients and not os.access(PERF_BIN, os.X_OK):
        raise SystemExit(
            "%s is missing: run librdkafka-build/build-perf.sh (make bench does)" % PERF_BIN
        )
    tmp = tempfile.mkdtemp(prefix="cb-bench-")
    os.environ.setdefault("CONFLUENT_BINDING_CACHE", os.path.join(ROOT, ".cache"))
    pkg, ext_sha = snapshot_package(tmp)
    code_dir = snapshot_runners(tmp)
    sys.path.insert(0, pkg)
    env = dict(os.environ)
    env["PYTHONPATH"] = pkg
    env["BENCH_PYTHONPATH"] = pkg
    env[settings.FETCH_BACKOFF_ENV] = str(plan.fetch_backoff_ms)
    env["BENCH_PERF_BIN"] = PERF_BIN
    env.pop("KAFKA_BOOTSTRAP_SERVERS", None)

    # Broker data: fill topics + the largest producer topic (deleted after each run) + slack.
    fill = plan.fill_counts()
    need_bytes = sum(n * (s + 80) for s, n in fill.items())
    need_bytes += max(max(c) * (s + 80) for s, c in plan.counts.items()) * 2 + (1 << 30)
    log_dir, log_dir_note = pick_log_dir(need_bytes, plan.log_dir)

    versions = machine.peer_versions(env)
    tool = None
    if os.access(PERF_BIN, os.X_OK):
        from runners.rdkafka_performance import tool_version

        tool = tool_version()
    versions.update(
        {
            "rdkafka_performance": tool,
            "python": platform.python_version(),
            "python_implementation": platform.python_implementation(),
            "java": machine.java_version(),
            "confluent_binding_extension_sha256": ext_sha,
        }
    )
    from confluent_binding.testing import DEFAULT_KAFKA_VERSION

    versions["kafka_broker"] = DEFAULT_KAFKA_VERSION
    broker_cpu, client_cpu = plan.pin
    host = machine.describe(os.cpu_count() or 1)
    host.update(
        {
            "broker_log_dir": log_dir_note,
            "broker_on_tmpfs": log_dir is not None,
            "pinning": ("broker on CPU %d, clients on CPU %d (taskset)" % plan.pin)
            if client_cpu is not None
            else "none",
        }
    )
    log(
        "mode %s: sizes %s, counts %s, %d+1 rounds, M1 %s; broker data on %s; pinning: %s"
        % (
            plan.mode,
            plan.sizes,
            plan.counts,
            plan.rounds,
            "on" if plan.m1 else "off",
            log_dir_note,
            host["pinning"],
        )
    )

    broker = Broker(plan.heap, log_dir)
    t0 = time.monotonic()
    broker.start(broker_cpu)
    log(
        "broker %s up at %s in %.1f s (pid %d, heap %s)"
        % (versions["kafka_broker"], broker.bootstrap, time.monotonic() - t0, broker.pid, plan.heap)
    )
    bench = Bench(plan, env, broker, code_dir)
    fills = []
    try:
        if any(not catalog.WORKLOADS[w].producer for w in plan.workloads) or plan.m1:
            for s in plan.sizes:
                fills.append(broker.fill(s, fill[s], bench.taskset))
        clients = plan.clients
        for rnd in range(plan.rounds + 1):
            order = clients[rnd % len(clients) :] + clients[: rnd % len(clients)]
            log("round %d%s: %s" % (rnd, " (warm-up)" if rnd == 0 else "", " ".join(order)))
            for s in plan.sizes:
                for w in plan.workloads:
                    for pos, c in enumerate(order):
                        if catalog.runs(c, w):
                            bench.run(c, w, s, rnd, pos)
        if plan.m1:
            s = plan.sizes[0]
            log(
                "M1: RSS every %s messages"
                % " / ".join("{:,}".format(m1_rss_every(c)) for c in plan.m1_counts)
            )
            for c in [c for c in clients if catalog.CLIENTS[c].memory]:
                for w in catalog.MEMORY_WORKLOADS:
                    if w in plan.workloads and catalog.runs(c, w):
                        bench.run(c, w, s, 0, 0, m1=True)
    finally:
        broker.stop()
        if log_dir:
            shutil.rmtree(log_dir, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)

    host["loadavg_end"] = machine.read("/proc/loadavg")
    now = _dt.datetime.now(_dt.timezone.utc)
    meta = {
        "timestamp": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "stamp": now.strftime("%Y%m%dT%H%M%SZ"),
        "mode": plan.mode,
        "argv": plan.argv,
        "duration_seconds": time.monotonic() - t_start,
        "sizes": plan.sizes,
        "counts": {str(k): v for k, v in plan.counts.items()},
        "rounds_counted": plan.rounds,
        "warmup_rounds": 1,
        "m1": plan.m1,
        "m1_counts": plan.m1_counts,
        "m1_rss_every": [m1_rss_every(c) for c in plan.m1_counts],
        "clients": plan.clients,
        "workloads": plan.workloads,
        "heap": plan.heap,
        "versions": versions,
        "machine": host,
        "fills": fills,
        "settings": settings.note(plan.fetch_backoff_ms),
    }
    for r in bench.runs:  # no machine paths in result files
        if r.get("error"):
            r["error"] = r["error"].replace(tmp, "<tmp>").replace(ROOT, "<repo>")
    doc = {"meta": meta, "runs": bench.runs}
    doc["summary"] = report.summarize(doc)
    failed = [r for r in bench.runs if not r["ok"]]
    if failed:
        log("%d of %d runs failed (see the table)" % (len(failed), len(bench.runs)))
    return doc
