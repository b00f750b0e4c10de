"""Every file gcc accepts is considered loop by loop (issue 37): a directive whose statement
is a directive, regions inside preprocessor conditionals, OpenMP 4.x/5.x clauses, old-style C.
Each program is built with gcc -fopenmp and with ompcl, and run on every path against it."""
from __future__ import annotations

from pathlib import Path

import pytest

from ompcl.frontend.preprocess import CppOptions
from ompcl.pipeline import Options, translate

from conftest import device_runs, every_path, gcc_build, ompcl_build

FAST = ("1", "2", "3")


def _built(tmp_path: Path, name: str, text: str, *flags: str) -> tuple[Path, Path, Path]:
    src = tmp_path / name
    src.write_text(text)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref, list(flags))
    res = ompcl_build([src], exe, *flags)
    assert res.returncode == 0, res.stderr
    return src, ref, exe


def _report(src: Path, *defines: str) -> dict[int, str]:
    """Line of each loop's directive -> 'offloaded' or the id of the reason it is not."""
    u = translate(str(src), Options(cpp=CppOptions(defines=defines)))
    out = {r.loc.line: "offloaded" if r.offload else r.reasons[0].id for r in u.regions}
    out.update({m.loc.line: m.id for m in u.remarks if m.missed and m.loc.line not in out})
    return out


# -- 1. a directive whose statement is a directive ------------------------------------------

NESTED = """#include <stdio.h>
#define N 4096
double a[N], b[N];
int main(void) {
  int i, k = 0, m = 0;
  double s = 0.0;
#pragma omp parallel
#pragma omp atomic
  k++;
#pragma omp parallel
#pragma omp for
  for (i = 0; i < N; i++) a[i] = 0.25 * i;
#pragma omp parallel
#pragma omp for simd reduction(+: s)
  for (i = 0; i < N; i++) s += a[i];
  if (k > 0)
#pragma omp parallel
#pragma omp single
#pragma omp task
    m = 7;
  for (int r = 0; r < 2; r++)
#pragma omp parallel
#pragma omp for
    for (i = 0; i < N; i++) b[i] += a[i] + r;
  printf("%d %d %.3f %.3f\\n", k, m, s, b[N - 1]);
  return 0;
}
"""


def test_directive_whose_statement_is_a_directive(tmp_path):
    """STREAM's 'parallel' / 'atomic' / 'k++;' (the atomic counts the team: it stays on the
    host), and 'parallel' / 'for' / loop, which is a 'parallel for' and is offloaded, also
    as the body of an 'if' or a 'for' (pycparser groups those pragmas itself)."""
    src, ref, exe = _built(tmp_path, "nested.c", NESTED)
    refs = every_path(ref, exe, 1e-12, threads=FAST)
    assert refs["3"].startswith("3 7 ")
    assert _report(src) == {10: "offloaded", 13: "offloaded", 22: "offloaded"}


#: AMGmk's 'parallel' / 'master' / a team query: the team of one's text starts after both
#: directive lines (the 'master' line was edited at an offset before that text: the
#: translated file did not compile and the original was built)
MASTER_QUERY = """#include <stdio.h>
#include <omp.h>
double a[1000];
int main(void) {
  int max_num_threads = 0, i;
  #pragma omp parallel
  #pragma omp master
    max_num_threads = omp_get_num_threads();
#pragma omp parallel for
  for (i = 0; i < 1000; i++) a[i] = 0.5 * i + max_num_threads;
  printf("%d %.3f\\n", max_num_threads, a[999]);
  return 0;
}
"""


def test_master_as_the_statement_of_a_parallel_region(tmp_path):
    src, ref, exe = _built(tmp_path, "master.c", MASTER_QUERY)
    refs = every_path(ref, exe, 0.0, threads=FAST)
    assert refs["3"].startswith("3 ")
    assert _report(src) == {9: "offloaded"}
    assert device_runs(exe) in (None, [1])


