"""Atomic JSON files in the cache directory, the lowest layer of the driver's caches.

Consumes a path and JSON-able data; produces the file, written whole or not at all (parallel
builds read and write the same entries), used by the translation cache (``cache.py``) and its
direct mode (``manifest.py``).
"""
from __future__ import annotations

import json
import os
import tempfile


def store_json(entry: str, data) -> None:
    """Write atomically (parallel builds); a cache that cannot be written is no error."""
    tmp = None
    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(entry), prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as fh:
            json.dump(data, fh)
        os.replace(tmp, entry)
    except OSError:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
