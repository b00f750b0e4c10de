"""Cross-validation of a learner on a dataset: stratified k-fold and leave-one-program-out.

Consumes a ``data.Dataset`` and ``learners.Settings``; produces, per scheme, the scores of the
held-out choices pooled over all folds (``metrics.score``: accuracy, speedup over the best
single mapping, oracle share, confusion matrix...) with the number of folds. Each fold trains
and exports a model as ``ompcl train`` does, and its choices are those of the exported model
(``export.predict``), so the scores are the shipped model's, float32 thresholds included.
With the learner ``auto`` each fold first chooses its settings by ``select.choose`` on its own
training rows (nested cross-validation: the held-out rows play no part in the choice), and
the scores say which settings the folds chose. Leave-one-program-out groups rows by
``benchmark``: every size and kernel of the held-out program is unseen, the situation of a
user's new program. The k-fold runs the k asked for whenever the rows allow it, and says so
(``plan``) when they do not.
"""
from __future__ import annotations

import statistics
import warnings
from collections import Counter
from typing import Callable, Iterable, Sequence

from . import export, metrics, select
from .data import Dataset
from .learners import AUTO, Settings, fit, subset

SCHEMES = ("stratified_kfold", "leave_one_program_out")


def plan(ds: Dataset, k: int) -> dict:
    """How many folds the stratified k-fold runs on ``ds`` and why, if fewer than ``k`` or
    not stratified: {"k": asked, "k_used", "stratified", "note", and the rows per class and
    per program the note is about}."""
    n, device = len(ds), sum(ds.y)
    per_program = Counter(ds.groups).values()
    out = {"k": k, "k_used": min(k, n), "stratified": True, "note": "",
           "rows": n, "device_faster": device, "host_faster": n - device,
           "programs": ds.programs, "rows_per_program": {
               "min": min(per_program, default=0), "max": max(per_program, default=0),
               "median": statistics.median(per_program) if per_program else 0}}
    larger, smaller = max(device, n - device), min(device, n - device)
    if out["k_used"] < k:
        out["note"] = f"{k} folds asked, {n} rows: {out['k_used']} folds of one row each"
    if larger < out["k_used"]:
        out["stratified"] = False
        out["note"] += ("; " if out["note"] else "") + (
            f"neither class has {out['k_used']} rows ({device} device-faster, {n - device} "
            "host-faster): plain k-fold, not stratified")
    elif smaller < out["k_used"]:
        side = "device" if device == smaller else "host"
        out["note"] += ("; " if out["note"] else "") + (
            f"only {smaller} {side}-faster rows: {out['k_used'] - smaller} of the "
            f"{out['k_used']} folds hold none")
    return out


def _stratified(ds: Dataset, p: dict, seed: int) -> Iterable[tuple[Sequence[int], Sequence[int]]]:
    from sklearn.model_selection import KFold, StratifiedKFold
    if not p["stratified"]:
        return KFold(n_splits=p["k_used"], shuffle=True, random_state=seed).split(ds.X)
    split = StratifiedKFold(n_splits=p["k_used"], shuffle=True, random_state=seed)
    with warnings.catch_warnings():   # a class smaller than k: plan's note says so
        warnings.simplefilter("ignore", UserWarning)
        return list(split.split(ds.X, ds.y))


def _by_program(ds: Dataset) -> Iterable[tuple[Sequence[int], Sequence[int]]]:
    from sklearn.model_selection import LeaveOneGroupOut
    return LeaveOneGroupOut().split(ds.X, ds.y, groups=list(ds.groups))


def blocks(ds: Dataset, k: int) -> list[Sequence[int]]:
    """At most ``k`` disjoint blocks of whole programs covering ``ds`` (row indices)."""
    from sklearn.model_selection import GroupKFold
    n = min(k, ds.programs)
    return [test for _, test in GroupKFold(n_splits=n).split(ds.X, ds.y, list(ds.groups))]


