#!/usr/bin/env python3
"""Summaries, the Markdown table, the PNG chart and the result files of a benchmark run.

Files, in the output directory: ``<stamp>.json``, every record of one run (one line per run);
``latest.json``, the summary of the latest run (medians, per-round rates, ratios; what
``--check`` compares) naming its ``<stamp>.json``; ``latest.md``, the table; ``latest.png``, the
chart. ``python bench/run.py --redraw FILE`` rewrites the three ``latest.*`` from a run's file.
"""

from __future__ import annotations

import json
import os
import statistics
import sys

from harness import catalog
from harness.catalog import C_TOOL, CLIENTS, WORKLOADS

CLIENT_ORDER = list(CLIENTS)
WORKLOAD_ORDER = list(WORKLOADS)
OTHER_LOAD_FLAG = 0.15  # CPUs' worth of unrelated load during a run worth a flag


def _stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarize(doc: dict) -> dict:
    cells = {}
    for r in doc["runs"]:
        if r.get("m1"):
            continue
        c = cells.setdefault(
            (r["workload"], r["size"], r["client"]), {"ok": [], "failed": [], "warmup": 0}
        )
        if r.get("warmup"):
            c["warmup"] += 1
        elif r.get("ok"):
            c["ok"].append(r)
            c.setdefault("per_round", {})[str(r["round"])] = r["msgs_per_s"]
        else:
            c["failed"].append(r.get("error") or "failed")
    rows = []
    for (w, s, cl), c in cells.items():
        ok = c["ok"]
        rows.append(
            {
                "workload": w,
                "size": s,
                "client": cl,
                "runs_ok": len(ok),
                "runs_failed": len(c["failed"]),
                "errors": c["failed"][:5],
                "per_round": c.get("per_round", {}),
                "count": ok[0]["count"] if ok else None,
                "version": next((r.get("version") for r in ok if r.get("version")), None),
                "librdkafka": next((r.get("librdkafka") for r in ok if r.get("librdkafka")), None),
                "msgs_per_s": _stats([r["msgs_per_s"] for r in ok]),
                "mb_per_s": _stats([r["mb_per_s"] for r in ok]),
                "cpu_s_per_m": _median([r.get("cpu_s_per_m") for r in ok]),
                "client_util": _median([r.get("client_util") for r in ok]),
                "broker_cpu_s_per_m": _median([r.get("broker_cpu_s_per_m") for r in ok]),
                "broker_util": _median([r.get("broker_util") for r in ok]),
                "rss_slope_mb_per_m": _median([r.get("rss_slope_mb_per_m") for r in ok]),
                "rss_peak_mb": _median(
                    [max(x[1] for x in r["rss"]) / 1e6 if r.get("rss") else None for r in ok]
                ),
                "other_cpu_max": max([r.get("other_cpu") or 0 for r in ok], default=None),
            }
        )
    by_key = {(r["workload"], r["size"], r["client"]): r for r in rows}
    for r in rows:
        med = r["msgs_per_s"]["median"] if r["msgs_per_s"] else None
        ref = WORKLOADS[r["workload"]].c_reference if r["workload"] in WORKLOADS else ""
        c_row = by_key.get((ref, r["size"], C_TOOL))
        ck_row = by_key.get((r["workload"], r["size"], catalog.PEER))
        c_med = c_row["msgs_per_s"]["median"] if c_row and c_row["msgs_per_s"] else None
        ck_med = ck_row["msgs_per_s"]["median"] if ck_row and ck_row["msgs_per_s"] else None
        r["vs_c"] = med / c_med if med and c_med else None
        r["vs_confluent_kafka"] = med / ck_med if med and ck_med else None
        r["delta_ns_vs_c"] = (1e9 / med - 1e9 / c_med) if med and c_med else None
    aio = []
    for (w, size, cl), r in sorted(by_key.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if cl not in catalog.AIO_FACES or not r["msgs_per_s"]:
            continue
        med = r["msgs_per_s"]["median"]
        ratios = {}
        refs = [(peer, (w, size, peer)) for peer in catalog.AIO_FACES[cl]]
        refs.append(("sync", (catalog.AIO_SYNC_REFERENCE.get(w), size, catalog.SUBJECT)))
        for name, key in refs:
            other = by_key.get(key)
            o_med = other["msgs_per_s"]["median"] if other and other["msgs_per_s"] else None
            ratios[name] = med / o_med if o_med else None
        cpu = {name: (by_key.get(key) or {}).get("cpu_s_per_m") for name, key in refs}
        aio.append({"face": cl, "workload": w, "size": size, "msgs_per_s": med, "vs": ratios,
                    "cpu_s_per_m": r["cpu_s_per_m"], "cpu_others": cpu})
    rows.sort(
        key=lambda r: (
            WORKLOAD_ORDER.index(r["workload"]) if r["workload"] in WORKLOAD_ORDER else 9,
            r["size"],
            CLIENT_ORDER.index(r["client"]) if r["client"] in CLIENT_ORDER else 9,
        )
    )
    m1 = []
    for r in doc["runs"]:
        if not r.get("m1"):
            continue
        samples = r.get("rss") or []
        m1.append(
            {
                "client": r["client"],
                "workload": r["workload"],
                "size": r["size"],
                "count": r["count"],
                "ok": r.get("ok"),
                "error": r.get("error"),
                "msgs_per_s": r.get("msgs_per_s"),
                "rss_first_mb": samples[0][1] / 1e6 if samples else None,
                "rss_peak_mb": max(s[1] for s in samples) / 1e6 if samples else None,
                "rss_last_mb": samples[-1][1] / 1e6 if samples else None,
                "rss_slope_mb_per_m": r.get("rss_slope_mb_per_m"),
                "rss": samples,
            }
        )
    return {"rows": rows, "m1": m1, "aio": aio}


# ---------------------------------------------------------------------------------------------
# Markdown


def _f(v, fmt="{:,.0f}", none="–"):
    return none if v is None else fmt.format(v)


def _range(st, fmt="{:,.0f}"):
    if not st:
        return "–"
    if st["n"] == 1:
        return fmt.format(st["median"])
    return "%s (%s–%s)" % (fmt.format(st["median"]), fmt.format(st["min"]), fmt.format(st["max"]))


def markdown(doc: dict) -> str:
    meta, summ = doc["meta"], doc["summary"]
    v, m = meta["versions"], meta["machine"]
    out = []
    out.append("# Benchmarks side by side — %s (%s mode)" % (meta["timestamp"], meta["mode"]))
    out.append("")
    out.append(
        "Real single-node Apache Kafka %s broker (KRaft, JVM %s, heap %s fixed), data on %s; "
        "pinning: %s. %d CPUs (%s), governor %s, kernel %s. Python %s."
        % (
            v.get("kafka_broker"),
            v.get("java", "?"),
            meta.get("heap", "1g"),
            m.get("broker_log_dir"),
            m.get("pinning"),
            m.get("nproc"),
            m.get("cpu_model"),
            m.get("governor"),
            m.get("kernel"),
            v.get("python"),
        )
    )
    out.append("")
    out.append(
        "Clients: confluent_binding %s (librdkafka %s), confluent-kafka %s (librdkafka %s), "
        "kafka-python %s, aiokafka %s, rdkafka_performance (librdkafka %s)."
        % (
            v.get("confluent_binding"),
            v.get("confluent_binding_librdkafka"),
            v.get("confluent_kafka"),
            v.get("confluent_kafka_librdkafka"),
            v.get("kafka_python"),
            v.get("aiokafka"),
            v.get("rdkafka_performance"),
        )
    )
    out.append("")
    slow = ", ".join(c.label for c in catalog.CLIENTS.values() if c.pure_python)
    counts = ", ".join(
        "%s B: %s msgs (the others) / %s (%s)"
        % (s, "{:,}".format(c[0]), "{:,}".format(c[1]), slow)
        for s, c in meta["counts"].items()
    )
    out.append(
        "Messages per run: %s. %d warm-up round (discarded) + %d counted rounds, clients "
        "interleaved and rotated each round; every run a fresh process. Wall time %.0f s."
        % (counts, meta["warmup_rounds"], meta["rounds_counted"], meta["duration_seconds"])
    )
    out.append("")
    out.append(
        "msgs/s and MB/s (decimal): median (min–max) of the counted rounds. ×C: median over "
        "the rdkafka_performance median (its producer always runs a per-message C delivery "
        "callback, so its P1 run is the ceiling of P1 and P2). Δ ns: per-message time over the "
        "C tool's. CPU-s/M: client process user+sys CPU per million messages in the timed window "
        "(all threads; for the C tool its whole process). util: CPU-seconds per second of the "
        "timed window (1.00 = one core busy; the broker is pinned to one core). Peak RSS: largest "
        "VmRSS sample of the client process (the producer queue is included); RSS slopes are in "
        "the M1 section."
    )
    out.append("")
    hdr = (
        "| workload | size | client | msgs/s | MB/s | ×C | ×confluent-kafka | Δ ns/msg vs C | "
        "CPU-s/M | client util | broker util | peak RSS MB | ok |"
    )
    out.append(hdr)
    out.append("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in summ["rows"]:
        flag = " ⚠" if (r.get("other_cpu_max") or 0) > OTHER_LOAD_FLAG else ""
        out.append(
            "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d%s |"
            % (
                r["workload"],
                _size(r["size"]),
                catalog.label(r["client"]),
                _range(r["msgs_per_s"]),
                _range(r["mb_per_s"], "{:,.1f}"),
                _f(r["vs_c"], "{:.2f}"),
                _f(r["vs_confluent_kafka"], "{:.2f}"),
                _f(r["delta_ns_vs_c"], "{:+,.0f}"),
                _f(r["cpu_s_per_m"], "{:.2f}"),
                _f(r["client_util"], "{:.2f}"),
                _f(r["broker_util"], "{:.2f}"),
                _f(r["rss_peak_mb"], "{:.0f}"),
                r["runs_ok"],
                r["runs_ok"] + r["runs_failed"],
                flag,
            )
        )
    if any((r.get("other_cpu_max") or 0) > OTHER_LOAD_FLAG for r in summ["rows"]):
        out.append("")
        out.append(
            "⚠: at least one counted run shared the machine with more than %.2f CPUs of unrelated "
            "load (from /proc/stat); treat that cell with care." % OTHER_LOAD_FLAG
        )
    for face, peers in catalog.AIO_FACES.items():
        faced = [a for a in summ.get("aio") or () if a.get("face", face) == face]
        if not faced:
            continue
        out.append("")
        out.append("## asyncio clients: %s against the others (ratios of medians)"
                   % catalog.label(face))
        out.append("")
        out.append(
            "msgs/s ratios, then CPU-s per million messages (client process, all threads) of "
            "ours / %s / our synchronous client (%s): on a busy machine the CPU figures "
            "are the steadier comparison."
            % (" / ".join(catalog.label(p) for p in peers),
               ", ".join("%s vs %s" % kv for kv in catalog.AIO_SYNC_REFERENCE.items())))
        out.append("")
        out.append("| workload | size | msgs/s | %s | × %s | CPU-s/M |"
                   % (" | ".join("× %s" % catalog.label(p) for p in peers),
                      catalog.label(catalog.SUBJECT)))
        out.append("|---|---|--:|%s--:|--:|" % ("--:|" * len(peers)))
        for a in faced:
            cpus = [a["cpu_s_per_m"]] + [a["cpu_others"].get(p) for p in peers]
            cpus.append(a["cpu_others"].get("sync"))
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                a["workload"], _size(a["size"]), _f(a["msgs_per_s"]),
                " | ".join(_f(a["vs"].get(p), "{:.2f}") for p in peers),
                _f(a["vs"].get("sync"), "{:.2f}"),
                " / ".join(_f(c, "{:.2f}") for c in cpus)))
    if summ["m1"]:
        out.append("")
        out.append(
            "## M1: memory over a long run (RSS sampled every %s messages)"
            % " / ".join("{:,}".format(x) for x in meta["m1_rss_every"])
        )
        out.append("")
        out.append(
            "| client | workload | messages | msgs/s | RSS start MB | RSS peak MB | RSS end MB | "
            "slope after warm-up MB/M | ok |"
        )
        out.append("|---|---|--:|--:|--:|--:|--:|--:|---|")
        for r in summ["m1"]:
            out.append(
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                % (
                    catalog.label(r["client"]),
                    r["workload"],
                    "{:,}".format(r["count"]),
                    _f(r["msgs_per_s"]),
                    _f(r["rss_first_mb"], "{:.0f}"),
                    _f(r["rss_peak_mb"], "{:.0f}"),
                    _f(r["rss_last_mb"], "{:.0f}"),
                    _f(r["rss_slope_mb_per_m"], "{:+.2f}"),
                    "yes" if r["ok"] else "NO: %s" % r["error"],
                )
            )
    failed = [r for r in doc["runs"] if not r.get("ok")]
    if failed:
        out.append("")
        out.append("## Failed runs (not timed)")
        out.append("")
        for r in failed:
            out.append(
                "- round %s %s %s B %s: %s"
                % (
                    r.get("round"),
                    r["workload"],
                    r["size"],
                    r["client"],
                    (r.get("error") or "").replace("\n", " ")[:400],
                )
            )
    out.append("")
    out.append("## Settings")
    out.append("")
    for k, val in meta["settings"].items():
        out.append("- %s: %s" % (k, val))
    out.append("")
    return "\n".join(out)


