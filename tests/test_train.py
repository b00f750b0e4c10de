"""Training dispatch models: ``ompcl train`` on CSV files in the public device-mapping layout
(learners, cross-validation scores, errors, --json, the model file's metadata), the scores
themselves, models compiled into programs (and replaced at run time by OMPCL_MODEL), the
training-data collection end to end, and the dispatch-overhead benchmark."""
from __future__ import annotations

import csv
import json
import math
import random
import re
import subprocess
import sys

import pytest

from ompcl.bench import collect, corpus, dispatch
from ompcl.predict import data, export, learners, metrics, model as model_file, schema, train

from conftest import ROOT, compare_outputs, gcc_build, load_stats, ompcl_build, run

pytest.importorskip("sklearn")

PUBLIC = ["benchmark", "dataset", "kernel", "comp", "mem", "localmem", "coalesced", "atomic",
          "transfer", "wgsize", "runtime_cpu", "runtime_gpu"]


def _rule(r: dict) -> bool:
    """The synthetic truth: compute-heavy kernels with little data to move run faster on the
    device."""
    return r["comp"] / r["mem"] > 4 and r["transfer"] < 1e6


def synthetic_rows(n_programs: int = 30, per: int = 8, seed: int = 0, noise: float = 0.0,
                   rule=_rule) -> list[dict]:
    rnd = random.Random(seed)
    rows = []
    for b in range(n_programs):
        for k in range(per):
            r = {"benchmark": f"prog{b}", "dataset": "default", "kernel": f"k{k}",
                 "comp": rnd.randint(1, 200), "mem": rnd.randint(1, 50), "localmem": 0,
                 "atomic": 0, "transfer": rnd.choice([1e3, 1e5, 1e7]), "wgsize": 64,
                 "work_items": rnd.choice([200, 900, 9000, 60000])}
            r["coalesced"] = rnd.randint(0, r["mem"])
            cpu = (r["comp"] + r["mem"]) * 1e-6 * rnd.uniform(0.9, 1.1)
            device = rule(r) != (rnd.random() < noise)
            r.update(runtime_cpu=cpu, runtime_gpu=cpu * (rnd.uniform(0.2, 0.6) if device
                                                         else rnd.uniform(1.5, 4.0)))
            rows.append(r)
    return rows


def write(path, rows, columns=PUBLIC, extra: bool = True):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(columns) + (["notes"] if extra else []))
        for r in rows:
            w.writerow([r.get(c, 0) for c in columns] + (["ignored, text"] if extra else []))
    return path


def ompcl(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ompcl.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, **kw)


# ---- data -----------------------------------------------------------------------------

def test_public_layout_extra_columns_ignored_and_optional_features_zero(tmp_path):
    rows = synthetic_rows(3, 4)
    a = data.load([write(tmp_path / "a.csv", rows)])
    # the same values with our extra columns, reordered, plus an unrelated one
    cols = list(reversed(PUBLIC)) + ["source"]
    b = data.load([write(tmp_path / "b.csv", rows, cols)])
    assert a.digest == b.digest and a.X == b.X and a.y == b.y
    assert len(a) == 12 and a.programs == 3
    f = dict(zip(schema.FEATURES, a.X[0]))
    assert f["branches"] == 0 and f["work_items"] == 0     # absent: 0
    assert a.X[0] == schema.full(rows[0] | {"work_items": 0})
    assert a.y == tuple(int(r["runtime_gpu"] < r["runtime_cpu"]) for r in rows)
    with_wi = data.load([write(tmp_path / "c.csv", rows, PUBLIC + ["work_items"])])
    assert with_wi.X[0][schema.FEATURES.index("work_items")] == rows[0]["work_items"]
    assert with_wi.digest != a.digest


