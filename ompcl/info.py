"""``ompcl info``: what a translated program would see on this machine.

Consumes the environment (``OMPCL_DEVICE``, ``OMPCL_PLATFORM``, ``OMPCL_DEVICE_TYPE``,
``OMPCL_DEVICE_INDEX``, an MPI launcher's rank variables, ``OMPCL_MODEL``, ``OMPCL_CACHE_DIR``,
``OMPCL_SERVER``) and the OpenCL ICD loader (through
ctypes, as the runtime does through dlopen); produces a dict (``gather``) and its text form
(``format_text``). The device choice mirrors the runtime's ``find_device`` (ompcl_rt_device.c).
"""
from __future__ import annotations

import ctypes
import json
import os
from dataclasses import asdict, dataclass, field

from .driver import client
from .predict.model import DEFAULT_MODEL
from .runtime import cache_root

_PLATFORM_NAME, _PLATFORM_VENDOR, _PLATFORM_VERSION = 0x0902, 0x0903, 0x0901
_DEVICE_TYPE, _COMPUTE_UNITS, _GLOBAL_MEM = 0x1000, 0x1002, 0x101F
_DEVICE_NAME, _DEVICE_VERSION, _DOUBLE_FP, _UNIFIED = 0x102B, 0x102F, 0x1032, 0x1035
_TYPES = {"gpu": 4, "cpu": 2, "accelerator": 8, "all": 0xFFFFFFFF}
_MAX_PLATFORMS = 16  # the runtime looks at this many


@dataclass
class Device:
    name: str
    type: str
    compute_units: int
    global_memory_bytes: int
    fp64: bool
    host_unified_memory: bool
    version: str
    type_bits: int = field(default=0, repr=False)


@dataclass
class Platform:
    name: str
    vendor: str
    version: str
    devices: list[Device]


def _type_name(bits: int) -> str:
    names = [n for n, b in (("gpu", 4), ("cpu", 2), ("accelerator", 8)) if bits & b]
    return ",".join(names) or "other"


