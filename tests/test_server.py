"""The compile server behind ``ompcl cc`` (driver/client.py, driver/server.py): the first
command runs in process and starts a server; later commands run in its workers with the
client's arguments, directory, environment, standard streams and exit status (a compiler's
death by a signal included); signals reach the compiler; idle servers, stopped servers and
stale sockets leave nothing behind; translated builds give the same answers through it."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import load_stats, run
from test_cc import OMPCL_CC, cc_env, write_project

#: a compiler that logs what it was given, and who its grandparent is (the server)
PROBE_CC = f"""#!{sys.executable}
import json, os, signal, sys, time
args = sys.argv[1:]
with open("/proc/%d/stat" % os.getppid()) as fh:
    grandparent = int(fh.read().rsplit(")", 1)[1].split()[1])
rec = {{"args": args, "cwd": os.getcwd(), "mark": os.environ.get("PROBE_MARK"),
       "grandparent": grandparent, "umask": os.umask(0)}}
if "-" in args:
    rec["stdin"] = sys.stdin.read()
with open(os.environ["PROBE_LOG"], "a") as fh:
    fh.write(json.dumps(rec) + "\\n")
print("to stdout")
print("to stderr", file=sys.stderr)
if os.environ.get("PROBE_SLEEP"):
    open(os.environ["PROBE_SLEEP"], "w").write(str(os.getpid()))
    time.sleep(60)
if os.environ.get("PROBE_SIGNAL"):
    os.kill(os.getpid(), getattr(signal, os.environ["PROBE_SIGNAL"]))
