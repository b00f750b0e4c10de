"""Training data: rows of device-mapping measurements read from CSV files.

Consumes CSV files with the columns of the public device-mapping datasets (``REQUIRED``:
``benchmark, dataset, comp, mem, localmem, coalesced, atomic, transfer, wgsize, runtime_cpu,
runtime_gpu``; ``branches`` and ``work_items`` are read when present, else 0; any other
column, such as the public files' ``rational`` and ``oracle``, is ignored; ``threads``, the
OpenMP thread count our collections record, can select rows). Our own rows have a
``kernel`` column; a file without one is in the public layout, whose ``benchmark`` names the
program and the kernel: the program is the part before the last ``-`` (``npb-3.3-BT-
exact_rhs5``: program ``npb-3.3-BT``, kernel ``exact_rhs5``), as the published
leave-one-program-out groups them. Produces a ``Dataset``: per row the full feature vector
(``schema.full``, the vector the runtime builds), the label (1 when the device was faster), the
program it belongs to (``benchmark``, the group of leave-one-program-out) and both run times,
plus a digest of the data, or raises ``DataError`` with a one-line message.

Rows that carry every load column (``schema.LOAD``: ``ompcl bench load`` writes them) can
train with them (``load_features`` "auto", the default, or "on"): their vectors are then
``schema.full_load``, the runtime's vector of a load-aware model, and the digest covers the
load columns too. Without the load columns (or with "off") the dataset is the same as
before, digest included.
"""
from __future__ import annotations

import csv
import hashlib
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

from ..diagnostics import InputError
from . import schema

#: columns every training file must have (those of the public device-mapping datasets)
REQUIRED: tuple[str, ...] = tuple(c for c in schema.ROW_COLUMNS[:12] if c != "kernel")
#: feature columns read when present (our own rows carry them), 0 otherwise
OPTIONAL: tuple[str, ...] = tuple(c for c in schema.ROW_COLUMNS if c not in REQUIRED)
_RAW = schema.STATIC + schema.DYNAMIC
_TIMES = ("runtime_cpu", "runtime_gpu")


#: ``load_features`` modes: use the load columns when every row has them, always, never
LOAD_MODES = ("auto", "on", "off")


class DataError(InputError):
    """Training data that cannot be used (the message names the file and row)."""


class NoLoadColumns(DataError):
    """``load_features`` "on" for rows without the load columns (a usage error)."""


@dataclass(frozen=True)
class Dataset:
    """Measured rows ready for a learner (all sequences have one entry per row)."""

    X: tuple[tuple[float, ...], ...]   # schema.full() of each row
    y: tuple[int, ...]                 # 1: the device was faster, 0: the host
    groups: tuple[str, ...]            # the row's program (benchmark column)
    t_cpu: tuple[float, ...]           # seconds on the host (OpenMP)
    t_gpu: tuple[float, ...]           # seconds on the device, transfers included
    names: tuple[str, ...]             # benchmark/dataset/kernel, for reports
    digest: str                        # sha256 of the rows as used (see ``digest``)
    files: tuple[str, ...]
    load: bool = False                 # X holds the load features (schema.full_load)

    def __len__(self) -> int:
        return len(self.y)

    @property
    def programs(self) -> int:
        return len(set(self.groups))


def label(t_cpu: float, t_gpu: float) -> int:
    """1 when the device was strictly faster (a tie keeps the host: never slower)."""
    return int(t_gpu < t_cpu)


def _number(text: str, column: str, where: str) -> float:
    try:
        x = float(text)
    except (TypeError, ValueError):
        raise DataError(f"{where}: column '{column}' is not a number: {text!r}") from None
    if not math.isfinite(x):
        raise DataError(f"{where}: column '{column}' is not finite: {text!r}")
    return x


def _check_header(path: str, header: Sequence[str] | None) -> None:
    if not header:
        raise DataError(f"'{path}' is empty (expected a CSV header with {', '.join(REQUIRED)})")
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise DataError(f"'{path}' lacks the required column(s) {', '.join(missing)} "
                        f"(a training CSV has {', '.join(REQUIRED)})")