# -- 2. regions inside #if / #else / #endif arrangements -------------------------------------

CONDITIONAL = """#include <stdio.h>
#define N 2048
double a[N], b[N];
int main(void) {
  int i, it;
  double norm = 0.0;
#pragma omp parallel private(it)
  {
  b[0] = 0.0;
#if SPLIT
  }
#endif
  for (it = 0; it < 3; it++) {
#if SPLIT
#pragma omp parallel for
#else
#pragma omp for
#endif
    for (i = 0; i < N; i++) a[i] = i * 0.5 + it;
#if SPLIT
#pragma omp parallel for reduction(+: norm)
#else
#pragma omp for reduction(+: norm)
#endif
    for (i = 0; i < N; i++) norm += a[i];
  }
#if !SPLIT
  }
#endif
#pragma omp parallel for
#if SPLIT
  for (i = 0; i < N; i++) b[i] = 2.0 * a[i];
#else
  for (i = 0; i < N; i++) b[i] = a[i] + a[i];
#endif
  printf("%.3f %.3f %.3f\\n", norm, a[N - 1], b[N - 1]);
  return 0;
}
"""


@pytest.mark.parametrize("split", ["0", "1"])
def test_regions_inside_preprocessor_conditionals(tmp_path, split):
    """PRK Stencil's shape: a parallel region whose closing brace stands in '#if !SPLIT' after
    another in '#if SPLIT' (braces of skipped branches were matched: the splice ended at the
    first and cut the '#if' from its '#endif'), directives chosen by '#if/#else', and a loop
    whose statement is chosen by one: each splice takes whole conditionals."""
    src, ref, exe = _built(tmp_path, "cond.c", CONDITIONAL, f"-DSPLIT={split}")
    every_path(ref, exe, 1e-12, threads=FAST)
    lines = {17, 23} if split == "0" else {15, 21}
    assert _report(src, f"SPLIT={split}") == {**dict.fromkeys(lines, "offloaded"),
                                              30: "offloaded"}


# -- 3. OpenMP 4.x/5.x clauses: parsed, and kept on the host where the device does not honour
# them ---------------------------------------------------------------------------------------

CLAUSES = """#include <stdio.h>
#define N 1000
double a[N], b[N], c[N];
int hist[8];
int main(void) {
  int i, j = 0, last = -1, k = 0;
  double s = 0.0, t = 0.0;
#pragma omp parallel for simd aligned(a, b : 32) safelen(8) simdlen(4) proc_bind(close) if(parallel: N > 10)
  for (i = 0; i < N; i++) { a[i] = i * 0.5; b[i] = N - i; }
#pragma omp parallel for simd schedule(nonmonotonic: dynamic, 16) order(concurrent) nontemporal(c)
  for (i = 0; i < N; i++) c[i] = a[i] + b[i];
#pragma omp parallel for linear(j : 2)
  for (i = 0; i < N; i++) { c[i] += j; j += 2; }
#pragma omp parallel for lastprivate(conditional: last)
  for (i = 0; i < N; i++) if (a[i] > 100.0 && i % 7 == 0) last = i;
#pragma omp parallel for
  for (i = 0; i < N; i++) {
#pragma omp atomic update seq_cst
    hist[i % 8] += 1;
  }
#pragma omp parallel for
  for (i = 0; i < N; i++) {
#pragma omp atomic relaxed
    hist[i % 8] += 2;
  }
#pragma omp parallel for reduction(+: s) allocate(s)
  for (i = 0; i < N; i++) s += c[i];
#pragma omp target teams distribute parallel for map(tofrom: c[0:N]) reduction(+: t)
  for (i = 0; i < N; i++) t += c[i] * 0.5;
#pragma omp parallel
#pragma omp masked filter(0)
  k += 1;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(strict: 100) nogroup
  for (i = 0; i < N; i++) b[i] = 2 * a[i];
#pragma omp taskwait
  printf("%.6f %.6f %d %d %d %d %d %.6f\\n", s, t, j, last, hist[0], hist[7], k, b[N - 1]);
  return 0;
}
"""


