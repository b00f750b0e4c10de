"""Host statements that call a function running kernels and also read or write memory: C
orders some accesses after the call (an assignment's store, the operands after ``,``, ``&&``,
``||``, ``?:``, an element after its subscript, a callee's body after its arguments); a probe
before the statement would come too early, so such a function's host code is not
instrumented (its data is synced the conservative way) and the program gives the original's
answer on every path, with copying buffers too. Where the order is the compiler's choice
(arguments of ``printf``), the function stays instrumented."""
from __future__ import annotations

import pytest

from ompcl.pipeline import translate

from conftest import build_both, every_path

HEAD = r"""#include <stdio.h>
#include <stdlib.h>
static double scale(double *a, int n, double s)
{
    int i;
    double sum = 0.0;
#pragma omp parallel for reduction(+:sum)
    for (i = 0; i < n; i++) {
        a[i] = a[i] * s;
        sum += a[i];
    }
    return sum;
}
static void bump(double *a, int n)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++)
        a[i] += 1.0;
}
static int first(double *a, int n)
{
    bump(a, n);
    return 0;
}
static double show(const double *a, double s) { return a[0] + a[1] + s; }
"""

CASES = {
    "comma_read": "r = (scale(y, n, 0.5), y[0]);",
    "store_of_result": "y[0] = scale(y, n, 2.0);",
    "compound_store": "y[1] += scale(y, n, 1.0);",
    "and_then_read": "r = scale(y, n, 1.0) > 0 && y[0] > 1.5;",
    "conditional_read": "r = scale(y, n, 1.0) > 0 ? y[1] : -1.0;",
    "subscript_after_call": "r = y[first(y, n)];",
    "callee_reads_after_arguments": "r = show(y, scale(y, n, 3.0));",
}


def _program(stmt: str) -> str:
    return HEAD + (
        "int main(void)\n{\n    int n = 1000, i;\n    double *y = malloc(n * sizeof(double)), r = 0;\n"
        "    for (i = 0; i < n; i++)\n        y[i] = 2.0;\n"
        f"    {stmt}\n"
        "    bump(y, n);\n"
        '    printf("%.3f %.3f %.3f %.3f\\n", r, y[0], y[1], y[n - 1]);\n'
        "    return 0;\n}\n")


@pytest.mark.parametrize("name", sorted(CASES))
def test_accesses_after_a_call_that_runs_kernels(tmp_path, name):
    ref, exe = build_both(tmp_path, _program(CASES[name]), f"{name}.c")
    every_path(ref, exe, 0.0)  # the host path and the team of one at 1, 2, 3 and 7 threads
    plan = translate(str(tmp_path / f"{name}.c")).residency.host
    assert "main" in plan.not_instrumented
    assert "after a call in it that may run kernels" in plan.not_instrumented["main"]


def test_arguments_in_the_compilers_order_stay_instrumented(tmp_path):
    src = tmp_path / "printf.c"
    src.write_text(_program('printf("%.3f %.3f\\n", scale(y, n, 2.0), y[n / 2]);'))
    assert "main" not in translate(str(src)).residency.host.not_instrumented
