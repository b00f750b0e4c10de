"""Arrays a loop only updates (analysis.updates): a thread's histogram in a team of one is one
array its iterations update with device atomics. Unit cases on parsed C, verdicts on whole
files, and programs built and run against gcc -fopenmp (1 and 2 threads, both buffer modes,
a failed launch's host path)."""
from __future__ import annotations


import pytest
from pycparser import c_ast, c_parser

from ompcl.analysis.updates import array_updates
from ompcl.frontend.preprocess import CppOptions
from ompcl.pipeline import Options, translate

PRELUDE = ("double w[64], src[64]; long h[8]; int key[64];\n"
           "void bump(double *p, int k) { p[k] += 1.0; }\n"
           "void moves(double *p, int k) { p++; p[k] += 1.0; }\n"
           "void reads(double *p, int k) { p[k] = p[k] + 1.0; }\n")

CASES = [
    # (name, body of 'for (i = 0; i < 64; i++)', array, element type, (op, exact) or None)
    ("increment", "h[key[i] % 8]++;", "h", "long", ("+", True)),
    ("integer_sums_any_value", "h[key[i] % 8] += key[i]; h[0] -= 2;", "h", "long", ("+", True)),
    ("same_constant_double", "w[key[i]] += 1.0; if (src[i] > 0) w[0]++;", "w", "double",
     ("+", True)),
    ("different_constants_double", "w[key[i]] += 1.0; w[0] += 2.0;", "w", "double",
     ("+", False)),
    ("value_sums_double", "w[key[i]] += src[i];", "w", "double", ("+", False)),
    ("through_a_callee", "bump(w, key[i]);", "w", "double", ("+", True)),
    ("bitwise_or", "h[i % 8] |= key[i];", "h", "long", ("|", True)),
    ("mixed_operators", "h[i % 8] |= key[i]; h[0] += 1;", "h", "long", None),
    ("plain_write", "h[i % 8] = 1;", "h", "long", None),
    ("read", "h[i % 8]++; src[i] = h[0];", "h", "long", None),
    ("own_subscript", "h[h[0] % 8]++;", "h", "long", None),
    ("own_value", "h[i % 8] += h[1];", "h", "long", None),
    ("value_used", "src[i] = h[i % 8]++;", "h", "long", None),
    ("callee_moves_the_pointer", "moves(w, key[i]);", "w", "double", None),
    # p[k] = p[k] + 1.0 is p[k] += 1.0
    ("callee_spelled_out", "reads(w, key[i]);", "w", "double", ("+", True)),
    ("spelled_out", "w[key[i]] = w[key[i]] + 2.0;", "w", "double", ("+", True)),
    ("spelled_out_side_effect", "w[i++] = w[i++] + 2.0;", "w", "double", None),
    ("pointer_escapes", "double *p = w; p[0] += 1.0;", "w", "double", None),
]


def _body(body: str) -> tuple[c_ast.Node, dict]:
    src = PRELUDE + "void f(void) { int i;\nfor (i = 0; i < 64; i++) {" + body + "}\n}\n"
    ast = c_parser.CParser().parse(src)
    funcs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    return funcs["f"].body.block_items[-1].stmt, funcs


@pytest.mark.parametrize("name,body,array,base,verdict", CASES, ids=[c[0] for c in CASES])
def test_array_updates(name, body, array, base, verdict):
    stmt, funcs = _body(body)
    upd = array_updates(array, stmt, base, funcs.get)
    assert (upd and (upd.op, upd.exact)) == verdict or upd is verdict is None


def test_callee_parameters_are_recorded():
    stmt, funcs = _body("bump(w, key[i]);")
    assert array_updates("w", stmt, "double", funcs.get).params == (("bump", "p"),)


