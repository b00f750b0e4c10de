"""Training rows written by the benchmarks: one row per distinct feature vector, always with
the ``.meta.json`` that ``ompcl train`` reads (platform, device, compilers, OpenMP settings),
and the third-party programs of ``shared/thirdparty/cases.txt`` as a source of kernels."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ompcl.bench import cases, collect, corpus, machine, nas, rows
from ompcl.predict import data, train

from conftest import ROOT
from test_train import ompcl, synthetic_rows, write


def test_dedupe_merges_equal_features_with_median_times():
    base = synthetic_rows(2, 3, seed=9)
    twin = [dict(base[0], benchmark="other", kernel="copy", runtime_cpu=t, runtime_gpu=2 * t)
            for t in (5.0, 7.0)]
    out = rows.dedupe(base + twin)
    assert len(out) == len(base)
    first = out[0]
    assert (first["benchmark"], first["kernel"]) == (base[0]["benchmark"], base[0]["kernel"])
    assert first["runtime_cpu"] == 5.0 and first["duplicates"] == 2   # median of 3 values
    assert [r["kernel"] for r in out[1:]] == [r["kernel"] for r in base[1:]]
    assert all(r["duplicates"] == 0 for r in out[1:])
    # work-items are a feature: the same loop at another size is another row
    resized = dict(base[0], work_items=base[0]["work_items"] * 2)
    assert len(rows.dedupe([base[0], resized])) == 2

    # the same loop at another OpenMP thread count is another measurement
    assert len(rows.dedupe([dict(base[0], threads=1), dict(base[0], threads=2)])) == 2
    assert len(rows.dedupe([dict(base[0], threads=2), dict(base[0], threads=2)])) == 1


def test_collect_measures_each_variant_at_each_thread_count(tmp_path, monkeypatch):
    args = collect.parse_args(["-o", "x.csv", "--threads", "1,2"])
    assert args.threads == (1, 2)
    with pytest.raises(SystemExit):
        collect.parse_args(["-o", "x.csv", "--threads", "0"])
    v = corpus.Variant("corpus-a", "x16", "corpus", tmp_path / "prog", (), tmp_path)
    seen = []

    def measure(var, plan, threads):
        seen.append((var.name, threads))
        row = dict(synthetic_rows(1, 1)[0], benchmark=var.benchmark, dataset=var.dataset,
                   threads=threads)
        return collect.Outcome(var.name, rows=[row], load=[0.5])
    monkeypatch.setattr(collect, "measure", measure)
    plan = collect.Plan(tmp_path, threads=(1, 2))
    outs = collect.measure_all([v], plan, resume=False, quiet=True)
    assert seen == [("corpus-a.x16-1t", 1), ("corpus-a.x16-2t", 2)]
    kept = rows.dedupe([r for o in outs for r in o.rows])
    assert [(r["dataset"], r["threads"]) for r in kept] == [("x16-1t", 1), ("x16-2t", 2)]
    one = collect.Plan(tmp_path)                  # one count: the dataset is the size alone
    assert collect.with_threads(v, 2, one) is v and one.threads == (2,)
    meta = collect.metadata(outs, plan, "start", {"start": [0, 0, 0]}, ["collect"])
    assert meta["threads"] == [1, 2] and meta["env"]["OMP_NUM_THREADS"] == "1,2"


def test_collect_assemble_writes_the_rows_measured_so_far(tmp_path, monkeypatch):
    """--assemble: a stopped (or running) collection's results become rows; the rest is
    listed as not measured; nothing is built or run."""
    vs = [corpus.Variant(f"corpus-{n}", "x1", "corpus", tmp_path / n, (), tmp_path)
          for n in ("a", "b")]
    monkeypatch.setattr(collect, "variants", lambda args, work: vs)
    monkeypatch.setattr(collect, "build_all", lambda *a: pytest.fail("built"))
    (tmp_path / "results").mkdir()
    row = dict(synthetic_rows(1, 1)[0], benchmark="corpus-a", dataset="x1", threads=2)
    (tmp_path / "results" / "corpus-a.x1.json").write_text(json.dumps(
        collect.Outcome("corpus-a.x1", rows=[row], load=[0.5]).__dict__))
    out = tmp_path / "rows.csv"
    meta = collect.collect(collect.parse_args(["-o", str(out), "--work", str(tmp_path),
                                               "--assemble"]), tmp_path, ["collect"])
    assert meta["rows"] == 1 and meta["variants"]["skipped"] == {
        "corpus-b.x1": "not measured (--assemble)"}
    assert [r["benchmark"] for r in data.read_rows(out)] == ["corpus-a"]
    with pytest.raises(SystemExit):
        collect.parse_args(["-o", str(out), "--assemble"])       # needs --work

def test_written_metadata_is_what_train_reports(tmp_path):
    csv_file = write(tmp_path / "rows.csv", synthetic_rows(6, 4), extra=False)
    where = {"opencl_platform": "P", "opencl_device": "D", "host_cpu": "C", "cores": 2,
             "openmp_threads": "2"}
    meta = rows.write_meta(csv_file, {"platform": where, "repeats": 2,
                                      "env": {"OMP_WAIT_POLICY": "passive"}})
    assert meta == train.meta_path(csv_file) and meta.name == "rows.meta.json"
    res = ompcl("train", csv_file, "--json", "--learner", "tree", "--no-cv")
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    assert rep["platform"] == where
    assert rep["measurement"][0]["env"] == {"OMP_WAIT_POLICY": "passive"}


def test_nas_training_metadata_names_device_compiler_and_openmp(tmp_path):
    plan = nas.make_plan(["--classes", "S", "--benchmarks", "is", "--threads", "1,2",
                          "--wait-policy", "active", "-o", str(tmp_path)])
    env = machine.finish(machine.describe(plan.omp_env, plan.threads, plan.extra_env,
                                          ["gcc"], None))
    env["opencl"] = {"platform": "P", "device": "D", "zero_copy": True}
    kept = rows.dedupe(synthetic_rows(3, 2))
    meta = nas.training_meta(plan, env, kept, 1)
    assert meta["platform"]["opencl_device"] == "D" and meta["platform"]["cores"] >= 1
    assert meta["env"]["OMP_NUM_THREADS"] == "1,2"
    assert meta["env"]["OMP_WAIT_POLICY"] == "active" and meta["env"]["OMP_PROC_BIND"] == "true"
    assert meta["compilers"]["gcc"].startswith("gcc")
    assert (meta["rows"], meta["programs"], meta["duplicates_merged"]) == (6, 3, 1)
    assert meta["command"].startswith("ompcl bench nas --classes S")


def test_bench_nas_rows_come_with_metadata_train_reads(tmp_path, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device: no training rows")
    out = tmp_path / "nas"
    res = subprocess.run(["python", "-m", "ompcl.cli", "bench", "nas", "--classes", "S",
                          "--benchmarks", "is", "--repeats", "1", "--threads", "2",
                          "--variants", "omp,ocl", "--no-plots", "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    meta = json.loads((out / "training_rows.meta.json").read_text())
    assert meta["platform"]["opencl_device"] and meta["env"]["OMP_WAIT_POLICY"] == "passive"
    ds = data.load([out / "training_rows.csv"])
    assert meta["rows"] == len(ds) == len(set(ds.X))       # distinct features
    rep = json.loads(ompcl("train", out / "training_rows.csv", "--json", "--learner", "tree",
                           "--no-cv").stdout)
    assert rep["platform"] == meta["platform"]


def test_bench_nas_corpus_rows_join_the_training_rows(tmp_path, monkeypatch):
    """--corpus runs bench.collect over every source but NAS (replaced here by two rows, one
    with the features of the other) and merges its rows into the training rows."""
    seen = {}
    extra = synthetic_rows(1, 1, seed=3)
    extra.append(dict(extra[0], kernel="twin", runtime_cpu=1.0))

    def gather(args, work, argv):
        seen.update(sources=args.sources, fuzz=args.fuzz, repeats=args.repeats)
        return rows.dedupe(extra), {"rows": 1, "command": " ".join(argv)}
    monkeypatch.setattr(collect, "gather", gather)
    out = tmp_path / "nas"
    status = nas.main(["--classes", "S", "--benchmarks", "ep", "--variants", "omp",
                       "--repeats", "1", "--threads", "1", "--no-plots", "--corpus",
                       "--fuzz", "3", "-o", str(out)])
    assert status == 0
    assert seen == {"sources": "corpus,polybench,thirdparty,fuzz", "fuzz": 3, "repeats": 1}
    meta = json.loads((out / "training_rows.meta.json").read_text())
    assert meta["corpus"]["rows"] == 1 and "--fuzz 3" in meta["corpus"]["command"]
    written = data.read_rows(out / "training_rows.csv")
    assert [r["kernel"] for r in written] == [extra[0]["kernel"]]   # no ocl runs: no NAS rows
    assert meta["rows"] == 1


# ---- the third-party programs -----------------------------------------------------------

def _case(run: str, rc: tuple[int, ...]) -> cases.Case:
    return cases.Case("t", "suite/x", "gcc -O2 a.c -o a", run, "out:.", "exact", rc)


@pytest.mark.parametrize("status, allowed, expect", [(0, (0,), 0), (1, (1,), 0),
                                                      (2, (1,), 2), (1, (0,), 1)])
def test_runner_maps_allowed_statuses_to_success(tmp_path, status, allowed, expect):
    script = tmp_path / "run.sh"
    script.write_text(cases.runner(_case(f"echo hi; exit {status}", allowed), tmp_path))
    script.chmod(0o755)
    res = subprocess.run([str(script)], capture_output=True, text=True)
    assert res.returncode == expect and res.stdout == "hi\n"


def test_build_command_puts_the_compiler_in_gccs_place():
    c = cases.Case("n", "npb", "make cg CC=gcc CLINK=gcc && gcc-12 -v && /usr/bin/gcc x.c",
                   "", "", "exact")
    assert cases.build_command(c, Path("/w/cc")) == \
        "make cg CC=/w/cc CLINK=/w/cc && gcc-12 -v && /usr/bin/gcc x.c"
    assert cases.build_command(c, None) == c.build


def test_cases_file_programs_and_variants(tmp_path):
    root = cases.find_root()
    if root is None:
        pytest.skip("no shared/thirdparty/cases.txt beside this checkout")
    found = {c.name: c for c in cases.read(root)}
    assert found["rsbench_event"].allowed_rc == (1,)
    assert "rc:" not in found["rsbench_event"].compare
    progs = {n: cases.program(c, list(found.values())) for n, c in found.items()}
    assert progs["rsbench_event"] == progs["rsbench_history"]      # one program, two inputs
    assert progs["npb3c_cg"] != progs["npb3c_is"]
    vs = corpus.thirdparty_variants(tmp_path)
    assert {v.dataset for v in vs} == set(found)
    assert {v.benchmark for v in vs} == set(progs.values())
    assert all(v.check == "case" and v.build[:2] == ("sh", "-c") for v in vs)
    assert not any((tmp_path / "thirdparty" / n / "test").exists() for n in found)  # built later