def test_openmp5_clauses_are_parsed_and_kept_on_the_host(tmp_path):
    """Hints (aligned, safelen, simdlen, nontemporal, order, proc_bind, allocate, schedule and
    if modifiers) leave a loop offloaded, as does a linear variable the body steps;
    lastprivate(conditional:) and taskloop keep it on OpenMP, with a remark; an atomic update
    with a memory order in a loop without atomic reads runs relaxed (``test_gnu_atomics``), a
    combined target loop on the device (``test_target_loops``)."""
    src, ref, exe = _built(tmp_path, "clauses.c", CLAUSES)
    every_path(ref, exe, 1e-12, threads=FAST)
    assert _report(src) == {8: "offloaded", 10: "offloaded", 12: "offloaded", 14: "clause",
                            16: "offloaded", 21: "offloaded", 26: "offloaded",
                            28: "offloaded", 35: "construct"}


# -- 4. old C that gcc accepts: K&R definitions and implicit int -----------------------------

OLD_STYLE = """#include <stdio.h>
#include <stdlib.h>
extern layer_size;
static rounds = 2;
layer_size = 64;

scale_weights(w, m, n, f)
float **w;
int m, n;
double f;
{
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      w[i][j] = w[i][j] * f + i - j;
  return m * n;
}

sum(a, n) double *a;
{
  register i;
  double s = 0.0;
#pragma omp parallel for reduction(+: s)
  for (i = 0; i < n; i++) s += a[i];
  return (int) s;
}

main(argc, argv)
int argc;
char **argv;
{
  register r, i;
  float **w = malloc(layer_size * sizeof *w);
  double *a = malloc(1000 * sizeof *a);
  int cells = 0;
  for (i = 0; i < layer_size; i++) w[i] = calloc(layer_size, sizeof **w);
#pragma omp parallel for
  for (i = 0; i < 1000; i++) a[i] = i * 0.5;
  for (r = 0; r < rounds; r++) cells += scale_weights(w, layer_size, layer_size, 1.5);
  printf("%d %d %.3f %.3f\\n", cells, sum(a, 1000), w[3][5], w[63][0]);
  return 0;
}
"""


def test_old_style_c_is_considered_loop_by_loop(tmp_path):
    """NPB 3.0's and Rodinia's old C: 'main(argc, argv) int argc; char **argv; {', a K&R
    definition with a parameter left to int, 'extern layer_size;', 'register i;' (the whole
    file fell back to the host, [parse-fallback]); the host output keeps the user's text."""
    src, ref, exe = _built(tmp_path, "knr.c", OLD_STYLE, "-w")
    every_path(ref, exe, 1e-12, threads=FAST)
    assert _report(src) == {13: "offloaded", 24: "offloaded", 38: "offloaded"}  # w: a tree
    host = translate(str(src)).host_source
    assert "\nmain(argc, argv)\nint argc;" in host and "extern layer_size;" in host


COMPLEX_I = r"""
#include <stdio.h>
#include <complex.h>
int main(void) {
  static double a[4096];
  int i, inside = 0;
#pragma omp parallel for
  for (i = 0; i < 4096; i++)
    a[i] = 0.5 * i;
#pragma omp parallel for reduction(+:inside)
  for (i = 0; i < 4096; i++) {
    double complex c = -2.0 + 2.5 * (i % 64) / 64.0 + I * ((i / 64) / 32.0), z = 0;
    int k;
    for (k = 0; k < 50 && cabs(z) <= 2.0; k++) z = z * z + c;
    inside += (k == 50);
  }
  printf("%d %.1f %.2f\n", inside, a[4095], cimag(2.0i + 1.5));
  return 0;
}
"""


