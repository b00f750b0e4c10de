"""Coherence benchmark: what host code touching device-resident data costs, per touch, with the
mechanism ompcl uses (run-time range evaluation: a probe before the statement, exact ranges
bound at run time, the touched elements read back) against page-granular coherence (device
ranges protected on the host, the first touch of a page faults and brings the page back).

Builds two programs and runs them once, side by side:

* a translated program (``ompcl build``, copying buffers ``OMPCL_ZERO_COPY=0``, every loop on
  the device): a kernel rewrites a 16 MB array, then host code reads 16 single elements through
  a helper (``get(a, k)``: a summary binds ``a[k]``), whole 4 KB pages through a helper that
  sums 512 elements (a range of 512), and elements it read already (the probe alone), in
  rounds of 16 after each kernel (the runtime keeps 64 separate host-valid ranges per array
  before it reads the whole array back);
* a plain C program of the page mechanism itself: the array protected with ``mprotect``, a
  ``SIGSEGV`` handler that unprotects the faulting page, one touch per random page.

Per touch: the range mechanism's probe and its 8-byte (or 4 KB) read-back; the page
mechanism's fault, before any transfer (it would add a 4 KB read-back per page). Prints
microseconds per touch and bytes moved per touch.

Usage: ompcl bench coherence [--touches N] [--keep DIR]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from .command import bench_command, run_command

N = 1 << 21  # doubles: 16 MB

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define N %(n)d
#define TOUCHES %(touches)d
#define SPANS 16
static double a[N];
static double get(const double *x, long k) { return x[k]; }
static double page_sum(const double *x, long p) {
  double s = 0; int i;
  for (i = 0; i < 512; i++) s += x[p * 512 + i];
  return s;
}
static void step(double v) {
  long i;
#pragma omp parallel for
  for (i = 0; i < N; i++) a[i] = v + (double)(i %% 7);
}
int main(void) {
  /* in rounds of SPANS touches after each kernel: the runtime tracks up to that many separate
     host-valid ranges of an array before it reads the whole array back */
  long r, k, rounds = TOUCHES / SPANS, *idx = malloc(sizeof(long) * TOUCHES),
       *pg = malloc(sizeof(long) * TOUCHES);
  double s = 0, t, elem = 0, valid = 0, page = 0;
  unsigned long x = 88172645463325252UL;
  for (r = 0; r < TOUCHES; r++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    pg[r] = (long)(x %% (N / 512));
    idx[r] = pg[r] * 512 + (long)((x >> 20) %% 512);
  }
  for (k = 0; k < rounds; k++) {
    long *e = idx + k * SPANS, *p = pg + k * SPANS;
    step(1.0 + k);
    t = omp_get_wtime();
    for (r = 0; r < SPANS; r++) s += get(a, e[r]);       /* an element each */
    elem += omp_get_wtime() - t;
    t = omp_get_wtime();
    for (r = 0; r < SPANS; r++) s += get(a, e[r]);       /* valid already: the probe */
    valid += omp_get_wtime() - t;
    step(2.0 + k);
    t = omp_get_wtime();
    for (r = 0; r < SPANS; r++) s += page_sum(a, p[r]);  /* a page each */
    page += omp_get_wtime() - t;
  }
  printf("{\"element_us\": %%.4f, \"valid_us\": %%.4f, \"page_us\": %%.4f, \"check\": %%.1f}\n",
         elem * 1e6 / (rounds * SPANS), valid * 1e6 / (rounds * SPANS),
         page * 1e6 / (rounds * SPANS), s);
  return 0;
}
"""

FAULTS = r"""
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#define N %(n)d
#define TOUCHES %(touches)d
static double *a;
static long pagesize;
static void on_fault(int sig, siginfo_t *si, void *ctx) {
  uintptr_t p = (uintptr_t)si->si_addr & ~(uintptr_t)(pagesize - 1);
  (void)sig; (void)ctx;
  mprotect((void *)p, (size_t)pagesize, PROT_READ | PROT_WRITE);  /* (then: read it back) */
}
static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(void) {
  struct sigaction sa = {0};
  long r, per = 0;
  double s = 0, t0, t1, t2;
  unsigned long x = 88172645463325252UL;
  pagesize = sysconf(_SC_PAGESIZE);
  per = pagesize / (long)sizeof(double);
  a = aligned_alloc((size_t)pagesize, sizeof(double) * N);
  for (r = 0; r < N; r++) a[r] = (double)(r %% 7);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, 0);
  t0 = now();
  mprotect(a, sizeof(double) * N, PROT_NONE);   /* the data goes to the device */
  t1 = now();
  for (r = 0; r < TOUCHES; r++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    s += a[(long)(x %% (N / per)) * per];
  }
  t2 = now();
  printf("{\"protect_us\": %%.4f, \"fault_us\": %%.4f, \"page_bytes\": %%ld, \"check\": %%.1f}\n",
         (t1 - t0) * 1e6, (t2 - t1) * 1e6 / TOUCHES, pagesize, s);
  return 0;
}
"""


def _run(cmd: list[str], env: dict | None = None) -> dict:
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise click.ClickException(f"{' '.join(cmd)} failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(touches: int, work: Path) -> dict:
    src = work / "probes.c"
    src.write_text(PROGRAM % {"n": N, "touches": touches})
    exe = work / "probes"
    build = subprocess.run([sys.executable, "-m", "ompcl", "build", str(src), "-o", str(exe),
                            "--model", "none"], capture_output=True, text=True)
    if build.returncode != 0:
        raise click.ClickException(f"ompcl build failed: {build.stderr[-2000:]}")
    env = {**os.environ, "OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "0",
           "OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"}
    ranges = _run([str(exe)], env)
    fsrc = work / "faults.c"
    fsrc.write_text(FAULTS % {"n": N, "touches": touches})
    fexe = work / "faults"
    subprocess.run(["gcc", "-O2", str(fsrc), "-o", str(fexe)], check=True)
    pages = _run([str(fexe)])
    return {"touches": touches, "ranges": ranges, "pages": pages}


def table(r: dict) -> str:
    g, p = r["ranges"], r["pages"]
    rows = [
        ("range probe, element not on the host (8 B back)", g["element_us"], 8),
        ("range probe, element valid already", g["valid_us"], 0),
        ("range probe, a 4 KB page through a helper", g["page_us"], 4096),
        ("page fault (mechanism only, no transfer)", p["fault_us"], 0),
        ("page fault + the page's read-back (sum)", p["fault_us"] + g["page_us"],
         p["page_bytes"]),
    ]
    head = f"{'per touch':<52} {'us':>9} {'bytes back':>11}"
    lines = [head, "-" * len(head)] + [f"{w:<52} {us:9.3f} {b:11d}" for w, us, b in rows]
    lines.append(f"protecting the 16 MB array once: {p['protect_us']:.1f} us "
                 f"({r['touches']} touches of random elements and pages, one run)")
    return "\n".join(lines)


@bench_command("coherence", __doc__)
@click.option("--touches", default=2000, show_default=True, help="Touches of each kind.")
@click.option("--keep", type=click.Path(file_okay=False), help="Build in DIR and keep it.")
def cli(touches: int, keep: str | None) -> int:
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        click.echo(table(measure(touches, Path(keep))))
        return 0
    with tempfile.TemporaryDirectory(prefix="ompcl-coherence-") as tmp:
        click.echo(table(measure(touches, Path(tmp))))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.coherence``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench coherence")


if __name__ == "__main__":
    sys.exit(main())
