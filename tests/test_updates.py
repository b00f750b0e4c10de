"""Arrays a loop only updates (analysis.updates): a thread's histogram in a team of one is one
array its iterations update with device atomics. Unit cases on parsed C, verdicts on whole
files, and programs built and run against gcc -fopenmp (1 and 2 threads, both buffer modes,
a failed launch's host path)."""
from __future__ import annotations

import pytest
from pycparser import c_ast, c_parser

from ompcl.analysis.updates import array_updates
from ompcl.frontend.preprocess import CppOptions
from ompcl.pipeline import Options, translate

PRELUDE = ("double w[64], src[64]; long h[8]; int key[64];\n"
           "void bump(double *p, int k) { p[k] += 1.0; }\n"
           "void moves(double *p, int k) { p++; p[k] += 1.0; }\n"
           "void reads(double *p, int k) { p[k] = p[k] + 1.0; }\n")

CASES = [
    # (name, body of 'for (i = 0; i < 64; i++)', array, element type, (op, exact) or None)
    ("increment", "h[key[i] % 8]++;", "h", "long", ("+", True)),
    ("integer_sums_any_value", "h[key[i] % 8] += key[i]; h[0] -= 2;", "h", "long", ("+", True)),
    ("same_constant_double", "w[key[i]] += 1.0; if (src[i] > 0) w[0]++;", "w", "double",
     ("+", True)),
    ("different_constants_double", "w[key[i]] += 1.0; w[0] += 2.0;", "w", "double",
     ("+", False)),
    ("value_sums_double", "w[key[i]] += src[i];", "w", "double", ("+", False)),
    ("through_a_callee", "bump(w, key[i]);", "w", "double", ("+", True)),
    ("bitwise_or", "h[i % 8] |= key[i];", "h", "long", ("|", True)),
    ("mixed_operators", "h[i % 8] |= key[i]; h[0] += 1;", "h", "long", None),
    ("plain_write", "h[i % 8] = 1;", "h", "long", None),
    ("read", "h[i % 8]++; src[i] = h[0];", "h", "long", None),
    ("own_subscript", "h[h[0] % 8]++;", "h", "long", None),
    ("own_value", "h[i % 8] += h[1];", "h", "long", None),
    ("value_used", "src[i] = h[i % 8]++;", "h", "long", None),
    ("callee_moves_the_pointer", "moves(w, key[i]);", "w", "double", None),
    ("callee_reads", "reads(w, key[i]);", "w", "double", None),
    ("pointer_escapes", "double *p = w; p[0] += 1.0;", "w", "double", None),
]


def _body(body: str) -> tuple[c_ast.Node, dict]:
    src = PRELUDE + "void f(void) { int i;\nfor (i = 0; i < 64; i++) {" + body + "}\n}\n"
    ast = c_parser.CParser().parse(src)
    funcs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    return funcs["f"].body.block_items[-1].stmt, funcs


@pytest.mark.parametrize("name,body,array,base,verdict", CASES, ids=[c[0] for c in CASES])
def test_array_updates(name, body, array, base, verdict):
    stmt, funcs = _body(body)
    upd = array_updates(array, stmt, base, funcs.get)
    assert (upd and (upd.op, upd.exact)) == verdict or upd is verdict is None


def test_callee_parameters_are_recorded():
    stmt, funcs = _body("bump(w, key[i]);")
    assert array_updates("w", stmt, "double", funcs.get).params == (("bump", "p"),)


HIST = r"""#include <stdio.h>
#define N 20000
#define NB 16
int key[N];
double q[NB];
long hist[NB];
unsigned int bits[NB];
static void count(double h[NB], int k) { h[k] += 1.0; }
int main(void)
{
    int i;
    for (i = 0; i < N; i++)
        key[i] = (int)((i * 7919L) % 1000);
    for (i = 0; i < NB; i++) { q[i] = 0.0; hist[i] = 0; bits[i] = 0; }
#pragma omp parallel private(i)
    {
        double qq[NB];
        long hh[NB];
        unsigned int bb[NB];
        long k;
        for (i = 0; i < NB; i++) { qq[i] = 0.0; hh[i] = 0; bb[i] = 0; }
#pragma omp for schedule(static)
        for (k = 0; k < N; k++) {
            count(qq, key[k] % NB);
            hh[key[k] / 100]++;
            hh[NB - 1] -= key[k] % 3;
            bb[k % NB] ^= (unsigned int)key[k] * 2654435761u;
        }
#pragma omp critical
        {
            for (i = 0; i < NB; i++) { q[i] += qq[i]; hist[i] += hh[i]; bits[i] ^= bb[i]; }
        }
    }
    for (i = 0; i < NB; i++)
        printf("%d %.17g %ld %u\n", i, q[i], hist[i], bits[i]);
    return 0;
}
"""

ORDERED = r"""double q[8], src[100];
void f(void) {
#pragma omp parallel
  {
    double qq[8];
    int i, k;
    for (i = 0; i < 8; i++) qq[i] = 0.0;
#pragma omp for
    for (k = 0; k < 100; k++)
      qq[k % 8] += src[k];
#pragma omp critical
    for (i = 0; i < 8; i++) q[i] += qq[i];
  }
}
"""


def _remarks(tmp_path, text: str):
    src = tmp_path / "t.c"
    src.write_text(text)
    return {(m.loc.line, m.id) for m in translate(str(src), Options(CppOptions())).remarks}


def test_histogram_loop_is_offloaded(tmp_path):
    assert (22, "offloaded") in _remarks(tmp_path, HIST)


def test_floating_sums_in_another_order_stay_on_the_host(tmp_path):
    """Adding data to a thread's double array: atomics would add in another order, so the
    bits could change; the loop keeps the 'update-order' reason."""
    assert (8, "update-order") in _remarks(tmp_path, ORDERED)


def test_histogram_runs_on_the_device(tmp_path, opencl_available):
    """Built and run: the same counts as gcc -fopenmp with 1 and 2 threads, in both buffer
    modes, on the device (stats), and when the launch fails (the host path runs the
    iterations on the one thread)."""
    from conftest import gcc_build, load_stats, ompcl_build, run
    src = tmp_path / "h.c"
    src.write_text(HIST)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    expected = run(ref, OMP_NUM_THREADS="1").stdout
    assert run(ref, OMP_NUM_THREADS="2").stdout == expected
    stats = tmp_path / "s.json"
    for threads in ("1", "2"):
        for zero_copy in ("0", "1"):
            out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                      OMPCL_STATS=str(stats), OMP_NUM_THREADS=threads)
            assert out.returncode == 0, out.stderr
            assert out.stdout == expected
            if opencl_available:
                assert load_stats(stats)["regions"][0]["device_runs"] == 1
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_FAULT="launch", OMP_NUM_THREADS=threads)
        assert out.returncode == 0, out.stderr
        assert out.stdout == expected
