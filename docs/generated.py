"""Page sections generated from the data they show, written at each docs build (docs/conf.py)
into ``docs/_generated/`` and included by the pages, so no page repeats a table by hand:

- ``api_surface.md``: confluent-kafka's public names, module by module, and which ones this
  package has (``tests/support/api_surface.py`` compares the installed confluent-kafka with this
  package);
- ``speed.md``: the summary of the last full benchmark run (``bench/results/latest.json``);
- ``speed_aio.md``: the asyncio clients' summary (``bench/results/aio/latest.json``);
- ``differences.md``: the intended differences from confluent-kafka, each with its reason and
  its check (``tests/support/differences.py``).

    python docs/generated.py      prints every section
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "results"

# The synchronous workloads the summary shows (100 B messages), as bench/README.md names them.
WORKLOADS = [
    ("P1", "P1 produce, no callback"),
    ("P2", "P2 produce, per-message callback"),
    ("C1", "C1 consume, `poll()` per message"),
    ("C2", "C2 consume, `consume(1000)`"),
]
AIO_WORKLOADS = [
    ("AP2", "AP2 `await` each delivery, in batches"),
    ("P2", "P2 `await produce()` + done-callback"),
    ("AT2", "AT2 a task per message awaits delivery"),
    ("C1", "C1 `async for`"),
]


def _rows(path):
    """``{(workload, size, client): row}`` of a benchmark run's summary."""
    data = json.loads(Path(path).read_text())
    return {(r["workload"], r["size"], r["client"]): r for r in data["summary"]["rows"]}, data


def _rate(row):
    return "{:,.0f}".format(row["msgs_per_s"]["median"])


def _ratio(value):
    return "%.2f×" % value


def speed_table(path=BENCH / "latest.json"):
    """Our client against confluent-kafka and librdkafka's C tool, per workload (100 B)."""
    rows, data = _rows(path)
    out = ["| workload (100 B) | confluent_binding msg/s | confluent-kafka msg/s | "
           "ours ÷ confluent | ours ÷ C | CPU-s per M msgs, ours / confluent |",
           "|---|--:|--:|--:|--:|--:|"]
    for workload, title in WORKLOADS:
        ours = rows.get((workload, 100, "confluent_binding"))
        theirs = rows.get((workload, 100, "confluent_kafka"))
        if ours is None or theirs is None:
            continue
        vs_c = _ratio(ours["vs_c"]) if ours.get("vs_c") else "–"
        out.append("| %s | %s | %s | %s | %s | %.2f / %.2f |" % (
            title, _rate(ours), _rate(theirs), _ratio(ours["vs_confluent_kafka"]), vs_c,
            ours["cpu_s_per_m"], theirs["cpu_s_per_m"]))
    started = data.get("meta", {}).get("started") or data.get("meta", {}).get("timestamp")
    note = "Run of %s, `bench/results/latest.json`." % started if started else \
        "From `bench/results/latest.json`."
    return "\n".join(out) + "\n\n" + note + "\n"


def speed_ratios(path=BENCH / "latest.json"):
    """``{workload: ours ÷ confluent-kafka}`` at 100 B (the figures the README quotes)."""
    rows, _ = _rows(path)
    return {w: rows[(w, 100, "confluent_binding")]["vs_confluent_kafka"]
            for w, _ in WORKLOADS if (w, 100, "confluent_binding") in rows}


def aio_speed_table(path=BENCH / "aio" / "latest.json"):
    """The asyncio clients against aiokafka, confluent-kafka's aio and our synchronous client."""
    rows, _ = _rows(path)
    out = ["| workload (100 B) | `confluent_binding.aio` msg/s | ÷ aiokafka | "
           "÷ confluent-kafka aio | ÷ our sync client | CPU-s per M msgs: ours / aiokafka / "
           "confluent aio / ours sync |",
           "|---|--:|--:|--:|--:|--:|"]
    for workload, title in AIO_WORKLOADS:
        ours = rows.get((workload, 100, "confluent_binding_aio"))
        aiokafka = rows.get((workload, 100, "aiokafka"))
        confluent = rows.get((workload, 100, "confluent_kafka_aio"))
        # the synchronous baseline: the same workload, or P2 for the producer-only shapes
        sync_workload = workload if (workload, 100, "confluent_binding") in rows else "P2"
        sync = rows.get((sync_workload, 100, "confluent_binding"))
        if None in (ours, aiokafka, confluent, sync):
            continue
        rate = ours["msgs_per_s"]["median"]
        of_sync = _ratio(rate / sync["msgs_per_s"]["median"])
        if sync_workload != workload:
            of_sync += " (of sync %s)" % sync_workload
        out.append("| %s | %s | %s | %s | %s | %.2f / %.2f / %.2f / %.2f |" % (
            title, _rate(ours), _ratio(rate / aiokafka["msgs_per_s"]["median"]),
            _ratio(rate / confluent["msgs_per_s"]["median"]), of_sync,
            ours["cpu_s_per_m"], aiokafka["cpu_s_per_m"], confluent["cpu_s_per_m"],
            sync["cpu_s_per_m"]))
    return "\n".join(out) + "\n\nFrom `bench/results/aio/latest.json`.\n"


def api_surface_table():
    """confluent-kafka's public names and which ones this package has."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.support import api_surface

    return api_surface.render()


def differences_list():
    """The intended differences from confluent-kafka (tests/support/differences.py)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.support import differences

    return differences.render()


def sections():
    """``{file name: text}`` of every generated section."""
    return {"api_surface.md": api_surface_table(), "speed.md": speed_table(),
            "speed_aio.md": aio_speed_table(), "differences.md": differences_list()}


def write_all(outdir):
    """Writes every section into ``outdir`` (only those whose text changed)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, text in sections().items():
        path = outdir / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


if __name__ == "__main__":
    for name, text in sections().items():
        print("==> %s\n%s" % (name, text))
