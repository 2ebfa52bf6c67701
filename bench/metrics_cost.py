"""What confluent_binding.metrics costs: P2 (produce with a per-message delivery callback that
only counts, ``poll(0)`` every 1000, ``flush()``) and C1 (consume one message per
``poll(1.0)``) with the metrics off and on, in alternating fresh processes against a real local
broker, with the benchmark's client settings (``harness/settings.py``).

Metrics on: ``metrics.instrument(conf, provider, interval_ms=1000)`` on an OpenTelemetry SDK
MeterProvider whose periodic reader collects every second (as a Prometheus scrape every second
would) into an exporter that drops the data: statistics parsed every second on the client's
thread, the instruments read every second on the reader's.

Tracing on (``--what tracing``): the clients wrapped by ``metrics.trace(client, provider)`` on
an OpenTelemetry SDK TracerProvider whose batch span processor exports into an exporter that
drops the spans: a ``send`` span per produced message (its context injected into the message's
headers, ended by its delivery report) and a ``process`` span per consumed one (its producer's
context extracted from the headers).

Run: ``.venv/bin/python bench/metrics_cost.py [--what metrics|tracing] [--count N] [--rounds R]
[--bootstrap HOST:PORT]`` (a broker is started when none is given). Prints a Markdown table:
median msgs/s of each side, min-max, and on/off.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(BENCH))
sys.path.insert(0, BENCH)

STATS_MS = 1000


def _provider():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import (
        MetricExporter,
        MetricExportResult,
        PeriodicExportingMetricReader,
    )

    class Discard(MetricExporter):
        def export(self, metrics_data, timeout_millis=10000, **kwargs):
            return MetricExportResult.SUCCESS

        def force_flush(self, timeout_millis=10000):
            return True

        def shutdown(self, timeout_millis=30000, **kwargs):
            pass

    return MeterProvider(metric_readers=[
        PeriodicExportingMetricReader(Discard(), export_interval_millis=STATS_MS)])


def _tracer_provider():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Discard(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Discard()))
    return provider


def child(workload, on, bootstrap, topic, count, what="metrics"):
    """One run in this process: prints ``msgs/s cpu_s``."""
    from harness import settings

    import confluent_binding as kafka
    from confluent_binding import metrics

    tracing = on and what == "tracing"
    provider = None
    if on:
        provider = _tracer_provider() if tracing else _provider()

    def conf(base):
        if on and not tracing:
            return metrics.instrument(base, provider, interval_ms=STATS_MS)
        return base

    def client(made):
        return metrics.trace(made, provider) if tracing else made

    value = b"x" * 100
    if workload == "P2":
        base = settings.librdkafka_producer()
        base["bootstrap.servers"] = bootstrap
        p = client(kafka.Producer(conf(base)))
        done = [0]

        def on_delivery(err, msg):
            if err is None:
                done[0] += 1
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(count):
            while True:
                try:
                    p.produce(topic, value, partition=0, on_delivery=on_delivery)
                    break
                except BufferError:
                    p.poll(0.001)
            if i % 1000 == 999:
                p.poll(0)
        p.flush()
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert done[0] == count, "delivered %d of %d" % (done[0], count)
    else:
        base = settings.librdkafka_consumer()
        base.update({"bootstrap.servers": bootstrap, "group.id": "cost-" + uuid.uuid4().hex})
        c = client(kafka.Consumer(conf(base)))
        c.assign([kafka.TopicPartition(topic, 0, 0)])
        m = None
        while m is None:                     # the clock starts at the first message
            m = c.poll(1.0)
        t0, c0 = time.perf_counter(), time.process_time()
        n = 1
        while n < count:
            m = c.poll(1.0)
            if m is not None and m.error() is None:
                n += 1
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        c.close()
    if provider is not None:
        provider.shutdown()
    print("%.1f %.4f" % (count / elapsed, cpu))


def _run(args, workload, on, bootstrap, topic):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", workload, "on" if on else "off",
           bootstrap, topic, str(args.count), "--what", args.what]
    if shutil.which("taskset") and (os.cpu_count() or 1) > 1 and not args.no_pin:
        cmd = ["taskset", "-c", str(args.client_cpu)] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600).stdout
    rate, cpu = out.split()[-2:]
    return float(rate), float(cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bootstrap")
    ap.add_argument("--client-cpu", type=int, default=1)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--what", choices=("metrics", "tracing"), default="metrics",
                    help="what the 'on' side turns on (default: metrics)")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        workload, on, bootstrap, topic, count = args.child
        return child(workload, on == "on", bootstrap, topic, int(count), args.what)

    from _local_broker import broker

    with broker(args.bootstrap, prefix="bench-metrics-") as (bootstrap, cluster):
        topic = "bench-metrics-" + uuid.uuid4().hex[:8]
        cluster.create_topic(topic, partitions=1)
        results = {(w, on): [] for w in ("P2", "C1") for on in (False, True)}
        # a warm-up round of each, not counted (it also fills the topic C1 reads)
        for w in ("P2", "C1"):
            for on in (False, True):
                _run(args, w, on, bootstrap, topic)
        for r in range(args.rounds):
            for w in ("P2", "C1"):
                # alternate which side goes first, so drift weighs on both alike
                for on in ((False, True) if r % 2 == 0 else (True, False)):
                    results[(w, on)].append(_run(args, w, on, bootstrap, topic))
    print("| row | %s off msgs/s (min-max) | %s on msgs/s (min-max) | on/off | "
          "CPU-s per M off / on |" % (args.what, args.what))
    print("|---|---|---|---|---|")
    for w in ("P2", "C1"):
        off, on = results[(w, False)], results[(w, True)]
        mo, mn = statistics.median(r for r, _ in off), statistics.median(r for r, _ in on)
        co = statistics.median(c for _, c in off) * 1e6 / args.count
        cn = statistics.median(c for _, c in on) * 1e6 / args.count
        print("| %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.3f | %.3f / %.3f |" % (
            w, mo, min(r for r, _ in off), max(r for r, _ in off), mn, min(r for r, _ in on),
            max(r for r, _ in on), mn / mo, co, cn))
    print("\n%d messages of 100 B per run, %d rounds (after a warm-up), alternating, medians"
          % (args.count, args.rounds))


if __name__ == "__main__":
    sys.exit(main())
