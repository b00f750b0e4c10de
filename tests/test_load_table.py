"""``ompcl bench load``'s per-level summary (issue 42): the learned configurations over the
oracle, geometric means per level, the worst benchmark, short programs left out."""
from __future__ import annotations

import math

from ompcl.bench import load_table


def _row(bm, level, oracle, **times):
    return {"benchmark": bm, "level": level, "oracle": oracle,
            **{f"t_{k}": v for k, v in times.items()}}


def test_level_summary_geomeans_worst_and_short_programs():
    table = [
        _row("bt", "host1", 1.0, blind=1.2, aware=1.0),
        _row("sp", "host1", 2.0, blind=2.0, aware=2.2),
        _row("is", "host1", 0.02, blind=0.04, aware=0.02),  # below the timer: left out
        _row("bt", "none", 0.5, blind=0.5),
    ]
    summary = load_table.level_summary(table, ["none", "host1", "host2", "device"])
    assert [r["level"] for r in summary] == ["none", "host1"]
    none, host1 = summary
    assert none["blind_geomean"] == 1.0 and "aware_geomean" not in none
    assert host1["benchmarks"] == 2 and host1["left_out"] == 1
    assert math.isclose(host1["blind_geomean"], round(math.sqrt(1.2), 3))
    assert host1["blind_worst"] == 1.2 and host1["blind_worst_benchmark"] == "bt"
    assert host1["aware_worst"] == 1.1 and host1["aware_worst_benchmark"] == "sp"
    lines = load_table.summary_lines(summary)
    assert lines[1].startswith("level host1: over the oracle, 2 benchmarks, 1 below")
    assert "aware 1.049 (worst 1.100, sp)" in lines[1]
