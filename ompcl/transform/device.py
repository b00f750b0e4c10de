"""Device functions: a user function called from a kernel -> its copy as an OpenCL function
(pointer and array parameters in ``__global`` memory, no storage class or ``inline``)."""
from __future__ import annotations

import copy

from pycparser import c_ast


def device_function(fdef: c_ast.FuncDef) -> c_ast.FuncDef:
    """Copy of a function whose pointer/array parameters point to ``__global`` memory."""
    out = copy.deepcopy(fdef)
    params = out.decl.type.args.params if out.decl.type.args else []
    for p in params:
        if not isinstance(p, c_ast.Decl):
            continue
        if isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            inner = p.type.type
            while not isinstance(inner, c_ast.TypeDecl):
                inner = inner.type
            inner.quals = list(inner.quals or []) + ["__global"]
    out.decl.storage = [s for s in (out.decl.storage or []) if s not in ("extern", "static")]
    out.decl.funcspec = [f for f in (out.decl.funcspec or []) if f != "inline"]
    return out
