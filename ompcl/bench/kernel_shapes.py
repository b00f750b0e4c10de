"""The loop shapes of ``ompcl bench kernels``: per shape an OpenMP C loop (with its data,
initialised by integer formulas that numpy reproduces exactly) and plain hand-written OpenCL
kernels doing the same work with the same data, launched through pyopencl.

Consumed by ``ompcl.bench.kernels``; produces nothing by itself. The hand-written kernels are
what an OpenCL programmer writes for these loops: one work-item per iteration (the ND-range
form every OpenCL guide starts from) and, for a CPU device, a contiguous chunk per
work-item (the transpose in tiles, as textbooks write it); the benchmark compares ompcl with
the fastest of them. Reductions also carry the
other two-stage forms measured against them (a work-group tree in local memory, a grid
stride, a second kernel combining on the device).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

CL_HEAD = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#pragma OPENCL FP_CONTRACT OFF\n"
#: the data: a multiplicative hash of the index (32-bit wrap-around), ``BENCH_HASH(k)`` in C


def np_hash(n: int) -> np.ndarray:
    """``BENCH_HASH(k)`` of the C programs for k = 0 .. n-1."""
    return (np.arange(n, dtype=np.uint32) * np.uint32(2654435761)) % np.uint32(1000003)


@dataclass(frozen=True)
class Hand:
    """A hand-written kernel: source, kernel name, its arguments and launch geometry from the
    shape's device state, and (reductions) what follows the launch on the host."""

    name: str
    source: str
    kernel: str
    args: Callable[[dict], list]
    geometry: Callable[[dict, object], tuple]
    finish: Callable[[dict, object], None] | None = None


@dataclass(frozen=True)
class Shape:
    name: str
    what: str
    c_globals: str
    c_loop: str
    c_init: str
    c_call: str
    c_check: str
    hand_setup: Callable[[object], dict]
    hand_check: Callable[[dict], float]
    hands: tuple[Hand, ...]
    rtol: float = 1e-12


def _buf(dev, array: np.ndarray):
    mf = dev.cl.mem_flags
    return dev.cl.Buffer(dev.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=array)


