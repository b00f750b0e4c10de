"""Host generation: the user's source text with each offloaded loop spliced out.

Consumes the ``Program`` (original text, AST coordinates) and offloadable ``Region``s;
produces the ``<base>_host.c`` text: runtime prologue (kernel source, descriptors), then the
user's file where each offloaded loop is replaced by a call to an outlined function, placed
just before the enclosing function, that runs the kernel or the original OpenMP loop verbatim.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import jinja2
from pycparser import c_ast, c_generator

from ..analysis.ctypes_ import c_text, walk
from ..analysis.residency import Residency, analyze_residency
from ..diagnostics import SourceLoc
from ..frontend.program import Program
from ..ir import Region
from .kernel import combine_expr
from .textscan import Scanner, ScanError

_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
                          keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
_GEN = c_generator.CGenerator()
_OPS = {"<": 0, "<=": 1, ">": 2, ">=": 3}
_MODES = {"r": "OMPCL_READ", "w": "OMPCL_WRITE", "rw": "OMPCL_READWRITE"}


@dataclass(frozen=True)
class SpliceRange:
    """Where a region's pragma and loop sit in the user's text, and where its function starts."""

    start: int
    end: int
    func_start: int
    func_line: int


def splice_range(prog: Program, region: Region, scan: Scanner) -> SpliceRange | str:
    """The text range of a region, or the reason it cannot be spliced."""
    b = region.bound
    ploc, sloc = SourceLoc.of(b.pragma), SourceLoc.of(b.stmt)
    if ploc.file != prog.path or sloc.file != prog.path:
        return "the loop comes from a header or a macro expansion"
    line = prog.lines[ploc.line - 1] if ploc.line <= len(prog.lines) else ""
    if "pragma" not in line or not line.lstrip().startswith("#"):
        return "the directive comes from a macro expansion (_Pragma)"
    try:
        start = scan.offset(ploc.line, 1)
        stmt = _stmt_offset(prog, scan, sloc, b.stmt)
        if scan.skip(scan.line_end(start)) != stmt:
            return "the loop does not directly follow its directive in the source text"
        end = scan.statement_end(stmt)
    except ScanError as e:
        return f"cannot find the loop's extent in the source text ({e})"
    fline = _function_line(prog, b.func)
    if fline is None:
        return "the enclosing function is not in the main file"
    return SpliceRange(start, end, scan.offset(fline, 1), fline)


def _stmt_offset(prog: Program, scan: Scanner, loc: SourceLoc, stmt: c_ast.Node) -> int:
    want = "{" if isinstance(stmt, c_ast.Compound) else "for"
    off = scan.offset(loc.line, loc.col)
    if prog.source.startswith(want, off):
        return off
    line_start = scan.offset(loc.line, 1)
    line = prog.lines[loc.line - 1]
    if line.count(want) == 1:
        return line_start + line.index(want)
    raise ScanError("the loop comes from a macro expansion")


def _function_line(prog: Program, func: c_ast.FuncDef | None) -> int | None:
    if func is None:
        return None
    lines = [n.coord.line for n in walk(func.decl) if getattr(n, "coord", None) is not None
             and n.coord.file == prog.path]
    params = func.decl.type.args
    if params is not None:
        exclude = {id(n) for n in walk(params)}
        lines = [n.coord.line for n in walk(func.decl) if id(n) not in exclude
                 and getattr(n, "coord", None) is not None and n.coord.file == prog.path]
    return min(lines) if lines else None


# -- outlined function -------------------------------------------------------

def _renamed_type(decl: c_ast.Decl, name: str) -> c_ast.Node:
    t = copy.deepcopy(decl.type)
    for sub in walk(t):
        if isinstance(sub, c_ast.TypeDecl):
            sub.declname = name
    return t


def _declaration(decl: c_ast.Decl, name: str, t: c_ast.Node) -> str:
    return _GEN.visit(c_ast.Decl(name, list(decl.quals or []), [], [], [], t, None, None))


def _pointer_param(decl: c_ast.Decl, name: str) -> str:
    """``T *name`` for a variable ``T x`` (its address is passed)."""
    return _declaration(decl, name, c_ast.PtrDecl([], _renamed_type(decl, name)))


def _array_param(decl: c_ast.Decl, name: str) -> str:
    """``T (*name)[d2]...`` for an array ``T x[d1][d2]...`` (arrays decay to pointers)."""
    t = _renamed_type(decl, name)
    if isinstance(t, c_ast.ArrayDecl):
        t = c_ast.PtrDecl([], t.type)
    return _declaration(decl, name, t)


def _same_param(decl: c_ast.Decl, name: str) -> str:
    return _declaration(decl, name, _renamed_type(decl, name))


def _local_decl(decl: c_ast.Decl) -> str:
    t = copy.deepcopy(decl.type)
    return _declaration(decl, decl.name, t) + ";"


def outlined_interface(region: Region) -> tuple[list[str], list[str], list[str], list[str]]:
    """(parameters, call arguments, copy-in lines, write-back lines) for a region's locals."""
    d = region.directive
    lastp = set(d.names_in("lastprivate"))
    # loop variables are private to the loop too (their value before it is never read)
    private = (set(d.names_in("private")) | {x.var for x in region.loops}) - lastp
    reds = {a for c in d.clause("reduction") for a in c.args}
    params, args, copies, writebacks = [], [], [], []
    for v in region.locals_used:
        decl = v.decl
        scalar = v.ctype.is_scalar or v.ctype.base == "?" and not v.ctype.is_array_like
        if v.name in private:
            # passed although unused, so the variable stays used in the caller
            params.append(_pointer_param(decl, f"ompcl_p_{v.name}"))
            args.append(f"&{v.name}")
            copies += [f"(void)ompcl_p_{v.name};", _local_decl(decl)]
        elif scalar and (v.name in lastp or v.name in reds):
            # the loop's result flows back through the caller's variable
            params.append(_pointer_param(decl, f"ompcl_p_{v.name}"))
            args.append(f"&{v.name}")
            init = "" if v.name in lastp else f" = *ompcl_p_{v.name}"
            copies.append(_local_decl(decl)[:-1] + init + ";")
            writebacks.append(f"*ompcl_p_{v.name} = {v.name};")
        elif isinstance(decl.type, c_ast.ArrayDecl):
            params.append(_array_param(decl, v.name))
            args.append(v.name)
        else:  # read-only scalars and pointers: by value, under their own names
            params.append(_same_param(decl, v.name))
            args.append(v.name)
    return params, args, copies, writebacks


