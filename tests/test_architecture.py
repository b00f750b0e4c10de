"""The package's layering: imports flow down the stages (cli → pipeline → codegen → transform
→ analysis → frontend, diagnostics and ir at the bottom), and every module says what it does."""
from __future__ import annotations

import ast

from ompcl.bench import codestats


def test_no_import_runs_up_the_stages():
    assert codestats.upward_imports() == []


def test_every_stage_is_known():
    assert {codestats.top(p) for p in codestats.modules()} <= set(codestats.LAYERS)


def test_layering_check_sees_relative_imports():
    stages = {s for _, s in codestats.imported_stages(codestats.PACKAGE / "pipeline.py")}
    assert {"analysis", "codegen", "frontend", "diagnostics", "ir"} <= stages


def test_every_module_opens_with_a_docstring():
    missing = [str(p) for p in codestats.modules()
               if p.stat().st_size and ast.get_docstring(ast.parse(p.read_text())) is None]
    assert missing == []


def _remarks_doc() -> str:
    """The remark-id tables (docs/remarks.md; README.md points there)."""
    return (codestats.PACKAGE.parent / "docs" / "remarks.md").read_text()


def test_docs_list_every_reason_id():
    from ompcl.diagnostics import REASONS
    assert [k for k in REASONS if f"| `{k}` |" not in _remarks_doc()] == []


#: where each id-taking constructor takes its id: positional index, else the keyword ``id``
_ID_ARG = {"Remark": 3, "remark": 2, "warning": 2, "Reason": 0}


def _emitted_ids() -> dict[str, list[str]]:
    """Every remark, warning or reason id written as a string literal where the package makes
    a ``Remark``, a ``Reason`` or calls ``Diagnostics.remark/warning``, with where."""
    found: dict[str, list[str]] = {}
    for path in codestats.modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            pos = _ID_ARG.get(f.id if isinstance(f, ast.Name) else getattr(f, "attr", ""))
            if pos is None:
                continue
            arg = next((k.value for k in node.keywords if k.arg == "id"),
                       node.args[pos] if len(node.args) > pos else None)
            for c in ast.walk(arg) if arg is not None else ():
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value:
                    where = f"{path.relative_to(codestats.PACKAGE.parent)}:{node.lineno}"
                    found.setdefault(c.value, []).append(where)
    return found


def test_every_emitted_remark_id_is_registered_and_documented():
    from ompcl.diagnostics import REASONS, REMARK_IDS
    found = _emitted_ids()
    assert {"offloaded", "distribute", "distribute-missed", "reorder-missed"} <= set(found)
    unregistered = {k: v for k, v in found.items() if k not in REASONS and k not in REMARK_IDS}
    assert unregistered == {}
    assert [k for k in REMARK_IDS if f"| `{k}` |" not in _remarks_doc()] == []
    assert set(REASONS).isdisjoint(REMARK_IDS)


def test_an_unregistered_remark_id_is_refused():
    import pytest

    from ompcl.diagnostics import Remark, SourceLoc
    with pytest.raises(ValueError, match="unregistered remark id 'no-such-id'"):
        Remark(SourceLoc("f.c", 1, 1), "message", "remark", "no-such-id")
    assert Remark(SourceLoc("f.c", 1, 1), "m", "remark", "distribute").format() == \
        "f.c:1:1: remark: m [distribute]"


def _relative_imports(path) -> set[str]:
    """The package's modules ``path`` imports relatively (inside functions too), dotted."""
    pkg = list(path.relative_to(codestats.PACKAGE).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = pkg[:len(pkg) - node.level + 1]
            if node.module:
                out.add(".".join(base + node.module.split(".")))
            else:
                out |= {".".join(base + [a.name]) for a in node.names}
    return out


def import_cycles() -> list[list[str]]:
    """Groups of modules that import each other, directly or round a circle (Tarjan)."""
    mods = {".".join(p.relative_to(codestats.PACKAGE).with_suffix("").parts): p
            for p in codestats.modules()}
    graph = {m: {d for d in _relative_imports(p) if d in mods and d != m}
             for m, p in mods.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return cycles


def test_no_modules_import_each_other():
    assert import_cycles() == []
    assert "driver.store" in _relative_imports(codestats.PACKAGE / "driver" / "manifest.py")


def test_one_identifier_regex():
    """C identifiers in text are matched with ``frontend.textscan.IDENT``, not a local copy."""
    import re

    from ompcl.frontend.textscan import IDENT
    copy = re.compile(r're\.(?:compile|findall|match|search|fullmatch)\(r"\[A-Za-z_\]\\w\*"')
    found = {str(p.relative_to(codestats.PACKAGE)) for p in codestats.modules()
             if copy.search(p.read_text())}
    assert found == {"frontend/textscan.py"}
    assert IDENT.findall("a1 = _b[2] + c_d;") == ["a1", "_b", "c_d"]


# -- sizes (issue 35's done-when figures) ------------------------------------------------------

def test_sizes_of_modules_functions_and_c_files():
    """The largest module ≤ 600 lines, the longest function ≤ 80, the 90th-percentile
    function ≤ 30, no C source or header of the package over 800 lines
    (``python -m ompcl.bench.codestats`` prints the figures)."""
    big = sorted(path for n, path in codestats.module_sizes() if n > 600)
    assert big == [], f"modules over 600 lines: {big}"
    long = [(n, name) for n, name in codestats.functions() if n > 80]
    assert long == [], f"functions over 80 lines: {long}"
    figures = codestats.figures()
    assert figures.p90_function <= 30
    assert figures.largest_c_file[0] <= 800, figures.largest_c_file
    assert codestats.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 0.9) == 10
