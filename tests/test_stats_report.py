"""`ompcl stats`: the runtime's statistics JSON as a per-region summary, slowest first."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from click.testing import CliRunner

from conftest import ROOT, ompcl_build
from ompcl import statsreport
from ompcl.cli import main

RECORDS = ROOT / "tests" / "stats"


def test_regions_sorted_by_time_with_their_decisions():
    r = CliRunner().invoke(main, ["stats", str(RECORDS / "mixed.json")])
    assert r.exit_code == 0, r.output
    regions = re.findall(r"(\S+\.c:\d+) ", r.output)
    assert regions[0] == "cg.c:7"  # the team of one ran longest
    assert regions[1:] == ["heat2d.c:46", "heat2d.c:52", "heat2d.c:29", "heat2d.c:60"]
    assert "host because no loop of its own is a kernel" in r.output
    assert "decisions: device 150x, host 50x" in r.output
    assert "device (data resident), host (data to move) for 996004 work-items (measured)" \
        in r.output
    assert "3.0 MiB" in r.output and "2.0 KiB" in r.output


def test_a_runtime_record_reads_back():
    data = statsreport.load(str(RECORDS / "heat2d_auto.json"))
    rows = statsreport.rows(data)
    assert [x["seconds"] for x in rows] == sorted((x["seconds"] for x in rows), reverse=True)
    assert rows[0]["why"] == "decisions: host 200x; host for 996004 work-items (model)"
    out = CliRunner().invoke(main, ["stats", "--top", "1", str(RECORDS / "heat2d_auto.json")])
    assert sum(".c:" in line for line in out.output.splitlines()) == 1


def test_not_a_statistics_file(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"a": 1}))
    r = CliRunner().invoke(main, ["stats", str(bad)])
    assert r.exit_code == 1
    assert "not an ompcl statistics file" in r.output
    assert CliRunner().invoke(main, ["stats", "a.json", "b.json"]).exit_code == 2


def test_run_prints_the_summary_of_a_built_program(tmp_path):
    exe = tmp_path / "heat"
    res = ompcl_build([ROOT / "ompcl" / "examples" / "heat2d.c"], exe)
    assert res.returncode == 0, res.stderr
    r = subprocess.run([sys.executable, "-m", "ompcl.cli", "stats", "--run", str(exe)],
                       capture_output=True, text=True, env={**os.environ, "OMPCL_DEVICE": "openmp"})
    assert r.returncode == 0, r.stderr
    assert "heat content" in r.stdout  # the program's own output is left alone
    assert "mode openmp" in r.stderr and "heat2d.c:46 ompcl_k1" in r.stderr


def test_summary_at_exit_from_the_runtime(tmp_path, opencl_available):
    """OMPCL_STATS=summary: the runtime itself prints the readable summary on stderr at exit,
    the slowest region first, with the bytes moved over the data the device held."""
    exe = tmp_path / "heat"
    res = ompcl_build([ROOT / "ompcl" / "examples" / "heat2d.c"], exe)
    assert res.returncode == 0, res.stderr
    env = {**os.environ, "OMPCL_STATS": "summary", "OMPCL_DEVICE": "opencl",
           "OMPCL_ZERO_COPY": "0"}
    r = subprocess.run([str(exe)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "heat content" in r.stdout
    lines = [x for x in r.stderr.splitlines() if x.startswith("ompcl: ")]
    assert "statistics (mode opencl" in lines[0]
    rows = [x.split() for x in lines[3:]]
    seconds = [float(x[1]) for x in rows]
    assert seconds == sorted(seconds, reverse=True) and len(rows) >= 2
    assert all(re.search(r"heat2d\.c:[0-9]+$", x[-2]) for x in rows)
    if opencl_available:
        assert re.search(r"data on the device .*: moved [0-9.]+x to it, [0-9.]+x back",
                         lines[1])
