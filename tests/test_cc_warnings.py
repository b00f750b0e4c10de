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


#: clean C89 (declarations first, no '//'), a loop that reads a const array
C89_SOURCE = """#include <stdio.h>
#include <stdlib.h>
static double work(const double *a, double *b, int n)
{
    double s = 0.0;
    int i;
#pragma omp parallel for reduction(+:s)
    for (i = 1; i < n - 1; i++) {
        b[i] = 0.5 * (a[i - 1] + a[i + 1]);
        s += b[i];
    }
    return s;
}
int main(void)
{
    int n = 10000, i;
    double *a = malloc(n * sizeof(double)), *b = calloc(n, sizeof(double));
    for (i = 0; i < n; i++) a[i] = i % 13;
    printf("%.1f\\n", work(a, b, n));
    return 0;
}
"""
STRICT_FLAGS = ["-std=c89", "-ansi -pedantic-errors", "-std=gnu89 -Wall -Werror",
                "-std=c99 -pedantic-errors -Wcast-qual -Wdeclaration-after-statement -Werror"]


@pytest.mark.parametrize("flags", STRICT_FLAGS)
@pytest.mark.parametrize("compiler", COMPILERS)
def test_strict_dialects_and_pedantic_builds_are_translated(tmp_path, cache, compiler, flags):
    """Old dialects and pedantic warnings as errors: ompcl's own code (C99, a kernel string
    longer than ISO C asks compilers to take, casts to the runtime's pointers) neither fails
    the translated build (strict mode: a fallback is an error) nor speaks."""
    (tmp_path / "c89.c").write_text(C89_SOURCE)
    res = _cc(tmp_path, cache, compiler, "-fopenmp", "-O2", *flags.split(), "c89.c", "-o", "p")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    subprocess.run([compiler, "-fopenmp", "-O2", *flags.split(), "c89.c", "-o", "ref"],
                   cwd=tmp_path, check=True)
    expected = subprocess.run(["./ref"], cwd=tmp_path, capture_output=True, text=True).stdout
    stats = tmp_path / "s.json"
    out = subprocess.run(["./p"], cwd=tmp_path, capture_output=True, text=True,
                         env={**cc_env(tmp_path), "OMPCL_STATS": str(stats)})
    assert out.returncode == 0 and out.stdout == expected and expected, out.stderr
    assert stats.exists()  # the translation's runtime ran: not the original
