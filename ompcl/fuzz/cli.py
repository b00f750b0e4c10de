"""The campaign command: ``python -m ompcl.fuzz --count N --seed S --jobs J --keep-going
--record FILE.json [--asan]``.

Consumes the command line; generates and checks programs S .. S+N-1 in parallel (tqdm progress
bar), minimises a few failures per category into tests/fuzz_regressions/, prints a summary and
writes the campaign's record (``record.build_record``).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path

from .generator import COVERAGE_FAMILIES, KNOWN_FAMILIES, NEW_FAMILIES
from .oracle import Campaign, Outcome, fuzz_one, probe_device, setup
from .record import build_record, summary
from .reducer import minimise_job

ROOT = Path(__file__).resolve().parents[2]
REGRESSIONS = ROOT / "tests" / "fuzz_regressions"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m ompcl.fuzz", description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=100, help="programs to generate")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first program")
    ap.add_argument("--jobs", type=int, default=2, help="programs checked in parallel")
    ap.add_argument("--keep-going", action="store_true", help="do not stop at the first failure")
    ap.add_argument("--asan", action="store_true",
                    help="also build the translation with -fsanitize=address,undefined and run "
                         "it on the device with copying buffers")
    ap.add_argument("--families", default="all",
                    help="comma-separated new loop families to generate (default: all; 'none': "
                         f"the old shapes only; 'coverage': {','.join(COVERAGE_FAMILIES)}; "
                         "these and 'folds' are not in "
                         f"'all'); known: {','.join(KNOWN_FAMILIES)}")
    ap.add_argument("--record", type=Path, default=None, metavar="FILE.json",
                    help="write the campaign's record (JSON) there")
    ap.add_argument("--out", type=Path, default=REGRESSIONS, help="where minimised failures go")
    ap.add_argument("--minimise", type=int, default=3, metavar="K",
                    help="minimise at most K failures per category (0: none)")
    ap.add_argument("--minimise-budget", type=float, default=240.0, metavar="SECONDS",
                    help="time spent minimising one failure at most")
    ap.add_argument("--work", type=Path, default=None, help="work directory (default: a temp dir)")
    return ap.parse_args(argv)


def _families(spec: str) -> list[str]:
    if spec == "all":
        return list(NEW_FAMILIES)
    if spec == "none":
        return []
    fams = [g for f in spec.split(",") if f
            for g in (COVERAGE_FAMILIES if f == "coverage" else (f,))]
    unknown = set(fams) - set(KNOWN_FAMILIES)
    if unknown:
        raise SystemExit(f"fuzz: unknown families: {', '.join(sorted(unknown))}")
    return fams


def run_campaign(args: argparse.Namespace, camp: Campaign, families: list[str],
                 pool: ProcessPoolExecutor) -> list[Outcome]:
    """Check every seed; report failures as they come; stop at the first unless keep-going."""
    from tqdm import tqdm
    outcomes: list[Outcome] = []
    futs: list[Future] = [pool.submit(fuzz_one, args.seed + n, camp, families)
                          for n in range(args.count)]
    nfail = 0
    with tqdm(total=args.count, unit="prog", file=sys.stderr,
              disable=not sys.stderr.isatty()) as bar:  # a log gets no bar
        for fut in as_completed(futs):
            o = fut.result()
            outcomes.append(o)
            bar.update(1)
            if not o.failures:
                continue
            nfail += 1
            raw = camp.work / "failures" / f"fuzz_{o.seed}.c"
            raw.parent.mkdir(exist_ok=True)
            raw.write_text(o.text)
            for f in o.failures:
                tqdm.write(f"seed {o.seed}: {f.category}: {f.detail[:300]}", file=sys.stderr)
            bar.set_postfix(failed=nfail)
            if not args.keep_going:
                for f in futs:
                    f.cancel()
                break
    return outcomes


def minimise_some(args: argparse.Namespace, camp: Campaign, outcomes: list[Outcome],
                  pool: ProcessPoolExecutor) -> dict[int, str]:
    """Minimise the first K failing programs of each first-failure category."""
    picked, per_cat = [], {}
    for o in sorted(outcomes, key=lambda o: o.seed):
        if o.failure is None or o.failure.kind == "generator":
            continue
        cat = o.failure.category
        if per_cat.get(cat, 0) < args.minimise:
            per_cat[cat] = per_cat.get(cat, 0) + 1
            picked.append((o, camp, args.out, args.minimise_budget))
    done = {}
    for (o, *_), path in zip(picked, pool.map(minimise_job, picked)):
        print(f"minimised: {path}", file=sys.stderr)
        done[o.seed] = str(path)
    return done


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    families = _families(args.families)
    work = args.work or Path(tempfile.mkdtemp(prefix="ompcl-fuzz-"))
    camp = setup(work, asan=args.asan)
    camp.device = probe_device(camp)
    if not camp.device:
        print("fuzz: no OpenCL device found: the OpenCL runs are skipped", file=sys.stderr)
    t0 = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        outcomes = run_campaign(args, camp, families, pool)
        minimised = minimise_some(args, camp, outcomes, pool)
    modes = [m for m in camp.modes if camp.device or not m.startswith(("opencl", "asan"))]
    rec = build_record(["python", "-m", "ompcl.fuzz", *(sys.argv[1:] if argv is None else argv)],
                       args.seed, args.count, outcomes, modes, camp.device,
                       time.monotonic() - t0, minimised, families)
    if args.record:
        args.record.write_text(json.dumps(rec, indent=1) + "\n")
    failed = [o for o in outcomes if o.failures]
    if failed:
        print(f"unminimised failing programs: {work / 'failures'}", file=sys.stderr)
    elif args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(summary(rec)))
    return 1 if failed else 0
