"""Cross-validation of a learner on a dataset: stratified k-fold and leave-one-program-out.

Consumes a ``data.Dataset`` and ``learners.Settings``; produces, per scheme, the scores of the
held-out choices pooled over all folds (``metrics.score``: accuracy, speedup over the best
single mapping, oracle share, confusion matrix...) with the number of folds. Each fold trains
and exports a model as ``ompcl train`` does, and its choices are those of the exported model
(``export.predict``), so the scores are the shipped model's, float32 thresholds included.
Leave-one-program-out groups rows by ``benchmark``: every size and kernel of the held-out
program is unseen, the situation of a user's new program.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from . import export, metrics
from .data import Dataset
from .learners import Settings, fit, subset

SCHEMES = ("stratified_kfold", "leave_one_program_out")


def _stratified(ds: Dataset, k: int, seed: int) -> Iterable[tuple[Sequence[int], Sequence[int]]]:
    from sklearn.model_selection import KFold, StratifiedKFold
    smallest = min(ds.y.count(0), ds.y.count(1))
    if smallest >= 2:
        split = StratifiedKFold(n_splits=min(k, smallest), shuffle=True, random_state=seed)
        return split.split(ds.X, ds.y)
    # one class (almost) absent: plain folds
    return KFold(n_splits=min(k, len(ds)), shuffle=True, random_state=seed).split(ds.X)


def _by_program(ds: Dataset) -> Iterable[tuple[Sequence[int], Sequence[int]]]:
    from sklearn.model_selection import LeaveOneGroupOut
    return LeaveOneGroupOut().split(ds.X, ds.y, groups=list(ds.groups))


def held_out_choices(ds: Dataset, s: Settings, folds) -> tuple[list[int], int]:
    """The choice for every row by the model trained without its fold; and the fold count."""
    choice = [-1] * len(ds)
    n = 0
    for train, test in folds:
        model = fit(subset(ds, list(train)), s)
        for i, c in zip(test, export.predict(model, [ds.X[i] for i in test])):
            choice[i] = c
        n += 1
    return choice, n


def _per_program(ds: Dataset, choice: Sequence[int]) -> dict:
    out = {}
    for g in sorted(set(ds.groups)):
        idx = [i for i, x in enumerate(ds.groups) if x == g]
        sc = metrics.score([choice[i] for i in idx], [ds.t_cpu[i] for i in idx],
                           [ds.t_gpu[i] for i in idx])
        out[g] = {k: sc[k] for k in ("rows", "accuracy", "oracle_share",
                                     "worst_slowdown_over_host")}
    return out


def evaluate(ds: Dataset, s: Settings, scheme: str, k: int = 10) -> dict | None:
    """Scores of ``scheme`` (one of SCHEMES), or None where the data cannot support it (fewer
    than two rows, or fewer than two programs for leave-one-program-out)."""
    if len(ds) < 2 or (scheme == SCHEMES[1] and ds.programs < 2):
        return None
    folds = _stratified(ds, k, s.seed) if scheme == SCHEMES[0] else _by_program(ds)
    choice, n = held_out_choices(ds, s, folds)
    out = {"folds": n, **metrics.score(choice, ds.t_cpu, ds.t_gpu)}
    if scheme == SCHEMES[1]:
        out["per_program"] = _per_program(ds, choice)
    return out


def cross_validate(ds: Dataset, s: Settings, k: int = 10) -> dict:
    """Both schemes: {scheme: scores or None}."""
    return {name: evaluate(ds, s, name, k) for name in SCHEMES}