@pytest.mark.parametrize("text, message", [
    ("benchmark,comp\nx,1\n", "lacks the required column(s) dataset, mem"),
    ("", "is empty"),
    (",".join(PUBLIC) + "\n" + "b,d,k,1,2,0,0,0,0,64,x,1\n", "b.csv:2: column 'runtime_cpu' is "
     "not a number: 'x'"),
    (",".join(PUBLIC) + "\n" + "b,d,k,1,2,0,0,0,0,64,1,0\n", "'runtime_gpu' must be a positive"),
    (",".join(PUBLIC) + "\n", "no training rows"),
])
def test_bad_training_data_is_one_clear_error(tmp_path, text, message):
    bad = tmp_path / "b.csv"
    bad.write_text(text)
    res = ompcl("train", bad, "-o", tmp_path / "m.json")
    assert res.returncode == 1
    assert res.stderr.startswith("ompcl: error: ") and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("args, message", [
    (["--learner", "svm"], "unknown learner 'svm' (choose tree, forest, extra, boosting, auto)"),
    (["--features", "logs"], "unknown feature set 'logs' (choose all, raw, combined, scale_free)"),
    (["--budget", "0"], "--budget must be positive"),
    (["--threshold", "1.5"], "threshold must lie strictly between 0 and 1"),
    (["--weighting", "odd"], "unknown weighting 'odd'"),
])
def test_bad_options_are_usage_errors(tmp_path, args, message):
    csv_file = write(tmp_path / "d.csv", synthetic_rows(2, 2))
    res = ompcl("train", csv_file, *args)
    assert res.returncode == 2 and res.stderr.startswith(f"ompcl: error: {message}")
    assert len(res.stderr.strip().splitlines()) == 1


def test_missing_file(tmp_path):
    res = ompcl("train", tmp_path / "nope.csv")
    assert res.returncode == 1
    assert "cannot read training data" in res.stderr and "Traceback" not in res.stderr


# ---- scores ---------------------------------------------------------------------------

def test_scores_of_a_hand_made_case():
    t_cpu = [1.0, 1.0, 4.0, 2.0]
    t_gpu = [2.0, 0.5, 1.0, 4.0]           # truth: host, device, device, host
    sc = metrics.score([0, 1, 0, 1], t_cpu, t_gpu)
    assert sc["confusion"] == [[1, 1], [1, 1]] and sc["accuracy"] == 0.5
    assert sc["host_faster_sent_to_device"] == 1 and sc["device_faster_kept_on_host"] == 1
    picked = [1.0, 0.5, 4.0, 4.0]
    oracle = [1.0, 0.5, 1.0, 2.0]
    # best single: the device (geometric mean 1 vs 1.68 on the host... 2*0.5*1*4 < 1*1*4*2)
    assert sc["best_single"] == "device"
    g = lambda xs: math.prod(xs) ** (1 / len(xs))  # noqa: E731
    assert sc["speedup_over_best_single"] == pytest.approx(g([a / b for a, b in
                                                              zip(t_gpu, picked)]))
    assert sc["oracle_share"] == pytest.approx(g([a / b for a, b in zip(oracle, picked)]))
    assert sc["speedup_over_host"] == pytest.approx(g([a / b for a, b in zip(t_cpu, picked)]))
    assert sc["worst_slowdown_over_host"] == 2.0
    perfect = metrics.score([0, 1, 1, 0], t_cpu, t_gpu)
    assert perfect["accuracy"] == 1 and perfect["oracle_share"] == pytest.approx(1.0)


@pytest.mark.parametrize("learner", learners.LEARNERS)
def test_learnable_rule_cross_validates_well(learner):
    ds = data.from_rows(synthetic_rows())
    s = learners.Settings(learner)
    cv = train.crossval.cross_validate(ds, s)
    for scheme in ("stratified_kfold", "leave_one_program_out"):
        sc = cv[scheme]
        assert sc["rows"] == len(ds) == sum(map(sum, sc["confusion"]))
        assert sc["accuracy"] >= 0.95, (scheme, sc)
        assert 0.95 <= sc["oracle_share"] <= 1.0
        assert sc["speedup_over_best_single"] > 1.2   # both devices win somewhere
    assert cv["stratified_kfold"]["folds"] == 10
    assert cv["leave_one_program_out"]["folds"] == ds.programs == 30
    assert set(cv["leave_one_program_out"]["per_program"]) == set(ds.groups)