def test_imaginary_constants_leave_the_other_loops_to_the_device(tmp_path):
    """complex.h's 'I' is GNU's imaginary constant '1.0iF', which ompcl's parser cannot read
    (the whole file fell back to the host): read as an unknown function's call, its loop
    stays on the host and the file's others are considered."""
    src, ref, exe = _built(tmp_path, "cplx.c", COMPLEX_I)
    every_path(ref, exe, 0.0, threads=FAST)
    report = _report(src)
    assert report[7] == "offloaded" and report[10] != "offloaded", report
    assert device_runs(exe) in (None, [1])


#: GNU C the parser cannot read, inside functions: typeof in a loop body, a statement
#: expression as an operand (the whole file fell back; later each such function was left as
#: written): read as stand-ins (the typeof with its operand, whose type ompcl works out), and
#: the file's loops run on the device, also after the statement expressions touched the
#: arrays the device holds
UNREAD_FUNCTIONS = r"""
#include <stdio.h>
#define N 4096
static double a[N], b[N];
static double weird(int k) { return ({ double t = a[k]; t; }) + 1.0; }
static void weird_write(int k) { a[k] = ({ double t = k; t * 3; }) + 0.5; }
static void odd(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < N; i++) { typeof(i) j = i * 2; b[i] += j; }
}
int main(void) {
  int i, step;
  double s = 0;
  for (step = 0; step < 3; step++) {
#pragma omp parallel for
    for (i = 0; i < N; i++) a[i] = i * 0.5 + step;
    s += weird(5 + step);
    weird_write(7);
#pragma omp parallel for
    for (i = 0; i < N; i++) b[i] = a[i] * 2.0;
    odd();
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < N; i++) s += b[i] * (i % 3);
  }
  printf("%.3f\n", s);
  return 0;
}
"""


def test_gnu_c_in_functions_is_read_as_stand_ins(tmp_path):
    src, ref, exe = _built(tmp_path, "gnu.c", UNREAD_FUNCTIONS)
    every_path(ref, exe, 0.0, threads=FAST)
    report = _report(src)
    # typeof(i) j: its type worked out (``analysis.typeofs``), declared 'int j' on the device
    assert report[9] == "offloaded", report
    assert [report[k] for k in (16, 20, 23)] == ["offloaded"] * 3, report
    assert device_runs(exe) in (None, [3, 3, 3, 3])


#: unreadable functions right after the includes (the line marker that re-announces the
#: line) and holding system-header macros on one line (va_start/va_arg leave line markers
#: inside the body): each is declared instead, and the lines after it keep their numbers
FIRST_UNREAD = r"""
#include <stdio.h>
#include <stdarg.h>
static int pick(int x) { return x ?: 7; }
static int first_arg(int n, ...) { va_list ap; va_start(ap, n); int d = va_arg(ap, int); \
va_end(ap); return d; }
#define N 1000
static double a[N];
int main(void) {
  int i;
  double s = 0;
#pragma omp parallel for
  for (i = 0; i < N; i++) a[i] = i * 0.5;
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < N; i++) s += a[i];
  printf("%.1f %d %d\n", s, pick(0), first_arg(1, 42));
  return 0;
}
"""


def test_unreadable_first_function_and_system_macros_in_one_line(tmp_path):
    src, ref, exe = _built(tmp_path, "first.c", FIRST_UNREAD)
    every_path(ref, exe, 0.0, threads=FAST)
    report = _report(src)
    assert [report[k] for k in (12, 14)] == ["offloaded"] * 2, report
    assert device_runs(exe) in (None, [1, 1])


#: GNU's conditional without a middle operand in a function with loops: the function is read
#: (it was left as written, its loops with it); the loop using one stays on the host
ELVIS = r"""
#include <stdio.h>
#define N 1000
static double a[N], b[N];
static void both(int k) {
  int i;
#pragma omp parallel for
  for (i = 0; i < N; i++) a[i] = i * 2.0;
  k = k ?: 5;
#pragma omp parallel for
  for (i = 0; i < N; i++) b[i] = a[i] + (i % 3 ?: k);
}
int main(void) {
  int i;
  double s = 0;
  both(0);
  for (i = 0; i < N; i++) s += a[i] + b[i];
  printf("%.1f\n", s);
  return 0;
}
"""


