"""Command line: ``ompcl translate``, ``ompcl build`` (and the benchmark/training commands).

Only argument handling lives here; the work is in ``pipeline`` and ``outputs``.
"""
from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

import click

from .bench.command import LazyGroup
from .diagnostics import REASONS, REMARK_IDS, OmpclError
from .frontend.preprocess import CppOptions
from .outputs import build_executable, output_names, write_outputs
from .pipeline import PASS_NAMES, Options, Unit, translate


def _cpp_options(f):
    f = click.option("-I", "include", multiple=True, metavar="DIR", help="Add include directory.")(f)
    f = click.option("-D", "define", multiple=True, metavar="NAME[=VAL]", help="Define macro.")(f)
    f = click.option("-U", "undef", multiple=True, metavar="NAME", help="Undefine macro.")(f)
    f = click.option("-v", "--verbose", is_flag=True, help="Also show remarks for offloaded loops.")(f)
    f = click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")(f)
    f = click.option("--report", is_flag=True, help="List every OpenMP loop and its verdict.")(f)
    f = click.option("--dump-after", type=click.Choice(PASS_NAMES), help="Print the program after a pass.")(f)
    f = click.option("--no-embed", is_flag=True, help="Load the kernel file at run time instead "
                     "of embedding it in the host file.")(f)
    f = click.option("--model", "model", default="", metavar="FILE|none",
                     help="Dispatch model compiled into the program (default: "
                     "models/default.json; 'none': the device whenever one is ready).")(f)
    f = click.option("--no-interchange", "no_interchange", is_flag=True,
                     help="No loop interchange inside kernels (as OMPCL_INTERCHANGE=0).")(f)
    f = click.option("--no-reorder", "no_reorder", is_flag=True,
                     help="No reordering of array dimensions (as OMPCL_REORDER=0).")(f)
    f = click.option("--no-dynreorder", "no_dynreorder", is_flag=True,
                     help="No kernel variants over permuted device copies of arrays (as "
                     "OMPCL_DYNREORDER=0).")(f)
    f = click.option("--no-promote", "no_promote", is_flag=True,
                     help="No register promotion of reused global elements in kernels (as "
                     "OMPCL_PROMOTE=0).")(f)
    f = click.option("--no-vectorize", "no_vectorize", is_flag=True,
                     help="No vector loads and stores (vloadn/vstoren) in kernels (as "
                     "OMPCL_VECTORIZE=0).")(f)
    return f


