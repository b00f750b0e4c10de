"""`ompcl build` takes a gcc command line: -l/-L/-I/-D/-O2/-Wl,..., objects, a.out by default."""
from __future__ import annotations

import json
import os
import shutil

from click.testing import CliRunner

from conftest import ROOT
from ompcl.cli import main
from test_cc import fake_compiler

HEAT = ROOT / "ompcl" / "examples" / "heat2d.c"


def _build(tmp_path, *args):
    exe, log = fake_compiler(tmp_path)
    shutil.copy(HEAT, tmp_path / "heat2d.c")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = CliRunner().invoke(main, ["build", "heat2d.c", "--cc", str(exe), *args],
                                 env={"FAKECC_LOG": str(log)})
    finally:
        os.chdir(cwd)
    # one command: the translation, the runtime's source and the link
    return res, [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def test_gcc_options_reach_the_compiler_in_place(tmp_path):
    res, calls = _build(tmp_path, "-lm", "-O3", "-fopenmp", "-march=native", "-g",
                        "-Wl,-rpath,/opt/x", "-L", "/opt/lib", "-DN=10", "-I", "inc",
                        "-x", "none", "extra.o", "-lfoo")
    assert res.exit_code == 0, res.output
    (cmd,) = calls
    host = next(i for i, a in enumerate(cmd) if a.endswith("heat2d_host.c"))
    before, after = cmd[:host], cmd[host:]
    for flag in ("-O3", "-fopenmp", "-march=native", "-g", "-DN=10", "-Iinc"):
        assert flag in before, cmd
    assert before[before.index("-x") + 1] == "none"  # a value option keeps its value
    link = [a for a in after if a in ("-Wl,-rpath,/opt/x", "extra.o", "-L", "/opt/lib", "-lm",
                                      "-lfoo")]
    assert link[:6] == ["-lm", "-Wl,-rpath,/opt/x", "-L", "/opt/lib", "extra.o", "-lfoo"]
    assert cmd[cmd.index("-o") + 1] == "a.out"
    assert (tmp_path / "a.out").exists()


def test_attached_and_long_forms(tmp_path):
    res, calls = _build(tmp_path, "-oprog", "-lm", "--cflags=-O1", "-Iinc")
    assert res.exit_code == 0, res.output
    (cmd,) = calls
    assert cmd[cmd.index("-o") + 1] == "prog" and "-O1" in cmd and "-Iinc" in cmd


def test_an_option_neither_knows_is_the_compilers_to_reject(tmp_path):
    res, calls = _build(tmp_path, "--coverage", "--no-such-option")
    assert res.exit_code == 0, res.output
    assert "--coverage" in calls[0] and "--no-such-option" in calls[0]  # gcc says what it is
    res = CliRunner().invoke(main, ["build", "--model"])
    assert res.exit_code == 2 and "requires an argument" in res.output
