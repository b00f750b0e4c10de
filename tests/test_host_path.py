"""The host path keeps the original's data sharing (issue 34): every translated region runs on
every path (host, device with copying and zero-copy buffers, the team of one's host path) at
1, 2, 3 and 7 threads and gives the original's answer at the same count; a team's loop that
stays on the host runs with a team of its own; a region that asks for its team is never run by
a team of one; and each shared host function of a team loop declares exactly the region's
private variables it names."""
from __future__ import annotations

import re
from pathlib import Path

from pycparser import c_ast

from ompcl.analysis.ctypes_ import walk
from ompcl.frontend.program import load_program
from ompcl.fuzz.generator import generate
from ompcl.fuzz.oracle import write_program
from ompcl.outputs import write_outputs
from ompcl.pipeline import translate

from conftest import (CORPUS, ROOT, device_runs, every_path, gcc_build, load_stats, ompcl_build,
                      run)

HERE = Path(__file__).parent / "host_path"


def _build(src: Path, tmp_path: Path) -> tuple[Path, Path]:
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    return ref, exe


def test_privatised_file_scope_array_on_every_path(tmp_path):
    """NPB LU's rhs: 'private(flux)' of a file-scope array on a region whose loops share a
    host function: every thread of the host path writes its own copy (all of them wrote the
    one global array, a wrong answer from 2 threads on)."""
    src = HERE / "privatised_global.c"
    ref, exe = _build(src, tmp_path)
    every_path(ref, exe, 0.0)
    t = translate(str(src))
    assert len(t.offloaded) == 2 and all(team.offload for team in t.teams)


def test_team_loop_left_on_the_host_runs_with_a_team(tmp_path, opencl_available):
    """The team of one runs its loop that stays on the host as a parallel loop of its own with
    the loop's clauses: it builds (gcc rejected the orphaned copy's reduction of a local) and
    its floating-point sum shows it ran with the team's threads."""
    src = HERE / "team_host_loop.c"
    ref, exe = _build(src, tmp_path)
    refs = every_path(ref, exe, 1e-12, threads=("1", "2", "3"))
    assert refs["1"] != refs["2"], "the sum does not tell one thread from two"
    t = translate(str(src))
    assert [r.offload for r in t.regions] == [False, True]
    assert t.teams[0].offload and t.teams[0].serial == (t.regions[0].id,)
    if opencl_available:   # the team of one ran: its offloaded loop on the device
        stats = tmp_path / "stats.json"
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
        assert out.stdout == refs["2"]
        line = t.regions[1].loc.line
        assert [r["device_runs"] for r in load_stats(stats)["regions"]
                if r["line"] == line] == [3], load_stats(stats)["regions"]


def test_region_that_asks_its_team_in_master_is_answered_as_its_team(tmp_path):
    """PRK's team size check passes on every path: the team of one answers the master's
    ``omp_get_num_threads()`` with the host team's size (a team of one answering 1 made the
    program fail); a query outside once-run code keeps the region a real team."""
    src = HERE / "asks_team.c"
    ref, exe = _build(src, tmp_path)
    every_path(ref, exe, 0.0)
    t = translate(str(src))
    assert t.teams[0].offload and t.teams[0].queries == ("omp_get_num_threads",)
    everyone = tmp_path / "everyone.c"
    everyone.write_text(src.read_text().replace("#pragma omp master\n    got =", "got ="))
    t = translate(str(everyone))
    assert not t.teams[0].offload
    assert any(r.id == "team-observed" and "omp_get_num_threads" in r.message
               for r in t.teams[0].reasons)


# -- the data sharing of every shared host function ----------------------------------------

def _names(node: c_ast.Node) -> set[str]:
    fields = {id(n.field) for n in walk(node) if isinstance(n, c_ast.StructRef)}
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID) and id(n) not in fields}


def _clause_names(d, *kinds: str) -> set[str]:
    return {a for k in kinds for c in d.clause(k) for a in c.args}


