"""The loop shapes of ``ompcl bench kernels``: per shape an OpenMP C loop (with its data,
initialised by integer formulas that numpy reproduces exactly) and plain hand-written OpenCL
kernels doing the same work with the same data, launched through pyopencl.

Consumed by ``ompcl.bench.kernels``; produces nothing by itself. The hand-written kernels are
what an OpenCL programmer writes for these loops: one work-item per iteration (the ND-range
form every OpenCL guide starts from) and, for a CPU device, a contiguous chunk per
work-item (the transpose in tiles, as textbooks write it); the benchmark compares ompcl with
the fastest of them. Reductions also carry the
other two-stage forms measured against them (a work-group tree in local memory, a grid
stride, a second kernel combining on the device). The records and device helpers are in
``kernel_records``, the reduction shapes in ``kernel_reductions``, n-body in ``kernel_nbody``.
"""
from __future__ import annotations

import numpy as np

from .kernel_nbody import NBODY
from .kernel_records import CL_HEAD, Hand, Shape, chunks, device_buffer, np_hash, read_back
from .kernel_reductions import REDUCTIONS, reduction_shape

__all__ = ["SHAPES", "Hand", "Shape", "np_hash"]


# -- map ------------------------------------------------------------------------------------

MAP_N = 1 << 22

_MAP_CL = CL_HEAD + r"""
__kernel void item(__global const double *x, __global const double *z, __global double *y,
                   const double a, const long n)
{
  long i = get_global_id(0);
  if (i < n)
    y[i] = a * x[i] + 0.5 * z[i];
}

__kernel void chunk(__global const double *x, __global const double *z, __global double *y,
                    const double a, const long n)
{
  long w = get_global_id(0), nw = get_global_size(0), c = (n + nw - 1) / nw;
  long end = min(n, (w + 1) * c);
  for (long i = w * c; i < end; i++)
    y[i] = a * x[i] + 0.5 * z[i];
}
"""


def _map_setup(dev) -> dict:
    h = np_hash(MAP_N)
    x, z = h / 1000003.0, (h % 1000) / 1000.0
    return {"x": device_buffer(dev, x), "z": device_buffer(dev, z), "y": device_buffer(dev, np.zeros(MAP_N)),
            "like": x}


MAP = Shape(
    "map", "y[i] = a * x[i] + 0.5 * z[i] over 4M doubles (heap arrays)",
    c_globals="static double *x, *y, *z;",
    c_loop=r"""
static void axpy(int n, double a, double *x, double *z, double *y)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++)
        y[i] = a * x[i] + 0.5 * z[i];
}
""",
    c_init=rf"""    int i, n = {MAP_N};
    x = malloc(n * sizeof *x); y = malloc(n * sizeof *y); z = malloc(n * sizeof *z);
    for (i = 0; i < n; i++) {{
        x[i] = BENCH_HASH(i) / 1000003.0;
        z[i] = (BENCH_HASH(i) % 1000u) / 1000.0;
        y[i] = 0.0;
    }}""",
    c_call="axpy(n, 1.5, x, z, y)",
    c_check="y[12345] + y[n / 2] + y[n - 1]",
    hand_setup=_map_setup,
    hand_check=lambda s: float(sum(read_back(s["dev"], s["y"], s["like"])[[12345, MAP_N // 2,
                                                                        MAP_N - 1]])),
    hands=(
        Hand("one item per element", _MAP_CL, "item",
             lambda s: [s["x"], s["z"], s["y"], np.float64(1.5), np.int64(MAP_N)],
             lambda s, dev: ((MAP_N,), None)),
        Hand("chunk per work-item", _MAP_CL, "chunk",
             lambda s: [s["x"], s["z"], s["y"], np.float64(1.5), np.int64(MAP_N)],
             lambda s, dev: ((chunks(dev),), (1,))),
    ))


# -- stencils -------------------------------------------------------------------------------

N2 = 1000

