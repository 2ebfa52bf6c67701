"""The Schema Registry clients side by side: ``SerializingProducer`` and ``DeserializingConsumer``
with Avro, Protobuf and JSON Schema values, ours next to confluent-kafka's, against a real
Kafka broker and a real Schema Registry (both started here unless given).

Each run is a child process of one library doing one thing: producing N records of a ~10-field
record (a decimal and a timestamp among them, in each format's own types) through the
format's serializer, or consuming N such records through its deserializer. Both libraries'
consumers read the same topic (written by confluent-kafka's producer), so they decode the same
bytes. The child reports wall time (first call to the end of ``flush()``, or first record to
the N-th) and the process's CPU time over the same span. Runs alternate between the libraries,
rounds repeat; the table gives medians, ours ÷ confluent-kafka's msgs/s, and CPU-s per million
records.

    .venv/bin/python bench/serdes.py [--count N] [--rounds R] [--formats avro,protobuf,json]
        [--bootstrap-servers B] [--schema-registry URL] [--out-dir bench/results/serdes]

Children are pinned to one core (``taskset -c 1``) when ``taskset`` exists, like ``make bench``'s
clients. Writes ``<out-dir>/<UTC timestamp>.json`` (every run) and ``<out-dir>/latest.md``.
"""

import argparse
import datetime
import functools
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

LIBRARIES = ("confluent_binding", "confluent_kafka")
FORMATS = ("avro", "protobuf", "json")

AVRO_SCHEMA = json.dumps({
    "type": "record", "name": "Payment", "namespace": "bench",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "customer", "type": "string"},
        {"name": "email", "type": "string"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal",
                                    "precision": 12, "scale": 2}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "approved", "type": "boolean"},
        {"name": "score", "type": "double"},
        {"name": "country", "type": "string"},
        {"name": "items", "type": "int"},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    ]})

JSON_SCHEMA = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#", "title": "Payment", "type": "object",
    "properties": {
        "id": {"type": "integer"}, "customer": {"type": "string"}, "email": {"type": "string"},
        "amount": {"type": "number"}, "at": {"type": "string"},
        "approved": {"type": "boolean"}, "score": {"type": "number"},
        "country": {"type": "string"}, "items": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "customer", "amount", "at"]})

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def payment(i):
    """The i-th record, as Python values common to the formats."""
    return {"id": i, "customer": "customer-%d" % (i % 1000), "email": "c%d@example.org" % i,
            "amount": Decimal(i % 100000) / 100, "at": T0 + datetime.timedelta(seconds=i),
            "approved": i % 3 != 0, "score": i / 7.0, "country": ("DE", "FR", "US")[i % 3],
            "items": i % 17, "tags": ["a", "b"] if i % 2 else ["c"]}


@functools.lru_cache(maxsize=None)
def protobuf_class():
    """A generated-style Payment message class (built from a descriptor: no protoc)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    fd = descriptor_pb2.FileDescriptorProto(name="bench/payment.proto", package="bench",
                                            syntax="proto3")
    msg = fd.message_type.add(name="Payment")
    # (name, number, type): 3 int64, 9 string, 8 bool, 1 double, 5 int32
    for name, number, kind in (("id", 1, 3), ("customer", 2, 9), ("email", 3, 9),
                               ("amount", 4, 9), ("at", 5, 3), ("approved", 6, 8),
                               ("score", 7, 1), ("country", 8, 9), ("items", 9, 5)):
        msg.field.add(name=name, number=number, type=kind, label=1)
    msg.field.add(name="tags", number=10, type=9, label=3)
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("bench.Payment"))


def values(fmt, count):
    """``count`` records in the shape ``fmt``'s serializer takes (built before timing)."""
    if fmt == "avro":
        return [payment(i) for i in range(count)]
    if fmt == "json":
        out = []
        for i in range(count):
            p = payment(i)
            p["amount"] = float(p["amount"])
            p["at"] = p["at"].isoformat()
            out.append(p)
        return out
    cls = protobuf_class()
    out = []
    for i in range(count):
        p = payment(i)
        out.append(cls(id=p["id"], customer=p["customer"], email=p["email"],
                       amount=str(p["amount"]), at=int(p["at"].timestamp() * 1000),
                       approved=p["approved"], score=p["score"], country=p["country"],
                       items=p["items"], tags=p["tags"]))
    return out


def serdes(lib, fmt, registry):
    """(serializer, deserializer) of ``fmt`` from library ``lib``."""
    sr = importlib.import_module(lib + ".schema_registry")
    client = sr.SchemaRegistryClient({"url": registry})
    if fmt == "avro":
        mod = importlib.import_module(lib + ".schema_registry.avro")
        return (mod.AvroSerializer(client, AVRO_SCHEMA),
                mod.AvroDeserializer(client, AVRO_SCHEMA))
    if fmt == "json":
        mod = importlib.import_module(lib + ".schema_registry.json_schema")
        return (mod.JSONSerializer(JSON_SCHEMA, client),
                mod.JSONDeserializer(JSON_SCHEMA, schema_registry_client=client))
    mod = importlib.import_module(lib + ".schema_registry.protobuf")
    cls = protobuf_class()
    return (mod.ProtobufSerializer(cls, client, {"use.deprecated.format": False}),
            mod.ProtobufDeserializer(cls, {"use.deprecated.format": False}))


