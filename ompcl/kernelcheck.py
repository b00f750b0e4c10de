"""The kernel program checked by an OpenCL C front end before it is shipped.

A kernel program is built at run time, all of it at once: one kernel the device's compiler
rejects (a construct ompcl's analyses let through and OpenCL C lacks) would send every loop
of the file to the host, silently. So the translation compiles the program for syntax and
types with clang's OpenCL front end (the one PoCL and most vendors build on), in the CPU
shape and in the bounds-checked GPU shape, and names the kernels it rejects; their loops
then stay on the host with a remark, and the others keep their kernels.

It reads the compiler's messages and finds the kernels in the program's text (what the
messages point at), so it sits beside the pipeline, not in ``codegen`` (whose passes work on
trees). Consumes the kernel program's text; produces ``{kernel name: first error}`` (empty when
clang accepts it, or when no clang is installed or ``OMPCL_KERNEL_CHECK=0``: the run-time
build stays the safety net).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

#: the build options of the shapes whose text differs (see kernels.cl.j2)
CONFIGS = (("-DOMPCL_BLOCKED", "-DOMPCL_LANES=4"), ("-DOMPCL_BOUNDS_CHECK",))
_ERROR = re.compile(r"^<stdin>:(\d+):\d+: error: (.*)$", re.M)
_KERNEL = re.compile(r"^__kernel void (\w+)\(", re.M)
_FUNCTION = re.compile(r"^(?!__kernel)[A-Za-z_][\w \t*]*?\b(\w+)\((?![^)]*\)\s*;)", re.M)
_NAMES = re.compile(r"\b[A-Za-z_]\w*\b")


def compiler() -> str | None:
    """The clang that checks kernels, or None (none installed, or the check turned off)."""
    if os.environ.get("OMPCL_KERNEL_CHECK", "1").strip().lower() in ("0", "off", "no"):
        return None
    return shutil.which("clang-15") or shutil.which("clang")


def rejected(source: str) -> dict[str, str]:
    """The kernels of ``source`` that clang's OpenCL C front end rejects, with the first
    error each meets (an error outside the kernels counts for every kernel that reaches it
    through the functions it calls, or for all of them)."""
    cc = compiler()
    if cc is None or "__kernel" not in source:
        return {}
    errors: list[tuple[int, str]] = []
    procs = [subprocess.Popen([cc, "-x", "cl", "-cl-std=CL1.2", "-fsyntax-only", "-Xclang",
                               "-finclude-default-header", "-w", *opts, "-"],
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for opts in CONFIGS]
    for p in procs:
        try:
            _, err = p.communicate(source, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            p.kill()
            return {}  # no verdict: the run-time build decides
        errors += [(int(m.group(1)), m.group(2)) for m in _ERROR.finditer(err)]
    return _blame(source, errors) if errors else {}


def _blame(source: str, errors: list[tuple[int, str]]) -> dict[str, str]:
    """Kernel name -> the first error in it or in a function it calls."""
    lines = source.count("\n") + 1
    starts = [(source.count("\n", 0, m.start()) + 1, m.group(1), "kernel")
              for m in _KERNEL.finditer(source)]
    starts += [(source.count("\n", 0, m.start()) + 1, m.group(1), "function")
               for m in _FUNCTION.finditer(source)]
    starts.sort()
    spans = [(a, b[0] if b else lines + 1, name, kind)
             for (a, name, kind), b in zip(starts, starts[1:] + [None])]
    text = source.split("\n")
    mentions = {name: set(_NAMES.findall("\n".join(text[a - 1:b - 1])))
                for a, b, name, _ in spans}
    kernels = [name for _, _, name, kind in spans if kind == "kernel"]
    out: dict[str, str] = {}
    for line, message in errors:
        owner = next((s for s in spans if s[0] <= line < s[1]), None)
        if owner is None:  # the program's prelude: records, helpers
            hit = set(kernels)
        elif owner[3] == "kernel":
            hit = {owner[2]}
        else:
            hit = {k for k in kernels if owner[2] in _reached(k, mentions)}
        for k in hit:
            out.setdefault(k, message)
    return out


def _reached(kernel: str, mentions: dict[str, set[str]]) -> set[str]:
    """The functions ``kernel`` calls, directly or through one another."""
    seen, todo = set(), [kernel]
    while todo:
        for n in mentions.get(todo.pop(), ()):
            if n in mentions and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen
