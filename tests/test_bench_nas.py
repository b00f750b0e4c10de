"""``ompcl bench nas``: the harness over the NAS suite, run for real on quick subsets.

The project's suite (EP and IS at class S, one repeat, every default variant) and the small
NPB-layout tree in tests/npb_tree (its own Makefiles and sys/setparams; a benchmark made to
fail verification; a compiler that crashes on one benchmark). The tests read what the harness
wrote: the table, results.csv, results.json, the training rows and the PNG figures.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import stat
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from ompcl.bench import nas, output
from ompcl.predict.schema import ROW_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "tests" / "npb_tree"
MEASURED = ("seq", "omp", "ocl", "auto", "host")
DERIVED = ("best-single", "oracle", "region-oracle")

pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None,
                                reason="make and gcc are required")


def bench(out: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ompcl.cli", "bench", "nas", "-o", str(out),
                           *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def by_variant(rows: list[dict], bm: str) -> dict[str, dict]:
    return {r["variant"]: r for r in rows if r["benchmark"] == bm}


class Round:
    """One harness invocation and what it wrote."""

    def __init__(self, out: Path, res: subprocess.CompletedProcess):
        self.out, self.res = out, res
        self.doc = json.loads((out / "results.json").read_text())
        self.csv = read_csv(out / "results.csv")

    def runs(self, **match) -> list[dict]:
        return [r for r in self.doc["runs"] if all(r[k] == v for k, v in match.items())]


@pytest.fixture(scope="module")
def suite(tmp_path_factory, opencl_available) -> Round:
    """The project's EP and IS at class S, every default variant, one repeat."""
    out = tmp_path_factory.mktemp("suite")
    res = bench(out, "--classes", "S", "--benchmarks", "ep,is", "--repeats", "1",
                "--threads", "2")
    assert res.returncode == 0, res.stderr[-3000:]
    return Round(out, res)


@pytest.fixture(scope="module")
def npb_tree(tmp_path_factory, opencl_available) -> Round:
    """The NPB-layout tree with EP made to fail its verification, two repeats."""
    out = tmp_path_factory.mktemp("npb")
    res = bench(out, "--npb-dir", str(TREE), "--repeats", "2", "--threads", "2",
                "--env", "NPB_TEST_FAIL=ep")
    assert res.returncode == 1, res.stderr[-3000:]  # a failed verification is an error
    return Round(out, res)


# ---- the project's suite --------------------------------------------------------------------

def test_every_variant_runs_verified_and_lands_in_the_csv(suite):
    assert list(suite.csv[0]) == list(output.COLUMNS)
    for bm in ("ep", "is"):
        rows = by_variant(suite.csv, bm)
        assert set(rows) == set(MEASURED + DERIVED)
        for v in MEASURED:
            assert rows[v]["verified"] == "True" and rows[v]["status"] == "SUCCESSFUL", rows[v]
            assert rows[v]["runs"] == rows[v]["verified_runs"] == "1"
            assert float(rows[v]["speedup"]) > 0 and float(rows[v]["mops"]) > 0
        assert float(rows["seq"]["speedup"]) == 1.0
    for r in suite.doc["runs"]:
        log = Path(r["log"]).read_text()
        assert r["verified"] and re.search(r"^ Verification\s*=\s*SUCCESSFUL", log, re.M)


def test_table_and_progress(suite):
    for bm in ("ep", "is"):
        for v in MEASURED + DERIVED:
            assert re.search(rf"^{bm}\s+S\s+{v}\s+\d+\s", suite.res.stdout, re.M), v
    assert re.search(r"^ep\s+S\s+seq\s+1\s+\S+\s+\S+\s+SUCCESSFUL", suite.res.stdout, re.M)
    # stderr is a pipe here: no progress bar (a bar in a log is one long line of \r)
    assert "\r" not in suite.res.stderr and not re.search(r"\d+/\d+ \[", suite.res.stderr)


