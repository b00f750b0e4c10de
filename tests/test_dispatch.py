"""Learned dispatch, end to end: static features counted on kernels, the feature vector the
runtime builds, models exported to C and to the runtime's text agreeing with scikit-learn,
the run-time model override (OMPCL_MODEL), forcing, and the per-size decision cache."""
from __future__ import annotations

import json
import random
import subprocess

import pytest

from ompcl.codegen.features import UNKNOWN_TRIP
from ompcl.pipeline import Options, translate
from ompcl.predict import export, schema

from conftest import compare_outputs, gcc_build, load_stats, ompcl_build, run

COUNTED = """#include <math.h>
#define N 256
double a[N][N], b[N][N], s;
int h[16];
void f(int m, int w) {
  int i, j, k;
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < 8; j++)
      a[i][j] = b[i][j] * 2.0 + sqrt(b[j][i]);
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < m; j++)
      if (b[j][i] > 0.0) a[j][i] = b[j][i] - 1.0;
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < N; i++) s += a[i][0];
#pragma omp parallel for
  for (k = 0; k < N; k++) {
#pragma omp atomic
    h[k % 16] += 1;
  }
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < b[i][0]; j++)
      a[i][0] += 1.0;
}
"""


def _features(tmp_path, text=COUNTED):
    src = tmp_path / "counted.c"
    src.write_text(text)
    u = translate(str(src), Options(model="none"))
    return [dict(zip(schema.STATIC, u.features[r.id].values)) for r in u.offloaded], u


def test_static_counts_of_small_kernels(tmp_path):
    feats, u = _features(tmp_path)
    assert len(feats) == 5
    const, sym, red, atomic, unknown = feats
    # 8 iterations of: '*', '+', sqrt (8); j < 8, j++ ... per iteration: comparison and step
    assert const["mem"] == 8 * 3
    assert const["comp"] == 8 * (2 + 8 + 1)
    assert const["coalesced"] == 8          # b[j][i] only: a[i][j] strides a row per work-item
    assert const["branches"] == 1           # the inner loop
    # run-time trip count m: counted per trip, UNKNOWN_TRIP in the descriptor
    assert sym["mem"] == 3 * UNKNOWN_TRIP
    assert sym["coalesced"] == 3 * UNKNOWN_TRIP  # [j][i]: consecutive across work-items
    assert sym["branches"] == 1 + UNKNOWN_TRIP
    exprs = dict(zip(schema.STATIC, u.features[u.offloaded[1].id].c_exprs))
    assert "ompcl_trip((long)(0), (long)(m), 1L, 0)" in exprs["mem"]
    assert red["localmem"] == 2 and red["mem"] == 1
    assert atomic["atomic"] == 1
    assert unknown["mem"] >= UNKNOWN_TRIP   # bound read from memory: no run-time count
    assert not u.features[u.offloaded[4].id].c_exprs
    assert not u.features[u.offloaded[0].id].c_exprs


def test_full_vector_formulas():
    f = dict(zip(schema.FEATURES, schema.full(
        {"comp": 10, "mem": 4, "localmem": 2, "coalesced": 3, "transfer": 140, "wgsize": 64,
         "work_items": 1000})))
    assert f["transfer_per_op"] == 10 and f["coalesced_per_mem"] == 0.75
    assert f["localmem_wgsize"] == 32 and f["comp_per_mem"] == 2.5
    assert f["work_items"] == 1000
    # zero denominators count as one, as in the runtime
    assert schema.full({"comp": 3})[schema.FEATURES.index("comp_per_mem")] == 3