HIST = r"""#include <stdio.h>
#define N 20000
#define NB 16
int key[N];
double q[NB];
long hist[NB];
unsigned int bits[NB];
static int tp[NB];
#pragma omp threadprivate(tp)
static void count(double h[NB], int k) { h[k] += 1.0; }
int main(void)
{
    int i;
    for (i = 0; i < N; i++)
        key[i] = (int)((i * 7919L) % 1000);
    for (i = 0; i < NB; i++) { q[i] = 0.0; hist[i] = 0; bits[i] = 0; }
#pragma omp parallel private(i)
    {
        double qq[NB];
        long hh[NB];
        unsigned int bb[NB];
        long k;
        for (i = 0; i < NB; i++) { qq[i] = 0.0; hh[i] = 0; bb[i] = 0; tp[i] = 0; }
#pragma omp for schedule(static)
        for (k = 0; k < N; k++) {
            count(qq, key[k] % NB);
            hh[key[k] / 100]++;
            hh[NB - 1] -= key[k] % 3;
            bb[k % NB] ^= (unsigned int)key[k] * 2654435761u;
            tp[(key[k] + 3) % NB] += 2;
        }
#pragma omp critical
        {
            for (i = 0; i < NB; i++) {
                q[i] += qq[i]; hist[i] += hh[i] + tp[i]; bits[i] ^= bb[i];
            }
        }
    }
    for (i = 0; i < NB; i++)
        printf("%d %.17g %ld %u\n", i, q[i], hist[i], bits[i]);
    return 0;
}
"""

ORDERED = r"""double q[8], src[100];
void f(void) {
#pragma omp parallel
  {
    double qq[8];
    int i, k;
    for (i = 0; i < 8; i++) qq[i] = 0.0;
#pragma omp for
    for (k = 0; k < 100; k++)
      qq[k % 8] += src[k];
#pragma omp critical
    for (i = 0; i < 8; i++) q[i] += qq[i];
  }
}
"""


def _remarks(tmp_path, text: str):
    src = tmp_path / "t.c"
    src.write_text(text)
    return {(m.loc.line, m.id) for m in translate(str(src), Options(CppOptions())).remarks}


def test_histogram_loop_is_offloaded(tmp_path):
    assert (24, "offloaded") in _remarks(tmp_path, HIST)


def test_floating_sums_in_another_order(tmp_path):
    """Adding data to a thread's double array: atomics add in another order, so the bits
    could change. Only merged into shared sums after the loop, it is an array reduction
    written by hand, whose order is free; read otherwise, the loop keeps the 'update-order'
    reason."""
    assert (8, "offloaded") in _remarks(tmp_path, ORDERED)
    assert (8, "update-order") in _remarks(tmp_path, ORDERED.replace("q[i] += qq[i]",
                                                                     "q[i] = qq[i]"))


def test_histogram_runs_on_the_device(tmp_path, opencl_available):
    """Built and run: the same counts as gcc -fopenmp with 1 and 2 threads, in both buffer
    modes, on the device (stats), and when the launch fails (the host path runs the
    iterations on the one thread)."""
    from conftest import gcc_build, load_stats, ompcl_build, run
    src = tmp_path / "h.c"
    src.write_text(HIST)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    expected = run(ref, OMP_NUM_THREADS="1").stdout
    assert run(ref, OMP_NUM_THREADS="2").stdout == expected
    stats = tmp_path / "s.json"
    for threads in ("1", "2"):
        for zero_copy in ("0", "1"):
            out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                      OMPCL_STATS=str(stats), OMP_NUM_THREADS=threads)
            assert out.returncode == 0, out.stderr
            assert out.stdout == expected
            if opencl_available:
                assert load_stats(stats)["regions"][0]["device_runs"] == 1
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_FAULT="launch", OMP_NUM_THREADS=threads)
        assert out.returncode == 0, out.stderr
        assert out.stdout == expected


