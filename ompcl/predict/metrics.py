"""Scores of a device mapping: how good the choices of a model are on measured rows.

Consumes measured rows (host and device seconds) and a choice per row (1 device, 0 host);
produces a JSON-able dict:

- ``accuracy``: share of rows where the choice is the faster side;
- ``speedup_over_best_single``: geometric mean over rows of t(best single) / t(choice), where
  the best single mapping is the one device (host or OpenCL) with the best geometric mean
  over the same rows, chosen with hindsight (the "static mapping" of Grewe et al. and
  Cummins et al.);
- ``oracle_share``: geometric mean of t(oracle) / t(choice), in (0, 1];
- ``speedup_over_host``: geometric mean of t(host) / t(choice), the gain over the OpenMP
  original, and ``worst_slowdown_over_host``: the largest t(choice) / t(host) of any row;
- ``confusion``: ``[[host→host, host→device], [device→host, device→device]]``, rows the
  measured faster side, columns the choice (``host_faster_sent_to_device`` = [0][1], the
  mistake that makes a program slower than its OpenMP original).
"""
from __future__ import annotations

import math
from typing import Sequence

HOST, DEVICE = 0, 1


def _geomean(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _chosen(choice: Sequence[int], t_cpu: Sequence[float], t_gpu: Sequence[float]) -> list:
    return [g if c == DEVICE else h for c, h, g in zip(choice, t_cpu, t_gpu)]


def best_single(t_cpu: Sequence[float], t_gpu: Sequence[float]) -> int:
    """The single mapping (HOST or DEVICE) with the best geometric-mean time over the rows."""
    g = sum(math.log(b) - math.log(a) for a, b in zip(t_cpu, t_gpu))
    return DEVICE if g < 0 else HOST


def confusion(truth: Sequence[int], choice: Sequence[int]) -> list[list[int]]:
    m = [[0, 0], [0, 0]]
    for t, c in zip(truth, choice):
        m[int(t)][int(c)] += 1
    return m


def score(choice: Sequence[int], t_cpu: Sequence[float], t_gpu: Sequence[float]) -> dict:
    """The scores of ``choice`` on rows with these times (see the module docstring)."""
    if not (len(choice) == len(t_cpu) == len(t_gpu)) or not choice:
        raise ValueError("score needs one choice and two times per row, and some rows")
    truth = [int(g < h) for h, g in zip(t_cpu, t_gpu)]
    picked = _chosen(choice, t_cpu, t_gpu)
    oracle = [min(h, g) for h, g in zip(t_cpu, t_gpu)]
    single = best_single(t_cpu, t_gpu)
    static = _chosen([single] * len(choice), t_cpu, t_gpu)
    m = confusion(truth, choice)
    return {
        "rows": len(choice),
        "accuracy": sum(t == c for t, c in zip(truth, choice)) / len(choice),
        "speedup_over_best_single": _geomean([s / p for s, p in zip(static, picked)]),
        "best_single": "device" if single == DEVICE else "host",
        "oracle_share": _geomean([o / p for o, p in zip(oracle, picked)]),
        "speedup_over_host": _geomean([h / p for h, p in zip(t_cpu, picked)]),
        "worst_slowdown_over_host": max(p / h for h, p in zip(t_cpu, picked)),
        "confusion": m,
        "host_faster_sent_to_device": m[HOST][DEVICE],
        "device_faster_kept_on_host": m[DEVICE][HOST],
    }