PROGRAM = """#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5000, m = 7, i, j, r;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), s = 0.0;
  for (i = 0; i < n; i++) b[i] = i % 13;
  for (r = 0; r < 3; r++) {
    int len = r == 2 ? n / 4 : n;   /* two problem sizes */
#pragma omp parallel for private(j)
    for (i = 0; i < len; i++) {
      double t = 0.0;
      for (j = 0; j < m; j++) t += b[i] * j;
      a[i] = t;
    }
    printf("a %.6f\\n", a[len / 2]);
  }
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < n; i++) s += a[i];
  printf("s %.6f\\n", s);
  free(a); free(b);
  return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    d = tmp_path_factory.mktemp("dispatch")
    src = d / "prog.c"
    src.write_text(PROGRAM)
    ref = d / "ref"
    gcc_build(src, ref)
    exe = d / "prog"
    res = ompcl_build([src], exe, "--model", "none")
    assert res.returncode == 0, res.stderr
    return d, exe, run(ref).stdout


def _run(program, name, **env):
    d, exe, expected = program
    stats = d / f"{name}.json"
    out = run(exe, OMPCL_STATS=str(stats), **env)
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)
    return load_stats(stats), out


def _constant_model(device: bool) -> dict:
    tree = {"feature": [-1], "threshold": [0.0], "left": [-1], "right": [-1],
            "value": [1.0 if device else 0.0]}
    return export.make_model("tree", "mean", 0.5, [tree])


def test_runtime_features_match_schema(program, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    st, _ = _run(program, "copy", OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0")
    assert st["feature_names"] == list(schema.FEATURES)
    loop = st["regions"][0]
    f = loop["features"]
    raw = dict(zip(schema.STATIC, f[:6]))
    raw.update(transfer=f[6], work_items=f[7], wgsize=f[8])
    assert f == pytest.approx(schema.full(raw))
    # the inner trip count m = 7 was known at entry: 7 loads and a store
    assert f[schema.FEATURES.index("mem")] == 7 + 1
    assert loop["static"][1] == UNKNOWN_TRIP + 1
    sizes = {z["work_items"]: z for z in loop["sizes"]}
    assert set(sizes) == {5000, 1250} and sizes[5000]["entries"] == 2
    assert sizes[5000]["device_runs"] == 2 and sizes[5000]["kernel_seconds"] > 0
    assert st["totals"]["bytes_to_device"] > 0 and st["totals"]["transfers_to_device"] > 0
    assert loop["transfers_to_device"] >= 1 and loop["transfer_seconds"] >= 0


def test_model_override_and_forcing(program, opencl_available, tmp_path):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    host_model = tmp_path / "host.json"
    host_model.write_text(json.dumps(_constant_model(False)))
    st, _ = _run(program, "host-model", OMPCL_MODEL=str(host_model))
    assert st["model"] == str(host_model)
    assert all(r["device_runs"] == 0 and r["decisions_host"] == r["entries"]
               and r["fallback"] is None for r in st["regions"])
    loop = st["regions"][0]
    assert {tuple(z["decision"]) for z in loop["sizes"]} <= {("host", None), (None, "host"),
                                                             ("host", "host")}
    # forcing the device ignores the model
    st, _ = _run(program, "forced", OMPCL_MODEL=str(host_model), OMPCL_DEVICE="opencl")
    assert all(r["device_runs"] == r["entries"] and r["decisions_host"] == 0
               for r in st["regions"])
    # a model that cannot be read: a warning, the compiled-in choice (none: the device)
    bad = tmp_path / "bad.json"
    bad.write_text('{"runtime": "ompcl-model 1\\nfeatures 2 a b\\n"}')
    st, out = _run(program, "bad", OMPCL_MODEL=str(bad))
    assert "is not a readable ompcl model" in out.stderr
    assert st["model"] == "compiled-in" and st["regions"][0]["device_runs"] > 0


def test_decisions_are_logged_and_cached(program, opencl_available, tmp_path):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps(_constant_model(True)))
    st, out = _run(program, "log", OMPCL_MODEL=str(dev), OMPCL_LOG="1", OMPCL_ZERO_COPY="0")
    lines = [l for l in out.stderr.splitlines() if "work-items (" in l]
    assert any("(model; comp=" in l for l in lines)
    assert any("(cached decision; " in l for l in lines)
    assert all("transfer=" in l and "wgsize=" in l for l in lines)
    assert st["regions"][0]["decisions_device"] == 3


def _random_rows(n: int, seed: int) -> list[tuple[float, ...]]:
    rnd = random.Random(seed)
    rows = []
    for _ in range(n):
        raw = {"comp": rnd.choice([0, 1, 3, 17, 250.5]) * rnd.random() * 40,
               "mem": rnd.randint(0, 60), "localmem": rnd.choice([0, 0, 2]),
               "coalesced": rnd.randint(0, 30), "atomic": rnd.choice([0, 0, 1]),
               "branches": rnd.randint(0, 9), "transfer": rnd.choice([0, 8e3, 3e6, 1.6e8]),
               "work_items": 2 ** rnd.randint(0, 24), "wgsize": 2 ** rnd.randint(0, 8)}
        rows.append(schema.full(raw))
    return rows


def _fitted(learner: str):
    sk = pytest.importorskip("sklearn")
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    X = _random_rows(400, 1)
    y = [int(r[0] / (r[1] + 1) > 20 and r[7] > 5000 or r[9] > 1e5) for r in X]
    est = {"tree": DecisionTreeClassifier(random_state=0),
           "forest": RandomForestClassifier(n_estimators=12, max_depth=6, random_state=0),
           "boosting": GradientBoostingClassifier(n_estimators=15, max_depth=3,
                                                  random_state=0)}[learner]
    assert sk
    return est.fit(X, y)


C_MAIN = """#include <stdio.h>
%s
int main(void) {
  double f[%d];
  for (;;) {
    for (int k = 0; k < %d; k++) if (scanf("%%lf", &f[k]) != 1) return 0;
    printf("%%d\\n", ompcl_model(f, %d));
  }
}
"""


@pytest.mark.parametrize("learner", ["tree", "forest", "boosting"])
def test_exported_c_agrees_with_sklearn(learner, tmp_path):
    est = _fitted(learner)
    model = export.from_sklearn(est, learner)
    export.check(model)
    rows = _random_rows(3000, 2)
    expected = [int(v) for v in est.predict(rows)]
    assert export.predict(model, rows) == expected
    assert _c_predictions(model, rows, tmp_path) == expected


def _c_predictions(model: dict, rows, tmp_path) -> list[int]:
    """What ``export.c_source(model)``, compiled with gcc, decides for ``rows``."""
    n = len(schema.FEATURES)
    src = tmp_path / "model.c"
    src.write_text(C_MAIN % (export.c_source(model), n, n, n))
    exe = tmp_path / "model"
    gcc_build(src, exe)
    data = "\n".join(" ".join(repr(x) for x in r) for r in rows)
    out = subprocess.run([str(exe)], input=data, capture_output=True, text=True, check=True)
    return [int(x) for x in out.stdout.split()]


def test_exported_c_tables_any_node_order(tmp_path):
    """The C tables hold a left-child table only when a tree's left children do not follow
    their parents (scikit-learn's order); both forms, and a single-precision threshold that a
    double comparison would get wrong, decide as the Python model does."""
    edge = export._f32(0.1)  # a feature just above it is <= edge only in single precision
    n = len(schema.FEATURES)
    # node 0 tests feature 1; its left child is node 2 (not 1): the left table is needed
    swapped = {"feature": [1, -1, 0, -1, -1], "threshold": [edge, 0.0, 2.5, 0.0, 0.0],
               "left": [2, -1, 3, -1, -1], "right": [1, -1, 4, -1, -1],
               "value": [0.0, 1.0, 0.0, 1.0, 0.0]}
    ordered = {"feature": [1, 0, -1, -1, -1], "threshold": [edge, 2.5, 0.0, 0.0, 0.0],
               "left": [1, 2, -1, -1, -1], "right": [4, 3, -1, -1, -1],
               "value": [0.0, 0.0, 1.0, 0.0, 1.0]}
    rows = [tuple(float(v) for v in ([a, b] + [0.0] * (n - 2)))
            for a in (1.0, 2.5, 3.0) for b in (0.0, 0.1, 0.10000000149011613, 0.2)]
    for tree, has_left in ((swapped, True), (ordered, False)):
        model = export.make_model("tree", "mean", 0.5, [tree])
        assert ("_left[]" in export.c_source(model)) == has_left
        expected = export.predict(model, rows)
        assert len(set(expected)) == 2
        assert _c_predictions(model, rows, tmp_path) == expected
    # (3.0, just above 0.1) goes left only in single precision, where its leaf says host;
    # the C above agreed on it, so it compares in single precision too
    row = rows.index((3.0, 0.10000000149011613) + (0.0,) * (n - 2))
    assert export.predict(export.make_model("tree", "mean", 0.5, [ordered]), rows)[row] == 0
    assert 0.10000000149011613 > edge


def test_runtime_text_round_trip():
    est = _fitted("forest")
    model = export.from_sklearn(est, "forest")
    text = model["runtime"]
    assert text.startswith("ompcl-model 1\nfeatures 13 comp mem ")
    assert text.count("\ntree ") == len(est.estimators_)


def test_runtime_reads_exported_models(program, opencl_available, tmp_path):
    """The C runtime's reader of OMPCL_MODEL decides as the Python model does."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    for learner in ("forest", "boosting"):
        model = export.from_sklearn(_fitted(learner), learner)
        path = tmp_path / f"{learner}.json"
        path.write_text(json.dumps(model))
        st, _ = _run(program, learner, OMPCL_MODEL=str(path))
        assert st["model"] == str(path)
        for r in st["regions"]:
            want = "device" if export.predict_one(model, r["features"]) else "host"
            last = {z["work_items"]: z for z in r["sizes"]}[int(r["features"][7])]
            assert want in last["decision"]


def test_training_rows_from_statistics(program, opencl_available, tmp_path):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    from ompcl.bench.rows import rows_from_stats, write_csv
    dev, _ = _run(program, "rows-dev", OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0")
    host, _ = _run(program, "rows-host", OMPCL_DEVICE="openmp")
    rows = rows_from_stats(dev, host, "prog", "n5000")
    assert sorted(r["work_items"] for r in rows) == [1250, 5000, 5000]
    for r in rows:
        assert r["runtime_cpu"] > 0 and r["runtime_gpu"] > 0 and r["wgsize"] >= 1
        assert list(r) == list(schema.ROW_COLUMNS)
    loop = [r for r in rows if r["kernel"].endswith("ompcl_k0")]
    assert {r["mem"] for r in loop} == {8.0}   # the run-time inner count, per size class
    assert all(r["transfer"] > 0 for r in loop)  # copying buffers: bytes to move
    path = tmp_path / "rows.csv"
    assert write_csv(path, rows) == 3
    assert path.read_text().splitlines()[0].startswith(
        "benchmark,dataset,kernel,comp,mem,localmem,coalesced,atomic,transfer,wgsize,"
        "runtime_cpu,runtime_gpu")


def test_host_model_never_starts_opencl(program, tmp_path):
    """A model that keeps every launch on the host whatever the device does not start OpenCL
    (its start-up would be the whole cost of a short program)."""
    host_model = tmp_path / "host.json"
    host_model.write_text(json.dumps(_constant_model(False)))
    st, out = _run(program, "no-start", OMPCL_MODEL=str(host_model), OMPCL_LOG="1")
    assert "ompcl: device:" not in out.stderr and "built " not in out.stderr
    assert all(r["decisions_host"] == r["entries"] for r in st["regions"])
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps(_constant_model(True)))
    st, out = _run(program, "starts", OMPCL_MODEL=str(dev), OMPCL_LOG="1")
    if "no OpenCL device" not in out.stderr:
        assert "ompcl: device:" in out.stderr
        assert all(r["device_runs"] == r["entries"] for r in st["regions"])


SLOW_LOOP = r"""#include <stdio.h>
#include <math.h>
#define N 200000
double a[N];
int main(void) {
  int i, t;
  for (t = 0; t < 40; t++) {
#pragma omp parallel for
    for (i = 0; i < N; i++) a[i] = sin(a[i] + i * 1e-6 * t) + cos(0.5 * a[i]);
  }
  printf("%.9f %.9f\n", a[1], a[N - 1]);
  return 0;
}
"""


@pytest.fixture(scope="module")
def slow_loop(tmp_path_factory):
    """SLOW_LOOP built with gcc and with ompcl (no model compiled in): (exe, gcc's output)."""
    d = tmp_path_factory.mktemp("slow")
    src = d / "p.c"
    src.write_text(SLOW_LOOP)
    ref, exe = d / "ref", d / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe, "--model", "none")
    assert res.returncode == 0, res.stderr
    return exe, run(ref).stdout


