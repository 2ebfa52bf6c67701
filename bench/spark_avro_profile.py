"""Where a cbkafka Spark task's time goes on an Avro read (``valueFormat=avro``), outside Spark:
one partition of N Avro records (bench/serdes.py's 10-field Payment, the topic bench/spark_kafka.py
``--ops avro`` reads), in one plain Python process, in stages.

    python bench/spark_avro_profile.py [--count 2000000] [--rounds 3] [--bootstrap SERVERS]
                                       [--schema-registry URL]

The task's read, end to end (wall time and the process's CPU, librdkafka's threads included):

1. fetch          read_range: Consumer.consume_arrow(10000) over the partition's range
2. + decode       the same batches through decoded() (the source's AvroDecoder per batch)
3. + IPC          each decoded batch also written as an Arrow IPC stream (what Spark's Python
                  worker does to hand it to the JVM)

The decoder's steps, per batch of 10000 fetched records held in memory (the steps of the
record-by-record path, FramedDecoder.decode, which the source takes for a batch its compiled
loop does not, timed apart):

- to_pylist       the binary column as a list of bytes objects
- fastavro        per record: the schema id, the writer schema (cached) and
                  fastavro.schemaless_reader into a dict (AvroDecoder._one); beside it the bare
                  schemaless_reader call on the same bytes (the floor of this approach)
- pyarrow.array   the list of dicts into the struct column (one call)
- cast            millisecond timestamps to microseconds
- decode()        the decoder's own call, as the source makes it (the compiled loop for these
                  records; its result checked equal to the steps' column)

Per-record microseconds (median of the rounds) and CPU-s per M records are printed and written
to bench/results/spark-avro-profile-<UTC time>.json (``--out`` names another file), with the
load average at the start of each round. A local broker and Schema Registry are started unless
given.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _local_broker import broker  # noqa: E402
from c3_profile import _cpu  # noqa: E402
from serdes import AVRO_SCHEMA  # noqa: E402
from spark_kafka import PARTITIONS, fill_avro  # noqa: E402


def _conf(bootstrap: str) -> dict:
    return {"bootstrap.servers": bootstrap, "group.id": "profile-%s" % uuid.uuid4().hex,
            "enable.auto.commit": False, "enable.partition.eof": True,
            "auto.offset.reset": "error"}


def _decoding(registry_url: str):
    from confluent_binding.spark._formats import Decoding

    return Decoding("value", json.loads(AVRO_SCHEMA), {}, {"url": registry_url}, False)


def task_read(bootstrap: str, topic: str, count: int, registry_url: str, stage: str,
              keep: bool = False) -> tuple:
    """One task's read of partition 0 up to ``stage``: (us per record, CPU-s per M records,
    the fetched batches when ``keep``)."""
    import pyarrow as pa

    from confluent_binding.spark._plan import OffsetRange
    from confluent_binding.spark._read import decoded, read_range

    kept = []
    t0, c0 = time.perf_counter(), _cpu()
    batches = read_range(_conf(bootstrap), OffsetRange(topic, 0, 0, count), False, 120000, True)
    if keep:
        batches = (kept.append(b) or b for b in batches)
    if stage != "fetch":
        batches = decoded(batches, [_decoding(registry_url)])
    n = 0
    sink, writer = None, None
    for batch in batches:
        n += batch.num_rows
        if stage == "ipc":
            if writer is None:
                sink = pa.BufferOutputStream()
                writer = pa.ipc.new_stream(sink, batch.schema)
            writer.write_batch(batch)
            if sink.tell() > 256 << 20:  # do not keep the whole stream in memory
                writer.close()
                writer = None
    secs, cpu = time.perf_counter() - t0, _cpu() - c0
    assert n == count, (stage, n, count)
    return secs / n * 1e6, cpu / (n / 1e6), kept


def decoder_steps(batches: list, registry_url: str) -> dict:
    """Microseconds per record of each step of the decoder over ``batches`` (in memory)."""
    import pyarrow as pa
    from fastavro import schemaless_reader

    from confluent_binding.spark._framed import schema_id

    decoder = _decoding(registry_url).decoder()

    def where(i: int) -> str:
        return "record %d" % i

    decoder.decode(batches[0].column("value"), where)  # the writer schema, fetched once
    writer = decoder._writer(schema_id(batches[0].column("value")[0].as_py()))[0]
    spent = dict.fromkeys(("to_pylist", "fastavro", "fastavro_bare", "pyarrow.array", "cast",
                           "decode()"), 0.0)
    n = 0
    for batch in batches:
        values = batch.column("value")
        n += len(values)
        t0 = time.perf_counter()
        raw = values.to_pylist()
        t1 = time.perf_counter()
        records = [decoder._one(data) for data in raw]
        t2 = time.perf_counter()
        for data in raw:
            buf = io.BytesIO(data)
            buf.seek(5)
            schemaless_reader(buf, writer, None)
        t3 = time.perf_counter()
        column = pa.array(records, type=decoder.raw_type)
        t4 = time.perf_counter()
        column = column.cast(decoder.type)
        t5 = time.perf_counter()
        whole, _ = decoder.decode(values, where)
        t6 = time.perf_counter()
        assert whole.equals(column)
        for key, secs in (("to_pylist", t1 - t0), ("fastavro", t2 - t1),
                          ("fastavro_bare", t3 - t2), ("pyarrow.array", t4 - t3),
                          ("cast", t5 - t4), ("decode()", t6 - t5)):
            spent[key] += secs
    return {k: v / n * 1e6 for k, v in spent.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2_000_000,
                    help="records in the topic (partition 0, the profiled one, holds half)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--bootstrap")
    ap.add_argument("--schema-registry")
    ap.add_argument("--out", help="the JSON file of the figures (default: "
                                  "bench/results/spark-avro-profile-<UTC time>.json)")
    args = ap.parse_args()
    registry = None
    if not args.schema_registry:
        from tests.support.schema_registry import SchemaRegistryServer

        registry = SchemaRegistryServer().start()
        args.schema_registry = registry.url
    try:
        with broker(args.bootstrap, "bench-avro-profile-") as (bootstrap, cluster):
            topic = "bench-avro-profile-%s" % uuid.uuid4().hex[:8]
            cluster.create_topic(topic, partitions=PARTITIONS)
            filled = fill_avro(bootstrap, topic, args.count, args.schema_registry)
            per_task = args.count // PARTITIONS
            print("filled %s: %d records of %.1f B (framed); partition 0 (%d records) profiled"
                  % (topic, args.count, filled["record_bytes"], per_task), flush=True)
            out = {"count": per_task, "record_bytes": filled["record_bytes"], "rounds": [],
                   "cpus": os.cpu_count()}
            batches = None
            for rnd in range(args.rounds):
                row = {"load": os.getloadavg()[0]}
                for stage in ("fetch", "decode", "ipc"):
                    us, cpu, kept = task_read(bootstrap, topic, per_task, args.schema_registry,
                                              stage, keep=batches is None)
                    batches = batches or kept
                    row[stage] = {"us": us, "cpu_per_m": cpu}
                    print("round %d %-7s %6.2f us per record (%9.0f rows/s), %.2f CPU-s per M"
                          % (rnd, stage, us, 1e6 / us, cpu), flush=True)
                row["steps"] = decoder_steps(batches, args.schema_registry)
                print("round %d decoder: %s" % (rnd, ", ".join(
                    "%s %.2f us" % kv for kv in row["steps"].items())), flush=True)
                out["rounds"].append(row)
            cluster.delete_topic(topic)
    finally:
        if registry is not None:
            registry.stop()
    med = {stage: statistics.median(r[stage]["us"] for r in out["rounds"])
           for stage in ("fetch", "decode", "ipc")}
    steps = {k: statistics.median(r["steps"][k] for r in out["rounds"])
             for k in out["rounds"][0]["steps"]}
    out["median_us"] = med
    out["median_cpu_per_m"] = {stage: statistics.median(r[stage]["cpu_per_m"]
                                                        for r in out["rounds"])
                               for stage in ("fetch", "decode", "ipc")}
    out["median_steps_us"] = steps
    print("median us per record: fetch %.2f, fetch+decode %.2f, +IPC %.2f; CPU-s per M: %s; "
          "decoder: %s" % (med["fetch"], med["decode"], med["ipc"], ", ".join(
              "%s %.2f" % kv for kv in out["median_cpu_per_m"].items()),
              ", ".join("%s %.2f" % kv for kv in steps.items())))
    path = args.out or os.path.join(ROOT, "bench", "results", "spark-avro-profile-%s.json"
                                    % time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    print("written to %s" % os.path.relpath(path, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
