"""Data left on the device across kernels, loops and calls (analysis.hostaccess and the
runtime's partial copies): each program runs with copying buffers (a discrete device's
transfers) and with zero-copy buffers, every loop forced to the device, and must print what
its OpenMP original prints; the statistics say what moved. A missing synchronisation shows as
a wrong answer here."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ompcl.pipeline import translate

from conftest import ROOT, every_path, gcc_build, load_stats, ompcl_build, run, run_env

TIME_STEP = r"""#include <stdio.h>
#include <stdlib.h>
#define N 100000
int main(void) {
  double *u = malloc(sizeof(double) * N), *v = malloc(sizeof(double) * N);
  int i, t;
  for (i = 0; i < N; i++) { u[i] = i % 7; v[i] = 0; }
  for (t = 0; t < 50; t++) {
#pragma omp parallel for
    for (i = 1; i < N - 1; i++) v[i] = 0.5 * (u[i - 1] + u[i + 1]);
#pragma omp parallel for
    for (i = 1; i < N - 1; i++) u[i] = v[i] + 1.0;
    if (t % 10 == 0)
      printf("step %d: %.6f\n", t, u[N / 2]);
  }
  printf("%.6f %.6f\n", u[7], v[N - 2]);
  free(u); free(v);
  return 0;
}
"""

HOST_EDITS = r"""#include <stdio.h>
#define N 4096
double u[N], w[N];
static double total(const double *a, int n) {   /* not instrumented: reads through a */
  double s = 0; int i;
  for (i = 0; i < n; i++) s += a[i];
  return s;
}
static void bump(double *a, int k) { a[k] += 100.0; }
int main(void) {
  int i, t, k = 17;
  double *alias = u + 5, **handle;
  double *p = u;
  handle = &p;
  for (i = 0; i < N; i++) { u[i] = i; w[i] = 1; }
  for (t = 0; t < 12; t++) {
#pragma omp parallel for
    for (i = 0; i < N; i++) u[i] = u[i] * 0.5 + w[i];
    u[k] += 1.0;                  /* a host write of one element */
    if (t % 3 == 0) w[t] = -1.0;  /* in a branch */
    else if (t % 3 == 1) alias[t] = 2.0;   /* through an alias */
    else (*handle)[t + 1] = 3.0;  /* through a pointer ompcl cannot follow */
    if (t == 7) bump(u, 9);       /* a call that writes through its argument */
    if (t == 5) printf("mid %.6f %.6f\n", u[k], total(u, N));
  }
  printf("%.6f %.6f %.6f %.6f\n", u[0], u[9], u[k], total(u, N) + total(w, N));
  return 0;
}
"""

STACK_AND_HEAP = r"""#include <stdio.h>
#include <stdlib.h>
static double smooth(int n, int seed) {
  double tmp[512], s = 0.0;
  int i;
  for (i = 0; i < n; i++) tmp[i] = (i * seed) % 11;
#pragma omp parallel for
  for (i = 0; i < n; i++) tmp[i] = tmp[i] * 2.0 + 1.0;
  for (i = 0; i < n; i++) s += tmp[i];
  return s;
}
static double heap(int n, int round) {
  double *a = calloc(n, sizeof *a), s = 0.0;
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) a[i] = a[i] + i * round;
  for (i = 0; i < n; i++) s += a[i];
  free(a);
  return s;
}
int main(void) {
  int r;
  for (r = 1; r <= 4; r++)
    printf("%.1f %.1f %.1f\n", smooth(512, r), smooth(300, r + 7), heap(1000, r));
  return 0;
}
"""

KERNELS_C = r"""#include "shared.h"
double grid[NG];
void step(double f) {
  int i;
#pragma omp parallel for
  for (i = 0; i < NG; i++) grid[i] = grid[i] * f + 1.0;
}
double probe(int k) { return grid[k]; }
"""

HELPER_C = r"""#include "shared.h"
void scribble(double *g, int k) { g[k] = -5.0; }   /* no OpenMP: compiled as it is */
"""

MAIN_C = r"""#include <stdio.h>
#include "shared.h"
int main(void) {
  int t, i;
  for (i = 0; i < NG; i++) grid[i] = i;
  for (t = 0; t < 6; t++) {
    step(0.5);
    if (t == 2) scribble(grid, 3);      /* another file, not instrumented */
    if (t % 2) printf("%d %.6f %.6f\n", t, probe(3), grid[100]);
  }
  printf("%.6f\n", grid[NG - 1]);
  return 0;
}
"""

TEAM = r"""#include <stdio.h>
#define N 50000
double u[N], v[N];
int main(void) {
  int i, t;
  double s = 0.0;
  for (i = 0; i < N; i++) { u[i] = i % 5; v[i] = 0; }
#pragma omp parallel private(t)
  {
    for (t = 0; t < 20; t++) {
#pragma omp for
      for (i = 1; i < N - 1; i++) v[i] = 0.25 * (u[i - 1] + 2 * u[i] + u[i + 1]);
#pragma omp single
      v[t] += 1.0;                      /* a host edit inside the team */
#pragma omp for
      for (i = 1; i < N - 1; i++) u[i] = v[i];
#pragma omp master
      if (t % 5 == 0) printf("step %d %.6f\n", t, u[t + 1]);
#pragma omp barrier
    }
  }
  for (i = 0; i < N; i++) s += u[i];
  printf("%.6f\n", s);
  return 0;
}
"""

TEAM_SERIAL = r"""#include <stdio.h>
#define N 20000
int key[N], out[N];
long count[16];
int main(void) {
  int i;
  for (i = 0; i < N; i++) key[i] = (i * 7919) % 1000;
#pragma omp parallel private(i)
  {
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) key[i] = (key[i] * 3 + 1) % 1000;   /* offloaded */
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) {                                    /* stays: a critical section */
#pragma omp critical
      count[key[i] / 64]++;
    }
