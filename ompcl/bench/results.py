"""Results of ``ompcl bench nas``: summaries of the timed runs and the derived mappings.

Consumes ``runs.Run`` records and the ``OMPCL_STATS`` reports of the runs of ompcl builds.
Produces result rows, one per benchmark, class, variant and thread count (medians and min-max
over the verified timed runs, speed-ups over the sequential build), the derived rows (the best
single device, the per-program oracle, the per-region oracle estimate), the per-region table
(each region's host and device seconds, the faster side and the dispatch's choice) and the
training rows (``rows.rows_from_stats`` on each repeat's ocl and host runs).
"""
from __future__ import annotations

import json
import math
import os
import statistics
from pathlib import Path
from collections import defaultdict
from typing import Iterable, Sequence

from .rows import rows_from_stats
from .runs import Run

SPEEDUP = ("median Mop/s of the variant's verified timed runs over the median Mop/s of seq "
           "(the time ratio where a report gives no Mop/s); min-max from the fastest and "
           "slowest run")
DERIVED = {
    "best-single": "the one device (omp or ocl) with the higher geometric-mean speed-up over "
                   "the benchmarks of the class, used for every benchmark",
    "oracle": "per program, the faster of omp and ocl",
    "region-oracle": "per region, the faster side, estimated from the runtime statistics of "
                     "the host and ocl runs of the same repeat: the host run's total seconds, "
                     "minus, for each region timed on both sides (loops, and parallel regions "
                     "run as teams), its host seconds, plus the smaller of its host seconds "
                     "and its device seconds (mean per entry times the host run's entries). "
                     "The total is the benchmark's timed seconds (its work in Mop, from the "
                     "run with the longest reported time, over the host run's Mop/s), so the "
                     "saving is taken to fall in the timed part; where no run reports 0.1 s "
                     "or more, or the saving exceeds the timed seconds, the total is the "
                     "process's wall seconds ('from the wall seconds'). Its speed-up is the "
                     "host run's times total / estimate",
}
Key = tuple[str, str, str, int]


def _median(xs: Sequence[float]) -> float | None:
    return statistics.median(xs) if xs else None


def _nums(rs: Iterable[Run], attr: str) -> list[float]:
    return [v for v in (getattr(r, attr) for r in rs) if isinstance(v, (int, float))]


def _failed_status(timed: list[Run]) -> str:
    bad = [r.status for r in timed if not r.verified]
    if not timed:
        return "NOT RUN"
    return f"{bad[0]} ({len(bad)} of {len(timed)} runs)"


def _row(key: Key, rs: list[Run]) -> dict:
    timed = [r for r in rs if r.repeat > 0]
    ok = [r for r in timed if r.verified]
    verified = bool(timed) and len(ok) == len(timed)
    row = dict(zip(("benchmark", "class", "variant", "threads"), key, strict=True))
    row.update(runs=len(timed), verified_runs=len(ok), verified=verified,
               status="SUCCESSFUL" if verified else _failed_status(timed))
    _spread(row, "time_s", _nums(ok, "time_s"), "time")
    _spread(row, "mops", _nums(ok, "mops"))
    row["wall_s"] = _median(_nums(ok, "wall_s"))
    row.update(_transfers(ok))
    return row


def _transfers(runs: list[Run]) -> dict:
    """Bytes moved each way (medians over the runs' statistics), the distinct data the device
    held, and the bytes each way over it (1.0: each byte moved once)."""
    totals = [t for t in ((load_stats(r.stats) or {}).get("totals") for r in runs) if t]
    if not totals:
        return {}
    out = {k: _median([t.get(k, 0) for t in totals])
           for k in ("bytes_to_device", "bytes_to_host", "data_bytes")}
    data = out["data_bytes"]
    out["to_device_over_data"] = out["bytes_to_device"] / data if data else None
    out["to_host_over_data"] = out["bytes_to_host"] / data if data else None
    return out


