"""Old-style C, as gcc still accepts it: preprocessed text with implicit ``int`` -> the same
text with ``int`` written out; K&R function definitions in the parsed tree -> prototyped ones.

pycparser reads K&R definitions (``f(a, b) float *a; int b; {...}``) but not a declaration
without a type (``main(argc, argv)``, ``extern layer_size;``, ``register i;``). The text
rewrite only inserts ``int`` (columns after it on that line move by four); the user's own
text, which the host output is spliced from, is untouched.
"""
from __future__ import annotations

import re

from pycparser import c_ast

_STORAGE = {"extern", "static", "register", "auto", "const", "volatile", "inline",
            "__inline", "__inline__", "_Thread_local", "__thread"}
_KEYWORDS = _STORAGE | {
    "int", "char", "short", "long", "float", "double", "void", "signed", "unsigned",
    "_Bool", "struct", "union", "enum", "typedef", "return", "if", "else", "for", "while",
    "do", "switch", "case", "default", "break", "continue", "goto", "sizeof", "restrict",
    "__restrict", "__restrict__", "_Complex", "__attribute__", "__extension__", "__asm__",
    "asm", "_Alignas", "_Atomic", "_Noreturn", "_Static_assert", "__typeof__", "typeof",
    "__int128", "_Float128", "__builtin_va_list"}
_TOKEN = re.compile(r"""\s+|//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'"""
                    r"""|^[ \t]*#[^\n]*|[A-Za-z_]\w*|\d[\w.]*|.""", re.S | re.M)


def add_implicit_int(text: str) -> str:
    """``text`` with ``int`` inserted where a declaration has no type: ``name`` followed by
    ``(``, ``;``, ``,``, ``=`` or ``[`` where a file-scope declaration starts (no statement
    can), and ``<storage class> name`` followed by the same anywhere. Unchanged when there
    is none."""
    toks = [(m.group(), m.start()) for m in _TOKEN.finditer(text)
            if not m.group()[:1].isspace() and not m.group().startswith(("//", "/*"))
            and not m.group().lstrip().startswith("#")]
    inserts, fresh = [], True
    blocks: list[bool] = []  # per open brace: a function body or compound statement?
    prev = ";"
    for k, (tok, pos) in enumerate(toks):
        if fresh and (_ident(tok) or tok in _STORAGE):
            j = k
            while j < len(toks) and toks[j][0] in _STORAGE:
                j += 1
            name, after = (toks[j] if j < len(toks) else ("", 0)), (
                toks[j + 1][0] if j + 1 < len(toks) else "")
            if _ident(name[0]) and after in (";", ",", "=", "[", "(") and (j > k or not blocks):
                inserts.append(name[1])
        closed = False
        if tok == "{":
            blocks.append(prev in (")", ";", "{", "}", "else", "do", ":"))
        elif tok == "}" and blocks:
            closed = blocks.pop()
        in_code = not blocks or blocks[-1]
        # a declaration may start after ';' or a block's braces, in code (not in a struct
        # body or an initializer, nor after the '}' that ends a struct's body)
        fresh = in_code and (tok == ";" or tok == "{" and blocks[-1] or tok == "}" and closed)
        prev = tok
    if not inserts:
        return text
    out, last = [], 0
    for p in inserts:
        out += [text[last:p], "int "]
        last = p
    return "".join(out + [text[last:]])


def _ident(tok: str) -> bool:
    return bool(tok) and (tok[0].isalpha() or tok[0] == "_") and tok not in _KEYWORDS


def prototyped(ast: c_ast.FileAST) -> c_ast.FileAST:
    """Every K&R function definition of ``ast`` rewritten in place as a prototyped one
    (``f(a, b) float *a; {`` -> ``f(float *a, int b) {``: a parameter without a declaration
    is an ``int``), so that the later stages see one form of parameters."""
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.param_decls:
            _prototype(ext)
        elif isinstance(ext, c_ast.FuncDef) and isinstance(
                getattr(ext.decl.type, "args", None), c_ast.ParamList) and any(
                isinstance(p, c_ast.ID) for p in ext.decl.type.args.params):
            _prototype(ext)
    return ast


def _prototype(fn: c_ast.FuncDef) -> None:
    decls = {d.name: d for d in fn.param_decls or [] if isinstance(d, c_ast.Decl)}
    params = []
    for p in fn.decl.type.args.params:
        if isinstance(p, c_ast.ID):
            d = decls.get(p.name) or c_ast.Decl(
                p.name, [], [], [], [], c_ast.TypeDecl(p.name, [], None, c_ast.IdentifierType(
                    ["int"], p.coord), p.coord), None, None, p.coord)
            params.append(d)
        else:
            params.append(p)
    fn.decl.type.args = c_ast.ParamList(params, fn.decl.type.args.coord)
    fn.param_decls = None