sys.exit(int(os.environ.get("PROBE_RC", "0")))
"""


@pytest.fixture
def server_env(tmp_path):
    """A build environment with the server on, its sockets in a private (short) directory;
    every server started there is stopped afterwards."""
    d = tempfile.mkdtemp(prefix="ompcl-srv-", dir="/tmp")
    env = cc_env(tmp_path, OMPCL_SERVER="1", OMPCL_SERVER_DIR=d, OMPCL_SERVER_IDLE="120")
    probe = tmp_path / "probecc"
    probe.write_text(PROBE_CC)
    probe.chmod(0o755)
    env.update(OMPCL_CC=str(probe), PROBE_LOG=str(tmp_path / "probe.log"))
    yield env
    from ompcl.driver import client
    for s in client.sockets(d):
        client.request(s, "stop")
    _wait(lambda: not client.sockets(d))
    shutil.rmtree(d, ignore_errors=True)


def _wait(cond, timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def _sockets(env) -> list[str]:
    from ompcl.driver import client
    return client.sockets(env["OMPCL_SERVER_DIR"])


def _server_pid(env) -> int | None:
    from ompcl.driver import client
    for s in _sockets(env):
        reply = client.request(s, "ping")
        if reply:
            return reply["pid"]
    return None


def _cc(env, *args, cwd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*OMPCL_CC, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, **kw)


def _log(env) -> list[dict]:
    path = Path(env["PROBE_LOG"])
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(x) for x in lines]


def _started(env, cwd) -> int:
    """Run a first command (in process; it starts the server) and wait for the server."""
    res = _cc(env, "--version", cwd=cwd)
    assert res.returncode == 0, res.stderr
    assert _log(env)[-1]["grandparent"] != _server_pid(env)
    assert _wait(lambda: _server_pid(env) is not None), "no server came up"
    return _server_pid(env)


def test_commands_run_in_a_worker_as_they_would_in_process(tmp_path, server_env):
    server = _started(server_env, tmp_path)
    sub = tmp_path / "sub dir"
    sub.mkdir()
    env = dict(server_env, PROBE_MARK="marked", PROBE_RC="7")
    args = ["-E", "-DMSG=\"two words\"", "-I/home/x", "-"]
    res = _cc(env, *args, cwd=sub, input="int stdin_text;\n")
    assert res.returncode == 7
    assert res.stdout == "to stdout\n" and res.stderr == "to stderr\n"
    rec = _log(env)[-1]
    assert rec["grandparent"] == server       # the server's worker ran the compiler
    assert rec["args"] == args and rec["cwd"] == str(sub) and rec["mark"] == "marked"
    assert rec["stdin"] == "int stdin_text;\n"
    # the client's umask, not the server's
    res = subprocess.run(["sh", "-c", "umask 027; exec \"$@\"", "sh", *OMPCL_CC, "--version"],
                         cwd=tmp_path, env=server_env, capture_output=True, text=True)
    assert res.returncode == 0 and _log(env)[-1]["umask"] == 0o027
    assert _log(env)[-1]["grandparent"] == server


def test_a_compiler_killed_by_a_signal_kills_the_command(tmp_path, server_env):
    _started(server_env, tmp_path)
    res = _cc(dict(server_env, PROBE_SIGNAL="SIGTERM"), "--version", cwd=tmp_path)
    assert res.returncode == -signal.SIGTERM
    assert _log(server_env)[-1]["grandparent"] == _server_pid(server_env)


def test_an_interrupt_reaches_the_compiler(tmp_path, server_env):
    _started(server_env, tmp_path)
    pidfile = tmp_path / "sleeping"
    proc = subprocess.Popen([*OMPCL_CC, "--version"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            env=dict(server_env, PROBE_SLEEP=str(pidfile)))
    assert _wait(lambda: pidfile.exists() and pidfile.read_text())
    compiler = int(pidfile.read_text())
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) != 0
    assert _wait(lambda: not Path(f"/proc/{compiler}").exists()
                 or "Z" in Path(f"/proc/{compiler}/stat").read_text().split()[2])


def test_translated_build_gives_the_same_answers(tmp_path, server_env, opencl_available):
    write_project(tmp_path)
    env = dict(server_env)
    env.pop("OMPCL_CC")
    first = _cc(env, "-O2", "-fopenmp", "off.c", "-o", "first", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert _wait(lambda: _server_pid(env) is not None)
    shutil.rmtree(tmp_path / "cache" / "cc-translations", ignore_errors=True)
    keep = tmp_path / "kept"
    res = _cc(env, "-O2", "-fopenmp", f"--ompcl-keep={keep}", "-c", "off.c", "-o", "off.o",
              cwd=tmp_path)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert "ompcl_rt.h" in (keep / "off.c").read_text()     # translated by the worker
    res = _cc(env, "-fopenmp", "off.o", "-o", "served", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    gcc = subprocess.run(["gcc", "-O2", "-fopenmp", "off.c", "-o", "plain"], cwd=tmp_path)
    assert gcc.returncode == 0
    expected = run(tmp_path / "plain").stdout
    runs = [("openmp", "1"), ("auto", "1"), ("opencl", "1"), ("opencl", "0")]
    stats = tmp_path / "stats.json"
    for exe in ("first", "served"):
        for mode, zero_copy in runs:
            out = run(tmp_path / exe, OMPCL_DEVICE=mode, OMPCL_ZERO_COPY=zero_copy,
                      OMPCL_STATS=str(stats))
            assert out.returncode == 0 and out.stdout == expected, (exe, mode, out.stderr)
            if mode == "opencl" and opencl_available:   # the served build's kernel ran
                assert [r["device_runs"] for r in load_stats(stats)["regions"]] == [1]


def test_a_warmed_up_server_translates_as_a_fresh_process(tmp_path, server_env):
    """The server translates a sample once after its first command (``warm_up``): what its
    workers translate afterwards is what a fresh process translates, text and remarks."""
    env = dict(server_env, OMPCL_CACHE_DIR="off")
    env.pop("OMPCL_CC")
    write_project(tmp_path)
    assert _cc(env, "-fopenmp", "-c", "off.c", cwd=tmp_path).returncode == 0
    assert _wait(lambda: _server_pid(env) is not None)
    corpus = Path(__file__).parent / "corpus"
    for name in ("06_matmul_global.c", "14_parallel_region_for.c", "05_double_reductions.c",
                 "13_poly_userfunc.c"):
        shutil.copy(corpus / name, tmp_path / name)
        outs = []
        for mode, server in (("served", "1"), ("fresh", "0")):
            res = _cc(dict(env, OMPCL_SERVER=server), "-O2", "-fopenmp", "-Rompcl",
                      f"--ompcl-keep={mode}", "-c", name, cwd=tmp_path)
            assert res.returncode == 0, res.stderr
            outs.append((res.stderr, (tmp_path / mode / name).read_text()))
        assert outs[0] == outs[1], name
    assert _log(server_env) == []  # (the probe compiler was not used)


def test_idle_and_stopped_servers_remove_their_sockets(tmp_path, server_env):
    from ompcl.driver import client
    env = dict(server_env, OMPCL_SERVER_IDLE="1")
    _started(env, tmp_path)
    assert _wait(lambda: not _sockets(env)), "the idle server did not exit"
    _started(server_env, tmp_path)
    (sock,) = _sockets(server_env)
    assert client.request(sock, "stop")["pid"] > 0
    assert _wait(lambda: not os.path.exists(sock))


def test_a_stale_socket_is_replaced(tmp_path, server_env):
    _started(server_env, tmp_path)
    (path,) = _sockets(server_env)
    from ompcl.driver import client
    client.request(path, "stop")
    assert _wait(lambda: not os.path.exists(path))
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)     # a socket nobody listens on, as a killed server leaves it
    dead.close()
    res = _cc(server_env, "--version", cwd=tmp_path)
    assert res.returncode == 0 and res.stdout == "to stdout\n"
    assert _wait(lambda: _server_pid(server_env) is not None)
    res = _cc(server_env, "--version", cwd=tmp_path)
    assert _log(server_env)[-1]["grandparent"] == _server_pid(server_env)


def test_off_means_in_process(tmp_path, server_env):
    env = dict(server_env, OMPCL_SERVER="0")
    for _ in range(2):
        assert _cc(env, "--version", cwd=tmp_path).returncode == 0
    time.sleep(0.5)
    assert not _sockets(env)


def test_server_command_shows_and_stops_it(tmp_path, server_env):
    pid = _started(server_env, tmp_path)
    ompcl = [sys.executable, "-m", "ompcl", "server"]
    res = subprocess.run([*ompcl, "status"], env=server_env, capture_output=True, text=True)
    assert res.returncode == 0 and f"running, pid {pid}" in res.stdout, (res.stdout, res.stderr)
    res = subprocess.run([*ompcl, "stop"], env=server_env, capture_output=True, text=True)
    assert res.returncode == 0 and f"stopping, pid {pid}" in res.stdout, (res.stdout, res.stderr)
    assert _wait(lambda: not _sockets(server_env))
    res = subprocess.run([*ompcl, "status"], env=server_env, capture_output=True, text=True)
    assert "not running" in res.stdout


def test_a_gcc_shim_that_runs_ompcl_cc_does_not_wait_for_the_server(tmp_path, server_env):
    """Builds that put ``ompcl cc`` in gcc's place through a shim on PATH (as the third-party
    runner does): the translator's preprocessor ('gcc -E') is 'ompcl cc' again, which must not
    go through the server that waits for it (the warm-up and the worker both preprocess)."""
    write_project(tmp_path)
    shim = tmp_path / "shim"
    shim.mkdir()
    real = shutil.which("gcc")
    (shim / "gcc").write_text(f'#!/bin/sh\nOMPCL_CC={real} exec {" ".join(OMPCL_CC)} "$@"\n')
    (shim / "gcc").chmod(0o755)
    env = dict(server_env, PATH=f"{shim}{os.pathsep}{server_env['PATH']}")
    env.pop("OMPCL_CC")
    for out in ("first", "second"):   # the first starts the server, the second runs in it
        res = subprocess.run([str(shim / "gcc"), "-O2", "-fopenmp", "off.c", "-o", out],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        assert _wait(lambda: _server_pid(env) is not None)
    gcc = subprocess.run([real, "-O2", "-fopenmp", "off.c", "-o", "plain"], cwd=tmp_path)
    assert gcc.returncode == 0
    assert run(tmp_path / "second").stdout == run(tmp_path / "plain").stdout
