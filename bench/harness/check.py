"""The regression check: compare a run's ratios with a committed baseline's, beyond the noise.

What is compared: for every workload and size, our client's rate over confluent-kafka's and over
the C tool's (the tool's reference workload). Ratios, not rates: the two sides of a ratio run in
the same round, one after the other, so load that slows the whole machine mostly cancels out.

How the noise is measured: every counted round gives one ratio (ours in round i over the peer in
round i). A run's noise is the half-range of those per-round ratios relative to their median,
``(max - min) / 2 / median``. The band for a cell is the new run's noise plus the baseline's
(either median may sit anywhere in its own range), and never less than ``FLOOR``. A cell fails
when the new median ratio is below ``baseline × (1 - band)``; it is reported as faster when above
``baseline × (1 + band)``.
"""

from __future__ import annotations

import json
import statistics

from harness import catalog
from harness.catalog import C_TOOL, PEER, SUBJECT, WORKLOADS

FLOOR = 0.05  # the smallest band: two runs of 3 rounds can agree by chance


def _rows(summary: dict) -> dict:
    return {(r["workload"], r["size"], r["client"]): r for r in summary["rows"]}


def round_ratios(rows: dict, key: tuple, ref_key: tuple) -> list:
    a, b = rows.get(key), rows.get(ref_key)
    if not a or not b:
        return []
    pa, pb = a.get("per_round") or {}, b.get("per_round") or {}
    return [pa[r] / pb[r] for r in sorted(set(pa) & set(pb), key=int) if pb[r]]


def noise(ratios: list):
    if len(ratios) < 2:
        return None
    med = statistics.median(ratios)
    return (max(ratios) - min(ratios)) / 2 / med if med else None


def compare(new: dict, base: dict, subject: str = SUBJECT) -> tuple:
    """Returns (cells, failed): one dict per compared ratio; failed when any regressed."""
    new_rows, base_rows = _rows(new["summary"]), _rows(base["summary"])
    cells = []
    for w, size, client in new_rows:
        if client != subject or w not in WORKLOADS:
            continue
        for against, ref_key in (
            (PEER, (w, size, PEER)),
            (C_TOOL, (WORKLOADS[w].c_reference, size, C_TOOL)),
        ):
            key = (w, size, subject)
            rn = round_ratios(new_rows, key, ref_key)
            rb = round_ratios(base_rows, key, ref_key)
            if not rn or not rb:
                continue
            mn, mb = statistics.median(rn), statistics.median(rb)
            nn, nb = noise(rn), noise(rb)
            change = mn / mb - 1
            if nn is None or nb is None:  # one round: no spread, no band, no verdict
                band, verdict = None, "no band (1 round)"
            else:
                band = max(FLOOR, nn + nb)
                verdict = "ok"
            if band is None:
                pass
            elif mn < mb * (1 - band):
                verdict = "SLOWER"
            elif mn > mb * (1 + band):
                verdict = "faster"
            cells.append(
                {
                    "workload": w,
                    "size": size,
                    "against": against,
                    "new": mn,
                    "base": mb,
                    "change": change,
                    "band": band,
                    "noise_new": nn,
                    "noise_base": nb,
                    "rounds_new": len(rn),
                    "rounds_base": len(rb),
                    "verdict": verdict,
                }
            )
    cells.sort(
        key=lambda c: (list(WORKLOADS).index(c["workload"]), c["size"], c["against"] != PEER)
    )
    return cells, any(c["verdict"] == "SLOWER" for c in cells)


def _pct(v) -> str:
    return "–" if v is None else "%.1f %%" % (100 * v)


def render(cells: list, new: dict, base: dict) -> str:
    mn, mb = new["meta"], base["meta"]
    out = [
        "Regression check: %s (%s mode) against %s (%s mode)"
        % (mn["timestamp"], mn["mode"], mb["timestamp"], mb["mode"])
    ]
    if json.dumps(mn.get("counts")) != json.dumps(mb.get("counts")):
        out.append(
            "note: message counts differ (%s vs %s); ratios depend on the run length, "
            "compare runs of one mode" % (mn.get("counts"), mb.get("counts"))
        )
    out.append("")
    out.append(
        "| workload | size | ratio | baseline | this run | change | noise (this / base) "
        "| band | verdict |"
    )
    out.append("|---|---|---|--:|--:|--:|--:|--:|---|")
    for c in cells:
        out.append(
            "| %s | %s | %s ÷ %s | %.2f | %.2f | %+.1f %% | %s / %s | %s | %s |"
            % (
                c["workload"],
                c["size"],
                catalog.label(SUBJECT).split(" ")[0],
                catalog.label(c["against"]),
                c["base"],
                c["new"],
                100 * c["change"],
                _pct(c["noise_new"]),
                _pct(c["noise_base"]),
                "–" if c["band"] is None else "±%.1f %%" % (100 * c["band"]),
                c["verdict"],
            )
        )
    if not cells:
        out.append("(no ratio in common: run the subject with confluent-kafka and/or the C tool)")
    return "\n".join(out) + "\n"
