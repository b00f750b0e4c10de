"""OpenCL C printer: a ``CGenerator`` subclass that prints user code as device code.

Type names are resolved through typedefs to OpenCL spellings, C library math calls become
OpenCL built-ins (arguments cast to the C prototype's type so overloads resolve as in C),
and literal suffixes OpenCL does not accept are normalised. ``printed_names`` says which
identifiers the printer writes for a tree (which structs and enums a program needs), without
printing it.
"""
from __future__ import annotations

from pycparser import c_ast, c_generator

from ..analysis.builtins import MATH
from ..analysis.ctypes_ import SCALARS, TypeEnv, renamed_type, walk
from ..transform.rename import device_name, needs_rename


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
        if len(n.names) == 1 and n.names[0] in self.env.typedefs:
            return device_name(n.names[0])  # a typedef named like an OpenCL type (float3)
        return " ".join(n.names)

    def visit_Typedef(self, n: c_ast.Typedef) -> str:
        if not needs_rename(n.name):
            return super().visit_Typedef(n)
        name = device_name(n.name)
        return super().visit_Typedef(c_ast.Typedef(name, n.quals, n.storage,
                                                   renamed_type(n.type, name), n.coord))

    def _generate_decl(self, n: c_ast.Decl) -> str:
        # OpenCL C before 2.0 has no 'register', nor static variables in functions: the
        # analysis lets through only static const tables (``analysis.statics``), which each
        # work-item may hold a copy of
        drop = {"register"} if isinstance(n.type, c_ast.FuncDecl) else {"register", "static"}
        if drop & set(n.storage or []):
            n = c_ast.Decl(n.name, n.quals, n.align, [s for s in n.storage if s not in drop],
                           n.funcspec, n.type, n.init, n.bitsize, n.coord)
        return super()._generate_decl(n)

    # a GNU statement expression where pycparser's generator prints an expression without
    # parentheses: in them, as every other place it may stand prints it
    def visit_If(self, n: c_ast.If) -> str:
        return super().visit_If(c_ast.If(_operand(n.cond), n.iftrue, n.iffalse, n.coord))

    def visit_Switch(self, n: c_ast.Switch) -> str:
        return super().visit_Switch(c_ast.Switch(_operand(n.cond), n.stmt, n.coord))

    def visit_Return(self, n: c_ast.Return) -> str:
        return super().visit_Return(c_ast.Return(_operand(n.expr), n.coord))

    def visit_UnaryOp(self, n: c_ast.UnaryOp) -> str:
        e = n.expr
        if n.op == "*" and isinstance(e, c_ast.BinaryOp) and e.op == "+":
            lit, k = (e.left, e.right) if _is_string(e.left) else (e.right, e.left)
            if _is_string(lit):  # *("ACGT" + k) as "ACGT"[k] (no warning from the compiler)
                return self.visit(c_ast.ArrayRef(lit, k, n.coord))
        return super().visit_UnaryOp(n)

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
            if name.startswith("__builtin_"):
                return _gnu_builtin(name, texts)
            if name in _INT_ABS:  # OpenCL's abs returns an unsigned type; C's is signed
                return f"(({_INT_ABS[name]})abs(({_INT_ABS[name]})({texts[0]})))"
            if name in ("pow", "powf") and len(args) == 2 and _is_two(args[1]) and \
                    _pure(args[0]):  # as gcc folds it: exact, where OpenCL's pow is slow
                return f"({texts[0]} * {texts[0]})"
            return f"{cl_name}({', '.join(texts)})"
        return super().visit_FuncCall(n)


def _operand(e: c_ast.Node | None) -> c_ast.Node | None:
    """``e``, a statement expression as a one-item list (printed in parentheses)."""
    return c_ast.ExprList([e], e.coord) if isinstance(e, c_ast.Compound) else e


def _is_string(e: c_ast.Node) -> bool:
    return isinstance(e, c_ast.Constant) and e.type == "string"


def _gnu_builtin(name: str, texts: list[str]) -> str:
    """GNU C's ``__builtin_expect(e, c)`` (``e``) and bit counts of unsigned int, long and
    long long (an int, as C's; ``ctz`` through ``clz`` of the lowest set bit: OpenCL 1.2)."""
    if name == "__builtin_expect":
        return f"({texts[0]})"
    t = "uint" if name[-1] not in "l" else "ulong"
    x = f"(({t})({texts[0]}))"
    if name.startswith("__builtin_ctz"):
        return f"((int)({32 if t == 'uint' else 64} - 1 - clz({x} & -{x})))"
    return f"((int){'popcount' if 'popcount' in name else 'clz'}({x}))"


#: calls without side effects: the math built-ins, a checked access (OMPCL_AT)
_PURE_CALLS = set(MATH) | {"OMPCL_AT"}


def _is_two(e: c_ast.Node) -> bool:
    """A literal 2 (``2``, ``2.0``, ``2.f``)."""
    if not isinstance(e, c_ast.Constant) or e.type not in ("int", "double", "float"):
        return False
    try:
        return float(e.value.rstrip("fFlLuU")) == 2.0
    except ValueError:
        return False


def _pure(e: c_ast.Node) -> bool:
    """An expression without side effects: evaluated twice, it gives the same value."""
    return not any(isinstance(n, (c_ast.Assignment, c_ast.FuncCall)) and not (
        isinstance(n, c_ast.FuncCall) and getattr(n.name, "name", None) in _PURE_CALLS) or
        isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") for n in walk(e))


#: nodes whose ``name`` attribute the printer writes as an identifier
_NAMED = (c_ast.ID, c_ast.Decl, c_ast.Struct, c_ast.Union, c_ast.Enum, c_ast.Enumerator,
          c_ast.Typedef, c_ast.Label, c_ast.Goto)


def printed_names(node: c_ast.Node, env: TypeEnv) -> set[str]:
    """The identifiers ``OpenCLPrinter(env)`` writes for ``node``: names of variables,
    functions, members, tags, enumerators and labels, and type names as printed (a typedef
    of a scalar as the OpenCL scalar it stands for)."""
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, _NAMED) and n.name:
            out.add(n.name)
        elif isinstance(n, c_ast.TypeDecl) and n.declname:
            out.add(n.declname)
        elif isinstance(n, c_ast.IdentifierType):
            base = env.scalar_of(n.names)
            out |= {SCALARS[base][0]} if base in SCALARS else set(n.names)
    return out
