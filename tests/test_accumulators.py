"""Per-thread accumulators (issue 37, analysis.accumulators): a parallel region whose threads
each add into their own row of a shared array, indexed by ``omp_get_thread_num()``, merged
after the region (k-means' partial centres, histogram codes). The region's device version
(a team of one) adds every iteration into row 0 with device atomics; the merges see the same
sums. Each program runs on every path against the original built with gcc; where a use could
tell a team of one from the team, the loop stays on the host."""
from __future__ import annotations

import pytest

from conftest import build_both, device_runs, every_path
from ompcl.pipeline import translate

FLAT = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int main(void) {
  int n = 200000, nb = 16, i, j, t, step;
  int nthreads = omp_get_max_threads();
  double *x = malloc(n * sizeof(double));
  long *part = calloc(nthreads * nb, sizeof(long));
  int **cnt = malloc(nthreads * sizeof(int *));
  long hist[16] = {0};
  int total[16] = {0};
  for (t = 0; t < nthreads; t++) cnt[t] = calloc(nb, sizeof(int));
  for (i = 0; i < n; i++) x[i] = (i * 37 % 1000) / 10.0;
  for (step = 0; step < 3; step++) {
#pragma omp parallel
    {
      int tid;
      tid = omp_get_thread_num();
#pragma omp for
      for (i = 0; i < n; i++) {
        int b = (int)(x[i] / 100.0 * nb);
        part[tid * nb + b] += (long)x[i] + step;
        cnt[tid][b]++;
      }
    }
    for (t = 0; t < nthreads; t++)
      for (j = 0; j < nb; j++) {
        hist[j] += part[t * nb + j];
        total[j] += cnt[t][j];
        part[t * nb + j] = 0;
        cnt[t][j] = 0;
      }
  }
  for (j = 0; j < nb; j++) printf("%d %ld %d\n", j, hist[j], total[j]);
  return 0;
}
"""

MERGED_IN_REGION = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int main(void) {
  int n = 100000, i, j;
  int nthreads = omp_get_max_threads();
  double *v = malloc(n * sizeof(double));
  double (*acc)[8] = calloc(nthreads, sizeof *acc);
  double q[8] = {0};
  for (i = 0; i < n; i++) v[i] = (i % 1000) * 0.25;
#pragma omp parallel private(j)
  {
    int me = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < n; i++) acc[me][i % 8] += v[i];
#pragma omp critical
    for (j = 0; j < 8; j++) q[j] += acc[me][j];
  }
  for (j = 0; j < 8; j++) printf("%.3f\n", q[j]);
  return 0;
}
"""

#: merged in the region by a loop over the rows after the updating loop's barrier, bounded by
#: the team's size; rows that start non-zero (a team of one must sum every row, not its own)
ROWS_AFTER_BARRIER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define NB 64
int main(void) {
  int i, b, t, nt = omp_get_max_threads(), n = 150000;
  double *x = malloc(n * sizeof *x);
  double (*partial)[NB] = malloc(nt * sizeof *partial);
  double hist[NB] = {0};
  for (t = 0; t < nt; t++) for (b = 0; b < NB; b++) partial[t][b] = 1.0 + t;
  for (i = 0; i < n; i++) x[i] = (i * 7919 % 1000) * 0.25;
#pragma omp parallel private(b, t)
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < n; i++)
      partial[tid][(int)x[i] % NB] += x[i];
