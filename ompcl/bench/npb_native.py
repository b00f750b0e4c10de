"""Build and run the native NAS Parallel Benchmarks (nas_benchmarks/) and report Mop/s.

Usage: python -m ompcl.bench.npb_native --classes S,W,A --benchmarks ep,is,cg --threads 1,2
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

NPB_DIR = Path(__file__).resolve().parent.parent.parent / "nas_benchmarks"

#: Environment applied to every OpenMP run (recorded in each result row).
OMP_ENV = {"OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true"}

FIELDS = ["benchmark", "class", "variant", "threads", "time_s", "mops", "verification",
          "speedup", "returncode", "env", "binary"]

_REPORT_RE = {
    "time_s": re.compile(r"^ Time in seconds\s*=\s*(\S+)\s*$", re.M),
    "mops": re.compile(r"^ Mop/s total\s*=\s*(\S+)\s*$", re.M),
    "verification": re.compile(r"^ Verification\s*=\s*(\S+)\s*$", re.M),
    "threads": re.compile(r"^ Total threads\s*=\s*(\d+)\s*$", re.M),
}


def available_benchmarks(npb_dir: Path = NPB_DIR) -> list[str]:
    """Returns the benchmark names present in npb_dir (directories <bm>/ with <bm>/<bm>.c)."""
    return sorted(d.name for d in npb_dir.iterdir()
                  if d.is_dir() and (d / f"{d.name}.c").is_file())


def build(benchmark: str, cls: str, build_dir: Path, npb_dir: Path = NPB_DIR) -> tuple[bool, str]:
    """Builds <benchmark>.<cls>.seq and .omp into build_dir with the Makefile.

    Returns (success, combined make output).
    """
    cmd = ["make", "-C", str(npb_dir), f"CLASS={cls}", f"BENCHMARKS={benchmark}",
           f"BINDIR={build_dir}", "-j2"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    return res.returncode == 0, res.stdout + res.stderr


def parse_report(output: str) -> dict[str, Any]:
    """Extracts time_s, mops, verification and threads from an NPB report."""
    out: dict[str, Any] = {}
    for key, rx in _REPORT_RE.items():
        m = rx.search(output)
        if m is None:
            out[key] = None
        elif key == "verification":
            out[key] = m.group(1)
        elif key == "threads":
            out[key] = int(m.group(1))
        else:
            out[key] = float(m.group(1))
    return out


def run_binary(exe: Path, threads: int | None, timeout: float | None = None) -> dict[str, Any]:
    """Runs one benchmark binary; threads=None means the sequential build.

    Returns the parsed report plus returncode, env and the raw output.
    """
    env = dict(os.environ)
    run_env: dict[str, str] = {}
    env.pop("OMP_NUM_THREADS", None)
    if threads is not None:
        run_env = {"OMP_NUM_THREADS": str(threads), **OMP_ENV}
        env.update(run_env)
    try:
        res = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=timeout)
        output, rc = res.stdout + res.stderr, res.returncode
    except subprocess.TimeoutExpired as exc:
        output, rc = f"timeout after {timeout} s: {exc}", -1
    row = parse_report(output)
    if row["verification"] is None:
        row["verification"] = "TIMEOUT" if rc == -1 else "NO REPORT"
    row.update(returncode=rc, env=run_env, output=output)
    return row


def is_success(row: dict[str, Any]) -> bool:
    """True when a result row verified and exited with status 0."""
    return row.get("verification") == "SUCCESSFUL" and row.get("returncode") == 0


def _best_of(exe: Path, threads: int | None, timeout: float | None,
             repeat: int) -> dict[str, Any]:
    """Runs exe repeat times; returns the first failed run, else the fastest."""
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        row = run_binary(exe, threads, timeout)
        if not is_success(row):
            return row
        if best is None or (row["mops"] or 0.0) > (best["mops"] or 0.0):
            best = row
    assert best is not None
    return best


def _speedup(seq: dict[str, Any], row: dict[str, Any]) -> float | None:
    """Speed-up over the sequential run: the Mop/s ratio (same work, and more
    digits than the report's two-decimal times), else the time ratio."""
    if seq.get("mops") and row.get("mops"):
        return row["mops"] / seq["mops"]
    if seq.get("time_s") and row.get("time_s"):
        return seq["time_s"] / row["time_s"]
    return None


def run_native(benchmarks: Sequence[str], classes: Sequence[str], threads: Sequence[int],
               build_dir: str | Path, npb_dir: str | Path = NPB_DIR,
               timeout: float | None = None, verbose: bool = False,
               repeat: int = 1) -> list[dict[str, Any]]:
    """Builds and runs every (benchmark, class): the .seq binary once, the .omp
    binary once per thread count.  Benchmarks absent from npb_dir are skipped
    with a warning on stderr.  With repeat > 1 every binary runs repeat times
    and the fastest run is kept (a failed run is kept in preference, so a
    verification failure is never hidden).

    Returns one dict per run with keys benchmark, class, variant ("seq"/"omp"),
    threads, time_s, mops, verification, speedup (vs the seq run), returncode,
    env, binary and output.
    """
    npb_dir, build_dir = Path(npb_dir), Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    present = set(available_benchmarks(npb_dir))
    rows: list[dict[str, Any]] = []
    for cls in classes:
        for bm in benchmarks:
            if bm not in present:
                print(f"warning: benchmark '{bm}' not found in {npb_dir}, skipped", file=sys.stderr)
                continue
            if verbose:
                print(f"building {bm} class {cls} ...", file=sys.stderr, flush=True)
            ok, log = build(bm, cls, build_dir, npb_dir)
            if not ok:
                rows.append(dict(benchmark=bm, **{"class": cls}, variant="build", threads=None,
                                 time_s=None, mops=None, verification="BUILD FAILED",
                                 speedup=None, returncode=None, env={}, binary=None, output=log))
                continue
            runs: list[tuple[str, int | None]] = [("seq", None)] + [("omp", t) for t in threads]
            seq: dict[str, Any] = {}
            for variant, nthr in runs:
                exe = build_dir / f"{bm}.{cls}.{variant}"
                if verbose:
                    print(f"running {exe.name} threads={nthr or 1} ...", file=sys.stderr, flush=True)
                row = _best_of(exe, nthr, timeout, max(1, repeat))
                if variant == "seq":
                    seq = row
                row.update(benchmark=bm, variant=variant, binary=str(exe))
                row["class"] = cls
                row["threads"] = row["threads"] if row["threads"] is not None else (nthr or 1)
                row["speedup"] = _speedup(seq, row)
                rows.append(row)
    return rows


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """Formats result rows as a fixed-width text table."""
    head = f"{'benchmark':<9} {'class':<5} {'variant':<7} {'threads':>7} {'time s':>9} " \
           f"{'Mop/s':>11} {'verification':<13} {'speedup':>7}"
    lines = [head, "-" * len(head)]

    def num(v: Any, fmt: str) -> str:
        return format(v, fmt) if isinstance(v, (int, float)) else "-"

    for r in rows:
        lines.append(f"{r['benchmark']:<9} {r['class']:<5} {r['variant']:<7} "
                     f"{num(r['threads'], 'd'):>7} {num(r['time_s'], '.2f'):>9} "
                     f"{num(r['mops'], '.2f'):>11} {r['verification']:<13} "
                     f"{num(r['speedup'], '.2f'):>7}")
    return "\n".join(lines)


def write_csv(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    """Writes the result rows (without raw output) as CSV."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "env": " ".join(f"{k}={v}" for k, v in (r.get("env") or {}).items())})


def write_json(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    """Writes the result rows (without raw output) as JSON."""
    with open(path, "w") as f:
        json.dump([{k: r.get(k) for k in FIELDS} for r in rows], f, indent=2)


def _csv_list(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--classes", default="S", help="comma-separated classes (S,W,A,B,C)")
    ap.add_argument("--benchmarks", default=None,
                    help="comma-separated benchmarks (default: all present)")
    ap.add_argument("--threads", default="1,2", help="comma-separated OpenMP thread counts")
    ap.add_argument("--build-dir", default=None, help="build directory (default: a temp dir)")
    ap.add_argument("--npb-dir", default=str(NPB_DIR), help="nas_benchmarks directory")
    ap.add_argument("--timeout", type=float, default=None, help="per-run timeout in seconds")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per binary; the fastest is reported (default 1)")
    ap.add_argument("--csv", default=None, help="write results as CSV")
    ap.add_argument("--json", default=None, help="write results as JSON")
    ap.add_argument("--show-failures", action="store_true", help="print output of failed runs")
    args = ap.parse_args(argv)

    classes = [c.upper() for c in _csv_list(args.classes)]
    bad = [c for c in classes if c not in ("S", "W", "A", "B", "C")]
    if bad:
        ap.error(f"unknown class(es): {', '.join(bad)}")
    npb_dir = Path(args.npb_dir)
    benchmarks = ([b.lower() for b in _csv_list(args.benchmarks)] if args.benchmarks
                  else available_benchmarks(npb_dir))
    threads = [int(t) for t in _csv_list(args.threads)]

    def go(build_dir: str | Path) -> list[dict[str, Any]]:
        return run_native(benchmarks, classes, threads, build_dir, npb_dir,
                          timeout=args.timeout, verbose=True, repeat=args.repeat)

    if args.build_dir:
        rows = go(args.build_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="npb_native_") as tmp:
            rows = go(tmp)

    print(format_table(rows))
    print(f"OpenMP runs: {' '.join(f'{k}={v}' for k, v in OMP_ENV.items())}")
    if args.csv:
        write_csv(rows, args.csv)
    if args.json:
        write_json(rows, args.json)
    failed = [r for r in rows if not is_success(r)]
    for r in failed:
        print(f"FAILED: {r['benchmark']} class {r['class']} {r['variant']} "
              f"threads={r['threads']}: {r['verification']}", file=sys.stderr)
        if args.show_failures:
            print(r.get("output", ""), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
