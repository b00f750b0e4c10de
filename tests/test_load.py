"""Workload-aware dispatch (issue 42): the runtime's load measure and load features, the host
path's thread count (never a different answer), load-aware models read by the runtime, and
the bounded, self-stopping load generators of ``ompcl bench load``."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ompcl.bench import load, load_models
from ompcl.predict import export, schema

from conftest import ROOT, build_both, compare_outputs, load_stats, run

PROGRAM = r"""#include <stdio.h>
#include <omp.h>
#define N 20000
double a[N], b[N];
int main(void) {
  int i, t;
  double s = 0.0;
  for (i = 0; i < N; i++) b[i] = (i % 97) * 0.25;
  for (t = 0; t < 6; t++) {
#pragma omp parallel for
    for (i = 0; i < N; i++)
      a[i] = b[i] * 1.5 + t;
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < N; i++)
      s += a[i] * 1e-3;
#pragma omp parallel for schedule(dynamic, 64)
    for (i = 1; i < N; i++)
      b[i] = a[i] - a[i - 1] * 0.5;
#pragma omp parallel
    {
#pragma omp for
      for (i = 0; i < N; i++)
        a[i] = a[i] * 0.5 + b[i];
#pragma omp for reduction(+:s)
      for (i = 0; i < N; i++)
        s += a[i] * 1e-4;
    }
  }
  printf("s %.9e\nb %.9e\nmax_threads %d\n", s, b[N / 3], omp_get_max_threads());
  return 0;
}
"""


def _stat_file(tmp_path: Path, running: int) -> Path:
    """A file in /proc/stat's format with ``running`` runnable tasks (OMPCL_LOAD_STAT)."""
    cpus = sorted(os.sched_getaffinity(0))
    lines = ["cpu  100 0 100 1000 0 0 0 0 0 0"] + [
        f"cpu{c} 50 0 50 500 0 0 0 0 0 0" for c in cpus] + [f"procs_running {running}",
                                                            "procs_blocked 0"]
    path = tmp_path / f"stat-{running}"
    path.write_text("\n".join(lines) + "\n")
    return path


def _busy(tmp_path: Path) -> Path:
    """Other processes: four runnable tasks per CPU."""
    return _stat_file(tmp_path, 1 + 4 * (os.cpu_count() or 1))


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    d = tmp_path_factory.mktemp("load")
    ref, exe = build_both(d, PROGRAM)
    return d, ref, exe


def _host_threads(stats: dict) -> list[int]:
    """Host entries per thread count, over every loop region and parallel region."""
    counts = [0] * 16
    for r in stats["regions"] + stats["teams"]:
        counts = [x + y for x, y in zip(counts, r["host_threads"])]
    return counts


# -- the load measure ---------------------------------------------------------------------

def test_load_measure_in_statistics(program, tmp_path):
    """Other processes' runnable tasks per core, from /proc/stat (here a file standing in for
    it), in the statistics' totals; the real /proc/stat gives values in range."""
    d, _, exe = program
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="openmp", OMPCL_THREADS="auto", OMPCL_STATS=str(stats),
              OMPCL_LOAD_STAT=str(_busy(tmp_path)))
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    ld = st["totals"]["load"]
    assert st["load_feature_names"] == list(schema.LOAD)
    assert ld["cores"] == len(os.sched_getaffinity(0)) and ld["samples"] >= 1
    online = os.cpu_count() or 1
    assert ld["runnable_max"] >= (4 * online - 1) / online * 0.99   # own threads left out
    out = run(exe, OMPCL_DEVICE="openmp", OMPCL_THREADS="auto", OMPCL_STATS=str(stats))
    ld = load_stats(stats)["totals"]["load"]
    assert 0 <= ld["busy_mean"] <= 1 and ld["runnable_mean"] >= 0


