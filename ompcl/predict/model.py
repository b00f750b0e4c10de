"""Model files: reading, checking and the default model shipped in ``models/``.

Consumes a path (or nothing: the default); produces a checked model dict (``export``'s
format) or raises ``ModelError`` with a message for the user.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..diagnostics import InputError
from . import export

#: the model compiled into translated programs unless another is chosen
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "default.json"
#: dynamic index reordering's cost model (codegen.host.layout_cost compiles it in)
LAYOUT_COST = DEFAULT_MODEL.with_name("layout-cost.json")


class ModelError(InputError):
    """A model file that cannot be used (message names the file)."""


def load(path: str | os.PathLike) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            model = json.load(fh)
    except OSError as e:
        raise ModelError(f"cannot read model '{path}': {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ModelError(f"'{path}' is not a model file (JSON: {e.msg} at line {e.lineno})") \
            from None
    try:
        export.check(model)
    except ValueError as e:
        raise ModelError(f"'{path}': {e}") from None
    return model


def default() -> dict | None:
    """The shipped default model, or None when the checkout has none."""
    return load(DEFAULT_MODEL) if DEFAULT_MODEL.exists() else None


def resolve(choice: str) -> dict | None:
    """The model a translation compiles in: '' the default, 'none' no model (the device
    whenever one is ready), else the named file."""
    if choice == "none":
        return None
    return load(choice) if choice else default()


def model_file(choice: str) -> str | None:
    """The file ``resolve(choice)`` reads, if any (for build caches)."""
    if choice == "none":
        return None
    if choice:
        return choice
    return str(DEFAULT_MODEL) if DEFAULT_MODEL.exists() else None
