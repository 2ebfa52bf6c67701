#!/usr/bin/env python3
"""Side-by-side benchmarks: confluent_binding vs confluent-kafka, kafka-python, aiokafka and the C
ceiling (librdkafka's rdkafka_performance), against a real local Kafka broker.

    python bench/run.py                  # full: 100 B and 1 KiB, warm-up + 5 rounds, M1 memory runs
    python bench/run.py --quick          # 100 B, fewer messages, 3 rounds, no M1
    python bench/run.py --quick --check  # then compare the ratios with the committed quick run
    python bench/run.py --compare FILE   # compare a saved run, no measuring
    python bench/run.py --redraw FILE    # rewrite latest.json/.md/.png from a run's file

Results go to bench/results/ (full), bench/results/quick/ (--quick) or bench/results/check/
(--check): <stamp>.json with every record, latest.json (the summary), latest.md, latest.png.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from harness import catalog, check, report, settings
from harness.catalog import BENCH, C_TOOL
from harness.orchestrate import Plan, execute

RESULTS = os.path.join(BENCH, "results")

MODES = {
    "full": {
        "sizes": [100, 1024],
        # messages per run: (librdkafka-based clients, pure-Python peers)
        "counts": {100: (2_000_000, 200_000), 1024: (500_000, 50_000)},
        "rounds": 5,
        "m1": True,
        "m1_counts": (10_000_000, 1_000_000),
        "out": RESULTS,
    },
    "quick": {
        "sizes": [100],
        "counts": {100: (200_000, 100_000)},
        "rounds": 3,
        "m1": False,
        "m1_counts": (1_000_000, 200_000),
        "out": os.path.join(RESULTS, "quick"),
    },
}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="the short variant (about 1.5 min)")
    ap.add_argument("--rounds", type=int, help="counted rounds (after one warm-up round)")
    ap.add_argument("--sizes", help="comma-separated value sizes in bytes")
    ap.add_argument("--count", type=int, help="messages per run for librdkafka-based clients")
    ap.add_argument("--peer-count", type=int, help="messages per run for kafka-python and aiokafka")
    ap.add_argument("--clients", default=",".join(catalog.CLIENTS))
    ap.add_argument("--workloads", default=",".join(catalog.WORKLOADS))
    ap.add_argument("--m1", dest="m1", action="store_true", default=None, help="run M1 (memory)")
    ap.add_argument("--no-m1", dest="m1", action="store_false")
    ap.add_argument("--m1-count", type=int, help="M1 messages for librdkafka-based clients")
    ap.add_argument("--m1-peer-count", type=int, help="M1 messages for kafka-python and aiokafka")
    ap.add_argument("--no-pin", action="store_true", help="do not pin broker / clients to CPUs")
    ap.add_argument("--broker-cpu", type=int, default=0)
    ap.add_argument("--client-cpu", type=int, default=1)
    ap.add_argument(
        "--log-dir",
        default="auto",
        help="broker data parent dir: auto (tmpfs if room), disk, or a path",
    )
    ap.add_argument("--heap", default="1g", help="broker -Xms and -Xmx")
    ap.add_argument(
        "--fetch-queue-backoff-ms",
        type=int,
        default=settings.CONSUMER["fetch_queue_backoff_ms"],
        help="librdkafka consumers' fetch.queue.backoff.ms (librdkafka default 1000)",
    )
    ap.add_argument("--out-dir", help="where results go (default: by mode, see above)")
    ap.add_argument(
        "--check",
        action="store_true",
        help="after the run, fail (exit 1) when a ratio regressed beyond the noise",
    )
    ap.add_argument(
        "--baseline",
        help="the run --check/--compare compare with (default: the "
        "committed latest.json of the same mode)",
    )
    ap.add_argument("--compare", metavar="FILE", help="check a saved run, measure nothing")
    ap.add_argument("--redraw", metavar="FILE", help="rewrite latest.* from a run, measure nothing")
    return ap.parse_args(argv)


def make_plan(args, argv) -> Plan:
    mode_name = "quick" if args.quick else "full"
    mode = MODES[mode_name]
    counts = dict(mode["counts"])
    sizes = mode["sizes"]
    if args.sizes:
        sizes = [int(s) for s in args.sizes.split(",")]
        for s in sizes:
            counts.setdefault(s, counts[min(counts, key=lambda k: abs(k - s))])
    counts = {s: (args.count or counts[s][0], args.peer_count or counts[s][1]) for s in sizes}
    mc = mode["m1_counts"]
    clients = [c for c in args.clients.split(",") if c]
    workloads = [w for w in args.workloads.split(",") if w]
    for c in clients:
        if c not in catalog.CLIENTS:
            sys.exit("unknown client %r (known: %s)" % (c, ", ".join(catalog.CLIENTS)))
    for w in workloads:
        if w not in catalog.WORKLOADS:
            sys.exit("unknown workload %r (known: %s)" % (w, ", ".join(catalog.WORKLOADS)))
    pin = (None, None)
    if not args.no_pin and (os.cpu_count() or 1) >= 2 and shutil.which("taskset"):
        pin = (args.broker_cpu, args.client_cpu)
    return Plan(
        mode=mode_name,
        sizes=sizes,
        counts=counts,
        rounds=mode["rounds"] if args.rounds is None else args.rounds,
        m1=mode["m1"] if args.m1 is None else args.m1,
        m1_counts=(args.m1_count or mc[0], args.m1_peer_count or mc[1]),
        clients=clients,
        workloads=workloads,
        pin=pin,
        log_dir=args.log_dir,
        heap=args.heap,
        fetch_backoff_ms=args.fetch_queue_backoff_ms,
        argv=argv,
    )


def default_baseline(mode: str) -> str:
    return os.path.join(MODES[mode]["out"], "latest.json")


def run_check(new: dict, baseline_path: str) -> int:
    if not os.path.exists(baseline_path):
        print("no baseline at %s: nothing to compare with" % os.path.relpath(baseline_path))
        return 2
    base = report.load_summary(baseline_path)
    cells, failed = check.compare(new, base)
    print(check.render(cells, new, base))
    if failed:
        print("FAILED: a ratio of %s fell beyond the noise band (see above)" % catalog.SUBJECT)
        return 1
    if not any(c["band"] is not None for c in cells):
        print("no verdict: no ratio with at least 2 rounds on both sides")
        return 2
    print("ok: every ratio within its noise band")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    if args.redraw:
        print("wrote " + ", ".join(report.redraw(args.redraw)))
        return 0
    if args.compare:
        new = report.load_summary(args.compare)
        return run_check(new, args.baseline or default_baseline(new["meta"]["mode"]))
    plan = make_plan(args, argv)
    if args.check and C_TOOL not in plan.clients and catalog.PEER not in plan.clients:
        sys.exit(
            "--check compares ratios: run %s with %s and/or %s"
            % (catalog.SUBJECT, catalog.PEER, C_TOOL)
        )
    doc = execute(plan)
    out = args.out_dir or (
        os.path.join(RESULTS, "check") if args.check else MODES[plan.mode]["out"]
    )
    paths = report.write_outputs(doc, out)
    print("done in %.0f s; wrote %s" % (doc["meta"]["duration_seconds"], ", ".join(paths)))
    if args.check:
        return run_check(doc, args.baseline or default_baseline(plan.mode))
    return 0


if __name__ == "__main__":
    sys.exit(main())