# each thread's histograms: a block it allocates, an array it declares
BUCKETS = r"""#include <stdio.h>
#include <stdlib.h>
#define N 50000
#define NB 64
int key[N];
long fixed[4 * NB];
int main(void)
{
    long total[NB], fsum[NB];
    int i;
    for (i = 0; i < N; i++)
        key[i] = (int)((i * 2654435761u) % (NB << 4));
    for (i = 0; i < NB; i++) total[i] = fsum[i] = 0;
#pragma omp parallel num_threads(2) private(i)
    {
        long *work = calloc(NB, sizeof(long));
        long mine[NB];
        long k;
        for (i = 0; i < NB; i++) mine[i] = 0;
#pragma omp for schedule(static)
        for (k = 0; k < N; k++)
            work[key[k] >> 4]++;
#pragma omp for schedule(static)
        for (k = 0; k < N; k++)
            mine[(key[k] * 7) % NB] += 2;
#pragma omp critical
        for (i = 0; i < NB; i++) { total[i] += work[i]; fsum[i] += mine[i]; }
        free(work);
    }
    for (i = 0; i < NB; i++)
        printf("%d %ld %ld\n", i, total[i], fsum[i]);
    return 0;
}
"""

# the same by hand from the thread number (a team of one would be one thread of two asked for)
BUCKETS_BY_THREAD = r"""#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#define N 50000
#define NB 64
int key[N];
long fixed[4 * NB];
static int my_thread(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
int main(void)
{
    long *heap = calloc(4 * NB, sizeof(long)), total[NB], fsum[NB];
    int i, t;
    for (i = 0; i < N; i++)
        key[i] = (int)((i * 2654435761u) % (NB << 4));
    for (i = 0; i < NB; i++) total[i] = fsum[i] = 0;
#pragma omp parallel num_threads(2) private(i)
    {
        int id = my_thread();
        long *work = heap + (long)id * NB;
        long *mine = fixed + (long)id * NB;
        long k;
        for (i = 0; i < NB; i++) work[i] = mine[i] = 0;
#pragma omp for schedule(static)
        for (k = 0; k < N; k++)
            work[key[k] >> 4]++;
#pragma omp for schedule(static)
        for (k = 0; k < N; k++)
            mine[(key[k] * 7) % NB] += 2;
#pragma omp critical
        for (i = 0; i < NB; i++) { total[i] += work[i]; fsum[i] += mine[i]; }
    }
    for (i = 0; i < NB; i++)
        printf("%d %ld %ld\n", i, total[i], fsum[i]);
    free(heap);
    return 0;
}
"""

GUARDED = r"""#include <stdlib.h>
int key[100];
long *heap;
int my_thread(void);
void f(void) {
#pragma omp parallel
  {
    long *work = heap + (long)my_thread() * 16;
    long k;
#pragma omp for
    for (k = 0; k < 100; k++)
      if (key[k] > 0)
        work[key[k] % 16]++;
  }
}
"""


def _for_lines(text: str) -> list[int]:
    return [k for k, line in enumerate(text.splitlines(), 1) if "#pragma omp for" in line]


def test_bucket_histograms_are_offloaded(tmp_path):
    """A thread's pointer to a heap block (the extent inspected at entry) and a thread's own
    array that the loops only update."""
    remarks = _remarks(tmp_path, BUCKETS)
    assert {(line, "offloaded") for line in _for_lines(BUCKETS)} <= remarks


def test_bucket_histograms_by_thread_number_keep_their_team(tmp_path):
    """Histograms chosen by the thread number (a callee asks omp_get_thread_num): the region
    keeps its team on every path, and its loops say why."""
    remarks = _remarks(tmp_path, BUCKETS_BY_THREAD)
    assert {(line, "team") for line in _for_lines(BUCKETS_BY_THREAD)} <= remarks