def test_progress_bar_only_on_a_terminal():
    """The bar names the benchmark and variant on a terminal, and writes nothing elsewhere."""
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for file, shown in ((io.StringIO(), False), (Terminal(), True)):
        with nas.progress(4, file) as bar:
            bar.set_description("run is S ocl 2 threads")
            bar.update(1)
        text = file.getvalue()
        assert bool(text) == shown
        if shown:
            assert "run is S ocl 2 threads" in text and re.search(r"\b1/4 \[", text)


def test_environment_is_recorded(suite):
    env = suite.doc["environment"]
    assert env["OMP_WAIT_POLICY"] == "passive" and env["OMP_PROC_BIND"] == "true"
    assert len(env["load_before"]) == 3 and len(env["load_after"]) == 3
    assert env["cpu"] and env["compilers"]["gcc"].startswith("gcc")
    assert env["load_per_repeat"][0]["repeat"] == 1
    ocl = suite.runs(variant="ocl", repeat=1)[0]
    assert "OMP_NUM_THREADS=" in Path(ocl["log"]).read_text().splitlines()[0]
    assert "OMPCL_DEVICE=opencl" in Path(ocl["log"]).read_text().splitlines()[0]


def test_device_variants_are_warmed_up_first(suite):
    for bm in ("ep", "is"):
        order = [(r["variant"], r["repeat"]) for r in suite.doc["runs"] if r["benchmark"] == bm]
        warm = [i for i, (_, rep) in enumerate(order) if rep == 0]
        assert {order[i][0] for i in warm} == {"ocl", "auto"}
        assert max(warm) < min(i for i, (_, rep) in enumerate(order) if rep > 0)


def test_derived_mappings(suite):
    rows = {(r["benchmark"], r["variant"]): r for r in suite.doc["results"]}
    for bm in ("ep", "is"):
        best = max(("omp", "ocl"), key=lambda v: rows[(bm, v)]["speedup"])
        assert rows[(bm, "oracle")]["chosen"] == best
        assert rows[(bm, "oracle")]["speedup"] == rows[(bm, best)]["speedup"]
    single = {rows[(bm, "best-single")]["chosen"] for bm in ("ep", "is")}
    assert len(single) == 1  # one device for the whole suite
    assert "region-oracle" in suite.doc["definitions"]


def _saved(host_stats: dict, dev_stats: dict) -> float:
    """Seconds the per-region oracle saves, recomputed from two statistics reports."""
    def regions(s):
        return {(Path(r["file"]).name, r["line"], r.get("kernel")): r
                for r in s.get("regions", []) + s.get("teams", [])}
    dev = regions(dev_stats)
    saved = 0.0
    for key, h in regions(host_stats).items():
        d = dev.get(key)
        if h["host_runs"] and h["seconds_host"] > 0 and d and d["device_runs"]:
            d_s = d["seconds_device"] / d["device_runs"] * h["host_runs"]
            saved += h["seconds_host"] - min(h["seconds_host"], d_s)
    return saved


def check_region_oracle(rnd: Round, bm: str) -> str:
    """The per-region oracle's speed-up, recomputed repeat by repeat from the statistics of
    the host and ocl runs (the median of the repeats); returns which total it started from."""
    rows = {r["variant"]: r for r in rnd.doc["results"] if r["benchmark"] == bm}
    longest = max((r for r in rnd.runs(benchmark=bm) if r["verified"] and r["repeat"]),
                  key=lambda r: (r["time_s"], r["mops"] or 0))
    speedups, bases = [], set()
    for rep in sorted({r["repeat"] for r in rnd.runs(benchmark=bm) if r["repeat"]}):
        host = rnd.runs(benchmark=bm, variant="host", repeat=rep)[0]
        ocl = rnd.runs(benchmark=bm, variant="ocl", repeat=rep)[0]
        saved = _saved(*(json.loads(Path(r["stats"]).read_text()) for r in (host, ocl)))
        timed = longest["time_s"] * longest["mops"] / host["mops"]
        basis, total = ("timed", timed) if longest["time_s"] >= 0.1 and timed > saved else \
            ("wall", host["wall_s"])
        bases.add(basis)
        speedups.append(host["mops"] / rows["seq"]["mops"] * total / (total - saved))
    assert rows["region-oracle"]["chosen"].endswith(f"from the {'/'.join(sorted(bases))} seconds")
    assert rows["region-oracle"]["speedup"] == pytest.approx(statistics.median(speedups))
    return "/".join(sorted(bases))