def test_load_features_at_decisions(program, tmp_path, opencl_available):
    """Each decision's size class records the load features (OMPCL_NLOAD of them)."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    d, _, exe = program
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats),
              OMPCL_LOAD_STAT=str(_busy(tmp_path)))
    assert out.returncode == 0, out.stderr
    for r in load_stats(stats)["regions"]:
        for z in r["sizes"]:
            f = dict(zip(schema.LOAD, z["load"]))
            assert f["load_runnable"] > 1 and f["load_busy"] == 1.0
            assert f["cores"] == len(os.sched_getaffinity(0))
            assert f["host_threads"] == 2   # no load-aware model, no OMPCL_THREADS


def test_cores_of_a_bound_program(program, tmp_path):
    """OMP_PROC_BIND binds the initial thread to one core before the first region: the
    cores counted are still the process's."""
    d, _, exe = program
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="openmp", OMPCL_THREADS="auto", OMP_PROC_BIND="true",
              OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    assert load_stats(stats)["totals"]["load"]["cores"] == len(os.sched_getaffinity(0))


def test_measure_in_python_is_in_range():
    m = load.measure(0.05)
    assert m["cores"] == len(os.sched_getaffinity(0))
    assert 0 <= m["busy"] <= 1 and m["runnable"] >= 0


# -- the host path's thread count --------------------------------------------------------

@pytest.mark.parametrize("omp,threads,busy,expect", [
    ("2", None, True, 2),      # no load-aware model: the user's count, whatever the load
    ("2", "max", True, 2),
    ("2", "1", False, 1),      # a count
    ("2", "3", False, 2),      # never above the user's
    ("3", "3", False, 3),
    ("2", "auto", True, 1),    # the cores other processes leave free, at least one
    ("2", "auto", False, None),  # a quiet machine: up to the user's (the real load may vary)
    ("3", "1,3", True, 1),     # among the allowed counts
])
def test_thread_count_never_changes_the_answer(program, tmp_path, omp, threads, busy, expect):
    """The translation's host path at the chosen count gives the original's answer at the
    user's count, and the user's count holds again after each region."""
    d, ref, exe = program
    expected = run(ref, OMP_NUM_THREADS=omp).stdout
    stats = tmp_path / "s.json"
    env = {"OMP_NUM_THREADS": omp, "OMPCL_DEVICE": "openmp", "OMPCL_STATS": str(stats),
           "OMPCL_LOAD_STAT": str(_busy(tmp_path) if busy else _stat_file(tmp_path, 1))}
    if threads is not None:
        env["OMPCL_THREADS"] = threads
    out = run(exe, **env)
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-12)
    assert f"max_threads {omp}" in out.stdout
    counts = _host_threads(load_stats(stats))
    used = [n + 1 for n, c in enumerate(counts) if c]
    assert sum(counts) == 24   # three loops and a parallel region, six times
    if expect is not None:
        assert used == [expect]
    else:
        assert used and max(used) <= int(omp)


@pytest.mark.parametrize("count", ["1", "2", "3", "7"])
def test_every_count_gives_the_originals_answer(program, count):
    """The never-wrong check: every count the runtime may choose, the same answer."""
    d, ref, exe = program
    expected = run(ref, OMP_NUM_THREADS="7").stdout
    out = run(exe, OMP_NUM_THREADS="7", OMPCL_DEVICE="openmp", OMPCL_THREADS=count)
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-12)


def test_thread_choice_is_logged(program, tmp_path):
    d, _, exe = program
    out = run(exe, OMPCL_DEVICE="openmp", OMPCL_THREADS="1", OMPCL_LOG="1")
    assert "host with 1 of 2 threads" in out.stderr


# -- load-aware models --------------------------------------------------------------------

def _rows(n: int = 40) -> list[dict]:
    """Synthetic rows: the device is faster exactly where other processes keep the cores
    busy."""
    rows = []
    for k in range(n):
        busy = (k % 4) / 3
        row = {c: 1.0 for c in schema.STATIC}
        row.update(transfer=0, work_items=20000, wgsize=1, load_runnable=busy, load_busy=busy,
                   load_device=busy, host_threads=2, cores=2, benchmark=f"b{k % 3}-x")
        row.update(runtime_cpu=1.0 + 2 * busy, runtime_gpu=1.8)
        rows.append(row)
    return rows


