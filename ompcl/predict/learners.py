"""Learners: scikit-learn estimators fitted on a ``Dataset`` and exported as model dicts.

Consumes a ``data.Dataset`` and ``Settings`` (learner, its size, how host-faster rows are
weighted, the device threshold); produces an ``export`` model dict (trees, no metadata yet).
The learners: ``tree``, the decision tree of Grewe et al. (an entropy tree, as in Cummins et
al.'s reproduction); ``forest``, a random forest; ``extra``, extremely randomised trees;
``boosting``, gradient-boosted trees. Each sees one of the ``FEATURE_SETS`` (columns of the
runtime's vector ``schema.FEATURES``; the exported trees index that vector, so any set runs in
the runtime unchanged). ``select`` picks among them (``ompcl train``'s default, ``auto``).
A dataset with the load features (``Dataset.load``) adds them to every set: its models index
the runtime's vector ``schema.FEATURES_LOAD`` and say so in their schema.

Cost-sensitive training, because a translated program must never be slower than its OpenMP
original: ``host_weight`` multiplies the weight of rows where the host was faster (sending them
to the device is the costly mistake), ``weighting="cost"`` weights every row by what a wrong
choice costs there (``|ln(t_host / t_device)|``: near-ties, whose labels are noise, count
little), and ``threshold`` moves the device's decision boundary (device only when the model's
device probability exceeds it).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Sequence

from ..diagnostics import OmpclError
from . import export, schema
from .data import Dataset

LEARNERS = ("tree", "forest", "extra", "boosting")
#: the learner that is a choice among LEARNERS (``select``), made by cross-validation
AUTO = "auto"
WEIGHTINGS = ("none", "cost")
#: columns a learner may see, by name: the raw counts and sizes, the combined features of
#: Grewe et al. (F1-F4), the scale-free ones (per-work-item counts and ratios, without the
#: absolute sizes transfer and work_items), or all. Logarithms are not a set of their own:
#: a tree's splits do not change under a monotone transform of one feature.
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "all": schema.FEATURES,
    "raw": schema.STATIC + schema.DYNAMIC,
    "combined": schema.COMBINED,
    "scale_free": schema.STATIC + ("wgsize",) + schema.COMBINED,
}
#: sizes used when the settings leave them open (None): small enough to compile into every
#: translated file as nested if/else
DEFAULT_SIZE = {"tree": {"trees": 1, "max_depth": 5, "min_leaf": 5},
                "forest": {"trees": 20, "max_depth": 6, "min_leaf": 2},
                "extra": {"trees": 50, "max_depth": 0, "min_leaf": 2},
                "boosting": {"trees": 40, "max_depth": 3, "min_leaf": 2}}
_MIN_COST = 0.01  # weight of an exact tie under weighting="cost"


@dataclass(frozen=True)
class Settings:
    """How to train; None sizes take ``DEFAULT_SIZE`` of the learner (``resolved``)."""

    learner: str = "tree"
    trees: int | None = None        # forest / boosting estimators
    max_depth: int | None = None    # 0: unlimited
    min_leaf: int | None = None     # samples per leaf at least
    host_weight: float = 1.0        # weight of host-faster rows relative to device-faster ones
    #                                 (auto: of slowdowns against the host in select's score)
    weighting: str = "none"         # "cost": rows weighted by |ln(t_host / t_device)|
    threshold: float = 0.5          # device when P(device) > threshold
    seed: int = 0
    features: str = "all"           # one of FEATURE_SETS

    def resolved(self) -> "Settings":
        size = DEFAULT_SIZE[self.learner]
        return replace(self, **{k: v for k, v in size.items() if getattr(self, k) is None})

    def as_dict(self) -> dict:
        return asdict(self.resolved())


class MissingLearner(OmpclError):
    """scikit-learn, which training needs, is not installed."""


def require_sklearn() -> None:
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise MissingLearner("training needs scikit-learn: pip install 'ompcl[train]'") \
            from None


def check(s: Settings) -> None:
    """Raise ValueError with a message for the user unless the settings can be trained."""
    if s.learner not in LEARNERS + (AUTO,):
        raise ValueError(f"unknown learner '{s.learner}' "
                         f"(choose {', '.join(LEARNERS + (AUTO,))})")
    if s.features not in FEATURE_SETS:
        raise ValueError(f"unknown feature set '{s.features}' "
                         f"(choose {', '.join(FEATURE_SETS)})")
    if s.weighting not in WEIGHTINGS:
        raise ValueError(f"unknown weighting '{s.weighting}' (choose {', '.join(WEIGHTINGS)})")
    if not 0.0 < s.threshold < 1.0:
        raise ValueError(f"threshold must lie strictly between 0 and 1, not {s.threshold}")
    if not s.host_weight > 0:
        raise ValueError(f"host weight must be positive, not {s.host_weight}")
    if s.learner == AUTO:
        if s.trees is not None and s.trees < 1:
            raise ValueError(f"trees must be at least 1, not {s.trees}")
        return
    r = s.resolved()
    if r.trees < 1 or r.max_depth < 0 or r.min_leaf < 1:
        raise ValueError("trees and min-leaf must be at least 1, max-depth at least 0")


def weights(ds: Dataset, s: Settings) -> list[float]:
    """Per-row sample weights (mean 1)."""
    w = []
    for y, h, g in zip(ds.y, ds.t_cpu, ds.t_gpu):
        cost = max(abs(math.log(h / g)), _MIN_COST) if s.weighting == "cost" else 1.0
        w.append(cost * (s.host_weight if y != export.DEVICE else 1.0))
    mean = sum(w) / len(w)
    return [x / mean for x in w]


def estimator(s: Settings) -> Any:
    """An unfitted scikit-learn estimator for the (resolved) settings."""
    from sklearn.ensemble import (ExtraTreesClassifier, GradientBoostingClassifier,
                                  RandomForestClassifier)
    from sklearn.tree import DecisionTreeClassifier
    depth = s.max_depth or None
    if s.learner == "tree":
        return DecisionTreeClassifier(criterion="entropy", max_depth=depth,
                                      min_samples_leaf=s.min_leaf, random_state=s.seed)
    if s.learner in ("forest", "extra"):
        cls = RandomForestClassifier if s.learner == "forest" else ExtraTreesClassifier
        return cls(n_estimators=s.trees, max_depth=depth, min_samples_leaf=s.min_leaf,
                   random_state=s.seed)
    return GradientBoostingClassifier(n_estimators=s.trees, max_depth=depth,
                                      min_samples_leaf=s.min_leaf, learning_rate=0.1,
                                      random_state=s.seed)


def constant(device: bool, learner: str, load: bool = False) -> dict:
    """A model that always answers the same (training data of one class)."""
    tree = {"feature": [-1], "threshold": [0.0], "left": [-1], "right": [-1],
            "value": [1.0 if device else 0.0]}
    return export.make_model(learner, "mean", 0.5, [tree], features=_names(load))


def _with_threshold(model: dict, threshold: float) -> dict:
    """The model deciding 'device' only when its device probability exceeds ``threshold``."""
    if model["combine"] == "mean":
        base = threshold
    else:  # logit: sigmoid(base + sum) > t  <=>  base - logit(t) + sum > 0
        base = model["base"] - math.log(threshold / (1.0 - threshold))
    return export.make_model(model["learner"], model["combine"], base, model["trees"],
                             features=model["schema"]["features"])


def columns(features: str, load: bool = False) -> list[int]:
    """The indices in ``schema.FEATURES`` of the feature set ``features``; with ``load``,
    those in ``schema.FEATURES_LOAD`` followed by the load features'."""
    out = [schema.FEATURES.index(name) for name in FEATURE_SETS[features]]
    return out + ([schema.FEATURES_LOAD.index(name) for name in schema.LOAD] if load else [])