def _run(debug: bool, fn):
    try:
        return fn()
    except OmpclError as e:
        if debug:
            traceback.print_exc()
        click.echo(e.format(), err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    except Exception as e:
        if debug:
            raise
        click.echo(f"ompcl: internal error: {type(e).__name__}: {e} (rerun with --debug)", err=True)
        sys.exit(3)


def _translate_all(files, include, define, undef, no_embed, dump_after, debug,
                   model="", switches=None, whole_program=False) -> list[Unit]:
    cpp = CppOptions(tuple(include), tuple(define), tuple(undef))
    out = []
    for f in files:
        kernel_file = f"{Path(f).stem}_kernel.cl" if no_embed else ""
        opts = Options(cpp, embed=not no_embed, kernel_file=kernel_file, dump_after=dump_after,
                       sources=tuple(x for x in files if x != f), model=model,
                       whole_program=whole_program)
        off = {k: False for k, v in (switches or {}).items() if v}
        out.append(translate(f, Options(**{**opts.__dict__, **off,
                                           "check": opts.check or debug})))
    return out


_SYSTEM_LIBS = {"-lm", "-lc", "-lpthread", "-lgomp", "-lOpenCL", "-ldl", "-lrt"}


def _whole_program(ldflags: str) -> bool:
    """True when the link brings in nothing of the user's but the sources named."""
    return all(t in _SYSTEM_LIBS or t.startswith("-") and not t.startswith("-l")
               and not t.startswith("-Wl") for t in ldflags.split())


#: a work-sharing loop's directive in a file's text (``parallel for``, ``for``, with ``simd``)
_WORK_SHARING = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(?:parallel[ \t]+)?for\b", re.M)


def _print_report(ts: list[Unit]) -> None:
    blocked: dict[str, int] = {}  # reason id -> loops it keeps on the host
    offloaded = total = 0
    for t in ts:
        for r in t.regions:
            verdict = f"offloaded  ompcl_k{r.id}" if r.offload else "host       "
            why = "" if r.offload else "  " + "; ".join(f"{x.message} [{x.id}]" for x in r.reasons)
            click.echo(f"{r.loc}: {verdict}  omp {r.bound.directive.kind}{why}")
            total += 1
            offloaded += r.offload
            for rid in dict.fromkeys(x.id for x in r.reasons if not r.offload):
                blocked[rid] = blocked.get(rid, 0) + 1
        if t.passed_through:  # the file's loops, as its text has them
            n = len(_WORK_SHARING.findall(t.program.source))
            total += n
            if n:
                blocked["parse-fallback"] = blocked.get("parse-fallback", 0) + n
        for m in t.remarks:
            if m.missed and not any(r.loc == m.loc for r in t.regions):
                click.echo(f"{m.loc}: host         {m.message[len('loop not offloaded: '):]} "
                           f"[{m.id}]")
                total += 1
                blocked[m.id] = blocked.get(m.id, 0) + 1
    _print_ranking(offloaded, total, blocked)


def _print_ranking(offloaded: int, total: int, blocked: dict[str, int]) -> None:
    """The summary: loops offloaded, then the reasons by the loops they keep on the host (a
    loop with several reasons counts under each), so a user sees what to change first."""
    if not total:
        click.echo("summary: no OpenMP work-sharing loops (nothing to offload)")
        return
    click.echo(f"summary: {offloaded} of {total} OpenMP loops offloaded")
    for rid, n in sorted(blocked.items(), key=lambda x: (-x[1], x[0])):
        click.echo(f"  {n:4d} {'loop' if n == 1 else 'loops'} kept on the host by [{rid}]: "
                   f"{REASONS.get(rid) or REMARK_IDS[rid]}")


def _emit_diags(ts: list[Unit], verbose: bool, report: bool = False,
                warnings: tuple[str, ...] = ()) -> None:
    """Remarks and warnings on stderr: a missed remark not when --report lists it, an
    ignored unknown directive only under -Wall or -Wunknown-pragmas (as gcc)."""
    for t in ts:
        for m in t.remarks:
            if m.id == "unknown-pragma" and not {"all", "unknown-pragmas"} & set(warnings):
                continue
            if m.missed and report:
                continue
            if verbose or m.missed or m.kind != "remark":
                click.echo(m.format(), err=True)


#: gcc options whose value is the next argument (``-x c``, ``-include f.h``, ...), and
#: which of them are the linker's
_GCC_VALUE_OPTIONS = {"-x", "-include", "-imacros", "-isystem", "-idirafter", "-iquote",
                      "-Xpreprocessor", "-Xassembler", "-MF", "-MT", "-MQ", "-aux-info"}
_LINK_VALUE_OPTIONS = {"-Xlinker", "-T", "-u", "-z", "-l", "-L"}
#: ``ompcl build``'s own short options that take a value, attached (``-Idir``) or not
_OWN_VALUE_SHORT = ("-o", "-I", "-D", "-U")


class GccShapedCommand(click.Command):
    """A command that takes a gcc command line: its own options parse as usual, every other
    option (``-O2``, ``-g``, ``-march=native``, ``-fopenmp``) is kept, in order, in
    ``ctx.meta["cc_flags"]``, and the link's (``-Wl,...``, ``-Xlinker X``) with every input
    that is not a C source (``.o``, ``.a``) in ``ctx.meta["link_inputs"]`` (click alone would
    read ``-fopenmp`` as ``-f -o penmp``)."""

    def _own(self, ctx) -> set[str]:
        return {o for p in self.get_params(ctx) for o in getattr(p, "opts", [])
                if o.startswith("-")}

    def parse_args(self, ctx, args):
        own, kept, flags, link = self._own(ctx), [], [], []
        it = iter(args)
        for a in it:
            name = a.split("=", 1)[0]
            if a.startswith("--") and name in own or a in own or \
                    a.startswith(_OWN_VALUE_SHORT) and a[:2] in own:
                kept.append(a)
                if a in own and a not in ("-v", "-h") and self._takes_value(ctx, a):
                    kept += list(itertools.islice(it, 1))
            elif a in _GCC_VALUE_OPTIONS or a in _LINK_VALUE_OPTIONS:
                (flags if a in _GCC_VALUE_OPTIONS else link).extend([a, *itertools.islice(it, 1)])
            elif a.startswith(("-Wl,", "-l", "-L")) or not a.startswith("-") and \
                    not a.endswith(".c"):
                link.append(a)
            elif a.startswith("-") and a != "-":
                flags.append(a)
            else:
                kept.append(a)
        ctx.meta.update(cc_flags=flags, link_inputs=link)
        return super().parse_args(ctx, kept)

    def _takes_value(self, ctx, opt: str) -> bool:
        return any(opt in p.opts and not getattr(p, "is_flag", False)
                   for p in self.get_params(ctx) if isinstance(p, click.Option))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ompcl")
def main() -> None:
    """ompcl: OpenMP C to OpenCL, with run-time choice of device or host per loop."""


@main.command("translate")
@click.argument("files", nargs=-1, required=True)
@click.option("-o", "--output", "outdir", default=None,
              help="Output directory [default: ompcl_out; with --dump-after: none, only the "
              "dump].")
@click.option("--emit", type=click.Choice(["all", "host", "kernel"]), default="all",
              show_default=True, help="Which outputs to write.")
@click.option("-W", "warnings", multiple=True, metavar="all|unknown-pragmas",
              help="-Wall or -Wunknown-pragmas: warn about '#pragma omp' lines with an unknown "
              "directive (ignored, as gcc ignores them).")
@_cpp_options
def translate_cmd(files, outdir, emit, warnings, include, define, undef, verbose, debug, report,
                  dump_after, no_embed, model, no_interchange, no_reorder, no_dynreorder,
                  no_promote, no_vectorize):
    """Translate OpenMP C files into <base>_host.c + <base>_kernel.cl (+ runtime)."""
    def work():
        ts = _translate_all(files, include, define, undef, no_embed, dump_after, debug, model,
                            {"interchange": no_interchange, "reorder": no_reorder,
                             "dynreorder": no_dynreorder, "promote": no_promote,
                             "vectorize": no_vectorize})
        _emit_diags(ts, verbose, report, warnings)
        written = [] if dump_after and outdir is None else \
            write_outputs(ts, Path(outdir or "ompcl_out"), emit)
        if report:
            _print_report(ts)
        if verbose:
            for p in written:
                click.echo(f"wrote {p}", err=True)
    _run(debug, work)


@main.command("build", cls=GccShapedCommand)
@click.argument("files", nargs=-1, required=True, metavar="FILE.c... [GCC OPTIONS]")
@click.option("-o", "--output", "exe", default="a.out", show_default=True,
              help="Executable to produce.")
@click.option("--cc", default="gcc", show_default=True, help="Host C compiler.")
@click.option("--cflags", default="-O2", show_default=True, help="Host compiler flags.")
@click.option("--ldflags", default="", help="Extra linker flags.")
@click.option("--keep", "keep_dir", default=None, help="Keep the translated sources in DIR.")
@_cpp_options
@click.pass_context
def build_cmd(ctx, files, exe, cc, cflags, ldflags, keep_dir, include, define,
              undef, verbose, debug, report, dump_after, no_embed, model, no_interchange,
              no_reorder, no_dynreorder, no_promote, no_vectorize):
    """Translate and compile OpenMP C files into an executable, as gcc would: any other gcc
    option (-O2, -g, -march=native) goes to the compiler, and the link's (-lm, -L DIR,
    -Wl,..., objects and archives) to the link after the sources, in the order given."""
    cflags = shlex.join([*shlex.split(cflags), *ctx.meta["cc_flags"]])
    ldflags = shlex.join([*shlex.split(ldflags), *ctx.meta["link_inputs"]])

    def work():
        # the files named are the program (unless objects or libraries of the user's come
        # in at the link): a global no other one mentions is this file's
        ts = _translate_all(files, include, define, undef, no_embed, dump_after, debug, model,
                            {"interchange": no_interchange, "reorder": no_reorder,
                             "dynreorder": no_dynreorder, "promote": no_promote,
                             "vectorize": no_vectorize},
                            _whole_program(ldflags))
        # the compiler's own warnings on the build stay unseen: ompcl says -Wall's part
        _emit_diags(ts, verbose, report, tuple(f[2:] for f in ctx.meta["cc_flags"]
                                               if f.startswith("-W")))
        if report:
            _print_report(ts)
        with tempfile.TemporaryDirectory(prefix="ompcl-") as tmp:
            outdir = Path(keep_dir or tmp)
            write_outputs(ts, outdir, "all")
            hosts = [output_names(t, outdir)["host"] for t in ts]
            extra = [f"-I{Path(f).resolve().parent}" for f in files]
            extra += [f"-I{i}" for i in include] + [f"-D{d}" for d in define]
            extra += [f"-U{u}" for u in undef]
            build_executable(hosts, outdir, Path(exe), cc, cflags, ldflags, extra)
            if no_embed:  # the program reads its kernels from beside the executable
                for t in ts:
                    kernel = output_names(t, outdir)["kernel"]
                    shutil.copy(kernel, Path(exe).resolve().parent / kernel.name)
    _run(debug, work)


@main.command("train")
@click.argument("data", nargs=-1, required=True, metavar="DATA.csv...")
@click.option("-o", "--output", "out", default=None, metavar="MODEL.json",
              help="Model file to write (without it: only the cross-validation report).")
@click.option("--learner", default="auto", show_default=True,
              help="auto (chosen with its settings by nested cross-validation), tree (Grewe "
              "et al.'s decision tree), forest, extra (extremely randomised trees) or "
              "boosting.")
@click.option("--features", default="all", show_default=True,
              help="Feature set of a named learner: all, raw, combined (Grewe et al.'s) or "
              "scale_free.")
@click.option("--budget", type=float, default=1.0, show_default=True,
              help="Scales auto's search (about a minute at 1 on a small machine; it "
              "shrinks as rows and folds grow): 4 searches wider.")
@click.option("--trees", type=int, default=None,
              help="Trees of a forest or boosting model (auto: at most this many).")
@click.option("--max-depth", type=int, default=None, help="Depth of each tree (0: unlimited).")
@click.option("--min-leaf", type=int, default=None, help="Training rows per leaf at least.")
@click.option("--host-weight", type=float, default=None,
              help="Weight of host-faster rows: sending them to the device is the costly "
              "mistake (default 1; auto: how many times the search counts a slowdown "
              "against the host, default 3).")
@click.option("--weighting", default="none", show_default=True,
              help="'cost': weight rows by |ln(t_host/t_device)|, what a wrong choice costs.")
@click.option("--threshold", type=float, default=0.5, show_default=True,
              help="The device only when the model's device probability exceeds this.")
@click.option("--folds", type=int, default=10, show_default=True,
              help="Folds of the stratified cross-validation.")
@click.option("--no-cv", is_flag=True, help="Skip cross-validation.")
@click.option("--threads", type=int, default=None,
              help="Train on the rows measured with this many OpenMP threads (rows of a "
              "'threads' column; default: every row).")
@click.option("--load-features", "load_features", default="auto", show_default=True,
              help="auto: train with the load columns (ompcl bench load's rows) when every "
              "row has them, and compare with the same learner without them; on: require "
              "them; off: never.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--platform", default="", help="Where the data was measured (default: from "
              "the data's .meta.json).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
def train_cmd(data, out, learner, features, budget, trees, max_depth, min_leaf, host_weight,
              weighting, threshold, folds, no_cv, threads, load_features, seed, platform,
              as_json, debug):
    """Train a dispatch model on measured rows (CSV, public device-mapping columns)."""
    from .predict import data as rows, learners, select, train
    if host_weight is None:
        host_weight = select.SLOWDOWN_WEIGHT if learner == learners.AUTO else 1.0
    s = learners.Settings(learner, trees, max_depth, min_leaf, host_weight, weighting,
                          threshold, seed, features)
    try:
        learners.check(s)
        if folds < 2:
            raise ValueError(f"--folds must be at least 2, not {folds}")
        if not budget > 0:
            raise ValueError(f"--budget must be positive, not {budget}")
        if load_features not in rows.LOAD_MODES:
            raise ValueError(f"unknown --load-features '{load_features}' "
                             f"(choose {', '.join(rows.LOAD_MODES)})")
    except ValueError as e:
        click.echo(f"ompcl: error: {e}", err=True)
        sys.exit(2)

    def work():
        command = " ".join(["ompcl", "train", *sys.argv[2:]])
        try:
            model = train.train(data, s, folds, platform, command, cv=not no_cv,
                                budget=budget, threads=threads, load_features=load_features)
        except rows.NoLoadColumns as e:   # a usage error, known once the rows are read
            click.echo(e.format(), err=True)
            sys.exit(2)
        note = model["metadata"]["cross_validation"].get("note")
        if note:
            click.echo(f"ompcl: note: {note}", err=True)
        if out:
            Path(out).write_text(json.dumps(model, indent=1) + "\n")
        if as_json:
            click.echo(json.dumps({"output": out, **model["metadata"]}, indent=1))
        else:
            click.echo(train.report(model))
            if out:
                click.echo(f"wrote {out}")
    _run(debug, work)


@main.command("server")
@click.argument("action", type=click.Choice(["status", "stop"]))
def server_cmd(action):
    """The compile server behind 'ompcl cc' (this ompcl's): show it, or stop it.

    'ompcl cc' starts it on first use; it exits by itself after OMPCL_SERVER_IDLE seconds
    without a command (600). OMPCL_SERVER=0 runs every command without it.
    """
    from .driver import client
    from .info import server_state
    s = server_state()
    if s["state"] == "running" and action == "stop":
        client.request(s["socket"], "stop")
        s["state"] = "stopping"
    if s["state"] == "off":
        click.echo("compile server: off (OMPCL_SERVER=0)")
    elif s["state"] == "not running":
        click.echo(f"compile server: not running ({s['socket']})")
    else:
        click.echo(f"compile server: {s['state']}, pid {s['pid']}, socket {s['socket']}")


@main.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the information as JSON.")
def info_cmd(as_json):
    """OpenCL platforms and devices, the one a program would use, the dispatch model, the
    cache directory and the compile server."""
    from . import info
    data = info.gather()
    click.echo(json.dumps(data, indent=1) if as_json else info.format_text(data))


@main.command("stats", context_settings={"allow_interspersed_args": False})
@click.argument("args", nargs=-1, required=True, metavar="FILE.json | --run PROGRAM [ARGS]...")
@click.option("--run", is_flag=True, help="Run PROGRAM with OMPCL_STATS set and print the "
              "summary on stderr when it exits (its exit status is kept).")
@click.option("--top", type=int, default=0, metavar="N", help="Only the N slowest regions.")
@click.option("--debug", is_flag=True, help="Show Python tracebacks on errors.")
def stats_cmd(args, run, top, debug):
    """Per-region statistics of a translated program, the slowest first: file:line, entries
    on the device and the host, seconds, bytes each way, the decisions and why."""
    from . import statsreport
    if not run and len(args) != 1:
        raise click.UsageError("give one statistics file (or --run PROGRAM ...)")

    def work():
        if not run:
            click.echo(statsreport.format_summary(statsreport.load(args[0]), top))
            return 0
        rc, data = statsreport.run_with_stats(list(args))
        click.echo(statsreport.format_summary(data, top) if data else
                   f"ompcl: {args[0]} wrote no statistics (not a translated program?)", err=True)
        return rc
    sys.exit(_run(debug, work))


@main.command("cc", add_help_option=False, context_settings={
    "ignore_unknown_options": True, "allow_extra_args": True, "allow_interspersed_args": False})
@click.pass_context
def cc_cmd(ctx):
    """A drop-in C compiler: make CC="ompcl cc" (see 'ompcl cc --ompcl-help').

    Every argument goes to the compiler ($OMPCL_CC, gcc) verbatim; `ompcl cc` is normally
    dispatched before this parser runs (ompcl/__main__.py).
    """
    from .driver import main as cc_main
    sys.exit(cc_main(list(ctx.args)))


@main.group("bench", cls=LazyGroup, lazy={
    name: f"ompcl.bench.{module}:cli" for name, module in [
        ("build", "build_speed"), ("coherence", "coherence"), ("kernels", "kernels"),
        ("layout", "layout"),
        ("layout-cost", "layout_cost"), ("load", "load"), ("mpi", "mpi"), ("nas", "nas"),
        ("residency", "residency"),
        ("translate", "translate_speed")]})
def bench_group() -> None:
    """Benchmarks: the NAS harness, kernels, data layout, residency, host-access coherence,
    MPI, build and translation speed (each command's options: 'ompcl bench COMMAND --help')."""


if __name__ == "__main__":
    main()