def _model_file(tmp_path, device: bool):
    path = tmp_path / ("dev.json" if device else "host.json")
    path.write_text(json.dumps(_constant_model(device)))
    return path


def test_opencl_starts_once_the_host_spent_the_start_up_budget(tmp_path, slow_loop):
    """Auto mode with a model that sends the loop to the device: OpenCL starts only after the
    host has spent OMPCL_STARTUP seconds in such loops (what starting it costs), so a short
    program never pays it; an entry that looks as long as the start-up by itself (here
    200000 work-items of 24 operations, guessed at 1.2 ms) starts it at once, and so does 0;
    the answer is the same."""
    exe, expected = slow_loop
    dev = _model_file(tmp_path, True)
    stats = tmp_path / "s.json"
    runs = {}
    for budget in ("1000", "0.01", "0.001", "0"):
        out = run(exe, OMPCL_MODEL=str(dev), OMPCL_STARTUP=budget, OMPCL_STATS=str(stats),
                  OMPCL_PROBE="0")   # the model's choices alone (measurement has its tests)
        assert out.returncode == 0, out.stderr
        compare_outputs(expected, out.stdout, 1e-9)
        st = load_stats(stats)
        (r,) = st["regions"]
        runs[budget] = (r["device_runs"], r["host_runs"], st["totals"]["startup_deferred"])
    assert runs["1000"] == (0, 40, 40)  # never worth starting
    if not load_stats(stats)["device"]["available"]:
        pytest.skip("no OpenCL device")
    dev_runs, host_runs, deferred = runs["0.01"]
    assert dev_runs > 0 and host_runs == deferred > 0 and dev_runs + host_runs == 40
    assert runs["0.001"] == runs["0"] == (40, 0, 0)


