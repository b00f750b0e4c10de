"""The public device-mapping layout (Cummins et al.'s 680-kernel files: no ``kernel``, ``branches``
or ``work_items`` column, program and kernel joined in ``benchmark``): a test set of those
columns built from this project's own rows loads with the same programs and labels, and
``ompcl train``'s default (nested model selection) runs on it unchanged."""
from __future__ import annotations

import csv
import json

import pytest

from ompcl.predict import crossval, data, learners, train

from conftest import ROOT
from test_train import ompcl

pytest.importorskip("sklearn")

OWN_ROWS = ROOT / "models" / "default-rows.csv"


def _public_csv(path, rows):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(data.PUBLIC_COLUMNS))
        w.writeheader()
        w.writerows(data.public_rows(rows))
    return path


def test_public_layout_of_own_rows_keeps_programs_and_labels(tmp_path):
    own = data.read_rows(OWN_ROWS)
    path = _public_csv(tmp_path / "public.csv", own)
    with open(path) as fh:
        header = next(csv.reader(fh))
    assert "kernel" not in header and "work_items" not in header
    pub, mine = data.load([path]), data.from_rows(own)
    assert len(pub) == len(mine) and pub.y == mine.y
    assert pub.groups == mine.groups                  # the program comes back from benchmark
    i = data.schema.FEATURES.index("work_items")
    assert all(x[i] == 0 for x in pub.X)              # absent in the public layout


def test_default_training_runs_on_the_public_layout(tmp_path):
    """``auto`` (the default) on a public-layout file: nested selection inside honest folds."""
    own = data.read_rows(OWN_ROWS)
    programs = sorted({r["benchmark"] for r in own})[::4]
    path = _public_csv(tmp_path / "public.csv", [r for r in own if r["benchmark"] in programs])
    m = train.train([path], learners.Settings(learners.AUTO, host_weight=3.0), folds=5,
                    budget=0.3)["metadata"]
    cv = m["cross_validation"]
    assert cv["k"] == 5 and cv["k_used"] == 5
    for scheme in crossval.SCHEMES:
        assert 0 < cv[scheme]["oracle_share"] <= 1
        assert set(cv[scheme]["chosen"]) and sum(cv[scheme]["chosen"].values()) == \
            cv[scheme]["folds"]
    assert m["learner"] in learners.LEARNERS and m["selection"]["candidates"] > 1


def test_train_threads_option_selects_rows(tmp_path):
    own = data.read_rows(OWN_ROWS)[:60]
    path = tmp_path / "rows.csv"
    cols = list(data.schema.ROW_COLUMNS) + ["threads"]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for i, r in enumerate(own):
            w.writerow({**r, "threads": 1 + i % 2})
    rep = json.loads(ompcl("train", path, "--json", "--learner", "tree", "--no-cv",
                           "--threads", "2").stdout)
    assert rep["training_data"]["rows"] == 30 and rep["training_data"]["threads"] == 2
    res = ompcl("train", path, "--learner", "tree", "--no-cv", "--threads", "4")
    assert res.returncode == 1 and "no rows measured with 4 OpenMP threads" in res.stderr \
        and "(they have 1, 2)" in res.stderr