def test_conditionals_without_middle_operand_cost_only_their_loop(tmp_path):
    src, ref, exe = _built(tmp_path, "elvis.c", ELVIS)
    every_path(ref, exe, 0.0, threads=FAST)
    u = translate(str(src))
    assert [r.offload for r in u.regions] == [True, False]
    assert "'x ?: y'" in u.regions[1].reasons[0].message
    assert device_runs(exe) in (None, [1])


#: directives written as macros expanding to _Pragma (PRK's PRAGMA_OMP_FOR_SIMD, a PFOR of
#: one's own, PRAGMA(...) with clauses), on a line of their own: the host keeps the macro's
#: use as written; a macro that holds the loop too stays on the host
PRAGMA_MACROS = r"""
#include <stdio.h>
#include <stdlib.h>
#define PRAGMA(x) _Pragma(#x)
#define PRAGMA_OMP_FOR_SIMD PRAGMA(omp for simd)
#define PFOR PRAGMA(omp parallel for)
#define PARFOR(i, n) PRAGMA(omp parallel for) for (i = 0; i < n; i++)
int main(void) {
  long n = 100000, i, iter;
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  double s = 0, scalar = 3.0;
  PFOR
  for (i = 0; i < n; i++) { a[i] = 0; b[i] = i % 5; }
#pragma omp parallel private(iter)
  {
    for (iter = 0; iter < 5; iter++) {
      PRAGMA_OMP_FOR_SIMD
      for (i = 0; i < n; i++) a[i] += b[i] + scalar;
    }
  }
  PARFOR(i, n)
    b[i] += 1.0;
  PRAGMA(omp parallel for reduction(+:s))
  for (i = 0; i < n; i++) s += a[i] + b[i];
  printf("%.1f\n", s);
  return 0;
}
"""


def test_directives_from_pragma_macros(tmp_path):
    src, ref, exe = _built(tmp_path, "prk.c", PRAGMA_MACROS)
    every_path(ref, exe, 0.0, threads=FAST)
    report = _report(src)
    assert [report[k] for k in (12, 17, 23)] == ["offloaded"] * 3, report
    assert report[21] == "macro-expansion", report
    assert device_runs(exe) in (None, [1, 5, 1])


#: a user-defined reduction (OpenMP 4.0 ``declare reduction``): its identifier was an unknown
#: operator, an error that made the whole file fall back (the plain loop too)
DECLARED_REDUCTION = r"""
#include <stdio.h>
#define N 1000
static double a[N];
typedef struct { int lo, hi; } MM;
#pragma omp declare reduction(mm : MM : omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : \
    omp_out.lo, omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) \
    initializer(omp_priv = (MM){1 << 30, -(1 << 30)})
int main(void) {
#pragma omp parallel for
  for (int i = 0; i < N; i++) a[i] = i * 0.5;
  MM m = {1 << 30, -(1 << 30)};
#pragma omp parallel for reduction(mm:m)
  for (int i = 0; i < N; i++) {
    int v = (int)a[i] % 37;
    if (v < m.lo) m.lo = v;
    if (v > m.hi) m.hi = v;
  }
  printf("%d %d %.1f\n", m.lo, m.hi, a[N - 1]);
  return 0;
}
"""


def test_declared_reductions_keep_their_loop_on_the_host(tmp_path):
    src, ref, exe = _built(tmp_path, "udr.c", DECLARED_REDUCTION)
    every_path(ref, exe, 0.0, threads=FAST)
    assert _report(src) == {10: "offloaded", 13: "clause-type"}
    assert device_runs(exe) in (None, [1])
