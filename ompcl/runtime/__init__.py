"""The C runtime shipped with generated code: the public header ``ompcl_rt.h`` that generated
host code includes, and the runtime's C files (``ompcl_rt.c``, ``ompcl_rt_*.c`` by concern, with
their internal header); README.md in this directory says which file holds what."""
from __future__ import annotations

import os
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parent
#: the C files of the runtime, each compiled on its own and linked (or archived) together
RUNTIME_SOURCES = ("ompcl_rt.c", "ompcl_rt_util.c", "ompcl_rt_env.c", "ompcl_rt_device.c",
                   "ompcl_rt_program.c", "ompcl_rt_present.c", "ompcl_rt_hostaccess.c",
                   "ompcl_rt_model.c", "ompcl_rt_region.c", "ompcl_rt_launch.c",
                   "ompcl_rt_relayout.c", "ompcl_rt_scratch.c", "ompcl_rt_team.c",
                   "ompcl_rt_stats.c", "ompcl_rt_objects.c", "ompcl_rt_load.c",
                   "ompcl_rt_tree.c")
#: what a program links with the runtime: the dynamic loader (OpenCL is opened at run time),
#: and the allocator's --wrap, through which the runtime's table of heap blocks sees the
#: program's allocations (``ompcl_rt_objects.c``; without it heap pointers with unbounded
#: subscripts run on the host)
WRAPPED = ("malloc", "calloc", "realloc", "reallocarray", "free", "aligned_alloc",
           "posix_memalign", "memalign", "valloc", "pvalloc", "strdup", "strndup")
LINK_FLAGS = ("-ldl", "-Wl," + ",".join(f"--wrap={f}" for f in WRAPPED))
#: every file of the runtime: what is copied next to a translation and keys the built archive
RUNTIME_FILES = ("ompcl_rt.h", "ompcl_rt_internal.h", *RUNTIME_SOURCES)


def cache_root() -> str | None:
    """The cache directory shared by the runtime (kernel binaries, the device note), the
    driver (built runtimes, translations) and the code generator (compiled templates):
    ``OMPCL_CACHE_DIR``, else ``$XDG_CACHE_HOME/ompcl`` or ``~/.cache/ompcl``; None when
    ``OMPCL_CACHE_DIR=off``."""
    d = os.environ.get("OMPCL_CACHE_DIR", "")
    if d == "off":
        return None
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ompcl")
