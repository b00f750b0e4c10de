"""Written results of ``ompcl bench nas``: the terminal table, ``results.csv``, ``results.json``.

Consumes the result rows of ``results`` (and, for the JSON, every run, build, region and the
environment record). Produces text and files; nothing here measures anything.
"""
from __future__ import annotations

import csv
import json
import textwrap
from pathlib import Path
from typing import Any, Sequence

#: columns of results.csv, in order
COLUMNS = ("benchmark", "class", "variant", "threads", "runs", "verified_runs", "verified",
           "status", "time_s", "time_min", "time_max", "mops", "mops_min", "mops_max",
           "wall_s", "speedup", "speedup_min", "speedup_max", "chosen", "compiler",
           "bytes_to_device", "bytes_to_host", "data_bytes", "to_device_over_data",
           "to_host_over_data")
VARIANT_ORDER = ("seq", "omp", "ocl", "auto", "host", "best-single", "oracle", "region-oracle")


def ordered(rows: Sequence[dict]) -> list[dict]:
    """Rows by class, benchmark, thread count, then variant in the order above."""
    def key(r: dict) -> tuple:
        v = r["variant"]
        rank = VARIANT_ORDER.index(v) if v in VARIANT_ORDER else len(VARIANT_ORDER)
        return r["class"], r["benchmark"], r["threads"], rank
    return sorted(rows, key=key)


def _num(v: Any, fmt: str) -> str:
    return format(v, fmt) if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def _moved(r: dict) -> str:
    """Bytes to the device / back over the data bytes, as '1.0/1.5'."""
    a, b = r.get("to_device_over_data"), r.get("to_host_over_data")
    return f"{a:.1f}/{b:.1f}" if a is not None and b is not None else "-"


def _range(r: dict) -> str:
    lo, hi = r.get("speedup_min"), r.get("speedup_max")
    return f"{_num(lo, '.2f')}-{_num(hi, '.2f')}" if lo is not None else "-"


#: the NAS reports print their timer's seconds with two decimals
TIMER_RESOLUTION = 0.01
REGION_ORACLE_NOTE = (
    "region-oracle: an estimate, not a run: the host run's time with each region timed on "
    "both sides on its faster side (runtime statistics). It can fall below the per-program "
    "oracle: it starts from the host run (ompcl's build on OpenMP), not omp, and leaves out "
    "what the device gains or loses outside those regions (transfers, host code between "
    "kernels, OpenCL start-up).")


def _seconds(v: Any) -> str:
    """A benchmark time: below the report's resolution ``<0.01`` (the report says 0.00),
    else two decimals from a second on, three significant digits below (an estimate's)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return "-"
    if v < TIMER_RESOLUTION / 2:
        return f"<{TIMER_RESOLUTION:g}"
    return f"{v:.2f}" if v >= 1 else f"{v:.3g}"


def format_table(rows: Sequence[dict]) -> str:
    """The results as a fixed-width table (the first columns are those of
    ``ompcl.bench.npb_native``'s table), with notes on what needs one."""
    head = (f"{'benchmark':<9} {'class':<5} {'variant':<13} {'threads':>7} {'time s':>9} "
            f"{'Mop/s':>11} {'verification':<26} {'speedup':>7} {'min-max':>11} {'runs':>5} "
            f"{'moved/data':>11}  note")
    lines = [head, "-" * len(head)]
    for r in ordered(rows):
        note = r.get("chosen") or ""
        if r.get("compiler") and r["variant"] in ("seq", "omp", "ocl", "auto", "host"):
            note = r["compiler"]
        lines.append(
            f"{r['benchmark']:<9} {r['class']:<5} {r['variant']:<13} {r['threads']:>7} "
            f"{_seconds(r['time_s']):>9} {_num(r['mops'], '.2f'):>11} {r['status']:<26} "
            f"{_num(r['speedup'], '.2f'):>7} {_range(r):>11} "
            f"{str(r['verified_runs']) + '/' + str(r['runs']):>5} {_moved(r):>11}  "
            f"{note}".rstrip())
    notes = []
    if any(_seconds(r["time_s"]).startswith("<") for r in rows):
        notes.append(f"<{TIMER_RESOLUTION:g}: below the resolution of the benchmark's own "
                     f"timer (its report prints seconds with two decimals); the whole "
                     f"process's seconds are wall_s in results.csv.")
    if any(_moved(r) != "-" for r in rows):
        notes.append("moved/data: bytes to the device / back over the distinct data the "
                     "device held (data_bytes of OMPCL_STATS; 1.0/1.0: each byte moved once "
                     "each way; with zero-copy buffers nothing is copied).")
    if any(r["variant"] == "region-oracle" for r in rows):
        notes.append(REGION_ORACLE_NOTE)
    return "\n".join(lines + ([""] + [textwrap.fill(n, 100) for n in notes] if notes else []))


def write_csv(path: Path, rows: Sequence[dict]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(COLUMNS), extrasaction="ignore")
        w.writeheader()
        for r in ordered(rows):
            w.writerow({c: r.get(c) for c in COLUMNS})


def write_json(path: Path, document: dict) -> None:
    path.write_text(json.dumps(document, indent=1, default=str) + "\n", encoding="utf-8")