#pragma omp for
    for (i = 0; i < N; i++) out[i] = key[i] * 2 + 1 + (int)count[key[i] / 64];  /* offloaded */
  }
  long s = 0;
  for (i = 0; i < N; i++) s += (long)out[i] * (i % 13);
  printf("%ld %d %d\n", s, out[0], out[N - 1]);
  return 0;
}
"""

# IS's bucket sort: each thread's share of the work and its offsets from its thread number and
# the team size; a team of one would be a legal execution, but ompcl cannot prove the program
# does not depend on its team, so the region keeps it
TEAM_ASKS = r"""#include <stdio.h>
#include <omp.h>
#define N 20000
#define B 16
int key[N], out[N];
long count[64 * B];
static long next[B];
#pragma omp threadprivate(next)
int main(void) {
  int i;
  for (i = 0; i < N; i++) key[i] = (i * 7919) % 1000;
#pragma omp parallel private(i)
  {
    int id = omp_get_thread_num(), np = omp_get_num_threads(), b, t;
    long *mine = count + (long)id * B;
    for (b = 0; b < B; b++) mine[b] = 0;
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) key[i] = (key[i] * 3 + 1) % 1000;
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) mine[key[i] / 64]++;
    for (b = 0; b < B; b++) {                                    /* this thread's offsets */
      long pos = 0;
      for (t = 0; t < np * B; t++)
        if (t % B < b || (t % B == b && t / B < id)) pos += count[t];
      next[b] = pos;
    }
#pragma omp barrier
#pragma omp for schedule(static)
    for (i = 0; i < N; i++) out[next[key[i] / 64]++] = key[i];
