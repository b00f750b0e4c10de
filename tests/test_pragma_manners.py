"""Directives as gcc treats them: an unknown one is ignored (a warning under -Wall), every bad
clause of a line is reported, --report says a missed loop once, --dump-after shows loop bounds
and writes no output directory unasked."""
from __future__ import annotations

import os
import subprocess

import pytest
from click.testing import CliRunner

from ompcl.cli import main
from test_cc import OMPCL_CC, cc_env

TYPO = """double a[100];
int main(void) { int i;
#pragma omp paralel for
for (i = 0; i < 100; i++) a[i] = i;
#pragma omp parallel for
for (i = 0; i < 100; i++) a[i] += i;
return 0; }
"""
BAD_CLAUSES = """double a[9];
int main(void) { int i;
#pragma omp parallel for privat(i) shred(a) schedule(statc) num_threads(2)
for (i = 0; i < 9; i++) a[i] = i;
return 0; }
"""
MISSED = """#include <stdio.h>
double a[100];
int main(void) { int i;
#pragma omp parallel for
for (i = 0; i < 100; i++) printf("%d\\n", i);
#pragma omp parallel for
for (i = 2; i < 98; i += 2) a[i] = i;
return 0; }
"""


def _in(tmp_path, name, text, *args):
    (tmp_path / name).write_text(text)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        return CliRunner().invoke(main, ["translate", name, *args])
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("flags, warned", [((), False), (("-Wall",), True),
                                           (("-Wunknown-pragmas",), True)])
def test_unknown_directive_is_ignored(tmp_path, flags, warned):
    res = _in(tmp_path, "t.c", TYPO, "--report", "-o", "out", *flags)
    assert res.exit_code == 0, res.output
    warning = ("t.c:3:13: warning: ignoring '#pragma omp paralel': unknown OpenMP directive "
               "'paralel'; did you mean 'parallel'? [unknown-pragma]")
    assert (warning in res.output) == warned
    # the loop under the typo is plain code; the next one is offloaded
    assert [x.split(":")[1] for x in res.output.splitlines()
            if "offloaded" in x and not x.startswith("summary")] == ["5"]
    assert "summary: 1 of 1 OpenMP loops offloaded" in res.output
    assert "#pragma omp paralel for" in (tmp_path / "out" / "t_host.c").read_text()


def test_ompcl_cc_leaves_the_warning_to_the_compiler(tmp_path):
    (tmp_path / "t.c").write_text(TYPO)
    res = subprocess.run([*OMPCL_CC, "-fopenmp", "-Wall", "-c", "t.c", "-o", "t.o"],
                         cwd=tmp_path, capture_output=True, text=True, env=cc_env(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stderr.count("paralel") >= 1 and "[unknown-pragma]" not in res.stderr
    assert "t.c:3" in res.stderr  # gcc's -Wunknown-pragmas, at the user's line


def test_every_bad_clause_of_a_line_is_reported(tmp_path):
    res = _in(tmp_path, "b.c", BAD_CLAUSES, "-o", "out")
    assert res.exit_code == 1
    errors = [x for x in res.output.splitlines() if ": error: " in x]
    assert [e.split(":")[2] for e in errors] == ["26", "36", "54"]
    assert "did you mean 'private'" in errors[0] and "did you mean 'shared'" in errors[1]
    assert not (tmp_path / "out").exists()


def test_report_says_a_missed_loop_once(tmp_path):
    res = _in(tmp_path, "m.c", MISSED, "--report", "-o", "out")
    assert res.exit_code == 0, res.output
    assert sum("printf" in line for line in res.output.splitlines()) == 1


def test_dump_after_analyze_shows_bounds_and_writes_nothing(tmp_path):
    res = _in(tmp_path, "m.c", MISSED, "--dump-after", "analyze")
    assert res.exit_code == 0, res.output
    assert "loops: i = 2; i < 98; step 2" in res.output
    assert sorted(os.listdir(tmp_path)) == ["m.c"]
