"""Training rows from runtime statistics.

Consumes two ``OMPCL_STATS`` reports of one program built with ompcl: one run with every
region forced to the device (``OMPCL_DEVICE=opencl``) and one on the host
(``OMPCL_DEVICE=openmp``). Produces one training row per region and problem-size class seen in
both, with the columns of ``predict.schema.ROW_COLUMNS`` (those of the public device-mapping
datasets): the static counts and dynamic features of the device run, and the mean seconds per
entry on each side (``runtime_gpu``: the device, transfers included; ``runtime_cpu``: the
OpenMP host). ``label`` says which was faster (1: device). ``dedupe`` merges rows whose
features are equal (the same loop text in several programs or files would otherwise sit on
both sides of a leave-one-program-out split; rows of other OpenMP thread counts stay apart);
``write_meta`` writes the ``.meta.json`` that ``ompcl train`` reads beside a rows file (where
and how the rows were measured).
"""
from __future__ import annotations

import csv
import json
import math
import os
import statistics
from pathlib import Path
from typing import Iterable, Sequence

from ..predict.schema import DYNAMIC, ROW_COLUMNS, STATIC
from ..predict.train import meta_path


def _size_class(work_items: int) -> int:
    return int(math.log2(work_items)) if work_items > 0 else 0


def _key(region: dict) -> tuple:
    return os.path.basename(region["file"]), region["line"], region["kernel"]


def rows_from_stats(device: dict, host: dict, benchmark: str, dataset: str,
                    min_seconds: float = 0.0) -> list[dict]:
    """Rows for the regions and size classes run on the device in ``device`` and on the host
    in ``host`` (entries whose mean time is below ``min_seconds`` on both sides are dropped:
    timer noise)."""
    hosted = {_key(r): r for r in host.get("regions", []) if r.get("kernel")}
    rows = []
    for r in device.get("regions", []):
        h = hosted.get(_key(r)) if r.get("kernel") else None
        if h is None:
            continue
        host_sizes = {_size_class(z["work_items"]): z for z in h.get("sizes", [])
                      if z.get("host_runs")}
        for z in r.get("sizes", []):
            hz = host_sizes.get(_size_class(z["work_items"]))
            if not z.get("device_runs") or hz is None:
                continue
            gpu = z["seconds_device"] / z["device_runs"]
            cpu = hz["seconds_host"] / hz["host_runs"]
            if max(gpu, cpu) < min_seconds:
                continue
            row = {"benchmark": benchmark, "dataset": dataset,
                   "kernel": f"{_key(r)[0]}:{r['line']}:{r['kernel']}"}
            row.update(zip(STATIC, z.get("static") or r.get("static") or [0] * len(STATIC)))
            row.update(transfer=z["transfer"], wgsize=z["wgsize"], runtime_cpu=cpu,
                       runtime_gpu=gpu, work_items=z["work_items"])
            rows.append({c: row.get(c, 0) for c in ROW_COLUMNS})
    return rows


def dedupe(rows: Sequence[dict]) -> list[dict]:
    """``rows`` with one row per distinct feature vector (``STATIC`` + ``DYNAMIC``) and OpenMP
    thread count (a ``threads`` column, where rows have one: the same loop at two counts is
    two measurements), in first appearance order: the first row's names and extra columns,
    the median times of all; its ``duplicates`` column counts the rows merged into it."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        key = tuple(float(r.get(c) or 0) for c in STATIC + DYNAMIC) + (r.get("threads"),)
        groups.setdefault(key, []).append(r)
    return [{**rs[0], "runtime_cpu": statistics.median(r["runtime_cpu"] for r in rs),
             "runtime_gpu": statistics.median(r["runtime_gpu"] for r in rs),
             "duplicates": len(rs) - 1} for rs in groups.values()]


def write_meta(csv_path: str | os.PathLike, meta: dict) -> Path:
    """Write ``meta`` beside the rows file ``csv_path`` (``rows.csv`` -> ``rows.meta.json``)."""
    path = meta_path(csv_path)
    path.write_text(json.dumps(meta, indent=1) + "\n")
    return path


def load(path: str | os.PathLike) -> dict:
    return json.loads(Path(path).read_text())


def write_csv(path: str | os.PathLike, rows: Iterable[dict],
              columns: Sequence[str] = ROW_COLUMNS) -> int:
    """Write ``rows`` (extra keys ignored); returns the number written."""
    n = 0
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow(row)
            n += 1
    return n
