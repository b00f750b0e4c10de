"""``ompcl cc``: a drop-in C compiler driver for existing builds (``make CC="ompcl cc"``).

``args`` reads the command line (the driver's own ``--ompcl-*``/``-Rompcl*`` options, the
compiler's arguments verbatim), ``cc`` translates and compiles with a safety net, ``runtime``
keeps the prebuilt runtime library, ``deps`` fixes dependency files. Importing this package
is cheap: the translator is imported only when a file needs translating.
"""
from __future__ import annotations

import sys

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
  --ompcl-debug         show Python tracebacks
  --ompcl-help          this text
  -Rompcl               remarks for every OpenMP loop, offloaded or not ($OMPCL_REMARKS=all)
  -Rompcl-missed        remarks for loops not offloaded ($OMPCL_REMARKS=missed)
"""


def main(argv: list[str] | None = None) -> int:
    """Run ``ompcl cc`` with ``argv`` (the arguments after ``cc``); returns the exit status."""
    from .args import UsageError, classify, split_own_options
    from .cc import Driver, NoCompiler
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, args = split_own_options(argv)
    except UsageError as e:
        print(f"ompcl: error: {e}", file=sys.stderr)
        return 2
    if opts.help:
        print(HELP, end="")
        return 0
    driver = Driver(opts)
    try:
        return driver.run(classify(args))
    except NoCompiler as e:
        return driver.no_compiler(e.args[0])
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        if opts.debug:
            raise
        print(f"ompcl: internal error: {type(e).__name__}: {e} (rerun with --ompcl-debug)",
              file=sys.stderr)
        return 3