def _loop_vars(stmt: c_ast.Node, depth: int) -> set[str]:
    out = set()
    for _ in range(depth):
        if not isinstance(stmt, c_ast.For):
            break
        if isinstance(stmt.init, c_ast.Assignment):
            out.add(stmt.init.lvalue.name)
        stmt = stmt.stmt
        while isinstance(stmt, c_ast.Compound) and len(stmt.block_items or []) == 1:
            stmt = stmt.block_items[0]
    return out


def _expected_private(t, region) -> set[str]:
    """From the original program alone: the variables named by the loop that each thread
    has its own copy of (the loop's private clause and iteration variables, the region's
    private, firstprivate and reduction clauses, what is declared inside the region), its
    threadprivate data aside."""
    team = next(x for x in t.teams if x.id == region.team)
    d, td = region.bound.directive, team.bound.directive
    inside = {id(n) for n in walk(team.bound.stmt)}
    declared = {n.name for n in walk(team.bound.stmt) if isinstance(n, c_ast.Decl)
                and n.name and id(n) in inside}
    collapse = next((int(c.args[0]) for c in d.clause("collapse")), 1)
    own = _clause_names(d, "private") | _loop_vars(region.bound.stmt, collapse) | \
        _clause_names(td, "private", "firstprivate", "reduction") | declared
    local = {n.name for n in walk(region.bound.stmt) if isinstance(n, c_ast.Decl) and n.name}
    return (_names(region.bound.stmt) - local & own) - set(region.threadprivates)


def _host_functions(host_file: Path) -> dict[int, c_ast.FuncDef]:
    prog = load_program(str(host_file))
    return {int(m[1]): e for e in prog.ast.ext if isinstance(e, c_ast.FuncDef)
            for m in [re.fullmatch(r"ompcl_host_(\d+)", e.decl.name)] if m}


def _programs(tmp: Path) -> list[Path]:
    """The test corpus, the fuzz regressions, this file's programs and generated programs
    of the team families."""
    out = sorted(CORPUS.glob("*.c")) + sorted((ROOT / "tests" / "fuzz_regressions").glob(
        "*.c")) + sorted(HERE.glob("*.c"))
    for seed in range(20):
        d = tmp / f"gen{seed}"
        d.mkdir()
        out.append(write_program(generate(340000 + seed, ["team_sharing"]), d))
    return out


def test_shared_host_functions_keep_the_regions_data_sharing(tmp_path):
    """For every shared host function of a team loop (codegen.hostloop) in the corpus: the
    variables it declares, plus the values it is passed, are exactly the region's private
    variables the loop names (computed from the clauses and scoping of the original), so a
    privatised variable is never the shared one in the host code."""
    checked = 0
    for src in _programs(tmp_path):
        t = translate(str(src))
        if not any(r.context == "region" and r.offload for r in t.regions):
            continue
        out = tmp_path / "out" / src.stem
        write_outputs([t], out)
        funcs = _host_functions(out / f"{src.stem}_host.c")
        for r in t.regions:
            f = funcs.get(r.id)
            if f is None or r.context != "region":
                continue
            params = {p.name for p in (f.decl.type.args.params if f.decl.type.args else [])
                      if isinstance(p, c_ast.Decl)}
            own = {n.name for n in f.body.block_items or [] if isinstance(n, c_ast.Decl)}
            expected = _expected_private(t, r)
            assert own == expected - params, (src.name, r.loc, own, expected, params)
            checked += 1
    assert checked >= 20, checked


def test_orphaned_loops_of_a_host_region_see_device_data(tmp_path):
    """Orphaned loops reached inside a parallel region that runs on the host read what the
    device wrote before the region (every thread brings the host copies up to date: with
    copying buffers they read stale values from 2 threads on)."""
    ref, exe = _build(HERE / "orphan_reads_device_data.c", tmp_path)
    every_path(ref, exe, 0.0)
    # the loops around the region, every step; the orphaned loops, listed in the order
    # first entered, run only inside the region's team
    assert device_runs(exe) in (None, [3, 0, 0, 3])
