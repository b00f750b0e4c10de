"""GNU's case ranges (``case 'a' ... 'z':``, ``case 0 ... 3:``) in a function holding OpenMP
loops: read as the labels they stand for, so the function is not left as written and its
loops run on the device (a range in the loop body, in a callee, in host code between loops);
a range of more than 256 values keeps the old fallback. Every path against gcc."""
from __future__ import annotations

from conftest import build_both, every_path, kernels_launched, report_lines

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
    lines = report_lines(tmp_path, PROGRAM)
    assert [ln.split()[1] for ln in lines] == ["offloaded", "offloaded"], lines
    ref, exe = build_both(tmp_path, PROGRAM)
    every_path(ref, exe, 0.0)
    launched = kernels_launched(exe)
    assert launched is None or launched == [3, 1], launched


def test_a_wide_range_keeps_the_function_as_written(tmp_path):
    text = PROGRAM.replace("case 4 ... 0x9:", "case 4 ... 100000:")
    lines = report_lines(tmp_path, text)
    assert any("[function-fallback]" in ln for ln in lines), lines
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, 0.0, threads=("2",))