def _read(dev, buf, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    dev.cl.enqueue_copy(dev.queue, out, buf)
    return out


def _chunks(dev) -> int:
    """Work-items of a chunked hand-written kernel: 32 per compute unit, as many as the
    runtime launches (with 8, PoCL ran some kernels here at one core's speed)."""
    return 32 * dev.units


def _up(x: int, m: int) -> int:
    return (x + m - 1) // m * m


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
    return {"x": _buf(dev, x), "z": _buf(dev, z), "y": _buf(dev, np.zeros(MAP_N)),
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
    hand_check=lambda s: float(sum(_read(s["dev"], s["y"], s["like"])[[12345, MAP_N // 2,
                                                                        MAP_N - 1]])),
    hands=(
        Hand("one item per element", _MAP_CL, "item",
             lambda s: [s["x"], s["z"], s["y"], np.float64(1.5), np.int64(MAP_N)],
             lambda s, dev: ((MAP_N,), None)),
        Hand("chunk per work-item", _MAP_CL, "chunk",
             lambda s: [s["x"], s["z"], s["y"], np.float64(1.5), np.int64(MAP_N)],
             lambda s, dev: ((_chunks(dev),), (1,))),
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
    return {"u": _buf(dev, u), "v": _buf(dev, np.zeros_like(u)), "like": u}


def _grid_check(s: dict, points: list[int]) -> float:
    v = _read(s["dev"], s["v"], s["like"])
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


# -- reductions -----------------------------------------------------------------------------

RED_N = 1 << 22
#: accumulators per work-item of the hand-written reduction with independent chains
LANES = 8


@dataclass(frozen=True)
class Reduction:
    """One reduction loop: OpenMP operator, C/OpenCL type, the update of the accumulator
    ``acc`` by element ``i`` (the same text in C and OpenCL), identity, combine of two
    partials (OpenCL text over ``a`` and ``b``; the host's in numpy)."""

    name: str
    what: str
    op: str
    ctype: str
    cltype: str
    update: str
    identity: str
    combine: str
    np_combine: Callable[[np.ndarray, object], object]
    init: str = "0"


def _red_cl(r: Reduction) -> str:
    """Chunk per work-item (one partial each); chunks with a work-group tree; the grid stride
    with a tree (ompcl's earlier form); one item per element with a tree; and a second
    kernel combining partials on the device."""
    T = r.cltype
    chunk = rf"""
  long w = get_global_id(0), nw = get_global_size(0), c = (n + nw - 1) / nw;
  long end = min(n, (w + 1) * c);
  {T} acc = {r.identity};
  for (long i = w * c; i < end; i++)
    {r.update};"""
    tree = rf"""
  int lid = get_local_id(0);
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {{
    if (lid < s) {{ {T} a = scratch[lid], b = scratch[lid + s]; scratch[lid] = {r.combine}; }}
    barrier(CLK_LOCAL_MEM_FENCE);
  }}
  if (lid == 0) part[get_group_id(0)] = scratch[0];"""
    params = f"__global const double *x, __global const double *z, __global const int *v, " \
             f"const long n, __global {T} *part, __global double *w_"
    lanes = "".join(f"\n    {{ const long i = i0 + {k}; {T} acc = a{k}; {r.update}; a{k} = acc; }}"
                    for k in range(LANES))
    combined = "".join(
        "\n  { %s a = acc, b = a%d; acc = %s; }" % (T, k, r.combine) for k in range(LANES))
    return CL_HEAD + rf"""
__kernel void chunk({params})
{{{chunk}
  part[w] = acc;
}}

__kernel void chunk_lanes({params})
{{
  long w = get_global_id(0), nw = get_global_size(0), c = (n + nw - 1) / nw;
  long end = min(n, (w + 1) * c), i0 = w * c;
  {T} acc = {r.identity}, {", ".join(f"a{k} = {r.identity}" for k in range(LANES))};
  for (; i0 + {LANES} <= end; i0 += {LANES}) {{{lanes}
  }}
  for (long i = i0; i < end; i++)
    {r.update};
{combined}
  part[w] = acc;
}}

__kernel void chunk_tree({params})
{{
  __local {T} scratch[256];{chunk}{tree}
}}

__kernel void stride_tree({params})
{{
  __local {T} scratch[256];
  {T} acc = {r.identity};
  for (long i = get_global_id(0); i < n; i += get_global_size(0))
    {r.update};{tree}
}}

__kernel void item_tree({params})
{{
  __local {T} scratch[256];
  {T} acc = {r.identity};
  long i = get_global_id(0);
  if (i < n)
    {r.update};{tree}
}}

__kernel void combine(__global {T} *part, const int count)
{{
  {T} acc = part[0];
  for (int k = 1; k < count; k++) {{ {T} a = acc, b = part[k]; acc = {r.combine}; }}
  part[0] = acc;
}}
"""


def _red_setup(dev, r: Reduction) -> dict:
    h = np_hash(RED_N)
    x, z = h / 1000003.0, (h % 1000) / 1000.0
    v = (h.astype(np.int64) - 500000).astype(np.int32)
    dtype = {"double": np.float64, "int": np.int32, "uint": np.uint32}[r.cltype]
    part = np.zeros(RED_N // 64, dtype=dtype)
    return {"x": _buf(dev, x), "z": _buf(dev, z), "v": _buf(dev, v),
            "part": _buf(dev, part), "w": _buf(dev, np.zeros(RED_N)), "like": part,
            "result": None}


def _red_finish(r: Reduction, count: Callable[[dict, object], int], initial):
    """Read back ``count`` partials and combine them on the host (with the initial value)."""
    def finish(s: dict, dev) -> None:
        n = count(s, dev)
        part = np.empty(n, dtype=s["like"].dtype)
        dev.cl.enqueue_copy(dev.queue, part, s["part"])
        s["result"] = r.np_combine(part, initial)
    return finish


def _device_finish(r: Reduction, initial):
    """A second kernel combines the partials on the device; one value comes back."""
    def finish(s: dict, dev) -> None:
        if "combine" not in s:
            prg = dev.cl.Program(dev.ctx, _red_cl(r)).build()
            s["combine"] = dev.cl.Kernel(prg, "combine")
        k = s["combine"]
        k.set_args(s["part"], np.int32(_chunks(dev)))
        dev.cl.enqueue_nd_range_kernel(dev.queue, k, (1,), (1,)).wait()
        one = np.empty(1, dtype=s["like"].dtype)
        dev.cl.enqueue_copy(dev.queue, one, s["part"])
        s["result"] = r.np_combine(one, initial)
    return finish


def _red_hands(r: Reduction, initial, alternatives: bool) -> tuple[Hand, ...]:
    src = _red_cl(r)

    def args(s):
        return [s["x"], s["z"], s["v"], np.int64(RED_N), s["part"], s["w"]]
    hands = [Hand("chunk per work-item", src, "chunk", args,
                  lambda s, dev: ((_chunks(dev),), (1,)),
                  _red_finish(r, lambda s, dev: _chunks(dev), initial)),
             Hand(f"chunk, {LANES} accumulators", src, "chunk_lanes", args,
                  lambda s, dev: ((_chunks(dev),), (1,)),
                  _red_finish(r, lambda s, dev: _chunks(dev), initial))]
    if alternatives:
        hands += [
            Hand("chunks, tree of 8", src, "chunk_tree", args,
                 lambda s, dev: ((8 * _chunks(dev),), (8,)),
                 _red_finish(r, lambda s, dev: _chunks(dev), initial)),
            Hand("chunks, device combine", src, "chunk", args,
                 lambda s, dev: ((_chunks(dev),), (1,)), _device_finish(r, initial)),
            Hand("grid stride, tree of 128", src, "stride_tree", args,
                 lambda s, dev: ((16 * 128,), (128,)),
                 _red_finish(r, lambda s, dev: 16, initial)),
            Hand("one item each, tree 256", src, "item_tree", args,
                 lambda s, dev: ((RED_N,), (256,)),
                 _red_finish(r, lambda s, dev: RED_N // 256, initial)),
        ]
    return tuple(hands)


def _seq(fn):
    """Sequential host combine of partials, like the generated host code's loop."""
    def combine(part: np.ndarray, initial):
        acc = initial
        for p in part.tolist():
            acc = fn(acc, p)
        return acc
    return combine


def reduction_shape(r: Reduction, alternatives: bool = False) -> Shape:
    ctype = r.ctype
    loop = rf"""
static {ctype} reduce(int n, const double *x, const double *z, const int *v, double *w_)
{{
    int i;
    {ctype} acc = {r.init};
#pragma omp parallel for reduction({r.op}:acc)
    for (i = 0; i < n; i++)
        {r.update};
    return acc;
}}
"""
    init = rf"""    int i, n = {RED_N};
    double *x = malloc(n * sizeof *x), *z = malloc(n * sizeof *z);
    int *v = malloc(n * sizeof *v);
    double *w_ = calloc(n, sizeof *w_);
    for (i = 0; i < n; i++) {{
        x[i] = BENCH_HASH(i) / 1000003.0;
        z[i] = (BENCH_HASH(i) % 1000u) / 1000.0;
        v[i] = (int)BENCH_HASH(i) - 500000;
    }}"""
    initial = float(r.init) if r.cltype == "double" else int(r.init)
    return Shape(
        r.name, r.what, c_globals=f"static {ctype} result;", c_loop=loop, c_init=init,
        c_call="result = reduce(n, x, z, v, w_)", c_check="result",
        hand_setup=lambda dev: _red_setup(dev, r),
        hand_check=lambda s: float(s["result"]),
        hands=_red_hands(r, initial, alternatives), rtol=1e-9)


def _mask32(x: int) -> int:
    return x & 0xFFFFFFFF


REDUCTIONS = (
    Reduction("sum", "dot product, reduction(+) over 4M doubles", "+", "double", "double",
              "acc += x[i] * z[i]", "0.0", "a + b", _seq(lambda a, b: a + b), "0.0"),
    Reduction("axpydot", "w[i] = z[i] + 1.5 * x[i]; then the dot product w . x, one loop over "
              "4M doubles (a map feeding a reduction(+))", "+", "double", "double",
              "acc += (w_[i] = z[i] + 1.5 * x[i]) * x[i]", "0.0", "a + b",
              _seq(lambda a, b: a + b), "0.0"),
    Reduction("product", "reduction(*) over 4M doubles", "*", "double", "double",
              "acc *= 1.0 + 1e-7 * x[i]", "1.0", "a * b", _seq(lambda a, b: a * b), "1.0"),
    Reduction("max", "reduction(max) of x*z over 4M doubles", "max", "double", "double",
              "acc = x[i] * z[i] > acc ? x[i] * z[i] : acc", "-INFINITY", "a > b ? a : b",
              _seq(max), "-1.0"),
    Reduction("min", "reduction(min) over 4M ints", "min", "int", "int",
              "acc = v[i] < acc ? v[i] : acc", "INT_MAX", "a < b ? a : b", _seq(min),
              "1000000"),
    Reduction("xor", "reduction(^) of hashed ints over 4M", "^", "unsigned", "uint",
              "acc ^= (unsigned)v[i] * 2654435761u", "0", "a ^ b",
              _seq(lambda a, b: _mask32(a ^ b)), "0"),
    Reduction("and", "reduction(&&) of a test over 4M doubles", "&&", "int", "int",
              "acc = acc && x[i] < 2.0", "1", "a && b", _seq(lambda a, b: int(bool(a and b))),
              "1"),
)


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
    return {"a": _buf(dev, a), "b": _buf(dev, b), "v": _buf(dev, np.zeros_like(a)), "like": a}


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
             lambda s, dev: ((_chunks(dev),), (1,))),
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
    return {"v": _buf(dev, v), "hist": _buf(dev, hist), "like": hist, "launches": 0}


def _hist_count(s: dict, dev) -> None:
    s["launches"] += 1


def _hist_check(s: dict) -> float:
    hist = _read(s["dev"], s["hist"], s["like"]).astype(np.float64)
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
             lambda s, dev: ((_chunks(dev),), (1,)), _hist_count),
        Hand("private counts per work-item", _HIST_CL, "private_chunk",
             lambda s: [s["v"], s["hist"], np.int64(HN)],
             lambda s, dev: ((_chunks(dev),), (1,)), _hist_count),
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
    return {"m": _buf(dev, m), "w": _buf(dev, w), "v": _buf(dev, out), "like": out}


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
    MATMUL, TRANSPOSE, HISTOGRAM, MATVEC)
