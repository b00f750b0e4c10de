"""Diagnostics shared by every stage: source locations, the error tree, remarks and the stable
ids of every reason a loop stays on the host.

Messages are printed gcc-style, ``file:line:col: error|warning|remark: message``, always
pointing into the user's own file (line markers survive preprocessing). Remarks and warnings
end with their id in brackets (``[host-only-call]``), the way gcc names a warning's flag, so
tools and tests match ids, never message text.
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

#: Every reason a work-sharing loop stays on the host: id -> what it means (README lists them).
REASONS: dict[str, str] = {
    # where the loop is
    "function-fallback": "the loop's function holds C ompcl cannot parse (GNU extensions such "
                         "as nested functions or case ranges of over 256 values): the function "
                         "is left as written, the file's others are read",
    "compiler-macros": "the loop's code reads otherwise under the host compiler's predefined "
                       "macros ('#ifdef __GNUC__' in the user's code)",
    "nested-parallel": "the loop is nested inside another parallel region",
    "for-in-region": "an 'omp for' inside a parallel region that holds other statements",
    "orphaned-for": "an 'omp for' whose parallel region is in a caller",
    "macro-expansion": "the loop or its directive comes from a macro expansion, a header, or an "
                       "included source ompcl does not inline",
    "splice-text": "the loop's text cannot be matched in the source file",
    # the loop nest
    "collapse-depth": "collapse() over more than the 3 dimensions of an ND-range",
    "ordered": "the loop has an 'ordered' clause",
    "clause": "the directive has a clause the device translation does not honour (linear, "
              "lastprivate(conditional:), a reduction modifier, ...)",
    "construct": "the loop's construct, or one around it, is one ompcl leaves to OpenMP "
                 "(teams, distribute or loop outside the device loops of target, taskloop, "
                 "a target region of more than one loop construct, ...)",
    "copyin": "a threadprivate array copied in to every thread is written in the loop",
    "not-canonical": "the loop is not in OpenMP canonical form",
    "loop-var-type": "the loop variable is not of integer type",
    "bound-variant": "a loop bound or step changes inside the loop",
    "bound-memory": "a loop bound calls a function or has a side effect",
    # the loop body
    "control-flow": "'break', 'goto' or a label leaves or jumps in the loop",
    "return": "the loop body returns from its function",
    "omp-construct": "the body holds an OpenMP construct (critical, atomic, ordered, ...)",
    "atomic-order": "the body holds an atomic construct with a memory order (seq_cst, "
                    "acq_rel, ...) or a form (compare, weak) the device atomics do not give "
                    "(an ordered update or capture where the loop also reads atomically)",
    "atomic-builtin": "the body calls a GNU atomic builtin the device does not run (its value "
                      "used in an expression, compare-and-swap, a lock, an address that is "
                      "not an element or a variable)",
    "pointer-op": "the body takes addresses, dereferences or assigns through pointers",
    "struct-member": "the body accesses struct members",
    "string-literal": "the body uses a string literal",
    "function-pointer": "the body calls through a function pointer",
    "body-declaration": "the body declares a function, or a static or extern variable",
    "local-type": "the body declares a variable of a type the device cannot hold",
    "unsupported-construct": "the body uses a C construct ompcl does not translate",
    # calls
    "host-only-call": "a call to a function with no device version (I/O, allocation, ...)",
    "omp-runtime-call": "a call to an OpenMP runtime function",
    "undefined-callee": "a called function is not defined where ompcl can see it",
    "recursion": "a called function is recursive",
    "callee-interface": "a called function's parameters or result cannot be used on the device",
    "callee-body": "a called function's body cannot run on the device",
    "callee-global": "a called function writes a global scalar, assigns a global pointer, or "
                     "uses a global the device cannot hold",
    "callee-pointer-arg": "a pointer argument of a call is not an array name",
    # data
    "unresolved-name": "a name in the loop cannot be resolved (or is a function used as a value)",
    "data-type": "a variable's type cannot be placed on the device",
    "clause-type": "a variable in a data-sharing or reduction clause has an unsupported type",
    "shared-write": "a shared scalar is written in the loop without a reduction",
    "schedule-dependent": "a firstprivate or lastprivate scalar's value depends on which "
                          "iterations a thread ran before (the schedule)",
    "array-passed": "a whole array is passed to a function in a way ompcl cannot map",
    "array-extent": "the range of an array the loop touches cannot be derived",
    "threadprivate": "the loop uses threadprivate data",
    # parallel regions run as a team of one
    "thread-private": "a variable private to each thread carries a value between iterations "
                      "or out of the loop",
    "update-order": "a thread's array the loop only updates holds floating-point sums whose "
                    "bits depend on the order of the updates",
    "thread-dependent": "a value the loop uses depends on the thread number or team size",
    "team": "the loop's parallel region runs on the host",
    "team-construct": "the parallel region uses a construct a team of one cannot run",
    "team-loop": "no work-sharing loop of the parallel region runs on the device, or one "
                 "that stays on the host cannot be given a team of its own",
    "team-observed": "the parallel region, or a function it calls, may ask for its team "
                     "(thread or team queries, ICV setters, calls ompcl cannot see)",
    "team-replicated": "code every thread of the parallel region runs would change shared "
                       "state otherwise if one thread ran it (a count of threads, output)",
    # the generated code
    "kernel-build": "the OpenCL C compiler rejects the loop's kernel (checked when translating)",
}

#: The tag ending ``ompcl cc``'s warning (or, strict, error) that it built a file's original
#: instead of its translation: what build logs and benchmarks grep for.
FALLBACK_TAG = "[ompcl-fallback]"

#: Ids of the remarks and warnings that are not host reasons.
REMARK_IDS: dict[str, str] = {
    "offloaded": "the loop runs on the OpenCL device as the named kernel",
    "team-of-one": "the parallel region's device version runs it with a team of one thread",
    "team-host": "the parallel region has no device version (its loops stay on the host)",
    "parse-fallback": "valid C ompcl cannot parse: the file is passed through unchanged",
    "declaration-fallback": "a file-scope declaration holds C ompcl cannot parse (typeof, a "
                            "GNU range designator): it is read without its initialiser or as "
                            "an opaque type, or not at all, and loops that use it stay on the "
                            "host",
    "interchange": "a kernel's inner loop nest was reordered so the loop walking the "
                   "fastest-varying subscript runs innermost",
    "reorder": "a file-scope array's dimensions were permuted in its declaration and every use",
    "reorder-missed": "an array's uses would walk memory faster in another order of its "
                      "dimensions, but a use prevents reordering it",
    "interchange-missed": "another order of a kernel's loop nest would walk memory "
                          "contiguously, but it is not proven legal",
    "distribute": "a loop was distributed into several loops, so that an inner nest can be "
                  "interchanged",
    "distribute-missed": "distributing a loop would let an inner nest be interchanged, but it "
                         "is not proven legal",
    "dynreorder": "a kernel has a variant over a device copy of an array whose dimensions "
                  "follow its loops (made and restored by the runtime when it pays)",
    "dynreorder-missed": "a kernel walks an array along another dimension than its last, "
                         "but a use prevents a permuted copy",
    "promote": "global elements a kernel reuses are kept in private variables (loaded once, "
               "stored once)",
    "promote-missed": "a loop-invariant element a kernel's loop updates stays in global memory",
    "vectorize": "neighbouring elements of a row are loaded or stored as one OpenCL vector "
                 "(vloadn/vstoren)",
    "unswitch": "a loop that stays on the host only because of statements under a guard it "
                "never changes (timers, I/O) is versioned: the device runs it without them when "
                "the guard is false",
    "unknown-pragma": "'#pragma omp' with a directive OpenMP does not have: ignored, as gcc "
                      "does (a warning with -Wall or -Wunknown-pragmas)",
}


@dataclass(frozen=True)
class Reason:
    """Why a loop stays on the host: a stable id (a key of ``REASONS``), a message naming the
    construct, and where it is."""

    id: str
    message: str
    loc: SourceLoc | None = None

    def __post_init__(self) -> None:
        if self.id not in REASONS:
            raise ValueError(f"unknown reason id {self.id!r}")

    def __str__(self) -> str:
        return self.message


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


class UnknownDirective(PragmaSyntaxError):
    """``#pragma omp`` followed by a name OpenMP does not have: ignored, as gcc does."""


