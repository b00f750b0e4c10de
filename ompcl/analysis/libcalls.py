"""Library functions with known memory effects (MPI's common calls), for the host-access
analysis: which pointer arguments a call reads or writes, and how many bytes.

Consumes a call's name and argument trees (preprocessed: ``MPI_DOUBLE`` is Open MPI's
``(MPI_Datatype)&ompi_mpi_double`` or MPICH's ``(MPI_Datatype)0x4c00080b``); produces the
buffers it touches (``buffers``) and, where a count and a datatype are simple, the C expression
of the bytes (``byte_count``). A call not in the table may touch any memory; one in it touches
only its buffers (the library's own state, requests and communicators are no program array).
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from .ctypes_ import uncast

READ, WRITE = 1, 2


@dataclass(frozen=True)
class Buffer:
    """Argument ``arg`` points to memory the call reads or writes (``mode``): ``count``
    elements of the datatype argument ``dtype`` (both argument indexes), or, without them, the
    whole object it points into. ``inplace``: the index of a send buffer that may be
    ``MPI_IN_PLACE``, in which case this (receive) buffer is read as well."""

    arg: int
    mode: int
    count: int | None = None
    dtype: int | None = None
    inplace: int | None = None


_RW = READ | WRITE


def _send(b: int = 0) -> Buffer:
    return Buffer(b, READ, b + 1, b + 2)


def _recv(b: int = 0) -> Buffer:
    return Buffer(b, WRITE, b + 1, b + 2)


#: name -> the buffers it touches (MPI 3 signatures); every other argument is a value, a
#: handle, or an ``int *``/``MPI_Status *``/``MPI_Request *`` result (``Buffer`` without count)
LIBRARY: dict[str, tuple[Buffer, ...]] = {
    "MPI_Init": (Buffer(0, _RW), Buffer(1, _RW)),
    "MPI_Init_thread": (Buffer(0, _RW), Buffer(1, _RW), Buffer(3, WRITE)),
    "MPI_Finalize": (),
    "MPI_Abort": (),
    "MPI_Barrier": (),
    "MPI_Wtime": (),
    "MPI_Wtick": (),
    "MPI_Comm_rank": (Buffer(1, WRITE),),
    "MPI_Comm_size": (Buffer(1, WRITE),),
    "MPI_Send": (_send(),),
    "MPI_Ssend": (_send(),),
    "MPI_Rsend": (_send(),),
    "MPI_Recv": (_recv(), Buffer(6, WRITE)),
    "MPI_Sendrecv": (_send(0), _recv(5), Buffer(11, WRITE)),
    # non-blocking: the send buffer is read and the receive buffer written by the time the
    # request completes; host copies are made valid (or marked written) at the call, and a
    # correct program touches neither before its MPI_Wait
    "MPI_Isend": (_send(), Buffer(6, WRITE)),
    "MPI_Irecv": (_recv(), Buffer(6, WRITE)),
    "MPI_Wait": (Buffer(0, _RW), Buffer(1, WRITE)),
    "MPI_Waitall": (Buffer(1, _RW), Buffer(2, WRITE)),
    "MPI_Allreduce": (Buffer(0, READ, 2, 3), Buffer(1, WRITE, 2, 3, inplace=0)),
    "MPI_Reduce": (Buffer(0, READ, 2, 3), Buffer(1, WRITE, 2, 3, inplace=0)),
    "MPI_Bcast": (Buffer(0, _RW, 1, 2),),
}

#: Open MPI's predefined datatypes (``ompi_mpi_<name>``) as C types
_OMPI_TYPES = {
    "char": "char", "signed_char": "signed char", "unsigned_char": "unsigned char",
    "byte": "unsigned char", "short": "short", "unsigned_short": "unsigned short",
    "int": "int", "unsigned": "unsigned", "long": "long", "unsigned_long": "unsigned long",
    "long_long_int": "long long", "unsigned_long_long": "unsigned long long",
    "float": "float", "double": "double", "long_double": "long double",
    "int8_t": "signed char", "uint8_t": "unsigned char", "int16_t": "short",
    "uint16_t": "unsigned short", "int32_t": "int", "uint32_t": "unsigned",
    "int64_t": "long long", "uint64_t": "unsigned long long",
}
_MPICH_BUILTIN_MASK, _MPICH_BUILTIN_DATATYPE = 0xFC000000, 0x4C000000


def buffers(name: str | None) -> tuple[Buffer, ...] | None:
    """The buffers a call of ``name`` touches, or None: not a known library function."""
    return LIBRARY.get(name) if name else None


def is_constant_pointer(e: c_ast.Node) -> bool:
    """A constant used as a pointer (``MPI_IN_PLACE``, ``MPI_STATUS_IGNORE``, ``NULL``): no
    program memory."""
    return isinstance(uncast(e), c_ast.Constant)


def datatype_size(e: c_ast.Node) -> str | None:
    """The C expression of the size in bytes of a predefined MPI datatype (as Open MPI or
    MPICH spell it after preprocessing), or None."""
    e = uncast(e)
    if isinstance(e, c_ast.UnaryOp) and e.op == "&":
        e = uncast(e.expr)
        if isinstance(e, c_ast.ID) and e.name.startswith("ompi_mpi_"):
            ctype = _OMPI_TYPES.get(e.name[len("ompi_mpi_"):])
            return f"sizeof({ctype})" if ctype else None
        return None
    if isinstance(e, c_ast.Constant) and e.type == "int":
        try:
            v = int(e.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
        size = (v >> 8) & 0xFF
        if v & _MPICH_BUILTIN_MASK == _MPICH_BUILTIN_DATATYPE and size:
            return str(size)
    return None