def test_load_model_reads_the_load():
    """A model trained with the load features decides on them (in Python as exported)."""
    m = load_models.load_model(_rows(), load=True)
    assert m["schema"]["features"] == list(schema.FEATURES_LOAD)
    assert f"features {len(schema.FEATURES_LOAD)} " in m["runtime"]
    quiet, busy = _rows()[0], _rows()[3]
    assert export.predict_one(m, schema.full_load(quiet)) == 0
    assert export.predict_one(m, schema.full_load(busy)) == 1
    blind = load_models.load_model(_rows(), load=False)
    export.check(blind)    # a model without them is the schema's as before


def test_runtime_reads_a_load_aware_model(program, tmp_path, opencl_available):
    """OMPCL_MODEL with the load features: the host on a quiet machine, the device with busy
    cores; the host path's count follows the load (the model lets it)."""
    d, _, exe = program
    model = tmp_path / "aware.json"
    model.write_text(json.dumps(load_models.load_model(_rows(), load=True)))
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_MODEL=str(model), OMPCL_STATS=str(stats), OMPCL_LOG="1",
              OMPCL_LOAD_STAT=str(_stat_file(tmp_path, 1)), OMPCL_PROBE="0")
    assert out.returncode == 0, out.stderr
    assert "load features" in out.stderr
    st = load_stats(stats)
    assert st["totals"]["load"]["load_aware"] is True
    assert sum(r["decisions_device"] for r in st["regions"]) == 0
    assert sum(r["decisions_host"] for r in st["regions"]) > 0
    if not opencl_available:
        pytest.skip("no OpenCL device")
    out = run(exe, OMPCL_MODEL=str(model), OMPCL_STATS=str(stats),
              OMPCL_LOAD_STAT=str(_busy(tmp_path)), OMPCL_PROBE="0")
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    assert sum(r["decisions_device"] for r in st["regions"]) > 0


def test_train_models_writes_blind_and_aware(tmp_path):
    rows = tmp_path / "rows.csv"
    load.write_csv(rows, _rows())
    written = {p.name for p in load_models.train_models(rows, tmp_path / "m")}
    assert {"blind.json", "aware.json", "aware-minus-b0.json", "blind-minus-b2.json"} <= written


def test_oracles():
    times = {"device": 10.0, "host1": 12.0, "host2": 8.0}
    stats = {c: {"regions": [{"file": "a.c", "line": 1, "kernel": "k1",
                              "seconds_device": s1, "seconds_host": 0},
                             {"file": "a.c", "line": 2, "kernel": "k2",
                              "seconds_device": s2, "seconds_host": 0}]}
             for c, (s1, s2) in {"device": (2.0, 7.0), "host1": (6.0, 5.0),
                                 "host2": (5.0, 2.0)}.items()}
    whole, per = load.oracles(times, stats, ["device", "host1", "host2"])
    assert whole == 8.0 and per == pytest.approx(1.0 + 2.0 + 2.0)


# -- the generators: bounded, self-stopping ----------------------------------------------

def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def _wait_gone(pids: list[int], seconds: float) -> bool:
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        if all(_gone(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def test_host_load_stops_at_its_deadline():
    t0 = time.monotonic()
    with load.HostLoad(2, seconds=1.0) as h:
        assert h.alive() == 2
        pids = [p.pid for p in h.procs]
        limits = Path(f"/proc/{pids[0]}/limits").read_text()
        assert _wait_gone(pids, 10)   # by itself, not by the context's end
    assert time.monotonic() - t0 < 10
    assert [ln for ln in limits.splitlines() if ln.startswith("Max cpu time")][0].split()[3] \
        == "3"   # the kernel's bound too: RLIMIT_CPU of the deadline and 2 s


def test_host_load_stops_with_the_context():
    with load.HostLoad(1, seconds=60) as h:
        pids = [p.pid for p in h.procs]
    assert all(_gone(p) for p in pids)


def test_host_load_stops_when_the_harness_is_killed():
    code = ("import time; from ompcl.bench.load import HostLoad\n"
            "h = HostLoad(2, 60).__enter__()\n"
            "print(*[p.pid for p in h.procs], flush=True)\n"
            "time.sleep(60)\n")
    harness = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                               cwd=ROOT, env=load._module_env())
    pids = [int(x) for x in harness.stdout.readline().split()]
    assert len(pids) == 2 and not any(_gone(p) for p in pids)
    os.kill(harness.pid, signal.SIGKILL)
    harness.wait()
    assert _wait_gone(pids, 5)


def test_spin_without_its_parent_returns_at_once():
    # in a process of its own: spin bounds its process's CPU time (RLIMIT_CPU) and ties it to
    # its parent (PR_SET_PDEATHSIG), which in the test's own process would kill the test
    # worker once it has used that much CPU
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "ompcl.bench.load", "spin", "30", "-1"],
                         cwd=ROOT, env=load._module_env(), timeout=60)
    assert res.returncode == 0
    assert time.monotonic() - t0 < 10


