"""Direct mode of the translation cache: find a cached translation without preprocessing.

Consumes a source's cache inputs (its text, options, working directory, ompcl's files) and,
after a translation, the preprocessed text it read; produces the key of the translation's
cache entry when every file the preprocessor read then is unchanged and every ``#include``
and ``__has_include`` would find the same file now (as ccache's direct mode does, plus the
check that no new header shadows an old one). Each source has a manifest (a JSON file in the
cache) that records up to ``_KEEP`` such sets of files; a set is recorded only when the
preprocessor's search can be followed exactly (no computed ``#include``, no ``__DATE__`` or
``__TIME__``). Anything unusual is a miss, never a wrong hit: then ``gcc -E`` runs as before.
The preprocessor's search lists, which every lookup follows, are kept in the cache too
(``cc-search``), so a hit runs no preprocessor at all.
``OMPCL_CACHE_DIRECT=0`` turns direct mode off.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess

from .store import store_json

_VERSION = "3"
_KEEP = 4   # file sets per manifest (a file built with several configurations)
#: environment variables that change what the preprocessor reads
_CPP_ENV = ("CPATH", "C_INCLUDE_PATH", "GCC_EXEC_PREFIX", "COMPILER_PATH", "SOURCE_DATE_EPOCH")
_MARKER = re.compile(r'^# \d+ "((?:[^"\\]|\\.)*)"((?: \d)*)$', re.M)
_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*(include_next|include|import)[ \t]*([<"])([^>"\n]*)[>"]',
                        re.M)
_HAS_INCLUDE = re.compile(r'__has_include(_next)?[ \t]*\([ \t]*([<"])([^>"\n]*)[>"][ \t]*\)')
_COMPUTED = re.compile(r'^[ \t]*#[ \t]*(?:include_next|include|import)[ \t]*[^<"\s]', re.M)
_UNSTABLE = re.compile(rb"__DATE__|__TIME__|__TIMESTAMP__|__has_include[ \t]*\([ \t]*[^<\"\s]")


def enabled() -> bool:
    return os.environ.get("OMPCL_CACHE_DIRECT", "1").strip().lower() not in (
        "0", "off", "no", "false")


def direct_key(parts: list[str], source: bytes, cpp, path: str) -> str:
    """The manifest's key: everything but the headers (``parts``: the translation key's
    own inputs, with the source's path and the include directories as spelled), where the
    source really is, the preprocessor itself and its environment. Not where the include
    directories lead: a lookup follows every recorded ``#include`` through the search
    lists of the command at hand (``-I.`` in PolyBench's program folders is another
    directory for each program, and programs that compile one shared file with the same
    options share its manifest). With a symbolic link on the way, the working directory
    is part of the key as well, since the manifest names files by their absolute paths as
    spelled."""
    h = hashlib.sha256()
    places = [os.path.realpath(path)]
    if any(os.path.realpath(p) != os.path.abspath(p) for p in (path, *cpp.include_dirs)):
        places.append(os.getcwd())
    env = [os.environ.get(v, "") for v in _CPP_ENV]
    for part in (_VERSION, *parts, *places, _compiler(cpp), repr(env)):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    h.update(source)
    return h.hexdigest()


def _compiler(cpp) -> str:
    """The preprocessor's executable, as a file (an upgrade is another preprocessor)."""
    exe = shutil.which(cpp.cpp) or cpp.cpp
    try:
        st = os.stat(exe)
        return f"{exe}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return exe


