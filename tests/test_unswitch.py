"""Unswitching on invariant guards (issue 37): a loop that stays on the host only because of
host-only statements under a guard it never changes (NPB EP's ``if (timers_enabled)
timer_start(3);``) runs on the device when the guard is false and as the original on the host
when it holds. Built as make would build it (the timers in a file of their own), run on every
path against gcc's build, with the guard off and on."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ompcl.pipeline import translate

from conftest import every_path, load_stats, run

TIMERS = """#include <omp.h>
static double start[64], elapsed[64];
int timers_enabled;
/* thread 0 keeps the time (the other threads' calls would race on start[n]) */
void timer_start(int n) { if (omp_get_thread_num() == 0) start[n] = omp_get_wtime(); }
void timer_stop(int n) { if (omp_get_thread_num() == 0) elapsed[n] += omp_get_wtime() - start[n]; }
double timer_read(int n) { return elapsed[n]; }
"""

EP = """#include <stdio.h>
#include <stdlib.h>
#include <math.h>
void timer_start(int n); void timer_stop(int n); double timer_read(int n);
extern int timers_enabled;
int main(void) {
  int n = 1 << 16;
  long k;
  double sx = 0, sy = 0;
  double *v = malloc(sizeof(double) * n);
  timers_enabled = getenv("EP_TIMERS") != NULL;
  for (k = 0; k < n; k++) v[k] = (k % 97) * 0.01;
#pragma omp parallel for reduction(+:sx, sy)
  for (k = 0; k < n; k++) {
    if (timers_enabled) timer_start(3);
    double t = sqrt(v[k] + 1.0);
    sx += t;
    if (timers_enabled) timer_stop(3);
    sy += t * t;
  }
  printf("%.9e %.9e\\n", sx, sy);
  if (timers_enabled) printf("timer %s\\n", timer_read(3) >= 0 ? "ok" : "bad");
  free(v);
  return 0;
}
"""

WRITTEN = """#include <stdio.h>
void timer_start(int n);
int main(int argc, char **argv) {
  int tick = 0, verbose = argc > 1; long k; double s = 0;
#pragma omp parallel for reduction(+:s) firstprivate(tick)
  for (k = 0; k < 1000; k++) {
    if (tick) timer_start(1);
    if (verbose && k == 0) printf("first\\n");
    tick = k % 2;
    s += k;
  }
  printf("%.1f\\n", s);
  return 0;
}
"""


def _cc(tmp_path, *args):
    res = subprocess.run([sys.executable, "-m", "ompcl", "cc", *args], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_guarded_timers_version_the_loop(tmp_path, opencl_available):
    (tmp_path / "ep.c").write_text(EP)
    (tmp_path / "timers.c").write_text(TIMERS)
    subprocess.run(["gcc", "-O2", "-fopenmp", "ep.c", "timers.c", "-o", "ref", "-lm"],
                   cwd=tmp_path, check=True)
    for f in ("ep.c", "timers.c"):
        _cc(tmp_path, "-O2", "-fopenmp", "-c", f)
    _cc(tmp_path, "-fopenmp", "ep.o", "timers.o", "-o", "exe", "-lm")
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    for guards in ({}, {"EP_TIMERS": "1"}):
        every_path(ref, exe, 1e-12, **guards)
        stats = tmp_path / "s.json"
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats), **guards)
        assert out.returncode == 0, out.stderr
        (r,) = load_stats(stats)["regions"]
        on_device = not guards and opencl_available
        assert (r["device_runs"], r["host_runs"]) == ((1, 0) if on_device else (0, 1)), guards
    u = translate(str(tmp_path / "ep.c"))
    (region,) = u.regions
    assert region.offload and region.guards == ("timers_enabled",)
    assert any(m.id == "unswitch" for m in u.remarks)


def test_a_guard_the_loop_changes_keeps_it_on_the_host(tmp_path):
    """A guard the body writes, or one that reads the loop variable, is no invariant."""
    src = tmp_path / "w.c"
    src.write_text(WRITTEN)
    u = translate(str(src))
    (region,) = u.regions
    assert not region.offload and not region.guards
    assert not any(m.id == "unswitch" for m in u.remarks)
