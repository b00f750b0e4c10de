"""Device functions: a user function called from a kernel -> its copy as an OpenCL function
(pointer and array parameters in ``__global`` memory, no storage class or ``inline``)."""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone


def device_function(fdef: c_ast.FuncDef, extra: list[c_ast.Decl] = ()) -> c_ast.FuncDef:
    """Copy of a function whose pointer/array parameters point to ``__global`` memory, with
    the ``extra`` parameters (the globals it uses) appended."""
    out = clone(fdef)
    params = out.decl.type.args.params if out.decl.type.args else []
    for p in params:
        if not isinstance(p, c_ast.Decl):
            continue
        if isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            inner = p.type.type
            while not isinstance(inner, c_ast.TypeDecl):
                inner = inner.type
            inner.quals = list(inner.quals or []) + ["__global"]
    if extra:  # after the qualifiers above: the extra parameters carry their own
        plist = [p for p in params if not (isinstance(p, c_ast.Typename) and getattr(
            p.type.type, "names", None) == ["void"])]
        out.decl.type.args = c_ast.ParamList(plist + list(extra), fdef.coord)
    out.decl.storage = [s for s in (out.decl.storage or []) if s not in ("extern", "static")]
    out.decl.funcspec = [f for f in (out.decl.funcspec or []) if f != "inline"]
    return out
