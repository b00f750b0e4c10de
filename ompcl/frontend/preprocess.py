"""Preprocessing stage: a user's ``.c`` file -> preprocessed text with line markers.

The system ``gcc -E`` runs with ``-fopenmp`` (so ``_OPENMP`` code and macros inside OpenMP
pragmas are expanded) and with ``__GNUC__`` undefined so glibc headers stay within what
pycparser parses. A small prelude covers the GNU spellings that remain.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import InputError, PreprocessError, SourceLoc
from .sourcemap import SourceMap, combined_markers, marker_name
from .textscan import MARKER

PRELUDE = Path(__file__).with_name("prelude.h")
_GCC_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
                       r"(?:fatal )?error:\s*(?P<msg>.*)$", re.M)


@dataclass(frozen=True)
class CppOptions:
    """What the user passes to the preprocessor: ``-I``, ``-D``, ``-U`` and the command."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    cpp: str = field(default_factory=lambda: os.environ.get("OMPCL_CPP", "gcc"))
    #: the build's flags that set predefined macros (``-std=``, ``-ansi``, ``-O``,
    #: ``-ffast-math``): the code is read as the compiler reads it
    dialect: tuple[str, ...] = ()
    #: the build's target flags (``-march=``, ``-m...``): only the check of what the compiler
    #: reads otherwise sees them (``compiler_divergence``); ompcl reads the baseline target
    machine: tuple[str, ...] = ()

    def flags(self) -> list[str]:
        return ([*self.dialect] + [f"-I{d}" for d in self.include_dirs]
                + [f"-D{d}" for d in self.defines] + [f"-U{u}" for u in self.undefines])


def read_source(path: str) -> str:
    """Read a user's C file, or raise InputError with a clear message."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: No such file or directory")
    if p.is_dir():
        raise InputError(f"{path}: is a directory")
    data = p.read_bytes()
    if b"\0" in data:
        raise InputError("not a C source file (binary data)", SourceLoc(path, 1, 1))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


_memo: dict[tuple[str, CppOptions], str] | None = None


@contextmanager
def reuse_preprocessed():
    """Within this block, preprocess each (file, options) once: one command's translation
    reads a file's preprocessed text for its cache key, for parsing, and for its callees."""
    global _memo
    outer, _memo = _memo, ({} if _memo is None else _memo)
    try:
        yield
    finally:
        _memo = outer


def preprocess(path: str, opts: CppOptions | None = None) -> str:
    """Run the C preprocessor on ``path``; raise PreprocessError pointing into the user file."""
    opts = CppOptions() if opts is None else opts  # OMPCL_CPP as of this call
    if _memo is not None and (path, opts) in _memo:
        return _memo[path, opts]
    text = _preprocess(path, opts)
    if _memo is not None:
        _memo[path, opts] = text
    return text


def _preprocess(path: str, opts: CppOptions) -> str:
    read_source(path)
    proc = _run_cpp(opts, [path])
    if proc.returncode != 0:
        raise _cpp_error(proc.stderr, path)
    return proc.stdout


