"""Driver stage 2b: one compiler command over several C sources, as one compile per source
(run side by side, and beside the translation of the next source), then a link.

Consumes a classified ``Command``; produces, where that is exactly what the compiler would do
itself, the per-source compile commands and the link command that replace it. gcc and clang
compile each source of ``cc a.c b.c -o app`` on its own into a temporary object and link the
objects in the sources' places: split that way, the executable comes out byte for byte the
same. A command with an argument whose effect could differ (dependency files,
``-save-temps``, LTO, profiles, dump files, ``-x``, response files, an option this module
does not know) is not split: it runs as one compiler command, as before.
"""
from __future__ import annotations

import os
import re

from .args import Command

#: options that only the link reads (left out of the per-source compiles: clang warns that
#: they are unused there; gcc's objects are the same without them)
_LINK_FLAGS = frozenset("""
    -shared -pie -no-pie -static-pie -static -r -s -rdynamic -static-libgcc -nostdlib
    -nodefaultlibs -nostartfiles -nolibc
    """.split())
_LINK_WITH_VALUE = frozenset("-l -L -u -T -z -e -Xlinker".split())
_LINK_PREFIXES = ("-l", "-L", "-Wl,", "-fuse-ld=")
#: options that act on each source alike, whether the compiler sees one source or several
_BOTH_WITH_VALUE = frozenset("""
    -I -D -U -include -imacros -iquote -isystem -idirafter -isysroot --sysroot -Xassembler
    --param -B
    """.split())
_BOTH_FLAGS = frozenset("-c -w -ansi -pthread -pipe -nostdinc -H -Q".split())
_BOTH_PREFIXES = ("-O", "-g", "-f", "-m", "-W", "-D", "-U", "-I", "-B", "-std=", "-pedantic",
                  "--param=", "--sysroot=", "-isystem", "-iquote", "-idirafter")
#: among those, what is not so: files named after the output or the source (dependencies,
#: dumps, profiles, coverage, stack usage, optimisation records, split debug info), LTO
#: (objects that are not code yet), compare-debug (compiles twice), plugins
_UNSAFE = re.compile(r"""^(
      -Wp, | -M | -gsplit-dwarf | -fdump | -flto(?!-partition) | -ffat-lto | -fprofile
    | -fauto-profile | -fbranch-probabilities | -ftest-coverage | -fcreate-profile
    | -fstack-usage | -fcallgraph-info | -fsave-optimization-record | -fopt-info.*=
    | -fcompare-debug | -fdiagnostics-format | -fplugin | -fcoverage
)""", re.X)
#: operands that only the link reads
_LINKER_INPUT = re.compile(r"\.(o|a|so|lo|obj)(\.\d+)*$")


def _roles(cmd: Command) -> list[str] | None:
    """What each argument is for: ``source``, ``input`` (read by the link), ``link`` (an
    option only the link reads, or its value), ``output`` (``-o`` and its value) or ``both``;
    None when some argument is not known to act alike on a split command."""
    roles: list[str] = []
    sources, value = set(cmd.sources), ""
    for k, a in enumerate(cmd.args):
        if value:
            roles.append(value)
            value = ""
        elif k in sources:
            roles.append("source")
        elif not a.startswith("-") or a == "-":
            if not _LINKER_INPUT.search(a):
                return None
            roles.append("input")
        elif a == "-o" or a in _LINK_WITH_VALUE or a in _BOTH_WITH_VALUE:
            value = "output" if a == "-o" else "link" if a in _LINK_WITH_VALUE else "both"
            roles.append(value)
        elif _UNSAFE.match(a):
            return None
        elif a.startswith("-o"):
            roles.append("output")
        elif a in _LINK_FLAGS or a.startswith(_LINK_PREFIXES):
            roles.append("link")
        elif a in _BOTH_FLAGS or a.startswith(_BOTH_PREFIXES):
            roles.append("both")
        else:
            return None
    return None if value else roles


def separable(cmd: Command) -> bool:
    """Whether ``cmd`` compiles two or more C sources (and links them, or not) in a way that
    one compile per source, and a link of their objects, reproduces exactly."""
    if cmd.mode not in ("link", "compile") or cmd.expanded or len(cmd.sources) < 2:
        return False
    roles = _roles(cmd)
    if roles is None:
        return False
    if cmd.mode == "link":
        return True
    # -c: linker inputs are unused (gcc warns once per command); -c -o with several sources
    # is the compiler's error; two sources of one base name write one object, in turn
    objects = [os.path.splitext(os.path.basename(cmd.args[k]))[0] for k in cmd.sources]
    return not ("input" in roles or "output" in roles) and len(set(objects)) == len(objects)


def compile_args(cmd: Command, index: int, source: str, obj: str | None) -> list[str]:
    """The arguments that compile the source at ``index`` alone (as ``source``: its
    translation or itself): no other source, nothing only the link reads, no ``-o``; ``-o
    obj`` when the command links (else the compiler names the object as it would have)."""
    roles = _roles(cmd)
    out = [source if k == index else a for k, (a, role) in enumerate(zip(cmd.args, roles))
           if k == index or role == "both"]
    if cmd.mode == "link":
        out += ["-c", "-o", obj]
    return out


def link_args(cmd: Command, objects: dict[int, str]) -> list[str]:
    """The command's arguments with each source replaced by its object, in its place."""
    return [objects.get(k, a) for k, a in enumerate(cmd.args)]


def driver_message(compiler: tuple[str, ...], messages: str) -> bool:
    """Whether the compiler driver itself said something (``gcc: warning: ...``): it says it
    once per command, so per-source runs could say it several times."""
    names = {os.path.basename(w) for w in compiler if not w.startswith("-")}
    names |= {re.sub(r"-[0-9.]+$", "", n) for n in names}   # clang-15 says "clang: "
    return any(line.partition(": ")[0] in names for line in messages.splitlines())