TEAM = r"""#include <stdio.h>
#define N 4000
double u[N], v[N];
int main(void) {
  int i, t;
  for (i = 0; i < N; i++) u[i] = i % 9;
  for (t = 0; t < 5; t++) {
#pragma omp parallel
    {
#pragma omp for
      for (i = 1; i < N - 1; i++) v[i] = 0.5 * (u[i - 1] + u[i + 1]);
#pragma omp single
      v[0] = t;
#pragma omp for
      for (i = 0; i < N; i++) u[i] = v[i] + 1.0;
    }
  }
  printf("%.6f %.6f\n", u[5], u[N - 2]);
  return 0;
}
"""


def test_team_whose_loops_stay_on_the_host_runs_the_original(tmp_path, opencl_available):
    """In auto mode a parallel region's device version (a team of one) that launched no
    kernel gives way to the original region for the rest of the run; one that launched
    kernels is timed against the original (run once), and the faster one runs after."""
    src = tmp_path / "team.c"
    src.write_text(TEAM)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    assert ompcl_build([src], exe, "--model", "none").returncode == 0
    expected = run(ref).stdout
    for device, runs in ((False, (1, 4)), (True, None)):
        model = tmp_path / f"m{device}.json"
        model.write_text(json.dumps(_constant_model(device)))
        stats = tmp_path / f"s{device}.json"
        out = run(exe, OMPCL_MODEL=str(model), OMPCL_STATS=str(stats))
        assert out.returncode == 0 and out.stdout == expected
        team = load_stats(stats)["teams"][0]
        if device and not opencl_available:
            continue
        if not device:
            assert (team["device_runs"], team["host_runs"]) == runs
            assert team["fallback"] == "its device version launched no kernel"
            continue
        # the first entry runs the device version, the second the original (timed once)
        assert team["device_runs"] >= 1 and team["host_runs"] >= 1
        assert team["device_runs"] + team["host_runs"] == 5
        # from the third entry on, the version with the smaller mean time runs
        if team["host_runs"] > 1:
            assert team["fallback"] == "its original ran faster than its device version"