def test_random_labels_are_not_learnable():
    """The scores measure held-out rows: coin-flip labels give coin-flip accuracy."""
    rnd = random.Random(3)
    rows = synthetic_rows(rule=lambda r: rnd.random() < 0.5)
    cv = train.crossval.cross_validate(data.from_rows(rows), learners.Settings("forest"))
    assert 0.3 < cv["stratified_kfold"]["accuracy"] < 0.7
    assert 0.3 < cv["leave_one_program_out"]["accuracy"] < 0.7


def test_cost_sensitive_training_sends_fewer_host_rows_to_the_device():
    ds = data.from_rows(synthetic_rows(noise=0.15, seed=5))
    plain = train.crossval.evaluate(ds, learners.Settings("forest"), "stratified_kfold")
    careful = train.crossval.evaluate(ds, learners.Settings("forest", host_weight=4.0),
                                      "stratified_kfold")
    strict = train.crossval.evaluate(ds, learners.Settings("forest", threshold=0.8),
                                     "stratified_kfold")
    assert careful["host_faster_sent_to_device"] < plain["host_faster_sent_to_device"]
    assert strict["host_faster_sent_to_device"] < plain["host_faster_sent_to_device"]
    # the price: more device-faster rows kept on the host
    assert careful["device_faster_kept_on_host"] >= plain["device_faster_kept_on_host"]


@pytest.mark.parametrize("learner", learners.LEARNERS)
def test_threshold_moves_the_exported_decision(learner):
    """A higher threshold never sends more rows to the device, in Python and in the C the
    model becomes (the same predictions: checked against scikit-learn in test_dispatch)."""
    ds = data.from_rows(synthetic_rows(noise=0.2, seed=2))
    X = list(ds.X)
    low = export.predict(learners.fit(ds, learners.Settings(learner, threshold=0.2)), X)
    mid = export.predict(learners.fit(ds, learners.Settings(learner)), X)
    high = export.predict(learners.fit(ds, learners.Settings(learner, threshold=0.8)), X)
    assert all(a >= b >= c for a, b, c in zip(low, mid, high))
    assert sum(low) > sum(high)


# ---- the command and the model file ---------------------------------------------------

def test_train_command_writes_a_self_describing_model(tmp_path):
    rows = synthetic_rows()
    csv_file = write(tmp_path / "rows.csv", rows)
    (tmp_path / "rows.meta.json").write_text(json.dumps(
        {"platform": {"opencl_device": "test device"}, "load_average": {"start": [0.5]},
         "repeats": 3}))
    out = tmp_path / "m.json"
    res = ompcl("train", csv_file, "-o", out, "--learner", "tree", "--host-weight", "2")
    assert res.returncode == 0, res.stderr
    assert "stratified 10-fold" in res.stdout and "leave-one-program-out" in res.stdout
    assert f"wrote {out}" in res.stdout
    m = model_file.load(out)                      # loads and checks
    meta = m["metadata"]
    assert meta["schema"] == {"version": schema.VERSION, "features": list(schema.FEATURES)}
    assert meta["learner"] == m["learner"] == "tree"
    assert meta["settings"]["host_weight"] == 2.0 and meta["settings"]["max_depth"] == 5
    td = meta["training_data"]
    assert td["rows"] == len(rows) and td["programs"] == 30 and td["files"] == ["rows.csv"]
    assert td["sha256"] == data.from_rows(data.read_rows(csv_file)).digest
    assert td["device_faster"] == sum(_rule(r) for r in rows)
    assert meta["platform"] == {"opencl_device": "test device"}
    assert meta["measurement"][0]["repeats"] == 3
    for scheme in ("stratified_kfold", "leave_one_program_out"):
        assert meta["cross_validation"][scheme]["accuracy"] >= 0.95
    assert meta["size"]["trees"] == 1 and meta["size"]["max_depth"] <= 5
    assert meta["command"].startswith("ompcl train ")
    # the report's numbers are the metadata's
    acc = meta["cross_validation"]["leave_one_program_out"]["accuracy"]
    assert f"{acc:.1%}" in res.stdout


