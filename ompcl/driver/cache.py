"""A persistent cache of translations, for builds that translate the same file again.

Consumes a source path, its preprocessor options and a translate function; produces the
translation (host text and remarks), from the cache when an earlier translation had the same
inputs. The key is everything translation reads: the file's own text, its preprocessed text
(so every header's content and every macro), the path as spelled, the options, and ompcl's
own files (a change to ompcl is a new cache). What the translation learnt from the program's
other sources (where a called function may be defined) is recorded in the entry
(``siblings.watched``): the answers to its questions about their text, which must come out the
same for the files there are now, or, when it read them otherwise, their names, sizes and
times, which must be unchanged. A file whose translation only asked questions is shared by
every program that compiles it (PolyBench's ``polybench.c``). Entries live in the cache directory
(``OMPCL_CACHE_DIR``; ``off`` disables) and can be deleted at any time; so can the
manifests of direct mode.
"""
from __future__ import annotations

import hashlib
import json
import os

from . import manifest
from .client import package_fingerprint
from .runtime import cache_root
from .store import store_json

_VERSION = "2"
#: environment variables the translator reads (besides those in the options' repr)
_TRANSLATION_ENV = ("OMPCL_CHECK_IR", "OMPCL_INTERCHANGE", "OMPCL_REORDER", "OMPCL_DYNREORDER",
                    "OMPCL_PROMOTE", "OMPCL_VECTORIZE")


def cached(path: str, cpp, translate, sources: tuple[str, ...] = (), model: str = "",
           later: list | None = None) -> tuple[str, list[tuple[str, str]]]:
    """``translate(path, cpp, sources)``, or its result from an earlier run with the same
    inputs (the program's other sources, where called functions may be defined, and the
    dispatch model compiled in, included). Direct mode (``manifest.py``) finds the entry of
    an unchanged file without preprocessing it. With ``later``, writing a new entry (and its
    direct-mode record) is appended there as a function to call when the caller likes (while
    the compiler runs): the result does not wait for it."""
    root = cache_root()
    if root is None:
        return translate(path, cpp, sources)
    from ..frontend.preprocess import preprocess
    from ..frontend.siblings import candidate_sources, watched
    try:
        from ..predict.model import LAYOUT_COST, model_file
        others = candidate_sources(path, tuple(cpp.include_dirs), sources)
        with open(path, "rb") as fh:
            source = fh.read()
        chosen = [model_file(model)] if model_file(model) else []
        chosen += [str(LAYOUT_COST)] if LAYOUT_COST.exists() else []
        parts = _parts(path, cpp, chosen, model)
        book = None
        if manifest.enabled():
            direct = manifest.direct_key(parts, source, cpp, path)
            book = os.path.join(root, "cc-manifests", direct[:2], direct + ".json")
            hit = _load(root, manifest.lookup(book, cpp), others)
            if hit is not None:
                return hit
        preprocessed = preprocess(path, cpp)
        key = _key(parts, source, preprocessed)
    except Exception:
        return translate(path, cpp, sources)  # translation will report the problem
    result = _load(root, key, others)
    entry = None
    if result is None:
        with watched() as seen:
            result = translate(path, cpp, sources)
        host, remarks = result
        entry = {"host": host, "remarks": remarks,
                 "siblings": _stats(others) if seen.read else None,
                 "answers": [[q, n, a] for (q, n), a in sorted(seen.answers.items())]}

    def write() -> None:
        if entry is not None:
            store_json(_entry(root, key), entry)
        if book is not None:
            try:
                manifest.record(book, key, path, preprocessed, cpp)
            except Exception:   # a manifest is an optimisation: never a reason to fail
                pass
    if later is None:
        write()
    else:
        later.append(write)
    return result


def _entry(root: str, key: str) -> str:
    return os.path.join(root, "cc-translations", key[:2], key + ".json")


def _load(root: str, key: str | None, others
          ) -> tuple[str, list[tuple[str, str]]] | None:
    """The entry at ``key``, unless what its translation learnt from the other sources
    (``others`` now) has changed."""
    if key is None:
        return None
    from ..frontend.siblings import same_answers
    try:
        with open(_entry(root, key), encoding="utf-8") as fh:
            data = json.load(fh)
        if data["siblings"] is not None and data["siblings"] != _stats(others):
            return None
        if not same_answers(data["answers"], others):
            return None
        return data["host"], [tuple(r) for r in data["remarks"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _stats(files) -> list[str]:
    """What the key knows of files: name, size and modification time."""
    out = []
    for f in files:
        st = os.stat(f)
        out.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    return out


def _parts(path: str, cpp, chosen: list[str], model: str) -> list[str]:
    """The key's inputs besides the source and its preprocessed text (the models compiled
    in, ``chosen``, are read by every translation that offloads a loop)."""
    env = [os.environ.get(v, "") for v in _TRANSLATION_ENV]
    return [*_stats(chosen), _VERSION, package_fingerprint(), path,
            repr(cpp), repr(env), model]


def _key(parts: list[str], source: bytes, preprocessed: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(source + b"\0")
    h.update(preprocessed.encode("utf-8", "surrogateescape"))
    return h.hexdigest()