def group_runs(runs: Iterable[Run]) -> dict[Key, list[Run]]:
    groups: dict[Key, list[Run]] = {}
    for r in runs:
        groups.setdefault((r.benchmark, r.cls, r.variant, r.threads), []).append(r)
    return groups


def summarise(runs: Iterable[Run]) -> list[dict]:
    """One row per benchmark, class, variant and thread count, with speed-ups over seq."""
    rows = [_row(k, rs) for k, rs in group_runs(runs).items()]
    seq = {(r["benchmark"], r["class"]): r for r in rows if r["variant"] == "seq"}
    for r in rows:
        r.update(_speedups(seq.get((r["benchmark"], r["class"])), r))
    return rows


def _pos(x: float | None) -> bool:
    return isinstance(x, (int, float)) and x > 0


def _speedups(base: dict | None, row: dict) -> dict:
    none = {"speedup": None, "speedup_min": None, "speedup_max": None}
    if base is None or not base["verified"] or not row["verified"]:
        return none
    if _pos(base["mops"]) and _pos(row["mops"]):
        b = base["mops"]
        return dict(speedup=row["mops"] / b, speedup_min=row["mops_min"] / b,
                    speedup_max=row["mops_max"] / b)
    if _pos(base["time_s"]) and _pos(row["time_min"]):
        b = base["time_s"]
        return dict(speedup=b / row["time_s"], speedup_min=b / row["time_max"],
                    speedup_max=b / row["time_min"])
    return none


def blank_row(bm: str, cls: str, variant: str, threads: int, status: str = "BUILD FAILED",
              ) -> dict:
    """A row without measurements (by default: of a variant whose build failed)."""
    return {"benchmark": bm, "class": cls, "variant": variant, "threads": threads, "runs": 0,
            "verified_runs": 0, "verified": False, "status": status,
            **{k: None for k in ("time_s", "time_min", "time_max", "mops", "mops_min",
                                 "mops_max", "wall_s", "speedup", "speedup_min",
                                 "speedup_max")}}


# ---- derived mappings ----------------------------------------------------------------------

def _copy(row: dict, variant: str, chosen: str) -> dict:
    return {**row, "variant": variant, "chosen": chosen}


def _by(rows: Iterable[dict], *fields: str) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        out[tuple(r[f] for f in fields)].append(r)
    return out


def geomean(xs: Sequence[float]) -> float | None:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def best_single(rows: list[dict]) -> list[dict]:
    """The best single-device mapping, per class and thread count."""
    out = []
    for group in _by(rows, "class", "threads").values():
        per_bm = {(r["benchmark"], r["variant"]): r for r in group}
        both = [bm for bm in {r["benchmark"] for r in group}
                if all(_pos(per_bm.get((bm, v), {}).get("speedup")) for v in ("omp", "ocl"))]
        means = {v: geomean([per_bm[(bm, v)]["speedup"] for bm in both]) for v in ("omp", "ocl")}
        if not both:
            continue
        best = max(means, key=lambda v: means[v])
        out += [_copy(r, "best-single", best) for r in group if r["variant"] == best]
    return out


def oracle(rows: list[dict]) -> list[dict]:
    """The per-program oracle: the faster of omp and ocl for each benchmark."""
    out = []
    for group in _by(rows, "benchmark", "class", "threads").values():
        cands = [r for r in group if r["variant"] in ("omp", "ocl") and _pos(r["speedup"])]
        if cands:
            best = max(cands, key=lambda r: r["speedup"])
            out.append(_copy(best, "oracle", best["variant"]))
    return out


# ---- per-region oracle ---------------------------------------------------------------------

def load_stats(path: str | None) -> dict | None:
    """A statistics report (None: no path, or unreadable)."""
    try:
        return json.loads(Path(path).read_text()) if path else None
    except (OSError, ValueError):
        return None


def _region_map(stats: dict) -> dict[tuple, dict]:
    """Loop regions and parallel regions (teams) of a statistics report, by source place."""
    out = {}
    for r in stats.get("regions", []) + stats.get("teams", []):
        out[(os.path.basename(r["file"]), r["line"], r.get("kernel") or "team")] = r
    return out


