"""Synthetic device-mapping data in the public datasets' column layout, for tests and for
trying model selection where the public files are not at hand.

Produces rows with the columns of Grewe et al.'s published data (``PUBLIC_COLUMNS``):
``benchmark`` is ``<suite>-<program>-<kernel>`` (so the program is the part before the last
``-``), one row per kernel and dataset size, the static counts drawn per kernel, the transfer
and work-group size per dataset, and run times from a simple cost model of a host and a
discrete GPU (transfers over a bus, a launch cost, uncoalesced accesses and atomics expensive on
the device) with per-program factors (what leave-one-program-out cannot learn from other
programs) and log-normal noise. Seeded: the same arguments give the same rows.
"""
from __future__ import annotations

import csv
import math
import os
import random

PUBLIC_COLUMNS = ("benchmark", "dataset", "comp", "rational", "mem", "localmem", "coalesced",
                  "atomic", "transfer", "wgsize", "runtime_cpu", "runtime_gpu", "oracle")

#: per platform: host ops/s, device ops/s, device bytes/s of coalesced memory, bus bytes/s,
#: launch seconds
PLATFORMS = {"amd": (4e9, 6e10, 1.5e11, 5e9, 2e-5), "nvidia": (4e9, 9e10, 2e11, 6e9, 1e-5)}


def _kernel(rnd: random.Random) -> dict:
    mem = max(1, int(rnd.lognormvariate(2.0, 1.0)))
    comp = max(1, int(mem * rnd.lognormvariate(0.7, 1.2)))
    return {"comp": comp, "rational": int(comp * rnd.uniform(0, 0.3)), "mem": mem,
            "localmem": rnd.choice([0, 0, 0, max(1, mem // 2)]),
            "coalesced": rnd.randint(0, mem) if rnd.random() < 0.5 else mem,
            "atomic": rnd.choice([0] * 9 + [1])}


def _times(k: dict, items: int, transfer: int, platform: tuple, bias: tuple,
           rnd: random.Random) -> tuple[float, float]:
    host_ops, dev_ops, dev_bw, bus, launch = platform
    ops = k["comp"] + 4 * k["mem"]
    cpu = items * ops / host_ops * bias[0]
    strided = k["mem"] - k["coalesced"]
    dev_mem = items * 8 * (k["coalesced"] + 16 * strided + 32 * k["atomic"]) / dev_bw
    gpu = launch + transfer / bus + (items * k["comp"] / dev_ops + dev_mem) * bias[1]
    return cpu * rnd.lognormvariate(0, 0.1), gpu * rnd.lognormvariate(0, 0.1)


def rows(programs: int = 60, seed: int = 0, platform: str = "amd") -> list[dict]:
    """Rows of ``programs`` programs (1-8 kernels each, 1-4 dataset sizes per program)."""
    rnd = random.Random(seed)
    out = []
    for p in range(programs):
        suite = f"suite{p % 7}-1.{p % 3}"
        bias = (rnd.lognormvariate(0, 0.4), rnd.lognormvariate(0, 0.6))
        sizes = sorted(rnd.sample(range(10, 25), rnd.randint(1, 4)))
        for k in range(rnd.randint(1, 8)):
            kern = _kernel(rnd)
            per_item = 4 * rnd.choice([1, 2, 3, 4, 8])
            for s in sizes:
                items = 2 ** s
                transfer = items * per_item
                cpu, gpu = _times(kern, items, transfer, PLATFORMS[platform], bias, rnd)
                out.append({"benchmark": f"{suite}-prog{p}-kernel{k}", "dataset": f"2^{s}",
                            **kern, "transfer": transfer,
                            "wgsize": rnd.choice([64, 128, 256]), "runtime_cpu": cpu,
                            "runtime_gpu": gpu, "oracle": "GPU" if gpu < cpu else "CPU"})
    return out


def write(path: str | os.PathLike, data: list[dict]) -> int:
    """Write ``data`` as a CSV of ``PUBLIC_COLUMNS``; the number of rows."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(PUBLIC_COLUMNS))
        w.writeheader()
        w.writerows(data)
    return len(data)


def summary(data: list[dict]) -> str:
    gpu = sum(r["oracle"] == "GPU" for r in data)
    spread = [abs(math.log(r["runtime_cpu"] / r["runtime_gpu"])) for r in data]
    return (f"{len(data)} rows, {gpu} device-faster, median |ln(cpu/gpu)| "
            f"{sorted(spread)[len(spread) // 2]:.2f}")


if __name__ == "__main__":
    import sys
    rows_ = rows(int(sys.argv[2]) if len(sys.argv) > 2 else 60,
                 platform=sys.argv[3] if len(sys.argv) > 3 else "amd")
    write(sys.argv[1], rows_)
    print(summary(rows_))
