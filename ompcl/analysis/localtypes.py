"""Types declared inside functions, moved to file scope: a function's tree -> the same tree in
which each struct, union, named enum and typedef declared in its blocks is declared before
the function under a unique name (``ompcl_lt_<function>_<name>``), and every use of it is
renamed to match.

Code ompcl generates outside a function (the outlined host functions of its loops, the
kernel program) cannot name the function's own types; it can name file-scope copies of
them. Two functions may declare different types under one tag, and a local type may hide a
file-scope one: the unique names keep them apart. Only functions holding OpenMP directives
are rewritten; the host keeps the user's text (its own types, in the function), and the
host code ompcl adds passes the user's variables to the copies' types through ``void *``
(``call_cast``), with the copies declared ``may_alias`` (``host_definitions``): the same
layout, printed from the same declarations by the same compiler.

A type stays where it is, and a loop using it on the host (``analysis.regions``), where its
copy could not mean the same at file scope (``why_kept``): a size that depends on a
variable (``typedef double row[n]``), attributes ompcl does not read (``packed``,
``aligned``), a tag declared before it is defined, or a type it names that stays.

Consumes the program's tree and text; produces a tree (None when nothing moves).
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

from pycparser import c_ast

from ..frontend.pragma import is_omp_pragma
from ..frontend.program import Program, rebuilt
from ..frontend.textscan import MARKER
from ..ir import Storage
from .ctypes_ import C_PRINTER, walk
from .enums import function_enumerators, with_values

PREFIX = "ompcl_lt_"
_ATTRIBUTES = re.compile(r"__attribute__|__declspec|_Alignas|\balignas\b|#\s*pragma\s+pack")
_TAGGED = (c_ast.Struct, c_ast.Union, c_ast.Enum)
_MAY_ALIAS = re.compile(r"\b(struct|union) (" + PREFIX + ")")
#: scope entries: the new name of a moved declaration, or KEPT for one that stays local (an
#: enumerator that stays: its value, which the copies read)
KEPT = None


def lifted(prog: Program) -> Program:
    """The program with the types declared inside its functions that hold directives
    declared before them (its directives bound anew in the new tree); itself when none."""
    ast = lifted_program(prog.ast, source_lines(prog.path, prog.source, prog.preprocessed))
    return prog if ast is None else rebuilt(prog, prog.source, ast, prog.preprocessed)


def lifted_program(ast: c_ast.FileAST, lines) -> c_ast.FileAST | None:
    """``ast`` with the types declared inside its functions that hold directives moved before
    them (``lines(file)``: a file's lines, to find attributes the parser drops); None when no
    type moves."""
    enums = _file_enumerators(ast)
    ext, changed = [], False
    for e in ast.ext:
        if isinstance(e, c_ast.FuncDef) and _has_directive(e) and _declares_types(e.body):
            mover = _Mover(e.decl.name, enums, lines)
            func = mover.function(copy.deepcopy(e))  # (deepcopy: shared specifiers stay shared)
            if mover.moved:
                ext += mover.moved + [func]
                changed = True
                continue
        ext.append(e)
    return c_ast.FileAST(ext, ast.coord) if changed else None


def is_lifted(name: str | None) -> bool:
    """Whether a type name, tag or enumerator is a moved copy's."""
    return bool(name) and name.startswith(PREFIX)


def mentions_lifted(node: c_ast.Node | None) -> bool:
    """Whether a tree names a moved type (or one of its enumerators)."""
    for n in walk(node) if node is not None else ():
        if isinstance(n, c_ast.IdentifierType) and any(is_lifted(x) for x in n.names) or \
                isinstance(n, (*_TAGGED, c_ast.ID)) and is_lifted(n.name):
            return True
    return False


def host_definitions(ast: c_ast.FileAST) -> list[tuple[c_ast.FuncDef, list[str]]]:
    """Each function with copies moved before it, and the host C declaring them: records
    ``may_alias`` (the outlined code reads the user's objects through them)."""
    out: list[tuple[c_ast.FuncDef, list[str]]] = []
    pending: list[str] = []
    for e in ast.ext:
        if isinstance(e, c_ast.FuncDef):
            if pending:
                out.append((e, pending))
            pending = []
        elif _is_moved(e):
            text = C_PRINTER.visit(e) + ";"
            pending.append(text if "{" not in text else _MAY_ALIAS.sub(
                r"\1 __attribute__((may_alias)) \2", text, count=1))
    return out


def call_cast(decl: c_ast.Decl, by_address: bool, name: str, pointer: bool = False,
              arithmetic: bool = False) -> str:
    """What a call passes for the user's variable ``name`` to a parameter ``decl`` typed with
    moved copies: the address or pointer (``pointer``: the variable is one, or an array)
    through ``void *`` (the user's type and the copy are distinct types of one layout), an
    ``arithmetic`` value (an enum's too) as it is, anything else read through its copy."""
    plain = f"&{name}" if by_address else name
    if not mentions_lifted(decl.type) or arithmetic and not by_address:
        return plain
    if by_address or pointer or isinstance(decl.type, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        return f"(void *)({plain})"
    t = copy.deepcopy(decl.type)
    t.declname = None
    ptr = C_PRINTER.visit(c_ast.Typename(None, [], None, c_ast.PtrDecl([], t)))
    return f"*({ptr})(void *)&{name}"


def layout_check(decl: c_ast.Decl, name: str, levels: int, k: int,
                 by_address: bool = False) -> str | None:
    """A compile-time check, at a call site inside the user's function, that the record
    the user's variable ``name`` holds (``levels`` pointer and array levels down) has the
    size and alignment of the record of parameter ``decl`` (typed with copies: attributes
    the parser drops, a ``#pragma pack``, could give the two other layouts): a block whose
    array type has a negative size otherwise, so the file fails to compile (``ompcl cc``
    builds the original) rather than read the data wrongly; None where ``decl`` names no
    moved type. ``by_address``: the parameter points to the variable."""
    t = copy.deepcopy(decl.type)
    if by_address and isinstance(t, c_ast.PtrDecl):
        t = t.type
    if not mentions_lifted(t):
        return None
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = None
    pointer = C_PRINTER.visit(c_ast.Typename(None, [], None, c_ast.PtrDecl([], t)))
    mine, theirs = name + "[0]" * levels, f"(*({pointer})0)" + "[0]" * levels
    return (f"{{ typedef char ompcl_layout_{k}[(sizeof({mine}) == sizeof({theirs}) && "
            f"__alignof__({mine}) == __alignof__({theirs})) ? 1 : -1] "
            f"__attribute__((unused)); }}")


def layout_checks(params) -> str:
    """The checks of ``layout_check`` for the parameters (``ir.HostParam``) of one region's
    call that pass the user's records to copies of their types, as text for the call's line."""
    checks = (layout_check(p.decl, p.var.name, len(p.var.ctype.dims) + p.var.ctype.pointer, k,
                           p.by_address) for k, p in enumerate(params)
              if p.var.ctype.record and p.var.storage != Storage.GENERATED)
    return "".join(f"{c} " for c in checks if c)


def why_kept(func: c_ast.FuncDef | None, name: str) -> str | None:
    """Why the type ``name`` declared inside ``func`` stays there (the moved ones no longer
    are), in a remark's words; None for an enumerator (of an unnamed enum: those stay)."""
    for n in walk(func.body) if func is not None else ():
        if isinstance(n, c_ast.Enumerator) and n.name == name:
            return None
        if isinstance(n, c_ast.Typedef) and n.name == name and any(
                isinstance(x, c_ast.ArrayDecl) and x.dim is not None and _variables(x.dim)
                for x in walk(n.type)):
            return "its size is known only at run time"
        if isinstance(n, _TAGGED) and n.name == name and _body(n) is None and not any(
                isinstance(m, type(n)) and m.name == name and _body(m) is not None
                for m in walk(func.body)):
            return "it is an incomplete type"
    return ("ompcl cannot copy its declaration out of the function: it has attributes, is "
            "declared before it is defined, or names a variable or such a type")


# -- the rewrite ------------------------------------------------------------------------------

def _has_directive(f: c_ast.FuncDef) -> bool:
    return any(isinstance(n, c_ast.Pragma) and is_omp_pragma(n.string or "")
               for n in walk(f.body))


def _declares_types(body: c_ast.Node) -> bool:
    return any(isinstance(n, c_ast.Typedef) or isinstance(n, _TAGGED) and n.name and
               _body(n) is not None for n in walk(body))


def _body(n: c_ast.Node):
    return n.values if isinstance(n, c_ast.Enum) else n.decls


def _file_enumerators(ast: c_ast.FileAST) -> set[str]:
    return {n.name for e in ast.ext if not isinstance(e, c_ast.FuncDef) for n in walk(e)
            if isinstance(n, c_ast.Enumerator)}


def _is_moved(e: c_ast.Node) -> bool:
    if isinstance(e, c_ast.Typedef):
        return is_lifted(e.name)
    return isinstance(e, c_ast.Decl) and e.name is None and isinstance(e.type, _TAGGED) and \
        is_lifted(e.type.name)


def _variables(node: c_ast.Node) -> bool:
    """Whether an expression names something other than an enumerator of a moved enum."""
    return any(isinstance(n, c_ast.ID) and not is_lifted(n.name) for n in walk(node))


def _fields(node: c_ast.Node) -> set[int]:
    return {id(n.field) for n in walk(node) if isinstance(n, c_ast.StructRef)}


class _Mover:
    """One function's rewrite: a stack of block scopes, each mapping the names declared in
    it (tags and ordinary names apart) to their copies' names, or ``KEPT``."""

    def __init__(self, func: str, enums: set[str], lines):
        self.func, self.enums, self.lines = func, enums, lines
        self.tags: list[dict] = [{}]
        self.ords: list[dict] = [{}]
        self.taken: set[str] = set()
        self.moved: list[c_ast.Node] = []
        self.values: dict[str, int] = {}  # the function's enumerators declared once

    def function(self, f: c_ast.FuncDef) -> c_ast.FuncDef:
        """``f`` (a copy, rewritten in place) with its types moved to ``self.moved``."""
        self.values = _unique_values(f)
        args = f.decl.type.args.params if f.decl.type.args else []
        self.ords[-1].update((p.name, KEPT) for p in args if getattr(p, "name", None))
        self._block(f.body)
        return f

    # scopes
    def _lookup(self, scopes: list[dict], name: str):
        for s in reversed(scopes):
            if name in s:
                return True, s[name]
        return False, None

    def _new_name(self, name: str) -> str:
        base = f"{PREFIX}{self.func}_{name}"
        new, k = base, 1
        while new in self.taken:
            new, k = f"{base}_{k}", k + 1
        self.taken.add(new)
        return new

    # statements
    def _block(self, node: c_ast.Compound) -> None:
        self.tags.append({})
        self.ords.append({})
        items = []
        for item in node.block_items or []:
            if isinstance(item, (c_ast.Decl, c_ast.Typedef)):
                item = self._declaration(item)
            else:
                self._visit(item)
            if item is not None:
                items.append(item)
        node.block_items = items
        self.tags.pop()
        self.ords.pop()

    def _visit(self, node: c_ast.Node) -> None:
        """Rename the uses of moved names in a statement (new scopes for its blocks)."""
        if isinstance(node, c_ast.Compound):
            self._block(node)
        elif isinstance(node, c_ast.For):
            self.tags.append({})
            self.ords.append({})
            for part in (node.init, node.cond, node.next, node.stmt):
                if isinstance(part, c_ast.DeclList):
                    for d in part.decls:
                        self._declaration(d, movable=False)
                elif part is not None:
                    self._visit(part)
            self.tags.pop()
            self.ords.pop()
        elif isinstance(node, (c_ast.Decl, c_ast.Typedef)):
            self._declaration(node, movable=False)  # (after a case label: it stays)
        else:
            for _, child in node.children():
                self._visit(child) if _is_statement(child) else self._rename(child)

    def _declaration(self, d: c_ast.Decl | c_ast.Typedef, movable: bool = True
                     ) -> c_ast.Node | None:
        """A block's declaration: moved (None: nothing of it stays), its type moved (the
        declaration of its variables, naming the copy), or renamed and kept local (always,
        unless ``movable``: a block item)."""
        defined = _defined(d)
        if (defined[0] or defined[1]) and movable and self._movable(d, defined):
            unnamed = _unnamed_record(d)
            if unnamed is not None:
                unnamed.name = d.name
                defined[0].append(d.name)
            for tag in defined[0]:
                self.tags[-1][tag] = self._new_name(tag)
            for name in defined[1]:
                self.ords[-1][name] = self._new_name(name)
            self._rename(d)
            return self._extract(d)
        self.tags[-1].update((t, KEPT) for t in defined[0])
        self.ords[-1].update((n, KEPT) for n in defined[1])
        self.ords[-1].update((n.name, self.values.get(n.name, KEPT)) for n in walk(d)
                             if isinstance(n, c_ast.Enumerator))
        self._rename(d)
        if isinstance(d, c_ast.Decl) and d.name:  # a variable hides an enumerator or typedef
            self.ords[-1][d.name] = KEPT
        for n in walk(d):  # definitions in casts, sizeof: local
            if isinstance(n, _TAGGED) and n.name and _body(n) is not None and \
                    not is_lifted(n.name):
                self.tags[-1][n.name] = KEPT
        return d

    def _movable(self, d: c_ast.Node, defined: tuple[list[str], list[str]]) -> bool:
        """Whether a declaration's copy at file scope would mean what it means here."""
        if isinstance(d, c_ast.Decl) and not _spec_defines(d):
            return False  # (a definition nested in an initialiser or a cast)
        if any(t in self.tags[-1] for t in defined[0]):
            return False  # declared before it is defined, in this block
        tags, ords = set(defined[0]), set(defined[1])
        type_part = d.type if isinstance(d, c_ast.Typedef) else _specifier(d.type)
        fields = _fields(type_part)
        for n in walk(type_part):
            if isinstance(n, _TAGGED) and n.name and n.name not in tags and _body(n) is None:
                found, new = self._lookup(self.tags, n.name)
                if found and new is KEPT:
                    return False
            elif isinstance(n, c_ast.IdentifierType):
                if any(self._lookup(self.ords, x) == (True, KEPT) for x in n.names):
                    return False
            elif isinstance(n, c_ast.ID) and id(n) not in fields and n.name not in ords:
                found, new = self._lookup(self.ords, n.name)
                if new is KEPT and (found or n.name not in self.enums):
                    return False
        return not self._attributes(d)

    def _attributes(self, d: c_ast.Node) -> bool:
        """Whether the declaration's text has attributes (the parser reads them as
        nothing): its lines, to one past its last (``} __attribute__((packed));``)."""
        coords = [n.coord for n in walk(d) if n.coord is not None]
        if not coords:
            return True
        lines = self.lines(coords[0].file)
        if lines is None:
            return True
        first, last = min(c.line for c in coords), max(c.line for c in coords)
        return bool(_ATTRIBUTES.search("\n".join(lines[max(0, first - 1):last + 1])))

    def _extract(self, d: c_ast.Node) -> c_ast.Node | None:
        """Move a renamed declaration's type definitions to ``moved``; what stays."""
        spec = _specifier(d.type)
        moved = d if isinstance(d, c_ast.Typedef) else c_ast.Decl(
            None, [], [], [], [], spec, None, None, coord=d.coord)
        values = {n.name: new for n in walk(moved) if isinstance(n, c_ast.ID)
                  for new in [self._lookup(self.ords, n.name)[1]] if isinstance(new, int)}
        self.moved.append(with_values(moved, values) if values else copy.deepcopy(moved))
        if isinstance(spec, c_ast.Enum) and spec.name is not None:
            spec.values = None  # (declarations sharing the specifier now name the copy)
        elif isinstance(spec, (c_ast.Struct, c_ast.Union)) and spec.name is not None:
            spec.decls = None
        return d if isinstance(d, c_ast.Decl) and d.name else None

    def _rename(self, node: c_ast.Node | None) -> None:
        """Give the uses of moved names in an expression or a declaration the copies' names
        (struct fields and members' names are no uses)."""
        if node is None:
            return
        fields = _fields(node)
        for n in walk(node):
            if isinstance(n, _TAGGED) and n.name:
                found, new = self._lookup(self.tags, n.name)
                if found and new is not KEPT:
                    n.name = new
            elif isinstance(n, c_ast.IdentifierType):
                n.names = [self._ordinary(x) for x in n.names]
            elif isinstance(n, c_ast.ID) and id(n) not in fields:
                n.name = self._ordinary(n.name)
            elif isinstance(n, c_ast.Enumerator) or isinstance(n, c_ast.Typedef):
                n.name = self._ordinary(n.name)
                if isinstance(n, c_ast.Typedef):
                    _declarator(n.type).declname = n.name

    def _ordinary(self, name: str) -> str:
        new = self._lookup(self.ords, name)[1]
        return new if isinstance(new, str) else name


def _unique_values(f: c_ast.FuncDef) -> dict[str, int]:
    """The values of the enumerators declared once in ``f`` (``enums``)."""
    names = [n.name for n in walk(f.body) if isinstance(n, c_ast.Enumerator)]
    return {k: v for k, v in function_enumerators(f).items() if names.count(k) == 1}


def _is_statement(node: c_ast.Node) -> bool:
    return isinstance(node, (c_ast.Compound, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If,
                             c_ast.Switch, c_ast.Case, c_ast.Default, c_ast.Label,
                             c_ast.Decl, c_ast.Typedef))


def _specifier(t: c_ast.Node) -> c_ast.Node:
    """The type specifier at the bottom of a declarator."""
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.FuncDecl, c_ast.TypeDecl)):
        t = t.type
    return t