#pragma omp for
    for (b = 0; b < NB; b++)
      for (t = 0; t < omp_get_num_threads(); t++)
        hist[b] += partial[t][b];
  }
  for (b = 0; b < NB; b++) printf("%d %.3f\n", b, hist[b]);
  return 0;
}
"""


@pytest.mark.parametrize("text", [FLAT, MERGED_IN_REGION, ROWS_AFTER_BARRIER],
                         ids=["merged-after", "critical", "rows-after-barrier"])
def test_per_thread_accumulators_run_on_the_device(text, tmp_path):
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, 1e-12)
    runs = device_runs(exe)
    assert runs is None or runs and all(r >= 1 for r in runs)


HOST_ONLY = {
    # a thread's row read by itself after the region: its contents depend on the team
    "row_read_alone": "for (j = 0; j < 4; j++) printf(\"%ld\\n\", part[j]);",
    # rows zeroed inside the region: a team of one would leave the others' stale rows
    "zeroed_in_region": None,
    # the thread number used otherwise than as an accumulator's row
    "tid_as_value": None,
    # the team's size used otherwise than as the bound of a merge over the rows
    "size_as_value": None,
}

BASE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int main(void) {
  int n = 1000, i, j, t, nt = omp_get_max_threads();
  long *part = calloc(nt * 4, sizeof(long)), total[4] = {0};
  long *out = calloc(n, sizeof(long));
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    ZERO
#pragma omp for
    for (i = 0; i < n; i++) { part[tid * 4 + i % 4] += i; VALUE }
  }
  for (t = 0; t < nt; t++) for (j = 0; j < 4; j++) total[j] += part[t * 4 + j];
  AFTER
  printf("%ld %ld\n", total[0], out[3]);
  return 0;
}
"""


@pytest.mark.parametrize("name", sorted(HOST_ONLY))
def test_uses_that_could_tell_the_team_keep_the_loop_on_the_host(name, tmp_path):
    zero = {"zeroed_in_region": "for (j = 0; j < 4; j++) part[tid * 4 + j] = 0;",
            "size_as_value": "out[1] = omp_get_num_threads();"}
    text = BASE.replace("ZERO", zero.get(name, ""))
    text = text.replace("VALUE", "out[i] = tid;" if name == "tid_as_value" else "")
    text = text.replace("AFTER", HOST_ONLY[name] or "")
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    (region,) = translate(str(src)).regions
    assert not region.offload
    assert any(r.id in ("thread-dependent", "team") for r in region.reasons), region.reasons


def _variant(seed: int) -> str:
    """A per-thread accumulator program drawn from ``seed``: element type, flat rows
    (``a[t * k + b]``), rows of a 2-D array or of a pointer tree, the update (``+=``,
    ``-=``, ``++``), a data-dependent bucket, the merge after the region or under
    ``critical``, several steps."""
    import random
    r = random.Random(seed)
    ctype = r.choice(("int", "long", "double"))
    k = r.randint(1, 40)
    shape = r.choice(("flat", "rows", "tree"))
    critical = r.random() < 0.4
    op = r.choice(("+=", "-=", "++"))
    fmt = "%.3f" if ctype == "double" else "%ld"
    cast = "(double)" if ctype == "double" else "(long)"
    at = {"flat": "acc[tid * K + b]", "rows": "acc[tid][b]", "tree": "acc[tid][b]"}[shape]
    row_t = {"flat": "acc[t * K + j]", "rows": "acc[t][j]", "tree": "acc[t][j]"}[shape]
    mine = row_t.replace("t * K", "tid * K").replace("[t]", "[tid]")
    decl = {"flat": f"{ctype} *acc = calloc((size_t)nt * K, sizeof *acc);",
            "rows": f"{ctype} (*acc)[K] = calloc((size_t)nt, sizeof *acc);",
            "tree": f"{ctype} **acc = malloc(nt * sizeof *acc);\n"
                    "  for (t = 0; t < nt; t++) acc[t] = calloc(K, sizeof **acc);"}[shape]
    update = f"{at}++;" if op == "++" else f"{at} {op} v[i] * (step + 1);"
    merge = (f"#pragma omp critical\n    for (j = 0; j < K; j++) total[j] += {cast}{mine};"
             if critical else "")
    after = "" if critical else (f"  for (t = 0; t < nt; t++) for (j = 0; j < K; j++) "
                                 f"total[j] += {cast}{row_t};\n")
    zero = f"  for (t = 0; t < nt; t++) for (j = 0; j < K; j++) {row_t} = 0;\n"
    return f"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define K {k}