def split_benchmark(name: str) -> tuple[str, str]:
    """(program, kernel) of a public-layout ``benchmark``: split at its last ``-``."""
    program, _, kernel = name.rpartition("-")
    return (program, kernel) if program else (name, "")


def _parse_load(row: dict, where: str) -> dict:
    """The load columns of a row, as numbers (any finite value: the device's load is -1
    where it is not known)."""
    return {c: _number(row.get(c), c, where) for c in schema.LOAD}


def _parse_row(row: dict, where: str, public: bool, load: bool = False) -> dict:
    """The used values of one CSV row: names as text, features and times as numbers (the
    load columns too, with ``load``)."""
    out = {c: (row.get(c) or "").strip() for c in ("benchmark", "dataset", "kernel")}
    threads = (row.get("threads") or "").strip()
    out["threads"] = int(_number(threads, "threads", where)) if threads else None
    if not out["benchmark"]:
        raise DataError(f"{where}: column 'benchmark' is empty")
    if public:
        out["benchmark"], out["kernel"] = split_benchmark(out["benchmark"])
    for c in _RAW:
        text = row.get(c)
        out[c] = 0.0 if c in OPTIONAL and text in (None, "") else _number(text, c, where)
        if out[c] < 0:
            raise DataError(f"{where}: column '{c}' is negative: {text!r}")
    for c in _TIMES:
        out[c] = _number(row.get(c), c, where)
        if out[c] <= 0:
            raise DataError(f"{where}: column '{c}' must be a positive time in seconds, "
                            f"not {row.get(c)!r}")
    if load:
        out.update(_parse_load(row, where))
    return out