def _size(s):
    return "1 KiB" if s == 1024 else "%d B" % s


# ---------------------------------------------------------------------------------------------
# PNG


def chart(doc: dict, path: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart", file=sys.stderr)
        return False
    summ, meta = doc["summary"], doc["meta"]
    rows = summ["rows"]
    workloads = [w for w in WORKLOAD_ORDER if any(r["workload"] == w for r in rows)]
    sizes = sorted({r["size"] for r in rows})
    clients = [c for c in CLIENT_ORDER if any(r["client"] == c for r in rows)]
    m1 = [r for r in summ["m1"] if r["rss"]]
    nplots = len(workloads) + (1 if m1 else 0)
    ncols = 2 if nplots > 1 else 1
    nrows = (nplots + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(7 * ncols, 4.2 * nrows), squeeze=False)
    width = 0.8 / max(1, len(clients))
    for i, w in enumerate(workloads):
        ax = axes[i // ncols][i % ncols]
        ref = WORKLOADS[w].c_reference if w in WORKLOADS else w
        for j, c in enumerate(clients):
            xs, ys, lo, hi = [], [], [], []
            for k, s in enumerate(sizes):
                r = next(
                    (r for r in rows if r["workload"] == w and r["size"] == s and r["client"] == c),
                    None,
                )
                if (
                    r is None and c == C_TOOL and ref != w
                ):  # the tool's run that stands for this one
                    r = next(
                        (
                            r
                            for r in rows
                            if r["workload"] == ref and r["size"] == s and r["client"] == c
                        ),
                        None,
                    )
                if not r or not r["msgs_per_s"]:
                    continue
                st = r["msgs_per_s"]
                xs.append(k + (j - (len(clients) - 1) / 2) * width)
                ys.append(st["median"])
                lo.append(st["median"] - st["min"])
                hi.append(st["max"] - st["median"])
            if xs:
                hatch = "//" if (c == C_TOOL and ref != w) else None
                ax.bar(
                    xs,
                    ys,
                    width,
                    yerr=[lo, hi],
                    capsize=2,
                    color=_color(c),
                    label=catalog.label(c),
                    hatch=hatch,
                    edgecolor="white" if hatch else None,
                )
                for x, y, top in zip(xs, ys, [y + h for y, h in zip(ys, hi)]):
                    ax.annotate(
                        "%.0fk" % (y / 1e3) if y < 1e6 else "%.2fM" % (y / 1e6),
                        (x, top),
                        ha="center",
                        va="bottom",
                        fontsize=7,
                        rotation=90,
                        xytext=(0, 2),
                        textcoords="offset points",
                    )
        ax.set_yscale("log")
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels([_size(s) for s in sizes])
        ax.set_title(WORKLOADS[w].label if w in WORKLOADS else w, fontsize=10)
        ax.set_ylabel("messages/s (median, min–max)")
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.margins(y=0.25)
    if m1:
        ax = axes[len(workloads) // ncols][len(workloads) % ncols]
        for r in m1:
            pts = [(n / 1e6, b / 1e6) for n, b in r["rss"]]
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                "-" if r["workload"] == "P2" else "--",
                color=_color(r["client"]),
                marker=".",
                markersize=3,
                label="%s %s" % (catalog.label(r["client"]), r["workload"]),
            )
        ax.set_xlabel("messages (millions)")
        ax.set_ylabel("RSS (MB)")
        ax.set_title("M1 memory: P2 (solid) and C1 (dashed)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for k in range(nplots, nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle(
        "Kafka %s, 1 partition, %s; %s mode, %s"
        % (
            meta["versions"].get("kafka_broker"),
            meta["machine"].get("pinning"),
            meta["mode"],
            meta["timestamp"],
        ),
        fontsize=9,
        y=0.995,
    )
    fig.legend(
        handles,
        labels,
        loc="upper center",
        ncol=len(labels),
        fontsize=8,
        frameon=False,
        bbox_to_anchor=(0.5, 0.975),
    )
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def dumps(doc: dict) -> str:
    """JSON with meta indented and one line per run and per summary row (small, diff-friendly)."""
    parts = []
    for key, val in doc.items():
        if key == "summary":
            body = ",\n".join(
                '%s: [\n%s\n]' % (json.dumps(k), ",\n".join(
                    "  " + json.dumps(r, separators=(",", ":")) for r in v))
                for k, v in val.items())
            parts.append('"summary": {\n%s\n}' % body)
        elif key == "runs":
            body = ",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in val)
            parts.append('"runs": [\n%s\n]' % body)
        else:
            parts.append("%s: %s" % (json.dumps(key), json.dumps(val, indent=1)))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def summary_doc(doc: dict, runs_file: str) -> dict:
    """What latest.json holds: the run's meta and summary, and the name of its full record."""
    return {"meta": doc["meta"], "runs_file": runs_file, "summary": doc["summary"]}


def load(path: str) -> dict:
    """A run's full record, from its ``<stamp>.json`` or from a ``latest.json`` naming it."""
    with open(path) as f:
        doc = json.load(f)
    if "runs" not in doc and doc.get("runs_file"):
        with open(os.path.join(os.path.dirname(os.path.abspath(path)), doc["runs_file"])) as f:
            doc = json.load(f)
    doc["summary"] = summarize(doc)
    return doc


def load_summary(path: str) -> dict:
    """meta and summary of a run (from latest.json or a run's own file)."""
    with open(path) as f:
        doc = json.load(f)
    if "runs" in doc:
        doc["summary"] = summarize(doc)
    return doc


def write_latest(doc: dict, out_dir: str, runs_file: str) -> list:
    paths = []
    latest = os.path.join(out_dir, "latest.json")
    with open(latest, "w") as f:
        f.write(dumps(summary_doc(doc, runs_file)))
    paths.append(latest)
    md = os.path.join(out_dir, "latest.md")
    with open(md, "w") as f:
        f.write(markdown(doc))
    paths.append(md)
    png = os.path.join(out_dir, "latest.png")
    if chart(doc, png):
        paths.append(png)
    return paths


def write_outputs(doc: dict, out_dir: str) -> list:
    """``<stamp>.json`` with every record, then latest.json / .md / .png."""
    os.makedirs(out_dir, exist_ok=True)
    runs_file = "%s.json" % doc["meta"]["stamp"]
    stamped = os.path.join(out_dir, runs_file)
    with open(stamped, "w") as f:
        f.write(dumps(doc))
    return [os.path.relpath(p) for p in [stamped] + write_latest(doc, out_dir, runs_file)]


def redraw(path: str) -> list:
    """Rewrite latest.* next to a run's file (or the latest.json naming it)."""
    doc = load(path)
    out_dir = os.path.dirname(os.path.abspath(path))
    runs_file = doc["meta"].get("stamp", "") + ".json"
    if not os.path.exists(os.path.join(out_dir, runs_file)):
        runs_file = os.path.basename(path)
    return [os.path.relpath(p) for p in write_latest(doc, out_dir, runs_file)]


def _color(client: str):
    c = CLIENTS.get(client)
    return c.color if c else None