def _chooser(ds: Dataset, s: Settings, fams: Sequence[select.Family], by_program: bool,
             k: int) -> Callable[[Sequence[int], Sequence[int]], Settings]:
    """The settings of the fold (train, test): ``s``; for ``auto``, chosen on rows none of
    which is in the fold's test rows. Leave-one-program-out searches once per block of
    programs (``blocks``, k of them), not once per program: a program's settings come from
    the rows outside its block, which excludes it (honest, a little pessimistic), at the cost
    of k searches instead of one per program."""
    if s.learner != AUTO:
        return lambda train, test: s
    if not by_program:
        return lambda train, test: select.choose(subset(ds, list(train)), fams, False, s.seed,
                                                 s.host_weight)
    chosen = {}
    for block in blocks(ds, k):
        inside = set(block)
        rest = subset(ds, [i for i in range(len(ds)) if i not in inside])
        setting = select.choose(rest, fams, True, s.seed, s.host_weight)
        chosen.update((ds.groups[i], setting) for i in block)
    return lambda train, test: chosen[ds.groups[test[0]]]


def held_out_choices(ds: Dataset, s: Settings, folds, fams: Sequence[select.Family] = (),
                     by_program: bool = False, k: int = 10) -> tuple[list[int], list[Settings]]:
    """The choice for every row by the model trained without its fold; and each fold's
    settings (for ``auto``: chosen among ``fams`` without the fold's rows, ``_chooser``)."""
    choice = [-1] * len(ds)
    used = []
    settings_of = _chooser(ds, s, fams, by_program, k)
    for train, test in folds:
        part = subset(ds, list(train))
        fold_s = settings_of(train, test)
        model = fit(part, fold_s)
        for i, c in zip(test, export.predict(model, [ds.X[i] for i in test])):
            choice[i] = c
        used.append(fold_s)
    return choice, used


def _chosen(used: Sequence[Settings]) -> dict:
    """How often each learner (on which features) was chosen by the folds."""
    return dict(Counter(f"{u.learner}/{u.features}" for u in used).most_common())


def _per_program(ds: Dataset, choice: Sequence[int]) -> dict:
    out = {}
    for g in sorted(set(ds.groups)):
        idx = [i for i, x in enumerate(ds.groups) if x == g]
        sc = metrics.score([choice[i] for i in idx], [ds.t_cpu[i] for i in idx],
                           [ds.t_gpu[i] for i in idx])
        out[g] = {k: sc[k] for k in ("rows", "accuracy", "oracle_share",
                                     "worst_slowdown_over_host")}
    return out


def evaluate(ds: Dataset, s: Settings, scheme: str, k: int = 10,
             fams: Sequence[select.Family] = select.SPACE[:4]) -> dict | None:
    """Scores of ``scheme`` (one of SCHEMES), or None where the data cannot support it (fewer
    than two rows, or fewer than two programs for leave-one-program-out). ``fams``: the
    families an ``auto`` learner searches in each fold."""
    if len(ds) < 2 or (scheme == SCHEMES[1] and ds.programs < 2):
        return None
    by_program = scheme == SCHEMES[1]
    folds = _by_program(ds) if by_program else _stratified(ds, plan(ds, k), s.seed)
    choice, used = held_out_choices(ds, s, folds, fams, by_program, k)
    out = {"folds": len(used), **metrics.score(choice, ds.t_cpu, ds.t_gpu)}
    if s.learner == AUTO:
        out["chosen"] = _chosen(used)
    if by_program:
        out["per_program"] = _per_program(ds, choice)
    return out


def cross_validate(ds: Dataset, s: Settings, k: int = 10,
                   fams: Sequence[select.Family] = select.SPACE[:4]) -> dict:
    """Both schemes, {scheme: scores or None}, beside the k-fold's ``plan`` (k asked,
    k_used, note, rows per class and program)."""
    out: dict = {name: evaluate(ds, s, name, k, fams) for name in SCHEMES}
    out.update(plan(ds, k))
    return out