class PragmaSyntaxErrors(PragmaSyntaxError):
    """Several errors on one directive line, reported together."""

    def __init__(self, errors: list[PragmaSyntaxError]):
        super().__init__(errors[0].message, errors[0].loc)
        self.errors = errors

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)


class ClauseError(OmpclError):
    """An OpenMP clause that names something invalid (an undeclared variable, a non-scalar
    reduction list item)."""


class UnsupportedConstruct(OmpclError):
    """Valid C that ompcl does not understand; normally turned into a remark."""


class BuildError(OmpclError):
    """The host compiler failed on generated code (a bug in ompcl or in the flags)."""


class InternalCheckError(OmpclError):
    """A consistency check of the pipeline's unit failed (a bug in ompcl)."""


@dataclass(frozen=True)
class Remark:
    """An optimisation remark or warning about one construct, with its stable id (a reason id
    for loops kept on the host, else a key of ``REMARK_IDS``)."""

    loc: SourceLoc
    message: str
    kind: str = "remark"
    id: str = ""

    def __post_init__(self) -> None:
        if self.id and self.id not in REASONS and self.id not in REMARK_IDS:
            raise ValueError(f"unregistered remark id {self.id!r} (add it to REMARK_IDS)")

    @property
    def missed(self) -> bool:
        """True for a 'loop not offloaded' remark."""
        return self.id in REASONS

    def format(self) -> str:
        tag = f" [{self.id}]" if self.id else ""
        return f"{self.loc}: {self.kind}: {self.message}{tag}"


def not_offloaded(loc: SourceLoc, reasons: tuple[Reason, ...]) -> Remark:
    """The remark for a loop kept on the host; its id is the first reason's."""
    return Remark(loc, "loop not offloaded: " + "; ".join(r.message for r in reasons), "remark",
                  reasons[0].id)


@dataclass
class Diagnostics:
    """Collects remarks and warnings during one translation; prints them in order."""

    remarks: list[Remark] = field(default_factory=list)

    def remark(self, loc: SourceLoc, message: str, id: str = "") -> None:
        self.remarks.append(Remark(loc, message, "remark", id))

    def warning(self, loc: SourceLoc, message: str, id: str = "") -> None:
        self.remarks.append(Remark(loc, message, "warning", id))

    def emit(self, stream: TextIO = sys.stderr, verbose: bool = True) -> None:
        for r in self.remarks:
            if verbose or r.kind != "remark":
                print(r.format(), file=stream)
