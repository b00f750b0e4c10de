"""Team queries in code one thread runs once (issue 37): a ``parallel`` region whose
``master`` block checks ``omp_get_num_threads()`` against the requested count (the Parallel
Research Kernels' style) still runs as a team of one with its loops on the device; the team
of one answers the query with the size the host's team would have. A query anywhere else,
or a region whose own clauses choose its size, keeps the region on the host. Run on every
path against gcc's build."""
from __future__ import annotations

from ompcl.pipeline import translate

from conftest import build_both, device_runs, every_path, run

CHECKED = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define N 400
static double a[N][N], b[N][N];
int main(int argc, char **argv) {
  int i, j, it, nthread = 0, err = 0, want = omp_get_max_threads();
  double norm = 0.0;
#pragma omp parallel private(i, j, it)
  {
#pragma omp master
    {
      nthread = omp_get_num_threads();
      if (nthread != want) err = 1;
      else printf("threads %d of %d, master %d\n", nthread, want, omp_get_thread_num());
    }
#pragma omp for
    for (j = 0; j < N; j++) for (i = 0; i < N; i++) { a[j][i] = i + 0.5 * j; b[j][i] = 0; }
    for (it = 0; it < 5; it++) {
#pragma omp for
      for (j = 1; j < N - 1; j++)
        for (i = 1; i < N - 1; i++)
          b[j][i] += 0.25 * (a[j-1][i] + a[j+1][i] + a[j][i-1] + a[j][i+1]);
#pragma omp for
      for (j = 0; j < N; j++) for (i = 0; i < N; i++) a[j][i] += 1.0;
    }
#pragma omp for reduction(+:norm)
    for (j = 0; j < N; j++) for (i = 0; i < N; i++) norm += b[j][i];
  }
  if (err) { printf("ERROR: asked for %d threads, got %d\n", want, nthread); return 1; }
  printf("norm %.6f\n", norm);
  return 0;
}
"""


def test_a_team_size_check_in_master_runs_its_loops_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, CHECKED, "checked.c")
    every_path(ref, exe, 1e-12)
    out = run(exe, OMPCL_DEVICE="opencl", OMP_NUM_THREADS="3")
    assert out.returncode == 0 and "threads 3 of 3, master 0" in out.stdout, out.stderr
    runs = device_runs(exe, OMP_NUM_THREADS="3")
    assert runs is None or len(runs) == 4 and all(n >= 1 for n in runs), runs


def _team(tmp_path, text: str):
    src = tmp_path / "t.c"
    src.write_text(text)
    (team,) = translate(str(src)).teams
    return team


def test_the_team_records_the_queries_it_answers(tmp_path):
    team = _team(tmp_path, CHECKED)
    assert team.offload and team.queries == ("omp_get_num_threads", "omp_get_thread_num")


def test_a_query_outside_once_run_code_keeps_the_region_on_the_host(tmp_path):
    text = CHECKED.replace("#pragma omp for reduction(+:norm)",
                           "nthread = omp_get_num_threads();\n#pragma omp for reduction(+:norm)")
    team = _team(tmp_path, text)
    assert not team.offload
    assert any(r.id == "team-observed" for r in team.reasons)


def test_a_region_that_chooses_its_size_keeps_its_queries_on_the_host(tmp_path):
    team = _team(tmp_path, CHECKED.replace("private(i, j, it)", "private(i, j, it) num_threads(2)"))
    assert not team.offload and team.queries == ()
