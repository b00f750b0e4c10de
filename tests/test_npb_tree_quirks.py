"""A downloaded NPB tree's quirks: ``sys/print_header`` without its execute bit, and sources
that call the OpenMP runtime unguarded (the seq build is then made with -fopenmp, one thread)."""
from __future__ import annotations

import shutil
import subprocess

from conftest import ROOT
from ompcl.bench import nas, trees
from ompcl.bench.runs import VARIANTS, run_env

TREE = ROOT / "tests" / "npb_tree"
HEADER = "#!/bin/sh\necho '   NAS Parallel Benchmarks (header script)'\n"


def _quirky_tree(tmp_path):
    root = tmp_path / "NPB3.3-OMP-C"
    shutil.copytree(TREE, root)
    (root / "sys" / "print_header").write_text(HEADER)
    (root / "sys" / "print_header").chmod(0o644)  # as some downloads have it
    mk = root / "Makefile"
    mk.write_text(mk.read_text().replace('header:\n', 'header:\n\t@ sys/print_header\n'))
    ep = root / "EP" / "ep.c"  # NPB 3.3 calls it without #ifdef _OPENMP
    ep.write_text(ep.read_text().replace("#ifdef _OPENMP\n#include <omp.h>\n#endif\n",
                                         "#include <omp.h>\n")
                  .replace("#ifdef _OPENMP\n  nthreads = omp_get_max_threads();\n#endif\n",
                           "  nthreads = omp_get_max_threads();\n"))
    return root


def test_seq_of_a_tree_calling_openmp_builds_with_one_thread(tmp_path):
    root = _quirky_tree(tmp_path)
    tree = trees.open_tree(str(root))
    b = tree.build("ep", "S", "seq", "gcc", tmp_path / "out")
    assert b.ok, b.log
    assert b.openmp_one_thread and "run with OMP_NUM_THREADS=1" in b.log
    assert "header script" in b.log  # the copy's print_header ran
    assert nas._build_note(b) == "gcc -fopenmp, 1 thread (sources call OpenMP)"
    assert run_env(VARIANTS["seq"], 2, {}, {})["OMP_NUM_THREADS"] == "1"
    out = subprocess.run([str(b.exe)], capture_output=True, text=True, timeout=120,
                         env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0 and "SUCCESSFUL" in out.stdout
    assert not (root / "sys" / "print_header").stat().st_mode & 0o111  # the user's tree as it was
    omp = tree.build("ep", "S", "omp", "gcc", tmp_path / "out")
    assert omp.ok and not omp.openmp_one_thread
