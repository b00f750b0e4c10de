"""The program's other source files, as the translator may read them for called functions.

Consumes the main file's path, the include directories and the command's other sources;
produces the candidate files in a stable order. Kept apart from ``library`` (which parses
them) so a translation-cache lookup, which only needs their names and times, does not load
the parser.
"""
from __future__ import annotations

import os
from pathlib import Path


def candidate_sources(main: str, include_dirs: tuple[str, ...] = (),
                      sources: tuple[str, ...] = ()) -> list[Path]:
    """``OMPCL_SOURCES`` if set, else the command's other sources, the main file's directory
    and the include directories (NPB-style trees keep shared code in an include directory);
    the main file and repeats left out."""
    listed = os.environ.get("OMPCL_SOURCES", "")
    if listed:
        files = [Path(p) for p in listed.split(os.pathsep) if p]
    else:
        files = [Path(p) for p in sources]
        for d in (Path(main).resolve().parent, *map(Path, include_dirs)):
            files += sorted(d.glob("*.c")) if d.is_dir() else []
    me, seen, out = Path(main).resolve(), set(), []
    for f in files:
        r = f.resolve()
        if r != me and r not in seen and f.is_file():
            seen.add(r)
            out.append(f)
    return out