def test_per_region_oracle_from_the_statistics(suite):
    check_region_oracle(suite, "is")
    host = suite.runs(benchmark="is", variant="host", repeat=1)[0]
    ocl = suite.runs(benchmark="is", variant="ocl", repeat=1)[0]
    hs, ds = (json.loads(Path(r["stats"]).read_text()) for r in (host, ocl))
    # device seconds leave out the device's set-up (OpenCL context, programs), teams included
    timed = [r for r in ds["regions"] + ds["teams"] if any(
        h["line"] == r["line"] and h["file"] == r["file"] for h in hs["regions"] + hs["teams"])]
    setup = ds["totals"]["setup_seconds"]
    assert setup > 0 and sum(r["seconds_device"] for r in timed) + setup <= ocl["wall_s"]
    regions = [r for r in suite.doc["regions"] if r["benchmark"] in ("ep", "is")]
    # work-sharing loops and EP's parallel region run as a team of one (IS's asks for its
    # team size, so it keeps its team); both sides are timed
    assert {"loop", "parallel region"} <= {r["kind"] for r in regions}
    for r in regions:
        assert r["host_s"] > 0 and r["device_s"] > 0
        assert r["oracle"] == ("device" if r["device_s"] < r["host_s"] else "host")
        assert r["auto"] in ("device", "host", "mixed")


def test_training_rows(suite, opencl_available):
    path = suite.out / "training_rows.csv"
    # ompcl train's schema, and the OpenMP thread count of each row
    assert path.read_text().splitlines()[0] == ",".join(ROW_COLUMNS + ("threads",))
    rows = read_csv(path)
    if not opencl_available:
        pytest.skip("no OpenCL device: the ocl runs ran on the host")
    assert suite.doc["training_rows"]["rows"] == len(rows) > 0
    for r in rows:
        assert r["benchmark"] == "is" and r["dataset"] == "S"
        assert float(r["runtime_cpu"]) > 0 and float(r["runtime_gpu"]) > 0
        assert int(r["threads"]) >= 1


def _png(path: Path):
    import matplotlib.image
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return matplotlib.image.imread(path)


def test_figures_decode(suite):
    assert sorted(suite.doc["figures"]) == ["dispatch_S_t2.png", "speedup_S_t2.png"]
    for name in suite.doc["figures"]:
        img = _png(suite.out / name)
        assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 400
        assert img[..., :3].std() > 0.05  # not a blank canvas


# ---- an NPB 3.x tree ------------------------------------------------------------------------

def test_npb_tree_built_with_its_own_makefiles(npb_tree):
    copy = npb_tree.out / "build" / "npb-seq-gcc"
    assert "#define NITER 3000" in (copy / "VA" / "npbparams.h").read_text()  # its setparams
    assert not (TREE / "VA" / "npbparams.h").exists() and not (TREE / "bin").exists()
    seq = Path(npb_tree.runs(benchmark="va", variant="seq", repeat=1)[0]["log"]).read_text()
    omp = Path(npb_tree.runs(benchmark="va", variant="omp", repeat=1)[0]["log"]).read_text()
    assert re.search(r"Threads\s*=\s*1$", seq, re.M) and re.search(r"Threads\s*=\s*2$", omp, re.M)
    rows = by_variant(npb_tree.csv, "va")
    assert all(rows[v]["verified"] == "True" for v in MEASURED + DERIVED)


