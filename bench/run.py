#!/usr/bin/env python3
"""Side-by-side benchmarks: confluent_binding vs confluent-kafka, kafka-python, aiokafka and the C
ceiling (librdkafka's rdkafka_performance), against a real local Kafka broker.

    python bench/run.py --quick          # < 5 minutes: 100 B, fewer messages, 3 rounds, no M1
    python bench/run.py                  # full: 100 B and 1 KiB, warm-up + 5 rounds, M1 memory runs

Every measurement is a fresh subprocess (``bench/client_<name>.py`` printing one JSON line, or
rdkafka_performance); clients are interleaved per round and their order rotated each round. Writes
bench/results/<timestamp>.json, latest.json, latest.md and latest.png. See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERF_BIN = os.path.join(ROOT, "librdkafka-build", "prefix", "bin", "rdkafka_performance")
RESULTS = os.path.join(HERE, "results")

CLIENTS = ["confluent_binding", "confluent_kafka", "kafka_python", "aiokafka", "rdkafka_performance"]
PEERS_PURE_PYTHON = {"kafka_python", "aiokafka"}
WORKLOADS = ["P1", "P2", "C1", "C2"]
C_TOOL = "rdkafka_performance"

# performance notes §6.3/§6.5: producer settings held equal; the tool's own defaults
# (linger.ms=1000, 3 retries, 500 ms backoff) are put back to librdkafka's.
C_PRODUCER_FLAGS = ["-a", "-1", "-X", "linger.ms=5", "-X", "batch.size=1048576",
                    "-X", "queue.buffering.max.messages=1000000",
                    "-X", "max.in.flight.requests.per.connection=5", "-X", "enable.idempotence=false",
                    "-X", "compression.type=none", "-X", "message.send.max.retries=2147483647",
                    "-X", "retry.backoff.ms=100"]

FULL = {
    "sizes": [100, 1024],
    # messages per run: (librdkafka-based clients, pure-Python peers)
    "counts": {100: (2_000_000, 200_000), 1024: (500_000, 50_000)},
    "rounds": 5, "m1": True,
    "m1_counts": (10_000_000, 1_000_000),
}
QUICK = {
    "sizes": [100],
    "counts": {100: (200_000, 100_000)},
    "rounds": 3, "m1": False,
    "m1_counts": (1_000_000, 200_000),
}


def log(msg: str) -> None:
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


# ---------------------------------------------------------------------------------------------
# machine and versions

def _read(path: str, default: str = "") -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def fs_type(path: str) -> str:
    """Filesystem type of the mount holding ``path`` (longest matching mount point)."""
    path = os.path.realpath(path)
    best, kind = "", "unknown"
    for line in _read("/proc/mounts").splitlines():
        parts = line.split()
        if len(parts) >= 3:
            mnt = parts[1]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best):
                best, kind = mnt, parts[2]
    return kind


def busy_cpu_seconds() -> float:
    """All CPUs' non-idle time since boot (from /proc/stat), in seconds."""
    fields = [int(x) for x in _read("/proc/stat").splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    return (sum(fields[:8]) - idle - steal) / os.sysconf("SC_CLK_TCK")


def proc_cpu_seconds(pid: int):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def sha256_of(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def perf_version() -> str:
    out = subprocess.run([PERF_BIN, "-h"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout
    m = re.search(rb"librdkafka version (\S+)", out)
    return m.group(1).decode() if m else "unknown"


def peer_versions(env) -> dict:
    code = ("import json, confluent_binding as cb, confluent_kafka as ck, kafka, kafka.record.util, aiokafka;"
            "print(json.dumps({'confluent_binding': cb.__version__, "
            "'confluent_binding_librdkafka': cb.libversion()[0], "
            "'confluent_kafka': ck.__version__, 'confluent_kafka_librdkafka': ck.libversion()[0], "
            "'kafka_python': kafka.__version__, 'aiokafka': aiokafka.__version__, "
            "'kafka_python_c_crc32c': kafka.record.util.crc32c_c is not None}))")
    out = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, check=True).stdout
    return json.loads(out)


def java_version() -> str:
    try:
        out = subprocess.run(["java", "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout
        return out.decode().splitlines()[0].strip()
    except OSError:
        return "unknown"


# ---------------------------------------------------------------------------------------------
# the compiled package, frozen for the whole run

def snapshot_package(tmp: str) -> tuple:
    """Copy confluent_binding/ (with its built extension) so that a rebuild in the work tree
    during the run cannot change or break what is measured. Returns (path, extension sha256)."""
    src = os.path.join(ROOT, "confluent_binding")
    dst = os.path.join(tmp, "pkg")
    shutil.copytree(src, os.path.join(dst, "confluent_binding"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    exts = [f for f in os.listdir(os.path.join(dst, "confluent_binding")) if f.startswith("_core") and
            (f.endswith(".so") or f.endswith(".pyd"))]
    if not exts:
        sys.exit("confluent_binding is not built (no _core extension): run `make all` first")
    return dst, sha256_of(os.path.join(dst, "confluent_binding", exts[0]))


# ---------------------------------------------------------------------------------------------
# broker

def pin_process(pid: int, cpus: set) -> None:
    """Pin every thread of ``pid`` (threads made later inherit the mask)."""
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:
            pass


def pick_log_dir(need_bytes: int, want: str):
    """A tmpfs directory for the broker's log dirs when there is room, else None (disk)."""
    if want == "disk":
        return None, "disk (asked for)"
    cand = want if want not in ("auto", "") else "/dev/shm"
    if not os.path.isdir(cand):
        return None, "disk (%s missing)" % cand
    st = os.statvfs(cand)
    free = st.f_bavail * st.f_frsize
    mem_avail = 0
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemAvailable:"):
            mem_avail = int(line.split()[1]) * 1024
    kind = fs_type(cand)
    room = min(free, mem_avail - (3 << 30)) if kind == "tmpfs" else free
    if room < need_bytes:
        return None, "disk (%s has %.1f GB room, need %.1f GB)" % (cand, room / 1e9, need_bytes / 1e9)
    return os.path.join(cand, "cb-bench-%d" % os.getpid()), "%s, %.1f GB free" % (kind, free / 1e9)


class Broker:
    def __init__(self, args, log_dir):
        from confluent_binding.testing import KafkaCluster
        self.cluster = KafkaCluster(
            log_dir=log_dir, heap=args.heap, heap_min=args.heap,
            broker_properties={
                # a deleted topic's files go at once: producer runs make a fresh topic each
                "log.segment.delete.delay.ms": 1000,
                "log.retention.check.interval.ms": 10000,
            })
        self.pinned = None

    def start(self, pin_cpu):
        c = self.cluster
        c.start()
        if pin_cpu is not None:
            pin_process(c.pid, {pin_cpu})
            self.pinned = pin_cpu
        return self

    @property
    def bootstrap(self) -> str:
        return self.cluster.bootstrap_servers

    @property
    def pid(self) -> int:
        return self.cluster.pid

    def create_topic(self, name: str) -> None:
        self.cluster.create_topic(name, partitions=1)

    def delete_topic(self, name: str) -> None:
        try:
            self.cluster.delete_topic(name)
        except Exception as e:  # noqa: BLE001 - a leftover topic only costs tmpfs space
            log("warning: could not delete %s: %s" % (name, e))

    def end_offset(self, topic: str) -> int:
        from confluent_binding import Consumer, TopicPartition
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "bench-verify",
                      "enable.auto.commit": "false"})
        try:
            return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)[1]
        finally:
            c.close()

    def stop(self):
        self.cluster.cleanup()


# ---------------------------------------------------------------------------------------------
# one measurement

class Bench:
    def __init__(self, args, mode, env, broker: Broker, client_pin):
        self.args, self.mode, self.env, self.broker = args, mode, env, broker
        self.taskset = ["taskset", "-c", str(client_pin)] if client_pin is not None else []
        self.runs = []

    def count_for(self, client: str, size: int, m1: bool = False) -> int:
        if m1:
            fast, slow = self.mode["m1_counts"]
        else:
            fast, slow = self.mode["counts"][size]
        return slow if client in PEERS_PURE_PYTHON else fast

    def _timeout(self, count: int) -> float:
        return 120 + count / 2000.0

    def run(self, client, workload, size, rnd, position, m1=False):
        count = self.count_for(client, size, m1)
        rec = {"client": client, "workload": workload, "size": size, "count": count,
               "round": rnd, "warmup": rnd == 0 and not m1, "position": position, "m1": m1,
               "ok": False, "error": None}
        producer = workload.startswith("P")
        topic = None
        try:
            if producer:
                topic = "bench-%s-%d-%s-r%d-%s" % (workload, size, client, rnd, uuid.uuid4().hex[:6])
                self.broker.create_topic(topic)
            else:
                topic = "bench-src-%d" % size
            rec["topic"] = topic
            group = "bench-%s-%s-%s" % (client, workload, uuid.uuid4().hex[:10]) if not producer else None
            rss_every = m1_rss_every(count) if m1 else 0
            if client == C_TOOL:
                self._run_c(rec, workload, topic, size, count, group)
            else:
                self._run_py(rec, client, workload, topic, size, count, group, rss_every)
            if producer and rec["ok"]:
                end = self.broker.end_offset(topic)
                rec["end_offset"] = end
                if end != count:
                    rec["ok"] = False
                    rec["error"] = "topic end offset %d after producing %d (lost or duplicated)" % (end, count)
        except Exception as e:  # noqa: BLE001 - recorded as a failed run
            rec["ok"], rec["error"] = False, "%s: %s" % (type(e).__name__, e)
        finally:
            if producer and topic:
                self.broker.delete_topic(topic)
        self._derive(rec)
        self.runs.append(rec)
        if rec["ok"]:
            log("  %-3s %5d B %-20s %10.0f msg/s %8.1f MB/s  cpu %.2f s/M  broker %.0f%%%s"
                % (workload, size, client, rec["msgs_per_s"], rec["mb_per_s"], rec["cpu_s_per_m"],
                   100 * (rec.get("broker_util") or 0),
                   ("  other-load %.2f" % rec["other_cpu"]) if rec.get("other_cpu", 0) > 0.15 else ""))
        else:
            log("  %-3s %5d B %-20s FAILED: %s" % (workload, size, client, rec["error"]))
        return rec

    def _measure(self, cmd, timeout):
        b0, c0, s0, w0 = proc_cpu_seconds(self.broker.pid), children_cpu(), busy_cpu_seconds(), time.monotonic()
        try:
            p = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
            rc, out, err = p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            rc, out = None, (e.stdout or b"").decode("utf-8", "replace")
            err = (e.stderr or b"").decode("utf-8", "replace") + "\n(timed out after %.0f s)" % timeout
        wall = time.monotonic() - w0
        b1, c1, s1 = proc_cpu_seconds(self.broker.pid), children_cpu(), busy_cpu_seconds()
        life = {"process_wall_seconds": wall, "process_cpu_seconds": c1 - c0,
                "process_broker_cpu_seconds": (b1 - b0) if b0 is not None and b1 is not None else None}
        # CPU used by anything else on the machine meanwhile (other users' jobs): a noise flag.
        other = (s1 - s0) - (c1 - c0) - (life["process_broker_cpu_seconds"] or 0)
        life["other_cpu"] = max(0.0, other) / wall if wall > 0 else 0.0
        return rc, out, err, life

    def _run_py(self, rec, client, workload, topic, size, count, group, rss_every):
        cmd = self.taskset + [sys.executable, os.path.join(HERE, "client_%s.py" % client),
                              "--workload", workload, "--bootstrap", self.broker.bootstrap,
                              "--topic", topic, "--size", str(size), "--count", str(count),
                              "--broker-pid", str(self.broker.pid)]
        if group:
            cmd += ["--group", group]
        if rss_every:
            cmd += ["--rss-every", str(rss_every)]
        rc, out, err, life = self._measure(cmd, self._timeout(count))
        rec.update(life)
        line = next((l for l in reversed(out.splitlines()) if l.startswith("{")), None)
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

    _P_RE = re.compile(r"% (\d+) messages produced \((\d+) bytes\), (\d+) delivered "
                       r"\(offset (-?\d+), (\d+) failed\) in (\d+)ms")
    _C_RE = re.compile(r"% (\d+) messages \((\d+) bytes\) consumed in (\d+)ms")

    def _run_c(self, rec, workload, topic, size, count, group):
        b = self.broker.bootstrap
        if workload == "P1":
            cmd = [PERF_BIN, "-P", "-t", topic, "-b", b, "-s", str(size), "-c", str(count), "-p", "0",
                   "-D"] + C_PRODUCER_FLAGS
        else:
            cmd = [PERF_BIN, "-G", group, "-t", topic, "-b", b, "-c", str(count),
                   "-X", "queued.min.messages=100000", "-X", "isolation.level=read_uncommitted",
                   "-X", "fetch.queue.backoff.ms=%d" % self.args.fetch_queue_backoff_ms,
                   "-X", "session.timeout.ms=45000"]
            if workload == "C2":
                cmd += ["-B", "1000"]
        rc, out, err, life = self._measure(self.taskset + cmd, self._timeout(count))
        rec.update(life)
        rec["version"] = self.args._perf_version
        rec["librdkafka"] = self.args._perf_version
        rec["command"] = " ".join(["rdkafka_performance"] + cmd[1:])
        # The tool's own CPU is all we have: its whole process (start-up and group join included).
        rec["cpu_seconds"] = life["process_cpu_seconds"]
        rec["broker_cpu_seconds"] = life["process_broker_cpu_seconds"]
        if workload == "P1":
            m = self._P_RE.findall(out)
            if not m:
                rec["error"] = "no summary line (exit %s): %s" % (rc, (out + err).strip()[-1500:])
                return
            produced, nbytes, delivered, _off, failed, ms = (int(x) for x in m[-1])
            # The tool exits 1 when its final outq count is off by one; delivered/failed count.
            if delivered != count or failed:
                rec["error"] = "%d delivered, %d failed of %d" % (delivered, failed, count)
                return
            rec.update(messages=delivered, bytes=delivered * size)
        else:
            m = self._C_RE.findall(out)
            if not m:
                rec["error"] = "no summary line (exit %s): %s" % (rc, (out + err).strip()[-1500:])
                return
            got, nbytes, ms = (int(x) for x in m[-1])
            if got != count or nbytes != count * size:
                rec["error"] = "received %d messages / %d bytes, expected %d / %d" % (
                    got, nbytes, count, count * size)
                return
            rec.update(messages=got, bytes=nbytes)
        rec["seconds"] = max(int(ms), 1) / 1000.0
        rec["ok"] = True

    @staticmethod
    def _derive(rec):
        if not rec.get("ok") or not rec.get("seconds"):
            return
        s, n = rec["seconds"], rec["messages"]
        rec["msgs_per_s"] = n / s
        rec["mb_per_s"] = rec["bytes"] / s / 1e6
        # The C tool's CPU times cover its whole process: divide by its whole wall time.
        window = s if rec["client"] != C_TOOL else rec["process_wall_seconds"]
        if rec.get("cpu_seconds") is not None:
            rec["cpu_s_per_m"] = rec["cpu_seconds"] / n * 1e6
            rec["client_util"] = rec["cpu_seconds"] / window
        if rec.get("broker_cpu_seconds") is not None:
            rec["broker_cpu_s_per_m"] = rec["broker_cpu_seconds"] / n * 1e6
            rec["broker_util"] = rec["broker_cpu_seconds"] / window
        slope = rss_slope(rec.get("rss") or [], n)
        if slope is not None:
            rec["rss_slope_mb_per_m"] = slope


def m1_rss_every(count: int) -> int:
    """M1 samples RSS 20 times per run: every 500k messages over 10M."""
    return max(1000, count // 20 // 1000 * 1000)


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
    return sxy / sxx * 1e6 / 1e6   # bytes per message * 1e6 messages / 1e6 bytes


# ---------------------------------------------------------------------------------------------

def fill_topic(bench: Bench, size: int, count: int) -> dict:
    topic = "bench-src-%d" % size
    bench.broker.create_topic(topic)
    cmd = bench.taskset + [PERF_BIN, "-P", "-t", topic, "-b", bench.broker.bootstrap, "-s", str(size),
                           "-c", str(count), "-p", "0", "-S", "0"] + C_PRODUCER_FLAGS
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120 + count / 5000)
    end = bench.broker.end_offset(topic)
    if end != count:
        sys.exit("filling %s failed: end offset %d, expected %d:\n%s"
                 % (topic, end, count, p.stdout.decode(errors="replace")[-2000:]))
    took = time.monotonic() - t0
    log("filled %s: %d messages of %d B with sequence numbers in %.1f s" % (topic, count, size, took))
    return {"topic": topic, "messages": count, "size": size, "seconds": took}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the < 5 minute variant")
    ap.add_argument("--rounds", type=int, help="counted rounds (after one warm-up round)")
    ap.add_argument("--sizes", help="comma-separated value sizes in bytes")
    ap.add_argument("--count", type=int, help="messages per run for librdkafka-based clients (every size)")
    ap.add_argument("--peer-count", type=int, help="messages per run for kafka-python and aiokafka")
    ap.add_argument("--clients", default=",".join(CLIENTS))
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--m1", dest="m1", action="store_true", default=None, help="run M1 (memory)")
    ap.add_argument("--no-m1", dest="m1", action="store_false")
    ap.add_argument("--m1-count", type=int, help="M1 messages for librdkafka-based clients")
    ap.add_argument("--m1-peer-count", type=int, help="M1 messages for kafka-python and aiokafka")
    ap.add_argument("--no-pin", action="store_true", help="do not pin broker / clients to CPUs")
    ap.add_argument("--broker-cpu", type=int, default=0)
    ap.add_argument("--client-cpu", type=int, default=1)
    ap.add_argument("--log-dir", default="auto", help="broker data parent dir: auto (tmpfs if room), "
                    "disk, or a path")
    ap.add_argument("--heap", default="1g", help="broker -Xms and -Xmx")
    ap.add_argument("--fetch-queue-backoff-ms", type=int, default=10,
                    help="librdkafka consumers' fetch.queue.backoff.ms (librdkafka default 1000)")
    ap.add_argument("--out-dir", default=RESULTS)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    t_start = time.monotonic()
    mode = dict(QUICK if args.quick else FULL)
    mode["counts"] = dict(mode["counts"])
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
        for s in sizes:
            mode["counts"].setdefault(s, mode["counts"][min(mode["counts"], key=lambda k: abs(k - s))])
        mode["sizes"] = sizes
    for s in mode["sizes"]:
        fast, slow = mode["counts"][s]
        mode["counts"][s] = (args.count or fast, args.peer_count or slow)
    if args.rounds is not None:
        mode["rounds"] = args.rounds
    if args.m1 is not None:
        mode["m1"] = args.m1
    mc = mode["m1_counts"]
    mode["m1_counts"] = (args.m1_count or mc[0], args.m1_peer_count or mc[1])
    clients = [c for c in args.clients.split(",") if c]
    workloads = [w for w in args.workloads.split(",") if w]
    for c in clients:
        if c not in CLIENTS:
            sys.exit("unknown client %r (known: %s)" % (c, ", ".join(CLIENTS)))
    for w in workloads:
        if w not in WORKLOADS:
            sys.exit("unknown workload %r" % w)
    if C_TOOL in clients and not os.access(PERF_BIN, os.X_OK):
        sys.exit("%s is missing: run librdkafka-build/build-perf.sh (make bench does)" % PERF_BIN)
    ncpu = os.cpu_count() or 1
    pin = not args.no_pin and ncpu >= 2 and shutil.which("taskset") is not None
    broker_cpu, client_cpu = (args.broker_cpu, args.client_cpu) if pin else (None, None)

    tmp = tempfile.mkdtemp(prefix="cb-bench-")
    os.environ.setdefault("CONFLUENT_BINDING_CACHE", os.path.join(ROOT, ".cache"))
    pkg, ext_sha = snapshot_package(tmp)
    sys.path.insert(0, pkg)
    env = dict(os.environ)
    env["PYTHONPATH"] = pkg
    env["BENCH_PYTHONPATH"] = pkg
    env["BENCH_FETCH_QUEUE_BACKOFF_MS"] = str(args.fetch_queue_backoff_ms)
    env.pop("KAFKA_BOOTSTRAP_SERVERS", None)
    args._perf_version = perf_version() if os.access(PERF_BIN, os.X_OK) else None

    # Broker data: fill topics + the largest producer topic (deleted after each run) + slack.
    fill = {}
    for s in mode["sizes"]:
        need = max(mode["counts"][s])
        if mode["m1"] and s == mode["sizes"][0]:
            need = max(need, max(mode["m1_counts"]))
        fill[s] = need
    need_bytes = sum(n * (s + 80) for s, n in fill.items())
    need_bytes += max(max(c) * (s + 80) for s, c in mode["counts"].items()) * 2 + (1 << 30)
    log_dir, log_dir_note = pick_log_dir(need_bytes, args.log_dir)

    versions = peer_versions(env)
    versions.update({"rdkafka_performance": args._perf_version, "python": platform.python_version(),
                     "python_implementation": platform.python_implementation(), "java": java_version(),
                     "confluent_binding_extension_sha256": ext_sha})
    from confluent_binding.testing import DEFAULT_KAFKA_VERSION
    versions["kafka_broker"] = DEFAULT_KAFKA_VERSION
    machine = {"nproc": ncpu, "cpu_model": cpu_model(), "kernel": platform.release(),
               "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "n/a"),
               "mem_total_gb": round(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9, 1),
               "broker_log_dir": log_dir_note, "broker_on_tmpfs": log_dir is not None,
               "pinning": ("broker on CPU %d, clients on CPU %d (taskset)" % (broker_cpu, client_cpu))
               if pin else "none", "loadavg_start": _read("/proc/loadavg")}
    log("mode %s: sizes %s, counts %s, %d+1 rounds, M1 %s; broker data on %s; pinning: %s"
        % ("quick" if args.quick else "full", mode["sizes"], mode["counts"], mode["rounds"],
           "on" if mode["m1"] else "off", log_dir_note, machine["pinning"]))

    broker = Broker(args, log_dir)
    t0 = time.monotonic()
    broker.start(broker_cpu)
    log("broker %s up at %s in %.1f s (pid %d, heap %s)" % (versions["kafka_broker"], broker.bootstrap,
                                                           time.monotonic() - t0, broker.pid, args.heap))
    bench = Bench(args, mode, env, broker, client_cpu)
    fills = []
    try:
        if any(w.startswith("C") for w in workloads) or mode["m1"]:
            for s in mode["sizes"]:
                fills.append(fill_topic(bench, s, fill[s]))
        for rnd in range(mode["rounds"] + 1):
            order = clients[rnd % len(clients):] + clients[:rnd % len(clients)]
            log("round %d%s: %s" % (rnd, " (warm-up)" if rnd == 0 else "", " ".join(order)))
            for s in mode["sizes"]:
                for w in workloads:
                    for pos, c in enumerate(order):
                        if c == C_TOOL and w == "P2":
                            continue   # the tool's producer always runs a per-message DR callback: P1 is both
                        bench.run(c, w, s, rnd, pos)
        if mode["m1"]:
            s = mode["sizes"][0]
            log("M1: RSS every %s messages" % " / ".join("{:,}".format(m1_rss_every(c)) for c in mode["m1_counts"]))
            for c in [c for c in clients if c != C_TOOL]:
                for w in ("P2", "C1"):
                    if w in workloads:
                        bench.run(c, w, s, 0, 0, m1=True)
    finally:
        broker.stop()
        if log_dir:
            shutil.rmtree(log_dir, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)

    machine["loadavg_end"] = _read("/proc/loadavg")
    now = _dt.datetime.now(_dt.timezone.utc)
    meta = {
        "timestamp": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "mode": "quick" if args.quick else "full",
        "argv": sys.argv[1:] if argv is None else list(argv), "duration_seconds": time.monotonic() - t_start,
        "sizes": mode["sizes"], "counts": {str(k): v for k, v in mode["counts"].items()},
        "rounds_counted": mode["rounds"], "warmup_rounds": 1, "m1": mode["m1"],
        "m1_counts": mode["m1_counts"], "m1_rss_every": [m1_rss_every(c) for c in mode["m1_counts"]],
        "clients": clients, "workloads": workloads, "heap": args.heap, "versions": versions, "machine": machine,
        "fills": fills, "settings": settings_note(args),
    }
    for r in bench.runs:   # no machine paths in result files
        if r.get("error"):
            r["error"] = r["error"].replace(tmp, "<tmp>").replace(ROOT, "<repo>")
    from report import summarize, write_outputs
    doc = {"meta": meta, "runs": bench.runs}
    doc["summary"] = summarize(doc)
    paths = write_outputs(doc, args.out_dir, now.strftime("%Y%m%dT%H%M%SZ"))
    log("done in %.0f s; wrote %s" % (meta["duration_seconds"], ", ".join(paths)))
    failed = [r for r in bench.runs if not r["ok"]]
    if failed:
        log("%d of %d runs failed (see the table)" % (len(failed), len(bench.runs)))
    return 0


def settings_note(args) -> dict:
    return {
        "producer (librdkafka clients)": "acks=-1 linger.ms=5 batch.size=1048576 "
        "max.in.flight.requests.per.connection=5 enable.idempotence=false compression none "
        "queue.buffering.max.messages=1000000; partition 0; poll(0) every 1000 produces; "
        "BufferError: poll(0.01) and retry",
        "producer (kafka-python)": "acks=-1 enable_idempotence=False linger_ms=5 batch_size=1048576 "
        "max_in_flight_requests_per_connection=5; partition 0",
        "producer (aiokafka)": "acks=all enable_idempotence=False linger_ms=5 max_batch_size=1048576; "
        "partition 0; default asyncio loop",
        "rdkafka_performance producer": "-P -D -p 0 " + " ".join(C_PRODUCER_FLAGS),
        "consumer (all)": "new group per run, auto.offset.reset=earliest, read_uncommitted, "
        "auto commit every 5 s, CRC checks off (librdkafka's default; kafka-python/aiokafka "
        "check_crcs=False), prefetch defaults",
        "fetch.queue.backoff.ms (librdkafka clients)": str(args.fetch_queue_backoff_ms),
        "rdkafka_performance consumer": "-G <group> [-B 1000] -X queued.min.messages=100000 "
        "-X isolation.level=read_uncommitted -X session.timeout.ms=45000",
        "payload": "one pre-allocated bytes object per run (producers); consumers read a topic "
        "filled once per size by rdkafka_performance -S 0 (sequence number at the start of each value)",
    }


if __name__ == "__main__":
    sys.exit(main())
