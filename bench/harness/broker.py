"""The broker the clients measure against: a real single-node Kafka (KRaft), pinned to one CPU,
its data on a tmpfs when there is room; and the pre-filled topics the consumers read."""

from __future__ import annotations

import os
import subprocess
import time

from harness import settings
from harness.catalog import PERF_BIN
from harness.machine import fs_type, mem_available


def log(msg: str) -> None:
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


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
    kind = fs_type(cand)
    room = min(free, mem_available() - (3 << 30)) if kind == "tmpfs" else free
    if room < need_bytes:
        return None, "disk (%s has %.1f GB room, need %.1f GB)" % (
            cand,
            room / 1e9,
            need_bytes / 1e9,
        )
    return os.path.join(cand, "cb-bench-%d" % os.getpid()), "%s, %.1f GB free" % (kind, free / 1e9)


class Broker:
    def __init__(self, heap: str, log_dir):
        from confluent_binding.testing import KafkaCluster

        self.cluster = KafkaCluster(
            log_dir=log_dir,
            heap=heap,
            heap_min=heap,
            broker_properties={
                # a deleted topic's files go at once: producer runs make a fresh topic each
                "log.segment.delete.delay.ms": 1000,
                "log.retention.check.interval.ms": 10000,
            },
        )

    def start(self, pin_cpu):
        self.cluster.start()
        if pin_cpu is not None:
            pin_process(self.cluster.pid, {pin_cpu})
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

        c = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": "bench-verify",
                "enable.auto.commit": "false",
            }
        )
        try:
            return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)[1]
        finally:
            c.close()

    def stop(self):
        self.cluster.cleanup()

    def fill(self, size: int, count: int, taskset: list) -> dict:
        """Fill ``bench-src-<size>`` with ``count`` values carrying their sequence numbers."""
        topic = source_topic(size)
        self.create_topic(topic)
        cmd = (
            taskset
            + [
                PERF_BIN,
                "-P",
                "-t",
                topic,
                "-b",
                self.bootstrap,
                "-s",
                str(size),
                "-c",
                str(count),
                "-p",
                "0",
                "-S",
                "0",
            ]
            + settings.c_tool_producer_flags()
        )
        t0 = time.monotonic()
        p = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120 + count / 5000
        )
        end = self.end_offset(topic)
        if end != count:
            raise SystemExit(
                "filling %s failed: end offset %d, expected %d:\n%s"
                % (topic, end, count, p.stdout.decode(errors="replace")[-2000:])
            )
        took = time.monotonic() - t0
        log(
            "filled %s: %d messages of %d B with sequence numbers in %.1f s"
            % (topic, count, size, took)
        )
        return {"topic": topic, "messages": count, "size": size, "seconds": took}


def source_topic(size: int) -> str:
    return "bench-src-%d" % size