def _array_args(region: Region) -> list[dict]:
    out = []
    for a in region.arrays:
        if a.extent is None:
            total = "*".join(f"({x})" for x in a.var.ctype.dims) or "1"
            lo, hi = "0", f"(long)({total}) - 1"
        else:
            lo, hi = a.extent
        out.append({"name": a.name, "lo": lo, "hi": hi, "ctype": a.var.ctype.base,
                    "mode": _MODES[a.mode]})
    return out


def region_function(prog: Program, region: Region, original: str, keep: bool,
                    line: int) -> str:
    params, _, copies, writebacks = outlined_interface(region)
    lastp = set(region.directive.names_in("lastprivate"))
    dims = [{"k": k, "lb": c_text(d.lb), "ub": c_text(d.ub), "step": c_text(d.step),
             "op": _OPS[d.op], "var": d.var, "last": d.var in lastp}
            for k, d in enumerate(region.loops)]
    reds = [{"name": r.name, "ctype": r.ctype,
             "combine": combine_expr(r.op, r.name, "ompcl_p[ompcl_k]")} for r in region.reductions]
    return _ENV.get_template("region.c.j2").render(
        id=region.id, loc=str(region.loc), directive=_comment(region.bound.directive.text),
        kernel=f"ompcl_k{region.id}", params=params, copies=copies, dims=dims,
        arrays=_array_args(region),
        scalars=[{"name": v.name, "ctype": v.ctype.base} for v in region.scalars],
        reductions=reds,
        lastprivates=[{"name": v.name, "ctype": v.ctype.base} for v in region.lastprivates],
        line=line, file=_c_string(prog.path), original=original.rstrip(), keep=int(keep),
        writebacks=writebacks)


