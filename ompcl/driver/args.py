"""Driver stage 1: an ``ompcl cc`` command line -> what the driver must do with it.

Consumes the arguments after ``ompcl cc`` (gcc/clang syntax) and the environment; produces
the driver's own options and a ``Command``: the compiler's arguments verbatim and in order,
which of them are C sources, and whether the command compiles, links or only asks something.
Nothing here interprets a compiler option beyond recognising its shape.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

#: gcc/clang options whose value is the next argument when not joined (``-I dir``, ``-o f``)
WITH_VALUE = frozenset("""
    -o -x -I -D -U -A -L -l -u -T -e -z -B -G -V -b
    -include -imacros -iquote -isystem -idirafter -iprefix -iwithprefix -iwithprefixbefore
    -isysroot -imultilib -imultiarch -iframework -isystem-after -cxx-isystem
    -MF -MT -MQ -MJ -Xlinker -Xassembler -Xpreprocessor -Xclang -Xopenmp-target -mllvm
    -aux-info -specs -wrapper -dumpbase -dumpdir -dumpbase-ext -target -arch -framework
    -serialize-diagnostics --param --sysroot --output --language --include-directory
    --define-macro --undefine-macro --include --imacros --for-linker --assert --dependencies
    """.split())
#: options with which the compiler does not compile and link: the command goes through as is
QUERY = frozenset("""
    -E -S -M -MM -fsyntax-only -v -### --version --help --target-help -dumpversion
    -dumpfullversion -dumpmachine -dumpspecs --preprocess --assemble
    """.split())
_QUERY_PREFIXES = ("-print-", "--print-", "--help=")
_NO_LINK = frozenset(("-c", "--compile"))
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+omp\b[ \t]*(\w*)[ \t]*(\w*)", re.M)
#: a directive written through a macro: ``_Pragma("omp ...")``, ``OMP("omp ...")``,
#: ``PRAGMA(omp ...)``
_MACRO_DIRECTIVE = re.compile(rb"\b\w+[ \t]*\([ \t]*\"?[ \t]*omp[ \t]+(\w*)[ \t]*(\w*)")
#: directives a file may have and still come out of translation unchanged: no loop, no
#: parallel region, nothing to run on the device (``master taskloop`` is a loop)
_UNTRANSLATED = frozenset(b"critical atomic barrier flush master masked threadprivate "
                          b"taskwait taskyield".split())
REMARK_FLAGS = {"-Rompcl": "all", "-Rompcl-missed": "missed"}
_BOOL_ENV_FALSE = ("", "0", "no", "off", "false")


class UsageError(Exception):
    """A malformed ``--ompcl-*`` option (exit code 2)."""


class DriverOptions:
    """``ompcl cc``'s own options (``--ompcl-*``, ``-Rompcl*``) and environment variables.
    (Plain classes, not dataclasses, in this package's fast path: start-up time counts.)"""

    __slots__ = ("compiler", "strict", "remarks", "keep", "debug", "help", "model")

    def __init__(self, compiler: tuple[str, ...] = ("gcc",), strict: bool = False,
                 remarks: str = "", keep: str | None = None, debug: bool = False,
                 help: bool = False, model: str = ""):
        self.compiler = compiler    # the underlying compiler command
        self.strict = strict
        self.remarks = remarks      # "", "missed" or "all"
        self.keep = keep            # keep translated sources (and failure reports) here
        self.debug = debug
        self.help = help
        self.model = model          # dispatch model compiled in ("" default, "none", a file)


class Command:
    """A compiler command line, as the compiler will see it.

    ``args`` has every ``@file`` expanded (gcc's rules); ``raw`` is the line as given.
    ``sources`` are the indexes in ``args`` of C source operands. ``mode`` is ``query``
    (pass through untouched: ``-E``, ``-S``, ``--version``, stdin input ...), ``compile``
    (``-c``) or ``link``.
    """

    __slots__ = ("raw", "args", "sources", "mode", "openmp")

    def __init__(self, raw: tuple[str, ...], args: tuple[str, ...], sources: tuple[int, ...],
                 mode: str, openmp: bool):
        self.raw, self.args, self.sources, self.mode, self.openmp = \
            raw, args, sources, mode, openmp

    @property
    def links(self) -> bool:
        return self.mode == "link"

    @property
    def expanded(self) -> bool:
        return self.raw != self.args


def split_own_options(argv: list[str], env: dict[str, str] | None = None
                      ) -> tuple[DriverOptions, list[str]]:
    """Take ``ompcl cc``'s own options out of ``argv``; everything else stays, in order."""
    env = os.environ if env is None else env
    compiler = _split_command(env.get("OMPCL_CC", "") or "gcc")
    strict = env.get("OMPCL_STRICT", "").lower() not in _BOOL_ENV_FALSE
    remarks = env.get("OMPCL_REMARKS", "").lower()
    if remarks not in ("", "all", "missed"):
        raise UsageError(f"OMPCL_REMARKS must be 'all' or 'missed', not '{remarks}'")
    keep, debug, want_help, model, rest = None, False, False, "", []
    for a in argv:
        if a in REMARK_FLAGS:
            remarks = _wider(remarks, REMARK_FLAGS[a])
        elif not a.startswith("--ompcl-"):
            rest.append(a)
        elif a.startswith("--ompcl-compiler="):
            compiler = _split_command(a.partition("=")[2])
            if not compiler:
                raise UsageError("--ompcl-compiler= needs a compiler command")
        elif a.startswith("--ompcl-keep="):
            keep = a.partition("=")[2] or None
        elif a.startswith("--ompcl-model="):
            model = a.partition("=")[2]
            if not model:
                raise UsageError("--ompcl-model= needs a model file (or 'none')")
            if model != "none" and not os.path.isfile(model):  # not every file's fallback
                raise UsageError(f"--ompcl-model: no such model file '{model}'")
        elif a in ("--ompcl-strict", "--ompcl-debug", "--ompcl-help"):
            strict |= a == "--ompcl-strict"
            debug |= a == "--ompcl-debug"
            want_help |= a == "--ompcl-help"
        else:
            raise UsageError(f"unknown option '{a}' (see 'ompcl cc --ompcl-help')")
    return DriverOptions(tuple(compiler), strict, remarks, keep, debug, want_help, model), rest


def _split_command(text: str) -> list[str]:
    if not any(c in text for c in " \t'\"\\"):
        return [text] if text else []
    import shlex
    return shlex.split(text)


def _wider(current: str, new: str) -> str:
    return "all" if "all" in (current, new) else new


def classify(args: list[str]) -> Command:
    """Find the C sources and the kind of a compiler command line."""
    expanded = expand_response_files(args)
    sources, lang, query, compile_only, openmp = [], None, False, False, False
    skip = False
    for k, a in enumerate(expanded):
        if skip:
            skip = False
            if expanded[k - 1] in ("-x", "--language"):
                lang = None if a == "none" else a
            continue
        if a == "-":
            query = True          # stdin input: the compiler reads it, ompcl cannot
        elif not a.startswith("-"):
            if lang == "c" or (lang is None and a.endswith(".c")):
                sources.append(k)
        elif a in WITH_VALUE:
            skip = True
        elif a.startswith("-x"):
            lang = None if a[2:] == "none" else a[2:]
        elif a.startswith("--language="):
            lang = None if a[11:] == "none" else a[11:]
        elif a in QUERY or a.startswith(_QUERY_PREFIXES):
            query = True
        elif a in _NO_LINK:
            compile_only = True
        elif a == "-fopenmp" or a.startswith("-fopenmp="):
            openmp = True
        elif a == "-fno-openmp":
            openmp = False
    mode = "query" if query else "compile" if compile_only else "link"
    return Command(tuple(args), tuple(expanded), tuple(sources), mode, openmp)


def expand_response_files(args: list[str], depth: int = 0) -> list[str]:
    """Replace each readable ``@file`` by the arguments it holds (libiberty's rules: blanks
    separate, quotes group, backslash escapes; nested files are expanded; an unreadable file
    stays as a literal argument)."""
    out: list[str] = []
    for a in args:
        if not a.startswith("@") or len(a) == 1 or depth > 50:
            out.append(a)
            continue
        try:
            with open(a[1:], encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
        except OSError:
            out.append(a)
            continue
        out += expand_response_files(split_response_text(text), depth + 1)
    return out


def split_response_text(text: str) -> list[str]:
    """Split the contents of a response file into arguments, as gcc does."""
    out: list[str] = []
    cur: list[str] | None = None
    squote = dquote = escape = False
    for ch in text:
        if cur is None:
            if ch.isspace():
                continue
            cur = []
        if ch.isspace() and not (squote or dquote or escape):
            out.append("".join(cur))
            cur = None
        elif escape:
            escape = False
            cur.append(ch)
        elif ch == "\\":
            escape = True
        elif squote:
            squote = ch != "'"
            if squote:
                cur.append(ch)
        elif dquote:
            dquote = ch != '"'
            if dquote:
                cur.append(ch)
        elif ch == "'":
            squote = True
        elif ch == '"':
            dquote = True
        else:
            cur.append(ch)
    if cur is not None:
        out.append("".join(cur))
    return out


def quote_response_arg(arg: str) -> str:
    """One argument written so that ``split_response_text`` (and gcc) reads it back."""
    if arg == "":
        return "''"
    return "".join("\\" + c if c.isspace() or c in "\\'\"" else c for c in arg)


def sources_to_translate(cmd: Command) -> list[int]:
    """The C sources worth translating: with ``-fopenmp``, those with an OpenMP directive,
    and those that call a function defined in another source of the program that has one
    (their host code is instrumented, so the data of the kernels that function runs stays
    on the device across its calls: ``analysis.hostaccess``)."""
    if not cmd.openmp:
        return []
    before_c99 = c99_dialect(cmd.args)[:1] == ["-std=c99"]  # ISO C89/C90 (GNU's has //)
    return [k for k in cmd.sources if (has_directive(cmd.args[k])
            or includes_directive(cmd.args[k], cmd) or calls_offloading_code(cmd.args[k], cmd))
            and not (before_c99 and c89_slashes(cmd.args[k]))]


def c89_slashes(path: str) -> bool:
    """Whether the file has ``//`` outside comments and string literals as C89 reads it
    (``a = 12 //* x */ 4;`` divides there, and is a comment in the C99 a translated file is
    compiled as: such a file is built as it is, not translated)."""
    try:
        with open(path, "rb") as fh:
            text = fh.read().replace(b"\\\n", b"")
    except OSError:
        return False
    k, n = 0, len(text)
    while k < n:
        c = text[k:k + 2]
        if c == b"/*":
            end = text.find(b"*/", k + 2)
            k = n if end < 0 else end + 2
        elif c == b"//":
            return True
        elif text[k] in b"\"'":
            k = _literal_end(text, k)
        else:
            k += 1
    return False


def _literal_end(text: bytes, k: int) -> int:
    """The offset after the string or character literal starting at ``k``."""
    quote, k = text[k], k + 1
    while k < len(text) and text[k] != quote and text[k] != ord("\n"):
        k += 2 if text[k] == ord("\\") else 1
    return k + 1


_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def includes_directive(path: str, cmd: Command) -> bool:
    """Whether a quoted ``#include`` of ``path`` finds (beside it, else in the command's
    include directories) a user file with a directive: the translator may inline it
    (``frontend.includes``: Parboil's ``#include "computeQ.c"``)."""
    try:
        with open(path, "rb") as fh:
            names = _QUOTED_INCLUDE.findall(fh.read())
    except OSError:
        return False
    dirs = (os.path.dirname(path), *cpp_options(cmd.args).include_dirs) if names else ()
    for name in map(os.fsdecode, names):
        found = next((f for d in dirs if os.path.isfile(f := os.path.join(d, name))), None)
        if found and not os.path.realpath(found).startswith("/usr/") and has_directive(found):
            return True
    return False


def calls_offloading_code(path: str, cmd: Command) -> bool:
    """Whether ``path`` calls a function that a source with an OpenMP directive defines
    (the program's sources as the translator finds them: ``frontend.siblings``)."""
    from ..frontend.siblings import calls_any, candidate_sources, omp_definitions, text_of
    text = text_of(Path(path))
    if text is None or "(" not in text:
        return False
    others = tuple(cmd.args[k] for k in cmd.sources if cmd.args[k] != path)
    files = candidate_sources(path, cpp_options(cmd.args).include_dirs, others)
    names = omp_definitions(files)
    return bool(names) and calls_any(text, names)


def cpp_options(args: tuple[str, ...]):
    """The preprocessor options the translator understands, from the compiler's arguments."""
    from ..frontend.preprocess import CppOptions
    buckets = {"-I": [], "-isystem": [], "-iquote": [], "-idirafter": [], "-D": [], "-U": []}
    it = iter(args)
    for a in it:
        for flag, bucket in buckets.items():
            if a == flag:
                bucket.append(next(it, ""))
                break
            if a.startswith(flag) and len(a) > len(flag) and (len(flag) == 2 or a[1] == "i"):
                bucket.append(a[len(flag):])
                break
    inc = buckets["-iquote"] + buckets["-I"] + buckets["-isystem"] + buckets["-idirafter"]
    return CppOptions(tuple(inc), tuple(buckets["-D"]), tuple(buckets["-U"]),
                      dialect=tuple(a for a in args if _sets_macros(a)),
                      machine=tuple(a for a in args if a.startswith("-m") and a != "-mpi"))


def _sets_macros(arg: str) -> bool:
    """A flag that changes the compiler's predefined macros (``__STDC_VERSION__``,
    ``__STRICT_ANSI__``, ``__OPTIMIZE__``, ``__FAST_MATH__``)."""
    return arg.startswith(("-std=", "-O")) or arg in ("-ansi", "-ffast-math")


def has_directive(path: str) -> bool:
    """Whether the file's own text has a ``#pragma omp`` line (continuations joined) or a
    directive written through a macro (``_Pragma("omp ...")``, ``OMP("omp ...")``) that
    translation acts on: not only ``critical``, ``atomic``, ``barrier``, ``master`` and the
    like, which a file without work-sharing loops or parallel regions has (in functions its
    parallel regions elsewhere call) and which translation leaves as they are (such a file
    costs what the compiler costs). Loops from macro expansions and from headers are never
    offloaded, but for the included sources the translator inlines (``includes_directive``
    looks for those)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return False  # the compiler reports it
    if b"\0" in data:
        return False
    text = data.replace(b"\\\r\n", b"").replace(b"\\\n", b"")
    return any(m[1] not in _UNTRANSLATED or m[2] == b"taskloop"
               for pattern in (_DIRECTIVE, _MACRO_DIRECTIVE) for m in pattern.finditer(text))


#: C dialects before C99 (``-std=``, ``-ansi``): ompcl's generated code needs C99
_BEFORE_C99 = {"c89", "c90", "gnu89", "gnu90", "iso9899:1990", "iso9899:199409"}


def c99_dialect(args: list[str]) -> list[str]:
    """Flags appended to a command compiling a translated file whose own flags select C89
    or C90: the same dialect's C99 (GNU's or ISO's) with GNU 89 ``inline`` semantics, so the
    user's code means what it meant and ompcl's C99 compiles (where the user's code is not
    C99, the compiler fails and the original is built, as always)."""
    last = None
    for a in args:
        if a == "-ansi":
            last = "c90"
        elif a.startswith("-std="):
            last = a[len("-std="):]
    if last not in _BEFORE_C99:
        return []
    return ["-std=gnu99" if last.startswith("gnu") else "-std=c99", "-fgnu89-inline"]


def translated_flags(args: list[str]) -> list[str]:
    """Flags appended to a command compiling a translated file: ``c99_dialect``'s, and the
    build's floating-point contraction as ``-DOMPCL_FP_CONTRACT`` where the command sets it
    (the kernels fuse ``a * b + c`` where the host compile does: ``host_prologue.c.j2``)."""
    mode = None
    for a in args:
        if a.startswith("-ffp-contract="):
            mode = a[len("-ffp-contract="):] == "fast"
    return c99_dialect(args) + ([] if mode is None else [f"-DOMPCL_FP_CONTRACT={int(mode)}"])