def test_auto_search_caps_ensembles_at_trees():
    """``--trees N`` with the auto learner: every ensemble the search scores has at most N
    trees (the shipped model is compiled into every translated file); single trees stay."""
    from ompcl.predict import select
    capped = select.families(2000, 1, budget=8.0, max_trees=20)
    assert capped and all(max(f.sizes) <= 20 for f in capped if f.learner != "tree")
    assert {f.learner for f in capped} >= {"tree", "forest", "boosting"}
    assert any(max(f.sizes) > 20 for f in select.families(2000, 1, budget=8.0))


def test_train_auto_with_a_tree_cap(tmp_path):
    csv_file = write(tmp_path / "rows.csv", synthetic_rows(12, 6))
    out = tmp_path / "m.json"
    res = ompcl("train", csv_file, "--trees", "3", "--no-cv", "-o", out)
    assert res.returncode == 0, res.stderr
    assert json.loads(out.read_text())["metadata"]["size"]["trees"] <= 3
    bad = ompcl("train", csv_file, "--trees", "0")
    assert bad.returncode == 2 and "trees must be at least 1" in bad.stderr


def test_train_json(tmp_path):
    csv_file = write(tmp_path / "rows.csv", synthetic_rows(12, 6))
    res = ompcl("train", csv_file, "--json", "--learner", "boosting", "--trees", "10",
                "--platform", "my laptop", "--folds", "4")
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    assert rep["output"] is None and rep["platform"] == "my laptop"
    assert rep["size"]["trees"] == 10 and rep["learner"] == "boosting"
    kf = rep["cross_validation"]["stratified_kfold"]
    assert kf["folds"] == 4 and len(kf["confusion"]) == 2
    assert set(kf) >= {"accuracy", "speedup_over_best_single", "oracle_share", "confusion"}
    assert rep["cross_validation"]["leave_one_program_out"]["folds"] == 12


def test_default_model_is_self_describing():
    m = model_file.default()
    if m is None:
        pytest.skip("no models/default.json in this checkout")
    meta = m["metadata"]
    assert meta["schema"]["features"] == list(schema.FEATURES)
    assert meta["training_data"]["rows"] > 100 and len(meta["training_data"]["sha256"]) == 64
    platforms = meta["platform"] if isinstance(meta["platform"], list) else [meta["platform"]]
    assert all(p["opencl_device"] for p in platforms) and meta["measurement"]
    assert meta["cross_validation"]["leave_one_program_out"]["accuracy"] > 0.5
    assert meta["size"]["trees"] <= 20          # compiled into every translated file


# ---- models in programs ---------------------------------------------------------------

SIZES = r"""#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int sizes[2] = {1000, 20000}, k, i;
  double *a = malloc(sizeof(double) * 20000), s = 0.0;
  for (k = 0; k < 2; k++) {
    int n = sizes[k];
#pragma omp parallel for
    for (i = 0; i < n; i++) a[i] = 0.5 * i + k;
    s += a[n - 1];
  }
  printf("%.3f\n", s);
  free(a);
  return 0;
}
"""


def _size_rows(device_when_large: bool) -> list[dict]:
    """Rows where only the problem size decides: small (<= 1100 work-items) vs large (>= 8000)."""
    rnd = random.Random(1)
    rows = []
    for b in range(20):
        for wi in (100, 500, 1100, 8000, 30000, 100000):
            r = {"benchmark": f"p{b}", "dataset": "d", "kernel": "k", "comp": rnd.randint(0, 9),
                 "mem": rnd.randint(1, 9), "localmem": 0, "coalesced": 1, "atomic": 0,
                 "transfer": 0, "wgsize": 128, "work_items": wi}
            fast_device = (wi > 4000) == device_when_large
            r.update(runtime_cpu=1e-4, runtime_gpu=5e-5 if fast_device else 2e-4)
            rows.append(r)
    return rows