def lookup(manifest: str, cpp) -> str | None:
    """The translation key of the first recorded file set that still holds for the
    options ``cpp`` in this working directory, or None."""
    try:
        with open(manifest, encoding="utf-8") as fh:
            records = json.load(fh)
        if not records:
            return None
        quote, angle = _search_dirs(cpp)
        if angle is None:
            return None
        for rec in records:
            if _holds(rec, quote, angle):
                return rec["key"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def record(manifest: str, key: str, path: str, preprocessed: str, cpp) -> None:
    """Add the file set behind ``preprocessed`` (translation key ``key``) to the manifest,
    when the preprocessor's search can be followed."""
    rec = _file_set(path, preprocessed, cpp)
    if rec is None:
        return
    rec["key"] = key
    try:
        with open(manifest, encoding="utf-8") as fh:
            old = [r for r in json.load(fh) if r.get("key") != key]
    except (OSError, ValueError, AttributeError):
        old = []
    store_json(manifest, [rec, *old][:_KEEP])


def _holds(rec: dict, quote: list[str], angle: list[str]) -> bool:
    """Every file of the set is unchanged and every lookup finds the same file through
    the search lists ``quote`` and ``angle`` of the command at hand."""
    for f, digest in rec["files"].items():
        if _digest(f) != digest:
            return False
    isfile = _memo(os.path.isfile)
    return all(_resolve(kind, base, name, quote, angle, isfile) == found
               for kind, base, name, found in rec["checks"])


def _memo(f):
    seen = {}

    def call(x):
        if x not in seen:
            seen[x] = f(x)
        return seen[x]
    return call


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


#: what this process learnt of a header (a command's sources include the same ones), by
#: path and file identity: its digest and its lookups, or None when it cannot be followed
_headers: dict[tuple, tuple[str, list] | None] = {}


def _header(f: str) -> tuple[str, list] | None:
    """A header's digest and the lookups of its ``#include``s and ``__has_include``s."""
    try:
        st = os.stat(f)
        ident = (f, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
        if ident in _headers:
            return _headers[ident]
        with open(f, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    text = data.decode("utf-8", "surrogateescape")
    if _UNSTABLE.search(data) or _COMPUTED.search(text):
        _headers[ident] = None
        return None
    lookups = [_lookup("next" if m[1] == "include_next" else "quote" if m[2] == '"' else
                       "angle", f, m[3]) for m in _DIRECTIVE.finditer(text)]
    lookups += [_lookup("next" if m[1] else "quote" if m[2] == '"' else "angle", f, m[3])
                for m in _HAS_INCLUDE.finditer(text)]
    _headers[ident] = hashlib.sha256(data).hexdigest(), lookups
    return _headers[ident]


def _file_set(path: str, preprocessed: str, cpp) -> dict | None:
    """Files read (with their digests), the search lists and every lookup's result; None
    when some lookup cannot be followed."""
    included, forced = _included(preprocessed)
    quote, angle = _search_dirs(cpp)
    if angle is None:
        return None
    files, checks, found = {}, [], set()
    for f in included:
        header = _header(f)
        if header is None:
            return None
        files[f], lookups = header
        checks += lookups
    checks = [list(c) for c in dict.fromkeys(checks)]
    isfile = _memo(os.path.isfile)
    for c in checks:
        c.append(_resolve(*c, quote, angle, isfile))
        found.add(c[3])
    main = os.path.abspath(path)
    if any(f not in found and f != main and f not in forced for f in included):
        return None   # a file reached some way this module does not follow
    return {"files": files, "checks": checks}


def _included(preprocessed: str) -> tuple[list[str], set[str]]:
    """The files in the line markers (absolute), and those the command line forced in
    (``-include``, the compiler's predefined-macro header)."""
    files: dict[str, None] = {}
    forced: set[str] = set()
    current = None
    for m in _MARKER.finditer(preprocessed):
        name = re.sub(r"\\(.)", r"\1", m[1])
        if name.startswith("<"):
            current = name
            continue
        f = os.path.abspath(name)
        if " 1" in m[2] and current == "<command-line>":
            forced.add(f)
        files.setdefault(f)
        current = f
    return list(files), forced


def _lookup(kind: str, includer: str, name: str) -> tuple[str, str, str]:
    """A lookup as (kind, what of the includer it depends on, name)."""
    return kind, os.path.dirname(includer) if kind == "quote" else \
        includer if kind == "next" else "", name


def _resolve(kind: str, base: str, name: str, quote: list[str], angle: list[str],
             isfile=os.path.isfile) -> str | None:
    """Where the preprocessor finds ``name`` (``base``: the includer's directory for a
    quoted include, the includer for ``#include_next``)."""
    if os.path.isabs(name):
        return os.path.normpath(name) if isfile(name) else None
    if kind == "quote":
        dirs = [base, *quote, *angle]
    elif kind == "angle":
        dirs = angle
    else:   # include_next: the directories after the one the includer was found in
        chain = [*quote, *angle]
        at = next((k for k, d in enumerate(chain) if base.startswith(d + os.sep)), None)
        dirs = angle if at is None else chain[at + 1:]
    for d in dirs:
        f = os.path.join(d, name)
        if isfile(f):
            return os.path.normpath(f)
    return None


_searches: dict[tuple, tuple[list[str], list[str] | None]] = {}


def _search_dirs(cpp) -> tuple[list[str], list[str] | None]:
    """The preprocessor's ``#include "..."`` and ``#include <...>`` search lists (absolute)
    for these options in this working directory (memoised in the process: a command's
    sources share them)."""
    key = (repr(cpp), os.getcwd(), *(os.environ.get(v, "") for v in _CPP_ENV))
    if key not in _searches:
        _searches[key] = _spelled_search_dirs(cpp)
        quote, angle = _searches[key]
        if angle is not None:
            _searches[key] = [os.path.abspath(d) for d in quote], \
                [os.path.abspath(d) for d in angle]
    return _searches[key]


def _spelled_search_dirs(cpp) -> tuple[list[str], list[str] | None]:
    """The search lists as ``cpp -v`` prints them (relative directories as spelled), kept
    in the cache (``cc-search``) under what decides them: the preprocessor, its
    environment, the options and the shape of the ``-I`` directories (gcc drops missing
    ones and second names of one directory). Still valid while each directory it dropped
    as missing is missing, each one it kept is a distinct directory, and each ``-I``
    directory is one of them."""
    from ..runtime import cache_root
    h = hashlib.sha256()
    for part in (_VERSION, _compiler(cpp), repr(cpp.flags()),
                 *(os.environ.get(v, "") for v in _CPP_ENV), repr(_shape(cpp.include_dirs))):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    root = cache_root()
    entry = os.path.join(root, "cc-search", h.hexdigest() + ".json") if root else None
    try:
        with open(entry, encoding="utf-8") as fh:
            data = json.load(fh)
        if _still_valid(data, cpp.include_dirs):
            return data["quote"], data["angle"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    quote, angle, missing = _ask_search_dirs(cpp)
    if entry and angle is not None:
        store_json(entry, {"quote": quote, "angle": angle, "missing": missing})
    return quote, angle


def _shape(dirs) -> list:
    """Each directory as gcc's list sees it: missing, not a directory, or a directory
    (with the index of an earlier name of the same one)."""
    seen: dict[tuple[int, int], int] = {}
    out = []
    for k, d in enumerate(dirs):
        try:
            st = os.stat(d)
        except OSError:
            out.append("missing")
            continue
        if not stat.S_ISDIR(st.st_mode):
            out.append("file")
            continue
        out.append(seen.setdefault((st.st_dev, st.st_ino), k))
    return out


def _still_valid(data: dict, include_dirs) -> bool:
    listed = set()
    for d in data["quote"] + data["angle"]:
        st = os.stat(d)     # OSError: a listed directory is gone
        if not stat.S_ISDIR(st.st_mode) or (st.st_dev, st.st_ino) in listed:
            return False
        listed.add((st.st_dev, st.st_ino))
    for d in include_dirs:
        try:
            st = os.stat(d)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and (st.st_dev, st.st_ino) not in listed:
            return False
    return not any(os.path.exists(d) for d in data["missing"])


def _ask_search_dirs(cpp) -> tuple[list[str], list[str] | None, list[str]]:
    """``cpp -v``'s search lists and the directories it ignored as nonexistent."""
    from ..frontend.preprocess import PRELUDE
    cmd = [cpp.cpp, "-E", "-v", "-fopenmp", "-U__GNUC__", "-include", str(PRELUDE),
           *cpp.flags(), "-x", "c", os.devnull]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError:
        return [], None, []
    quote, angle, missing, into = [], [], [], None
    for line in proc.stderr.splitlines():
        if line.startswith('ignoring nonexistent directory "') and line.endswith('"'):
            missing.append(line[len('ignoring nonexistent directory "'):-1])
        elif line.startswith('#include "..." search starts here'):
            into = quote
        elif line.startswith("#include <...> search starts here"):
            into = angle
        elif line.startswith("End of search list"):
            return quote, angle, missing
        elif into is not None and line.startswith(" "):
            into.append(line.strip().removesuffix(" (framework directory)"))
    return [], None, []
