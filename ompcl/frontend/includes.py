"""Inlining of included user sources: Parboil's ``#include "computeQ.c"``, Rodinia's
``#include "kernel.c"``, whose OpenMP loops would otherwise come from another file than the
one whose text the host output splices.

Consumes the main file's path, text and preprocessed text (its line markers say what the
preprocessor included, from where, and how it spelled it); produces the combined text, with
each qualifying include directive replaced by the included file's text between ``#line``
markers (so ``__FILE__``, ``__LINE__``, diagnostics and debug information still name the
included file), its ``SourceMap`` and its preprocessed text, or None. An include qualifies
(docs/translation.md, "Included sources") when

- it is a quoted ``#include "name"`` alone on its line of the main file, found (as the
  preprocessor found it) beside the main file or in an include directory, not a system
  header nor a file under ``/usr``, entered once in the whole translation unit;
- the file holds a ``#pragma omp parallel`` or ``for`` directive (or one written through a
  macro) and nothing whose meaning depends on being a file of its own: ``#pragma once``,
  ``#import``, ``#include_next``, a computed ``#include``, ``#line``, ``#pragma GCC
  system_header``; its quoted includes found beside it are respelled to find the same file
  from the main file's directory, and one that the main file's directory would answer
  instead keeps the file out;
- and the combined text preprocesses to exactly the tokens of the original (when several
  files qualify but not together, those that pass on their own are tried together; what
  is not inlined keeps its loops on the host, as before, with the reason).
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

from ..diagnostics import OmpclError
from .preprocess import encoding_of, preprocess_text
from .sourcemap import BEGIN, END, Inlined, SourceMap, marker_name, unmarked
from .textscan import MARKER

#: a line holding only a quoted include (and a comment)
_INCLUDE_LINE = re.compile(r'[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"[ \t]*'
                           r'(?://.*|/\*(?:[^*]|\*(?!/))*\*/[ \t]*)?\r?')
_QUOTED = re.compile(r'^([ \t]*#[ \t]*include[ \t]*)"([^"\n]+)"', re.M)
#: what makes a file a translation candidate: a loop or a parallel region
_LOOPS = re.compile(r'^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(?:parallel|for)\b'
                    r'|\b\w+[ \t]*\([ \t]*"?[ \t]*omp[ \t]+(?:parallel|for)\b', re.M)
#: what a file means differently once it is not a file of its own
_OWN_FILE = re.compile(r'^[ \t]*#[ \t]*(?:line\b|\d|import\b|include(?:_next\b|[ \t]+[A-Za-z_])'
                       r'|pragma[ \t]+(?:once\b|GCC[ \t]+system_header\b))'
                       r'|_Pragma[ \t]*\([ \t]*"[ \t]*(?:once|GCC[ \t]+system_header)', re.M)
_LINE_DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*(?:line\b|\d)', re.M)


@dataclass
class _Entry:
    """A file the preprocessor entered from the main file, and where."""

    name: str      # as the line markers spell it
    real: str      # its real path
    system: bool
    at: int = 0    # the line of the main file whose include directive entered it


def _real(name: str) -> str:
    return os.path.realpath(unmarked(name))


def _entries(preprocessed: str, path: str) -> tuple[list[_Entry], Counter]:
    """The files entered from the main file itself, and how often every file was entered."""
    main, stack, out, count = marker_name(path), [], [], Counter()
    pending: _Entry | None = None
    for raw in preprocessed.split("\n"):
        m = MARKER.match(raw) if raw.startswith("#") else None
        if not m:
            continue
        line, name, flags = int(m[1]), m[2], m[3].split()
        if "1" in flags:
            if stack == [main]:
                pending = _Entry(name, _real(name), "3" in flags)
            count[_real(name)] += 1
            stack.append(name)
            continue
        if "2" in flags and stack:
            stack.pop()
        stack[-1:] = [name]
        if "2" in flags and stack == [main] and pending is not None:
            pending.at = line - 1
            out.append(pending)
            pending = None
    return out, count


def _found_by_quoted_search(name: str, real: str, main_dir: str, dirs: tuple[str, ...]) -> bool:
    """Whether ``#include "name"`` in the main file finds the file ``real``."""
    for d in (main_dir, *dirs):
        cand = os.path.join(d, name)
        if os.path.isfile(cand):
            return os.path.realpath(cand) == real
    return False


def _decoded(data: bytes, like: str) -> str | None:
    """A file's text, read as ompcl reads the main file (UTF-8, else Latin-1), when it can
    be written back in the main file's encoding ``like`` unchanged."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8") if like == "utf-8" or data.isascii() else None
    except UnicodeDecodeError:
        return data.decode("latin-1") if like == "latin-1" else None


def _respelled(text: str, file_dir: str, main_dir: str) -> str | None:
    """``text`` (of a file in ``file_dir``) with each quoted include that the file's own
    directory answers spelled so that the main file's directory answers it with the same
    file; None when the main file's directory would answer one instead."""
    if os.path.samefile(file_dir, main_dir):
        return text
    clash = False

    def one(m: re.Match) -> str:
        nonlocal clash
        name = m[2]
        cand = os.path.join(file_dir, name)
        if os.path.isabs(name) or not os.path.isfile(cand):
            clash = clash or not os.path.isabs(name) and os.path.exists(
                os.path.join(main_dir, name))
            return m[0]
        rel = os.path.relpath(cand, main_dir)
        same = os.path.realpath(os.path.join(main_dir, rel)) == os.path.realpath(cand)
        return f'{m[1]}"{marker_name(rel if same else os.path.realpath(cand))}"'

    out = _QUOTED.sub(one, text)
    return None if clash else out


