"""``ompcl train`` with the load features (issue 42): rows with the load columns train a
load-aware model, compared in the report with the same learner without them; the exported
model, read by a real translated program, follows the load the runtime measures; rows without
the columns train as before; option errors."""
from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ompcl.predict import data, export, learners, schema, train

from conftest import ROOT, build_both, compare_outputs, load_stats, ompcl_build, run

pytest.importorskip("sklearn")

COLUMNS = list(schema.ROW_COLUMNS)
BUSY_LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)


def load_rows(programs: int = 8, kernels: int = 3, seed: int = 0) -> list[dict]:
    """Rows where the device wins exactly when other processes keep the cores busy
    (``load_busy`` at least 0.5, with ``load_runnable`` following it, as the runtime measures
    them together); the static features vary by kernel and say nothing about the winner."""
    rng = random.Random(seed)
    rows = []
    for p in range(programs):
        for k in range(kernels):
            static = {c: rng.randint(1, 200) for c in schema.STATIC}
            base, items = rng.uniform(1e-4, 1e-2), rng.choice((1000, 20000, 400000))
            for busy in BUSY_LEVELS:
                rows.append({**static, "benchmark": f"p{p}", "dataset": f"busy{busy}",
                             "kernel": f"k{k}", "transfer": 8 * items, "wgsize": 64,
                             "work_items": items, "runtime_gpu": base * 1.7,
                             "runtime_cpu": base * (1.0 + 1.6 * busy),
                             "load_runnable": 4 * busy, "load_busy": busy,
                             "load_device": -1, "host_threads": 2, "cores": 2})
    return rows


def write(path: Path, rows: list[dict], load: bool = True) -> Path:
    cols = COLUMNS + (list(schema.LOAD) if load else [])
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return path


def ompcl(*args, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "ompcl", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=kw.get("timeout", 300))


@pytest.fixture(scope="module")
def rows_csv(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("rows") / "loaded.csv", load_rows())


@pytest.fixture(scope="module")
def aware(rows_csv) -> dict:
    """The report of ``ompcl train --json`` (a tree) on the load rows, and its model file."""
    out = rows_csv.with_name("aware.json")
    res = ompcl("train", rows_csv, "--learner", "tree", "--folds", "5", "--json", "-o", out)
    assert res.returncode == 0, res.stderr
    return {"report": json.loads(res.stdout), "file": out, "model": json.loads(out.read_text())}


# -- training and the comparison ---------------------------------------------------------

def test_rows_with_load_columns_train_a_load_aware_model(aware):
    m = aware["model"]
    assert m["schema"]["features"] == list(schema.FEATURES_LOAD) and export.load_aware(m)
    assert m["runtime"].splitlines()[1] == (f"features {len(schema.FEATURES_LOAD)} "
                                            + " ".join(schema.FEATURES_LOAD))
    lf = aware["report"]["load_features"]
    assert lf["used"] is True and lf["features"] == list(schema.LOAD)
    quiet, busy = load_rows(1, 1)[0], load_rows(1, 1)[-1]
    assert export.predict_one(m, schema.full_load(quiet)) == 0
    assert export.predict_one(m, schema.full_load(busy)) == 1


@pytest.mark.parametrize("scheme", ["stratified_kfold", "leave_one_program_out"])
def test_load_aware_beats_load_blind_in_the_comparison(aware, scheme):
    """Where only the load tells the winner, the load-aware model's held-out choices reach
    the oracle and the blind one's cannot; the aware side is the report's cross-validation."""
    rep = aware["report"]
    c = rep["load_features"]["comparison"][scheme]
    assert c["aware"]["oracle_share"] > c["blind"]["oracle_share"] + 0.05
    assert c["aware"]["accuracy"] > c["blind"]["accuracy"] + 0.2
    assert c["aware"]["oracle_share"] == rep["cross_validation"][scheme]["oracle_share"]
    assert c["aware"]["accuracy"] > 0.95


