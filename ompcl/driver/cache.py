"""A persistent cache of translations, for builds that translate the same file again.

Consumes a source path, its preprocessor options and a translate function; produces the
translation (host text and remarks), from the cache when an earlier translation had the same
inputs. The key is everything translation reads: the file's own text, its preprocessed text
(so every header's content and every macro), the path as spelled, the options, and ompcl's
own files (a change to ompcl is a new cache). Entries live in the cache directory
(``OMPCL_CACHE_DIR``; ``off`` disables) and can be deleted at any time.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile

from .client import package_fingerprint
from .runtime import cache_root

_VERSION = "1"
#: environment variables the translator reads (besides those in the options' repr)
_TRANSLATION_ENV = ("OMPCL_CHECK_IR", "OMPCL_INTERCHANGE", "OMPCL_REORDER")


def cached(path: str, cpp, translate, sources: tuple[str, ...] = (), model: str = ""
           ) -> tuple[str, list[tuple[str, str]]]:
    """``translate(path, cpp, sources)``, or its result from an earlier run with the same
    inputs (the program's other sources, where called functions may be defined, and the
    dispatch model compiled in, included)."""
    root = cache_root()
    if root is None:
        return translate(path, cpp, sources)
    from ..frontend.preprocess import preprocess
    from ..frontend.siblings import candidate_sources
    try:
        from ..predict.model import model_file
        others = candidate_sources(path, tuple(cpp.include_dirs), sources)
        chosen = model_file(model)
        key = _key(path, cpp, preprocess(path, cpp), others + ([chosen] if chosen else []),
                   model)
    except Exception:
        return translate(path, cpp, sources)  # translation will report the problem
    entry = os.path.join(root, "cc-translations", key[:2], key + ".json")
    try:
        with open(entry, encoding="utf-8") as fh:
            data = json.load(fh)
        return data["host"], [tuple(r) for r in data["remarks"]]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    host, remarks = translate(path, cpp, sources)
    _store(entry, {"host": host, "remarks": remarks})
    return host, remarks


def _key(path: str, cpp, preprocessed: str, others=(), model: str = "") -> str:
    h = hashlib.sha256()
    for f in others:  # a callee defined there may change
        st = os.stat(f)
        h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    with open(path, "rb") as fh:
        source = fh.read()
    env = [os.environ.get(v, "") for v in _TRANSLATION_ENV]
    for part in (_VERSION, package_fingerprint(), path, repr(cpp), repr(env), model):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(source + b"\0")
    h.update(preprocessed.encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _store(entry: str, data: dict) -> None:
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
