"""GNU's atomic builtins (``__sync_fetch_and_add``, ``__atomic_add_fetch`` ...) and
``#pragma omp atomic capture`` in kernels: updates whose value is unused run as the device
atomics ``omp atomic`` gets, captures as helpers returning the old or the new value, both
executed on the device against gcc -fopenmp; the forms the device does not give keep their
loop on the host with a remark naming them."""
from __future__ import annotations

import pytest

from conftest import build_both, every_path, same_output_on_device
from ompcl.analysis.accesses import AtomicOp, capture_form, statement_atomic
from ompcl.analysis.ctypes_ import c_text
from ompcl.pipeline import Options, translate
from pycparser import c_parser

UPDATES = r"""#include <stdio.h>
#define N 100000
int cnt[16], cnt2[16];
unsigned bits[8], ones[8], zeros[8];
long wide[4];
int total;
int main(void)
{
    int i, k;
    int *p = cnt2;
    for (k = 0; k < 8; k++) { ones[k] = ~0u; zeros[k] = 0; }
#pragma omp parallel for
    for (i = 0; i < N; i++) __sync_fetch_and_add(&cnt[i & 15], 1);
#pragma omp parallel for
    for (i = 0; i < N; i++) __atomic_fetch_add(&cnt[(i >> 3) & 15], 1, __ATOMIC_RELAXED);
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        __sync_add_and_fetch(p + (i % 7), 2);
        (void)__atomic_sub_fetch(&cnt2[15 - i % 5], 1, __ATOMIC_SEQ_CST);
        __sync_fetch_and_sub(p, 1);
        __sync_fetch_and_add(&total, i % 11);
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        __sync_fetch_and_xor(&bits[i & 7], (unsigned)i * 2654435761u);
        __atomic_and_fetch(&ones[i & 7], ~(1u << (i % 32)), __ATOMIC_ACQ_REL);
        __atomic_fetch_or(&zeros[(i >> 2) & 7], 1u << (i % 29), __ATOMIC_RELAXED);
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        __sync_fetch_and_add(&wide[i & 3], (long)i * 100003L);
        __atomic_sub_fetch(&wide[(i >> 2) & 3], 3L, __ATOMIC_SEQ_CST);
    }
    long s = total;
    for (k = 0; k < 16; k++) s = s * 31 + cnt[k] * 7 + cnt2[k];
    for (k = 0; k < 8; k++) printf("%u %u %u\n", bits[k], ones[k], zeros[k]);
    for (k = 0; k < 4; k++) printf("%ld\n", wide[k]);
    printf("%ld %d\n", s, total);
    return 0;
}
"""


CAPTURES = r"""#include <stdio.h>
#define N 60000
#define M 10
int a[N], out[M][N];
int next, up, down = N, step, fwd, back = 2 * N;
long lnext;
double dnext;
int main(void)
{
    int i, k;
    long s1 = 0, s2 = 0;
    for (i = 0; i < N; i++) a[i] = (i * 7919) % 1000 + 1;
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int k;
#pragma omp atomic capture
        k = next++;
        out[0][k] = a[i];
    }
#pragma omp parallel for private(k)
    for (i = 0; i < N; i++) {
#pragma omp atomic capture
        k = ++up;
        out[1][k - 1] = a[i];
#pragma omp atomic capture seq_cst
        k = down--;
        out[2][k - 1] = a[i];
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        int k, m;
#pragma omp atomic capture
        { k = step; step += 3; }
        out[3][k / 3] = a[i];
#pragma omp atomic capture
        { fwd += 2; m = fwd; }
        out[4][m / 2 - 1] = a[i];
#pragma omp atomic capture
        m = back -= 2;
        out[5][m / 2] = a[i];
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        long k = __sync_fetch_and_add(&lnext, 1L);
        int j = __atomic_add_fetch(&next, 1, __ATOMIC_SEQ_CST);
        double d;
#pragma omp atomic capture
        d = dnext += 1.0;
        out[6][k] = a[i];
        out[7][j - N - 1] = a[i];
        out[8][(int)d - 1] = a[i];
    }
    /* each index is handed out once: the values of every row are a's, in some order */
    for (k = 0; k < M; k++)
        for (i = 0; i < N; i++) {
            s1 += out[k][i] * (k + 1);
            s2 += (long)out[k][i] * out[k][i] % 10007 * (k + 1);
        }
    printf("%ld %ld %d %d %d %d %d %d %ld %.1f\n", s1, s2, next, up, down, step, fwd, back,
           lnext, dnext);
    return 0;
}
"""


def _all_ran(regions) -> bool:
    return all(r["kernels_launched"] >= 1 for r in regions)


