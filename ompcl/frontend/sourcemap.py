"""Source maps of inlined includes: lines of the text ompcl translates <-> the user's files.

The front end may inline quoted includes of user sources into the text it translates
(``includes``), each file's text between two ``#line`` markers; every later stage works on
that one text, the tree's coordinates naming the main file and the combined text's lines.
Consumes a ``SourceMap`` (what was inlined where); produces the user's coordinates: line
markers of preprocessed text moved into the combined text (``combined_markers``), and,
out of it, locations, messages, remarks, errors, regions and the ``#line`` directives of
the host output.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..diagnostics import OmpclError, PragmaSyntaxErrors, SourceLoc
from .textscan import MARKER

#: the markers around an inlined file's text (the comments tell them from the ``#line``
#: directives the host printer writes, which name lines of the combined text)
BEGIN = '#line 1 "{name}" /* ompcl: inlined #include */'
END = '#line {line} "{name}" /* ompcl: end of inlined #include */'
_BEGIN = re.compile(r'^#line 1 "((?:[^"\\\n]|\\.)*)" /\* ompcl: inlined #include \*/$', re.M)


def marker_name(path: str) -> str:
    """A file name as a line marker (and a C string) spells it."""
    return path.replace("\\", "\\\\").replace('"', '\\"')


def unmarked(name: str) -> str:
    """The file name a line marker's spelling stands for."""
    return re.sub(r"\\(.)", r"\1", name)


def inlined_files(text: str) -> list[str]:
    """The files whose text ``text`` holds inlined (as the compiler spelled them), in order:
    a translated file no longer includes them, yet it depends on them."""
    return list(dict.fromkeys(unmarked(m) for m in _BEGIN.findall(text)))


@dataclass(frozen=True)
class Inlined:
    """One inlined include: the file as the preprocessor spells it (a marker's spelling),
    the include directive's line in the user's file, the combined text's line of the marker
    before the file's text, and how many lines that text has."""

    name: str
    at: int
    first: int
    length: int

    @property
    def end(self) -> int:
        """The combined text's line of the marker after the file's text."""
        return self.first + self.length + 1


@dataclass(frozen=True)
class SourceMap:
    """Where the inlined files' lines are in the combined text of the file ``path``."""

    path: str
    spans: tuple[Inlined, ...]
    original: str = field(default="", repr=False, compare=False)  # the main file's text

    def user(self, line: int) -> tuple[str, int]:
        """(file, line) of a line of the combined text (a marker: the include's line)."""
        shift = 0
        for s in self.spans:
            if line < s.first:
                break
            if s.first < line < s.end:
                return s.name, line - s.first
            if line <= s.end:
                return self.path, s.at
            shift += s.length + 1
        return self.path, line - shift

    def combined(self, name: str, line: int) -> int | None:
        """The combined text's line of line ``line`` of the main file or of an inlined file
        (``name`` as a line marker spells it); None for any other file."""
        if name == marker_name(self.path):
            shift = 0
            for s in self.spans:
                if line < s.at:
                    break
                if line == s.at:
                    return s.first
                shift += s.length + 1
            return line + shift
        return next((s.first + line for s in self.spans if s.name == name), None)

    def loc(self, loc: SourceLoc | None) -> SourceLoc | None:
        """A location in the combined text as one in the user's files."""
        if loc is None or not self.spans or loc.file != self.path or loc.line < 1:
            return loc
        file, line = self.user(loc.line)
        return SourceLoc(unmarked(file), line, loc.col)

    def message(self, text: str) -> str:
        """A message's ``line N`` (of the combined text) as the user's line, with its file
        where that is not the main file."""
        def one(m: re.Match) -> str:
            file, line = self.user(int(m[1]))
            return f"line {line}" if file == self.path else f"{unmarked(file)}:{line}"
        if not self.spans:
            return text
        return re.sub(r"\bline (\d+)\b", one, text)

    def error(self, e: OmpclError) -> OmpclError:
        """The error (changed in place) pointing into the user's files."""
        for x in (e, *(e.errors if isinstance(e, PragmaSyntaxErrors) else ())):
            x.loc, x.message = self.loc(x.loc), self.message(x.message)
            x.args = (x.message,)
        return e

    def host_text(self, text: str, combined: str) -> str:
        """The host output ``text`` printed from the ``combined`` text: the user's original
        when it is the combined text unchanged (nothing offloaded: nothing to inline), else
        with the host printer's ``#line N "path"`` directives (``N`` a line of the combined
        text) naming the user's file and line (the inlining markers stay as they are)."""
        def one(m: re.Match) -> str:
            file, line = self.user(int(m[1]))
            return f'#line {line} "{file}"'
        if not self.spans:
            return text
        if text == combined:
            return self.original
        pattern = rf'^#line (\d+) "{re.escape(marker_name(self.path))}"$'
        return re.sub(pattern, one, text, flags=re.M)

    def in_user_files(self, unit):
        """A translated unit (``pipeline.Unit``, its host text printed from the combined
        text) with its host text, remarks, regions and teams in the user's files."""
        if not self.spans:
            return unit
        return replace(unit, host_source=self.host_text(unit.host_source, unit.program.source),
                       remarks=self.located(unit.remarks),
                       regions=tuple(map(self.region, unit.regions)),
                       teams=tuple(map(self.region, unit.teams)))

    def reason(self, r):
        """A ``Reason`` whose location and message are the user's."""
        return replace(r, loc=self.loc(r.loc), message=self.message(r.message))

    def region(self, r):
        """A ``Region`` or ``Team`` whose location and reasons are the user's."""
        if not self.spans:
            return r
        bound = replace(r.bound, directive=replace(r.bound.directive,
                                                   loc=self.loc(r.bound.directive.loc)))
        extra = {"directive": replace(r.directive, loc=self.loc(r.directive.loc))} if \
            getattr(r, "directive", None) is not None else {}
        return replace(r, bound=bound, reasons=tuple(map(self.reason, r.reasons)), **extra)

    def located(self, items: tuple) -> tuple:
        """Objects with a ``loc`` field (remarks, bounds-check sites, kernel specs) with the
        user's locations (and a remark's message)."""
        def one(x):
            more = {"message": self.message(x.message)} if hasattr(x, "message") else {}
            return replace(x, loc=self.loc(x.loc), **more)
        return tuple(map(one, items)) if self.spans else tuple(items)


#: the map of a text without inlined includes: every location is the user's already
NO_MAP = SourceMap("", ())


def combined_markers(text: str, smap: SourceMap) -> str:
    """Preprocessed ``text`` of the combined file with the line markers of its own lines
    (the main file's and the inlined files', at include depth 0) moved to the combined
    text's lines under the main file's name: the tree's coordinates then point into the
    text ompcl splices. Markers of headers they include are left as they are."""
    out, depth = [], 0
    for raw in text.split("\n"):
        m = MARKER.match(raw) if raw.startswith("#") else None
        if m:
            flags = m[3].split()
            depth += 1 if "1" in flags else -1 if "2" in flags else 0
            line = smap.combined(m[2], int(m[1])) if depth <= 0 and "1" not in flags else None
            if line is not None:
                raw = f'# {line} "{marker_name(smap.path)}"{m[3]}'
        out.append(raw)
    return "\n".join(out)
