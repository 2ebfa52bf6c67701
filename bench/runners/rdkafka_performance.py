"""Runner: the C ceiling, librdkafka's ``rdkafka_performance``, built from the pinned librdkafka.

This runner only starts the tool, waits for it and turns its summary line into the protocol's
JSON line. The tool times itself the same way the Python runners do (producer: first produce to
the last delivery; consumer: first message to the N-th). Its CPU is that of its whole process
(``RUSAGE_CHILDREN``: start-up and group join included, slightly pessimistic for the tool), over
its whole wall time.

P1 ``-P -D -p 0`` (``-D``: a malloc + memcpy per message, like ``RD_KAFKA_MSG_F_COPY``; the tool's
producer always runs a per-message delivery callback, so P1 stands for P2 too); C1 ``-G group``
(``rd_kafka_consumer_poll``); C2 ``-G group -B 1000`` (``rd_kafka_consume_batch_queue``); C3 the
same with ``-B 10000``, the batch size of the columnar consume it is compared with.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time

from harness import settings
from harness.catalog import PERF_BIN

from runners.protocol import Run, main_guard, parse_args, proc_cpu_seconds

_P_RE = re.compile(
    r"% (\d+) messages produced \((\d+) bytes\), (\d+) delivered "
    r"\(offset (-?\d+), (\d+) failed\) in (\d+)ms"
)
_C_RE = re.compile(r"% (\d+) messages \((\d+) bytes\) consumed in (\d+)ms")


def tool_version() -> str:
    out = subprocess.run([PERF_BIN, "-h"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout
    m = re.search(rb"librdkafka version (\S+)", out)
    return m.group(1).decode() if m else "unknown"


def command(a) -> list:
    if a.workload == "P1":
        return [
            PERF_BIN,
            "-P",
            "-t",
            a.topic,
            "-b",
            a.bootstrap,
            "-s",
            str(a.size),
            "-c",
            str(a.count),
            "-p",
            "0",
            "-D",
        ] + settings.c_tool_producer_flags()
    cmd = [PERF_BIN, "-G", a.group, "-t", a.topic, "-b", a.bootstrap, "-c", str(a.count)]
    cmd += settings.c_tool_consumer_flags(settings.fetch_queue_backoff_ms())
    if a.workload == "C2":
        cmd += ["-B", str(settings.BATCH)]
    elif a.workload == "C3":
        cmd += ["-B", str(settings.ARROW_BATCH)]
    return cmd


def measure(run: Run) -> None:
    a = run.args
    cmd = command(a)
    run.out["command"] = " ".join(["rdkafka_performance"] + cmd[1:])
    b0, w0 = proc_cpu_seconds(a.broker_pid), time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.monotonic() - w0
    b1 = proc_cpu_seconds(a.broker_pid)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = p.stdout.decode("utf-8", "replace")
    tail = (out + p.stderr.decode("utf-8", "replace")).strip()[-1500:]
    if a.workload == "P1":
        m = _P_RE.findall(out)
        if not m:
            run.problem("no summary line (exit %s): %s" % (p.returncode, tail))
            return run.finish()
        _produced, _nbytes, messages, _off, failed, ms = (int(x) for x in m[-1])
        # The tool exits 1 when its final outq count is off by one; delivered/failed count.
        if messages != a.count or failed:
            run.problem("%d delivered, %d failed of %d" % (messages, failed, a.count))
        nbytes = messages * a.size
    else:
        m = _C_RE.findall(out)
        if not m:
            run.problem("no summary line (exit %s): %s" % (p.returncode, tail))
            return run.finish()
        messages, nbytes, ms = (int(x) for x in m[-1])
        run.check_consumed(messages, nbytes)
    run.out.update(
        messages=messages,
        bytes=nbytes,
        seconds=max(ms, 1) / 1000.0,
        cpu_seconds=ru.ru_utime + ru.ru_stime,
        cpu_window_seconds=wall,
        broker_cpu_seconds=(b1 - b0) if b0 is not None and b1 is not None else None,
    )
    return run.finish()


def main() -> int:
    args = parse_args({"P1", "C1", "C2", "C3"})
    version = tool_version()
    run = Run("rdkafka_performance", version, version, args)
    return main_guard(run, measure)


if __name__ == "__main__":
    sys.exit(main())
