"""The models ``ompcl bench load`` compares: trained with and without the load features.

Consumes the training rows of ``ompcl bench load`` (``training_rows.csv``: each row with the
load columns of ``predict.schema.LOAD`` and its ``level``) and, optionally, *base* rows: a
quiet machine's collection in ``ompcl train``'s layout (``models/xeon-rows.csv``), which
carry no load columns and are given those of a quiet machine (no other runnable task, no
busy share, the row's own thread count). Produces model files (``predict.export``'s JSON)
in a directory: ``blind.json`` and ``aware.json`` and, per benchmark, the same trained
without that benchmark's rows (``KIND-minus-BM.json``, the honest model for that benchmark).

Without base rows a few hundred loaded rows train a cost-weighted tree (``LOAD_SETTINGS``).
With them the models learn from the rows the shipped default learned from plus the loaded
ones, with the shipped default's settings: a load-aware model that starts from what the
default knows of a quiet machine, compared with one trained on the same rows without the
load features.
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

#: the learner without base rows (one per held-out benchmark, so no search): a decision tree,
#: rows weighted by what choosing wrong costs
LOAD_SETTINGS = {"learner": "tree", "max_depth": 6, "min_leaf": 2, "weighting": "cost"}


def load_model(rows: list[dict], load: bool, settings: dict | None = None) -> dict:
    """The model of ``rows`` (CSV text or numbers) trained by ``ompcl train``'s code
    (``predict.learners.fit``) over the model's features and, with ``load``, the load
    features too (a load-aware model: ``ompcl_rt_model.c`` reads either), with ``settings``
    (``learners.Settings`` fields; ``LOAD_SETTINGS`` by default). Rows with a time of 0
    (below the timer's resolution) are left out, as ``ompcl train`` refuses them."""
    from ..predict import data, learners
    timed = [r for r in rows if min(float(r["runtime_cpu"]), float(r["runtime_gpu"])) > 0]
    parsed = data.parse_rows(timed, "training rows")
    model = learners.fit(data.from_rows(parsed, load=load),
                         learners.Settings(**(settings or LOAD_SETTINGS)))
    model["metadata"] = {"rows": len(timed), "load_features": load}
    return model


def quiet_rows(rows: list[dict], cores: int, threads: int) -> list[dict]:
    """Base rows (``ompcl train``'s layout) with the load columns of a quiet machine: no
    other runnable task, no busy share, the row's thread count (``threads`` where it has
    none) on ``cores`` cores."""
    from ..predict.schema import LOAD
    out = []
    for r in rows:
        n = int(float(r.get("threads") or threads))
        quiet = dict(zip(LOAD, (0.0, 0.0, 0.0, n, cores)))
        out.append({**r, **quiet, "level": "base"})
    return out


def default_settings() -> dict:
    """The training settings of the shipped default model (its metadata)."""
    from ..predict import learners, model
    shipped = model.default() or {}
    fields = set(learners.Settings.__dataclass_fields__)
    got = (shipped.get("metadata") or {}).get("settings") or {}
    return {k: v for k, v in got.items() if k in fields} or dict(LOAD_SETTINGS)


def _program(row: dict) -> str:
    """The benchmark a row belongs to: ``bt`` of a loaded row ``bt-host1``; a base row's
    whole name (``nas-bt``)."""
    name = row["benchmark"]
    return name if row.get("level") == "base" else name.rsplit("-", 1)[0]


def _held_out(row: dict, held: str | None) -> bool:
    """Whether ``row`` is of benchmark ``held``: a loaded row named after it, or a base row
    one of whose ``-``-separated parts it is (``nas-bt`` for ``bt``)."""
    return held is not None and (_program(row) == held or held in row["benchmark"].split("-"))


def train_models(rows_csv: Path, out: Path, base: list[Path] | tuple = ()) -> list[Path]:
    """``blind.json`` (the rows at the user's thread count, without the load features) and
    ``aware.json`` (every row, with them), and each without one benchmark's rows
    (``KIND-minus-BM.json``). ``base``: files of quiet rows trained on too (``quiet_rows``),
    then with ``default_settings``."""
    rows = _csv(rows_csv, ("benchmark", "host_threads", "cores"))
    most = max(int(float(r["host_threads"])) for r in rows)
    cores = max(int(float(r["cores"])) for r in rows)
    extra = [r for p in base for r in quiet_rows(_csv(p, ("benchmark",)), cores, most)]
    settings = default_settings() if extra else None
    out.mkdir(parents=True, exist_ok=True)
    benchmarks = sorted({_program(r) for r in rows})
    written = []
    for held in [None, *benchmarks]:
        kept = [r for r in rows + extra if not _held_out(r, held)]
        for kind, load in (("blind", False), ("aware", True)):
            use = kept if load else [r for r in kept if int(float(r["host_threads"])) == most]
            if not use:
                continue
            path = out / (f"{kind}.json" if held is None else f"{kind}-minus-{held}.json")
            path.write_text(json.dumps(load_model(use, load, settings)) + "\n")
            written.append(path)
    return written


def _csv(path: Path, need: tuple[str, ...]) -> list[dict]:
    """The rows of a CSV file with at least one row and the columns ``need``
    (``InputError`` otherwise)."""
    from ..diagnostics import InputError
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as e:
        raise InputError(f"cannot read '{path}': {e.strerror}") from None
    missing = [c for c in need if not rows or c not in rows[0]]
    if missing:
        raise InputError(f"'{path}': " + ("no rows" if not rows else
                                          f"no column {', '.join(missing)}"))
    return rows


def main(args: list[str]) -> int:
    """``train ROWS DIR [BASE.csv ...]``: write the models, one path per line; a bad file is
    an ``ompcl: error:`` line and exit status 1."""
    from ..diagnostics import OmpclError
    try:
        written = train_models(Path(args[0]), Path(args[1]), [Path(a) for a in args[2:]])
    except OmpclError as e:
        print(f"ompcl: error: {e.message}", file=sys.stderr)
        return 1
    for p in written:
        print(p)
    return 0
