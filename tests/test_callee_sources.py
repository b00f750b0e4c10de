"""Callees defined in other files (``frontend.library``), built file by file as make does
(``ompcl cc -c`` each, then the link): ompcl reads a called function's definition from
another source of the program only where it must be the one the program links. A ``static``
function of another file is never this file's (its ``1000 * x`` was taken for the linked
``x + 1``); several files defining the function (an alternative implementation that is not
built) or a definition in preprocessor conditionals (that file may be compiled with other
macros, ``-DUSE_FAST``) keep the loop on the host (they printed another file's answer).
Run against the same files built by gcc."""
from __future__ import annotations

import json
import subprocess

import pytest

from ompcl.pipeline import translate

from conftest import run
from test_cc import ompcl_cc

MAIN = r"""
#include <stdio.h>
int g(int x);
static int out[4096];
int main(void) {
  long s = 0;
#pragma omp parallel for
  for (int i = 0; i < 4096; i++) out[i] = g(i);
  for (int i = 0; i < 4096; i++) s = s * 31 + out[i];
  printf("%d %d %ld\n", out[1], out[7], s);
  return 0;
}
"""
LINKED = "int g(int x) { return x + 1; }\n"
WHY = ("defined in several files: g_alt.c, g_ref.c",
       "defined in g.c under preprocessor conditionals")
PROJECTS = {
    # file -> text, and the files the link takes (with per-file flags)
    "static_elsewhere": ({"other.c": "static int g(int x) { return 1000 * x; }\n"
                          "int use_other(int x) { return g(x); }\n", "real_g.c": LINKED},
                         [("main.c", ""), ("other.c", ""), ("real_g.c", "")], True),
    "alternative_not_built": ({"g_ref.c": LINKED, "g_alt.c": "int g(int x) { return 2 * x; }\n"},
                              [("main.c", ""), ("g_ref.c", "")], False),
    "per_file_macros": ({"g.c": "#ifdef USE_FAST\nint g(int x) { return x + 1; }\n#else\n"
                         "int g(int x) { return 100 * x; }\n#endif\n"},
                        [("main.c", ""), ("g.c", "-DUSE_FAST")], False),
}


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_callees_of_other_files_are_the_linked_ones(name, tmp_path):
    files, build, offloaded = PROJECTS[name]
    (tmp_path / "main.c").write_text(MAIN)
    for f, text in files.items():
        (tmp_path / f).write_text(text)
    (line,) = [ln for ln in translate(str(tmp_path / "main.c")).remarks if ln.loc.line == 7]
    assert offloaded or any(why in line.message for why in WHY), line.message
    objs_g, objs_o = [], []
    for f, flag in build:
        flags = [flag] if flag else []
        g, o = f"g_{f}.o", f"o_{f}.o"
        subprocess.run(["gcc", "-O2", "-fopenmp", *flags, "-c", f, "-o", g], cwd=tmp_path,
                       check=True)
        res = ompcl_cc(tmp_path, "-O2", "-fopenmp", *flags, "-c", f, "-o", o)
        assert res.returncode == 0, res.stderr
        objs_g.append(g)
        objs_o.append(o)
    subprocess.run(["gcc", "-fopenmp", *objs_g, "-o", "ref"], cwd=tmp_path, check=True)
    res = ompcl_cc(tmp_path, "-fopenmp", *objs_o, "-o", "exe")
    assert res.returncode == 0, res.stderr
    want = run(tmp_path / "ref").stdout
    assert want.startswith("2 8 ")
    for mode in ("opencl", "openmp", "auto"):
        assert run(tmp_path / "exe", OMPCL_DEVICE=mode).stdout == want, mode
    stats = tmp_path / "s.json"
    run(tmp_path / "exe", OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    if not stats.exists():  # no loop reached the runtime: none was offloaded
        assert not offloaded
        return
    st = json.loads(stats.read_text())
    ran = sum(r["device_runs"] for r in st["regions"]) > 0
    assert ran == offloaded or not st["device"]["available"], st["regions"]


def test_conditionals_of_a_file_of_the_same_command(tmp_path):
    """A definition in conditionals of another source of the same command (built with the
    same flags, PRK's wtime.c under ``#if defined(_OPENMP)``) is the linked one."""
    (tmp_path / "main.c").write_text(MAIN)
    (tmp_path / "g.c").write_text(PROJECTS["per_file_macros"][0]["g.c"])
    args = ["-O2", "-fopenmp", "-DUSE_FAST", "main.c", "g.c"]
    subprocess.run(["gcc", *args, "-o", "ref"], cwd=tmp_path, check=True)
    res = ompcl_cc(tmp_path, *args, "-o", "exe")
    assert res.returncode == 0, res.stderr
    want = run(tmp_path / "ref").stdout
    assert run(tmp_path / "exe", OMPCL_DEVICE="opencl").stdout == want
    stats = tmp_path / "s.json"
    run(tmp_path / "exe", OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    st = json.loads(stats.read_text())
    assert not st["device"]["available"] or st["regions"][0]["device_runs"] == 1