def child(args):
    """One measured run in this process; prints its result as JSON."""
    lib = importlib.import_module(args.lib)
    serializer, deserializer = serdes(args.lib, args.format, args.schema_registry)
    if args.child == "produce":
        records = values(args.format, args.count)
        producer = lib.SerializingProducer({
            "bootstrap.servers": args.bootstrap_servers, "linger.ms": 5,
            "queue.buffering.max.messages": 2 * args.count, "value.serializer": serializer})
        c0, t0 = time.process_time(), time.perf_counter()
        for i, value in enumerate(records):
            producer.produce(args.topic, value=value, partition=0)
            if i % 1000 == 999:
                producer.poll(0)
        left = producer.flush(60)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert left == 0, "%d records undelivered" % left
    else:
        consumer = lib.DeserializingConsumer({
            "bootstrap.servers": args.bootstrap_servers, "group.id": "bench-" + uuid.uuid4().hex,
            "enable.auto.commit": False, "value.deserializer": deserializer})
        consumer.assign([lib.TopicPartition(args.topic, 0, 0)])
        got, t0, c0 = 0, None, None
        deadline = time.monotonic() + 120
        while got < args.count and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                raise RuntimeError(msg.error())
            if t0 is None:
                c0, t0 = time.process_time(), time.perf_counter()
            got += 1
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        last = msg.value()
        consumer.close()
        assert got == args.count, "consumed %d of %d" % (got, args.count)
        check = last["id"] if isinstance(last, dict) else last.id
        assert check == args.count - 1, "last record's id %r" % (check,)
    print(json.dumps({"wall": wall, "cpu": cpu}))


def run_child(kind, lib, fmt, topic, count, bootstrap, registry):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--lib", lib,
           "--format", fmt, "--topic", topic, "--count", str(count),
           "--bootstrap-servers", bootstrap, "--schema-registry", registry]
    if shutil.which("taskset") and (os.cpu_count() or 1) > 1:
        cmd = ["taskset", "-c", "1"] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError("%s %s %s failed:\n%s" % (kind, lib, fmt, proc.stderr[-3000:]))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(count, rows):
    out = ["| format | direction | confluent_binding msgs/s | confluent-kafka msgs/s | "
           "ours ÷ confluent | CPU-s per M records, ours / confluent |",
           "|---|---|--:|--:|--:|--:|"]
    for (fmt, kind), runs in rows.items():
        med = {lib: (statistics.median(count / r["wall"] for r in runs[lib]),
                     statistics.median(r["cpu"] * 1e6 / count for r in runs[lib]))
               for lib in LIBRARIES}
        ours, theirs = med["confluent_binding"], med["confluent_kafka"]
        out.append("| %s | %s | %s | %s | %.2f× | %.1f / %.1f |" % (
            fmt, kind, "{:,.0f}".format(ours[0]), "{:,.0f}".format(theirs[0]),
            ours[0] / theirs[0], ours[1], theirs[1]))
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--bootstrap-servers")
    parser.add_argument("--schema-registry")
    parser.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results", "serdes"))
    parser.add_argument("--child", choices=("produce", "consume"), help=argparse.SUPPRESS)
    parser.add_argument("--lib", help=argparse.SUPPRESS)
    parser.add_argument("--format", help=argparse.SUPPRESS)
    parser.add_argument("--topic", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)

    from bench._local_broker import broker

    from tests.support.schema_registry import SchemaRegistryServer

    registry_server = None
    if not args.schema_registry:
        registry_server = SchemaRegistryServer().start()
        args.schema_registry = registry_server.url
    runs = []
    rows = {}
    try:
        with broker(args.bootstrap_servers, prefix="bench-serdes-") as (bootstrap, cluster):
            for fmt in args.formats.split(","):
                for r in range(args.rounds):
                    order = LIBRARIES if r % 2 == 0 else LIBRARIES[::-1]
                    topics = {}
                    for lib in order:
                        topics[lib] = "bench-serdes-%s-%s" % (fmt, uuid.uuid4().hex[:8])
                        cluster.create_topic(topics[lib], partitions=1)
                        res = run_child("produce", lib, fmt, topics[lib], args.count, bootstrap,
                                        args.schema_registry)
                        runs.append(dict(res, kind="produce", lib=lib, format=fmt, round=r))
                        rows.setdefault((fmt, "produce"), {name: [] for name in LIBRARIES})[lib] \
                            .append(res)
                    for lib in order:     # both read what confluent-kafka wrote
                        res = run_child("consume", lib, fmt, topics["confluent_kafka"],
                                        args.count, bootstrap, args.schema_registry)
                        runs.append(dict(res, kind="consume", lib=lib, format=fmt, round=r))
                        rows.setdefault((fmt, "consume"), {name: [] for name in LIBRARIES})[lib] \
                            .append(res)
                    print("%s round %d done" % (fmt, r + 1), file=sys.stderr)
    finally:
        if registry_server is not None:
            registry_server.stop()

    from importlib.metadata import version
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    os.makedirs(args.out_dir, exist_ok=True)
    meta = {"count": args.count, "rounds": args.rounds, "python": sys.version.split()[0],
            "confluent_binding": version("confluent_binding"),
            "confluent_kafka": version("confluent-kafka"), "nproc": os.cpu_count(),
            "loadavg": os.getloadavg()}
    with open(os.path.join(args.out_dir, stamp + ".json"), "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1)
    text = ("# Schema Registry clients, ours and confluent-kafka's\n\n"
            "`bench/serdes.py`, %s: %d records per run, %d rounds (medians), one core per "
            "client; confluent_binding %s, confluent-kafka %s, Python %s; load average %s at "
            "the end. Run file: `%s.json`.\n\n%s\n"
            % (stamp, args.count, args.rounds, meta["confluent_binding"],
               meta["confluent_kafka"], meta["python"],
               " ".join("%.1f" % x for x in meta["loadavg"]), stamp, table(args.count, rows)))
    with open(os.path.join(args.out_dir, "latest.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
