"""Figures of ``ompcl bench nas`` (PNG, matplotlib without a display).

Consumes the result rows and the per-region table of ``results``. Produces, per class and
thread count, ``speedup_<class>_t<N>.png`` (speed-up over sequential per benchmark and
variant, with min-max bars and the geometric mean, like the figures of Grewe et al.) and
``dispatch_<class>_t<N>.png`` (per region: how much faster the device is than the host, which
side the oracle takes, and where the learned dispatch put it).
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen first)
from matplotlib.lines import Line2D  # noqa: E402

from .output import REGION_ORACLE_NOTE  # noqa: E402
from .results import geomean  # noqa: E402

BARS = ("omp", "ocl", "host", "auto", "best-single", "oracle", "region-oracle")
COLOURS = {"omp": "#4c72b0", "ocl": "#dd8452", "host": "#64b5cd", "auto": "#55a868",
           "best-single": "#8172b3", "oracle": "#937860", "region-oracle": "#da8bc3"}
CHOICE_COLOURS = {"device": "#dd8452", "host": "#4c72b0", "mixed": "#999999", None: "#dddddd"}
CHOICE_LABELS = {"device": "auto ran it on the device", "host": "auto ran it on the host",
                 "mixed": "auto ran it on both (per size class)",
                 None: "auto: no statistics (no auto run, or the region was not entered)"}
#: the speed-up figure's caption: what each bar is
SPEEDUP_CAPTION = (
    "omp: the original OpenMP program; ocl: built with ompcl, every offloaded region forced "
    "to the device; host: built with ompcl, OMPCL_DEVICE=openmp; auto: built with ompcl, "
    "learned dispatch; best-single: omp or ocl, the one with the higher geomean, for every "
    "benchmark; oracle: per program, the faster of omp and ocl; " + REGION_ORACLE_NOTE
    + " Bars: median; whiskers: min-max of the repeats.")


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
    ax.set_xticks(range(len(groups)), [b.upper() for b in benchmarks] + ["geomean"],
                  fontsize=9, rotation=30 if len(groups) > 10 else 0)
    ax.set_xlabel("benchmark (geomean: geometric mean over the benchmarks)")
    ax.set_ylabel("speed-up over sequential (x, higher is faster)")
    ax.legend(ncol=min(len(variants), 4), fontsize=7, loc="lower center",
              bbox_to_anchor=(0.5, 1.0), frameon=False)


def speedup_figure(path: Path, rows: list[dict], title: str) -> None:
    """Writes ``speedup_plot`` to ``path``."""
    fig = speedup_plot(rows, title)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def speedup_plot(rows: list[dict], title: str):
    """Grouped bars: one group per benchmark (and the geometric mean), one bar per variant,
    with a caption saying what each variant is."""
    benchmarks = sorted({r["benchmark"] for r in rows})
    variants = [v for v in BARS if any(r["variant"] == v for r in rows)]
    width = max(7.0, 1.2 * (len(benchmarks) + 1))
    fig, ax = plt.subplots(figsize=(width, 5.6))
    if any(r.get("speedup") for r in rows):
        _speedup_axes(ax, rows, benchmarks, variants)
    else:
        ax.text(0.5, 0.5, "no speed-ups (no verified seq run to compare with)",
                ha="center", va="center", transform=ax.transAxes)
    fig.suptitle(title)
    fig.text(0.01, 0.01, textwrap.fill(SPEEDUP_CAPTION, int(width * 19)), fontsize=6.5,
             va="bottom", ha="left", wrap=True)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig


def dispatch_figure(path: Path, regions: list[dict], title: str) -> None:
    """Writes ``dispatch_plot`` to ``path``."""
    fig = dispatch_plot(regions, title)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def dispatch_plot(regions: list[dict], title: str):
    """Horizontal bars: log2(host seconds / device seconds) per region (right of zero the
    device is faster, so the oracle takes it), coloured by the auto run's choice and labelled
    with both times; a cross marks a choice against the oracle."""
    fig, ax = plt.subplots(figsize=(8.5, max(3.0, 0.32 * len(regions) + 2.0)))
    if regions:
        ys = range(len(regions))
        gain = [math.log2(max(r["host_s"], 1e-9) / max(r["device_s"], 1e-9)) for r in regions]
        ax.barh(ys, gain, color=[CHOICE_COLOURS.get(r["auto"], "#dddddd") for r in regions])
        for y, g, r in zip(ys, gain, regions, strict=True):
            if r["agrees"] is False:
                ax.plot(g, y, "kx", markersize=8)
            ax.annotate(f"host {seconds(r['host_s'])}, device {seconds(r['device_s'])}",
                        (g, y), xytext=(8 if g >= 0 else -8, 0), textcoords="offset points",
                        ha="left" if g >= 0 else "right", va="center", fontsize=6)
        ax.set_yticks(list(ys), [f"{r['benchmark'].upper()} {r['region']}" for r in regions],
                      fontsize=7)
        ax.axvline(0.0, color="black", lw=0.8)
        lo, hi = min(0.0, *gain), max(0.0, *gain)  # room beside the bars for the times
        span = max(hi - lo, 1.0)
        ax.set_xlim(lo - (0.6 * span if lo < 0 else 0.1 * span),
                    hi + (0.6 * span if hi > 0 else 0.1 * span))
        ax.set_xlabel("log2(host seconds / device seconds): right of 0 the device is faster "
                      "and the oracle takes it")
        ax.set_ylabel("region (benchmark file:line:kernel)")
        present = list(dict.fromkeys(r["auto"] for r in regions))
        handles = [plt.Rectangle((0, 0), 1, 1, color=CHOICE_COLOURS[c]) for c in present]
        labels = [CHOICE_LABELS[c] for c in present]
        handles.append(Line2D([], [], color="black", marker="x", ls="none", markersize=8))
        labels.append("x: auto chose the side the oracle did not")
        ax.legend(handles, labels, fontsize=7, loc="upper center", frameon=False, ncol=2,
                  bbox_to_anchor=(0.5, -0.08 - 1.0 / (0.32 * len(regions) + 2.0)))
        ax.invert_yaxis()
    else:
        ax.text(0.5, 0.5, "no region was timed on both sides", ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
    ax.set_title(title)
    fig.tight_layout()
    return fig


def seconds(v: float | None) -> str:
    """A time with a unit that suits it and three significant digits (``12.3 ms``, never
    ``0.000 s``)."""
    if v is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v / 1e-9:.3g} ns"


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
        dispatch_figure(p, regs, f"NAS class {cls}, {threads} threads: auto's choice per "
                            "region against the oracle")
        written.append(p)
    return written