def test_gnu_atomic_updates_on_the_device(tmp_path):
    """Histograms of int, unsigned and long through every builtin form (``&a[k]``,
    ``p + k``, ``p``, a shared scalar, ``(void)``; gcc has no floating-point ones)."""
    src = tmp_path / "updates.c"
    src.write_text(UPDATES)
    same_output_on_device(src, tmp_path, 0.0, ran=_all_ran)


def test_atomic_captures_on_the_device(tmp_path):
    """Every index a capture hands out is used once: the checksum and the final counters do
    not depend on the order of the captures."""
    src = tmp_path / "captures.c"
    src.write_text(CAPTURES)
    same_output_on_device(src, tmp_path, 0.0, ran=_all_ran)


HOST = r"""#include <stdio.h>
#define N 1000
struct S { int x; } s;
int c[N], flag, lock;
char small[16];
void bump(int *q) { __sync_fetch_and_add(q, 1); }
void pbump(int *q, int k) {
#pragma omp atomic
    q[k] += 1;
}
int main(void)
{
    int i, v, shared_v = 0;
#pragma omp parallel for
    for (i = 0; i < N; i++) c[i] = __sync_fetch_and_add(&flag, 1) + 1;
#pragma omp parallel for
    for (i = 0; i < N; i++) __sync_val_compare_and_swap(&c[i], 0, 1);
#pragma omp parallel for
    for (i = 0; i < N; i++) while (__sync_lock_test_and_set(&lock, 1)) ;
#pragma omp parallel for
    for (i = 0; i < N; i++) __sync_fetch_and_add(&s.x, 1);
#pragma omp parallel for
    for (i = 0; i < N; i++) bump(&c[i % 4]);
#pragma omp parallel for
    for (i = 0; i < N; i++) pbump(c, i % 4);
#pragma omp parallel for private(v)
    for (i = 0; i < N; i++) {
        __sync_fetch_and_add(&flag, 1);
#pragma omp atomic read
        v = lock;
        c[i] = v;
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) {
#pragma omp atomic capture
        shared_v = flag++;
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) __sync_fetch_and_add(&small[i % 16], 1);
#pragma omp parallel for
    for (i = 0; i < N; i++) {
#pragma omp atomic update seq_cst
        c[i % 8] += 1;
    }
#pragma omp parallel for private(v)
    for (i = 0; i < N; i++) {
#pragma omp atomic capture
        v = flag++ + 1;
        c[i] = v;
    }
    printf("%d %d %d %d\n", c[0], flag, s.x, shared_v + small[0]);
    return 0;
}
"""

#: line of each loop's directive -> the reason it stays on the host ('offloaded': it does not)
HOST_REASONS = {
    14: ("atomic-builtin", "uses the value of '__sync_fetch_and_add' in an expression"),
    16: ("atomic-builtin", "calls '__sync_val_compare_and_swap'"),
    18: ("atomic-builtin", "calls '__sync_lock_test_and_set'"),
    20: ("atomic-builtin", "on '&s.x', which is not the address"),
    22: ("callee-body", "function 'bump' calls '__sync_fetch_and_add'"),
    24: ("callee-body", "function 'pbump' contains '#pragma omp atomic'"),
    26: ("atomic-order", "orders an atomic update (seq_cst"),
    33: ("shared-write", "shared_v"),
    38: ("omp-construct", "'small' elements of type 'char'"),
    40: ("offloaded", ""),
    45: ("omp-construct", "'#pragma omp atomic capture' of a form"),
}


def test_forms_the_device_does_not_give_stay_on_the_host(tmp_path):
    """A builtin's value inside an expression, compare-and-swap, a lock, a member's address,
    builtins and ``omp atomic`` in a called function, an ordered update where the loop also
    reads atomically, a capture into a shared variable, char elements: each keeps its loop on
    OpenMP, with a remark naming it; an ordered update alone runs (relaxed) on the device."""
    src = tmp_path / "host.c"
    src.write_text(HOST)
    u = translate(str(src), Options(model="none"))
    got = {r.loc.line: ("offloaded", "") if r.offload else (r.reasons[0].id,
                                                             r.reasons[0].message)
           for r in u.regions}
    assert set(got) == set(HOST_REASONS), got
    for line, (rid, text) in HOST_REASONS.items():
        assert got[line][0] == rid and text in got[line][1], (line, got[line])


def _stmt(text: str):
    ast = c_parser.CParser().parse(f"void f(void) {{ {text} }}")
    return ast.ext[0].body.block_items[0]


