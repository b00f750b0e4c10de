"""Access analysis: a loop body -> ``BodyInfo`` (arrays with subscripts, scalars read and
written, locals, calls, inner loops) plus every construct that blocks offloading."""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import SourceLoc
from ..frontend.pragma import is_omp_pragma
from .ctypes_ import c_text, walk


@dataclass(frozen=True)
class RawAccess:
    name: str
    write: bool
    read: bool
    subscripts: tuple[c_ast.Node, ...]
    loc: SourceLoc


@dataclass(frozen=True)
class BodyInfo:
    """What a loop body (or a function body) touches."""

    accesses: tuple[RawAccess, ...]
    scalar_reads: frozenset[str]
    scalar_writes: frozenset[str]
    pointer_uses: frozenset[str]  # names used as whole arrays/pointers (call arguments)
    locals: frozenset[str]
    calls: tuple[tuple[str, c_ast.FuncCall], ...]
    inner_loops: tuple[c_ast.For, ...]
    problems: tuple[tuple[SourceLoc, str], ...]
    local_decls: tuple[c_ast.Decl, ...] = field(default=())


class _Scanner:
    def __init__(self, known_locals: set[str]):
        self.locals = set(known_locals)
        self.acc: list[RawAccess] = []
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.ptr_uses: set[str] = set()
        self.calls: list[tuple[str, c_ast.FuncCall]] = []
        self.loops: list[c_ast.For] = []
        self.problems: list[tuple[SourceLoc, str]] = []
        self.decls: list[c_ast.Decl] = []

    def problem(self, node: c_ast.Node, msg: str) -> None:
        self.problems.append((SourceLoc.of(node), msg))

    # -- statements ----------------------------------------------------
    def stmt(self, n: c_ast.Node | None, depth: int = 0) -> None:
        if n is None:
            return
        meth = getattr(self, "s_" + type(n).__name__, None)
        if meth is not None:
            meth(n, depth)
        else:
            self.expr(n)

    def s_Compound(self, n, depth):
        for item in n.block_items or []:
            self.stmt(item, depth)

    def s_Decl(self, n, depth):
        if isinstance(n.type, c_ast.FuncDecl):
            return self.problem(n, f"declares function '{n.name}' inside the loop")
        if "static" in (n.storage or []) or "extern" in (n.storage or []):
            return self.problem(n, f"declares {n.storage[0]} variable '{n.name}' in the loop body")
        self.locals.add(n.name)
        self.decls.append(n)
        for sub in walk(n.type):
            if isinstance(sub, c_ast.ArrayDecl) and sub.dim is not None:
                self.expr(sub.dim)
        if n.init is not None:
            self.expr(n.init)

    def s_DeclList(self, n, depth):
        for d in n.decls:
            self.s_Decl(d, depth)

    def s_For(self, n, depth):
        self.loops.append(n)
        self.stmt(n.init, depth + 1)
        self.expr(n.cond)
        self.expr(n.next)
        self.stmt(n.stmt, depth + 1)

    def s_While(self, n, depth):
        self.expr(n.cond)
        self.stmt(n.stmt, depth + 1)

    s_DoWhile = s_While

    def s_If(self, n, depth):
        self.expr(n.cond)
        self.stmt(n.iftrue, depth)
        self.stmt(n.iffalse, depth)

    def s_Switch(self, n, depth):
        self.expr(n.cond)
        self.stmt(n.stmt, depth + 1)

    def s_Case(self, n, depth):
        self.expr(n.expr)
        for s in n.stmts or []:
            self.stmt(s, depth)

    def s_Default(self, n, depth):
        for s in n.stmts or []:
            self.stmt(s, depth)

    def s_Break(self, n, depth):
        if depth == 0:
            self.problem(n, "'break' leaves the parallel loop")

    def s_Continue(self, n, depth):
        pass

    def s_EmptyStatement(self, n, depth):
        pass

    def s_Return(self, n, depth):
        self.problem(n, "'return' inside the loop body")
        self.expr(n.expr)  # a function body's returned value is code too

    def s_Goto(self, n, depth):
        self.problem(n, "'goto' inside the loop body")

    def s_Label(self, n, depth):
        self.problem(n, "label inside the loop body")

    def s_Pragma(self, n, depth):
        if is_omp_pragma(n.string):
            word = " ".join(n.string.split()[1:3])
            if not word.startswith("simd"):
                self.problem(n, f"contains '#pragma {' '.join(n.string.split()[:2])}'")

    # -- expressions ---------------------------------------------------
    def expr(self, n: c_ast.Node | None, write: bool = False, read: bool = True) -> None:
        if n is None:
            return
        meth = getattr(self, "e_" + type(n).__name__, None)
        if meth is None:
            return self.problem(n, f"unsupported construct ({type(n).__name__})")
        meth(n, write, read)

    def e_ID(self, n, write, read):
        if n.name in self.locals:
            return
        if write:
            self.writes.add(n.name)
        if read:
            self.reads.add(n.name)

    def e_Constant(self, n, write, read):
        if n.type == "string":
            self.problem(n, "string literal in the loop body")

    def e_ArrayRef(self, n, write, read):
        subs = []
        base = n
        while isinstance(base, c_ast.ArrayRef):
            subs.append(base.subscript)
            base = base.name
        for s in subs:
            self.expr(s)
        if not isinstance(base, c_ast.ID):
            return self.problem(n, f"subscripted expression '{c_text(base)}' is not an array name")
        if base.name in self.locals:
            return
        self.acc.append(RawAccess(base.name, write, read, tuple(reversed(subs)), SourceLoc.of(n)))

    def e_Assignment(self, n, write, read):
        self.lvalue(n.lvalue, n.op != "=")
        self.expr(n.rvalue)

    def lvalue(self, n, also_read: bool) -> None:
        if isinstance(n, (c_ast.ID, c_ast.ArrayRef)):
            self.expr(n, write=True, read=also_read)
        else:
            self.problem(n, f"assignment through '{c_text(n)}'")

    def e_UnaryOp(self, n, write, read):
        if n.op in ("++", "--", "p++", "p--"):
            return self.lvalue(n.expr, True)
        if n.op == "&":
            if isinstance(n.expr, c_ast.ID) and n.expr.name in self.locals:
                return
            return self.problem(n, f"takes the address of '{c_text(n.expr)}'")
        if n.op == "*":
            return self.problem(n, f"dereferences pointer '{c_text(n.expr)}'")
        if n.op == "sizeof":
            if isinstance(n.expr, c_ast.Typename):
                return
            # only the operand's type matters, and element types are the same on the
            # device; a whole shared array is a pointer there, so its size would differ
            if isinstance(n.expr, c_ast.ID) and n.expr.name not in self.locals:
                return self.problem(n, f"'sizeof' of shared array '{c_text(n.expr)}'")
            return
        self.expr(n.expr)

    def e_BinaryOp(self, n, write, read):
        self.expr(n.left)
        self.expr(n.right)

    def e_TernaryOp(self, n, write, read):
        self.expr(n.cond)
        self.expr(n.iftrue)
        self.expr(n.iffalse)

    def e_Cast(self, n, write, read):
        self.expr(n.expr)

    def e_ExprList(self, n, write, read):
        for e in n.exprs:
            self.expr(e)

    def e_InitList(self, n, write, read):
        for e in n.exprs:
            self.expr(e)

    def e_Typename(self, n, write, read):
        pass

    def e_StructRef(self, n, write, read):
        self.problem(n, f"accesses struct member '{c_text(n)}'")

    def e_FuncCall(self, n, write, read):
        if not isinstance(n.name, c_ast.ID):
            return self.problem(n, f"calls through function pointer '{c_text(n.name)}'")
        self.calls.append((n.name.name, n))
        for arg in (n.args.exprs if n.args else []):
            if isinstance(arg, c_ast.ID) and arg.name not in self.locals:
                self.ptr_uses.add(arg.name)
                self.reads.add(arg.name)
            elif isinstance(arg, c_ast.Constant) and arg.type == "string":
                continue  # the call itself decides (no device function takes a string)
            else:
                self.expr(arg)

    def e_CompoundLiteral(self, n, write, read):
        self.problem(n, "compound literal in the loop body")

    def e_Pragma(self, n, write, read):
        self.s_Pragma(n, 0)

    def __getattr__(self, name):  # statements used where expressions are expected
        if name.startswith("e_") and hasattr(type(self), "s_" + name[2:]):
            stmt = getattr(self, "s_" + name[2:])
            return lambda n, w, r: stmt(n, 1)
        raise AttributeError(name)


def scan_body(body: c_ast.Node, known_locals: set[str] = frozenset()) -> BodyInfo:
    """Collect accesses and problems of a statement; ``known_locals`` are private names."""
    s = _Scanner(set(known_locals))
    s.stmt(body)
    return BodyInfo(tuple(s.acc), frozenset(s.reads), frozenset(s.writes),
                    frozenset(s.ptr_uses), frozenset(s.locals), tuple(s.calls), tuple(s.loops),
                    tuple(s.problems), tuple(s.decls))