#pragma omp for
    for (i = 0; i < N; i++) out[i] = out[i] * 2 + 1;
  }
  long s = 0;
  for (i = 0; i < N; i++) s += (long)out[i] * (i % 13);
  printf("%ld %d %d\n", s, out[0], out[N - 1]);
  return 0;
}
"""

SHARED_H = "#define NG 2048\nextern double grid[NG];\nvoid step(double f);\n" \
           "double probe(int k);\nvoid scribble(double *g, int k);\n"

MODES = [("copy", "0"), ("zero-copy", "1")]


def _program(tmp_path, text, name="p.c"):
    src = tmp_path / name
    src.write_text(text)
    ref = tmp_path / "ref"
    gcc_build(src, ref)
    exe = tmp_path / "exe"
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    return ref, exe


def _check(tmp_path, ref, exe, zero_copy, **env):
    stats = tmp_path / f"stats{zero_copy}.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy, OMPCL_STATS=str(stats),
              **env)
    assert out.returncode == 0, out.stderr
    expected = run(ref).stdout
    assert out.stdout == expected
    return load_stats(stats)


def test_time_step_moves_each_array_once_plus_probes(tmp_path, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    ref, exe = _program(tmp_path, TIME_STEP)
    st = _check(tmp_path, ref, exe, "0")
    n = 100000 * 8
    tot = st["totals"]
    assert 2 * n - 16 <= tot["bytes_to_device"] <= 2 * n   # u and v once (as far as touched)
    # the five probed elements, u[7] and v[N-2], then u and v once when they are freed (less
    # what the host read last: a host copy read in parts is completed by its gaps only)
    assert 2 * n - 16 <= tot["bytes_to_host"] <= 2 * n + 7 * 8
    assert tot["transfers_to_device"] == 2
    naive = _check(tmp_path, ref, exe, "0", OMPCL_RESIDENCY="0")["totals"]
    assert naive["bytes_to_device"] >= 50 * 2 * n   # copy-in/copy-out per region
    _check(tmp_path, ref, exe, "1")


@pytest.mark.parametrize("mode,zero_copy", MODES)
def test_host_reads_and_writes_between_kernels(tmp_path, opencl_available, mode, zero_copy):
    ref, exe = _program(tmp_path, HOST_EDITS)
    st = _check(tmp_path, ref, exe, zero_copy)
    if opencl_available:
        loop = st["regions"][0]
        assert loop["device_runs"] == 12
        if zero_copy == "0":  # single elements move, not the arrays, between steps
            assert loop["bytes_to_device"] < 12 * 4096 * 8


@pytest.mark.parametrize("mode,zero_copy", MODES)
def test_stack_and_heap_memory_reused_between_calls(tmp_path, mode, zero_copy):
    ref, exe = _program(tmp_path, STACK_AND_HEAP)
    _check(tmp_path, ref, exe, zero_copy)


@pytest.mark.parametrize("mode,zero_copy", MODES)
def test_team_keeps_data_between_its_loops(tmp_path, opencl_available, mode, zero_copy):
    ref, exe = _program(tmp_path, TEAM)
    st = _check(tmp_path, ref, exe, zero_copy)
    if opencl_available and zero_copy == "0":
        naive = _check(tmp_path, ref, exe, zero_copy, OMPCL_RESIDENCY="0")["totals"]
        assert st["totals"]["bytes_to_device"] * 4 < naive["bytes_to_device"]


@pytest.mark.parametrize("mode,zero_copy", MODES)
def test_team_runs_loops_left_on_host_as_parallel_loops(tmp_path, opencl_available, mode,
                                                         zero_copy):
    """The team of one runs its loop that stays on the host (a critical section) as a
    parallel loop of its own, its critical section kept."""
    ref, exe = _program(tmp_path, TEAM_SERIAL)
    for threads in ("1", "2", "3"):
        assert run(exe, OMP_NUM_THREADS=threads).stdout == run(ref, OMP_NUM_THREADS=threads).stdout
        st = _check(tmp_path, ref, exe, zero_copy, OMP_NUM_THREADS=threads)
        if opencl_available:  # forced: the two loops that can be are kernels
            assert [r["device_runs"] for r in st["regions"]] == [1, 1]
            assert st["teams"][0]["device_runs"] == 1
    stats = tmp_path / "auto.json"
    run(exe, OMPCL_STATS=str(stats))  # by default the team stays on the host
    team = load_stats(stats)["teams"]
    assert team[0]["device_runs"] == 0 and team[0]["host_runs"] == 1


def test_team_that_asks_its_team_keeps_it(tmp_path):
    """IS's shape: the region's code depends on its thread number and team size, so no team
    of one runs it; every path at 1, 2, 3 and 7 threads gives the original's answer and, with
    the device forced, nothing of the region runs there."""
    ref, exe = _program(tmp_path, TEAM_ASKS)
    every_path(ref, exe, 0.0)
    t = translate(str(tmp_path / "p.c"))
    assert not t.offloaded and not t.teams[0].offload
    assert {r.id for r in t.teams[0].reasons} == {"team-observed"}


@pytest.fixture(scope="module")
def three_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("threefiles")
    for name, text in (("kernels.c", KERNELS_C), ("helper.c", HELPER_C), ("main.c", MAIN_C),
                       ("shared.h", SHARED_H)):
        (d / name).write_text(text)
    ref = d / "ref"
    subprocess.run(["gcc", "-O2", "-fopenmp", "main.c", "kernels.c", "helper.c", "-o", str(ref)],
                   cwd=d, check=True, capture_output=True)
    return d, ref


def test_calls_across_files_with_ompcl_cc(three_files, opencl_available):
    """Per-file builds: main.c (no OpenMP) calls step() and probe() of kernels.c and
    scribble() of helper.c (no OpenMP, compiled as it is): nothing may stay stale."""
    d, ref = three_files
    cc = [sys.executable, "-m", "ompcl", "cc", "--ompcl-strict"]
    for f in ("main.c", "kernels.c", "helper.c"):
        subprocess.run(cc + ["-O2", "-fopenmp", "-c", f], cwd=d, check=True, capture_output=True,
                       env=run_env(PYTHONPATH=str(ROOT)))
    exe = d / "cc_exe"
    subprocess.run(cc + ["-fopenmp", "main.o", "kernels.o", "helper.o", "-o", str(exe), "-lm"],
                   cwd=d, check=True, capture_output=True, env=run_env(PYTHONPATH=str(ROOT)))
    for _, zero_copy in MODES:
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy)
        assert out.returncode == 0, out.stderr
        assert out.stdout == run(ref).stdout


def test_calls_across_files_translated_together(three_files, opencl_available):
    """Translated together (main.c instrumented too): main announces its calls to step() and
    probe(), whose markers are linked, and syncs before scribble(), whose marker is not."""
    d, ref = three_files
    exe = d / "build_exe"
    res = ompcl_build([d / "main.c", d / "kernels.c", d / "helper.c"], exe)
    assert res.returncode == 0, res.stderr
    for _, zero_copy in MODES:
        stats = d / f"st{zero_copy}.json"
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy, OMPCL_STATS=str(stats))
        assert out.returncode == 0, out.stderr
        assert out.stdout == run(ref).stdout
        if opencl_available and zero_copy == "0":
            loop = load_stats(stats)["regions"][0]
            assert loop["device_runs"] == 6
            # grid goes to the device after main's initialisation and again only after
            # scribble (a call ompcl cannot see); single elements come back for the printfs
            assert loop["bytes_to_device"] <= 2 * 2048 * 8 + 64


def test_main_probes_and_announces(three_files):
    d, _ = three_files
    t = translate(str(d / "main.c"))
    text = t.host_source
    assert "ompcl_rt_enter()" in text and "ompcl_rt_leave(" in text
    assert "if (&ompcl_i_step) ompcl_rt_announce(); else ompcl_rt_host_all(3);" in text
    assert "extern const char ompcl_i_scribble __attribute__((weak));" not in text
    assert "ompcl_rt_host_all(3); if (t == 2)" not in text  # the probe is inside the branch
    k = translate(str(d / "kernels.c"))
    assert "const char ompcl_i_step = 1;" in k.host_source


def test_coherent_zero_copy_skips_map_round_trips(tmp_path, opencl_available):
    """On a CPU device zero-copy buffers sit at the host's own address: host accesses between
    kernels then need no map/unmap (checked once per buffer); with OMPCL_COHERENT=0 every one
    maps, as OpenCL prescribes. Both give the original's output."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    ref, exe = _program(tmp_path, HOST_EDITS)
    fast = _check(tmp_path, ref, exe, "1")["totals"]
    slow = _check(tmp_path, ref, exe, "1", OMPCL_COHERENT="0")["totals"]
    assert fast["coherent_buffers"] >= 1 and fast["map_round_trips"] == 0
    assert slow["coherent_buffers"] == 0 and slow["map_round_trips"] >= 12
    copying = _check(tmp_path, ref, exe, "0")["totals"]
    assert copying["coherent_buffers"] == 0
