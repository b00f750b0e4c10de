"""OpenCL C printer: a ``CGenerator`` subclass that prints user code as device code.

Type names are resolved through typedefs to OpenCL spellings, C library math calls become
OpenCL built-ins (arguments cast to the C prototype's type so overloads resolve as in C),
and literal suffixes OpenCL does not accept are normalised.
"""
from __future__ import annotations

from pycparser import c_ast, c_generator

from ..analysis.builtins import MATH
from ..analysis.ctypes_ import SCALARS, TypeEnv


_INT_ABS = {"abs": "int", "labs": "long", "llabs": "long"}


class OpenCLPrinter(c_generator.CGenerator):
    """Prints pycparser ASTs as OpenCL C."""

    def __init__(self, env: TypeEnv):
        super().__init__(reduce_parentheses=False)
        self.env = env

    def visit_IdentifierType(self, n: c_ast.IdentifierType) -> str:
        base = self.env.scalar_of(n.names)
        if base is not None and base in SCALARS:
            return SCALARS[base][0]
        return " ".join(n.names)

    def visit_Constant(self, n: c_ast.Constant) -> str:
        v = n.value
        if n.type in ("double", "float", "long double") and not v.lower().startswith("0x"):
            v = v.rstrip("lL")
        elif n.type not in ("string", "char"):
            low = v.lower()
            if low.endswith("ll"):
                v = v[:-1]
            elif low.endswith(("llu", "ull")):
                v = v[:-3] + "UL"
        return v

    def visit_FuncCall(self, n: c_ast.FuncCall) -> str:
        name = n.name.name if isinstance(n.name, c_ast.ID) else None
        if name in MATH:
            cl_name, cast = MATH[name]
            args = n.args.exprs if n.args else []
            texts = [self.visit(a) for a in args]
            if cast is not None:
                texts = [f"({cast})({t})" for t in texts]
            if name == "ldexp":
                texts = [f"(double)({self.visit(args[0])})", f"(int)({self.visit(args[1])})"]
            if name in _INT_ABS:  # OpenCL's abs returns an unsigned type; C's is signed
                return f"(({_INT_ABS[name]})abs(({_INT_ABS[name]})({texts[0]})))"
            return f"{cl_name}({', '.join(texts)})"
        return super().visit_FuncCall(n)