def paired_regions(device: dict, host: dict) -> list[dict]:
    """Regions timed on the host in ``host`` and run on the device in ``device``, with their
    total seconds on each side (device seconds scaled to the host run's entries)."""
    devs = _region_map(device)
    out = []
    for key, h in _region_map(host).items():
        d = devs.get(key)
        if not h.get("host_runs") or h.get("seconds_host", 0) <= 0 or not d \
                or not d.get("device_runs"):
            continue
        out.append({"region": f"{key[0]}:{key[1]}:{key[2]}",
                    "kind": "loop" if key[2] != "team" else "parallel region",
                    "entries": h["host_runs"], "host_s": h["seconds_host"],
                    "device_s": d["seconds_device"] / d["device_runs"] * h["host_runs"]})
    return out


def saved_seconds(pairs: Iterable[dict]) -> float:
    """What running every region on its faster side saves against the host run."""
    return sum(p["host_s"] - min(p["host_s"], p["device_s"]) for p in pairs)


def benchmark_work(runs: Iterable[Run]) -> float | None:
    """The benchmark's work in Mop (Mop/s times seconds of its verified timed run with the
    longest reported time), when that time is long enough (0.1 s) for its two decimals."""
    best = max((r for r in runs if r.timed and _pos(r.time_s) and _pos(r.mops)),
               key=lambda r: (r.time_s, r.mops), default=None)  # ties: the larger Mop/s
    return best.mops * best.time_s if best is not None and best.time_s >= 0.1 else None


def estimate_ratio(host: Run, pairs: list[dict], work: float | None) -> tuple[float, str]:
    """The per-region oracle's time over the host run's, and what it was taken from: the
    benchmark's timed seconds (``work`` / Mop/s) less the saved seconds, or, where that is
    not known or not positive (saving outside the timed part), the run's wall seconds."""
    saved = saved_seconds(pairs)
    if work and _pos(host.mops) and work / host.mops > saved:
        timed = work / host.mops
        return (timed - saved) / timed, "timed"
    return max(host.wall_s - saved, 1e-9) / host.wall_s, "wall"


def _stats_of(run: Run | None) -> dict | None:
    """A verified timed run's statistics; a program without the ompcl runtime (nothing
    offloaded) writes none: it has no regions."""
    if run is None or not run.timed:
        return None
    return load_stats(run.stats) if run.stats else {}


def _repeats(groups: dict[Key, list[Run]], bm: str, cls: str, threads: int):
    """(host run, device statistics, host statistics) of each repeat whose host and ocl runs
    both verified."""
    ocl = {r.repeat: r for r in groups.get((bm, cls, "ocl", threads), []) if r.timed}
    for h in groups.get((bm, cls, "host", threads), []):
        dev, host = _stats_of(ocl.get(h.repeat)), _stats_of(h)
        if dev is not None and host is not None:
            yield h, dev, host


def _host_keys(groups: dict[Key, list[Run]]) -> list[tuple[str, str, int]]:
    return [(bm, cls, t) for (bm, cls, v, t) in groups if v == "host"]