CALLS_ONLY = r"""#include <stdio.h>
#define N 4000
double u[N];
static void fill(void) {   /* the region's work-sharing loop, in a callee */
  int i;
#pragma omp for
  for (i = 0; i < N; i++) u[i] = i * 0.5;
}
int main(void) {
#pragma omp parallel
  fill();
  printf("%.3f %.3f\n", u[1], u[N - 1]);
  return 0;
}
"""


def test_team_without_kernels_of_its_own_runs_the_original(tmp_path, opencl_available):
    """A parallel region with no loop of its own (its work-sharing loop is in a callee): auto
    mode runs the original region, forcing the device runs the device version."""
    src = tmp_path / "calls.c"
    src.write_text(CALLS_ONLY)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    assert ompcl_build([src], exe).returncode == 0
    expected = run(ref).stdout
    for mode, runs in (("auto", (0, 1)), ("opencl", (1, 0))):
        stats = tmp_path / f"{mode}.json"
        out = run(exe, OMPCL_DEVICE=mode, OMPCL_STATS=str(stats))
        assert out.returncode == 0 and out.stdout == expected
        teams = load_stats(stats)["teams"]
        if mode == "opencl" and not opencl_available:
            continue
        assert (teams[0]["device_runs"], teams[0]["host_runs"]) == runs
        if mode == "auto":
            assert teams[0]["fallback"] == "no loop of its own is a kernel"


