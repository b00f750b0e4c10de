"""The C runtime shipped with generated code: ``ompcl_rt.h`` and ``ompcl_rt.c``."""
from __future__ import annotations

import os
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parent
RUNTIME_FILES = ("ompcl_rt.h", "ompcl_rt.c")


def cache_root() -> str | None:
    """The cache directory shared by the runtime (kernel binaries, the device note), the
    driver (built runtimes, translations) and the code generator (compiled templates):
    ``OMPCL_CACHE_DIR``, else ``$XDG_CACHE_HOME/ompcl`` or ``~/.cache/ompcl``; None when
    ``OMPCL_CACHE_DIR=off``."""
    d = os.environ.get("OMPCL_CACHE_DIR", "")
    if d == "off":
        return None
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ompcl")
