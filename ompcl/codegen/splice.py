"""Splicing the user's text: edits applied to the original source, and the line markers and
indentation that keep the user's text after an edit at its own line and column.

Consumes source text, a ``frontend.textscan.Scanner`` over it and edits (start, end, text);
produces text. Used by the host printer (``codegen.host``) and its instrumentation
(``codegen.hostprobes``).
"""
from __future__ import annotations

from ..frontend.textscan import Scanner


def c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def c_lines(text: str) -> list[str]:
    esc = text.replace("\\", "\\\\").replace('"', '\\"').replace("?", "\\?")
    return [line + "\\n" for line in esc.split("\n")]


def indent_of(text: str) -> str:
    """Indentation of the loop statement (the line after the directive's)."""
    lines = text.split("\n")
    stmt = next((ln for ln in lines[1:] if ln.strip() and not ln.lstrip().startswith("#")), "")
    return stmt[: len(stmt) - len(stmt.lstrip())]


def apply_edits(src: str, edits: list[tuple[int, int, str]], base: int = 0) -> str:
    """``src`` with each edit (start, end, text), offsets relative to ``base``, applied."""
    out, pos = [], 0
    for s, e, t in sorted(edits, key=lambda x: (x[0], x[1])):
        out.append(src[pos:s - base])
        out.append(t)
        pos = e - base
    out.append(src[pos:])
    return "".join(out)


def resume(scan: Scanner, pos: int, path: str) -> str:
    """A line marker and indentation after which the user's text from ``pos`` on has the line
    and column it has in the user's file (a compiler's diagnostics then point at it)."""
    start = scan.starts[scan.line_of(pos) - 1]
    rest = scan.text[pos:scan.line_end(pos)].strip()
    pad = "".join(c if c == "\t" else " " for c in scan.text[start:pos]) if rest else ""
    return f'#line {scan.line_of(pos)} "{path}"\n{pad}'


def insert_before(scan: Scanner, pos: int, text: str, path: str) -> str:
    """``text`` to insert at ``pos``, ended so the user's text after it keeps its column."""
    rest = scan.text[pos:scan.line_end(pos)]
    return f"{text}\n{resume(scan, pos, path)}" if rest.strip() else text
