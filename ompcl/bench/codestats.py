"""Code metrics of the ompcl package: module, function and C file sizes, and imports that run
up the stages (``cli → pipeline → codegen → transform → analysis → frontend``, with ``diagnostics``
and ``ir`` at the bottom).

Usage: ``python -m ompcl.bench.codestats`` (prints the figures; exit 1 on an upward import).
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]

#: top-level module or subpackage -> its stage; a module may import only lower stages (or
#: its own subpackage)
LAYERS: dict[str, int] = {
    "diagnostics": 0, "runtime": 0, "ir": 1, "frontend": 2, "analysis": 3, "transform": 4,
    "predict": 5, "codegen": 6, "unitcheck": 6, "kernelcheck": 6, "pipeline": 7, "outputs": 8, "ccwrap": 8, "driver": 8,
    "demo": 9, "info": 9, "statsreport": 9, "bench": 9, "fuzz": 9, "cli": 10, "__init__": 0,
    "__main__": 11,  # the entry point: dispatches `ompcl cc` to driver, the rest to cli
}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def top(path: Path) -> str:
    """The stage a module belongs to: its subpackage or its own name."""
    rel = path.relative_to(PACKAGE).with_suffix("")
    return rel.parts[0]


def imported_stages(path: Path) -> list[tuple[int, str]]:
    """(line, stage) of every ompcl module ``path`` imports."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PACKAGE).with_suffix("").parts
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[:-node.level]) if path.name != "__init__.py" else \
                    list(rel[:len(rel) - node.level])
                parts = base + (node.module.split(".") if node.module else [])
                names = [parts] if node.module else [base + [a.name] for a in node.names]
            elif node.module and node.module.split(".")[0] == "ompcl":
                names = [node.module.split(".")[1:]]
            else:
                continue
            out += [(node.lineno, p[0]) for p in names if p]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name.split(".")[1]) for a in node.names
                    if a.name.startswith("ompcl.")]
    return out


def upward_imports() -> list[str]:
    """Every import from a module to a higher (or unknown) stage."""
    bad = []
    for path in modules():
        mine = top(path)
        for line, stage in imported_stages(path):
            if stage == mine:
                continue
            if LAYERS.get(stage, 99) >= LAYERS.get(mine, -1):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {mine} imports {stage}")
    return bad


def functions() -> list[tuple[int, str]]:
    """(lines, qualified name) of every function and method."""
    out = []
    for path in modules():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((node.end_lineno - node.lineno + 1,
                            f"{path.relative_to(PACKAGE.parent)}:{node.lineno}:{node.name}"))
    return sorted(out)


def module_sizes() -> list[tuple[int, str]]:
    """(lines, path) of every Python module, smallest first."""
    return sorted((len(p.read_text().splitlines()), str(p.relative_to(PACKAGE.parent)))
                  for p in modules())


def c_sizes() -> list[tuple[int, str]]:
    """(lines, path) of every C source and header of the package, smallest first."""
    paths = [p for p in PACKAGE.rglob("*") if p.suffix in (".c", ".h") and p.is_file()]
    return sorted((len(p.read_text().splitlines()), str(p.relative_to(PACKAGE.parent)))
                  for p in paths)


def percentile(lengths: list[int], q: float) -> int:
    """The ``q`` quantile (0..1) of sorted ``lengths``, as the figures take it (the nearest
    rank below)."""
    return lengths[int(q * (len(lengths) - 1))]


@dataclass(frozen=True)
class Figures:
    """The size figures of the package (issue 35's done-when figures)."""

    largest_module: tuple[int, str]
    longest_function: tuple[int, str]
    median_function: int
    p90_function: int
    largest_c_file: tuple[int, str]
    modules: int
    functions: int


def figures() -> Figures:
    sizes, funcs, cs = module_sizes(), functions(), c_sizes()
    lengths = [n for n, _ in funcs]
    return Figures(sizes[-1], funcs[-1], lengths[len(lengths) // 2], percentile(lengths, 0.9),
                   cs[-1] if cs else (0, ""), len(sizes), len(funcs))


def main() -> int:
    f = figures()
    print(f"modules: {f.modules}, largest: {f.largest_module[1]} ({f.largest_module[0]} lines)")
    print(f"functions: {f.functions}, median {f.median_function} lines, "
          f"90th percentile {f.p90_function} lines, longest: {f.longest_function[1]} "
          f"({f.longest_function[0]} lines)")
    print(f"C files: largest: {f.largest_c_file[1]} ({f.largest_c_file[0]} lines)")
    bad = upward_imports()
    print(f"imports up the stages: {len(bad)}")
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
