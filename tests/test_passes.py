"""The pass list: docs/translation.md's pass table names ``pipeline.PASS_NAMES`` in order, and
``ompcl translate FILE --dump-after NAME`` works for every pass, showing that pass's product
(tests/corpus/43_pass_tour.c has one of each kernel rewrite)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from ompcl.cli import main
from ompcl.pipeline import PASS_NAMES

from conftest import CORPUS, ROOT

TOUR = CORPUS / "43_pass_tour.c"

#: what the dump after each pass shows of the tour (a pass whose product the tour lacks: "")
SHOWS = {
    "parse": "omp parallel for",
    "reorder": "",  # no array whose uses agree on another order
    "indices": "",  # no local pointer into one array
    "analyze": "region 0: offload",
    "place": "region 0: bytes",
    "residency": "region 0:",
    "interchange": "for (j = 0; j < n; j++)",
    "outline": "ompcl_k3: 15 parameters",
    "device": "double twice(double x, double scale)",
    "linearize": "u[(i * n) + j] = i - j;",
    "callargs": "twice(a[i][0], scale)",
    "rename": "double ompcl_f_twice(double x, double scale)",
    "atomics": "ompcl_atomic_add_int(&hist[i % 16], 1);",
    "features": "ompcl_k2: features",
    "boundscheck": "OMPCL_AT(double, 0, 0, a[i][0])",
    "dynreorder": "ompcl_k3r (blocked shape): b perm=[1, 0]",
    "promote": "ompcl_k3:",
    "vectorize": "ompcl_k3:",
    "addrspace": "double ompcl_f_twice(double x, double scale)",
    "callee-atomics": "double ompcl_f_twice(double x, double scale)",
    "privatize": "OMPCL_PRIV_add_int(&OMPCL_AT(int, 0, 0, hist[i % 16]), 1);",
    "narrowing": "ompcl_k0: 64-bit counters",
    "tiling": "ompcl_k3: tiles of the two innermost loops",
    "reductions": "ompcl_k1: +:sum from 0",
    "jam": "ompcl_k0: iterations one at a time",
    "booleans": "ompcl_k0",
    "kernels": "__kernel void ompcl_k3",
    "host": "ompcl_region_1",
}


def _doc_table() -> list[str]:
    """The pass names of the table under '## The passes' in docs/translation.md, in order."""
    text = (ROOT / "docs" / "translation.md").read_text()
    section = text.split("\n## The passes\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([\w-]+)` \|", section, re.M)


def test_doc_table_lists_every_pass_in_order():
    assert _doc_table() == list(PASS_NAMES)


def test_readme_links_the_pass_table():
    assert "docs/translation.md#the-passes" in (ROOT / "README.md").read_text()


def test_every_pass_is_shown():
    assert set(SHOWS) == set(PASS_NAMES)


@pytest.mark.parametrize("name", PASS_NAMES)
def test_dump_after_each_pass(name, tmp_path, monkeypatch):
    """The dump after each pass, with the IR checks between passes on; nothing written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OMPCL_CHECK_IR", "1")
    res = CliRunner().invoke(main, ["translate", str(TOUR), "--dump-after", name])
    assert res.exit_code == 0, res.output
    dump = res.stderr.split(f"/* ---- after {name} ---- */\n", 1)[1]
    if SHOWS[name]:
        assert SHOWS[name] in dump
    else:
        assert dump.strip() == ""
    assert list(tmp_path.iterdir()) == []


def test_dump_after_from_the_command_line():
    """The command line offers every pass name (a hyphenated one too)."""
    res = subprocess.run([sys.executable, "-m", "ompcl", "translate", str(TOUR),
                          "--dump-after", "callee-atomics"], capture_output=True, text=True,
                         cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert "/* ---- after callee-atomics ---- */" in res.stderr


#: modules that match the user's own source text (host splicing, reordering the user's text),
#: which is allowed; nothing else in codegen or transform may match text with a regex
USER_TEXT = {"codegen/host.py", "codegen/hostloop.py", "transform/reorder.py"}


def test_no_regular_expression_over_generated_code():
    """The kernel side works on trees and typed values: no ``re`` and no identifier regex."""
    package = ROOT / "ompcl"
    found = []
    for path in sorted([*package.glob("codegen/*.py"), *package.glob("transform/*.py")]):
        rel = path.relative_to(package).as_posix()
        text = path.read_text()
        if rel not in USER_TEXT and (re.search(r"^import re$|^from re import", text, re.M)
                                     or re.search(r"\bIDENT\b", text)):
            found.append(rel)
    assert found == []
