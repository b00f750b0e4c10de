"""`ompcl info`: devices, the runtime's choice among them, model, cache and server."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from ompcl import info
from ompcl.cli import main


def _dev(name: str, kind: str) -> info.Device:
    bits = {"gpu": 4, "cpu": 2, "accelerator": 8}[kind]
    return info.Device(name, kind, 4, 2**30, True, kind == "cpu", "OpenCL 1.2", bits)


PLATFORMS = [info.Platform("Portable Computing Language", "The pocl project", "3.0",
                           [_dev("pthread-cpu", "cpu")]),
             info.Platform("NVIDIA CUDA", "NVIDIA Corporation", "3.0",
                           [_dev("A100", "gpu"), _dev("H100", "gpu")]),
             info.Platform("Intel FPGA", "Intel", "1.2", [_dev("fpga", "accelerator")])]


@pytest.mark.parametrize("env, chosen", [
    ({}, [1, 0]),                                           # a GPU first, on any platform
    ({"OMPCL_DEVICE_TYPE": "cpu"}, [0, 0]),
    ({"OMPCL_DEVICE_TYPE": "accelerator"}, [2, 0]),
    ({"OMPCL_DEVICE_TYPE": "all"}, [0, 0]),                 # the first platform's first device
    ({"OMPCL_DEVICE_TYPE": "bogus"}, [0, 0]),               # the runtime warns, uses all
    ({"OMPCL_PLATFORM": "pocl"}, [0, 0]),                   # vendor matches, no GPU there
    ({"OMPCL_PLATFORM": "nvidia", "OMPCL_DEVICE_TYPE": "cpu"}, None),
])
def test_choice_follows_the_runtime_rule(env, chosen):
    got, rule = info.choose(PLATFORMS, env)
    assert (list(got) if got else None) == chosen
    assert ("runtime's rule" in rule) == (chosen is not None)


def test_info_text_and_json():
    r = CliRunner().invoke(main, ["info"])
    assert r.exit_code == 0, r.output
    for key in ("model:", "trained on:", "cache directory:", "compile server:"):
        assert key in r.output
    j = CliRunner().invoke(main, ["info", "--json"])
    data = json.loads(j.output)
    assert data["model"]["path"].endswith(("default.json", os.environ.get("OMPCL_MODEL", "-")))
    assert data["server"]["state"] == "off"  # the tests run with OMPCL_SERVER=0
    if data["platforms"]:
        i, k = data["chosen"]
        assert data["platforms"][i]["devices"][k]["compute_units"] > 0
        assert "<- chosen" in r.output


def test_info_without_any_platform():
    env = dict(os.environ, OCL_ICD_VENDORS="/nonexistent", OCL_ICD_FILENAMES="")
    r = subprocess.run([sys.executable, "-m", "ompcl.cli", "info"], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("OpenCL: no OpenCL")
    assert "run every loop with OpenMP" in r.stdout


def test_info_names_the_model_of_ompcl_model(tmp_path):
    model = tmp_path / "m.json"
    model.write_text(json.dumps({"metadata": {"platform": {"opencl_platform": "Elsewhere"}}}))
    r = CliRunner().invoke(main, ["info"], env={"OMPCL_MODEL": str(model),
                                                "OMPCL_DEVICE": "openmp"})
    assert f"model: {model}, OMPCL_MODEL" in r.output
    assert "trained on: Elsewhere" in r.output
    assert "OMPCL_DEVICE=openmp: OpenCL is never used" in r.output
