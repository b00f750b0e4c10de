"""The campaign record: consumes the outcomes of a campaign; produces a JSON-ready summary
(command, seeds, counts of programs and failures per kind, per mode and per family, the
failures themselves) and the human summary printed at the end of a campaign."""
from __future__ import annotations

from collections import Counter
from typing import Any

from .generator import NEW_FAMILIES, OFFLOADED
from .oracle import KINDS, Outcome


def _per_mode(outcomes: list[Outcome], modes: list[str]) -> dict[str, dict[str, int]]:
    table = {m: {k: 0 for k in KINDS} for m in modes}
    for o in outcomes:
        for f in o.failures:
            if f.mode in table:
                table[f.mode][f.kind] += 1
    return {m: {k: n for k, n in row.items() if n} for m, row in table.items()}


def _per_family(outcomes: list[Outcome]) -> dict[str, dict[str, Any]]:
    """Per family: loops generated, programs holding one, and those of them that failed (by
    kind). A failing program holds several families: the counts say where failures occur, the
    minimised regressions say which loop caused them."""
    fams: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        for fam, n in o.families.items():
            row = fams.setdefault(fam, {"loops": 0, "programs": 0, "failed_programs": 0,
                                        "failures": Counter()})
            row["loops"] += n
            row["programs"] += 1
            if o.failures:
                row["failed_programs"] += 1
                row["failures"].update({f.kind for f in o.failures})
    for row in fams.values():
        row["failures"] = dict(row["failures"])
    return dict(sorted(fams.items()))


def build_record(argv: list[str], seed: int, count: int, outcomes: list[Outcome],
                 modes: list[str], device: bool, seconds: float,
                 minimised: dict[int, str], families: list[str]) -> dict[str, Any]:
    """The machine-readable record of one campaign."""
    done = sorted(outcomes, key=lambda o: o.seed)
    kinds = Counter(f.kind for o in done for f in o.failures)
    return {
        "command": argv,
        "seeds": {"first": seed, "count": count, "checked": [o.seed for o in done]
                  if len(done) != count else f"{seed}..{seed + count - 1}"},
        "modes": modes,
        "device": device,
        "families_enabled": families,
        "offloaded_table": OFFLOADED,
        "seconds": round(seconds, 1),
        "programs": len(done),
        "failed_programs": sum(1 for o in done if o.failures),
        "loops": {"device": sum(o.n_device for o in done), "host": sum(o.n_host for o in done)},
        "failures_by_kind": {k: kinds[k] for k in KINDS if kinds[k]},
        # the three the campaign is for, always present
        "mismatches": kinds["mismatch"],
        "bounds_violations": kinds["bounds"],
        "sanitizer_failures": kinds["sanitizer"],
        "per_mode": _per_mode(done, modes),
        "per_family": _per_family(done),
        "failures": [{"seed": o.seed, "kind": f.kind, "mode": f.mode, "detail": f.detail[:600],
                      "families": sorted(o.families), "minimised": minimised.get(o.seed)}
                     for o in done for f in o.failures],
    }


def summary(rec: dict[str, Any]) -> list[str]:
    """The lines printed at the end of a campaign."""
    out = [f"{rec['programs']} programs ({rec['loops']['device']} loops expected on the device, "
           f"{rec['loops']['host']} on the host), {rec['failed_programs']} failed; "
           f"{rec['mismatches']} mismatches, {rec['bounds_violations']} bounds violations, "
           f"{rec['sanitizer_failures']} sanitizer failures ({rec['seconds']:.0f} s)"]
    if rec["failures_by_kind"]:
        out.append("failures by kind: " + ", ".join(f"{k} {n}" for k, n in
                                                    rec["failures_by_kind"].items()))
    for mode, row in rec["per_mode"].items():
        if row:
            out.append(f"  {mode}: " + ", ".join(f"{k} {n}" for k, n in row.items()))
    out.append("families (loops / programs / failed programs):")
    width = max((len(f) for f in rec["per_family"]), default=10)
    for fam, row in rec["per_family"].items():
        where = "device" if OFFLOADED.get(fam) else "host"
        new = "*" if fam in NEW_FAMILIES else " "
        kinds = ", ".join(f"{k} {n}" for k, n in row["failures"].items())
        out.append(f"  {new}{fam:<{width}} {where:<6} {row['loops']:5d} {row['programs']:5d} "
                   f"{row['failed_programs']:5d}  {kinds}")
    return out
