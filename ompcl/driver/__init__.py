"""``ompcl cc``: a drop-in C compiler driver for existing builds (``make CC="ompcl cc"``).

``args`` reads the command line (the driver's own ``--ompcl-*``/``-Rompcl*`` options, the
compiler's arguments verbatim), ``cc`` translates and compiles with a safety net, ``runtime``
keeps the prebuilt runtime library, ``deps`` fixes dependency files. Importing this package
is cheap: the translator is imported only when a file needs translating.
"""
from __future__ import annotations

import sys

#: set in a compile server's worker (``server.py``): the compiler runs as a child, not by exec
IN_SERVER = False

HELP = """\
usage: ompcl cc [--ompcl-OPTION ...] [-Rompcl | -Rompcl-missed] COMPILER-ARGUMENTS...

A drop-in C compiler (make CC="ompcl cc"): each .c source with an OpenMP directive, in a
command with -fopenmp, is translated (offloadable loops get an OpenCL version) and compiled
in its place; linking commands get the ompcl runtime. Every other argument goes to the
compiler verbatim and in order; -E, -S, -M, -fsyntax-only, --version, -v, stdin input pass
straight through.

  --ompcl-compiler=CMD  underlying compiler (default: $OMPCL_CC, else gcc)
  --ompcl-strict        a translated file that fails to compile is an error ($OMPCL_STRICT=1)
                        (default: warn once and build the original file instead)
  --ompcl-keep=DIR      keep the translated sources (and failure reports) in DIR
  --ompcl-model=FILE    dispatch model compiled into translated files ('none': no model;
                        default: models/default.json); OMPCL_MODEL replaces it at run time
  --ompcl-debug         show Python tracebacks
  --ompcl-help          this text
  -Rompcl               remarks for every OpenMP loop, offloaded or not ($OMPCL_REMARKS=all)
  -Rompcl-missed        remarks for loops not offloaded ($OMPCL_REMARKS=missed)
"""


def entry() -> None:
    """The ``ompcl-cc`` command (and ``ompcl cc``): through the compile server when one
    answers (``client.py``), else in this process."""
    argv = sys.argv[1:]
    from .client import forward
    status = forward(argv)
    sys.exit(main(argv) if status is None else status)


def main(argv: list[str] | None = None) -> int:
    """Run ``ompcl cc`` with ``argv`` (the arguments after ``cc``); returns the exit status."""
    from .args import UsageError, classify, split_own_options, sources_to_translate
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, args = split_own_options(argv)
    except UsageError as e:
        print(f"ompcl: error: {e}", file=sys.stderr)
        return 2
    if opts.help:
        print(HELP, end="")
        return 0
    try:
        cmd = classify(args)
        todo = sources_to_translate(cmd) if cmd.mode != "query" else []
        if not todo:   # the common case, kept cheap: no translator, no temporary files
            fast = _straight_through(opts, cmd)
            if fast is not None:
                return _exec(opts.compiler, fast)
        from .cc import Driver
        return Driver(opts).run(cmd, todo)
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        from .cc import NoCompiler, no_compiler
        if isinstance(e, NoCompiler):
            return no_compiler(opts.compiler, e.args[0])
        if opts.debug:
            raise
        print(f"ompcl: internal error: {type(e).__name__}: {e} (rerun with --ompcl-debug)",
              file=sys.stderr)
        return 3


def _straight_through(opts, cmd) -> list[str] | None:
    """The compiler's arguments when nothing needs translating (the runtime library added
    when linking), or None when only the full driver can tell (the runtime needs building
    somewhere temporary, or failed to build)."""
    from .runtime import (RuntimeBuildError, abi_flags, link_tail, other_interface, relocatable,
                          runtime_library)
    if not cmd.links or relocatable(cmd.args):
        return list(cmd.raw)
    if other_interface(cmd.args) is not None:
        return None   # objects of another runtime interface: the full driver refuses them
    try:
        lib = runtime_library(opts.compiler, abi_flags(cmd.args), None)
    except RuntimeBuildError:
        return None
    return None if lib is None else [*cmd.raw, *link_tail(lib)]


def _exec(compiler: tuple[str, ...], args: list[str]) -> int:
    """Replace this process by the compiler (in a server's worker: run it and return its
    status, minus the signal that killed it)."""
    import os
    argv = [*compiler, *args]
    sys.stdout.flush()
    sys.stderr.flush()
    if IN_SERVER:
        import subprocess
        try:
            return subprocess.call(argv)
        except OSError as e:
            from .cc import no_compiler
            return no_compiler(compiler, e)
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        from .cc import no_compiler
        return no_compiler(compiler, e)
