"""A persistent cache of translations, for builds that translate the same file again.

Consumes a source path, its preprocessor options and a translate function; produces the
translation (host text and remarks), from the cache when an earlier translation had the same
inputs. The key is everything translation reads: the file's own text, its preprocessed text
(so every header's content and every macro), the path as spelled, the options, and ompcl's
own files (a change to ompcl is a new cache). Entries live in the cache directory
(``OMPCL_CACHE_DIR``; ``off`` disables) and can be deleted at any time; so can the
manifests of direct mode.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile

from . import manifest
from .client import package_fingerprint
from .runtime import cache_root

_VERSION = "1"
#: environment variables the translator reads (besides those in the options' repr)
_TRANSLATION_ENV = ("OMPCL_CHECK_IR", "OMPCL_INTERCHANGE", "OMPCL_REORDER")


def cached(path: str, cpp, translate, sources: tuple[str, ...] = (), model: str = ""
           ) -> tuple[str, list[tuple[str, str]]]:
    """``translate(path, cpp, sources)``, or its result from an earlier run with the same
    inputs (the program's other sources, where called functions may be defined, and the
    dispatch model compiled in, included). Direct mode (``manifest.py``) finds the entry of
    an unchanged file without preprocessing it."""
    root = cache_root()
    if root is None:
        return translate(path, cpp, sources)
    from ..frontend.preprocess import preprocess
    from ..frontend.siblings import candidate_sources
    try:
        from ..predict.model import model_file
        others = candidate_sources(path, tuple(cpp.include_dirs), sources)
        chosen = model_file(model)
        others += [chosen] if chosen else []
        with open(path, "rb") as fh:
            source = fh.read()
        parts = _parts(path, cpp, others, model)
        book = None
        if manifest.enabled():
            direct = manifest.direct_key(parts, source, cpp)
            book = os.path.join(root, "cc-manifests", direct[:2], direct + ".json")
            hit = _load(root, manifest.lookup(book))
            if hit is not None:
                return hit
        preprocessed = preprocess(path, cpp)
        key = _key(parts, source, preprocessed)
    except Exception:
        return translate(path, cpp, sources)  # translation will report the problem
    result = _load(root, key)
    if result is None:
        result = translate(path, cpp, sources)
        host, remarks = result
        _store(_entry(root, key), {"host": host, "remarks": remarks})
    if book is not None:
        try:
            manifest.record(book, key, path, preprocessed, cpp, _store)
        except Exception:   # a manifest is an optimisation: never a reason to fail
            pass
    return result


def _entry(root: str, key: str) -> str:
    return os.path.join(root, "cc-translations", key[:2], key + ".json")


def _load(root: str, key: str | None) -> tuple[str, list[tuple[str, str]]] | None:
    if key is None:
        return None
    try:
        with open(_entry(root, key), encoding="utf-8") as fh:
            data = json.load(fh)
        return data["host"], [tuple(r) for r in data["remarks"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _parts(path: str, cpp, others, model: str) -> list[str]:
    """The key's inputs besides the source and its preprocessed text."""
    parts = []
    for f in others:  # a callee defined there may change
        st = os.stat(f)
        parts.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    env = [os.environ.get(v, "") for v in _TRANSLATION_ENV]
    return [*parts, _VERSION, package_fingerprint(), path, repr(cpp), repr(env), model]


def _key(parts: list[str], source: bytes, preprocessed: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(source + b"\0")
    h.update(preprocessed.encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _store(entry: str, data) -> None:
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