def _file_text(e: _Entry, encoding: str) -> str | None:
    """An entered user file's text, None for a system header or a file that cannot be
    inlined as it is (its encoding, its line ends, a continued last line)."""
    if e.system or e.real.startswith("/usr/"):
        return None
    try:
        with open(e.real, "rb") as fh:
            text = _decoded(fh.read(), encoding)
    except OSError:
        return None
    if text is None or "\r" in text.replace("\r\n", "") or text.rstrip("\r\n").endswith("\\"):
        return None
    return text


def _inlinable(e: _Entry, lines: list[str], main_dir: str, dirs: tuple[str, ...],
               counts: Counter, encoding: str) -> tuple[str | None, str]:
    """The text to put in place of the include that entered ``e`` (see module), else None
    and why not ('' for a file without loops, which no one asked to see inlined)."""
    text = _file_text(e, encoding)
    joined = text.replace("\\\r\n", "").replace("\\\n", "") if text is not None else ""
    if not _LOOPS.search(joined):
        return None, ""
    m = _INCLUDE_LINE.fullmatch(lines[e.at - 1]) if 1 <= e.at <= len(lines) else None
    if m is None or not _found_by_quoted_search(m[1], e.real, main_dir, dirs):
        return None, "its #include is not a quoted one alone on its line"
    if counts[e.real] != 1:
        return None, "it is included more than once"
    own = _OWN_FILE.search(joined)
    if own:
        return None, f"it has '{' '.join(own[0].split())}', which needs a file of its own"
    text = _respelled(text, os.path.dirname(e.real), main_dir)
    if text is None:
        return None, ("one of its quoted includes would find another file from the "
                      "including file's directory")
    return (text if text.endswith("\n") else text + "\n"), ""


def _candidates(path: str, source: str, preprocessed: str, include_dirs: tuple[str, ...]
                ) -> tuple[dict[int, tuple[_Entry, str]], dict[str, str]]:
    """The includes that qualify (the include's line -> the file and the text to put in
    its place), and why each other included file with loops does not (by the name line
    markers give it)."""
    entries, counts = _entries(preprocessed, path)
    main_dir = os.path.dirname(os.path.abspath(path))
    encoding, lines = encoding_of(path), source.split("\n")
    texts, refused = {}, {}
    for e in entries:
        text, why = _inlinable(e, lines, main_dir, include_dirs, counts, encoding)
        if text is not None and _LINE_DIRECTIVE.search(source):
            text, why = None, "the including file sets its own line numbers ('#line')"
        if text is not None:
            texts[e.at] = e, text
        elif why:
            refused[e.name] = why
    return texts, refused


def combined_text(path: str, source: str, texts: dict[int, tuple[_Entry, str]]
                  ) -> tuple[str, SourceMap]:
    """The main file's text with the includes of ``texts`` inlined, and where."""
    out, spans, shift = [], [], 0
    for n, line in enumerate(source.split("\n"), 1):
        if n not in texts:
            out.append(line)
            continue
        e, text = texts[n]
        length = text.count("\n")
        spans.append(Inlined(e.name, n, n + shift, length))
        out.append(BEGIN.format(name=e.name) + "\n" + text
                   + END.format(line=n + 1, name=marker_name(path)))
        shift += length + 1
    return "\n".join(out), SourceMap(path, tuple(spans), source)


def _tokens(text: str) -> str:
    """The preprocessed text's tokens, without its line markers and layout."""
    return " ".join(" ".join(ln.split()) for ln in text.split("\n")
                    if ln.strip() and not (ln.startswith("#") and MARKER.match(ln)))


def inline_includes(path: str, source: str, preprocessed: str, opts
                    ) -> tuple[tuple[str, SourceMap, str] | None, dict[str, str]]:
    """The combined text, its source map and its preprocessed text (markers in the
    combined text's lines), when includes qualify and the combined text means what the
    original means, token for token (else None: nothing is inlined); and why each included
    file with loops is not inlined. When the qualifying includes together do not give the
    original's tokens, those that do on their own are tried together."""
    texts, refused = _candidates(path, source, preprocessed, opts.include_dirs)
    done = _checked(path, source, preprocessed, opts, texts) if texts else None
    if done is None and len(texts) > 1:
        alone = {k: t for k, t in texts.items()
                 if _checked(path, source, preprocessed, opts, {k: t}) is not None}
        done = _checked(path, source, preprocessed, opts, alone) if alone else None
    inlined = set() if done is None else {s.at for s in done[1].spans}
    why = ("inlined, its text would not preprocess to the same code (it may read "
           "'__INCLUDE_LEVEL__' or '__BASE_FILE__')")
    return done, refused | {e.name: why for k, (e, _) in texts.items() if k not in inlined}


def _checked(path: str, source: str, preprocessed: str, opts,
             texts: dict[int, tuple[_Entry, str]]) -> tuple[str, SourceMap, str] | None:
    """The main file with ``texts`` inlined, its map and preprocessed text, when that
    preprocesses to the original's tokens."""
    text, smap = combined_text(path, source, texts)
    try:
        pre = preprocess_text(text, path, opts, smap)
    except (OmpclError, OSError, ValueError):
        return None
    return (text, smap, pre) if _tokens(pre) == _tokens(preprocessed) else None