class _OpenCL:
    """The few OpenCL calls ``info`` needs, looked up in the ICD loader."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib

    def platforms(self) -> list[int]:
        ids = (ctypes.c_void_p * _MAX_PLATFORMS)()
        n = ctypes.c_uint(0)
        if self.lib.clGetPlatformIDs(_MAX_PLATFORMS, ids, ctypes.byref(n)) != 0:
            return []
        return [ids[i] for i in range(min(n.value, _MAX_PLATFORMS))]

    def devices(self, platform: int, bits: int) -> list[int]:
        ids = (ctypes.c_void_p * 64)()
        n = ctypes.c_uint(0)
        err = self.lib.clGetDeviceIDs(ctypes.c_void_p(platform), ctypes.c_uint64(bits), 64, ids,
                                      ctypes.byref(n))
        return [ids[i] for i in range(min(n.value, 64))] if err == 0 else []

    def _info(self, fn, obj: int, what: int, size: int = 1024) -> bytes:
        buf = ctypes.create_string_buffer(size)
        if fn(ctypes.c_void_p(obj), ctypes.c_uint(what), ctypes.c_size_t(size), buf, None):
            return b""
        return buf.raw

    def platform_str(self, p: int, what: int) -> str:
        return self._info(self.lib.clGetPlatformInfo, p, what).split(b"\0")[0].decode(
            errors="replace").strip()

    def device_str(self, d: int, what: int) -> str:
        return self._info(self.lib.clGetDeviceInfo, d, what).split(b"\0")[0].decode(
            errors="replace").strip()

    def device_int(self, d: int, what: int, size: int) -> int:
        return int.from_bytes(self._info(self.lib.clGetDeviceInfo, d, what, size), "little")

    def device(self, d: int) -> Device:
        bits = self.device_int(d, _DEVICE_TYPE, 8)
        return Device(self.device_str(d, _DEVICE_NAME), _type_name(bits),
                      self.device_int(d, _COMPUTE_UNITS, 4), self.device_int(d, _GLOBAL_MEM, 8),
                      self.device_int(d, _DOUBLE_FP, 8) != 0,
                      self.device_int(d, _UNIFIED, 4) != 0,
                      self.device_str(d, _DEVICE_VERSION), bits)


def _load_opencl() -> tuple[_OpenCL | None, str]:
    for name in ("libOpenCL.so.1", "libOpenCL.so"):  # the runtime's dlopen order
        try:
            return _OpenCL(ctypes.CDLL(name)), name
        except OSError as e:
            err = str(e)
    return None, err


def list_platforms() -> tuple[list[Platform], str]:
    """Every OpenCL platform and its devices, in the loader's order; the second value says
    why there is none (no library, no platform)."""
    cl, lib = _load_opencl()
    if cl is None:
        return [], f"no OpenCL library ({lib})"
    out = []
    for p in cl.platforms():
        devs = [cl.device(d) for d in cl.devices(p, _TYPES["all"])]
        out.append(Platform(cl.platform_str(p, _PLATFORM_NAME), cl.platform_str(p, _PLATFORM_VENDOR),
                            cl.platform_str(p, _PLATFORM_VERSION), devs))
    return out, "" if out else f"no OpenCL platform ({lib} found none; is an ICD installed?)"


#: the launchers' variables the runtime reads (ompcl_rt_env.c read_launcher), in its order
LOCAL_RANK_VARS = ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK",
                   "SLURM_LOCALID")
LOCAL_SIZE_VARS = ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE",
                   "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE")
RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID")


def _int_var(names: tuple[str, ...], env) -> tuple[int | None, str]:
    """The first of ``names`` set to a number (its leading digits, as strtol reads
    ``2(x3)``), and its name."""
    for name in names:
        digits = ""
        for c in env.get(name, "").strip():
            if not c.isdigit():
                break
            digits += c
        if digits and int(digits) <= 1000000:
            return int(digits), name
    return None, ""


def launcher(env=os.environ) -> dict:
    """What an MPI launcher says about this process, as the runtime reads it: its rank, its
    rank on its node and the ranks on its node (None where no variable says)."""
    rank, rank_var = _int_var(RANK_VARS, env)
    local, local_var = _int_var(LOCAL_RANK_VARS, env)
    size, size_var = _int_var(LOCAL_SIZE_VARS, env)
    if local is not None and (size or 0) <= local:
        size = local + 1
    return {"rank": rank, "rank_var": rank_var, "local_rank": local, "local_rank_var": local_var,
            "local_size": size, "local_size_var": size_var}


def _candidates(platforms: list[Platform], env) -> tuple[list[tuple[int, int]], str, str]:
    """The devices the runtime chooses among (find_device): those of ``OMPCL_DEVICE_TYPE`` on
    the platforms (of the first 16) whose name or vendor holds ``OMPCL_PLATFORM`` (any case);
    unset type: the GPUs, else every device. With what they are and where."""
    want = env.get("OMPCL_PLATFORM", "")
    kind = env.get("OMPCL_DEVICE_TYPE", "")
    plats = [(i, p) for i, p in enumerate(platforms[:_MAX_PLATFORMS])
             if want.lower() in p.name.lower() or want.lower() in p.vendor.lower()]
    where = f"platforms whose name or vendor contains '{want}'" if want else "all platforms"
    if kind:
        passes = [(_TYPES.get(kind, _TYPES["all"]), f"OMPCL_DEVICE_TYPE={kind}")]
    else:
        passes = [(_TYPES["gpu"], "GPUs (OMPCL_DEVICE_TYPE unset: GPUs first)"),
                  (_TYPES["all"], "any type (OMPCL_DEVICE_TYPE unset, and no GPU)")]
    for bits, what in passes:
        found = [(i, j) for i, p in plats for j, d in enumerate(p.devices) if d.type_bits & bits]
        if found:
            return found, what, where
    return [], passes[-1][1], where


def device_choice(platforms: list[Platform], env=os.environ) -> dict:
    """The device the runtime would take, as find_device and choose_index do: among the
    candidates (``_candidates``), ``OMPCL_DEVICE_INDEX`` modulo their number, else the
    node-local rank an MPI launcher gives modulo their number, else the first; and how many
    ranks of the node take the same device (all of them with ``OMPCL_DEVICE_INDEX``)."""
    found, what, where = _candidates(platforms, env)
    mpi = launcher(env)
    ranks = max(mpi["local_size"] or 1, 1)
    out = {"chosen": None, "index": None, "candidates": len(found), "by": "",
           "ranks_sharing": 1, "launcher": mpi}
    if not found:
        out["rule"] = f"no device matches ({what}, {where})"
        return out
    text = env.get("OMPCL_DEVICE_INDEX", "")
    if text:
        index = int(text) % len(found) if text.isdigit() else 0
        out.update(by="OMPCL_DEVICE_INDEX", ranks_sharing=ranks)
        how = f"OMPCL_DEVICE_INDEX={text}"
    elif mpi["local_rank"] is not None:
        index = mpi["local_rank"] % len(found)
        out.update(by=mpi["local_rank_var"],
                   ranks_sharing=ranks // len(found) + (index < ranks % len(found)))
        how = f"local rank {mpi['local_rank']} ({mpi['local_rank_var']})"
    else:
        index, how = 0, "the first"
        out["by"] = "first"
    out.update(chosen=found[index], index=index)
    out["rule"] = (f"device {index} of the {len(found)} of {what} in {where}, in order: "
                   f"{how}" + (f" modulo {len(found)}" if how != "the first" else "")
                   + " (the runtime's rule)")
    return out


def choose(platforms: list[Platform], env=os.environ) -> tuple[tuple[int, int] | None, str]:
    """(platform index, device index) the runtime would take, and the rule
    (``device_choice``)."""
    c = device_choice(platforms, env)
    return c["chosen"], c["rule"]


def _model() -> dict:
    path = os.environ.get("OMPCL_MODEL", "")
    origin = "OMPCL_MODEL (replaces the compiled-in model at run time)" if path else \
        "compiled into new builds by default (--model / --ompcl-model choose another)"
    path = path or str(DEFAULT_MODEL)
    try:
        with open(path, encoding="utf-8") as fh:
            meta = json.load(fh).get("metadata", {})
    except (OSError, ValueError, AttributeError) as e:
        return {"path": path, "origin": origin, "error": str(e)}
    plat = meta.get("platform") or {}
    trained = ", ".join(str(plat[k]) for k in ("opencl_platform", "opencl_device", "host_cpu")
                        if plat.get(k)) if isinstance(plat, dict) else str(plat)
    return {"path": path, "origin": origin, "learner": meta.get("learner", ""),
            "trained_on": trained or "unknown"}


def server_state() -> dict:
    """The compile server behind ``ompcl cc``: off, not running, or running (pid)."""
    path = client.socket_path()
    if not client.enabled():
        return {"state": "off", "why": "OMPCL_SERVER=0", "socket": path}
    reply = client.request(path, "ping") if path else None
    if reply is None:
        return {"state": "not running", "socket": path or "no private socket directory"}
    return {"state": "running", "pid": reply["pid"], "socket": path}


def gather() -> dict:
    platforms, why = list_platforms()
    choice = device_choice(platforms)
    chosen, rule = choice["chosen"], choice["rule"]
    mode = os.environ.get("OMPCL_DEVICE", "") or "auto"
    plats = [asdict(p) for p in platforms]
    for d in (d for p in plats for d in p["devices"]):
        del d["type_bits"]
    return {"platforms": plats, "no_platform": why,
            "mode": mode, "chosen": list(chosen) if chosen else None, "rule": rule,
            "ranks_sharing": choice["ranks_sharing"], "launcher": choice["launcher"],
            "model": _model(), "cache_dir": cache_root() or "off (OMPCL_CACHE_DIR=off)",
            "server": server_state()}


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def _device_lines(info: dict) -> list[str]:
    lines = []
    for i, p in enumerate(info["platforms"]):
        lines.append(f"platform {i}: {p['name']} ({p['vendor']}, {p['version']})")
        for j, d in enumerate(p["devices"]):
            mark = "  <- chosen" if info["chosen"] == [i, j] else ""
            lines.append(f"  device {j}: {d['name']}{mark}")
            lines.append(f"    type {d['type']}, {d['compute_units']} compute units, "
                         f"{_gib(d['global_memory_bytes'])} global memory, "
                         f"fp64 {'yes' if d['fp64'] else 'no'}, host-unified memory "
                         f"{'yes (copies are free)' if d['host_unified_memory'] else 'no'}")
    return lines or [f"OpenCL: {info['no_platform']}; programs run every loop with OpenMP"]


def format_text(info: dict) -> str:
    mode = info["mode"]
    lines = _device_lines(info)
    if info["platforms"]:
        lines.append(f"chosen: {info['rule']}" if info["chosen"] else
                     f"chosen: none, {info['rule']}; programs run every loop with OpenMP")
    mpi = info.get("launcher") or {}
    if mpi.get("local_rank") is not None or mpi.get("rank") is not None:
        lines.append(f"MPI: rank {mpi['rank'] if mpi['rank'] is not None else '?'}, local rank "
                     f"{mpi['local_rank'] if mpi['local_rank'] is not None else '?'} of "
                     f"{mpi['local_size'] or '?'} on this node; {info['ranks_sharing']} "
                     "rank(s) of the node share the chosen device")
    if mode == "openmp":
        lines.append("OMPCL_DEVICE=openmp: OpenCL is never used")
    else:
        lines.append(f"OMPCL_DEVICE={mode}" + (" (the model decides per loop)"
                                               if mode == "auto" else ""))
    m = info["model"]
    lines.append(f"model: {m['path']}, {m['origin']}")
    lines.append(f"  trained on: {m.get('trained_on') or 'unreadable: ' + m.get('error', '')}")
    lines.append(f"cache directory: {info['cache_dir']}")
    s = info["server"]
    detail = f"pid {s['pid']}, " if "pid" in s else f"{s['why']}, " if "why" in s else ""
    lines.append(f"compile server: {s['state']} ({detail}socket {s['socket']})")
    return "\n".join(lines)
