"""The runner protocol: arguments, the payload, measurements, checks, the JSON line.

The orchestrator starts one runner process per measurement, from the bench/ directory:
``python -m runners.<client> --workload P1 --bootstrap ... --topic ... --size 100 --count N``,
and reads the one JSON object the runner prints on its last stdout line.

Checks (a failed check makes the run "ok": false and it is not timed):
  producers: every delivery report seen is OK (P2: exactly N OK reports); the orchestrator then
    checks that the fresh topic's end offset is exactly N.
  consumers: exactly N messages, N * size value bytes, no error events; every 1000th message
    (and each batch's first/last) has offset == its index and carries that index as the sequence
    number the filler (``rdkafka_performance -S 0``) wrote at the start of the value.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import traceback

from harness.settings import CHUNK

FIRST_MESSAGE_TIMEOUT = 60.0  # group join + first fetch
IDLE_TIMEOUT = 30.0  # no message for this long mid-run: give up
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICK = os.sysconf("SC_CLK_TCK")


def parse_args(workloads, argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", required=True, choices=sorted(workloads))
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--size", type=int, required=True, help="value size in bytes")
    ap.add_argument("--count", type=int, required=True, help="messages to produce / consume")
    ap.add_argument("--group", default=None, help="consumer group id (consumers)")
    ap.add_argument(
        "--broker-pid", type=int, default=0, help="read the broker's CPU time from /proc"
    )
    ap.add_argument(
        "--rss-every",
        type=int,
        default=0,
        help="sample VmRSS every this many messages (a multiple of 1000; 0: N/20)",
    )
    a = ap.parse_args(argv)
    if a.count <= 0 or a.size <= 0:
        ap.error("--count and --size must be positive")
    if a.rss_every <= 0:
        a.rss_every = max(CHUNK, (a.count // 20) // CHUNK * CHUNK)
    if a.rss_every % CHUNK:
        ap.error("--rss-every must be a multiple of %d" % CHUNK)
    return a


def payload(size: int) -> bytes:
    """One pre-allocated immutable value per run (the same bytes for every message)."""
    pattern = b"confluent_binding benchmark payload "
    return (pattern * (size // len(pattern) + 1))[:size]


def cpu_seconds() -> float:
    """User + system CPU of this process, all threads (librdkafka's included)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def rss_bytes() -> int:
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * _PAGE


def proc_cpu_seconds(pid: int):
    """utime + stime of another process (all its threads), or None."""
    if not pid:
        return None
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return None


def seq_of(value) -> int:
    """The sequence number ``rdkafka_performance -S`` writes at the start of a value: b"<n>: "."""
    return int(bytes(value[:24]).split(b":", 1)[0])


class Run:
    """Collects one measurement and prints it as the runner's JSON line."""

    def __init__(self, client: str, version: str, lib_version: str, args):
        self.args = args
        self.out = {
            "client": client,
            "version": version,
            "librdkafka": lib_version,
            "workload": args.workload,
            "size": args.size,
            "count": args.count,
            "topic": args.topic,
            "group": args.group,
            "ok": False,
            "error": None,
            "messages": 0,
            "bytes": 0,
            "seconds": None,
            "cpu_seconds": None,
            "broker_cpu_seconds": None,
            "rss": [],
            "python": sys.version.split()[0],
        }
        self.rss = self.out["rss"]
        self.problems = []
        self._t0 = self._c0 = self._b0 = None

    # -- timing window --
    def start(self) -> None:
        self._b0 = proc_cpu_seconds(self.args.broker_pid)
        self._c0 = cpu_seconds()
        self.rss.append((0, rss_bytes()))
        self._t0 = time.perf_counter()

    def stop(self, messages: int, nbytes: int) -> None:
        t1 = time.perf_counter()
        c1 = cpu_seconds()
        b1 = proc_cpu_seconds(self.args.broker_pid)
        self.out["seconds"] = t1 - self._t0
        self.out["cpu_seconds"] = c1 - self._c0
        if self._b0 is not None and b1 is not None:
            self.out["broker_cpu_seconds"] = b1 - self._b0
        self.out["messages"], self.out["bytes"] = messages, nbytes
        self.rss.append((messages, rss_bytes()))

    @property
    def started(self) -> bool:
        return self._t0 is not None

    def sample(self, n: int) -> None:
        self.rss.append((n, rss_bytes()))

    def problem(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)

    # -- checks --
    def check_consumed(self, n: int, nbytes: int) -> None:
        a = self.args
        if n != a.count:
            self.problem("received %d messages, expected %d" % (n, a.count))
        if nbytes != a.count * a.size:
            self.problem("received %d value bytes, expected %d" % (nbytes, a.count * a.size))

    def checkpoint(self, index: int, offset: int, value) -> None:
        """Message number ``index`` (0-based) must be at offset ``index`` and carry it."""
        if offset != index:
            self.problem(
                "message #%d has offset %d (lost or duplicated messages)" % (index, offset)
            )
            return
        if value is None or len(value) != self.args.size:
            self.problem(
                "message #%d: value of %s bytes, expected %d"
                % (index, None if value is None else len(value), self.args.size)
            )
            return
        try:
            seq = seq_of(value)
        except ValueError:
            seq = None
        if seq != index:
            self.problem("message #%d carries sequence %r" % (index, seq))

    def finish(self, **extra) -> None:
        self.out.update(extra)
        self.out["cpu_seconds_total"] = cpu_seconds()
        if self.problems:
            self.out["error"] = "; ".join(self.problems)
        self.out["ok"] = not self.problems and self.out["seconds"] is not None
        self.emit()

    def emit(self) -> None:
        sys.stdout.write("\n" + json.dumps(self.out) + "\n")
        sys.stdout.flush()


def main_guard(run: Run, body) -> int:
    """Run ``body(run)``; any exception becomes a failed result (still one JSON line)."""
    try:
        body(run)
    except BaseException as exc:  # noqa: BLE001 - reported, never swallowed silently
        run.problem("%s: %s" % (type(exc).__name__, exc))
        sys.stderr.write(traceback.format_exc())
        run.out["seconds"] = None
        run.finish()
        return 1
    return 0 if run.out["ok"] else 1


def deadline(seconds: float) -> float:
    return time.monotonic() + seconds
