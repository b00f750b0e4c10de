"""``ompcl cc -Wall -Wextra -Werror``: generated code adds no warning, a translated file never
falls back for one (strict mode makes a fallback an error), and the user's own warnings come
out as the compiler gives them on the original: same file, line and column, nothing pointing
into a temporary file."""
from __future__ import annotations

import re
import subprocess

import pytest

from conftest import CORPUS
from test_cc import COMPILERS, OMPCL_CC, cc_env

WARN = ["-fopenmp", "-O2", "-Wall", "-Wextra"]
#: a user's warnings on lines ompcl rewrites: after a spliced loop, before probed host
#: statements, in a return value and after the instrumented function's entry
WARNING_SOURCE = """#include <stdio.h>
double a[100];
static int f(int n) { int k; for (k = 0; k < n; k++) a[k] = 2 * a[k]; return (int)a[3]; }
int main(void) { int i; int unused; int s = 0;
#pragma omp parallel for
for (i = 0; i < 100; i++) a[i] = i;
  a[5] = 1; int unused2; s = s + f(4); { int unused3; }
#pragma omp parallel for
for (i = 0; i < 100; i++) a[i] += i; int unused4;
printf("%f %d\\n", a[7], s); return s > 3u ? 0 : 1 + (s < 0u); }
"""
DIAG = re.compile(r"^(\S+?):(\d+):(\d+): (warning|error): (.*?)(?: \[-W[^\]]*\])?$", re.M)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One translation cache for the module: each file is translated once for both
    compilers."""
    return tmp_path_factory.mktemp("cache")


def _cc(tmp_path, cache, compiler, *args):
    env = cc_env(tmp_path, OMPCL_CC=compiler, OMPCL_CACHE_DIR=str(cache))
    return subprocess.run([*OMPCL_CC, *args], cwd=tmp_path, capture_output=True, text=True,
                          env=env)


def _clean_under_the_compiler(compiler: str, src) -> bool:
    return subprocess.run([compiler, *WARN, "-Werror", "-fsyntax-only", str(src)],
                          capture_output=True).returncode == 0


@pytest.mark.parametrize("compiler", COMPILERS)
def test_corpus_is_warning_free_through_ompcl_cc(tmp_path, cache, compiler):
    files = [f for f in sorted(CORPUS.glob("*.c")) if _clean_under_the_compiler(compiler, f)]
    assert len(files) >= 35  # the corpus is (nearly) warning-free C
    noisy = {}
    for f in files:
        res = _cc(tmp_path, cache, compiler, *WARN, "-Werror", "-c", str(f), "-o", "x.o")
        if res.returncode or res.stderr:
            noisy[f.name] = res.stderr[-600:]
    assert noisy == {}


@pytest.mark.parametrize("compiler", COMPILERS)
def test_users_warnings_point_where_the_compiler_points(tmp_path, cache, compiler):
    (tmp_path / "w.c").write_text(WARNING_SOURCE)
    alone = subprocess.run([compiler, *WARN, "-c", "w.c", "-o", "g.o"], cwd=tmp_path,
                           capture_output=True, text=True)
    ours = _cc(tmp_path, cache, compiler, *WARN, "-c", "w.c", "-o", "o.o")
    assert ours.returncode == 0, ours.stderr
    expected = sorted(DIAG.findall(alone.stderr))
    assert len(expected) >= 5
    assert sorted(DIAG.findall(ours.stderr)) == expected
    # -Werror: the translation fails as the original does, and only the compiler speaks
    strict = _cc(tmp_path, cache, compiler, *WARN, "-Werror", "-c", "w.c", "-o", "o.o")
    assert strict.returncode != 0
    assert "ompcl" not in strict.stderr and str(tmp_path / "tmp") not in strict.stderr
    assert {d[:3] for d in DIAG.findall(strict.stderr)} == {d[:3] for d in expected}