_ST2_CL = CL_HEAD + f"#define N {N2}\n" + r"""
#define AT(a, i, j) a[(i) * N + (j)]
#define BODY(i, j) AT(v, i, j) = AT(u, i, j) + 0.2 * (AT(u, i - 1, j) + AT(u, i + 1, j) \
    + AT(u, i, j - 1) + AT(u, i, j + 1) - 4.0 * AT(u, i, j))
__kernel void item(__global const double *u, __global double *v)
{
  long j = get_global_id(0) + 1, i = get_global_id(1) + 1;
  BODY(i, j);
}

__kernel void rows(__global const double *u, __global double *v)
{
  long i = get_global_id(0) + 1;
  for (long j = 1; j < N - 1; j++)
    BODY(i, j);
}
"""


def _grid_setup(dev, n: int, dims: int) -> dict:
    u = np_hash(n ** dims) / 1000003.0
    return {"u": device_buffer(dev, u), "v": device_buffer(dev, np.zeros_like(u)), "like": u}


def _grid_check(s: dict, points: list[int]) -> float:
    v = read_back(s["dev"], s["v"], s["like"])
    return float(sum(v[p] for p in points))


STENCIL2D = Shape(
    "stencil2d", "5-point stencil, 1000x1000 doubles, collapse(2) (the demo's sweep)",
    c_globals=f"#define N2 {N2}\nstatic double u[N2][N2], v[N2][N2];",
    c_loop=r"""
static void sweep(void)
{
    int i, j;
#pragma omp parallel for collapse(2)
    for (i = 1; i < N2 - 1; i++)
        for (j = 1; j < N2 - 1; j++)
            v[i][j] = u[i][j] + 0.2 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1]
                                       + u[i][j + 1] - 4.0 * u[i][j]);
}
""",
    c_init=r"""    int i;
    for (i = 0; i < N2 * N2; i++)
        u[i / N2][i % N2] = BENCH_HASH(i) / 1000003.0;""",
    c_call="sweep()",
    c_check="v[1][1] + v[N2 / 2][N2 / 3] + v[N2 - 2][N2 - 2]",
    hand_setup=lambda dev: _grid_setup(dev, N2, 2),
    hand_check=lambda s: _grid_check(s, [N2 + 1, N2 // 2 * N2 + N2 // 3, (N2 - 2) * N2 + N2 - 2]),
    hands=(
        Hand("one item per point", _ST2_CL, "item", lambda s: [s["u"], s["v"]],
             lambda s, dev: ((N2 - 2, N2 - 2), None)),
        Hand("one item per row", _ST2_CL, "rows", lambda s: [s["u"], s["v"]],
             lambda s, dev: ((N2 - 2,), None)),
    ))

N3 = 160

_ST3_CL = CL_HEAD + f"#define N {N3}\n" + r"""
#define AT(a, i, j, k) a[((i) * N + (j)) * N + (k)]
#define BODY(i, j, k) AT(q, i, j, k) = 0.4 * AT(p, i, j, k) + 0.1 * (AT(p, i - 1, j, k) \
    + AT(p, i + 1, j, k) + AT(p, i, j - 1, k) + AT(p, i, j + 1, k) + AT(p, i, j, k - 1) \
    + AT(p, i, j, k + 1))
__kernel void item(__global const double *p, __global double *q)
{
  long k = get_global_id(0) + 1, j = get_global_id(1) + 1, i = get_global_id(2) + 1;
  BODY(i, j, k);
}

__kernel void rows(__global const double *p, __global double *q)
{
  long j = get_global_id(0) + 1, i = get_global_id(1) + 1;
  for (long k = 1; k < N - 1; k++)
    BODY(i, j, k);
}
"""

STENCIL3D = Shape(
    "stencil3d", "7-point stencil, 160^3 doubles, collapse(3)",
    c_globals=f"#define N3 {N3}\nstatic double p[N3][N3][N3], q[N3][N3][N3];",
    c_loop=r"""
static void sweep3(void)
{
    int i, j, k;
#pragma omp parallel for collapse(3)
    for (i = 1; i < N3 - 1; i++)
        for (j = 1; j < N3 - 1; j++)
            for (k = 1; k < N3 - 1; k++)
                q[i][j][k] = 0.4 * p[i][j][k] + 0.1 * (p[i - 1][j][k] + p[i + 1][j][k]
                             + p[i][j - 1][k] + p[i][j + 1][k] + p[i][j][k - 1] + p[i][j][k + 1]);
}
""",
    c_init=r"""    int i;
    for (i = 0; i < N3 * N3 * N3; i++)
        p[i / (N3 * N3)][i / N3 % N3][i % N3] = BENCH_HASH(i) / 1000003.0;""",
    c_call="sweep3()",
    c_check="q[1][1][1] + q[N3 / 2][N3 / 3][N3 / 4] + q[N3 - 2][N3 - 2][N3 - 2]",
    hand_setup=lambda dev: _grid_setup(dev, N3, 3),
    hand_check=lambda s: _grid_check(s, [(N3 + 1) * N3 + 1,
                                         (N3 // 2 * N3 + N3 // 3) * N3 + N3 // 4,
                                         ((N3 - 2) * N3 + N3 - 2) * N3 + N3 - 2]),
    hands=(
        Hand("one item per point", _ST3_CL, "item", lambda s: [s["u"], s["v"]],
             lambda s, dev: ((N3 - 2, N3 - 2, N3 - 2), None)),
        Hand("one item per k-row", _ST3_CL, "rows", lambda s: [s["u"], s["v"]],
             lambda s, dev: ((N3 - 2, N3 - 2), None)),
    ))


# -- dense linear algebra and memory shapes ----------------------------------------------------

MM = 256

_MM_CL = CL_HEAD + f"#define N {MM}\n" + r"""
__kernel void item(__global const double *a, __global const double *b, __global double *c)
{
  int j = get_global_id(0), i = get_global_id(1);
  double s = 0.0;
  for (int k = 0; k < N; k++)
    s += a[i * N + k] * b[k * N + j];
  c[i * N + j] = s;
}

__kernel void rows(__global const double *a, __global const double *b, __global double *c)
{
  int i = get_global_id(0);
  for (int j = 0; j < N; j++) {
    double s = 0.0;
    for (int k = 0; k < N; k++)
      s += a[i * N + k] * b[k * N + j];
    c[i * N + j] = s;
  }
}
"""


def _mm_setup(dev) -> dict:
    h = np_hash(MM * MM)
    a, b = h / 1000003.0, (h % 1000) / 1000.0
    return {"a": device_buffer(dev, a), "b": device_buffer(dev, b), "v": device_buffer(dev, np.zeros_like(a)), "like": a}


MATMUL = Shape(
    "matmul", "C = A * B, 256x256 doubles, collapse(2) with the inner k loop in the body",
    c_globals=f"#define MM {MM}\nstatic double A[MM][MM], B[MM][MM], C[MM][MM];",
    c_loop=r"""
static void matmul(void)
{
    int i, j;
#pragma omp parallel for collapse(2)
    for (i = 0; i < MM; i++)
        for (j = 0; j < MM; j++) {
            double s = 0.0;
            int k;
            for (k = 0; k < MM; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
}
""",
    c_init=r"""    int i;
    for (i = 0; i < MM * MM; i++) {
        A[i / MM][i % MM] = BENCH_HASH(i) / 1000003.0;
        B[i / MM][i % MM] = (BENCH_HASH(i) % 1000u) / 1000.0;
    }""",
    c_call="matmul()",
    c_check="C[0][0] + C[MM / 2][MM / 3] + C[MM - 1][MM - 1]",
    hand_setup=_mm_setup,
    hand_check=lambda s: _grid_check(s, [0, MM // 2 * MM + MM // 3, MM * MM - 1]),
    hands=(
        Hand("one item per element", _MM_CL, "item", lambda s: [s["a"], s["b"], s["v"]],
             lambda s, dev: ((MM, MM), None)),
        Hand("one item per row", _MM_CL, "rows", lambda s: [s["a"], s["b"], s["v"]],
             lambda s, dev: ((MM,), None)),
    ))

TN = 1024

_TR_CL = CL_HEAD + f"#define N {TN}\n" + r"""
__kernel void item(__global const double *a, __global double *b)
{
  long j = get_global_id(0), i = get_global_id(1);
  b[j * N + i] = a[i * N + j];
}

__kernel void rows(__global const double *a, __global double *b)
{
  long i = get_global_id(0);
  for (long j = 0; j < N; j++)
    b[j * N + i] = a[i * N + j];
}

/* the textbook transpose in tiles (T x T elements): work-item w transposes the w-th
 * contiguous range of tiles, so each cache line of b is filled while it is cached */
#define T 32
__kernel void tiles(__global const double *a, __global double *b)
{
  int w = get_global_id(0), nw = get_global_size(0), nt = (N / T) * (N / T);
  int c = nt / nw, x = nt % nw, t0 = w * c + min(w, x), t1 = t0 + c + (w < x);
  for (int t = t0; t < t1; t++) {
    int i0 = t / (N / T) * T, j0 = t % (N / T) * T;
    for (int i = i0; i < i0 + T; i++)
      for (int j = j0; j < j0 + T; j++)
        b[j * N + i] = a[i * N + j];
  }
}
"""

TRANSPOSE = Shape(
    "transpose", "B = A^T, 1024x1024 doubles, collapse(2)",
    c_globals=f"#define TN {TN}\nstatic double TA[TN][TN], TB[TN][TN];",
    c_loop=r"""
static void transpose(void)
{
    int i, j;
#pragma omp parallel for collapse(2)
    for (i = 0; i < TN; i++)
        for (j = 0; j < TN; j++)
            TB[j][i] = TA[i][j];
}
""",
    c_init=r"""    int i;
    for (i = 0; i < TN * TN; i++)
        TA[i / TN][i % TN] = BENCH_HASH(i) / 1000003.0;""",
    c_call="transpose()",
    c_check="TB[0][1] + TB[TN / 2][TN / 3] + TB[TN - 1][TN - 2]",
    hand_setup=lambda dev: _grid_setup(dev, TN, 2),
    hand_check=lambda s: _grid_check(s, [1, TN // 2 * TN + TN // 3, TN * TN - 2]),
    hands=(
        Hand("one item per element", _TR_CL, "item", lambda s: [s["u"], s["v"]],
             lambda s, dev: ((TN, TN), None)),
        Hand("one item per row", _TR_CL, "rows", lambda s: [s["u"], s["v"]],
             lambda s, dev: ((TN,), None)),
        Hand("tiles per work-item", _TR_CL, "tiles", lambda s: [s["u"], s["v"]],
             lambda s, dev: ((chunks(dev),), (1,))),
    ))

HN, BINS = 1 << 22, 256

_HIST_CL = CL_HEAD + f"#define BINS {BINS}\n" + r"""
__kernel void item(__global const int *v, __global int *hist, const long n)
{
  long i = get_global_id(0);
  if (i < n)
    atomic_inc(&hist[v[i] % BINS]);
}

__kernel void chunk(__global const int *v, __global int *hist, const long n)
{
  long w = get_global_id(0), nw = get_global_size(0), c = (n + nw - 1) / nw;
  long end = min(n, (w + 1) * c);
  for (long i = w * c; i < end; i++)
    atomic_inc(&hist[v[i] % BINS]);
}

__kernel void private_chunk(__global const int *v, __global int *hist, const long n)
{
  long w = get_global_id(0), nw = get_global_size(0), c = (n + nw - 1) / nw;
  long end = min(n, (w + 1) * c);
  int mine[BINS];
  for (int b = 0; b < BINS; b++)
    mine[b] = 0;
  for (long i = w * c; i < end; i++)
    mine[v[i] % BINS]++;
  for (int b = 0; b < BINS; b++)
    if (mine[b])
      atomic_add(&hist[b], mine[b]);
}
"""


def _hist_setup(dev) -> dict:
    v = np_hash(HN).astype(np.int32)
    hist = np.zeros(BINS, dtype=np.int32)
    return {"v": device_buffer(dev, v), "hist": device_buffer(dev, hist), "like": hist, "launches": 0}


def _hist_count(s: dict, dev) -> None:
    s["launches"] += 1


def _hist_check(s: dict) -> float:
    hist = read_back(s["dev"], s["hist"], s["like"]).astype(np.float64)
    return float((hist * np.arange(1, BINS + 1)).sum() / s["launches"])


HISTOGRAM = Shape(
    "histogram", "256-bin histogram of 4M ints, '#pragma omp atomic' increments",
    c_globals=f"#define BINS {BINS}\nstatic int hist[BINS];\n" + r"""
static double hist_check(int calls)  /* every call adds the same counts */
{
    int b;
    double s = 0.0;
    for (b = 0; b < BINS; b++)
        s += hist[b] * (b + 1.0);
    return s / calls;
}""",
    c_loop=r"""
static void histogram(int n, const int *v)
{
    int i, b;
#pragma omp parallel for private(b)
    for (i = 0; i < n; i++) {
        b = v[i] % BINS;
#pragma omp atomic
        hist[b]++;
    }
}
""",
    c_init=f"""    int i, n = {HN};
    int *v = malloc(n * sizeof *v);
    for (i = 0; i < n; i++)
        v[i] = (int)BENCH_HASH(i);""",
    c_call="histogram(n, v)",
    c_check="hist_check(calls + 1)",
    hand_setup=_hist_setup,
    hand_check=_hist_check,
    hands=(
        Hand("one item per element", _HIST_CL, "item",
             lambda s: [s["v"], s["hist"], np.int64(HN)], lambda s, dev: ((HN,), None),
             _hist_count),
        Hand("chunk per work-item", _HIST_CL, "chunk",
             lambda s: [s["v"], s["hist"], np.int64(HN)],
             lambda s, dev: ((chunks(dev),), (1,)), _hist_count),
        Hand("private counts per work-item", _HIST_CL, "private_chunk",
             lambda s: [s["v"], s["hist"], np.int64(HN)],
             lambda s, dev: ((chunks(dev),), (1,)), _hist_count),
    ))

MR, MC = 4096, 1024

_MV_CL = CL_HEAD + f"#define MC {MC}\n" + r"""
__kernel void rows(__global const double *m, __global const double *w, __global double *out)
{
  long i = get_global_id(0);
  double s = 0.0;
  for (int k = 0; k < MC; k++)
    s += m[i * MC + k] * w[k];
  out[i] = s;
}
"""


def _mv_setup(dev) -> dict:
    m = np_hash(MR * MC) / 1000003.0
    w = (np_hash(MC) % 1000) / 1000.0
    out = np.zeros(MR)
    return {"m": device_buffer(dev, m), "w": device_buffer(dev, w), "v": device_buffer(dev, out), "like": out}


MATVEC = Shape(
    "matvec", "y = M * w, 4096x1024 doubles: a parallel loop over rows with an inner "
              "sequential loop",
    c_globals=f"#define MR {MR}\n#define MC {MC}\nstatic double M[MR][MC], w[MC], y[MR];",
    c_loop=r"""
static void matvec(void)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < MR; i++) {
        double s = 0.0;
        int k;
        for (k = 0; k < MC; k++)
            s += M[i][k] * w[k];
        y[i] = s;
    }
}
""",
    c_init=r"""    int i;
    for (i = 0; i < MR * MC; i++)
        M[i / MC][i % MC] = BENCH_HASH(i) / 1000003.0;
    for (i = 0; i < MC; i++)
        w[i] = (BENCH_HASH(i) % 1000u) / 1000.0;""",
    c_call="matvec()",
    c_check="y[0] + y[MR / 2] + y[MR - 1]",
    hand_setup=_mv_setup,
    hand_check=lambda s: _grid_check(s, [0, MR // 2, MR - 1]),
    hands=(
        Hand("one item per row", _MV_CL, "rows", lambda s: [s["m"], s["w"], s["v"]],
             lambda s, dev: ((MR,), None)),
    ))

SHAPES: tuple[Shape, ...] = (
    MAP, STENCIL2D, STENCIL3D,
    *(reduction_shape(r, alternatives=r.name == "sum") for r in REDUCTIONS),
    MATMUL, TRANSPOSE, HISTOGRAM, MATVEC, NBODY)
