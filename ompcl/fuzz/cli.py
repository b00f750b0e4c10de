"""The campaign command: ``python -m ompcl.fuzz --count N --seed S --jobs J --keep-going``."""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from .oracle import Campaign, Outcome, check, fuzz_one, setup
from .reducer import _minimise_job

ROOT = Path(__file__).resolve().parents[2]
REGRESSIONS = ROOT / "tests" / "fuzz_regressions"

# command line

def probe_device(camp: Campaign) -> bool:
    """Whether the runtime finds an OpenCL device (one tiny translated program)."""
    text = ("/* ompcl-expect: device=1 host=0 */\n#include <stdio.h>\nint a[100];\n"
            "int main(void)\n{\n    int i;\n#pragma omp parallel for\n"
            "    for (i = 0; i < 100; i++)\n"
            "        a[i] = i;\n    printf(\"%d\\n\", a[99]);\n    return 0;\n}\n")
    fail, ran = check(text, camp, ("opencl",))
    return fail is None and ran == 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ompcl.fuzz", description=__doc__)
    ap.add_argument("--count", type=int, default=100, help="programs to generate")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first program")
    ap.add_argument("--jobs", type=int, default=2, help="programs checked in parallel")
    ap.add_argument("--keep-going", action="store_true", help="do not stop at the first failure")
    ap.add_argument("--out", type=Path, default=REGRESSIONS, help="where minimised failures go")
    ap.add_argument("--minimise", type=int, default=3, metavar="K",
                    help="minimise at most K failures per category (0: none)")
    ap.add_argument("--work", type=Path, default=None, help="work directory (default: a temp dir)")
    args = ap.parse_args(argv)
    from tqdm import tqdm

    work = args.work or Path(tempfile.mkdtemp(prefix="ompcl-fuzz-"))
    camp = setup(work)
    camp.device = probe_device(camp)
    if not camp.device:
        print("fuzz: no OpenCL device found: the OpenCL runs are skipped", file=sys.stderr)
    t0 = time.monotonic()
    failures: list[Outcome] = []
    done = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(fuzz_one, args.seed + n, camp) for n in range(args.count)]
        bar = tqdm(total=args.count, unit="prog", file=sys.stderr)
        try:
            for fut in as_completed(futs):
                o = fut.result()
                done += 1
                bar.update(1)
                if o.failure:
                    failures.append(o)
                    raw = work / "failures" / f"fuzz_{o.seed}.c"
                    raw.parent.mkdir(exist_ok=True)
                    raw.write_text(o.text)
                    tqdm.write(f"seed {o.seed}: {o.failure.category}: {o.failure.detail[:300]}",
                               file=sys.stderr)
                    bar.set_postfix(failures=len(failures))
                    if not args.keep_going:
                        for f in futs:
                            f.cancel()
                        break
        finally:
            bar.close()
        picked, per_cat = [], {}
        for o in sorted(failures, key=lambda o: o.seed):
            cat = o.failure.category
            if per_cat.get(cat, 0) < args.minimise:
                per_cat[cat] = per_cat.get(cat, 0) + 1
                picked.append((o, camp, args.out))
        for path in pool.map(_minimise_job, picked):
            print(f"minimised: {path}", file=sys.stderr)
    cats: dict[str, int] = {}
    for o in failures:
        cats[o.failure.category] = cats.get(o.failure.category, 0) + 1
    if failures:
        print(f"unminimised failing programs: {work / 'failures'}", file=sys.stderr)
        for c, n in sorted(cats.items()):
            print(f"  {c}: {n}", file=sys.stderr)
    elif args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{done} programs, {len(failures)} mismatches ({time.monotonic() - t0:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())