def test_blind_side_is_the_same_learner_on_the_same_rows(rows_csv):
    """The comparison's blind side is the cross-validation of the same settings on the same
    rows with the load columns ignored (``--load-features off``)."""
    s = learners.Settings("tree")
    with_load = train.train([rows_csv], s, folds=5)
    blind = train.train([rows_csv], s, folds=5, load_features="off")
    assert "load_features" not in blind["metadata"]
    assert blind["schema"]["features"] == list(schema.FEATURES)
    for scheme, c in with_load["metadata"]["load_features"]["comparison"].items():
        for k, v in c["blind"].items():
            assert v == blind["metadata"]["cross_validation"][scheme][k]


def test_text_report_shows_the_comparison_table(rows_csv, aware):
    res = ompcl("train", rows_csv, "--learner", "tree", "--folds", "5")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("load features"))
    table = {ln[:26].strip(): ln[26:].split() for ln in lines[head + 4:head + 6]}
    c = aware["report"]["load_features"]["comparison"]["leave_one_program_out"]
    assert table["leave-one-program-out"][:4] == [
        f"{c['aware']['oracle_share']:.1%}", f"{c['blind']['oracle_share']:.1%}",
        f"{c['aware']['accuracy']:.1%}", f"{c['blind']['accuracy']:.1%}"]


def test_auto_learner_searches_with_the_load_features(rows_csv):
    """The default learner's search and its nested folds see the load features too."""
    model = train.train([rows_csv], learners.Settings("auto", host_weight=3.0), folds=3,
                        budget=0.2)
    c = model["metadata"]["load_features"]["comparison"]["leave_one_program_out"]
    assert model["schema"]["features"] == list(schema.FEATURES_LOAD)
    assert c["aware"]["oracle_share"] > c["blind"]["oracle_share"]


# -- rows without the load columns: as before ---------------------------------------------

