"""Host C of a region's run-time scratch check (``ir.ScratchCheck``, built by
``analysis.scratchcheck``).

Consumes a region with a scratch check and its array arguments' extents; produces the lines
that run inside the region function once the device is chosen (``check_lines``: the key, the
cached answer or a run of the slice over every iteration, leaving ``ompcl_sc_ok``), and the
sliced called functions (``check_functions``: prototypes to put before the region function,
definitions for the end of the file, where every type and global they use is declared).
The ``OMPCL_SC_*`` macros and ``ompcl_sc_*`` functions are the runtime's (``ompcl_rt.h``).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ..analysis.ctypes_ import C_PRINTER
from ..ir import Region
from . import names as N

_GEN = C_PRINTER


def _decl_text(decl: c_ast.Decl) -> str:
    """A per-iteration declaration of one of the loop's own variables: no initialiser,
    not const (the slice assigns it), not static."""
    d = copy.deepcopy(decl)
    d.init, d.storage, d.funcspec = None, [], []
    if isinstance(d.type, c_ast.PtrDecl):
        d.type.quals = [q for q in d.type.quals or [] if q != "const"]
    elif isinstance(d.type, c_ast.TypeDecl):
        d.quals = [q for q in d.quals or [] if q != "const"]
        d.type.quals = [q for q in d.type.quals or [] if q != "const"]
    return _GEN.visit(d) + ";"


def iteration_point(region: Region) -> tuple[str, list[str]]:
    """The total iteration count of the region's nest, and declarations of its loop
    variables at iteration ``ompcl_t`` of that count (the innermost loop fastest)."""
    n = len(region.loops)
    lines = []
    for k, d in enumerate(region.loops):
        inner = " * ".join(f"{N.TRIPS}[{j}]" for j in range(k + 1, n)) or "1"
        lines.append(f"const {d.var_type} {d.var} = ({d.var_type})({N.LB}[{k}] + ((ompcl_t / "
                     f"({inner})) % {N.TRIPS}[{k}]) * {N.STEP}[{k}]);")
    return " * ".join(f"{N.TRIPS}[{k}]" for k in range(n)), lines


def check_lines(region: Region, arrays: list[dict]) -> list[str]:
    """The check inside the region function; ``arrays``: its array arguments (name, lo, hi,
    ctype, mode) as the region function passes them."""
    c = region.scratch_check
    if c is None:
        return []
    out = ["int ompcl_sc_ok = 1;", "{", "  static ompcl_sc ompcl_S;",
           "  ompcl_sc_cur = &ompcl_S;", "  ompcl_sc_begin(&ompcl_S);"]
    out += [f"  ompcl_sc_key(&ompcl_S, &{name}, sizeof {name});" for name in c.inputs]
    out += [f"  ompcl_sc_key(&ompcl_S, {a}, sizeof {a});" for a in (N.LB, N.STEP, N.TRIPS)]
    written = [a for a in arrays if a["mode"] != "OMPCL_READ"]
    scratch = {name for name, _ in c.arrays}
    pairs = [(f"&{g}", g, a) for g in c.globals_read for a in written if a["name"] != g]
    held = {v.name for v in c.held}  # the check's own arrays: apart from everything
    pairs += [(name, name, a) for name in sorted(scratch - held) for a in arrays
              if a["name"] not in scratch]  # the loop's arrays, whose accesses are not marked
    ranges = {a["name"]: a for _, _, a in pairs}
    for k, a in enumerate(ranges.values()):  # where they are is part of the key
        out.append(f"  const char *ompcl_sa{k} = {_start(a)}; long ompcl_sn{k} = {_bytes(a)};")
        out.append(f"  ompcl_sc_key(&ompcl_S, &ompcl_sa{k}, sizeof ompcl_sa{k}); "
                   f"ompcl_sc_key(&ompcl_S, &ompcl_sn{k}, sizeof ompcl_sn{k});")
    out.append(f"  if (!ompcl_sc_cached(&ompcl_S, &{N.descriptor(region.id)}, &ompcl_sc_ok)) {{")
    out += [f"    {_decl_text(v.decl)}" for v in c.held if v.decl is not None]
    out += [f"    ompcl_sc_array(&ompcl_S, (const void *){name}, sizeof({name}), "
            f"sizeof({ctype}));" for name, ctype in c.arrays]
    index = {name: k for k, name in enumerate(ranges)}
    out += [f"    ompcl_sc_apart(&ompcl_S, (const void *){p}, sizeof({obj}), "
            f"ompcl_sa{index[a['name']]}, ompcl_sn{index[a['name']]});" for p, obj, a in pairs]
    if set(c.region_roots) - {a["name"] for a in arrays}:
        out.append("    ompcl_S.failed = 1;  /* a pointer the loop uses is not one of its arrays */")
    total, point = iteration_point(region)
    if c.uniform:  # no loop variable in the slice: the first iteration stands for every one
        total, point = f"(({total}) > 0)", []
    out.append("    long ompcl_t;")
    out.append(f"    for (ompcl_t = 0; ompcl_t < {total} && !ompcl_S.failed; ompcl_t++) {{")
    out += ["      " + line for line in point]
    out += [f"      {_decl_text(v.decl)}" for v in c.locals if v.decl is not None]
    out.append("      ompcl_sc_next(&ompcl_S);")
    out += ["      " + line for line in _GEN.visit(c.body).rstrip().split("\n")]
    out += ["    }", "    ompcl_sc_ok = ompcl_sc_store(&ompcl_S);", "  }", "}"]
    return out


def range_start(name: str, lo: str, ctype: str) -> str:
    """C text: the address of element ``lo`` of array ``name``."""
    return f"(const char *)({name}) + ({lo}) * (long)sizeof({ctype})"


def range_bytes(lo: str, hi: str, ctype: str) -> str:
    """C text: the bytes of elements ``lo`` to ``hi``."""
    return f"(({hi}) - ({lo}) + 1) * (long)sizeof({ctype})"


def _start(a: dict) -> str:
    return range_start(a["name"], a["lo"], a["ctype"])


def _bytes(a: dict) -> str:
    return range_bytes(a["lo"], a["hi"], a["ctype"])


def check_functions(region: Region) -> tuple[list[str], list[str]]:
    """Prototypes and definitions of the region's sliced functions."""
    c = region.scratch_check
    if c is None:
        return [], []
    protos = [_GEN.visit(f.decl) + ";" for f in c.functions]
    return protos, [_GEN.visit(f) for f in c.functions]