def test_levels():
    assert [(lv.host_cores, lv.device) for lv in load.LEVELS.values()] == [
        (0, False), (1, False), (2, False), (0, True)]
    env = load.config_env("host1", 2, {}, "cg")
    assert env["OMP_NUM_THREADS"] == "1" and env["OMPCL_DEVICE"] == "openmp"
    with pytest.raises(ValueError):
        load.config_env("gpu", 2, {}, "cg")


def test_device_load_stops_at_its_deadline(tmp_path, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    with load.DeviceLoad(tmp_path, seconds=1.0) as dl:
        pids = [p.pid for p in dl.procs]
        assert _wait_gone(pids, 20)


@pytest.mark.parametrize("args, option", [(["--levels", "none,bogus"], "--levels"),
                                          (["--configs", "device,nonsense"], "--configs")])
def test_unknown_levels_and_configurations_are_usage_errors(tmp_path, args, option):
    """A bad level or configuration is refused before anything is built or written."""
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, "-m", "ompcl", "bench", "load", *args, "-o", str(out)],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
    assert f"Invalid value for {option}" in res.stderr and not out.exists()


def test_train_models_with_quiet_base_rows(tmp_path):
    """Base rows (ompcl train's layout, no load columns) train every model as a quiet
    machine's rows, with the shipped default's settings; a held-out benchmark's base rows
    (``nas-b1`` for ``b1``) are left out of its models too."""
    rows = tmp_path / "rows.csv"
    load.write_csv(rows, _rows())
    base = tmp_path / "base.csv"
    quiet = [{**{k: v for k, v in r.items() if k not in schema.LOAD},
              "benchmark": f"nas-b{k % 2}", "threads": 2} for k, r in enumerate(_rows(8))]
    load.write_csv(base, quiet)
    written = load_models.train_models(rows, tmp_path / "m", [base])
    aware = json.loads((tmp_path / "m" / "aware.json").read_text())
    held = json.loads((tmp_path / "m" / "aware-minus-b1.json").read_text())
    shipped = load_models.default_settings()
    assert aware["metadata"] == {"rows": len(_rows()) + 8, "load_features": True}
    # without b1: its loaded rows (b1-x, a third) and its 4 base rows (nas-b1)
    assert held["metadata"]["rows"] == aware["metadata"]["rows"] - 13 - 4
    assert aware["learner"] == shipped["learner"] and len(written) == 8
    assert [r["load_runnable"] for r in load_models.quiet_rows(quiet, 2, 2)] == [0.0] * 8


def test_train_reports_bad_files_without_a_traceback(tmp_path, capsys):
    """A missing file, or rows without the load columns given as the loaded rows: one
    ``ompcl: error:`` line, exit status 1, no model directory."""
    rows = tmp_path / "rows.csv"
    load.write_csv(rows, _rows())
    base = tmp_path / "base.csv"
    load.write_csv(base, [{k: v for k, v in r.items() if k not in schema.LOAD}
                          for r in _rows(4)])
    out = tmp_path / "m"
    for args in ([str(tmp_path / "none.csv"), str(out)],
                 [str(rows), str(out), str(tmp_path / "none.csv")], [str(base), str(out)]):
        assert load_models.main(args) == 1
        err = capsys.readouterr().err
        assert err.startswith("ompcl: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err and not out.exists()
