"""Structs with pointer members (issue 37): loop-invariant member chains read as variables
computed at entry (``s->atoms->p[i][0]``, CoMD's style: ``analysis.members``), structs passed
by value or by pointer to functions split into their members (``calculate_xs(..., data)``
reading ``data.poles[k]``, RSBench's style: ``analysis.structargs``), with arrays of a few
bytes (the runtime's ring of small blocks). Each runs on every path against gcc's build; the
statistics show where the loop ran. A null pointer on the way keeps the loop on the host; a
member the loop assigns is not hoisted."""
from __future__ import annotations

from ompcl.pipeline import translate

from conftest import build_both, device_runs, every_path

MD = r"""
#include <stdio.h>
#include <stdlib.h>
typedef double real3[3];
typedef struct { int nLocal; int *nAtoms; } LinkCell;
typedef struct { real3 *p, *f; double *U; } Atoms;
typedef struct { LinkCell *boxes; Atoms *atoms; } SimFlat;
#define MAXATOMS 8
static void zero3(real3 a) { a[0] = a[1] = a[2] = 0.0; }
void advance(SimFlat *s, int nBoxes, double dt) {
#pragma omp parallel for
  for (int iBox = 0; iBox < nBoxes; iBox++)
    for (int iOff = MAXATOMS * iBox, ii = 0; ii < s->boxes->nAtoms[iBox]; ii++, iOff++) {
      s->atoms->p[iOff][0] += dt * s->atoms->f[iOff][0];
      s->atoms->p[iOff][1] += dt * s->atoms->f[iOff][1];
      s->atoms->p[iOff][2] += dt * s->atoms->f[iOff][2];
      s->atoms->U[iOff] = 0.5 * s->atoms->p[iOff][0] * s->atoms->p[iOff][0];
    }
}
void clear(SimFlat *s, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    real3 d;  /* an array typedef: spelled out in the kernel */
    d[0] = i; d[1] = 2 * i; d[2] = 0;
    if (i % 3 == 0) zero3(s->atoms->f[i]); else s->atoms->f[i][1] += d[1] * 1e-3;
  }
}
int main(void) {
  int nb = 300, i, t;
  SimFlat *s = malloc(sizeof *s);
  s->boxes = malloc(sizeof *s->boxes);
  s->atoms = malloc(sizeof *s->atoms);
  s->boxes->nAtoms = malloc(nb * sizeof(int));
  s->atoms->p = malloc(nb * MAXATOMS * sizeof(real3));
  s->atoms->f = malloc(nb * MAXATOMS * sizeof(real3));
  s->atoms->U = malloc(nb * MAXATOMS * sizeof(double));
  for (i = 0; i < nb; i++) s->boxes->nAtoms[i] = i % (MAXATOMS + 1);
  for (i = 0; i < nb * MAXATOMS; i++) {
    s->atoms->p[i][0] = i % 7; s->atoms->p[i][1] = i % 5; s->atoms->p[i][2] = i % 3;
    s->atoms->f[i][0] = 0.1 * (i % 11); s->atoms->f[i][1] = 0.2; s->atoms->f[i][2] = -0.1;
    s->atoms->U[i] = -1;
  }
  for (t = 0; t < 3; t++) advance(s, nb, 0.01);
  clear(s, nb * MAXATOMS);
  advance(s, nb, 0.01);
  double sum = 0;
  for (i = 0; i < nb * MAXATOMS; i++)
    sum += s->atoms->p[i][0] + 2 * s->atoms->p[i][1] + 3 * s->atoms->p[i][2] + s->atoms->U[i];
  printf("%.10e\n", sum);
  return 0;
}
"""

#: RSBench's shape: a struct of pointers passed by value through two levels of calls, a
#: pointer to a struct of pointers passed on (CoMD EAM's interpolation tables), tables of a
#: few bytes (below the heap table's smallest block)
XS = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { double T; double A; int start; } Window;
typedef struct { int n; double x0; double *values; } Table;
typedef struct { int *num_nucs; int *mats; double *concs; Window *windows; int max_nucs;
                 Table *tab; } Data;