def read_rows(path: str | os.PathLike) -> list[dict]:
    """The rows of one CSV file, checked (``DataError`` names the file and line)."""
    path = str(path)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            _check_header(path, reader.fieldnames)
            public = "kernel" not in (reader.fieldnames or ())
            load = all(c in reader.fieldnames for c in schema.LOAD)
            rows = [_parse_row(r, f"{path}:{reader.line_num}", public, load) for r in reader]
    except OSError as e:
        raise DataError(f"cannot read training data '{path}': {e.strerror}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise DataError(f"'{path}' is not a CSV file ({e})") from None
    return rows


def parse_rows(rows: Sequence[dict], where: str = "rows") -> list[dict]:
    """Rows given as dicts (CSV text or numbers, ``read_rows``' columns) checked and parsed
    as ``read_rows`` parses a file's: in the public layout when the first has no
    ``kernel``, with the load columns when every row has them."""
    public = bool(rows) and "kernel" not in rows[0]
    load = has_load(rows)
    return [_parse_row({k: v if isinstance(v, str) or v is None else str(v)
                        for k, v in r.items()}, f"{where}:{k + 1}", public, load)
            for k, r in enumerate(rows)]


def has_load(rows: Sequence[dict]) -> bool:
    """Whether every row carries the load columns (``schema.LOAD``)."""
    return bool(rows) and all(c in r for r in rows for c in schema.LOAD)


def use_load(rows: Sequence[dict], mode: str, files: Sequence[str] = ()) -> bool:
    """Whether to train with the load features: ``mode`` "auto" when every row has the
    load columns, "on" always (``NoLoadColumns`` if a row lacks them), "off" never."""
    if mode not in LOAD_MODES:
        raise ValueError(f"unknown --load-features '{mode}' (choose {', '.join(LOAD_MODES)})")
    if mode == "on" and not has_load(rows):
        where = f" in {', '.join(files)}" if files else ""
        raise NoLoadColumns(f"--load-features on: the rows{where} lack the load column(s) "
                            f"{', '.join(schema.LOAD)} (rows of 'ompcl bench load' have them)")
    return mode != "off" and has_load(rows)


def digest(rows: Iterable[dict], load: bool = False) -> str:
    """sha256 of the used columns of ``rows`` in order (independent of column order, extra
    columns and number formatting), so a model names the data it was trained on; with
    ``load`` the load columns count too."""
    h = hashlib.sha256()
    used = _RAW + _TIMES + (schema.LOAD if load else ())
    for r in rows:
        fields = [r["benchmark"], r["dataset"], r["kernel"]]
        fields += [repr(float(r.get(c) or 0.0)) for c in used]
        h.update(("\x1f".join(fields) + "\n").encode())
    return h.hexdigest()


def from_rows(rows: Sequence[dict], files: Sequence[str] = (), load: bool = False) -> Dataset:
    """A dataset from parsed rows (``read_rows``' format; absent features are 0); with
    ``load`` their vectors hold the load features too."""
    if not rows:
        raise DataError("no training rows" + (f" in {', '.join(files)}" if files else ""))
    vector = schema.full_load if load else schema.full
    return Dataset(
        X=tuple(vector(r) for r in rows),
        y=tuple(label(r["runtime_cpu"], r["runtime_gpu"]) for r in rows),
        groups=tuple(r["benchmark"] for r in rows),
        t_cpu=tuple(r["runtime_cpu"] for r in rows),
        t_gpu=tuple(r["runtime_gpu"] for r in rows),
        names=tuple(f"{r['benchmark']}/{r['dataset']}/{r['kernel']}" for r in rows),
        digest=digest(rows, load), files=tuple(files), load=load)


def without_load(ds: Dataset) -> Dataset:
    """``ds`` as a load-blind learner sees it: the same rows (same order, groups, labels,
    times), their vectors cut to ``schema.FEATURES``."""
    n = len(schema.FEATURES)
    return replace(ds, X=tuple(x[:n] for x in ds.X), load=False)


def with_threads(rows: Sequence[dict], threads: int | None) -> list[dict]:
    """The rows measured with ``threads`` OpenMP threads (and those that do not say); all
    rows when ``threads`` is None."""
    return [r for r in rows if threads is None or r.get("threads") in (None, threads)]


def load(paths: Sequence[str | os.PathLike], threads: int | None = None,
         load_features: str = "auto") -> Dataset:
    """All rows of the CSV files ``paths``, in order (only those of ``threads`` OpenMP
    threads where it is given: the features do not hold the thread count), with the load
    features as ``use_load`` decides for ``load_features``."""
    rows: list[dict] = []
    for p in paths:
        rows += read_rows(p)
    files = [Path(p).name for p in paths]
    kept = with_threads(rows, threads)
    if rows and not kept:
        counts = sorted({r["threads"] for r in rows if r.get("threads") is not None})
        raise DataError(f"no rows measured with {threads} OpenMP threads in {', '.join(files)}"
                        f" (they have {', '.join(map(str, counts))})")
    return from_rows(kept, files, bool(kept) and use_load(kept, load_features, files))


#: the columns of the public device-mapping files (Cummins et al.'s ``cgo17-{amd,nvidia}.csv``)
PUBLIC_COLUMNS: tuple[str, ...] = (
    "benchmark", "dataset", "comp", "rational", "mem", "localmem", "coalesced", "atomic",
    "runtime_cpu", "runtime_gpu", "transfer", "wgsize")


def public_rows(rows: Sequence[dict]) -> list[dict]:
    """``rows`` (``read_rows``' format) in the public layout: no ``kernel``, ``branches`` or
    ``work_items`` column, the kernel joined to the program in ``benchmark`` after a ``-``
    (dashes in the kernel name become ``_``, so ``split_benchmark`` finds the program again),
    ``rational`` (the public files' count of other operations: 0). A test set of the public
    files' columns built from our own measurements."""
    out = []
    for r in rows:
        kernel = (r.get("kernel") or "k").replace("-", "_")
        row = {c: r.get(c, 0) for c in PUBLIC_COLUMNS}
        row.update(benchmark=f"{r['benchmark']}-{kernel}", rational=0)
        out.append(row)
    return out
