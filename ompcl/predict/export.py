"""Dispatch models as data, C and run-time text.

A model is a JSON-able dict (``ompcl train`` writes it, ``models/`` ships one)::

    {"format": "ompcl-model", "version": 1,
     "schema": {"version": schema.VERSION, "features": [...schema.FEATURES]},
     "learner": "tree" | "forest" | "extra" | "boosting",
     "combine": "mean" | "logit", "base": float,
     "trees": [{"feature": [...], "threshold": [...], "left": [...], "right": [...],
                "value": [...]}, ...],
     "runtime": "<the same trees as text, read by the C runtime from OMPCL_MODEL>",
     "metadata": {...}}

A load-aware model (trained on rows with the load columns) lists ``schema.FEATURES_LOAD`` in
its schema and runtime text: the runtime reads it from ``OMPCL_MODEL`` and fills the load
features after the others (``ompcl_rt_model.c``); it is not compiled into programs (``check``
refuses it there), since the compiled-in models see ``schema.FEATURES`` only.

A node k of a tree tests ``float(f[feature[k]]) <= threshold[k]`` (scikit-learn compares in
single precision), going to ``left[k]`` if so, else ``right[k]``; a leaf has feature -1 and a
value. ``combine`` "mean": the device when the mean leaf value (the device's probability)
exceeds ``base``; "logit": when ``base`` plus the sum of leaf values exceeds 0.

Consumes fitted scikit-learn estimators (``from_sklearn``) or model dicts; produces the C
function compiled into generated host programs (``c_source``), the runtime text
(``runtime_text``) and predictions in Python (``predict``), which agree with each other.
"""
from __future__ import annotations

import math
import struct
from typing import Any, Sequence

from . import schema

FORMAT = "ompcl-model"
VERSION = 1
DEVICE = 1  # label of "the device is faster"


