"""Where a cbkafka Spark task spends its time, outside Spark: the same read as one task, in
stages, on one partition of N x 100 B records.

    python bench/spark_profile.py [--count 5000000] [--bootstrap host:port]

1. consume   Consumer.consume_arrow(10000) over the range (what the task's read() does)
2. + IPC     the same, each batch also written as an Arrow IPC stream (what Spark's Python
             worker does to hand batches to the JVM)
A Spark task's rate (bench/spark_kafka.py, total rows/s / tasks) below stage 2 is time spent in
the JVM (Arrow -> rows, the count or parquet writer) and in scheduling.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _local_broker import broker, fill  # noqa: E402


def read(bootstrap: str, topic: str, count: int, ipc: bool) -> tuple:
    import pyarrow as pa

    import confluent_binding as kafka
    from confluent_binding.spark._plan import OffsetRange
    from confluent_binding.spark._read import read_range

    conf = {"bootstrap.servers": bootstrap, "group.id": "profile-%s" % uuid.uuid4().hex,
            "enable.auto.commit": False, "enable.partition.eof": True,
            "auto.offset.reset": "error"}
    assert kafka.Consumer  # the binding is imported before timing
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    n = 0
    sink = pa.BufferOutputStream() if ipc else None
    writer = None
    for batch in read_range(conf, OffsetRange(topic, 0, 0, count), False, 120000, True):
        n += batch.num_rows
        if ipc:
            if writer is None:
                writer = pa.ipc.new_stream(sink, batch.schema)
            writer.write_batch(batch)
            if sink.tell() > 256 << 20:  # do not keep the whole stream in memory
                writer.close()
                sink = pa.BufferOutputStream()
                writer = None
    secs = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    assert n == count, (n, count)
    return n / secs, cpu / (n / 1e6)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=5_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bootstrap")
    args = ap.parse_args()
    with broker(args.bootstrap, "bench-profile-") as (bootstrap, cluster):
        topic = "bench-profile-%s" % uuid.uuid4().hex[:8]
        cluster.create_topic(topic, partitions=1)
        fill(bootstrap, topic, args.count)
        for rnd in range(args.rounds):
            for ipc in (False, True):
                rate, cpu = read(bootstrap, topic, args.count, ipc)
                print("round %d %-12s %10.0f rows/s  %.2f CPU-s per M rows" % (
                    rnd, "consume+IPC" if ipc else "consume", rate, cpu), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
