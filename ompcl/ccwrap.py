"""``ompcl cc``: a drop-in for the C compiler in existing builds (``make CC="ompcl cc"``).

Consumes a gcc command line; each ``.c`` input is translated on its own (per-file, the runtime
joins files at run time) into a temporary file of the same name, and the compiler runs on
those, with the runtime's header on the include path and, when linking, the runtime itself.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .diagnostics import Diagnostics
from .frontend.preprocess import CppOptions
from .pipeline import Options, translate
from .runtime import RUNTIME_DIR

_NO_LINK = {"-c", "-S", "-E", "-M", "-MM", "-fsyntax-only"}
_WITH_VALUE = {"-o", "-I", "-D", "-U", "-include", "-iquote", "-isystem", "-x", "-MF", "-MT",
               "-MQ", "-L", "-l"}


def _cpp_options(args: list[str]) -> CppOptions:
    inc, defs, undefs = [], [], []
    it = iter(args)
    for a in it:
        for flag, bucket in (("-I", inc), ("-D", defs), ("-U", undefs)):
            if a == flag:
                bucket.append(next(it, ""))
            elif a.startswith(flag) and len(a) > 2:
                bucket.append(a[2:])
    return CppOptions(tuple(inc), tuple(defs), tuple(undefs))


def _sources(args: list[str]) -> list[int]:
    """Indexes of the C source operands in a gcc command line."""
    out, skip = [], False
    for k, a in enumerate(args):
        if skip:
            skip = False
        elif a in _WITH_VALUE:
            skip = True
        elif a.endswith(".c") and not a.startswith("-"):
            out.append(k)
    return out


def compile_command(args: list[str], tmp: str, cc: str = "gcc") -> tuple[list[str], Diagnostics]:
    """Translate the sources of a gcc command line into ``tmp``; returns the command to run on
    the translated files, and the diagnostics."""
    cpp = _cpp_options(args)
    diags = Diagnostics()
    sources = set(_sources(args))
    new: list[str] = []
    for k, arg in enumerate(args):
        if k not in sources:
            new.append(arg)
            continue
        src = Path(arg)
        t = translate(str(src), Options(cpp))
        diags.remarks += t.remarks
        out = Path(tmp) / src.name  # same base name: gcc -c names objects after it
        out.write_text(t.host_source)
        # the user's quoted includes are found beside the original file
        new += ["-iquote", str(src.resolve().parent), str(out)]
    cmd = [cc, f"-I{RUNTIME_DIR}", *new]
    if not _NO_LINK & set(args):
        cmd += [str(RUNTIME_DIR / "ompcl_rt.c"), "-ldl"]
    return cmd, diags


def run_cc(args: list[str], cc: str | None = None) -> int:
    """Run a compiler command line through ompcl; returns the compiler's exit status."""
    with tempfile.TemporaryDirectory(prefix="ompcl-cc-") as tmp:
        cmd, diags = compile_command(args, tmp, cc or os.environ.get("OMPCL_CC", "gcc"))
        for m in diags.remarks:
            if m.kind != "remark" or m.missed:
                print(m.format(), file=sys.stderr)
        return subprocess.run(cmd).returncode
