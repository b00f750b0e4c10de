"""The reduction shapes of ``ompcl bench kernels`` (part of ``kernel_shapes``): per OpenMP
reduction operator and type, the C loop and the hand-written OpenCL kernels doing the same
reduction (a chunk per work-item, a work-group tree, a grid stride, a second kernel combining
on the device).

Consumes the records of ``kernel_records``; produces ``REDUCTIONS`` and ``reduction_shape``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .kernel_records import CL_HEAD, Hand, Shape, chunks, device_buffer, np_hash


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
    return {"x": device_buffer(dev, x), "z": device_buffer(dev, z), "v": device_buffer(dev, v),
            "part": device_buffer(dev, part), "w": device_buffer(dev, np.zeros(RED_N)), "like": part,
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
        k.set_args(s["part"], np.int32(chunks(dev)))
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
                  lambda s, dev: ((chunks(dev),), (1,)),
                  _red_finish(r, lambda s, dev: chunks(dev), initial)),
             Hand(f"chunk, {LANES} accumulators", src, "chunk_lanes", args,
                  lambda s, dev: ((chunks(dev),), (1,)),
                  _red_finish(r, lambda s, dev: chunks(dev), initial))]
    if alternatives:
        hands += [
            Hand("chunks, tree of 8", src, "chunk_tree", args,
                 lambda s, dev: ((8 * chunks(dev),), (8,)),
                 _red_finish(r, lambda s, dev: chunks(dev), initial)),
            Hand("chunks, device combine", src, "chunk", args,
                 lambda s, dev: ((chunks(dev),), (1,)), _device_finish(r, initial)),
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
