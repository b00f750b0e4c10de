"""Struct (and union) types in kernels: the struct definitions (and typedefs) the kernel
program needs, in file order, and the layout table (sizes and member offsets) that the
runtime compares between host and device before any kernel of the program runs.

Consumes the file's AST and the identifiers the kernel program uses; produces definition text
(OpenCL) and ``Layout`` entries: the same expression spelled for the host and the device.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pycparser import c_ast

from ..analysis.ctypes_ import TypeEnv, record_kind
from . import names as N
from ..transform.rename import device_name
from .cprinter import OpenCLPrinter, printed_names


@dataclass(frozen=True)
class Layout:
    """One number both sides must agree on: ``sizeof`` or a member offset."""

    host: str
    device: str


def _struct_of(ext: c_ast.Node) -> c_ast.Struct | c_ast.Union | None:
    t = getattr(ext, "type", None)
    while isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
        t = t.type
    return t if isinstance(t, (c_ast.Struct, c_ast.Union)) and t.decls is not None else None


def _members(s: c_ast.Struct) -> list[str]:
    return [d.name for d in s.decls or [] if d.name]


def _packed(s: c_ast.Struct, ext: c_ast.Node) -> bool:
    """Whether the user's text declares the struct ``__attribute__((packed))`` (the front end
    reads attributes as nothing): the lines from its declaration to a line past its last
    member, in its file."""
    coords = [c for c in (getattr(ext, "coord", None), s.coord) if c is not None]
    if not coords or not s.decls or s.decls[-1].coord is None:
        return False
    try:
        lines = Path(coords[0].file).read_text(errors="replace").split("\n")
    except OSError:
        return False
    first = min(c.line for c in coords) - 1
    text = " ".join(lines[max(0, first):s.decls[-1].coord.line + 2])
    return "__attribute__" in text and "packed" in text


def records(ast: c_ast.FileAST, env: TypeEnv, used: set[str]) -> tuple[list[str], list[Layout]]:
    """Definitions of the structs named in ``used`` (typedef names or ``ompcl_struct_tag``
    aliases) and of the structs they contain, with their layout entries."""
    printer = OpenCLPrinter(env)
    wanted, defs, layout, done = set(used), {}, [], set()
    changed = True
    while changed:  # members may name further structs
        changed = False
        for k, ext in enumerate(ast.ext):
            s = _struct_of(ext)
            if k in done:
                continue
            if s is None and isinstance(ext, c_ast.Typedef) and ext.name in wanted and \
                    env.ctype(ext.type) is not None and env.ctype(ext.type).record:
                done.add(k)  # typedef struct tag name; (the tag defined elsewhere)
                changed = True
                defs[k] = printer.visit(ext) + ";"
                wanted |= printed_names(ext, env)
                continue
            if s is None:
                continue
            kind = record_kind(s)
            alias = N.struct_alias(f"{kind} {s.name}") if s.name else None
            tname = ext.name if isinstance(ext, c_ast.Typedef) else None
            if not ({alias, tname, s.name} & wanted):
                continue
            done.add(k)
            changed = True
            text = printer.visit(c_ast.Decl(None, [], [], [], [], s, None, None)) + ";"
            if tname:  # typedef struct [tag] {...} name; (and the tag's alias: ``struct tag
                # *p`` spells it, as a typedef of a pointer to it does)
                text = printer.visit(ext) + ";" + (f"\ntypedef {kind} {s.name} {alias};"
                                                   if alias in wanted else "")
            elif alias:
                text += f"\ntypedef {kind} {s.name} {alias};"
            if _packed(s, ext):  # as the host packs it (the layout check confirms)
                text = text.replace(f"{kind} ", f"{kind} __attribute__((packed)) ", 1)
            defs[k] = text
            wanted |= printed_names(ext if tname else s, env) | {s.name, alias} - {None}
            host = tname or f"{kind} {s.name}"
            device = device_name(tname) if tname else alias
            layout.append(Layout(f"sizeof({host})", f"sizeof({device})"))
            layout += [Layout(f"__builtin_offsetof({host}, {m})", f"__builtin_offsetof({device}, "
                              f"{m})") for m in _members(s)]
    return [defs[k] for k in sorted(defs)], layout


def layout_kernel(layout: list[Layout]) -> str:
    """The kernel writing the device's side of the layout table."""
    body = "\n".join(f"  out[{k}] = (long)({e.device});" for k, e in enumerate(layout))
    return f"__kernel void {N.LAYOUT_KERNEL}(__global long *out)\n{{\n{body}\n}}\n"