def test_rows_without_load_columns_train_as_before(tmp_path):
    """A file without the load columns trains the model that ``--load-features off`` trains
    on the same rows with them: same trees, schema, digest, scores (``off`` and ``auto``
    read the features alike), and no ``load_features`` in its metadata."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = write(tmp_path / "a" / "rows.csv", load_rows(), load=False)
    loaded = write(tmp_path / "b" / "rows.csv", load_rows())
    s = learners.Settings("tree")
    models = [train.train([plain], s, folds=5), train.train([loaded], s, folds=5,
                                                            load_features="off")]
    assert json.dumps(models[0], sort_keys=True) == json.dumps(models[1], sort_keys=True)
    assert "load_features" not in models[0]["metadata"]
    export.check(models[0])    # compiles into programs as before
    assert data.load([plain]).digest == data.load([loaded], load_features="off").digest
    assert data.load([loaded]).digest != data.load([plain]).digest


def test_load_aware_model_is_not_compiled_in(tmp_path, aware):
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    res = ompcl_build([src], tmp_path / "p", "--model", str(aware["file"]))
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "load-aware model" in res.stderr and "OMPCL_MODEL" in res.stderr


# -- option errors ------------------------------------------------------------------------

def test_load_features_on_without_the_columns_is_a_usage_error(tmp_path):
    plain = write(tmp_path / "plain.csv", load_rows(2, 1), load=False)
    res = ompcl("train", plain, "--load-features", "on", "-o", tmp_path / "m.json")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.startswith("ompcl: error: --load-features on: the rows in plain.csv "
                                 "lack the load column(s) load_runnable")
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "m.json").exists()


def test_unknown_load_features_mode_is_a_usage_error(tmp_path):
    res = ompcl("train", write(tmp_path / "r.csv", load_rows(2, 1)), "--load-features", "yes")
    assert res.returncode == 2 and res.stderr.strip() == (
        "ompcl: error: unknown --load-features 'yes' (choose auto, on, off)")


def test_load_column_that_is_not_a_number_names_the_row(tmp_path):
    rows = load_rows(2, 1)
    rows[3]["load_busy"] = "high"
    res = ompcl("train", write(tmp_path / "r.csv", rows), "--no-cv")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "r.csv:5: column 'load_busy' is not a number: 'high'" in res.stderr


# -- the exported model in a translated program --------------------------------------------

PROGRAM = r"""#include <stdio.h>
#define N 50000
double a[N], b[N];
int main(void) {
  int i, t;
  double s = 0.0;
  for (i = 0; i < N; i++) b[i] = (i % 31) * 0.5;
  for (t = 0; t < 4; t++) {
#pragma omp parallel for
    for (i = 0; i < N; i++)
      a[i] = b[i] * 1.25 + t;
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < N; i++)
      s += a[i] * 1e-3;
  }
  printf("s %.9e\na %.9e\n", s, a[N / 2]);
  return 0;
}
"""


def _stat_file(path: Path, running: int) -> Path:
    """A file in /proc/stat's format with ``running`` runnable tasks (``OMPCL_LOAD_STAT``:
    the runtime reads it instead of /proc/stat)."""
    cpus = sorted(os.sched_getaffinity(0))
    lines = ["cpu  100 0 100 1000 0 0 0 0 0 0"] + [
        f"cpu{c} 50 0 50 500 0 0 0 0 0 0" for c in cpus] + [f"procs_running {running}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _decisions(stats: dict) -> tuple[int, int]:
    return (sum(r["decisions_host"] for r in stats["regions"]),
            sum(r["decisions_device"] for r in stats["regions"]))


def test_exported_model_follows_the_load_in_a_program(tmp_path, aware, opencl_available):
    """The model ``ompcl train`` wrote, read by a translated program (``OMPCL_MODEL``): on
    a quiet machine every region stays on the host; with the cores busy (the load fixed
    through ``OMPCL_LOAD_STAT``) they go to the device; the answer is the original's."""
    ref, exe = build_both(tmp_path, PROGRAM)
    expected = run(ref).stdout
    quiet = _stat_file(tmp_path / "quiet", 1)
    busy = _stat_file(tmp_path / "busy", 1 + 4 * (os.cpu_count() or 1))
    stats = tmp_path / "s.json"
    seen = {}
    for name, stat in (("quiet", quiet), ("busy", busy)):
        out = run(exe, OMPCL_MODEL=str(aware["file"]), OMPCL_STATS=str(stats), OMPCL_LOG="1",
                  OMPCL_LOAD_STAT=str(stat), OMPCL_PROBE="0")
        assert out.returncode == 0, out.stderr
        assert "load features" in out.stderr   # the runtime read it as a load-aware model
        compare_outputs(expected, out.stdout, 1e-12)
        st = load_stats(stats)
        assert st["totals"]["load"]["load_aware"] is True
        seen[name] = _decisions(st)
    assert seen["quiet"][0] > 0 and seen["quiet"][1] == 0
    if not opencl_available:
        pytest.skip("no OpenCL device: the busy run's device decisions not checked")
    assert seen["busy"][1] > 0 and seen["busy"][0] == 0


def test_load_aware_model_keeps_the_users_thread_count(tmp_path, aware):
    """With the cores busy, a load-aware model leaves the host path the user's thread count
    (measured: a thread sharing a busy core still gets half of it); OMPCL_THREADS=auto asks
    for the cores other processes leave free, here one."""
    _, exe = build_both(tmp_path, PROGRAM)
    busy = _stat_file(tmp_path / "busy", 1 + 4 * (os.cpu_count() or 1))
    stats = tmp_path / "s.json"
    used = {}
    for threads in (None, "auto"):
        env = {"OMPCL_THREADS": threads} if threads else {}
        out = run(exe, OMPCL_MODEL=str(aware["file"]), OMPCL_DEVICE="openmp",
                  OMP_NUM_THREADS="2", OMPCL_STATS=str(stats), OMPCL_LOAD_STAT=str(busy), **env)
        assert out.returncode == 0, out.stderr
        st = load_stats(stats)
        counts = [sum(c) for c in zip(*(r["host_threads"] for r in st["regions"]))]
        used[threads] = [n + 1 for n, c in enumerate(counts) if c]
    assert used == {None: [2], "auto": [1]}
