"""How far the consumer's rate is the binding's and how far the application's loop: the C tool's
C1 and C2 against ours with the benchmark's per-message accessors (C1, C2), with none (C1b:
``poll()`` alone; C2b: ``consume()`` and the Messages' deallocation, no loop over the list) and
with no Python object per record at all (C2a: ``consume_arrow()`` in C2's batches of 1000).
Alternating rounds on one local broker (started here) and one topic of N x 100 B, pinned as
``make bench`` pins them (the broker on CPU 0, each client process on CPU 1):

    python bench/consume_bound.py [--count 2000000] [--rounds 5]

Prints a table of medians: msgs/s, the ratio to the tool's workload of the same kind, the loop
thread's utilisation and the process's CPU-s per M messages (every thread, the one that parses
fetches included). A shape's run is bench/permsg_profile.py's, without a profiler.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from harness import settings  # noqa: E402
from harness.broker import pin_process  # noqa: E402
from harness.catalog import PERF_BIN  # noqa: E402

_TOOL_RE = re.compile(r"% (\d+) messages \((\d+) bytes\) consumed in (\d+)ms")
SHAPES = ("tool C1", "C1", "C1b", "tool C2", "C2", "C2b", "C2a")
PIN = ["taskset", "-c", "1"] if (os.cpu_count() or 1) >= 2 else []


def tool(workload: str, bootstrap: str, topic: str, n: int) -> dict:
    cmd = PIN + [PERF_BIN, "-G", "bound-%s" % uuid.uuid4().hex, "-t", topic, "-b", bootstrap,
           "-c", str(n)] + settings.c_tool_consumer_flags(settings.fetch_queue_backoff_ms())
    if workload == "C2":
        cmd += ["-B", str(settings.BATCH)]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         check=True).stdout
    got, _nbytes, ms = (int(x) for x in _TOOL_RE.findall(out)[-1])
    return {"msgs_per_s": got / (max(ms, 1) / 1000.0), "loop_util": None, "cpu_s_per_m": None}


def ours(shape: str, bootstrap: str, topic: str, n: int) -> dict:
    out = subprocess.run(PIN + [sys.executable, os.path.join(HERE, "permsg_profile.py"),
                          "--client", "confluent_binding", "--shape", shape, "--count", str(n),
                          "--bootstrap", bootstrap, "--topic", topic],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def fill(bootstrap: str, topic: str, n: int) -> None:
    cmd = [PERF_BIN, "-P", "-t", topic, "-b", bootstrap, "-s", "100", "-c", str(n), "-p", "0"]
    subprocess.run(cmd + settings.c_tool_producer_flags(), stdout=subprocess.DEVNULL,
                   check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    from confluent_binding.testing import KafkaCluster

    runs: dict = {s: [] for s in SHAPES}
    with KafkaCluster() as k:
        bootstrap = k.bootstrap_servers
        if PIN:
            pin_process(k.pid, {0})
        topic = k.create_topic("bound-%s" % uuid.uuid4().hex[:8], 1)
        fill(bootstrap, topic, a.count)
        for r in range(a.rounds):
            for s in SHAPES:
                res = (tool(s.split()[1], bootstrap, topic, a.count) if s.startswith("tool")
                       else ours(s, bootstrap, topic, a.count))
                runs[s].append(res)
                print("round %d %-8s %.2f M msgs/s" % (r + 1, s, res["msgs_per_s"] / 1e6),
                      file=sys.stderr, flush=True)

    def median(s: str, key: str):
        xs = [x[key] for x in runs[s] if x[key] is not None]
        return statistics.median(xs) if xs else None

    print("| shape | M msgs/s (median) | ÷ the tool | loop thread util | CPU-s per M |")
    print("|---|--:|--:|--:|--:|")
    for s in SHAPES:
        rate = median(s, "msgs_per_s")
        base = median("tool " + ("C1" if s.startswith(("C1", "tool C1")) else "C2"), "msgs_per_s")
        util, cpu = median(s, "loop_util"), median(s, "cpu_s_per_m")
        print("| %s | %.2f | %.2fx | %s | %s |" % (
            s, rate / 1e6, rate / base, "–" if util is None else "%.2f" % util,
            "–" if cpu is None else "%.3f" % cpu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
