"""The limits of ``ompcl bench kernels`` (issue 39): the triad bandwidth and the peak FLOP
rate measured on the device, and each shape's share of the limit that bounds it."""
from __future__ import annotations

import math

import pytest

from ompcl.bench import roofline
from ompcl.bench.kernel_shapes import SHAPES


def test_every_shape_has_its_traffic():
    assert {s.name for s in SHAPES} <= set(roofline.TRAFFIC)


def test_share_of_the_bounding_limit():
    limits = roofline.Limits(bandwidth=50.0, flops=100.0)  # balance 2 FLOP/byte
    assert limits.balance == 2.0
    nbytes, flops = roofline.TRAFFIC["map"]  # 0.125 FLOP/byte: memory-bound
    gbs, gflops, share = roofline.roof("map", nbytes / 25e9, limits)
    assert math.isclose(gbs, 25.0) and math.isclose(share, 0.5)
    assert math.isclose(gflops, flops / (nbytes / 25e9) / 1e9)
    nbytes, flops = roofline.TRAFFIC["matmul"]  # 2n/24 FLOP/byte: compute-bound
    _, gflops, share = roofline.roof("matmul", flops / 80e9, limits)
    assert math.isclose(gflops, 80.0) and math.isclose(share, 0.8)
    assert roofline.roof("no-such-shape", 1.0, limits) is None
    assert roofline.roof("map", 0.0, limits) is None


def test_limits_measured_on_the_device(opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    pytest.importorskip("pyopencl")
    from ompcl.bench.kernels import Device
    limits = roofline.measure(Device(), calls=2)
    assert 0.1 < limits.bandwidth < 10_000 and 0.1 < limits.flops < 1_000_000, limits
