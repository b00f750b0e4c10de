"""The translation pipeline, top to bottom: one C file -> kernel source + host source + report.

Each step consumes the previous step's product; the order matters where noted.
"""
from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

from .analysis.ctypes_ import TypeEnv
from .analysis.regions import analyze
from .codegen.host import SpliceRange, generate_host, splice_range
from .codegen.kernel import generate_kernels
from .codegen.textscan import Scanner
from pycparser import c_ast

from .diagnostics import CSyntaxError, Diagnostics, OmpclError, PreprocessError, SourceLoc
from .frontend.preprocess import CppOptions, host_compiler_accepts, read_source
from .frontend.program import Program, load_program
from .ir import Region

PASSES = ("parse", "analyze", "splice", "kernels", "host")


@dataclass
class Translation:
    """Everything one translated file produced."""

    program: Program
    regions: list[Region]
    kernel_source: str
    host_source: str
    diags: Diagnostics = field(default_factory=Diagnostics)

    @property
    def offloaded(self) -> list[Region]:
        return [r for r in self.regions if r.offload]


def _dump(name: str, dump_after: str | None, text: str) -> None:
    if dump_after == name:
        print(f"/* ---- after {name} ---- */\n{text}", file=sys.stderr)


def translate(path: str, cpp: CppOptions = CppOptions(), embed: bool = True,
              kernel_file: str = "", dump_after: str | None = None) -> Translation:
    """Translate one OpenMP C file; raises OmpclError subclasses on bad input."""
    diags = Diagnostics()
    # 1. front end: preprocess with line markers, parse, bind OpenMP directives to statements
    try:
        prog = load_program(path, cpp)
    except (CSyntaxError, PreprocessError) as e:
        # valid C that ompcl cannot read (GNU extensions, headers that insist on GNU C) is
        # left to the host compiler
        if not host_compiler_accepts(path, cpp):
            raise
        return _untranslated(path, e, diags)
    _dump("parse", dump_after, "\n".join(f"{b.directive.loc}: omp {b.directive.kind}"
                                         for b in prog.constructs))
    # 2. analysis: canonical loops, accesses, data sharing, safety verdict, features
    regions = analyze(prog, diags)
    _dump("analyze", dump_after, "\n".join(_describe(r) for r in regions))
    # 3. host splicing needs each loop's extent in the user's text; a loop whose text cannot
    #    be found (macro expansion) must stay on the host, so this runs before kernel printing
    regions, ranges = _place(prog, regions)
    _dump("splice", dump_after, "\n".join(f"region {k}: bytes {r.start}..{r.end}"
                                          for k, r in ranges.items()))
    # 4. kernels are printed from the preprocessed AST (macros expanded)
    env = TypeEnv(prog.ast)
    kernel_source = generate_kernels(regions, prog.ast, env, path)
    _dump("kernels", dump_after, kernel_source)
    # 5. host code: the user's own text with offloaded loops outlined
    host = generate_host(prog, regions, ranges, kernel_source, embed, kernel_file)
    _dump("host", dump_after, host)
    for r in regions:
        if r.offload:
            diags.remark(r.loc, f"loop offloaded to OpenCL as kernel 'ompcl_k{r.id}' "
                         f"({len(r.loops)}-D range, {len(r.arrays)} buffers)")
        else:
            diags.remark(r.loc, "loop not offloaded: " + "; ".join(r.reasons))
    diags.remarks.sort(key=lambda m: (m.loc.line, m.loc.col))
    return Translation(prog, regions, kernel_source, host, diags)


def _untranslated(path: str, err: OmpclError, diags: Diagnostics) -> Translation:
    source = read_source(path)
    diags.warning(err.loc or SourceLoc(path, 1, 1),
                  f"ompcl cannot parse this file ({err.message}); the host compiler accepts it, "
                  "so all its loops stay on OpenMP")
    prog = Program(path, source, c_ast.FileAST([]), [], [])
    return Translation(prog, [], "", source, diags)


def _place(prog: Program, regions: list[Region]) -> tuple[list[Region], dict[int, SpliceRange]]:
    scan = Scanner(prog.source)
    out, ranges = [], {}
    for r in regions:
        if r.offload:
            rg = splice_range(prog, r, scan)
            if isinstance(rg, str):
                r = dataclasses.replace(r, reasons=(rg,))
            else:
                ranges[r.id] = rg
        out.append(r)
    return out, ranges


def _describe(r: Region) -> str:
    head = f"{r.loc}: region {r.id}: " + ("offload" if r.offload else "host")
    parts = ["  loops: " + ", ".join(f"{d.var} {d.op} ..." for d in r.loops)]
    parts += [f"  array {a.name} mode={a.mode} extent={a.extent or 'whole'}" for a in r.arrays]
    parts += [f"  scalar {v.name}" for v in r.scalars]
    parts += [f"  reduction {x.op}:{x.name}" for x in r.reductions]
    parts += [f"  reason: {why}" for why in r.reasons]
    return "\n".join([head] + parts)
