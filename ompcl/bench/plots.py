"""Figures of ``ompcl bench nas`` (PNG, matplotlib without a display).

Consumes the result rows and the per-region table of ``results``. Produces, per class and
thread count, ``speedup_<class>_t<N>.png`` (speed-up over sequential per benchmark and
variant, with min-max bars and the geometric mean, like the figures of Grewe et al.) and
``dispatch_<class>_t<N>.png`` (per region: how much faster the device is than the host, which
side the oracle takes, and where the learned dispatch put it).
"""
from __future__ import annotations

import math
from pathlib import Path
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen first)

from .results import geomean  # noqa: E402

BARS = ("omp", "ocl", "auto", "best-single", "oracle", "region-oracle")
COLOURS = {"omp": "#4c72b0", "ocl": "#dd8452", "auto": "#55a868", "best-single": "#8172b3",
           "oracle": "#937860", "region-oracle": "#da8bc3"}
CHOICE_COLOURS = {"device": "#dd8452", "host": "#4c72b0", "mixed": "#999999", None: "#dddddd"}


def _bar(cell: dict, bm: str, v: str, benchmarks: list[str]) -> tuple:
    """(height, low error, high error, failed) of one bar; the geometric mean only over a
    variant that has a speed-up for every benchmark."""
    if bm == "geomean":
        vals = [(cell.get((b, v)) or {}).get("speedup") for b in benchmarks]
        return (geomean(vals) if all(vals) else None), 0.0, 0.0, False
    r = cell.get((bm, v)) or {}
    y, lo, hi = r.get("speedup"), r.get("speedup_min"), r.get("speedup_max")
    return y, (y - lo if y and lo else 0.0), (hi - y if y and hi else 0.0), \
        bool(r) and not r.get("verified")


def _speedup_axes(ax, rows: list[dict], benchmarks: list[str], variants: list[str]) -> None:
    cell = {(r["benchmark"], r["variant"]): r for r in rows}
    width = 0.8 / max(1, len(variants))
    groups = benchmarks + ["geomean"]
    for i, v in enumerate(variants):
        bars = [(j + (i - (len(variants) - 1) / 2) * width, *_bar(cell, bm, v, benchmarks))
                for j, bm in enumerate(groups)]
        shown = [b for b in bars if b[1]]
        ax.bar([b[0] for b in shown], [b[1] for b in shown], width, label=v,
               yerr=[[b[2] for b in shown], [b[3] for b in shown]], capsize=2,
               color=COLOURS.get(v))
        for x, *_, failed in bars:
            if failed:
                ax.text(x, 0.02, "failed", rotation=90, ha="center", va="bottom", fontsize=7,
                        color="red", transform=ax.get_xaxis_transform())
    ys = [r["speedup"] for r in rows if r.get("speedup")]
    if max(ys) / min(ys) > 20:
        ax.set_yscale("log")
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    ax.set_xticks(range(len(groups)), [b.upper() for b in benchmarks] + ["geomean"])
    ax.set_ylabel("speed-up over sequential")
    ax.legend(ncol=len(variants), fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0),
              frameon=False)


def speedup_figure(path: Path, rows: list[dict], title: str) -> None:
    """Grouped bars: one group per benchmark (and the geometric mean), one bar per variant."""
    benchmarks = sorted({r["benchmark"] for r in rows})
    variants = [v for v in BARS if any(r["variant"] == v for r in rows)]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * (len(benchmarks) + 1)), 4.2))
    if any(r.get("speedup") for r in rows):
        _speedup_axes(ax, rows, benchmarks, variants)
    else:
        ax.text(0.5, 0.5, "no speed-ups (no verified seq run to compare with)",
                ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def dispatch_figure(path: Path, regions: list[dict], title: str) -> None:
    """Horizontal bars: log2(host seconds / device seconds) per region (right of zero the
    device is faster, so the oracle takes it), coloured by the auto run's choice; a cross
    marks a choice against the oracle."""
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.28 * len(regions) + 1.4)))
    if regions:
        ys = range(len(regions))
        gain = [math.log2(max(r["host_s"], 1e-9) / max(r["device_s"], 1e-9)) for r in regions]
        ax.barh(ys, gain, color=[CHOICE_COLOURS.get(r["auto"], "#dddddd") for r in regions])
        for y, g, r in zip(ys, gain, regions, strict=True):
            if r["agrees"] is False:
                ax.plot(g, y, "kx")
        ax.set_yticks(list(ys), [f"{r['benchmark']} {r['region']}" for r in regions], fontsize=7)
        ax.axvline(0.0, color="black", lw=0.8)
        ax.set_xlabel("log2(host s / device s): > 0, the oracle takes the device")
        handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in CHOICE_COLOURS.values()]
        ax.legend(handles, ["auto: device", "auto: host", "auto: mixed", "auto: not run"],
                  fontsize=7, loc="best")
        ax.invert_yaxis()
    else:
        ax.text(0.5, 0.5, "no region was timed on both sides", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_figures(out: Path, rows: list[dict], regions: list[dict]) -> list[Path]:
    """Every figure, per class and thread count; returns their paths."""
    written = []
    for cls, threads in sorted({(r["class"], r["threads"]) for r in rows if r["variant"] != "seq"}):
        mine = [r for r in rows if r["class"] == cls and r["threads"] == threads]
        p = out / f"speedup_{cls}_t{threads}.png"
        speedup_figure(p, mine, f"NAS class {cls}, {threads} threads: speed-up over sequential")
        written.append(p)
        regs = [r for r in regions if r["class"] == cls and r["threads"] == threads]
        p = out / f"dispatch_{cls}_t{threads}.png"
        dispatch_figure(p, regs, f"NAS class {cls}, {threads} threads: dispatch against the "
                                 "per-region oracle")
        written.append(p)
    return written