def test_npb_tree_offloads(npb_tree, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    ocl = npb_tree.runs(benchmark="va", variant="ocl", repeat=1)[0]
    stats = json.loads(Path(ocl["stats"]).read_text())
    assert stats["regions"] and all(r["device_runs"] > 0 for r in stats["regions"])
    assert stats["teams"][0]["device_runs"] == 1  # the parallel region, as a team of one
    assert npb_tree.doc["environment"]["opencl"]["available"] is True


def test_per_region_oracle_from_the_timed_seconds(npb_tree):
    """VA reports 0.1 s or more: the estimate starts from the benchmark's timed seconds."""
    assert check_region_oracle(npb_tree, "va") == "timed"


def test_failed_verification_is_reported_and_never_timed(npb_tree):
    rows = by_variant(npb_tree.csv, "ep")
    for v in MEASURED:
        assert rows[v]["verified"] == "False" and rows[v]["status"].startswith("UNSUCCESSFUL")
        assert rows[v]["verified_runs"] == "0" and rows[v]["runs"] == "2"
        assert rows[v]["time_s"] == rows[v]["mops"] == rows[v]["speedup"] == ""
    assert "region-oracle" not in rows and "oracle" not in rows
    assert all(not r["verified"] for r in npb_tree.runs(benchmark="ep"))
    assert re.search(r"^ompcl: bench: ep class S ocl 2 threads: UNSUCCESSFUL", npb_tree.res.stderr,
                     re.M)


def test_variants_interleaved_and_rotated(npb_tree):
    def order(rep):
        return [r["variant"] for r in npb_tree.runs(benchmark="va", repeat=rep)]
    first, second = order(1), order(2)
    assert sorted(first) == sorted(second) == sorted(MEASURED)
    assert first != second and first[1:] + first[:1] == second
    timed = [(r["repeat"], r["benchmark"]) for r in npb_tree.doc["runs"] if r["repeat"] > 0]
    assert timed == sorted(timed)  # repeat by repeat, every benchmark in each


def test_compiler_crash_is_retried_with_the_fallback(tmp_path, opencl_available):
    if shutil.which("clang-15") is None:
        pytest.skip("clang-15 not installed")
    crashing = tmp_path / "crashing-cc"
    crashing.write_text('#!/bin/sh\ncase "$*" in *va.c*) echo "va.c: internal compiler error: '
                        'Segmentation fault" >&2; exit 4;; esac\nexec gcc "$@"\n')
    crashing.chmod(crashing.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "out"
    res = bench(out, "--npb-dir", str(TREE), "--repeats", "1", "--variants", "seq,ocl",
                "--cc", str(crashing), "--cc", "ep=gcc", "--fallback-cc", "clang-15")
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads((out / "results.json").read_text())
    builds = {(b["benchmark"], b["flavour"]): b for b in doc["builds"]}
    for flavour in ("seq", "ompcl"):
        assert builds[("va", flavour)]["compiler"] == "clang-15"
        assert builds[("va", flavour)]["retried_from"] == str(crashing)
        assert builds[("ep", flavour)]["compiler"] == "gcc"  # chosen for that benchmark
    assert f"warning: {crashing} crashed building va" in res.stderr
    log = Path(builds[("va", "seq")]["log"]).read_text()
    assert "internal compiler error" in log and "retried with clang-15" in log
    rows = by_variant(read_csv(out / "results.csv"), "va")
    assert rows["ocl"]["verified"] == "True" and "crashed" in rows["ocl"]["compiler"]
    assert doc["environment"]["compilers"]["clang-15"].startswith("Debian clang") or \
        "clang" in doc["environment"]["compilers"]["clang-15"]


# ---- usage errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, status", [
    (["--classes", "X"], 2), (["--benchmarks", "nope"], 2), (["--variants", "gpu"], 2),
    (["--threads", "0"], 2), (["--threads", "two"], 2), (["--repeats", "0"], 2),
    (["--env", "NOEQUALS"], 2), (["--cc", "zz=gcc"], 2), (["--model", "/no/such.json"], 2),
    (["--bogus"], 2), (["--npb-dir", "/no/such/dir"], 1), (["--npb-dir", str(ROOT / "tests")], 1),
])
def test_usage_errors_are_one_line(args, status, capsys, tmp_path):
    assert nas.main([*args, "-o", str(tmp_path / "o")]) == status
    err = capsys.readouterr().err.strip()
    assert err.startswith("ompcl: error: ") and "\n" not in err, err
    assert not (tmp_path / "o").exists()


def test_usage_error_through_the_command_line(tmp_path):
    res = bench(tmp_path, "--classes", "Q")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip() == "ompcl: error: unknown class 'Q' (known: S, W, A, B, C)"


