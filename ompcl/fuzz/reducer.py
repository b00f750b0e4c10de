"""Reducer (stage 3 of the fuzzer): greedy minimisation of a failing program. Consumes a program
and its failure; produces a smaller program that fails the same way, saved into
tests/fuzz_regressions/."""
from __future__ import annotations

import re
import time
from pathlib import Path

from .generator import BODY_MARK, END_MARK
from .oracle import MODES, Campaign, Failure, Outcome, check

# minimisation

def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def unit_end(lines: list[str], i: int) -> int:
    """End (exclusive) of the statement starting at line i: pragmas, the statement, the lines
    indented deeper than it (pragmas count as part of what follows) and its closing brace."""
    j = i
    while j < len(lines) and lines[j].startswith("#pragma"):
        j += 1
    if j >= len(lines):
        return j
    ind, k = _indent(lines[j]), j + 1
    while k < len(lines) and (lines[k].startswith("#pragma") or not lines[k].strip()
                              or _indent(lines[k]) > ind):
        k += 1
    while k > j + 1 and lines[k - 1].startswith("#pragma"):
        k -= 1
    if lines[j].rstrip().endswith("{") and k < len(lines) and lines[k].strip() == "}" \
            and _indent(lines[k]) == ind:
        k += 1
    return k


def recount(text: str) -> str:
    """Recompute the device/host counts of the metadata line from the program's pragmas."""
    lines = text.split("\n")
    dev = host = 0
    for i, ln in enumerate(lines):
        if re.match(r"#pragma omp parallel\b", ln):
            unit = "\n".join(lines[i:unit_end(lines, i)])
            if "critical" in unit or "atomic" in unit:
                host += 1
            else:
                dev += 1
    lines[0] = re.sub(r"device=\d+ host=\d+", f"device={dev} host={host}", lines[0])
    return "\n".join(lines)


def candidates(lines: list[str]):
    """Smaller variants of the program: statements deleted, pragmas dropped, loops unwrapped,
    clauses whose variable is no longer used removed."""
    try:
        lo = next(i for i, ln in enumerate(lines) if BODY_MARK in ln) + 1
    except StopIteration:
        return
    hi = next((i for i, ln in enumerate(lines) if ln.strip().startswith("free(")), len(lines) - 3)
    for i in range(lo, hi):
        ln = lines[i]
        if ln.strip() in ("}", "{", "") or END_MARK in ln:
            continue
        if i > lo and lines[i - 1].startswith("#pragma") and not ln.startswith("#pragma"):
            continue
        end = unit_end(lines, i)
        prev = i - 1
        while prev > 0 and lines[prev].startswith("#pragma"):
            prev -= 1
        body_of_header = (not lines[prev].rstrip().endswith((";", "{", "}", "*/"))
                          and _indent(lines[prev]) < _indent(ln))
        if not body_of_header:  # never leave a for/if/else without its statement
            yield lines[:i] + lines[end:]
        if ln.startswith("#pragma omp parallel"):
            j = i
            while j < end and lines[j].startswith("#pragma"):
                j += 1
            rest = [x for x in lines[j:end] if not x.startswith("#pragma omp for")]
            yield lines[:i] + rest + lines[end:]
            for cl in re.findall(r"\b(?:reduction|private|lastprivate|firstprivate)\([^)]*\)", ln):
                names = re.findall(r"\w+", cl.split("(", 1)[1].split(":")[-1])
                body = "\n".join(lines[j:end])
                if not any(re.search(rf"\b{n}\b", body) for n in names):
                    yield lines[:i] + [ln.replace(" " + cl, "")] + lines[i + 1:]
        elif ln.strip().startswith("for (t ") and ln.rstrip().endswith("{"):
            inner = [x if x.startswith("#") else x[4:] for x in lines[i + 1:end - 1]]
            yield lines[:i] + inner + lines[end:]


def minimise(text: str, fail: Failure, camp: Campaign, budget_s: float = 240.0) -> str:
    """Greedy deletion while the program stays valid and fails the same way."""
    mode = fail.category.split(":")[-1]
    modes = (mode,) if mode in MODES else ("opencl",) if fail.category.startswith(
        ("placement:opencl", "stats")) else MODES if fail.category.startswith("exit") else ()
    if fail.category.startswith(("verdict", "translate", "host-build", "write")):
        modes = ()
    deadline = time.monotonic() + budget_s
    lines = text.split("\n")
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for cand in candidates(lines):
            if time.monotonic() > deadline:
                break
            ctext = recount("\n".join(cand))
            if any(len(re.findall(rf"\b{f}\(", ctext)) < 2
                   for f in re.findall(r"static void (kf\d+)\(", ctext)):
                continue  # a helper whose region would never run
            f, _ = check(ctext, camp, modes)
            if f is not None and f.category == fail.category:
                lines, progress = ctext.split("\n"), True
                break
    return "\n".join(lines)


def save(text: str, seed: int, fail: Failure, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    lines = text.split("\n")
    detail = fail.detail.replace("*/", "* /").replace("\n", " ")[:300]
    lines[1] = f"/* fuzz seed {seed}: {fail.category}: {detail} */"
    path = out / f"fuzz_{seed}.c"
    path.write_text("\n".join(lines))
    return path


def _minimise_job(args: tuple[Outcome, Campaign, Path]) -> Path:
    o, camp, out = args
    assert o.failure is not None
    return save(minimise(o.text, o.failure, camp), o.seed, o.failure, out)


# ---------------------------------------------------------------------------------------------