def region_oracle(runs: list[Run], rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """The per-region oracle rows and the per-region table (medians over repeats)."""
    groups = group_runs(runs)
    seq = {(r["benchmark"], r["class"]): r for r in rows if r["variant"] == "seq"}
    out_rows, table = [], []
    for bm, cls, threads in _host_keys(groups):
        reps = [(h, paired_regions(dev, host))
                for h, dev, host in _repeats(groups, bm, cls, threads)]
        if not reps:
            continue
        work = benchmark_work(r for (b, c, _, _), rs in groups.items() if (b, c) == (bm, cls)
                              for r in rs)
        out_rows.append(_estimate_row(bm, cls, threads, reps, seq.get((bm, cls)), work))
        table += _region_table(bm, cls, threads, reps, groups)
    return out_rows, table


def _spread(row: dict, name: str, vals: list[float], base: str | None = None) -> None:
    base = base or name
    row[name] = _median(vals)
    row[f"{base}_min"], row[f"{base}_max"] = (min(vals), max(vals)) if vals else (None, None)


def _estimate_row(bm: str, cls: str, threads: int, reps: list, base: dict | None,
                  work: float | None) -> dict:
    """The per-region oracle's row: each repeat's estimate, then medians and min-max."""
    times, mops, speedups, bases = [], [], [], set()
    for h, pairs in reps:
        ratio, basis = estimate_ratio(h, pairs, work)
        bases.add(basis)
        if isinstance(h.time_s, (int, float)):
            times.append(h.time_s * ratio)
        if _pos(h.mops):
            mops.append(h.mops / ratio)
        if base and base["verified"] and _pos(base["mops"]) and _pos(h.mops):
            speedups.append(h.mops / base["mops"] / ratio)
        elif base and base["verified"] and _pos(base["time_s"]) and _pos(h.time_s):
            speedups.append(base["time_s"] / h.time_s / ratio)
    row = blank_row(bm, cls, "region-oracle", threads, "SUCCESSFUL")
    row.update(runs=len(reps), verified_runs=len(reps), verified=True,
               chosen=f"{len(reps[-1][1])} regions timed on both sides; "
                      f"from the {'/'.join(sorted(bases))} seconds")
    _spread(row, "time_s", times, "time")
    _spread(row, "mops", mops)
    _spread(row, "speedup", speedups)
    return row


def _choice(stats: dict | None, region: str) -> str | None:
    """Where the auto run put a region: device, host, mixed (or None: not run)."""
    if stats is None:
        return None
    r = {f"{k[0]}:{k[1]}:{k[2]}": v for k, v in _region_map(stats).items()}.get(region)
    if r is None or not r.get("entries"):
        return None
    dev, host = r.get("device_runs", 0), r.get("host_runs", 0)
    return "device" if dev and not host else "host" if host and not dev else "mixed"


def _region_table(bm: str, cls: str, threads: int, reps: list,
                  groups: dict[Key, list[Run]]) -> list[dict]:
    autos = [r for r in groups.get((bm, cls, "auto", threads), []) if r.timed and r.stats]
    auto = load_stats(autos[-1].stats) if autos else None
    by_region: dict[str, list[dict]] = defaultdict(list)
    for _, pairs in reps:
        for p in pairs:
            by_region[p["region"]].append(p)
    out = []
    for region, ps in by_region.items():
        host_s = _median([p["host_s"] for p in ps])
        device_s = _median([p["device_s"] for p in ps])
        best = "device" if device_s < host_s else "host"
        chose = _choice(auto, region)
        out.append({"benchmark": bm, "class": cls, "threads": threads, "region": region,
                    "kind": ps[0]["kind"], "entries": ps[0]["entries"], "host_s": host_s,
                    "device_s": device_s, "oracle": best, "auto": chose,
                    "agrees": None if chose is None else chose == best})
    return out


# ---- training rows -------------------------------------------------------------------------

def training_rows(runs: list[Run], several_thread_counts: bool) -> list[dict]:
    """Training rows (``rows.rows_from_stats``) of every repeat's ocl and host runs; a
    (benchmark, dataset, kernel, work-items) seen in several repeats gets the median runtimes.
    The dataset is the class (with the thread count where several were run)."""
    groups = group_runs(runs)
    merged: dict[tuple, list[dict]] = defaultdict(list)
    for bm, cls, threads in _host_keys(groups):
        dataset = f"{cls}-{threads}t" if several_thread_counts else cls
        for _, dev, host in _repeats(groups, bm, cls, threads):
            for row in rows_from_stats(dev, host, bm, dataset):
                merged[(bm, dataset, row["kernel"], row["work_items"])].append(
                    dict(row, threads=threads))
    return [{**rs[0], "runtime_cpu": _median([r["runtime_cpu"] for r in rs]),
             "runtime_gpu": _median([r["runtime_gpu"] for r in rs])} for rs in merged.values()]
