"""The C runtime shipped with generated code: ``ompcl_rt.h`` and ``ompcl_rt.c``."""
from __future__ import annotations

from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parent
RUNTIME_FILES = ("ompcl_rt.h", "ompcl_rt.c")
