"""Threadprivate data read in parallel loops (``#pragma omp threadprivate``,
``_Thread_local``, GNU ``__thread``; read in the body or in a called function): each thread
reads its own copy, which may hold another value than the team thread's, the one a kernel
would read for every iteration. Such loops stay on the host (``thread-dependent``); they
were offloaded and printed the team thread's value for every element. Data the region
copies in (``copyin``) and never assigns is the same in every thread: those loops run on
the device. Run on every path against gcc's build (the programs' output depends on the
thread count, like the original's).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_both, device_runs, every_path, report_lines

HERE = Path(__file__).parent / "thread_locals"


@pytest.mark.parametrize("name", ["threadprivate_reads.c", "thread_local_reads.c"])
def test_loops_reading_threadprivate_data_stay_on_the_host(name, tmp_path):
    text = (HERE / name).read_text()
    lines = report_lines(tmp_path, text, name)
    reads = [ln for ln in lines if "reads threadprivate" in ln]
    assert reads and all(" host " in ln and "[thread-dependent]" in ln for ln in reads), lines
    ref, exe = build_both(tmp_path, text, name)
    every_path(ref, exe, rtol=0)


def test_data_copied_in_and_never_assigned_is_read_on_the_device(tmp_path):
    name = "threadprivate_reads.c"
    text = (HERE / name).read_text()
    lines = report_lines(tmp_path, text, name)
    assert " offloaded " in lines[2] and "copyin" in text, lines
    ref, exe = build_both(tmp_path, text, name)
    runs = device_runs(exe)
    assert runs is None or runs[-1] == 1, runs