@pytest.mark.parametrize("zero_copy", ["1", "0"])
@pytest.mark.parametrize("model_device,slow", [(False, "slow-host"), (True, "slow-device"),
                                               (False, "slow-device"), (True, "slow-host")])
def test_measurement_checks_the_model(tmp_path, slow_loop, model_device, slow, zero_copy):
    """Auto mode measures the side the model did not choose once a size class has spent
    OMPCL_PROBE seconds and 10 entries on its side: two entries there (the first not
    counted), then the side with fewer seconds per work-item runs the rest. The fault hook
    makes one side look 50 ms an entry slower, so the outcome is known; the answer is gcc's.
    (OMPCL_PROBE_START=0: a host class may start OpenCL for its probe however short.)"""
    exe, expected = slow_loop
    model = _model_file(tmp_path, model_device)
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_MODEL=str(model), OMPCL_PROBE="0.001", OMPCL_PROBE_START="0",
              OMPCL_FAULT=slow, OMPCL_STARTUP="0", OMPCL_STATS=str(stats), OMPCL_LOG="1",
              OMPCL_ZERO_COPY=zero_copy)
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)
    st = load_stats(stats)
    if not st["device"]["available"]:
        pytest.skip("no OpenCL device")
    (r,) = st["regions"]
    (z,) = r["sizes"]
    assert z["measured"] is True
    wins_device = slow == "slow-host"
    assert z["decision"] == (["device", "device"] if wins_device else ["host", "host"])
    chosen, other = (r["device_runs"], r["host_runs"]) if model_device else \
        (r["host_runs"], r["device_runs"])
    if wins_device == model_device:   # the model was right: 2 probe entries, then its side
        assert (chosen, other) == (38, 2)
    else:                             # wrong: 10 entries, the probe, then the other side
        assert (chosen, other) == (10, 30)
    measured = [l for l in out.stderr.splitlines() if "(measured: " in l]
    assert len(measured) == 1 and ("device for" in measured[0]) == wins_device


def test_probe_off_keeps_the_models_choice(program, opencl_available, tmp_path):
    host_model = tmp_path / "host.json"
    host_model.write_text(json.dumps(_constant_model(False)))
    st, _ = _run(program, "no-probe", OMPCL_MODEL=str(host_model), OMPCL_PROBE="0",
                 OMPCL_FAULT="slow-host")
    assert all(r["device_runs"] == 0 for r in st["regions"])
    assert all(z["measured"] is False for r in st["regions"] for z in r["sizes"])


def test_a_probe_that_would_start_opencl_waits_for_a_long_loop(tmp_path, slow_loop):
    """With the model keeping the loop on the host and OpenCL not started, the probe waits
    until the class has spent OMPCL_PROBE_START times OpenCL's start-up (20 x 0.4 s where no
    start was measured yet): never, for this loop (40 entries, well under 8 s), so OpenCL is
    never started."""
    exe, _ = slow_loop
    model = _model_file(tmp_path, False)
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_MODEL=str(model), OMPCL_PROBE="0.001", OMPCL_STATS=str(stats),
              OMPCL_LOG="1", OMPCL_CACHE_DIR=str(tmp_path / "cache"))  # no start measured
    assert out.returncode == 0, out.stderr
    (r,) = load_stats(stats)["regions"]
    assert r["device_runs"] == 0 and r["host_runs"] == 40
    assert "ompcl: device:" not in out.stderr