# ---- figures and table, from made-up rows (no runs) ------------------------------------------

def _rows(variants=("seq", "omp", "ocl", "host", "auto", "best-single", "oracle",
                    "region-oracle")):
    return [{"benchmark": bm, "class": "S", "threads": 2, "variant": v, "speedup": s,
             "speedup_min": 0.9 * s, "speedup_max": 1.1 * s, "verified": True}
            for bm in ("ep", "is") for v, s in zip(variants, (1, 1.8, 1.2, 1.7, 1.9, 1.8,
                                                              1.9, 1.5), strict=False)]


def _regions():
    return [{"benchmark": "ep", "region": "ep.c:10:ompcl_k0", "host_s": 2e-3, "device_s": 4e-4,
             "auto": "device", "agrees": True},
            {"benchmark": "ep", "region": "ep.c:20:ompcl_k1", "host_s": 3e-6, "device_s": 1e-4,
             "auto": "device", "agrees": False}]


def test_speedup_figure_labels_every_variant_and_explains_the_region_oracle(tmp_path):
    from ompcl.bench import plots
    fig = plots.speedup_plot(_rows(), "NAS class S, 2 threads")
    ax = fig.axes[0]
    assert "benchmark" in ax.get_xlabel() and "speed-up over sequential" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["EP", "IS", "geomean"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["omp", "ocl", "host", "auto", "best-single", "oracle", "region-oracle"]
    caption = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    assert "region-oracle: an estimate" in caption and "below the per-program oracle" in caption
    plots.speedup_figure(tmp_path / "s.png", _rows(), "t")
    assert _png(tmp_path / "s.png").ndim == 3


def test_dispatch_figure_explains_its_marks_and_shows_times_with_units(tmp_path):
    from ompcl.bench import plots
    fig = plots.dispatch_plot(_regions(), "dispatch")
    ax = fig.axes[0]
    assert "log2(host seconds / device seconds)" in ax.get_xlabel() and ax.get_ylabel()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["auto ran it on the device", "x: auto chose the side the oracle did not"]
    assert not any("not run" in t for t in legend)
    notes = [t.get_text() for t in ax.texts]
    assert notes == ["host 2 ms, device 400 µs", "host 3 µs, device 100 µs"]
    assert not any("0.000" in t for t in notes)
    plots.dispatch_figure(tmp_path / "d.png", _regions(), "t")
    assert _png(tmp_path / "d.png").ndim == 3


def test_table_says_when_a_time_is_below_the_timer_resolution():
    rows = [{**r, "time_s": t, "mops": 1.0, "status": "SUCCESSFUL", "runs": 1,
             "verified_runs": 1}
            for r, t in zip(_rows(("seq", "omp", "region-oracle")), (0.0, 0.0123, 0.2),
                            strict=False)]
    text = output.format_table(rows)
    assert "0.000" not in text
    assert re.search(r"^ep\s+S\s+seq\s+2\s+<0\.01\s", text, re.M)
    assert re.search(r"^ep\s+S\s+omp\s+2\s+0\.0123\s", text, re.M)
    assert "below the resolution of the benchmark's own timer" in text
    assert "region-oracle: an estimate" in text


def test_bytes_moved_over_the_data_with_copying_buffers(tmp_path, opencl_available):
    """With ``--env OMPCL_ZERO_COPY=0`` (a discrete device's transfers) the table and the CSV
    give the bytes each way over the data the device held (issue 36)."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    out = tmp_path / "moved"
    res = bench(out, "--classes", "S", "--benchmarks", "mg", "--variants", "ocl",
                "--repeats", "1", "--threads", "2", "--env", "OMPCL_ZERO_COPY=0")
    assert res.returncode == 0, res.stderr[-3000:]
    row = by_variant(read_csv(out / "results.csv"), "mg")["ocl"]
    assert int(float(row["data_bytes"])) > 0
    to_dev, back = float(row["to_device_over_data"]), float(row["to_host_over_data"])
    assert 0.5 <= to_dev <= 3.0 and back <= 3.0, row
    assert f"{to_dev:.1f}/{back:.1f}" in res.stdout and "moved/data" in res.stdout