def matrix(ds: Dataset, features: str = "all") -> Any:
    """The rows of ``ds`` as a numpy array of the columns of the feature set ``features``
    (and the load features where ``ds`` has them)."""
    import numpy as np
    return np.asarray(ds.X, dtype=np.float64)[:, columns(features, ds.load)]


def fit(ds: Dataset, s: Settings) -> dict:
    """A model dict trained on all rows of ``ds`` (no metadata)."""
    s = s.resolved()
    if len(set(ds.y)) < 2:
        return constant(bool(ds.y[0]), s.learner, ds.load)
    est = estimator(s).fit(matrix(ds, s.features), list(ds.y), sample_weight=weights(ds, s))
    model = export.from_sklearn(est, s.learner, columns(s.features, ds.load),
                                _names(ds.load))
    return _with_threshold(model, s.threshold)


def _names(load: bool) -> tuple[str, ...]:
    """The runtime's vector a model of data with (or without) the load features indexes."""
    return schema.FEATURES_LOAD if load else schema.FEATURES


def subset(ds: Dataset, idx: Sequence[int]) -> Dataset:
    """The rows ``idx`` of ``ds`` (digest and files kept: a fold of the same data)."""
    pick = lambda xs: tuple(xs[i] for i in idx)  # noqa: E731
    return replace(ds, X=pick(ds.X), y=pick(ds.y), groups=pick(ds.groups),
                   t_cpu=pick(ds.t_cpu), t_gpu=pick(ds.t_gpu), names=pick(ds.names))


def size(model: dict) -> dict:
    """Trees, nodes and the deepest leaf of a model (what compiling it in costs)."""
    def depth(t: dict, k: int) -> int:
        return 0 if t["feature"][k] < 0 else 1 + max(depth(t, t["left"][k]),
                                                     depth(t, t["right"][k]))
    return {"trees": len(model["trees"]), "nodes": sum(len(t["feature"]) for t in model["trees"]),
            "max_depth": max(depth(t, 0) for t in model["trees"])}
