"""Dependency files (``-MD``, ``-MMD``, ``-Wp,-MD,f``) written while compiling translated files.

Consumes the compiler command and what the driver renamed; rewrites, in place, every
dependency file the compiler wrote so that it names the user's source and headers (never the
temporary translated file, nor the runtime header ompcl added). The compiler's own
formatting is kept; only the renamed tokens change.
"""
from __future__ import annotations

import os
import re

_TOKEN = re.compile(r"(?<!\S)(?:\\.|[^\s\\])+")


def wants_deps(args: tuple[str, ...]) -> bool:
    """True when the command writes a dependency file as a side effect of compiling."""
    return any(a in ("-MD", "-MMD") or _wp_deps(a) for a in args)


def candidates(args: tuple[str, ...], sources: list[str]) -> set[str]:
    """Every file name the compiler may have written dependencies to (gcc and clang rules:
    ``-MF``, else the ``-o`` name with ``.d``, else the source's base name with ``.d``)."""
    out, prev = set(), ""
    for a in args:
        if prev == "-MF":
            out.add(a)
        elif a.startswith("-MF") and len(a) > 3:
            out.add(a[3:])
        elif prev == "-o" or (a.startswith("-o") and len(a) > 2 and prev != "-o"):
            out.add(os.path.splitext(a if prev == "-o" else a[2:])[0] + ".d")
        elif _wp_deps(a):
            out.add(a.split(",")[2])
        prev = a
    out.update(os.path.splitext(os.path.basename(s))[0] + ".d" for s in sources)
    return out


def _wp_deps(arg: str) -> bool:
    parts = arg.split(",")
    return len(parts) >= 3 and parts[0] == "-Wp" and parts[1] in ("-MD", "-MMD")


def escape(path: str) -> str:
    """A file name as gcc writes it in a make rule."""
    out = re.sub(r"(\\*)([ \t])", lambda m: m[1] * 2 + "\\" + m[2], path)
    return out.replace("$", "$$").replace("#", "\\#")


def rewrite(files: set[str], renames: dict[str, str], drop: set[str], marker: str,
            added: dict[str, list[str]] | None = None, phony: bool = False) -> list[str]:
    """Rewrite the dependency files among ``files`` that mention ``marker`` (the temporary
    directory): tokens in ``renames`` (plain paths) are renamed, tokens in ``drop`` removed
    with their rule when they are its target; the files ``added`` lists for a token (sources
    the translation inlined, which its compile never opened) follow it, with phony rules of
    their own with ``phony`` (``-MP``). Returns the files rewritten."""
    added = added or {}
    table = {escape(k): " ".join([escape(v), *map(escape, added.get(k, ()))])
             for k, v in renames.items()}
    table.update({escape(d): "" for d in drop})
    done = []
    for f in sorted(files):
        try:
            with open(f, encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
        except OSError:
            continue
        if marker not in text:
            continue
        for d in drop:  # -MP's phony rule for a dropped header goes with it
            text = re.sub(rf"^{re.escape(escape(d))}:[ \t]*\n", "", text, flags=re.M)
        rules = "".join(f"{escape(n)}:\n" for k, names in added.items() if phony
                        and escape(k) in text for n in names)
        new = _TOKEN.sub(lambda m: _rename(m[0], table), text)
        # a removed token may leave an empty continuation line behind
        new = re.sub(r"\\\n[ \t]*(?=\\\n)", "", new)
        new = re.sub(r"[ \t]*\\\n[ \t]*(?=\n|\Z)", "", new)
        new += rules if not rules or new.endswith("\n") else "\n" + rules
        with open(f, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(new)
        done.append(f)
    return done


def _rename(token: str, table: dict[str, str]) -> str:
    colon = token.endswith(":")
    name = token[:-1] if colon else token
    if name not in table:
        return token
    new = table[name]
    return new + ":" if colon and new else new
