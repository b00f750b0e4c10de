"""Hybrid MPI + OpenMP programs through ompcl (issue 41): built with the MPI compiler wrapper
over ``ompcl cc`` (``make CC=mpicc``), the same answers as the plain ``mpicc`` build at 1, 2
and 4 ranks and 1 and 2 threads on the host and the device path; per step, host-device bytes
per rank within twice the halo rows; MPI's calls in the host-access analysis; the device each
rank takes; ``OMPCL_STATS`` per rank; ``ompcl bench mpi``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pycparser import c_parser

from ompcl.analysis import libcalls
from ompcl.bench import mpi

from conftest import ROOT, compare_outputs, load_stats, ompcl_build, run

EXAMPLE = ROOT / "ompcl" / "examples" / "heat2d_mpi.c"
NX, NY, STEPS = 40, 32, 6  # small: 4 ranks hold 10 rows each
HALO_BYTES = 4 * NY * 8    # per step, a rank sends two rows and receives two
FLAVOUR = mpi.flavour()
needs_mpi = pytest.mark.skipif(
    FLAVOUR is None, reason="no MPI: mpicc/mpirun not found (apt-get install openmpi-bin "
    "libopenmpi-dev, as make test does)")
PATHS = {"host": {"OMPCL_DEVICE": "openmp"},
         "device-copy": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "0"}}

MAKEFILE = """\
CFLAGS = -fopenmp -O2 -pthread -DNX={nx} -DNY={ny}
LDFLAGS = -fopenmp -pthread -Wl,-O1 -Wl,--as-needed
LDLIBS = -lm
heat2d_mpi: heat2d_mpi.o
heat2d_mpi.o: heat2d_mpi.c
"""


@pytest.fixture(scope="module")
def builds(tmp_path_factory, cache_dir) -> dict[str, Path]:
    """The example built twice with ``make CC=mpicc``: over gcc, and over ``ompcl cc``
    (strict: a translation that fails to compile fails the build)."""
    out = {}
    for name in ("plain", "ompcl"):
        d = tmp_path_factory.mktemp(f"mpi-{name}")
        (d / "heat2d_mpi.c").write_text(EXAMPLE.read_text())
        (d / "Makefile").write_text(MAKEFILE.format(nx=NX, ny=NY))
        env = dict(os.environ)
        if name == "ompcl":
            env.update(mpi.wrapper_env(mpi.ompcl_cc() + " --ompcl-strict", FLAVOUR))
        res = subprocess.run(["make", "-s", "CC=mpicc"], cwd=d, capture_output=True, text=True,
                             env=env, timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
        out[name] = d / "heat2d_mpi"
    return out


def _mpirun(exe: Path, np: int, threads: int, steps: int = STEPS, stats: Path | None = None,
            **env: str) -> dict:
    res = mpi.run(exe, np, threads, [str(steps)], env, stats, timeout=300)
    assert res["rc"] == 0, f"{exe.parent.name} at {np}x{threads}: {res['stderr'][-3000:]}"
    return res


@needs_mpi
def test_wrapper_runs_ompcl_cc(builds):
    """The wrapper compiled through ompcl cc: the program holds the runtime and kernels."""
    text = builds["ompcl"].read_bytes()
    assert b"ompcl_rt_launch" in text and b"ompcl_k1" in text
    assert b"ompcl_rt_launch" not in builds["plain"].read_bytes()


@needs_mpi
@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("np", [1, 2, 4])
def test_same_answer_as_plain_mpicc(builds, np, threads, path):
    ref = _mpirun(builds["plain"], np, threads)
    got = _mpirun(builds["ompcl"], np, threads, **PATHS[path])
    assert f"{np} ranks" in ref["stdout"]
    compare_outputs(ref["stdout"], got["stdout"], 1e-9)  # sums in other orders


@needs_mpi
@pytest.mark.parametrize("np", [2, 4])
def test_halo_rows_are_all_that_moves_per_step(builds, np, tmp_path, opencl_available):
    """Copying buffers: per step, what each rank moves between host and device is its halo
    rows (read back the two it sends, and the two it receives, which a receive may leave
    unwritten; written back the two it receives), not its arrays."""
    if not opencl_available:
        pytest.skip("no OpenCL device: nothing moves")
    env = PATHS["device-copy"]
    short = _mpirun(builds["ompcl"], np, 1, STEPS, tmp_path, **env)
    long = _mpirun(builds["ompcl"], np, 1, 3 * STEPS, tmp_path, **env)
    per = mpi.per_step(short, long, 2 * STEPS)
    assert sorted(long["ranks"]) == list(range(np)), "one statistics file per rank"
    for rank, moved in per["bytes_per_rank"].items():
        total = moved["bytes_to_device"] + moved["bytes_to_host"]
        st = long["ranks"][rank]
        assert st["device"]["available"] and st["launcher"]["rank"] == rank
        assert st["device"]["ranks_sharing"] == np  # one device on this machine
        arrays = st["totals"]["data_bytes"]
        assert 0 < total <= 2 * HALO_BYTES, \
            f"rank {rank}: {moved} bytes per step, halo {HALO_BYTES}, arrays {arrays}"


# -- the host-access analysis ----------------------------------------------------------------

def _expr(text: str):
    decls = "typedef void *MPI_Datatype; int ompi_mpi_double, ompi_mpi_int;"
    ast = c_parser.CParser().parse(f"{decls} void f(void) {{ g({text}); }}")
    return ast.ext[-1].body.block_items[0].args.exprs[0]


@pytest.mark.parametrize("text, size", [
    ("((MPI_Datatype) ((void *) &(ompi_mpi_double)))", "sizeof(double)"),  # Open MPI
    ("((MPI_Datatype) &(ompi_mpi_int))", "sizeof(int)"),
    ("((MPI_Datatype)0x4c00080b)", "8"),                                    # MPICH's MPI_DOUBLE
    ("((MPI_Datatype)0x4c000405)", "4"),                                    # MPICH's MPI_INT
    ("((MPI_Datatype)0x8c000001)", None),                                   # a derived type
    ("dtype", None),
])
def test_datatype_sizes(text, size):
    assert libcalls.datatype_size(_expr(text)) == size


MPI_PROGRAM = r"""
#include <mpi.h>
#include <stdio.h>
#define N 64
#define M 16
double a[N][M], b[N][M];
int main(int argc, char **argv) {
    int i, j, t, rank, n = N;
    double local = 0, global, *p = &a[0][0];
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (t = 0; t < 3; t++) {
#pragma omp parallel for private(j)
        for (i = 1; i < N - 1; i++)
            for (j = 0; j < M; j++)
                b[i][j] = a[i - 1][j] + a[i + 1][j] + t;
        MPI_Sendrecv(b[1], M, MPI_DOUBLE, MPI_PROC_NULL, 0, a[0], M, MPI_DOUBLE, MPI_PROC_NULL,
                     0, MPI_COMM_WORLD, &st);
        MPI_Send(&b[2][0], 2 * M, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        MPI_Bcast(p, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Recv(b, n, MPI_UNSIGNED_CHAR + 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, b[3], M, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("%g %g\n", b[5][5], global);
    MPI_Finalize();
    return 0;
}
"""


def _mpi_includes() -> list[str]:
    show = subprocess.run(["mpicc", "--showme:incdirs"] if FLAVOUR == "openmpi" else
                          ["mpicc", "-show"], capture_output=True, text=True)
    words = show.stdout.split()
    return [f"-I{w}" for w in words if not w.startswith("-")] if FLAVOUR == "openmpi" else \
        [w for w in words if w.startswith("-I")]


@needs_mpi
def test_mpi_calls_probe_their_buffers(tmp_path):
    """Each buffer argument is probed as count * sizeof(datatype) bytes where they are known
    (a row, a range from an element's address), the whole array where not; no MPI call
    makes the host copies of every array valid."""
    src = tmp_path / "p.c"
    src.write_text(MPI_PROGRAM)
    res = subprocess.run([sys.executable, "-m", "ompcl.cli", "translate", str(src), "-o",
                          str(tmp_path / "out"), "--emit", "host", *_mpi_includes()],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    host = (tmp_path / "out" / "p_host.c").read_text()
    body = host[host.index("MPI_Comm_rank(MPI_COMM_WORLD, &rank)"):host.index("printf(")]
    size = "sizeof(double)" if FLAVOUR == "openmpi" else "8"
    for probe in (f"ompcl_rt_host_range((const void *)(b[1]), (size_t)(16) * {size}, 1)",
                  f"ompcl_rt_host_range((const void *)(a[0]), (size_t)(16) * {size}, 2)",
                  f"ompcl_rt_host_range((const void *)(&b[2][0]), (size_t)(2 * 16) * {size}, 1)",
                  f"ompcl_rt_host_range((const void *)(b[3]), (size_t)(16) * {size}, 3)",
                  "ompcl_rt_host_range((const void *)&(b), sizeof(b), 2)"):  # unknown type
        assert probe in body, body
    assert f"ompcl_rt_host_range((const void *)(p), (size_t)(n) * {size}, 3)" in body
    assert "ompcl_rt_host_all" not in body, body


# -- the device each rank takes, statistics per rank -------------------------------------------

SMALL = r"""
#include <stdio.h>
double a[1000];
int main(void) {
    int i;
#pragma omp parallel for
    for (i = 0; i < 1000; i++) a[i] = i;
    printf("%g\n", a[999]);
    return 0;
}
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory, cache_dir) -> Path:
    d = tmp_path_factory.mktemp("mpi-small")
    (d / "s.c").write_text(SMALL)
    res = ompcl_build([d / "s.c"], d / "s")
    assert res.returncode == 0, res.stderr
    return d / "s"


_NO_LAUNCHER = {v: "" for v in ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                "OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMIX_RANK",
                                "SLURM_PROCID", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
                                "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE", "SLURM_LOCALID",
                                "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE",
                                "OMPCL_DEVICE_INDEX")}


@pytest.mark.parametrize("env, rank, by, sharing", [
    ({}, -1, "first", 1),
    ({"OMPI_COMM_WORLD_RANK": "6", "OMPI_COMM_WORLD_LOCAL_RANK": "2",
      "OMPI_COMM_WORLD_LOCAL_SIZE": "4"}, 6, "OMPI_COMM_WORLD_LOCAL_RANK", 4),
    ({"PMI_RANK": "3", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "3"}, 3, "MPI_LOCALRANKID", 3),
    ({"SLURM_PROCID": "9", "SLURM_LOCALID": "1", "SLURM_TASKS_PER_NODE": "2(x4)"}, 9,
     "SLURM_LOCALID", 2),
    ({"OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
      "OMPCL_DEVICE_INDEX": "5"}, -1, "OMPCL_DEVICE_INDEX", 2),
])
def test_device_of_the_local_rank(small, tmp_path, opencl_available, env, rank, by, sharing):
    """One device here: every rank takes it (index modulo 1); the statistics say which
    variable chose it and how many ranks of the node share it; %r names the file."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    out = run(small, OMPCL_DEVICE="opencl", OMPCL_STATS=str(tmp_path / "st-%r.json"),
              **{**_NO_LAUNCHER, **env})
    assert out.returncode == 0, out.stderr
    name = f"st-{rank}.json" if rank >= 0 else None
    files = list(tmp_path.glob("st-*.json"))
    assert len(files) == 1 and (name is None or files[0].name == name), files
    st = load_stats(files[0])
    assert st["device"]["index"] == 0 and st["device"]["devices"] >= 1
    assert st["device"]["chosen_by"] == by and st["device"]["ranks_sharing"] == sharing
    assert st["launcher"]["rank"] == rank
    if rank < 0:  # no launcher: %r is the process id
        assert files[0].stem[3:].isdigit()


def test_stats_path_keeps_other_percent_signs(small, tmp_path):
    out = run(small, OMPCL_DEVICE="openmp", OMPCL_STATS=str(tmp_path / "s%x-%%-%r.json"),
              **{**_NO_LAUNCHER, "PMI_RANK": "2"})
    assert out.returncode == 0, out.stderr
    assert [p.name for p in tmp_path.glob("*.json")] == ["s%x-%-2.json"]


def test_info_choice_by_local_rank():
    from ompcl import info

    def dev(name: str) -> info.Device:
        return info.Device(name, "gpu", 4, 2**30, True, False, "OpenCL 3.0", 4)

    plats = [info.Platform("A", "a", "3.0", [dev("g0"), dev("g1")]),
             info.Platform("B", "b", "3.0", [dev("g2")])]
    base = {"OMPI_COMM_WORLD_LOCAL_SIZE": "5"}
    picks = [info.device_choice(plats, {**base, "OMPI_COMM_WORLD_LOCAL_RANK": str(r)})
             for r in range(5)]
    assert [p["chosen"] for p in picks] == [(0, 0), (0, 1), (1, 0), (0, 0), (0, 1)]
    assert [p["ranks_sharing"] for p in picks] == [2, 2, 1, 2, 2]
    forced = info.device_choice(plats, {**base, "OMPI_COMM_WORLD_LOCAL_RANK": "1",
                                        "OMPCL_DEVICE_INDEX": "2"})
    assert forced["chosen"] == (1, 0) and forced["ranks_sharing"] == 5
    assert info.device_choice(plats, {})["chosen"] == (0, 0)


# -- ompcl bench mpi ---------------------------------------------------------------------------

@needs_mpi
def test_bench_mpi(tmp_path, cache_dir):
    out = tmp_path / "r.json"
    rc = mpi.main([str(EXAMPLE), "--np", "2", "--threads", "1", "--steps", "3", "--cflags",
                   f"-DNX={NX} -DNY={NY}", "--env", "OMPCL_DEVICE=opencl", "--env",
                   "OMPCL_ZERO_COPY=0", "--json", str(out)])
    assert rc == 0
    [row] = json.loads(out.read_text())
    assert row["same"] and row["np"] == 2 and row["ompcl"]["step_s"] > 0
    assert sorted(row["ompcl"]["bytes_per_rank"]) == ["0", "1"]