def _comment(text: str) -> str:
    return text.replace("*/", "* /")


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _loop_wraps(prog: Program, res: Residency, scan: Scanner) -> tuple[dict[int, bool], list]:
    """Text edits that follow each chaining loop with a host sync; regions whose loop text
    cannot be found lose their ``keep``."""
    keep, edits = dict(res.keep), []
    for loop, ids in res.loops:
        loc = SourceLoc.of(loop)
        try:
            if loc.file != prog.path:
                raise ScanError("loop outside the main file")
            start = scan.offset(loc.line, loc.col)
            if not prog.source.startswith(("for", "while", "do"), start):
                raise ScanError("loop text not found")
            end = scan.statement_end(start)
        except ScanError:
            keep.update({i: False for i in ids})
            continue
        edits += [(start, start, "{ "), (end, end, " ompcl_rt_sync_host(); }")]
    return keep, edits


def generate_host(prog: Program, regions: list[Region], ranges: dict[int, SpliceRange],
                  kernel_source: str, embed: bool = True, kernel_file: str = "",
                  model_c: str = "", predict: str = "0") -> str:
    """The spliced host source for the offloaded ``regions`` (original text if none)."""
    offload = [r for r in regions if r.offload and r.id in ranges]
    if not offload:
        return prog.source
    src, scan = prog.source, Scanner(prog.source)
    keep, replace = _loop_wraps(prog, analyze_residency(offload), scan)
    inserts: dict[int, list[str]] = {}
    func_lines: dict[int, int] = {}
    for r in offload:
        rg = ranges[r.id]
        text = src[rg.start:rg.end]
        _, args, _, _ = outlined_interface(r)
        indent = _indent_of(text)
        call = f"{indent}ompcl_region_{r.id}({', '.join(args)});" + "\n" * text.count("\n")
        replace.append((rg.start, rg.end, call))
        fn = region_function(prog, r, text, keep[r.id], scan.line_of(rg.start))
        inserts.setdefault(rg.func_start, []).append(fn)
        func_lines[rg.func_start] = rg.func_line
    out, pos = [], 0
    edits = sorted([(s, e, t) for s, e, t in replace] +
                   [(p, p, "\n".join(fns) + f'#line {func_lines[p]} "{_c_string(prog.path)}"\n')
                    for p, fns in inserts.items()], key=lambda x: (x[0], x[1]))
    for s, e, t in edits:
        out.append(src[pos:s])
        out.append(t)
        pos = e
    out.append(src[pos:])
    prologue = _ENV.get_template("host_prologue.c.j2").render(
        file=_c_string(prog.path), embed=embed, kernel_file=kernel_file,
        kernel_lines=_c_lines(kernel_source), model=model_c, predict=predict,
        regions=[{"id": r.id, "line": r.loc.line, "nfeatures": len(r.features),
                  "features": [repr(float(v)) for _, v in r.features]} for r in offload])
    return prologue + "".join(out)


def _indent_of(text: str) -> str:
    """Indentation of the loop statement (the line after the directive's)."""
    lines = text.split("\n")
    stmt = next((ln for ln in lines[1:] if ln.strip() and not ln.lstrip().startswith("#")), "")
    return stmt[: len(stmt) - len(stmt.lstrip())]


def _c_lines(text: str) -> list[str]:
    esc = text.replace("\\", "\\\\").replace('"', '\\"').replace("?", "\\?")
    return [line + "\\n" for line in esc.split("\n")]