def test_conditional_data_dependent_subscript_takes_the_block(tmp_path):
    """A subscript evaluated only in some iterations cannot be inspected before the loop
    (evaluating it in the others could read what the original never reads): the pointer's
    extent is the block it points into, found by the runtime without evaluating anything."""
    src = tmp_path / "t.c"
    src.write_text(GUARDED)
    u = translate(str(src), Options(CppOptions()))
    (r,) = u.regions
    assert [(x.name, x.block) for x in r.inspections] == [("work", True)]
    assert (10, "array-extent") not in {(m.loc.line, m.id) for m in u.remarks}


def test_bucket_histograms_run_on_the_device(tmp_path, opencl_available):
    from conftest import gcc_build, load_stats, ompcl_build, run
    src = tmp_path / "b.c"
    src.write_text(BUCKETS)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    expected = run(ref).stdout
    stats = tmp_path / "s.json"
    for zero_copy in ("0", "1"):
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                  OMPCL_STATS=str(stats))
        assert out.returncode == 0, out.stderr
        assert out.stdout == expected
        if opencl_available:
            assert [r["device_runs"] for r in load_stats(stats)["regions"]] == [1, 1]
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_FAULT="launch")
    assert out.returncode == 0, out.stderr
    assert out.stdout == expected


def test_bucket_histograms_by_thread_number_on_every_path(tmp_path):
    from conftest import build_both, every_path
    ref, exe = build_both(tmp_path, BUCKETS_BY_THREAD, "b.c")
    every_path(ref, exe, 0.0)


def test_device_without_64_bit_atomics_runs_those_loops_on_the_host(tmp_path, opencl_available):
    """Built as for a device without cl_khr_int64_base_atomics (OMPCL_FAULT=int64): the
    kernels with long or double atomics do not exist, so their loops run on the host (one
    thread: the team's) with a warning; the program's answer is the same."""
    from conftest import gcc_build, load_stats, ompcl_build, run
    src = tmp_path / "h.c"
    src.write_text(HIST)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    assert ompcl_build([src], exe).returncode == 0
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_FAULT="int64", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    assert out.stdout == run(ref).stdout
    if opencl_available:
        region = load_stats(stats)["regions"][0]
        assert (region["device_runs"], region["host_runs"]) == (0, 1)
        assert "kernel creation failed" in region["fallback"]
        assert "warning" in out.stderr


REDUCTION = r"""#include <stdio.h>
#define N 10000
#define NB 8
double src[N], h[NB];
long cnt[NB];
static void add(double q[NB], int k, double v) { q[k] += v; }
int main(void)
{
    int i, k;
    for (i = 0; i < N; i++) src[i] = 0.001 * (i % 97) + 1.0 / (1 + i % 13);
    for (i = 0; i < NB; i++) { h[i] = 1.0; cnt[i] = 5; }
#pragma omp parallel for reduction(+:h[0:NB], cnt)
    for (k = 0; k < N; k++) {
        add(h, (k * 7) % NB, src[k]);
        h[k % NB] -= 0.5 * src[k];
        cnt[(k * 3) % NB]++;
    }
    for (i = 0; i < NB; i++) printf("%d %.12e %ld\n", i, h[i], cnt[i]);
    return 0;
}
"""

REDUCTION_READ = r"""double h[8], src[100];
void f(void) {
  int k;
#pragma omp parallel for reduction(+:h)
  for (k = 0; k < 100; k++)
    h[k % 8] += src[k] * h[0];
}
"""


def test_array_reduction_clause_allows_any_order(tmp_path):
    """reduction(+: h[0:NB], cnt) on arrays (OpenMP 4.5): their updates, a callee's included,
    become atomics in any order, floating-point sums too (the clause allows reassociation);
    an array in the clause that the loop also reads keeps the loop on the host."""
    assert (12, "offloaded") in _remarks(tmp_path, REDUCTION)
    assert (4, "clause-type") in _remarks(tmp_path, REDUCTION_READ)


