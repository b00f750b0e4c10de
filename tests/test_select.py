"""Model selection for ``ompcl train``: the folds asked for are the folds run (or the report
says why not), the nested search never sees a fold's held-out rows, whatever it picks exports
to the JSON model and to C that decides as scikit-learn does, and the public datasets' column
layout trains under 10-fold and leave-one-program-out."""
from __future__ import annotations

import csv
import json

import pytest

from ompcl.predict import crossval, data, export, learners, select, synthetic

from test_dispatch import _c_predictions, _random_rows
from test_train import ompcl, synthetic_rows, write

pytest.importorskip("sklearn")

#: small families, so that nested cross-validation runs in a second or two
SMALL = (select.Family("tree", 3, 2, "cost", "combined"),
         select.Family("forest", 0, 1, "cost", "all", (3, 6)),
         select.Family("boosting", 2, 2, "none", "scale_free", (5, 10)))


# ---- folds ----------------------------------------------------------------------------

def _rows(device: int, host: int, programs: int = 4) -> list[dict]:
    rows = synthetic_rows(programs, (device + host) // programs + 1, seed=4)[:device + host]
    for i, r in enumerate(rows):
        fast = i < device
        r["runtime_gpu"] = r["runtime_cpu"] * (0.5 if fast else 2.0)
    return rows


@pytest.mark.parametrize("device, host, k, used, stratified, note", [
    (40, 60, 10, 10, True, ""),
    (7, 93, 10, 10, True, "only 7 device-faster rows: 3 of the 10 folds hold none"),
    (3, 3, 10, 6, False, "10 folds asked, 6 rows: 6 folds of one row each; neither class"),
])
def test_folds_asked_are_run_or_the_plan_says_why(device, host, k, used, stratified, note):
    ds = data.from_rows(_rows(device, host))
    p = crossval.plan(ds, k)
    assert (p["k"], p["k_used"], p["stratified"]) == (k, used, stratified)
    assert p["note"].startswith(note) and bool(p["note"]) == bool(note)
    assert (p["device_faster"], p["host_faster"]) == (device, host)
    assert p["rows_per_program"]["max"] >= p["rows_per_program"]["min"] >= 1
    sc = crossval.evaluate(ds, learners.Settings("tree"), "stratified_kfold", k)
    assert sc["folds"] == used and sc["rows"] == device + host


def test_train_json_reports_both_ks_and_the_note(tmp_path):
    csv_file = write(tmp_path / "rows.csv", _rows(7, 93))
    res = ompcl("train", csv_file, "--json", "--learner", "tree", "--folds", "10")
    assert res.returncode == 0, res.stderr
    cv = json.loads(res.stdout)["cross_validation"]
    assert cv["k"] == cv["k_used"] == cv["stratified_kfold"]["folds"] == 10
    assert "only 7 device-faster rows" in cv["note"] and cv["note"] in res.stderr


# ---- the search -----------------------------------------------------------------------

def test_budget_scales_the_search():
    """More rows or more folds to search in take fewer families (one per learner at
    least, cut to their smaller sizes); a wider budget takes more."""
    small = select.families(200, 1)
    big = select.families(5000, 21)
    wide = select.families(5000, 21, budget=8.0)
    assert len(big) <= len(wide) and len(big) <= len(small)
    for fams in (small, big, wide):
        assert {f.learner for f in fams} == set(learners.LEARNERS)
    assert sum(len(f.sizes) for f in big) < sum(len(f.sizes) for f in wide)
    assert all(f.cost(5000) > 0 for f in wide)


def test_search_scores_every_candidate_and_picks_among_the_best():
    ds = data.from_rows(synthetic_rows(noise=0.1, seed=6))
    chosen, table = select.search(ds, SMALL, by_program=True)
    assert len(table) == sum(len(f.sizes) for f in SMALL) * len(select.THRESHOLDS)
    scores = [r["score"] for r in table]
    assert scores == sorted(scores, reverse=True) and 0 < scores[-1] <= scores[0] <= 1
    # the score counts slowdowns against the host more: never above the oracle share
    assert all(0 < r["score"] <= r["oracle_share"] <= 1 for r in table)
    best = [r for r in table if r["settings"] == chosen.as_dict()]
    assert best and best[0]["score"] >= scores[0] - select.TIE


def test_nested_selection_never_sees_held_out_rows(monkeypatch):
    """Every search inside the cross-validation runs on rows disjoint from the rows its
    settings then predict; leave-one-program-out searches once per block of programs."""
    ds = data.from_rows(synthetic_rows(12, 6, seed=8))
    seen = []
    real = select.choose

    def spy(part, fams, by_program=False, seed=0, weight=1.0):
        seen.append(set(part.names))
        return real(part, fams, by_program, seed, weight)
    monkeypatch.setattr(select, "choose", spy)
    auto = learners.Settings("auto")
    for scheme, searches in (("stratified_kfold", 5), ("leave_one_program_out", 4)):
        seen.clear()
        folds = crossval._by_program(ds) if scheme.startswith("leave") else \
            crossval._stratified(ds, crossval.plan(ds, 5), 0)
        choice, used = crossval.held_out_choices(ds, auto, list(folds), SMALL,
                                                 scheme.startswith("leave"), k=4)
        assert len(seen) == searches and set(choice) <= {0, 1}
        assert all(u.learner in learners.LEARNERS for u in used)
    # each program's settings came from a search without it
    for block in crossval.blocks(ds, 4):
        names = {ds.names[i] for i in block}
        assert sum(not (names & s) for s in seen) >= 1


def test_auto_cross_validates_a_learnable_rule_and_says_what_it_chose():
    ds = data.from_rows(synthetic_rows())
    cv = crossval.cross_validate(ds, learners.Settings("auto"), 5, SMALL)
    for scheme, folds in (("stratified_kfold", 5), ("leave_one_program_out", 30)):
        sc = cv[scheme]
        assert sc["folds"] == folds and sum(sc["chosen"].values()) == folds
        assert sc["oracle_share"] > 0.95 and sc["accuracy"] > 0.9


# ---- export of what the search may pick -----------------------------------------------

@pytest.mark.parametrize("learner, features", [("extra", "all"), ("forest", "combined"),
                                               ("boosting", "scale_free"), ("tree", "raw")])
def test_any_candidate_exports_to_c_that_agrees_with_sklearn(learner, features, tmp_path):
    """Models fitted on a feature set index the runtime's whole vector once exported."""
    ds = data.from_rows(synthetic_rows(noise=0.1, seed=1))
    s = learners.Settings(learner, trees=7, max_depth=4, features=features).resolved()
    est = learners.estimator(s).fit(learners.matrix(ds, s.features), list(ds.y))
    model = export.from_sklearn(est, learner, learners.columns(features))
    used = {f for t in model["trees"] for f in t["feature"] if f >= 0}
    assert used and used <= set(learners.columns(features))
    rows = [list(r) for r in ds.X] + _random_rows(500, 3)
    import numpy as np
    expected = [int(v) for v in est.predict(np.asarray(rows)[:, learners.columns(features)])]
    assert export.predict(model, rows) == expected
    assert _c_predictions(model, rows, tmp_path) == expected


# ---- the public layout ----------------------------------------------------------------

def test_public_layout_program_is_benchmark_before_the_last_dash(tmp_path):
    rows = synthetic.rows(programs=5, seed=2)
    path = tmp_path / "public.csv"
    synthetic.write(path, rows)
    with open(path) as fh:
        assert next(csv.reader(fh)) == list(synthetic.PUBLIC_COLUMNS)
    ds = data.load([path])
    assert ds.programs == 5 and len(ds) == len(rows)
    assert {g.rsplit("-", 1)[1] for g in ds.groups} == {f"prog{p}" for p in range(5)}
    assert all(n.split("/")[2].startswith("kernel") for n in ds.names)
    assert ds.y == tuple(int(r["oracle"] == "GPU") for r in rows)


@pytest.mark.parametrize("platform", sorted(synthetic.PLATFORMS))
def test_default_train_on_the_public_layout_runs_both_schemes(platform, tmp_path):
    rows = synthetic.rows(programs=16, seed=5, platform=platform)
    path = tmp_path / f"{platform}.csv"
    synthetic.write(path, rows)
    res = ompcl("train", path, "--json", "--budget", "0.3", "-o", tmp_path / "m.json")
    assert res.returncode == 0, res.stderr
    rep = json.loads(res.stdout)
    cv = rep["cross_validation"]
    assert cv["k"] == cv["k_used"] == 10 and cv["stratified_kfold"]["folds"] == 10
    assert cv["leave_one_program_out"]["folds"] == cv["programs"] == 16
    best_single = max(sum(r["oracle"] == "GPU" for r in rows), len(rows) // 2)
    for scheme in ("stratified_kfold", "leave_one_program_out"):
        sc = cv[scheme]
        assert sc["rows"] == len(rows) and sc["speedup_over_best_single"] > 1.0
        assert sum(sc["chosen"].values()) == sc["folds"]
    assert cv["stratified_kfold"]["accuracy"] > best_single / len(rows)
    sel = rep["selection"]
    assert rep["learner"] in learners.LEARNERS and sel["candidates"] >= len(sel["best"]) > 0
    assert sel["best"][0]["score"] - select.TIE <= sel["score"] <= sel["oracle_share"]
    model = json.loads((tmp_path / "m.json").read_text())
    export.check(model)
    assert model["learner"] == rep["learner"]


def test_a_heavier_slowdown_weight_sends_fewer_host_rows_to_the_device():
    ds = data.from_rows(synthetic_rows(noise=0.2, seed=11))
    got = {w: crossval.evaluate(ds, learners.Settings("auto", host_weight=w), "stratified_kfold",
                                5, SMALL) for w in (1.0, 20.0)}
    assert got[20.0]["host_faster_sent_to_device"] < got[1.0]["host_faster_sent_to_device"]
    assert got[20.0]["worst_slowdown_over_host"] <= got[1.0]["worst_slowdown_over_host"]
