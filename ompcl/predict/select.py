"""Model selection: which learner, size, weighting, threshold and feature set to train.

Consumes a ``data.Dataset`` (the training rows of one fold, or all of them) and a search budget;
produces the ``learners.Settings`` whose models made the held-out choices with the best score in
an inner cross-validation of those rows (the share of the oracle's performance, with slowdowns
against the OpenMP host counted ``SLOWDOWN_WEIGHT`` times), and the table of every candidate's
inner score and plain oracle share. ``crossval`` runs this search inside each of its folds
(nested cross-validation), so its scores are those of the whole procedure on unseen rows, never
of a choice made by looking at them.

The candidates are ``Family``s (a learner with its depth, leaf size, weighting and feature
set), each fitted once per inner fold at its largest size: a forest's first m trees and a
boosting model's first m stages are the models of m trees, and every device threshold is
read off the same probabilities, so one fit scores several sizes and thresholds. Only tree
learners take part: whatever wins must export to the model JSON and the C the runtime walks.
Families are taken in ``SPACE``'s order (one of each learner first, cut to the sizes that
fit) while their estimated cost fits the budget: about ``SECONDS_PER_ROW`` seconds a row,
``MIN_SECONDS`` to ``MAX_SECONDS`` in all (small data cannot tell many candidates apart
anyway), shared among the searches (one on all rows, one per outer fold or block of
programs: ``crossval._chooser``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from . import export
from .data import Dataset
from .learners import Settings, matrix, weights

#: device thresholds tried on every family's probabilities
THRESHOLDS = (0.4, 0.5, 0.6, 0.7, 0.8)
#: how many times a row's slowdown against the OpenMP host counts in the search's score by
#: default (``ompcl train``'s ``--host-weight`` of ``auto``): a translated program must not be
#: slower than its original, and the oracle share alone, symmetric in gains and losses, trades
#: a 20x loss on one loop for 20x gains on others
SLOWDOWN_WEIGHT = 3.0
#: inner folds of the search
INNER_FOLDS = 3
#: candidates within this share of the best inner score count as tied; the smallest model wins
TIE = 0.002
#: estimated seconds of all the searches of ``ompcl train`` at budget 1, by rows
SECONDS_PER_ROW, MIN_SECONDS, MAX_SECONDS = 0.1, 5.0, 60.0
#: families taken whatever the budget (cut to their smallest sizes if need be)
ANCHORS = 4


@dataclass(frozen=True)
class Family:
    """One learner configuration; ``sizes``: the tree counts scored (the last one fitted)."""

    learner: str
    max_depth: int
    min_leaf: int
    weighting: str
    features: str
    sizes: tuple[int, ...] = (1,)

    def settings(self, trees: int, threshold: float, seed: int) -> Settings:
        return Settings(self.learner, trees, self.max_depth, self.min_leaf,
                        weighting=self.weighting, threshold=threshold, seed=seed,
                        features=self.features)

    def cost(self, rows: int) -> float:
        """Estimated seconds of one fit on ``rows`` rows (measured on the 2-core machine
        this project is developed on: about 1 ms per tree plus 0.5 us per row and tree)."""
        return self.sizes[-1] * (1e-3 + 5e-7 * rows) * (2.0 if self.learner == "boosting"
                                                         else 1.0)


_FOREST = (10, 25, 50)
_BOOST = (25, 50, 100, 200)
#: the search space in the order families are taken: one family of each learner first (the
#: paper's tree on its combined features), then other weightings, feature sets and depths
SPACE: tuple[Family, ...] = (
    Family("boosting", 3, 2, "cost", "all", _BOOST),
    Family("forest", 10, 1, "cost", "all", _FOREST),
    Family("extra", 10, 1, "cost", "all", _FOREST),
    Family("tree", 5, 5, "none", "combined"),
    Family("tree", 5, 5, "cost", "all"),
    Family("boosting", 3, 2, "none", "all", _BOOST),
    Family("forest", 0, 1, "none", "all", _FOREST),
    Family("boosting", 3, 2, "cost", "scale_free", _BOOST),
    Family("forest", 0, 1, "cost", "scale_free", _FOREST),
    Family("tree", 8, 2, "cost", "scale_free"),
    Family("extra", 0, 1, "none", "scale_free", _FOREST),
    Family("boosting", 4, 2, "cost", "all", _BOOST),
    Family("forest", 10, 2, "cost", "raw", _FOREST),
    Family("tree", 3, 5, "cost", "combined"),
    Family("boosting", 2, 2, "cost", "raw", _BOOST),
    Family("extra", 0, 1, "cost", "combined", _FOREST),
    Family("forest", 0, 1, "cost", "combined", _FOREST),
    Family("tree", 0, 1, "cost", "raw"),
    Family("boosting", 4, 2, "none", "scale_free", _BOOST),
    # large ensembles, for wide budgets (on the public device-mapping data, boosting of 300
    # depth-4 trees and forests of 300 unlimited trees scored best of hand-tuned settings)
    Family("boosting", 4, 2, "cost", "all", (100, 200, 300)),
    Family("boosting", 4, 2, "none", "all", (100, 200, 300)),
    Family("forest", 0, 1, "none", "all", (100, 200, 300)),
)


def _cut(fam: Family, rows: int, allowed: float) -> Family:
    """``fam`` with the sizes whose fit costs at most ``allowed`` (the smallest at least)."""
    sizes = tuple(m for m in fam.sizes if replace(fam, sizes=(m,)).cost(rows) <= allowed)
    return replace(fam, sizes=sizes or fam.sizes[:1])


def _capped(fam: Family, max_trees: int | None) -> Family:
    """``fam`` with ensembles of at most ``max_trees`` trees (that many where every size of
    the family is larger); single trees as they are."""
    if not max_trees or fam.learner == "tree":
        return fam
    sizes = tuple(m for m in fam.sizes if m <= max_trees)
    return replace(fam, sizes=sizes or (max_trees,))


def families(rows: int, searches: int, budget: float = 1.0,
             max_trees: int | None = None) -> list[Family]:
    """The families to search when ``searches`` inner searches of ``rows`` rows each must
    fit in ``budget`` times the seconds ``rows`` allow: the ``ANCHORS`` (one per learner)
    cut to fit, then ``SPACE`` in order while it fits; ensembles of at most ``max_trees``
    trees where given (a model compiled into every translated file stays small)."""
    seconds = min(max(SECONDS_PER_ROW * rows, MIN_SECONDS), MAX_SECONDS)
    allowed = budget * seconds / max(1, searches * INNER_FOLDS)
    space = list(dict.fromkeys(_capped(fam, max_trees) for fam in SPACE))
    anchors = space[:ANCHORS]
    out = [_cut(fam, rows, allowed / ANCHORS) for fam in anchors]
    spent = sum(fam.cost(rows) for fam in out)
    for fam in space[ANCHORS:]:
        if spent + fam.cost(rows) > allowed:
            break
        out.append(fam)
        spent += fam.cost(rows)
    return out


def _inner_folds(ds: Dataset, by_program: bool, seed: int) -> list[tuple[Any, Any]]:
    from sklearn.model_selection import GroupKFold, KFold, StratifiedKFold
    if by_program and ds.programs >= 2:
        return list(GroupKFold(n_splits=min(INNER_FOLDS, ds.programs)).split(
            ds.X, ds.y, groups=list(ds.groups)))
    k = min(INNER_FOLDS, len(ds))
    if min(ds.y.count(0), ds.y.count(1)) >= k:
        return list(StratifiedKFold(k, shuffle=True, random_state=seed).split(ds.X, ds.y))
    return list(KFold(k, shuffle=True, random_state=seed).split(ds.X))


def _staged(fam: Family, est: Any, X: Any) -> Iterable[tuple[int, Any]]:
    """(trees, the device's probability per row) for each of the family's sizes."""
    import numpy as np
    k = list(est.classes_).index(export.DEVICE)
    if fam.learner == "tree":
        yield 1, est.predict_proba(X)[:, k]
    elif fam.learner == "boosting":
        for m, raw in enumerate(est.staged_decision_function(X), 1):
            if m in fam.sizes:
                yield m, 1.0 / (1.0 + np.exp(-raw.ravel()))
    else:
        total = np.zeros(len(X))
        for m, tree in enumerate(est.estimators_, 1):
            total += tree.predict_proba(X)[:, k]
            if m in fam.sizes:
                yield m, total / m


def _fold_probabilities(fam: Family, ds: Dataset, train: Any, test: Any,
                        seed: int) -> dict[int, Any]:
    """{trees: device probability of each test row} of the family trained on ``train``."""
    import numpy as np
    from .learners import estimator, subset
    part = subset(ds, list(train))
    if len(set(part.y)) < 2:
        return {m: np.full(len(test), float(part.y[0])) for m in fam.sizes}
    s = fam.settings(fam.sizes[-1], 0.5, seed).resolved()
    est = estimator(s).fit(matrix(part, fam.features), list(part.y),
                           sample_weight=weights(part, s))
    return dict(_staged(fam, est, matrix(ds, fam.features)[list(test)]))


def _log_score(device: Any, t_cpu: Any, t_gpu: Any, weight: float) -> float:
    """The mean log of the oracle's share, where each row slower than on the host counts
    its slowdown ``weight`` times (the search's objective; 0 is the oracle)."""
    import numpy as np
    chosen = np.where(device, t_gpu, t_cpu)
    share = np.log(np.minimum(t_cpu, t_gpu)) - np.log(chosen)
    loss = np.maximum(np.log(chosen) - np.log(t_cpu), 0.0)
    return float(np.mean(share - (weight - 1.0) * loss))


def _size(fam: Family, trees: int, rows: int) -> float:
    """A rough node count of the model (the tie-breaker: smaller compiles in faster)."""
    leaves = rows / fam.min_leaf
    if fam.max_depth:
        leaves = min(leaves, 2.0 ** fam.max_depth)
    return trees * leaves


def search(ds: Dataset, fams: Sequence[Family], by_program: bool = False, seed: int = 0,
           weight: float = SLOWDOWN_WEIGHT) -> tuple[Settings, list[dict]]:
    """The best settings for ``ds`` by an inner cross-validation (grouped by program when
    ``by_program``), slowdowns against the host counted ``weight`` times; and every
    candidate's scores, ``[{settings, score, oracle_share}]``, best first."""
    import numpy as np
    folds = _inner_folds(ds, by_program, seed)
    t_cpu, t_gpu = np.asarray(ds.t_cpu), np.asarray(ds.t_gpu)
    table = []
    for fam in fams:
        prob = {m: np.zeros(len(ds)) for m in fam.sizes}
        for train, test in folds:
            for m, p in _fold_probabilities(fam, ds, train, test, seed).items():
                prob[m][test] = p
        for m in fam.sizes:
            for t in THRESHOLDS:
                device = prob[m] > t
                table.append({"settings": fam.settings(m, t, seed),
                              "score": math.exp(_log_score(device, t_cpu, t_gpu, weight)),
                              "oracle_share": math.exp(_log_score(device, t_cpu, t_gpu, 1.0)),
                              "size": _size(fam, m, len(ds))})
    best = max(r["score"] for r in table)
    tied = [r for r in table if r["score"] >= best - TIE]
    chosen = min(tied, key=lambda r: (r["size"], abs(r["settings"].threshold - 0.5)))
    table.sort(key=lambda r: -r["score"])
    return chosen["settings"], [{"settings": r["settings"].as_dict(), "score": r["score"],
                                 "oracle_share": r["oracle_share"]} for r in table]


def choose(ds: Dataset, fams: Sequence[Family], by_program: bool = False, seed: int = 0,
           weight: float = SLOWDOWN_WEIGHT) -> Settings:
    """``search``'s settings only (a fold's training rows in, what to train on them out);
    data of one class needs no search."""
    if len(set(ds.y)) < 2 or len(ds) < 2 * INNER_FOLDS:
        return Settings("tree", seed=seed)
    return search(ds, fams, by_program, seed, weight)[0]
