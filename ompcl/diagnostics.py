"""Diagnostics shared by every stage: source locations, the error tree and remarks.

Messages are printed gcc-style, ``file:line:col: error|warning|remark: message``, always
pointing into the user's own file (line markers survive preprocessing).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO


@dataclass(frozen=True)
class SourceLoc:
    """A position in a user's source file (1-based line and column)."""

    file: str
    line: int
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @classmethod
    def of(cls, node: object) -> "SourceLoc":
        """Location of a pycparser node (or an unknown location)."""
        coord = getattr(node, "coord", None)
        if coord is None:
            return UNKNOWN_LOC
        return cls(str(coord.file), int(coord.line or 0), int(coord.column or 1))


UNKNOWN_LOC = SourceLoc("<unknown>", 0, 0)


class OmpclError(Exception):
    """Base of every error ompcl reports to the user (exit code 1)."""

    kind = "error"

    def __init__(self, message: str, loc: SourceLoc | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def format(self) -> str:
        prefix = f"{self.loc}: " if self.loc else "ompcl: "
        return f"{prefix}error: {self.message}"


class InputError(OmpclError):
    """A missing or unreadable input file."""


class PreprocessError(OmpclError):
    """The C preprocessor rejected the input (missing header, bad directive)."""


class CSyntaxError(OmpclError):
    """The C parser rejected the (preprocessed) input."""


class PragmaSyntaxError(OmpclError):
    """An OpenMP directive that does not follow the grammar (unknown clause, bad list)."""


class ClauseError(OmpclError):
    """An OpenMP clause that names something invalid (an undeclared variable, a non-scalar
    reduction list item)."""


class UnsupportedConstruct(OmpclError):
    """Valid C that ompcl does not understand; normally turned into a remark."""


class BuildError(OmpclError):
    """The host compiler failed on generated code (a bug in ompcl or in the flags)."""


@dataclass(frozen=True)
class Remark:
    """An optimisation remark or warning about one construct."""

    loc: SourceLoc
    message: str
    kind: str = "remark"

    def format(self) -> str:
        return f"{self.loc}: {self.kind}: {self.message}"


@dataclass
class Diagnostics:
    """Collects remarks and warnings during one translation; prints them in order."""

    remarks: list[Remark] = field(default_factory=list)

    def remark(self, loc: SourceLoc, message: str) -> None:
        self.remarks.append(Remark(loc, message))

    def warning(self, loc: SourceLoc, message: str) -> None:
        self.remarks.append(Remark(loc, message, "warning"))

    def emit(self, stream: TextIO = sys.stderr, verbose: bool = True) -> None:
        for r in self.remarks:
            if verbose or r.kind != "remark":
                print(r.format(), file=stream)
