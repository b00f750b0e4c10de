"""Convergence flags (issue 37; Rodinia's BFS style): a shared integer a loop only sets to
one constant, 1 or 0, and never reads (``stop = true;`` in every iteration that changes
something) runs on the device as a ``||`` (or ``&&``) reduction of private copies
(``analysis.sharing.flag``); a flag the loop reads, or sets to another value, keeps its
loop on the host. Run on every path against gcc's build."""
from __future__ import annotations

from ompcl.pipeline import translate

from conftest import build_both, device_runs, every_path

BFS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
typedef struct { int starting; int no_of_edges; } Node;
int main(int argc, char **argv) {
  int n = 20000, deg = 6, k;
  Node *nodes = (Node *)malloc(sizeof(Node) * n);
  int *edges = (int *)malloc(sizeof(int) * n * deg);
  bool *mask = (bool *)malloc(sizeof(bool) * n), *upd = (bool *)malloc(sizeof(bool) * n);
  bool *visited = (bool *)malloc(sizeof(bool) * n);
  int *cost = (int *)malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    nodes[i].starting = i * deg; nodes[i].no_of_edges = deg;
    for (int j = 0; j < deg; j++) edges[i * deg + j] = (int)((i * 7919L + j * 104729L) % n);
    mask[i] = upd[i] = visited[i] = false; cost[i] = -1;
  }
  mask[0] = visited[0] = true; cost[0] = 0;
  bool stop;
  do {
    stop = false;
#pragma omp parallel for
    for (int tid = 0; tid < n; tid++) {
      if (mask[tid] == true) {
        mask[tid] = false;
        for (int i = nodes[tid].starting; i < (nodes[tid].no_of_edges + nodes[tid].starting); i++) {
          int id = edges[i];
          if (!visited[id]) { cost[id] = cost[tid] + 1; upd[id] = true; }
        }
      }
    }
#pragma omp parallel for
    for (int tid = 0; tid < n; tid++) {
      if (upd[tid] == true) { mask[tid] = true; visited[tid] = true; stop = true; upd[tid] = false; }
    }
  } while (stop);
  long s = 0;
  for (k = 0; k < n; k++) s += cost[k] * (k % 13);
  printf("%ld\n", s);
  return 0;
}
"""

#: a flag cleared by a loop in a parallel region (``done = 0``: an ``&&`` reduction)
CLEARED = r"""
#include <stdio.h>
#define N 5000
double a[N], b[N];
int main(void) {
  int i, it = 0, done = 0;
  for (i = 0; i < N; i++) a[i] = (i * 37) % 101;
  while (!done && it < 50) {
    done = 1;
#pragma omp parallel
    {
#pragma omp for
      for (i = 1; i < N - 1; i++) b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
#pragma omp for
      for (i = 1; i < N - 1; i++) { if (b[i] - a[i] > 0.5 || a[i] - b[i] > 0.5) done = 0; a[i] = b[i]; }
    }
    it++;
  }
  printf("%d %.6f\n", it, a[N / 2]);
  return 0;
}
"""


def test_bfs_with_a_stop_flag_runs_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, BFS, "bfs.c")
    every_path(ref, exe, 0)
    runs = device_runs(exe)
    assert runs is None or len(runs) == 2 and runs[0] > 1 and runs[0] == runs[1], runs


def test_a_cleared_flag_in_a_team_runs_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, CLEARED, "cleared.c")
    every_path(ref, exe, 1e-12)
    src = tmp_path / "c.c"
    src.write_text(CLEARED)
    loops = translate(str(src)).regions
    assert [r.offload for r in loops] == [True, True]
    assert [(x.name, x.op) for x in loops[1].reductions] == [("done", "&&")]


def _offloaded(tmp_path, body: str) -> bool:
    src = tmp_path / "f.c"
    src.write_text("int a[100];\nint f(void) { int i, flag = 0;\n#pragma omp parallel for\n"
                   f"for (i = 0; i < 100; i++) {{ {body} }}\nreturn flag; }}\n")
    (region,) = translate(str(src)).regions
    return region.offload


def test_only_a_flag_set_to_one_constant_and_never_read_is_reduced(tmp_path):
    assert _offloaded(tmp_path, "if (a[i] > 3) flag = 1;")
    assert _offloaded(tmp_path, "if (a[i] > 3) flag = 0;")
    assert not _offloaded(tmp_path, "if (a[i] > 3) flag = 2;")
    assert not _offloaded(tmp_path, "if (a[i] > 3) flag = 1; else flag = 0;")
    assert not _offloaded(tmp_path, "if (flag == 0) flag = 1;")
    assert not _offloaded(tmp_path, "a[i] = flag; flag = 1;")
    assert not _offloaded(tmp_path, "flag++;")
    assert not _offloaded(tmp_path, "flag |= a[i];")