@pytest.mark.parametrize("text, expected", [
    ("v = x++;", ("v", "x", "+", "1", False)),
    ("v = x--;", ("v", "x", "-", "1", False)),
    ("v = ++x;", ("v", "x", "+", "1", True)),
    ("v = x *= e;", ("v", "x", "*", "e", True)),
    ("v = a[i] = a[i] + e;", ("v", "a[i]", "+", "e", True)),
    ("{ v = x; x -= e; }", ("v", "x", "-", "e", False)),
    ("{ x |= e; v = x; }", ("v", "x", "|", "e", True)),
    ("{ v = x; x = e; }", ("v", "x", "=", "e", False)),
    ("v = x++ + 1;", None),
    ("{ v = x; x += v; }", None),  # the value read is the value captured
    ("x = x++;", None),
])
def test_capture_forms(text, expected):
    op = capture_form(_stmt(text))
    got = None if op is None else (c_text(op.var), c_text(op.target), op.op,
                                   c_text(op.value), op.new)
    assert got == expected


@pytest.mark.parametrize("text, expected", [
    ("__sync_fetch_and_add(&a[i], 2);", (None, "a[i]", "+", False, "seq_cst")),
    ("(void)__sync_or_and_fetch(p + k, m);", (None, "p[k]", "|", True, "seq_cst")),
    ("v = __atomic_fetch_xor(p, m, 0);", ("v", "p[0]", "^", False, None)),
    ("v = __atomic_sub_fetch(&x, 1, 5);", ("v", "x", "-", True, "seq_cst")),
    ("__atomic_and_fetch(&x, 1, 3);", (None, "x", "&", True, "release")),
    ("__atomic_fetch_add(&x, 1, order);", (None, "x", "+", False, "seq_cst")),
    ("__sync_fetch_and_nand(&x, 1);", "calls '__sync_fetch_and_nand'"),
    ("__sync_fetch_and_add(&s.x, 1);", "on '&s.x'"),
    ("x = __sync_fetch_and_add(&x, 1);", "to itself"),
    ("f(&x, 1);", None),
])
def test_builtin_statements(text, expected):
    op = statement_atomic(_stmt(text))
    if isinstance(op, AtomicOp):
        op = (op.var and c_text(op.var), c_text(op.target), op.op, op.new, op.order)
        assert op == expected
    elif isinstance(expected, str):
        assert expected in op
    else:
        assert op is expected


def test_kernel_helpers(tmp_path):
    """The kernels call the update helper for a builtin whose value is unused (the one
    ``omp atomic`` gets), and value-returning helpers for captures; no builtin is left."""
    text = ""
    for name, program in (("captures.c", CAPTURES), ("updates.c", UPDATES)):
        src = tmp_path / name
        src.write_text(program)
        u = translate(str(src), Options(model="none"))
        assert all(r.offload for r in u.regions), [r.reasons for r in u.regions]
        text += u.kernel_source
    for name in ("ompcl_atomic_fetch_add_int(", "ompcl_atomic_add_fetch_int(",
                 "ompcl_atomic_fetch_sub_int(", "ompcl_atomic_fetch_add_long(",
                 "ompcl_atomic_add_fetch_double(", "ompcl_atomic_xor_uint(",
                 "ompcl_atomic_sub_long("):
        assert name in text, name
    assert "__sync" not in text and "__atomic" not in text


REGION = r"""#include <stdio.h>
#define N 50000
int cnt[16], out[N], a[N];
int next;
int main(void)
{
    int i;
    long s = 0;
    for (i = 0; i < N; i++) a[i] = i * 7 % 1000;
#pragma omp parallel
    {
#pragma omp for
        for (i = 0; i < N; i++) __sync_fetch_and_add(&cnt[i & 15], 1);
#pragma omp for
        for (i = 0; i < N; i++) {
            int k;
#pragma omp atomic capture
            k = next++;
            out[k] = a[i];
        }
    }
    for (i = 0; i < 16; i++) s += cnt[i] * (i + 1);
    for (i = 0; i < N; i++) s += (long)out[i] * out[i] % 101;
    printf("%ld %d\n", s, next);
    return 0;
}
"""


def test_builtins_in_a_parallel_region(tmp_path):
    """A builtin cannot ask for its team: the region's loops run on the device."""
    src = tmp_path / "region.c"
    src.write_text(REGION)
    same_output_on_device(src, tmp_path, 0.0, ran=_all_ran)


@pytest.mark.parametrize("name", ["UPDATES", "CAPTURES", "REGION"])
def test_every_path_agrees(tmp_path, name):
    """The host path, both buffer modes and the team of one at 1, 2, 3 and 7 threads."""
    ref, exe = build_both(tmp_path, globals()[name])
    every_path(ref, exe, 0.0)
