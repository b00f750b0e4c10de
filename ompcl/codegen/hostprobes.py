"""Instrumented functions in the host output (``analysis.hostaccess``'s ``HostPlan``): the
runtime calls before each probed statement, at entry, at every return and at the end, the
markers of other files' instrumented functions, and the table of this file's objects.

Consumes the ``Program`` (original text) and its ``HostPlan``; produces edits of the user's
text (start, end, text) and C text for the host file's epilogue.
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.ctypes_ import C_PRINTER
from ..analysis.ctypes_ import walk
from ..frontend.clone import clone
from ..frontend.program import Program
from ..frontend.textscan import Scanner
from . import names as N
from .splice import c_string, insert_before, resume

_GEN = C_PRINTER


def object_table(names: tuple[str, ...]) -> str:
    """This file's arrays, registered with the runtime before main (``ompcl_rt_objects``)."""
    if not names:
        return ""
    rows = "".join(f"\n  {{ (const void *)&({n}), sizeof({n}) }}," for n in names)
    return (f"\nstatic const ompcl_object ompcl_objects[] = {{{rows}\n}};\n"
            "__attribute__((constructor)) static void ompcl_register_objects(void) {\n"
            f"  ompcl_rt_objects(ompcl_objects, {len(names)});\n}}\n")


def _access_call(a) -> str:
    """The runtime call for one ``hostaccess.HostAccess``."""
    if a.object:
        return f"ompcl_rt_host_object({a.addr}, {a.mode});"
    if a.lo is not None:
        return (f"ompcl_rt_host_index({a.addr}, {a.size}, (long)({a.lo}), (long)({a.hi}), "
                f"{a.mode});")
    return f"ompcl_rt_host_range({a.addr}, {a.size}, {a.mode});"


def _probe_lines(p) -> str:
    """The runtime calls that run before a probed statement."""
    if any(a.addr is None for a in p.accesses):
        mode = 0
        for a in p.accesses:
            mode |= a.mode
        calls = [f"ompcl_rt_host_all({mode});"]
    else:
        calls = [_access_call(a) for a in p.accesses]
    calls += [f"if (!&{N.marker(g)}) ompcl_rt_host_all(3);" for g in p.guards]
    if p.announce and p.extern:
        calls.append(f"if (&{N.marker(p.announce)}) ompcl_rt_announce(); "
                     "else ompcl_rt_host_all(3);")
    elif p.announce:
        calls.append("ompcl_rt_announce();")
    return " ".join(calls)


_LEAVE = "ompcl_rt_leave(ompcl_keep, __builtin_frame_address(0));"


def _return_text(prog: Program, f: c_ast.FuncDef, r, scan: Scanner) -> str:
    """``return e;`` telling the runtime first; ``e`` keeps its line and column."""
    value = prog.source[r.value:r.end - 1].strip()
    if not value:
        return f"{{ {_LEAVE} return; }}"
    path = c_string(prog.path)
    at = r.value + len(prog.source[r.value:r.end]) - len(prog.source[r.value:r.end].lstrip())
    lead = resume(scan, at, path)
    lead = "\n" + (lead[:-1] if lead.endswith(" ") else lead) + "("
    end = insert_before(scan, r.end, "", path)
    if r.void:
        return f"{{{lead}{value}); {_LEAVE} return; }}{end}"
    rtype = clone(f.decl.type.type)
    for sub in walk(rtype):
        if isinstance(sub, c_ast.TypeDecl):
            sub.declname = "ompcl_ret"
    decl = _GEN.visit(c_ast.Decl("ompcl_ret", [], [], [], [], rtype, None, None))
    return f"{{ {decl} ={lead}{value}); {_LEAVE} return ompcl_ret; }}{end}"


def probe_edits(prog: Program, plan, scan: Scanner, team: int | None
                ) -> list[tuple[int, int, str]]:
    """Each probe of the function level (``team`` None) or of a team's device version, before
    its statement (in braces with it where it was an unbraced body)."""
    edits = []
    for f in (plan.functions if plan is not None else ()):
        for p in f.probes:
            if p.team != team:
                continue
            # the statement (or directive line) after the probe keeps its line and column
            text = insert_before(scan, p.start, ("{ " if p.brace else "") + _probe_lines(p),
                                 c_string(prog.path))
            edits.append((p.start, p.start, text if "\n" in text else text + " "))
            if p.brace:
                edits.append((p.end, p.end, " }"))
    return edits


def instrumentation(prog: Program, plan) -> list[tuple[int, int, str]]:
    """Edits for the instrumented functions: the entry, every return and the end tell the
    runtime; the probes of their host code (outside teams)."""
    scan = prog.scanner()
    edits = probe_edits(prog, plan, scan, None)
    for f in plan.functions:
        edits.append((f.open + 1, f.open + 1, insert_before(
            scan, f.open + 1, " int ompcl_keep = ompcl_rt_enter();", c_string(prog.path))))
        edits += [(r.start, r.end, _return_text(prog, f.func, r, scan)) for r in f.returns]
        edits.append((f.close, f.close, f" {_LEAVE} "))
    return edits


def markers(plan) -> list[str]:
    """Declarations of the markers of other files' functions this file's probes test."""
    if plan is None:
        return []
    mine = {f.func.decl.name for f in plan.functions if f.marker}
    return [N.marker(n) for n in plan.externs if n not in mine]
