"""The machine and the versions a result records, and the CPU accounting of the orchestrator."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import subprocess
import sys

from runners.protocol import proc_cpu_seconds  # noqa: F401 - one reader of /proc/<pid>/stat


def read(path: str, default: str = "") -> str:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cpu_model() -> str:
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def fs_type(path: str) -> str:
    """Filesystem type of the mount holding ``path`` (longest matching mount point)."""
    path = os.path.realpath(path)
    best, kind = "", "unknown"
    for line in read("/proc/mounts").splitlines():
        parts = line.split()
        if len(parts) >= 3:
            mnt = parts[1]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best):
                best, kind = mnt, parts[2]
    return kind


def mem_available() -> int:
    for line in read("/proc/meminfo").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def busy_cpu_seconds() -> float:
    """All CPUs' non-idle time since boot (from /proc/stat), in seconds."""
    fields = [int(x) for x in read("/proc/stat").splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    return (sum(fields[:8]) - idle - steal) / os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def sha256_of(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def peer_versions(env) -> dict:
    code = (
        "import json, confluent_binding as cb, confluent_kafka as ck, kafka, kafka.record.util,"
        " aiokafka;"
        "print(json.dumps({'confluent_binding': cb.__version__, "
        "'confluent_binding_librdkafka': cb.libversion()[0], "
        "'confluent_kafka': ck.__version__, 'confluent_kafka_librdkafka': ck.libversion()[0], "
        "'kafka_python': kafka.__version__, 'aiokafka': aiokafka.__version__, "
        "'kafka_python_c_crc32c': kafka.record.util.crc32c_c is not None}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, check=True
    ).stdout
    return json.loads(out)


def java_version() -> str:
    try:
        out = subprocess.run(
            ["java", "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        ).stdout
        return out.decode().splitlines()[0].strip()
    except OSError:
        return "unknown"


def describe(ncpu: int) -> dict:
    return {
        "nproc": ncpu,
        "cpu_model": cpu_model(),
        "kernel": platform.release(),
        "governor": read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "n/a"),
        "mem_total_gb": round(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9, 1),
        "loadavg_start": read("/proc/loadavg"),
    }
