"""GNU's case ranges (``case 'a' ... 'z':``, ``case 0 ... 3:``) in a function holding OpenMP
loops: read as the labels they stand for, so the function is not left as written and its
loops run on the device (a range in the loop body, in a callee, in host code between loops);
a range of more than 256 values keeps the old fallback. Every path against gcc."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, build_both, every_path, load_stats, run

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
static int kind(char c)
{
    switch (c) {
    case 'a' ... 'z': return 1;
    case 'A' ... 'Z': return 2;
    case '0' ... '9': return 3;
    default: return 0;
    }
}
int main(void)
{
    int n = 50000, i, t, hist[4] = {0, 0, 0, 0};
    char *s = malloc(n);
    double *h = malloc(n * sizeof *h);
    for (i = 0; i < n; i++) s[i] = (char)(32 + (i * 7919) % 90);
    for (t = 0; t < 3; t++) {
#pragma omp parallel for
        for (i = 0; i < n; i++) {
            switch (i & 15) { case 0 ... 3: h[i] = kind(s[i]); break;
            case 4 ... 0x9: h[i] = -kind(s[i]) * 0.5; break; default: h[i] = 1.0; }
        }
        switch (t) { case 0 ... 1: h[0] += 1; s[1] = 'q'; break; default: h[1] -= 1; }
    }
#pragma omp parallel for reduction(+:hist[:4])
    for (i = 0; i < n; i++) hist[kind(s[i])]++;
    double sum = 0;
    for (i = 0; i < n; i++) sum += h[i] * (i % 5);
    printf("%.3f %d %d %d %d\n", sum, hist[0], hist[1], hist[2], hist[3]);
    return 0;
}
"""


def test_case_ranges_on_every_path(tmp_path):
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    rep = subprocess.run([sys.executable, "-m", "ompcl.cli", "translate", str(src), "--report",
                          "-o", str(tmp_path / "out.c")], capture_output=True, text=True,
                         cwd=ROOT)
    lines = [ln for ln in rep.stdout.splitlines() if "p.c:" in ln]
    assert [ln.split()[1] for ln in lines] == ["offloaded", "offloaded"], rep.stdout
    ref, exe = build_both(tmp_path, PROGRAM)
    every_path(ref, exe, 0.0)
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    if st["device"]["available"]:
        assert [r["kernels_launched"] for r in st["regions"]] == [3, 1]


def test_a_wide_range_keeps_the_function_as_written(tmp_path):
    text = PROGRAM.replace("case 4 ... 0x9:", "case 4 ... 100000:")
    src = tmp_path / "p.c"
    src.write_text(text)
    rep = subprocess.run([sys.executable, "-m", "ompcl.cli", "translate", str(src), "--report",
                          "-o", str(tmp_path / "out.c")], capture_output=True, text=True,
                         cwd=ROOT)
    assert "[function-fallback]" in rep.stdout, rep.stdout
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, 0.0, threads=("2",))