def _f32(x: float) -> float:
    """``x`` rounded to single precision, as scikit-learn's trees see their inputs."""
    if math.isinf(x) or math.isnan(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _tree(t: Any, value: Sequence[float], columns: Sequence[int] | None = None) -> dict:
    """A scikit-learn tree as a dict; its features renumbered through ``columns`` (the
    estimator was fitted on those columns of the feature vector) when given."""
    leaf = [int(f) < 0 for f in t.feature]
    col = list(columns) if columns is not None else list(range(len(schema.FEATURES)))
    return {"feature": [-1 if lf else col[int(f)] for f, lf in zip(t.feature, leaf)],
            "threshold": [0.0 if lf else float(x) for x, lf in zip(t.threshold, leaf)],
            "left": [-1 if lf else int(x) for x, lf in zip(t.children_left, leaf)],
            "right": [-1 if lf else int(x) for x, lf in zip(t.children_right, leaf)],
            "value": [float(v) if lf else 0.0 for v, lf in zip(value, leaf)]}


def _device_probability(t: Any, classes: Sequence[int]) -> list[float]:
    """Per node: the share of the device class among the node's training samples."""
    if DEVICE not in list(classes):
        return [0.0] * t.node_count
    k = list(classes).index(DEVICE)
    out = []
    for v in t.value:
        total = float(sum(v[0]))
        out.append(float(v[0][k]) / total if total > 0 else 0.0)
    return out


def from_sklearn(est: Any, learner: str, columns: Sequence[int] | None = None,
                 features: Sequence[str] = schema.FEATURES) -> dict:
    """The trees of a fitted DecisionTreeClassifier ('tree'), RandomForestClassifier
    ('forest'), ExtraTreesClassifier ('extra') or binary GradientBoostingClassifier
    ('boosting'), labels 0 host / 1 device. ``columns``: the indices in ``features`` (the
    runtime's vector the model indexes: ``schema.FEATURES``, or ``schema.FEATURES_LOAD``)
    of the estimator's input columns, when it was fitted on some of them (default: all)."""
    classes = [int(c) for c in est.classes_]
    if learner == "tree":
        trees = [_tree(est.tree_, _device_probability(est.tree_, classes), columns)]
        combine, base = "mean", 0.5
    elif learner in ("forest", "extra"):
        trees = [_tree(e.tree_, _device_probability(e.tree_, classes), columns)
                 for e in est.estimators_]
        combine, base = "mean", 0.5
    elif learner == "boosting":
        import numpy as np
        zero = np.zeros((1, est.n_features_in_))
        base = float(est._raw_predict_init(zero)[0, 0])
        lr = float(est.learning_rate)
        trees = [_tree(e.tree_, [float(v[0][0]) * lr for v in e.tree_.value], columns)
                 for e in est.estimators_[:, 0]]
        combine = "logit"
        if classes != [0, 1]:  # a single class seen: a constant model
            base, trees = (1.0 if classes == [DEVICE] else -1.0), [_constant_tree(0.0)]
    else:
        raise ValueError(f"unknown learner '{learner}'")
    return make_model(learner, combine, base, trees, features=features)


def _constant_tree(value: float) -> dict:
    return {"feature": [-1], "threshold": [0.0], "left": [-1], "right": [-1], "value": [value]}


def make_model(learner: str, combine: str, base: float, trees: list[dict],
               metadata: dict | None = None,
               features: Sequence[str] = schema.FEATURES) -> dict:
    """The model dict of these trees over ``features`` (``schema.FEATURES``, or
    ``schema.FEATURES_LOAD`` for a load-aware model)."""
    model = {"format": FORMAT, "version": VERSION,
             "schema": {"version": schema.VERSION, "features": list(features)},
             "learner": learner, "combine": combine, "base": float(base), "trees": trees,
             "metadata": dict(metadata or {})}
    model["runtime"] = runtime_text(model)
    return model


def load_aware(model: dict) -> bool:
    """Whether the model reads the load features (its schema lists them)."""
    return list(model.get("schema", {}).get("features", [])) == list(schema.FEATURES_LOAD)


def check(model: dict, load: bool = False) -> None:
    """Raise ValueError unless ``model`` is a model of this schema (or, with ``load``, a
    load-aware one too)."""
    if model.get("format") != FORMAT or model.get("version") != VERSION:
        raise ValueError("not an ompcl model (format/version)")
    if load_aware(model) and not load:
        raise ValueError("a load-aware model (trained with the load features) is read at run "
                         "time, OMPCL_MODEL=FILE; it cannot be compiled into a program")
    if not load_aware(model) and \
            list(model.get("schema", {}).get("features", [])) != list(schema.FEATURES):
        raise ValueError("model features differ from this ompcl's feature schema "
                         f"{', '.join(schema.FEATURES)}")
    if model.get("combine") not in ("mean", "logit") or not model.get("trees"):
        raise ValueError("model has no trees or an unknown combination")


def _leaf_value(tree: dict, f: Sequence[float]) -> float:
    k = 0
    for _ in range(len(tree["feature"])):
        j = tree["feature"][k]
        if j < 0:
            break
        k = tree["left"][k] if _f32(f[j]) <= tree["threshold"][k] else tree["right"][k]
    return tree["value"][k]


def predict_one(model: dict, f: Sequence[float]) -> int:
    """1 (device) or 0 (host) for one full feature vector (``schema.full``)."""
    total = sum(_leaf_value(t, f) for t in model["trees"])
    if model["combine"] == "logit":
        return int(model["base"] + total > 0)
    return int(total / len(model["trees"]) > model["base"])


def predict(model: dict, rows: Sequence[Sequence[float]]) -> list[int]:
    return [predict_one(model, f) for f in rows]


def runtime_text(model: dict) -> str:
    """The text the C runtime parses (``parse_model`` in ompcl_rt.c)."""
    names = model["schema"]["features"]
    lines = [f"ompcl-model {VERSION}", f"features {len(names)} {' '.join(names)}",
             f"combine {model['combine']} {float(model['base'])!r} trees {len(model['trees'])}"]
    for t in model["trees"]:
        lines.append(f"tree {len(t['feature'])}")
        lines += [f"{f} {float(x)!r} {l} {r} {float(v)!r}" for f, x, l, r, v in zip(
            t["feature"], t["threshold"], t["left"], t["right"], t["value"])]
    return "\n".join(lines) + "\n"


def _c_number(x: float) -> str:
    return repr(float(x)) if math.isfinite(x) else ("(1.0/0.0)" if x > 0 else "(-1.0/0.0)")


def _c_array(ctype: str, name: str, values: Sequence[str]) -> list[str]:
    """A static const C array, eight values a line."""
    rows = [", ".join(values[i:i + 8]) for i in range(0, len(values), 8)]
    return [f"static const {ctype} {name}[] = {{"] + [f"  {r}," for r in rows] + ["};"]


def _c_hex(x: float) -> str:
    """``x`` exactly, as a C99 hexadecimal constant (cheaper for a compiler to read than the
    shortest decimal)."""
    return float(x).hex() if math.isfinite(x) else _c_number(x)


def c_source(model: dict, name: str = "ompcl_model", attributes: str = "") -> str:
    """``attributes static int name(const double *f, int n)``, 1 for the device, over the
    features ``f`` of the runtime (``n`` = len(schema.FEATURES)): the trees as constant tables
    (all trees' nodes in one array, child indices absolute; a node's number is its threshold,
    a leaf's its value; a left child that follows its parent, as scikit-learn numbers them,
    needs no table) and one small loop that walks them, so that what a build pays to compile
    the model grows little with the model (a forest as branching code cost each translated
    file tens of milliseconds). It runs once per region and size class: generated host files
    pass ``OMPCL_GLUE`` (compiled unoptimised), since optimising a loop over constant tables
    unrolls it back into branching code."""
    check(model)
    feature, number, left, right, roots = [], [], [], [], []
    follows = True   # every left child is the node after its parent
    for t in model["trees"]:
        base = len(feature)
        roots.append(str(base))
        for k, (f, x, l, r, v) in enumerate(zip(t["feature"], t["threshold"], t["left"],
                                                t["right"], t["value"])):
            leaf = f < 0
            feature.append(str(-1 if leaf else f))
            number.append(_c_hex(v if leaf else x))
            left.append(str(0 if leaf else base + l))
            right.append(str(0 if leaf else base + r))
            follows = follows and (leaf or l == k + 1)
    ntrees = len(model["trees"])
    test = ("base + sum > 0.0" if model["combine"] == "logit"
            else f"sum / {ntrees}.0 > base")
    out = [f"/* dispatch model ({model['learner']}, {ntrees} trees, {len(feature)} nodes) over "
           f"{', '.join(schema.FEATURES)}: node k tests (float)f[feature[k]] <= number[k] "
           f"(then its left child, else right[k]); a leaf (feature -1) holds its value in "
           f"number[k] */"]
    out += _c_array("signed char", f"{name}_feature", feature)
    out += _c_array("double", f"{name}_number", number)
    if not follows:
        out += _c_array("int", f"{name}_left", left)
    out += _c_array("int", f"{name}_right", right)
    out += _c_array("int", f"{name}_root", roots)
    then = "k + 1" if follows else f"{name}_left[k]"
    out += [f"{attributes}static int {name}(const double *f, int n) {{",
            f"  const double base = {_c_number(model['base'])};",
            "  double sum = 0.0;",
            "  int t;",
            f"  if (n != {len(schema.FEATURES)}) return 1;",
            f"  for (t = 0; t < {ntrees}; t++) {{",
            f"    int k = {name}_root[t];",
            f"    while ({name}_feature[k] >= 0)",
            f"      k = (double)(float)f[{name}_feature[k]] <= {name}_number[k] ? {then}"
            f" : {name}_right[k];",
            f"    sum += {name}_number[k];",
            "  }",
            f"  return {test};",
            "}"]
    return "\n".join(out) + "\n"
