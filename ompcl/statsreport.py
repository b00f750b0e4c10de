"""``ompcl stats``: the runtime's statistics (``OMPCL_STATS=FILE``) as a profiler's summary.

Consumes the JSON the runtime writes at exit; produces a table of regions (``file:line``,
entries on the device and on the host, seconds, bytes each way), the slowest first, each with
its decisions and why they were taken.
"""
from __future__ import annotations

import json
import os

from .diagnostics import InputError

_DECISIONS = {"device": "device", "host": "host", None: "-"}


def load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as e:
        raise InputError(f"cannot read statistics '{path}': {e.strerror}") from None
    except ValueError as e:
        raise InputError(f"'{path}' is not an ompcl statistics file ({e})") from None
    if not isinstance(data, dict) or "regions" not in data:
        raise InputError(f"'{path}' is not an ompcl statistics file (no 'regions'; it is "
                         "written by a translated program run with OMPCL_STATS=FILE)")
    return data


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _sizes_why(r: dict) -> list[str]:
    out = []
    for z in r.get("sizes", []):
        first, moving = z.get("decision", [None, None])
        if first is None and moving is None:
            continue
        how = "measured" if z.get("measured") is True else \
            "probing" if z.get("measured") == "probing" else "model"
        side = _DECISIONS[first] if first == moving or moving is None else \
            f"{_DECISIONS[first]} (data resident), {_DECISIONS[moving]} (data to move)"
        out.append(f"{side} for {z['work_items']} work-items ({how})")
    return out


def why(r: dict, mode: str) -> str:
    """The decisions of one region, and what made them."""
    parts = []
    if mode != "auto" and r.get("kernel"):
        parts.append(f"forced by OMPCL_DEVICE={mode}")
    counts = [f"{side} {r[f'decisions_{side}']}x" for side in ("device", "host")
              if r.get(f"decisions_{side}")]
    if counts:
        parts.append("decisions: " + ", ".join(counts))
    parts += _sizes_why(r)
    if r.get("fallback"):
        parts.append(f"host because {r['fallback']}")
    for key, what in (("check_declines", "run-time scratch check declined"),
                      ("alias_declines", "arrays overlapped at launch")):
        if r.get(key):
            parts.append(f"{what} {r[key]}x")
    return "; ".join(parts)


def _row(r: dict, mode: str) -> dict:
    name = r.get("kernel") or "team of one"
    return {"where": f"{os.path.basename(r['file'])}:{r['line']}", "what": name,
            "seconds": r.get("seconds_device", 0) + r.get("seconds_host", 0),
            "device": r.get("device_runs", 0), "host": r.get("host_runs", 0),
            "kernel": r.get("kernel_seconds", 0), "to_dev": r.get("bytes_to_device", 0),
            "to_host": r.get("bytes_to_host", 0), "why": why(r, mode)}


def rows(data: dict) -> list[dict]:
    """One row per region (loops and teams of one), the most seconds first."""
    mode = data.get("mode", "auto")
    regions = data.get("regions", []) + data.get("teams", [])
    return sorted((_row(r, mode) for r in regions), key=lambda x: -x["seconds"])


def _header(data: dict) -> list[str]:
    dev = data.get("device", {})
    where = f"{dev.get('name')} ({dev.get('platform')}" + \
        (", zero-copy)" if dev.get("zero_copy") else ")") if dev.get("available") else \
        "none started"
    t = data.get("totals", {})
    return [f"mode {data.get('mode', '?')}, OpenCL device: {where}, model: "
            f"{data.get('model', '?')}",
            f"kernels {t.get('kernel_seconds', 0):.6f} s, transfers "
            f"{t.get('transfer_seconds', 0):.6f} s ({human_bytes(t.get('bytes_to_device', 0))} "
            f"to the device, {human_bytes(t.get('bytes_to_host', 0))} back), OpenCL set-up "
            f"{t.get('setup_seconds', 0):.6f} s"] + _data_line(t)


def _data_line(t: dict) -> list[str]:
    """Bytes moved over the distinct data the device held (1.0x: each byte moved once)."""
    data = t.get("data_bytes", 0)
    if not data:
        return []
    return [f"data on the device {human_bytes(data)}: moved "
            f"{t.get('bytes_to_device', 0) / data:.2f}x to the device, "
            f"{t.get('bytes_to_host', 0) / data:.2f}x back"]


def format_summary(data: dict, top: int = 0) -> str:
    table = rows(data)[:top or None]
    head = ("seconds", "device", "host", "kernel s", "to device", "to host", "region")
    cells = [(f"{x['seconds']:.6f}", str(x["device"]), str(x["host"]), f"{x['kernel']:.6f}",
              human_bytes(x["to_dev"]), human_bytes(x["to_host"]),
              f"{x['where']} {x['what']}") for x in table]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths[:-1]) + "  {}"
    lines = _header(data) + ["", fmt.format(*head)]
    for x, c in zip(table, cells):
        lines.append(fmt.format(*c))
        if x["why"]:
            lines.append(" " * (sum(widths[:-1]) + 2 * (len(widths) - 1)) + "  " + x["why"])
    if not table:
        lines.append("(no region ran)")
    return "\n".join(lines)


def run_with_stats(command: list[str]) -> tuple[int, dict | None]:
    """Run a translated program with ``OMPCL_STATS`` pointing at a temporary file; its exit
    status and its statistics (None when it wrote none: not a translated program, or killed)."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory(prefix="ompcl-stats-") as tmp:
        path = os.path.join(tmp, "stats.json")
        try:
            rc = subprocess.call(command, env={**os.environ, "OMPCL_STATS": path})
        except OSError as e:
            raise InputError(f"cannot run '{command[0]}': {e.strerror}") from None
        return rc, load(path) if os.path.exists(path) else None
