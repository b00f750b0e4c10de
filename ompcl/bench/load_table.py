"""The per-level summary of ``ompcl bench load``: for each load level, the geometric mean
over benchmarks of each learned configuration's whole-program time against the oracle of the
forced configurations (device, host at each thread count), and the worst benchmark.

Consumes ``load.summarise``'s table rows; produces summary rows (``levels.csv``) and their
printed lines. Benchmarks whose oracle is below ``MIN_SECONDS`` are left out of the means
(their ratios are the timer's resolution, not the choice) and counted as such.
"""
from __future__ import annotations

from collections.abc import Sequence

from .results import geomean

#: whole-program oracle times below this are left out of the level means (seconds)
MIN_SECONDS = 0.05
LEARNED = ("blind", "aware", "default")


def level_summary(table: list[dict], order: Sequence[str] = ()) -> list[dict]:
    """One row per level (in ``order``, ``load.LEVELS``' names; others after them): for each
    learned configuration present, the geometric mean of its time over the oracle and the
    worst benchmark's ratio."""
    out = []
    rank = {name: k for k, name in enumerate(order)}
    for level in sorted({r["level"] for r in table}, key=lambda x: (rank.get(x, len(rank)), x)):
        rows = [r for r in table if r["level"] == level]
        timed = [r for r in rows if (r.get("oracle") or 0) >= MIN_SECONDS]
        row = {"level": level, "benchmarks": len(timed), "left_out": len(rows) - len(timed)}
        for c in LEARNED:
            ratios = [(r[f"t_{c}"] / r["oracle"], r["benchmark"]) for r in timed
                      if r.get(f"t_{c}")]
            if not ratios:
                continue
            worst = max(ratios)
            row[f"{c}_geomean"] = round(geomean([x for x, _ in ratios]), 3)
            row[f"{c}_worst"] = round(worst[0], 3)
            row[f"{c}_worst_benchmark"] = worst[1]
        out.append(row)
    return out


def summary_lines(summary: list[dict]) -> list[str]:
    """Readable lines: per level, each learned configuration's geomean and worst over the
    oracle."""
    lines = []
    for row in summary:
        parts = [f"{c} {row[c + '_geomean']:.3f} (worst {row[c + '_worst']:.3f}, "
                 f"{row[c + '_worst_benchmark']})" for c in LEARNED if c + "_geomean" in row]
        if parts:
            note = f", {row['left_out']} below {MIN_SECONDS} s left out" if row["left_out"] else ""
            lines.append(f"level {row['level']}: over the oracle, {row['benchmarks']} "
                         f"benchmarks{note}: " + "; ".join(parts))
    return lines
