"""The program's other source files, as the translator may read them for called functions.

Consumes the main file's path, the include directories and the command's other sources;
produces the candidate files in a stable order. Kept apart from ``library`` (which parses
them) so a translation-cache lookup, which only needs their names and times, does not load
the parser. What a translation learns from them goes through ``ask`` (a question about
their text, recorded with its answer) or ``note_read`` (anything else): ``watched`` collects
both, so a cached translation can be reused while the answers stay the same (PolyBench's
shared ``polybench.c`` asks only whether its callees are defined elsewhere, and is translated
once for all the programs that compile it).
"""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Watch:
    """What code run inside ``watched`` learnt from the program's other sources: the answers
    to ``ask``'s questions, and whether it read them some other way (``read``)."""

    read: bool = False
    answers: dict[tuple[str, str], object] = field(default_factory=dict)


_watches: list[Watch] = []
_texts: dict[tuple[str, int, int], str] = {}


@contextmanager
def watched():
    w = Watch()
    _watches.append(w)
    try:
        yield w
    finally:
        _watches.remove(w)


def note_read() -> None:
    """Another source's content is about to be used in a way ``ask`` does not record."""
    for w in _watches:
        w.read = True


def text_of(path: Path) -> str | None:
    """A source's text (read once per process while its size and time stay), None when it
    cannot be read."""
    try:
        st = os.stat(path)
        key = (str(path), st.st_size, st.st_mtime_ns)
        if key not in _texts:
            _texts[key] = path.read_text(errors="replace")
        return _texts[key]
    except OSError:
        return None


def call_pattern(name: str) -> re.Pattern:
    """``name(``: where a call or a definition of ``name`` could be."""
    return re.compile(rf"\b{re.escape(name)}\s*\(")


def mentions_call(files: list[Path], name: str) -> bool:
    """Whether any file's text has ``name(``."""
    pattern = call_pattern(name)
    return any(pattern.search(t) for t in map(text_of, files) if t is not None)


def defines_with_omp(files: list[Path], name: str) -> bool:
    """Whether a file with an OpenMP directive has text that defines ``name``."""
    pattern = re.compile(rf"\b{re.escape(name)}\s*\([^;{{]*\)\s*\{{")
    return any(re.search(r"#\s*pragma\s+omp\b", t) and pattern.search(t)
               for t in map(text_of, files) if t is not None)


_DEFINITION = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_OMP = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp\b", re.M)
_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case"}


def has_omp_directive(text: str) -> bool:
    """Whether a source's text has a ``#pragma omp`` line."""
    return _OMP.search(text) is not None


def omp_definitions(files: list[Path]) -> set[str]:
    """Names that files with an OpenMP directive have text defining (``name(...) {``)."""
    out: set[str] = set()
    for t in map(text_of, files):
        if t is not None and has_omp_directive(t):
            out |= {m for m in _DEFINITION.findall(t) if m not in _KEYWORDS}
    return out


def calls_any(text: str, names: set[str]) -> bool:
    """Whether ``text`` has ``name(`` for one of ``names`` that it does not define."""
    called = {m for m in _CALL.findall(text) if m not in _KEYWORDS}
    return bool((called & names) - set(_DEFINITION.findall(text)))


_QUESTIONS = {"mentions-call": mentions_call, "defines-with-omp": defines_with_omp}


def ask(question: str, files: list[Path], name: str) -> bool:
    """The answer to a question about the other sources' text, recorded in every watch."""
    answer = _QUESTIONS[question](files, name)
    for w in _watches:
        w.answers[(question, name)] = answer
    return answer


def same_answers(answers: list, files: list[Path]) -> bool:
    """Whether each recorded (question, name, answer) has the same answer for ``files``."""
    return all(_QUESTIONS[q](files, n) == a for q, n, a in answers)


def candidate_sources(main: str, include_dirs: tuple[str, ...] = (),
                      sources: tuple[str, ...] = ()) -> list[Path]:
    """``OMPCL_SOURCES`` if set, else the command's other sources, the main file's directory
    and the include directories (NPB-style trees keep shared code in an include directory);
    the main file and repeats left out."""
    listed = os.environ.get("OMPCL_SOURCES", "")
    if listed:
        files = [Path(p) for p in listed.split(os.pathsep) if p]
    else:
        files = [Path(p) for p in sources]
        for d in (Path(main).resolve().parent, *map(Path, include_dirs)):
            files += sorted(d.glob("*.c")) if d.is_dir() else []
    me, seen, out = Path(main).resolve(), set(), []
    for f in files:
        r = f.resolve()
        if r != me and r not in seen and f.is_file():
            seen.add(r)
            out.append(f)
    return out
