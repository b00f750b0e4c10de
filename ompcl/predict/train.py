"""``ompcl train``: training data in, a self-describing model file and its scores out.

Consumes training CSV files (``data``), the learner's ``Settings`` and, where ``collect``
wrote one beside a CSV (``<name>.meta.json``), the measurement's metadata (platform, load,
commands). Produces the model dict (``export`` format) whose ``metadata`` holds the feature
schema and version, the learner and its settings, the training data's digest and size, the
platform it was measured on, the cross-validation scores of both schemes and the model's
size; and a text report of the same. With the learner ``auto`` (the default of ``ompcl
train``) the settings are chosen by ``select`` on all rows, grouped by program (the shipped
model meets new programs), and the cross-validation repeats that choice inside every fold.

Rows with the load columns (``ompcl bench load``'s) train with the load features unless
``load_features`` is "off" (``data.use_load``): the model is load-aware (``export``), and
the metadata's ``load_features`` compares it, cross-validated on the same rows and folds,
with the same learner trained without them (``compare_load``). Without the load columns the
model is the same as before, byte for byte.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from . import crossval, data, export, learners, metrics, schema, select

META_SUFFIX = ".meta.json"


def meta_path(csv_path: str | os.PathLike) -> Path:
    """Where ``collect`` writes the metadata of a CSV: ``rows.csv`` -> ``rows.meta.json``."""
    p = Path(csv_path)
    return p.with_name(p.stem + META_SUFFIX)


def read_meta(paths: Sequence[str | os.PathLike]) -> list[dict]:
    """The metadata files beside the CSV files that have one."""
    out = []
    for p in paths:
        m = meta_path(p)
        if m.is_file():
            try:
                out.append(json.loads(m.read_text()))
            except (OSError, json.JSONDecodeError) as e:
                raise data.DataError(f"cannot read the metadata '{m}': {e}") from None
    return out


def _platform(metas: list[dict], given: str) -> object:
    if given:
        return given
    seen = [m["platform"] for m in metas if m.get("platform")]
    unique = [p for i, p in enumerate(seen) if p not in seen[:i]]
    return unique[0] if len(unique) == 1 else (unique or "unknown")


def _data_summary(ds: data.Dataset, threads: int | None) -> dict:
    return {"rows": len(ds), "programs": ds.programs, "device_faster": sum(ds.y),
            "host_faster": len(ds) - sum(ds.y), "sha256": ds.digest, "files": list(ds.files),
            "threads": threads}


def _select(ds: data.Dataset, s: learners.Settings, folds: int, cv: bool,
            budget: float) -> tuple[learners.Settings, list[select.Family], dict]:
    """The settings to train on all rows (chosen when ``s`` is auto), the families the
    search (and each fold's) takes, and the selection's record for the metadata."""
    if s.learner != learners.AUTO:
        return s, [], {}
    k = crossval.plan(ds, folds)["k_used"]
    # crossval._chooser: one search per fold and block, twice with the load-blind comparison
    searches = 1 + ((2 if ds.load else 1) * (k + min(k, ds.programs)) if cv else 0)
    fams = select.families(len(ds), searches, budget, s.trees)  # --trees: at most
    by_program = ds.programs >= select.INNER_FOLDS
    if len(set(ds.y)) < 2 or len(ds) < 2 * select.INNER_FOLDS:
        return select.choose(ds, fams, by_program, s.seed, s.host_weight), fams, {}
    chosen, table = select.search(ds, fams, by_program, s.seed, s.host_weight)
    mine = next(r for r in table if r["settings"] == chosen.as_dict())
    return chosen, fams, {"score": mine["score"], "oracle_share": mine["oracle_share"],
                          "budget": budget, "families": len(fams),
                          "candidates": len(table), "grouped_by_program": by_program,
                          "inner_folds": select.INNER_FOLDS,
                          "slowdown_weight": s.host_weight, "best": table[:10]}


def compare_load(ds: data.Dataset, s: learners.Settings, folds: int,
                 fams: Sequence[select.Family], aware: dict) -> dict:
    """The load-aware model's cross-validation ``aware`` beside that of the same learner
    (settings ``s``, families ``fams``) on the same rows without the load features (same
    folds: they depend on the labels, programs and seed only)."""
    blind = crossval.cross_validate(data.without_load(ds), s, folds, fams)
    out = {}
    for key in crossval.SCHEMES:
        if aware.get(key) and blind.get(key):
            out[key] = {side: {m: cv[key][m] for m in _COMPARED}
                        for side, cv in (("aware", aware), ("blind", blind))}
    return out


#: the scores ``compare_load`` puts side by side
_COMPARED = ("oracle_share", "accuracy", "speedup_over_host", "worst_slowdown_over_host")


def _load_meta(ds: data.Dataset, s: learners.Settings, folds: int,
               fams: Sequence[select.Family], cv: dict) -> dict:
    """The metadata's ``load_features`` (only where they were used)."""
    return {"used": True, "features": list(schema.LOAD),
            "comparison": compare_load(ds, s, folds, fams, cv) if cv else {}}


def train(paths: Sequence[str | os.PathLike], s: learners.Settings, folds: int = 10,
          platform: str = "", command: str = "", cv: bool = True,
          budget: float = 1.0, threads: int | None = None,
          load_features: str = "auto") -> dict:
    """Train on the CSV files ``paths`` (their rows of ``threads`` OpenMP threads where it
    is given; with the load features as ``data.use_load`` decides for ``load_features``);
    the model dict with its metadata. ``budget`` scales the search of an ``auto`` learner
    (``select.families``)."""
    learners.check(s)
    learners.require_sklearn()
    ds = data.load(paths, threads, load_features)
    metas = read_meta(paths)
    chosen, fams, selection = _select(ds, s, folds, cv, budget)
    model = learners.fit(ds, chosen)
    scores = crossval.cross_validate(ds, s, folds, fams) if cv else {}
    meta = {
        "schema": {"version": schema.VERSION, "features": model["schema"]["features"]},
        "learner": chosen.learner, "settings": chosen.as_dict(), "size": learners.size(model),
        "selection": selection,
        "training_data": _data_summary(ds, threads), "platform": _platform(metas, platform),
        "measurement": [{k: m[k] for k in ("collected", "load_average", "command", "env",
                                           "repeats") if k in m} for m in metas],
        "cross_validation": scores,
        "training_fit": metrics.score(_choices(model, ds), ds.t_cpu, ds.t_gpu),
        "command": command,
    }
    if ds.load:
        meta["load_features"] = _load_meta(ds, s, folds, fams, scores)
    model["metadata"] = meta
    return model


def _choices(model: dict, ds: data.Dataset) -> list[int]:
    return export.predict(model, ds.X)


# ---- the text report ----------------------------------------------------------------

_HEAD = (f"{'':26}{'oracle':>8}{'accuracy':>9}{'speedup':>9}{'vs host':>9}{'worst':>7}"
         f"{'h->d':>6}{'d->h':>6}")
_NAMES = {"stratified_kfold": "stratified {k}-fold", "leave_one_program_out":
          "leave-one-program-out", "training_fit": "training data (fit)"}


def _line(name: str, sc: dict | None) -> str:
    if sc is None:
        return f"{name:26}n/a (too few rows or programs)"
    return (f"{name:26}{sc['oracle_share']:>8.1%}{sc['accuracy']:>9.1%}"
            f"{sc['speedup_over_best_single']:>8.2f}x{sc['speedup_over_host']:>8.2f}x"
            f"{sc['worst_slowdown_over_host']:>6.1f}x{sc['confusion'][0][1]:>6}"
            f"{sc['confusion'][1][0]:>6}")


def _selection_lines(m: dict) -> list[str]:
    sel, cv = m.get("selection"), m["cross_validation"]
    if not sel:
        return []
    out = [f"chosen by {sel['inner_folds']}-fold cross-validation"
           f"{' grouped by program' if sel['grouped_by_program'] else ''} among "
           f"{sel['candidates']} candidates ({sel['families']} learner families, budget "
           f"{sel['budget']:g}): inner score {sel['score']:.1%} (oracle share with slowdowns "
           f"against the host counted {sel['slowdown_weight']:g}x; plain "
           f"{sel['oracle_share']:.1%}), the best {sel['best'][0]['score']:.1%}"]
    for key in ("stratified_kfold", "leave_one_program_out"):
        if cv.get(key) and cv[key].get("chosen"):
            out.append(f"chosen inside the folds of {_NAMES[key].format(k=cv['k_used'])}: "
                       + ", ".join(f"{k} {v}" for k, v in cv[key]["chosen"].items()))
    return out


def report(model: dict) -> str:
    """The human-readable report of a trained model's metadata."""
    m = model["metadata"]
    d, z, cv = m["training_data"], m["size"], m["cross_validation"]
    out = [f"{m['learner']}: {z['trees']} tree(s), {z['nodes']} nodes, depth <= {z['max_depth']}"
           f"; trained on {d['rows']} rows from {d['programs']} programs ({d['device_faster']} "
           f"device-faster, {d['host_faster']} host-faster; data sha256 {d['sha256'][:12]})",
           f"settings: {', '.join(f'{k}={v}' for k, v in m['settings'].items())}",
           *_selection_lines(m)]
    if cv.get("note"):
        out.append(f"k-fold: {cv['note']}")
    out += ["", _HEAD]
    for key in ("stratified_kfold", "leave_one_program_out"):
        if key in cv:
            out.append(_line(_NAMES[key].format(k=cv.get("k_used", 10)), cv[key]))
    out.append(_line(_NAMES["training_fit"], m["training_fit"]))
    out += ["", "oracle: share of the oracle's performance (geometric mean); speedup: over the "
            "best single mapping;", "vs host: over the OpenMP host alone; worst: largest "
            "slowdown of a row against the host;", "h->d: host-faster rows sent to the device "
            "(the costly mistake); d->h: device-faster rows kept on the host"]
    for key in ("stratified_kfold", "leave_one_program_out"):
        if cv.get(key):
            c = cv[key]["confusion"]
            out.append(f"confusion, {_NAMES[key].format(k=cv['k_used'])} (rows measured "
                       f"host/device, columns chosen host/device): {c[0]} {c[1]}")
    return "\n".join(out + _load_lines(m))


def _load_lines(m: dict) -> list[str]:
    """The load-aware against load-blind table of a model trained with the load features."""
    lf = m.get("load_features")
    if not lf:
        return []
    out = ["", f"load features {', '.join(lf['features'])}: this model reads them "
           "(OMPCL_MODEL=FILE; the runtime fills them at each decision)"]
    if not lf["comparison"]:
        return out + ["no load-blind comparison (no cross-validation)"]
    out += ["cross-validated against the same learner without them (same rows and folds):",
            f"{'':26}{'aware':>8}{'blind':>8}{'aware':>10}{'blind':>8}{'worst':>10}"
            f"{'worst':>10}",
            f"{'':26}{'oracle':>8}{'oracle':>8}{'accuracy':>10}{'accur.':>8}{'aware':>10}"
            f"{'blind':>10}"]
    cv = m["cross_validation"]
    for key, c in lf["comparison"].items():
        a, b = c["aware"], c["blind"]
        out.append(f"{_NAMES[key].format(k=cv.get('k_used', 10)):26}{a['oracle_share']:>8.1%}"
                   f"{b['oracle_share']:>8.1%}{a['accuracy']:>10.1%}{b['accuracy']:>8.1%}"
                   f"{a['worst_slowdown_over_host']:>9.1f}x{b['worst_slowdown_over_host']:>9.1f}x")
    return out
