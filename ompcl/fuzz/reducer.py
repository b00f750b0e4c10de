"""Reducer (stage 3 of the fuzzer): greedy minimisation of a failing program.

Consumes a generated program and a predicate (``reduce``), or a program and the oracle's failure
(``minimise``); produces a smaller program that still fails the same way, with its metadata
recounted from the loop markers. ``save`` writes it into tests/fuzz_regressions/.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .generator import BODY_MARK, END_MARK, LOOP_MARK, recount
from .oracle import Campaign, Failure, Outcome, check

CLAUSE = re.compile(r"\b(?:reduction|private|lastprivate|firstprivate|shared|copyin)\([^)]*\)")
HELPER = re.compile(r"static void ((?:kf|of)\d+)\(")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def is_directive(line: str) -> bool:
    """A pragma or a loop marker: both belong to the statement that follows."""
    return line.startswith("#pragma") or LOOP_MARK.match(line) is not None


def unit_end(lines: list[str], i: int) -> int:
    """End (exclusive) of the statement starting at line i: directives, the statement, the lines
    indented deeper than it (directives count as part of what follows) and its closing brace."""
    j = i
    while j < len(lines) and is_directive(lines[j]):
        j += 1
    if j >= len(lines):
        return j
    ind, k = _indent(lines[j]), j + 1
    while k < len(lines) and (is_directive(lines[k]) or not lines[k].strip()
                              or _indent(lines[k]) > ind):
        k += 1
    while k > j + 1 and is_directive(lines[k - 1]):
        k -= 1
    if lines[j].rstrip().endswith("{") and k < len(lines) and lines[k].strip() == "}" \
            and _indent(lines[k]) == ind:
        k += 1
    return k


def _is_body_of_header(lines: list[str], i: int) -> bool:
    """Whether line i is the only statement of a for/if/else above it (never delete that)."""
    prev = i - 1
    while prev > 0 and is_directive(lines[prev]):
        prev -= 1
    return (not lines[prev].rstrip().endswith((";", "{", "}", "*/"))
            and _indent(lines[prev]) < _indent(lines[i]))


def candidates(lines: list[str]) -> Iterator[list[str]]:
    """Smaller variants of the program: statements deleted, parallel regions unwrapped into
    plain code, clauses whose variable is no longer used removed, time loops unrolled once."""
    try:
        lo = next(i for i, ln in enumerate(lines) if BODY_MARK in ln) + 1
    except StopIteration:
        return
    hi = next((i for i, ln in enumerate(lines) if ln.strip().startswith("free(")), len(lines) - 3)
    for i in range(lo, hi):
        ln = lines[i]
        if ln.strip() in ("}", "{", "") or END_MARK in ln:
            continue
        if i > lo and is_directive(lines[i - 1]):
            continue  # part of the directive's statement
        end = unit_end(lines, i)
        if not _is_body_of_header(lines, i) and not _declares_used(lines, i, lo, hi):
            yield lines[:i] + lines[end:]
        j = i
        while j < end and is_directive(lines[j]):
            j += 1
        par = next((k for k in range(i, j) if lines[k].startswith("#pragma omp parallel")), None)
        if par is not None:
            rest = [x for x in lines[j:end]
                    if not x.startswith("#pragma omp for") and not LOOP_MARK.match(x)]
            yield lines[:i] + rest + lines[end:]
            body = "\n".join(lines[j:end])
            for cl in CLAUSE.findall(lines[par]):
                names = re.findall(r"\w+", cl.split("(", 1)[1].split(":")[-1])
                if not any(re.search(rf"\b{n}\b", body) for n in names):
                    yield lines[:par] + [lines[par].replace(" " + cl, "")] + lines[par + 1:]
        elif ln.strip().startswith("for (t ") and ln.rstrip().endswith("{"):
            inner = [x if x.startswith(("#", "/*")) else x[4:] for x in lines[i + 1:end - 1]]
            yield lines[:i] + inner + lines[end:]


_DECL = re.compile(r"^\s*(?:const\s+)?(?:unsigned\s+)?(?:double|float|int|long|char|short)\s+"
                   r"(\w+)\s*=[^;]*;\s*$")


def _declares_used(lines: list[str], i: int, lo: int, hi: int) -> bool:
    """Line ``i`` declares a variable that another line of the body uses (deleting it alone
    would not compile)."""
    m = _DECL.match(lines[i])
    return bool(m) and any(re.search(rf"\b{m[1]}\b", ln) for k, ln in enumerate(lines[lo:hi], lo)
                           if k != i)


def _helpers_called(text: str) -> bool:
    """Every helper function (kf*, of*) is still called: its loops would never run otherwise."""
    return all(len(re.findall(rf"\b{f}\(", text)) >= 2 for f in HELPER.findall(text))


def reduce(text: str, still_fails: Callable[[str], bool], budget_s: float = 240.0) -> str:
    """Greedy deletion: take the first smaller candidate for which ``still_fails`` holds,
    until none does or the time budget is spent."""
    deadline = time.monotonic() + budget_s
    lines = text.split("\n")
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for cand in candidates(lines):
            if time.monotonic() > deadline:
                break
            ctext = recount("\n".join(cand))
            if _helpers_called(ctext) and still_fails(ctext):
                lines, progress = ctext.split("\n"), True
                break
    return "\n".join(lines)


def _same(f: Failure, g: Failure) -> bool:
    if f.category != g.category:
        return False
    if f.kind == "translate":  # the same exception type
        return f.detail.split(":", 1)[0] == g.detail.split(":", 1)[0]
    return True


def minimise(text: str, fail: Failure, camp: Campaign, budget_s: float = 240.0) -> str:
    """``reduce`` with the oracle: candidates must stay valid (gcc, deterministic) and fail
    the same way (kind and mode) when run in that mode only."""
    if fail.kind == "generator":
        return text  # the generator's own bug: nothing of ompcl to minimise
    modes = (fail.mode,) if fail.mode in camp.modes else ()

    def still_fails(cand: str) -> bool:
        v = check(cand, camp, modes, strict=False)
        return any(_same(f, fail) for f in v.failures)
    return reduce(text, still_fails, budget_s)


def save(text: str, seed: int, fail: Failure, out: Path) -> Path:
    """Write a minimised program as ``fuzz_<seed>.c`` with its failure in the second line."""
    out.mkdir(parents=True, exist_ok=True)
    lines = text.split("\n")
    detail = fail.detail.replace("*/", "* /").replace("\n", " ")[:300]
    lines[1] = f"/* fuzz seed {seed}: {fail.category}: {detail} */"
    path = out / f"fuzz_{seed}.c"
    path.write_text("\n".join(lines))
    return path


def minimise_job(args: tuple[Outcome, Campaign, Path, float]) -> Path:
    """Minimise and save one campaign failure (a process-pool job)."""
    o, camp, out, budget = args
    assert o.failure is not None
    return save(minimise(o.text, o.failure, camp, budget), o.seed, o.failure, out)