def _declarator(t: c_ast.Node) -> c_ast.Node:
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    return t


def _unnamed_record(d: c_ast.Node) -> c_ast.Struct | c_ast.Union | None:
    """The unnamed struct or union a typedef defines (it gets the typedef's name as its tag:
    the copy's other typedefs, ``typedef struct {...} T, *PT``, name it through the tag)."""
    spec = _specifier(d.type)
    return spec if isinstance(d, c_ast.Typedef) and isinstance(
        spec, (c_ast.Struct, c_ast.Union)) and spec.name is None and spec.decls is not None \
        else None


def _spec_defines(d: c_ast.Decl) -> bool:
    """Whether a declaration's own type specifier is a definition (``struct q {...} x``)."""
    spec = _specifier(d.type)
    return isinstance(spec, _TAGGED) and spec.name is not None and _body(spec) is not None \
        and not isinstance(d.type, c_ast.FuncDecl)


def _defined(d: c_ast.Decl | c_ast.Typedef) -> tuple[list[str], list[str]]:
    """The tags and the ordinary names (typedef name, enumerators) a declaration defines."""
    tags, ords = [], []
    if isinstance(d, c_ast.Typedef):
        ords.append(d.name)
    elif not _spec_defines(d):
        return [], []
    for n in walk(d.type):
        if isinstance(n, _TAGGED) and n.name and _body(n) is not None:
            tags.append(n.name)
        elif isinstance(n, c_ast.Enumerator):
            ords.append(n.name)
    return list(dict.fromkeys(tags)), ords