def _decisions(stats: dict) -> dict[int, str]:
    return {z["work_items"]: "device" if z["device_runs"] else "host"
            for z in stats["regions"][0]["sizes"]}


def test_compiled_in_model_decides_and_OMPCL_MODEL_overrides(tmp_path, opencl_available):
    cols = PUBLIC + ["work_items"]
    for name, large in (("large", True), ("small", False)):
        csv_file = write(tmp_path / f"{name}.csv", _size_rows(large), cols)
        res = ompcl("train", csv_file, "-o", tmp_path / f"{name}.json", "--learner", "tree",
                    "--no-cv")
        assert res.returncode == 0, res.stderr
    src = tmp_path / "sizes.c"
    src.write_text(SIZES)
    gcc_build(src, tmp_path / "ref")
    exe = tmp_path / "prog"
    res = ompcl_build([src], exe, "--model", str(tmp_path / "large.json"), keep=tmp_path / "out")
    assert res.returncode == 0, res.stderr
    host_c = (tmp_path / "out" / "sizes_host.c").read_text()
    assert "static int ompcl_model(const double *f, int n)" in host_c
    assert "OMPCL_GLUE static int ompcl_model(const double *f, int n)" in host_c
    table = re.search(r"ompcl_model_feature\[\] = \{([^}]*)\}", host_c)[1]
    assert "7" in table.replace(",", " ").split()  # the tree tests work_items
    if not opencl_available:
        pytest.skip("no OpenCL device: decisions not run")
    expected = run(tmp_path / "ref").stdout
    for env, want in (({}, {1000: "host", 20000: "device"}),
                      ({"OMPCL_MODEL": str(tmp_path / "small.json")},
                       {1000: "device", 20000: "host"})):
        stats = tmp_path / "stats.json"
        out = run(exe, OMPCL_STATS=str(stats), **env)
        assert out.returncode == 0, out.stderr
        compare_outputs(expected, out.stdout, 1e-12)
        st = load_stats(stats)
        assert st["model"] == env.get("OMPCL_MODEL", "compiled-in")
        assert _decisions(st) == want


# ---- collection -----------------------------------------------------------------------

def test_scaled_source_scales_the_volume():
    text = "#define N 100\n#define M 30\nint a[N][M];\n#define NAME_ONLY\n"
    out = corpus.scaled_source(text, 16)
    assert "#define N 400\n#define M 120\n" in out and "#define NAME_ONLY" in out
    assert corpus.scaled_source("int n = 5;\n", 16) is None
    assert corpus.scaled_source(text, 1) is None


def test_aggregate_takes_medians_and_drops_tiny_regions():
    def row(kernel, cpu, gpu):
        return {"benchmark": "b", "dataset": "d", "kernel": kernel, "work_items": 100,
                "runtime_cpu": cpu, "runtime_gpu": gpu}
    reps = [[row("k", 1e-3, 2e-3), row("tiny", 1e-7, 2e-7)],
            [row("k", 3e-3, 1e-3), row("tiny", 1e-7, 2e-7)],
            [row("k", 2e-3, 1.5e-3)]]
    rows, dropped = collect.aggregate(reps, "corpus", 1.5, 1e-5)
    assert dropped == 0 and [r["kernel"] for r in rows] == ["k"]   # tiny: not in every repeat
    (r,) = rows
    assert r["runtime_cpu"] == 2e-3 and r["runtime_gpu"] == 1.5e-3
    assert r["agree"] == pytest.approx(2 / 3, abs=1e-3) and r["repeats"] == 3 and r["load"] == 1.5
    rows, dropped = collect.aggregate(reps[:2], "corpus", 0.0, 1e-5)
    assert dropped == 1 and len(rows) == 1