int main(void) {{
  int n = {r.randint(1, 30000)}, i, j, t, step, nt = omp_get_max_threads();
  {ctype} *v = malloc((n + 1) * sizeof *v);
  {"double" if ctype == "double" else "long"} total[K] = {{0}};
  {decl}
  for (i = 0; i < n; i++) v[i] = ({ctype})((i * 37 + {seed}) % 101) / {4 if ctype == "double" else 1};
  for (step = 0; step < 3; step++) {{
#pragma omp parallel private(j)
  {{
    int tid = omp_get_thread_num();
#pragma omp for
    for (i = 0; i < n; i++) {{
      int b = (int)((i * 7 + step) % K);
      {update}
    }}
    {merge}
  }}
{after}{zero}  }}
  for (j = 0; j < K; j++) printf("{fmt}\\n", total[j]);
  return 0;
}}
"""


@pytest.mark.parametrize("seed", range(6))
def test_drawn_accumulator_programs_on_every_path(seed, tmp_path):
    """Drawn shapes of the pattern, each built by gcc and by ompcl and run on every path."""
    ref, exe = build_both(tmp_path, _variant(seed), f"acc{seed}.c")
    every_path(ref, exe, 1e-9)
    runs = device_runs(exe)
    assert runs is None or runs == [3]


#: a thread's own array summed in the loop and only merged after it (NPB's error_norm:
#: rms_local[m] = rms_local[m] + add * add, then '#pragma omp atomic rms[m] += rms_local[m]'),
#: merged under 'critical' too; and one also read otherwise (stays on the host)
NORMS = r"""
#include <stdio.h>
#include <math.h>
#define N 24
static double u[N][N][N][5], rms[5], top[5];
static void norms(int crit) {
  int i, j, k, m;
  double add;
  for (m = 0; m < 5; m++) rms[m] = 0.0;
#pragma omp parallel default(shared) private(i, j, k, m, add)
  {
    double rms_local[5];
    for (m = 0; m < 5; m++) rms_local[m] = 0.0;
#pragma omp for nowait
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        for (i = 0; i < N; i++)
          for (m = 0; m < 5; m++) {
            add = u[k][j][i][m] - 0.5;
            rms_local[m] = rms_local[m] + add * add;
          }
    if (crit) {
#pragma omp critical
      for (m = 0; m < 5; m++) rms[m] += rms_local[m];
    } else {
      for (m = 0; m < 5; m++) {
#pragma omp atomic
        rms[m] += rms_local[m];
      }
    }
  }
  for (m = 0; m < 5; m++) rms[m] = sqrt(rms[m] / (N * N * N));
}
static void peaks(void) {
  int i, m;
#pragma omp parallel private(i, m)
  {
    double mine[5] = {0, 0, 0, 0, 0};
#pragma omp for
    for (i = 0; i < N * N * N; i++)
      for (m = 0; m < 5; m++) mine[m] += u[0][0][i][m];
#pragma omp critical
    for (m = 0; m < 5; m++) if (mine[m] > top[m]) top[m] = mine[m];
  }
}
int main(void) {
  int i, j, k, m;
  for (k = 0; k < N; k++) for (j = 0; j < N; j++) for (i = 0; i < N; i++) for (m = 0; m < 5; m++)
    u[k][j][i][m] = (i * 3 + j * 5 + k * 7 + m) % 11 * 0.1;
  norms(0);
  for (m = 0; m < 5; m++) printf("%.12e\n", rms[m]);
  norms(1);
  for (m = 0; m < 5; m++) printf("%.12e\n", rms[m]);
  peaks();
  printf("%d\n", top[0] > 0);
  return 0;
}
"""


def test_thread_arrays_merged_after_the_loop(tmp_path):
    ref, exe = build_both(tmp_path, NORMS, "norms.c")
    every_path(ref, exe, 1e-10)
    regions = translate(str(tmp_path / "norms.c")).regions
    assert [r.offload for r in regions] == [True, False], [r.reasons for r in regions]
    runs = device_runs(exe)
    assert runs is None or runs[0] == 2