static double lookup(Table *t, double x) {
  int i = (int)((x - t->x0) * 4.0);
  if (i < 0) i = 0;
  if (i >= t->n) i = t->n - 1;
  return t->values[i];
}
static double micro(int nuc, double E, Data data) {
  Window w = data.windows[nuc];
  return w.T * E + w.A + w.start + lookup(data.tab, E);
}
static double macro(int mat, double E, Data data) {
  double xs = 0;
  for (int i = 0; i < data.num_nucs[mat]; i++) {
    int nuc = data.mats[mat * data.max_nucs + i];
    xs += micro(nuc, E, data) * data.concs[mat * data.max_nucs + i];
  }
  return xs;
}
int main(void) {
  int nmats = 5, maxn = 3, nnuc = 7, n = 20000, i;
  Data d;
  d.max_nucs = maxn;
  d.num_nucs = malloc(nmats * sizeof(int));
  d.mats = malloc(nmats * maxn * sizeof(int));
  d.concs = malloc(nmats * maxn * sizeof(double));
  d.windows = malloc(nnuc * sizeof(Window));
  d.tab = malloc(sizeof(Table));
  d.tab->n = 6; d.tab->x0 = 0.0; d.tab->values = malloc(6 * sizeof(double));
  for (i = 0; i < 6; i++) d.tab->values[i] = 0.5 * i;
  for (i = 0; i < nmats; i++) d.num_nucs[i] = 1 + i % maxn;
  for (i = 0; i < nmats * maxn; i++) { d.mats[i] = (i * 3) % nnuc; d.concs[i] = 0.1 * (i + 1); }
  for (i = 0; i < nnuc; i++) { d.windows[i].T = 0.01 * i; d.windows[i].A = 1.0 / (i + 1);
                               d.windows[i].start = i; }
  double *out = malloc(n * sizeof(double)), total = 0;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    out[i] = macro(i % nmats, (i % 97) * 0.013, d);
  for (i = 0; i < n; i++) total += out[i] * (1 + i % 7);
  printf("%.10e\n", total);
  return 0;
}
"""

#: a member chain through a null pointer: a guard keeps the original from following it, the
#: region declines at entry
NULL_ON_THE_WAY = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { double *v; } Extra;
typedef struct { Extra *extra; double *a; } S;
int main(int argc, char **argv) {
  int n = 1000, i, more = argc > 5;
  S s;
  s.extra = NULL;
  s.a = malloc(n * sizeof(double));
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    s.a[i] = i * 0.5;
    if (more) s.extra->v[i] = 1.0;
  }
  double t = 0;
  for (i = 0; i < n; i++) t += s.a[i];
  printf("%.3f\n", t);
  return 0;
}
"""

ASSIGNED = r"""
typedef struct { int count; double *a; } S;
void f(S *s, int n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) { s->a[i] = i; s->count = i; }
}
"""


#: miniBUDE's style: a global parameter struct whose array member holds pointers
#: (``params.poses[k]``), its elements passed to a function's pointer parameters
POSES = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { float x, y, z; int type; } Atom;
struct { int n, natoms; Atom *restrict atoms; float *restrict poses[3]; } params;
static void work(int natoms, const Atom *restrict atoms, const float *restrict p0,
                 const float *restrict p1, float *restrict out, int i) {
  float e = 0.0f;
  for (int a = 0; a < natoms; a++)
    e += (atoms[a].x - p0[i]) * (atoms[a].y - p1[i]) + atoms[a].z * atoms[a].type;
  out[i] = e;
}
int main(void) {
  int i, k, two = 2;
  params.n = 5000;
  params.natoms = 40;
  params.atoms = malloc(params.natoms * sizeof(Atom));
  for (i = 0; i < params.natoms; i++) {
    params.atoms[i].x = i; params.atoms[i].y = 0.5f * i;
    params.atoms[i].z = 1.0f; params.atoms[i].type = i % 3;
  }
  for (k = 0; k < 3; k++) {
    params.poses[k] = malloc(params.n * sizeof(float));
    for (i = 0; i < params.n; i++) params.poses[k][i] = (float)((i % 10) * (k + 1));
  }
  float *out = malloc(params.n * sizeof(float));
#pragma omp parallel for
  for (i = 0; i < params.n; i++)
    work(params.natoms, params.atoms, params.poses[0], params.poses[two], out, i);
  double s = 0;
  for (i = 0; i < params.n; i++) s += out[i];
#pragma omp parallel for
  for (i = 0; i < params.n; i++)
    params.poses[1][i] += 0.5f * params.poses[0][i];
  for (i = 0; i < params.n; i++) s += params.poses[1][i];
  printf("%.3f\n", s);
  return 0;
}
"""

#: an element of the array member assigned in the loop (through a callee): not hoisted
ROW_ASSIGNED = r"""
struct { float *rows[2]; } g;
static void flip(void) { float *t = g.rows[0]; g.rows[0] = g.rows[1]; g.rows[1] = t; }
void f(int n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) { g.rows[0][i] = i; if (i == n) flip(); }
}
"""


def test_pointer_elements_of_array_members(tmp_path):
    ref, exe = build_both(tmp_path, POSES, "poses.c")
    every_path(ref, exe, 0.0)
    assert device_runs(exe) in (None, [1, 1])


def test_an_array_member_element_the_loop_assigns_is_not_hoisted(tmp_path):
    src = tmp_path / "rows.c"
    src.write_text(ROW_ASSIGNED)
    (region,) = translate(str(src)).regions
    assert not region.offload
    # g.rows[0] stays the struct's element (hoisted, the device would see the old pointer)
    assert any(r.id == "data-type" and "'g'" in r.message for r in region.reasons)


def test_member_chains_of_a_struct_pointer(tmp_path):
    ref, exe = build_both(tmp_path, MD, "md.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [4, 1])


def test_structs_split_into_members_through_calls(tmp_path):
    ref, exe = build_both(tmp_path, XS, "xs.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])


def test_a_null_pointer_on_the_way_keeps_the_loop_on_the_host(tmp_path):
    ref, exe = build_both(tmp_path, NULL_ON_THE_WAY, "null.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [0])


def test_a_member_the_loop_assigns_is_not_hoisted(tmp_path):
    src = tmp_path / "assigned.c"
    src.write_text(ASSIGNED)
    (region,) = translate(str(src)).regions
    assert not region.offload
    # the remark speaks of the user's own expressions, not of ompcl's variables
    assert all("ompcl_m" not in r.message for r in region.reasons), region.reasons
