"""Local pointers into one array as indices (transform.indices, pass 'indices'): a callee that
points into a parameter's array in branches (XSBench's calculate_micro_xs: ``low =
&grid[...]`` in each branch, ``high = low + 1``, members read through both) runs on the
device as indices; executed against gcc on every path. Unit cases for what stays a pointer."""
from __future__ import annotations

import pytest
from pycparser import c_ast, c_parser

from ompcl.transform.indices import SUFFIX, with_index_pointers

from conftest import build_both, device_runs, every_path

LOOKUP = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { double energy, total, elastic; } point_t;
enum { SEARCH = 0, DIRECT = 1 };
static long search(const point_t *g, long n, double e) {
  long lo = 0, hi = n - 1;
  while (hi - lo > 1) { long mid = lo + (hi - lo) / 2; if (g[mid].energy > e) hi = mid; else lo = mid; }
  return lo;
}
static void micro(const point_t *grid, long n, int nuc, double e, int how, const int *index,
                  long u, double *xs) {
  const point_t *low, *high;
  if (how == SEARCH) {
    long idx = search(&grid[nuc * n], n, e);
    if (idx == n - 1)
      low = &grid[nuc * n + idx - 1];
    else
      low = &grid[nuc * n + idx];
  } else {
    low = grid + nuc * n + index[u];
  }
  high = low + 1;
  double f = (high->energy - e) / (high->energy - low->energy);
  xs[0] = high->total - f * (high->total - low->total);
  xs[1] = (*high).elastic - f * (high[0].elastic - low[0].elastic);
}
int main(int argc, char **argv) {
  long n = 300, nnuc = 7, m = 40000, i;
  int how = argc > 1 ? DIRECT : SEARCH;
  point_t *grid = malloc(nnuc * n * sizeof *grid);
  int *index = malloc(m * sizeof *index);
  double *out = malloc(2 * m * sizeof *out), s = 0;
  for (i = 0; i < nnuc * n; i++) {
    grid[i].energy = (i % n) + 0.001 * (i / n);
    grid[i].total = 1.0 / (1 + i % 41);
    grid[i].elastic = 0.5 / (1 + i % 13);
  }
  for (i = 0; i < m; i++) index[i] = (int)((i * 37) % (n - 1));
#pragma omp parallel for
  for (i = 0; i < m; i++) {
    double xs[2];
    micro(grid, n, (int)(i % nnuc), (i * 7919 % (n * 4 - 9)) * 0.25 + 0.1, how, index, i, xs);
    out[2 * i] = xs[0];
    out[2 * i + 1] = xs[1];
  }
  for (i = 0; i < 2 * m; i++) s += out[i] * (1 + i % 3);
  printf("%.12e\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("args", [(), ("direct",)])
def test_pointers_chosen_in_branches_run_as_indices(tmp_path, args):
    ref, exe = build_both(tmp_path, LOOKUP, "lookup.c")
    every_path(ref, exe, 0.0)
    assert device_runs(exe, *args) in (None, [1])


def _converted(code: str) -> set[str]:
    ast = c_parser.CParser().parse(code)
    out = with_index_pointers(ast)
    if out is None:
        return set()
    return {n.name[:-len(SUFFIX)] for f in out.ext for n in _walk(f)
            if isinstance(n, c_ast.Decl) and (n.name or "").endswith(SUFFIX)}


def _walk(node):
    yield node
    for _, child in node.children():
        yield from _walk(child)


@pytest.mark.parametrize("body, expected", [
    ("double *p = &a[k]; double *q = p + 1; return *p + q[0];", {"p", "q"}),
    ("double *p; if (k) p = a + k; else p = &a[0]; return p[1];", {"p"}),
    ("double *p = &a[k]; p++; return *p;", set()),                   # stepped
    ("double *p = &a[k]; return g(p);", set()),                       # passed as a value
    ("double *p = &a[k]; double *q = &b[k]; if (k) q = p; return *q;", set()),  # two arrays
    ("double *p = &a[k]; a = b; return *p;", set()),                  # the array moves
    ("double *p = (double *)&c[k]; return *p;", set()),               # a cast
    ("double *p = k + a; return *p;", set()),                         # (an integer first)
])
def test_which_pointers_become_indices(body, expected):
    code = ("double g(double *);\ndouble f(double *a, double *b, char *c, long k) {\n"
            + body + "\n}\n")
    assert _converted(code) == expected