def source_lines(path: str, source: str, preprocessed: str = ""):
    """A reader of a file's lines for ``lifted_program``: the program's text for its own
    file, else the file on disk (None where unreadable), each line followed by what the
    preprocessor left of it in ``preprocessed`` (with its line markers): after a ``#pragma
    pack`` every line reads as one."""
    own = source.splitlines()
    cache: dict[str, list[str] | None] = {}
    expanded = _expanded_lines(preprocessed)

    def lines(file: str) -> list[str] | None:
        if file not in cache:
            if file == path:
                cache[file] = list(own)
            else:
                try:
                    cache[file] = Path(file).read_text(errors="replace").splitlines()
                except OSError:
                    cache[file] = None
            for (f, k), text in expanded.items():
                if f == file and cache[file] is not None and 0 < k <= len(cache[file]):
                    cache[file][k - 1] += " " + text
        return cache[file]
    return lines


def _expanded_lines(preprocessed: str) -> dict[tuple[str, int], str]:
    """(file, line) -> the text the preprocessor left for it (``#pragma pack`` anywhere: each
    line after it reads as the pragma, so no record declared there moves; the prelude has
    removed attributes, ``frontend/prelude.h``)."""
    out: dict[tuple[str, int], str] = {}
    file, line, packed = "", 0, False
    for text in preprocessed.splitlines():
        m = MARKER.match(text)
        if m:
            line, file = int(m.group(1)), m.group(2)
            continue
        packed = packed or bool(re.match(r"\s*#\s*pragma\s+pack\b", text))
        if file:
            out[(file, line)] = "#pragma pack" if packed else text
        line += 1
    return out
