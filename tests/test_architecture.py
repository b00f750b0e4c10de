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


def test_readme_lists_every_reason_id():
    from ompcl.diagnostics import REASONS
    readme = (codestats.PACKAGE.parent / "README.md").read_text()
    assert [k for k in REASONS if f"| `{k}` |" not in readme] == []