def _run_cpp(opts: CppOptions, args: list[str], text: str | None = None
             ) -> subprocess.CompletedProcess:
    """``gcc -E`` as ompcl reads C (``__GNUC__`` undefined, the prelude) on ``args``, with
    ``text`` on its standard input."""
    if shutil.which(opts.cpp) is None:
        raise InputError(f"C preprocessor '{opts.cpp}' not found (set OMPCL_CPP)")
    cmd = [opts.cpp, "-E", "-fopenmp", "-U__GNUC__", "-include", str(PRELUDE), *opts.flags(),
           *args]
    proc = subprocess.run(cmd, input=text, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0 and "#error" in proc.stderr:
        # a header that insists on GNU C (tgmath.h): read as the compiler reads it
        gnu = subprocess.run([c for c in cmd if c != "-U__GNUC__"], input=text,
                             capture_output=True, text=True, errors="replace")
        proc = gnu if gnu.returncode == 0 else proc
    return proc


def encoding_of(path: str) -> str:
    """The encoding ompcl reads a file with (``read_source``): UTF-8, else Latin-1."""
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return "latin-1"


def preprocess_text(text: str, path: str, opts: CppOptions | None = None,
                    source_map: SourceMap | None = None) -> str:
    """Preprocess ``text`` as if it were the file ``path`` (its line markers and quoted
    includes as for that file); for checking a rewritten version of a user's file. With the
    ``source_map`` of the includes inlined into ``text``, the markers of its own lines count
    the lines of ``text`` (``sourcemap.combined_markers``)."""
    opts = CppOptions() if opts is None else opts
    here = os.path.dirname(path) or "."   # spelled as for the file: the includes it finds too
    proc = _run_cpp(opts, ["-iquote", here, "-x", "c", "-"],
                    f'#line 1 "{marker_name(path)}"\n' + text)
    if proc.returncode != 0:
        raise _cpp_error(proc.stderr, path)
    return proc.stdout if source_map is None else combined_markers(proc.stdout, source_map)


#: the compiler's own macros that ompcl's reading leaves undefined (``-U__GNUC__``)
_COMPILER_TEST = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b.*\b__(?:GNUC|AVX|SSE|FMA|"
                            r"ARM|MMX|BMI|POPCNT|F16C|x86_64|aarch64)", re.M)


def _user_lines(text: str) -> dict[tuple[str, int], str]:
    """(file, line) -> the tokens of that line, for the lines of files that are not system
    headers, in preprocessed ``text``."""
    out: dict[tuple[str, int], str] = {}
    file, line, system, systems = "", 0, False, set()
    for raw in text.split("\n"):
        m = MARKER.match(raw)
        if m:  # a marker without flags keeps its file's kind (inside a macro expansion)
            line, file = int(m[1]), m[2]
            if " 3" in m[3]:
                systems.add(file)
            system = file in systems
            continue
        if not system and raw.strip():
            out[file, line] = " ".join(raw.split())
        line += 1
    return out


def compiler_divergence(path: str, opts: CppOptions, text: str) -> frozenset[tuple[str, int]]:
    """The lines of the user's own files (``path`` and the headers it includes that are not
    system headers) whose code differs between ompcl's reading (``text``: ``__GNUC__``
    undefined, the baseline target) and the host compiler's; none unless one of those files
    tests ``__GNUC__`` or a target macro."""
    mine = _user_lines(text)
    tests = False
    for file in {f for f, _ in mine}:
        try:
            tests = tests or bool(_COMPILER_TEST.search(Path(file).read_text(errors="replace")))
        except OSError:
            continue
    if not tests:
        return frozenset()
    cmd = [opts.cpp, "-E", "-fopenmp", *opts.machine, "-include", str(PRELUDE), *opts.flags(),
           path]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if proc.returncode != 0:
        return frozenset(mine)  # the compiler reads it otherwise still
    theirs = _user_lines(proc.stdout)
    return frozenset(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))


def _cpp_error(stderr: str, path: str) -> PreprocessError:
    m = _GCC_DIAG.search(stderr)
    if not m:
        text = stderr.strip().splitlines()[-1] if stderr.strip() else "preprocessing failed"
        return PreprocessError(text, SourceLoc(path, 1, 1))
    loc = SourceLoc(m["file"], int(m["line"]), int(m["col"] or 1))
    return PreprocessError(m["msg"], loc)


def host_compiler_accepts(path: str, opts: CppOptions | None = None) -> bool:
    """True when the host C compiler accepts the file (so a parse failure is ompcl's limit,
    not a user error)."""
    opts = CppOptions() if opts is None else opts
    cmd = [opts.cpp, "-fsyntax-only", "-fopenmp", "-w", *opts.flags(), path]
    return subprocess.run(cmd, capture_output=True).returncode == 0
