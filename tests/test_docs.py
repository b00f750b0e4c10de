"""The documentation keeps up with the code: every command and option of the command line,
and every ``OMPCL_*`` variable the package or its C runtime reads, has a table row in
``docs/`` (README.md keeps to what a newcomer needs and points there)."""
from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from ompcl.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
#: where the code reads variables: the package, the C runtime, the native launcher
PY_SOURCES = sorted((ROOT / "ompcl").rglob("*.py"))
C_SOURCES = sorted([*(ROOT / "ompcl" / "runtime").glob("*.[ch]"),
                    *(ROOT / "ompcl" / "driver").glob("*.c")])
#: a read of a variable in Python: os.environ.get / os.getenv / env.get (an environment
#: passed on) / os.environ[...] / the translator's switches (pipeline._knob)
PY_READ = re.compile(r"""(?:getenv|\.get|_knob)\(\s*["'](OMPCL_\w+)["']"""
                     r"""|environ\[\s*["'](OMPCL_\w+)["']\s*\]""")
#: in C every string literal that is a whole OMPCL_ name is a variable's name (getenv's
#: argument, or a table of names read with getenv)
C_READ = re.compile(r'"(OMPCL_\w+)"')
HEADING = re.compile(r"^#+ ")


def _sections() -> list[tuple[str, list[str]]]:
    """(heading, table rows under it until the next heading) of every docs file."""
    out = []
    for path in DOCS:
        heading, rows = path.name, []
        for line in path.read_text().splitlines():
            if HEADING.match(line):
                out.append((heading, rows))
                heading, rows = line, []
            elif line.startswith("|"):
                rows.append(line)
        out.append((heading, rows))
    return out


def _commands():
    """(path of names, command, context) of every command of ``ompcl``, groups included."""
    def walk(cmd, path, parent):
        # as make_context builds it (click caches the help option the first context makes)
        ctx = click.Context(cmd, info_name=path[-1] if path else "ompcl", parent=parent,
                            **cmd.context_settings)
        yield path, cmd, ctx
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                yield from walk(cmd.get_command(ctx, name), [*path, name], ctx)
    return list(walk(cli_main, [], None))


def _mentions(rows: list[str], name: str) -> bool:
    """Whether a table row names ``name`` in code (`--x`, `--x N`, `-o DIR`, `OMPCL_X=1`)."""
    pat = re.compile(rf"`{re.escape(name)}(?![\w-])")
    return any(pat.search(r) for r in rows)


def test_docs_exist_and_readme_points_to_each():
    readme = (ROOT / "README.md").read_text()
    assert len(DOCS) >= 6
    assert [p.name for p in DOCS if f"docs/{p.name}" not in readme] == []
    assert len(readme.splitlines()) < 120  # a newcomer's page, not the manual


def test_every_command_is_documented():
    text = "\n".join(p.read_text() for p in DOCS)
    names = [" ".join(["ompcl", *path]) for path, _, _ in _commands() if path]
    assert len(names) >= 15  # translate, build, cc, ..., and the bench commands
    assert [n for n in names if f"`{n}" not in text] == []


def test_every_option_of_every_command_has_a_table_row_under_its_heading():
    """Each command with options has a section whose heading names it (`ompcl bench nas`),
    whose tables have a row for each of its options' long and short names."""
    sections = _sections()
    missing = []
    for path, cmd, ctx in _commands():
        name = " ".join(["ompcl", *path])
        help_opt = cmd.get_help_option(ctx)
        options = [p for p in cmd.get_params(ctx)
                   if isinstance(p, click.Option) and p is not help_opt]
        if not options:
            continue
        rows = [r for h, rs in sections if f"`{name}`" in h for r in rs]
        if not rows:
            missing.append(f"{name}: no heading names it")
        for opt in options:
            missing += [f"{name} {o}" for o in [*opt.opts, *opt.secondary_opts]
                        if not _mentions(rows, o)]
    assert missing == []


def test_the_help_option_is_documented():
    rows = [r for _, rs in _sections() for r in rs]
    _, cmd, ctx = _commands()[0]
    for o in cmd.get_help_option(ctx).opts:
        assert _mentions(rows, o), o


def _read_variables() -> dict[str, str]:
    """Every OMPCL_ variable the code reads, with one place that reads it."""
    found = {}
    for paths, pattern in ((PY_SOURCES, PY_READ), (C_SOURCES, C_READ)):
        for path in paths:
            for n, line in enumerate(path.read_text().splitlines(), 1):
                for m in pattern.finditer(line):
                    var = next(g for g in m.groups() if g)
                    found.setdefault(var, f"{path.relative_to(ROOT)}:{n}")
    return found


def test_the_variable_scan_sees_reads_of_every_kind():
    found = _read_variables()
    assert {"OMPCL_DEVICE", "OMPCL_PROBE", "OMPCL_SHAPE"} <= set(found)  # C runtime
    assert {"OMPCL_CC", "OMPCL_INTERCHANGE", "OMPCL_SOURCES"} <= set(found)  # Python
    assert {"OMPCL_SERVER_WAIT", "OMPCL_LAUNCHER_DEBUG"} <= set(found)  # native launcher


def test_every_variable_the_code_reads_has_a_table_row():
    rows = [r for _, rs in _sections() for r in rs]
    missing = {v: where for v, where in _read_variables().items() if not _mentions(rows, v)}
    assert missing == {}


def test_every_variable_a_table_documents_is_read():
    """No row for a variable the code no longer reads (its first cell names it)."""
    read = set(_read_variables())
    documented = {v for _, rs in _sections() for r in rs
                  for v in re.findall(r"`(OMPCL_\w+)", r.split("|")[1])}
    assert documented and documented - read == set()


@pytest.mark.parametrize("doc", [p.name for p in DOCS])
def test_relative_links_resolve(doc):
    path = ROOT / "docs" / doc
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", path.read_text()):
        assert (path.parent / target).exists(), target


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", (ROOT / "README.md").read_text()):
        assert (ROOT / target).exists(), target