def test_array_reduction_runs_on_the_device(tmp_path, opencl_available):
    from conftest import compare_outputs, gcc_build, load_stats, ompcl_build, run
    src = tmp_path / "r.c"
    src.write_text(REDUCTION)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    assert ompcl_build([src], exe).returncode == 0
    stats = tmp_path / "s.json"
    for threads in ("1", "2"):
        expected = run(ref, OMP_NUM_THREADS=threads).stdout
        for zero_copy in ("0", "1"):
            out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                      OMPCL_STATS=str(stats), OMP_NUM_THREADS=threads)
            assert out.returncode == 0, out.stderr
            compare_outputs(expected, out.stdout, 1e-12)
            if opencl_available:
                assert load_stats(stats)["regions"][0]["device_runs"] == 1


#: heap sections of run-time length (EP's q[0:nq] style): updated in place by device
#: atomics (the clause's private copies leave the original alone during the loop, so the
#: launch also checks that no other array argument is the same memory)
HEAP_SECTIONS = r"""#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = 200000, bins = 100 + argc, i, pass;
    int *v = malloc(n * sizeof *v);
    long *h = malloc(bins * sizeof *h);
    double *w = calloc(bins, sizeof *w);
    for (i = 0; i < bins; i++) h[i] = i % 3;
    for (i = 0; i < n; i++) v[i] = (int)((i * 2654435761u) >> 7);
    for (pass = 0; pass < 2; pass++) {
#pragma omp parallel for reduction(+:h[0:bins], w[0:bins])
        for (i = 0; i < n; i++) {
            h[v[i] % bins] += 1 + pass;
            w[(v[i] >> 3) % bins] += 0.25;
        }
    }
    long s = 0;
    double t = 0;
    for (i = 0; i < bins; i++) { s += h[i] * (i + 1); t += w[i] * (i % 7); }
    printf("%ld %.6f\n", s, t);
    return 0;
}
"""


def test_heap_section_reductions_on_every_path(tmp_path):
    """reduction(+: h[0:bins], w[0:bins]) on heap pointers: device atomics into the blocks,
    the launch checking they are other memory than the loop's other arrays."""
    from conftest import build_both, device_runs, every_path
    ref, exe = build_both(tmp_path, HEAP_SECTIONS, "sections.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [2])
    unit = translate(str(tmp_path / "sections.c"))
    assert {frozenset(p) for p in unit.regions[0].distinct} >= {
        frozenset(("h", "v")), frozenset(("h", "w")), frozenset(("v", "w"))}


def test_auto_mode_keeps_teams_with_updated_arrays_on_the_original(tmp_path):
    """Guards the team's count of loops run on one thread: a declined launch of a loop
    updating a thread's array runs on one thread inside the team of one, so the team counts
    that loop (typed: the loop's ``updated`` arrays) and auto mode does not choose the team's
    device version (statistics: the team ran on the host, saying why); forced, the device
    runs it. gcc's answer both ways."""
    from conftest import build_both, compare_outputs, load_stats, run
    src = tmp_path / "h.c"
    src.write_text(HIST)
    u = translate(str(src), Options(CppOptions()))
    (team,) = u.teams
    loops = [r for r in u.regions if r.team == team.id]
    assert team.offload and loops and all(r.offload for r in loops)
    assert len(team.serial) + sum(bool(r.updated) for r in loops) > 0
    ref, exe = build_both(tmp_path, HIST)
    expected = run(ref).stdout
    stats = tmp_path / "s.json"
    for device, ran in (("auto", "host_runs"), ("opencl", "device_runs")):
        out = run(exe, OMPCL_DEVICE=device, OMPCL_STATS=str(stats))
        assert out.returncode == 0, out.stderr
        compare_outputs(expected, out.stdout, 1e-12)
        st = load_stats(stats)
        if st["device"]["available"]:
            (t,) = st["teams"]
            assert t[ran] == t["entries"] == 1, t
            if device == "auto":
                assert "stay on the host" in t["fallback"], t
