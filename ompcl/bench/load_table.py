"""The per-level summary of ``ompcl bench load``: for each load level, the geometric mean
over benchmarks of each learned configuration's whole-program time against the oracle of the
forced configurations (device, host at each thread count), and the worst benchmark.

Consumes ``load.summarise``'s table rows; produces summary rows (``levels.csv``) and their
printed lines. Benchmarks whose oracle is below ``MIN_SECONDS`` are left out of the means
(their ratios are the timer's resolution, not the choice) and counted as such.
"""
from __future__ import annotations

import math

#: whole-program oracle times below this are left out of the level means (seconds)
MIN_SECONDS = 0.05
LEARNED = ("blind", "aware", "default")


def level_summary(table: list[dict]) -> list[dict]:
    """One row per level: for each learned configuration present, the geometric mean of its
    time over the oracle and the worst benchmark's ratio."""
    out = []
    for level in sorted({r["level"] for r in table}, key=_level_order):
        rows = [r for r in table if r["level"] == level]
        timed = [r for r in rows if (r.get("oracle") or 0) >= MIN_SECONDS]
        row = {"level": level, "benchmarks": len(timed), "left_out": len(rows) - len(timed)}
        for c in LEARNED:
            ratios = [(r[f"t_{c}"] / r["oracle"], r["benchmark"]) for r in timed
                      if r.get(f"t_{c}")]
            if not ratios:
                continue
            worst = max(ratios)
            row[f"{c}_geomean"] = round(math.exp(sum(math.log(x) for x, _ in ratios)
                                                 / len(ratios)), 3)
            row[f"{c}_worst"] = round(worst[0], 3)
            row[f"{c}_worst_benchmark"] = worst[1]
        out.append(row)
    return out


def _level_order(name: str) -> tuple[int, str]:
    order = ("none", "host1", "host2", "device")
    return (order.index(name) if name in order else len(order), name)


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