def test_same_output_tolerances():
    assert collect.same_output("a 1.0000001 3", "a 1.0000002 3", 1e-6)
    assert not collect.same_output("a 1.0 3", "a 1.1 3", 1e-6)
    assert not collect.same_output("a 1 3", "a 1 4", 1e-6)
    assert collect.same_output("0.01 2.00", "0.00 2.00", 1e-6, 0.011)   # 2-decimal dumps


def test_collect_then_train_end_to_end(tmp_path, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device: nothing to measure on the device")
    out = tmp_path / "rows.csv"
    res = subprocess.run(
        [sys.executable, "-m", "ompcl.bench.collect", "-o", str(out), "--sources", "corpus",
         "--only", "corpus-01_saxpy_float,corpus-04_int_reductions", "--corpus-scales", "1,16",
         "--repeats", "2", "--work", str(tmp_path / "work"), "-q"],
        capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    meta = json.loads((tmp_path / "rows.meta.json").read_text())
    # 01 has no #define sizes: measured at its own size only
    assert meta["variants"]["measured"] == 3 and not meta["variants"]["skipped"]
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == meta["rows"] >= 4
    assert {r["benchmark"] for r in rows} == {"corpus-01_saxpy_float", "corpus-04_int_reductions"}
    assert {r["dataset"] for r in rows if "04_int" in r["benchmark"]} == {"x1", "x16"}
    for r in rows:
        assert float(r["runtime_cpu"]) > 0 and float(r["runtime_gpu"]) > 0
        assert r["repeats"] == "2" and r["source"] == "corpus" and r["threads"] == "2"
    assert meta["platform"]["opencl_device"] and meta["env"]["OMP_PROC_BIND"] == "true"
    assert len(meta["load_average"]["start"]) == 3
    model = tmp_path / "m.json"
    res = ompcl("train", out, "-o", model, "--learner", "tree")
    assert res.returncode == 0, res.stderr
    m = model_file.load(model)["metadata"]
    assert m["training_data"]["rows"] == len(rows) and m["training_data"]["programs"] == 2
    assert m["platform"] == meta["platform"] and m["measurement"][0]["env"] == meta["env"]


def test_dispatch_benchmark_measures_cached_host_decisions(opencl_available):
    res = subprocess.run([sys.executable, "-m", "ompcl.bench.dispatch", "--calls", "3000",
                          "--rounds", "1", "--model", "none", "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    c = rep["check"]
    # a model that says host whatever the device decides before OpenCL starts
    assert not c["device_started"] and c["device_runs"] == 0
    assert c["decisions_host"] == c["entries"] > 0
    (r,) = rep["runs"]
    assert set(r["median_ns"]) == {name for name, _, _ in dispatch.CONFIGS}
    assert all(ns > 0 for ns in r["median_ns"].values())


def test_dispatch_benchmark_whole_programs(opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device: the device runs cannot be measured")
    res = subprocess.run([sys.executable, "-m", "ompcl.bench.dispatch", "--nas", "S",
                          "--benchmarks", "is", "--repeats", "1", "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    assert not rep["failed"] and rep["model"] == ""      # the default model
    (p,) = rep["programs"]
    assert (p["benchmark"], p["class"], p["regions"]) == ("is", "S", 2)
    m = p["median_s"]
    assert set(m) == {"original", "host", "device", "model", "auto", "oracle", "program_oracle"}
    assert m["program_oracle"] == min(m["original"], m["device"])
    assert p["program_oracle_share"] == pytest.approx(m["program_oracle"] / m["auto"])
    assert all(t > 0 for t in m.values())
    # the oracle is estimated from the host run, never above it
    assert m["oracle"] <= m["host"] and 0 < p["oracle_share"] <= 1
    assert p["auto_over_original"] == pytest.approx(m["auto"] / m["original"])
