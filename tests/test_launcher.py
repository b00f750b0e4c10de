"""The native ``ompcl`` launcher (driver/launcher.c, driver/launcher.py): built for this
interpreter and checkout, it finds the same compile server as the Python client (the same
socket name), runs ``ompcl cc`` commands there with the command's arguments (bytes as the OS
gave them), directory, environment, umask, standard streams and exit status (a compiler's
death by a signal included), and hands everything else to Python: other commands, the first
command (which starts the server), the server turned off, the ``ompcl-cc`` name."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import device_output
from test_cc import write_project
from test_server import _log, _server_pid, _wait, server_env  # noqa: F401 (fixture)

from ompcl.driver import client, launcher


@pytest.fixture(scope="module")
def native(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("launcher")
    try:
        launcher.install(d)
    except launcher.LauncherBuildError as e:   # every machine the tests run on has cc
        pytest.fail(f"{e}\n{e.log}")
    return d / "ompcl"


def _run(exe, *args, env, cwd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], cwd=cwd, env=dict(env, OMPCL_LAUNCHER_DEBUG="1"),
                          capture_output=True, **kw)


def _served(res) -> bool:
    return b"ompcl-launcher: socket " in res.stderr and res.stderr.rstrip().endswith(b"served")


def _start(native, env, cwd) -> int:
    """The first command starts the server, waits for it and runs there."""
    res = _run(native, "cc", "--version", env=env, cwd=cwd)
    assert res.returncode == 0 and _served(res), res.stderr
    assert b"started a server" in res.stderr
    assert _server_pid(env) is not None
    return _server_pid(env)


def test_without_waiting_the_first_command_runs_in_python(tmp_path, server_env, native):
    env = dict(server_env, OMPCL_SERVER_WAIT="0")
    res = _run(native, "cc", "--version", env=env, cwd=tmp_path)
    assert res.returncode == 0 and not _served(res), res.stderr
    assert _wait(lambda: _server_pid(env) is not None), "the Python client started none"


def test_a_server_that_cannot_start_ends_the_wait(tmp_path, server_env, native):
    """A broken ompcl first on the module path: the server dies at once, and the launcher
    stops waiting for it (the Python command then fails the same way)."""
    broken = tmp_path / "broken" / "ompcl"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    env = dict(server_env, PYTHONPATH=str(broken.parent), OMPCL_SERVER_WAIT="60")
    start = time.monotonic()
    res = _run(native, "cc", "--version", env=env, cwd=tmp_path, timeout=50)
    assert time.monotonic() - start < 30
    assert res.returncode != 0 and b"started a server" in res.stderr
    assert b"broken on purpose" in res.stderr


def test_the_launcher_finds_the_python_clients_server(tmp_path, server_env, native):
    server = _start(native, server_env, tmp_path)
    res = _run(native, "cc", "--version", env=server_env, cwd=tmp_path)
    assert res.returncode == 0 and _served(res), res.stderr
    path = client.socket_path(server_env)
    assert f"socket {path}: served".encode() in res.stderr
    assert _log(server_env)[-1]["grandparent"] == server


def test_commands_run_in_the_server_as_they_would_in_process(tmp_path, server_env, native):
    server = _start(native, server_env, tmp_path)
    sub = tmp_path / "sub dir"
    sub.mkdir()
    env = dict(server_env, PROBE_MARK="marked", PROBE_RC="7")
    args = [b"-E", b'-DMSG="two words"', b"-DBYTES=\xff\xfe", b"-I/home/x", b"-"]
    res = subprocess.run(["sh", "-c", 'umask 027; exec "$@"', "sh", str(native), "cc", *args],
                         cwd=sub, env=dict(env, OMPCL_LAUNCHER_DEBUG="1"),
                         input=b"int stdin_text;\n", capture_output=True)
    assert res.returncode == 7 and _served(res)
    assert res.stdout == b"to stdout\n" and res.stderr.startswith(b"to stderr\n")
    rec = _log(env)[-1]
    assert rec["grandparent"] == server
    assert rec["args"] == [os.fsdecode(a) for a in args]
    assert rec["cwd"] == str(sub) and rec["mark"] == "marked" and rec["umask"] == 0o027
    assert rec["stdin"] == "int stdin_text;\n"


def test_a_compiler_killed_by_a_signal_kills_the_command(tmp_path, server_env, native):
    _start(native, server_env, tmp_path)
    res = _run(native, "cc", "--version", env=dict(server_env, PROBE_SIGNAL="SIGTERM"),
               cwd=tmp_path)
    assert res.returncode == -signal.SIGTERM


def test_other_commands_and_no_server_go_to_python(tmp_path, server_env, native):
    res = _run(native, "--help", env=server_env, cwd=tmp_path)
    assert res.returncode == 0 and b"translate" in res.stdout
    off = dict(server_env, OMPCL_SERVER="0")
    res = _run(native, "cc", "--version", env=off, cwd=tmp_path)
    assert res.returncode == 0 and b"no socket: python" in res.stderr
    assert _log(off)[-1]["args"] == ["--version"]
    res = _run(native.with_name("ompcl-cc"), "--version", env=off, cwd=tmp_path)
    assert res.returncode == 0 and _log(off)[-1]["args"] == ["--version"]


def test_an_ompcl_folder_in_the_working_directory_is_never_imported(tmp_path, server_env,
                                                                    native):
    (tmp_path / "ompcl").mkdir()
    (tmp_path / "ompcl" / "__init__.py").write_text("raise SystemExit('imported the wrong one')\n")
    (tmp_path / "ompcl" / "__main__.py").write_text("raise SystemExit('imported the wrong one')\n")
    env = dict(server_env, OMPCL_SERVER="0")
    res = _run(native, "cc", "--version", env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr


def test_translated_build_through_the_launcher(tmp_path, server_env, native, opencl_available):
    write_project(tmp_path)
    env = dict(server_env)
    env.pop("OMPCL_CC")
    _start(native, env, tmp_path)
    res = _run(native, "cc", "-O2", "-fopenmp", "off.c", "-o", "app", env=env, cwd=tmp_path)
    assert res.returncode == 0 and _served(res), res.stderr
    plain = subprocess.run(["gcc", "-O2", "-fopenmp", "off.c", "-o", "plain"], cwd=tmp_path)
    assert plain.returncode == 0
    want = subprocess.run([str(tmp_path / "plain")], capture_output=True, text=True).stdout
    assert device_output(tmp_path / "app") == want


def test_an_interrupt_reaches_the_compiler(tmp_path, server_env, native):
    _start(native, server_env, tmp_path)
    pidfile = tmp_path / "sleeping"
    proc = subprocess.Popen([str(native), "cc", "--version"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(server_env, PROBE_SLEEP=str(pidfile)))
    assert _wait(lambda: pidfile.exists() and pidfile.read_text())
    compiler = int(pidfile.read_text())
    assert _log(server_env)[-1]["grandparent"] == _server_pid(server_env)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) != 0
    assert _wait(lambda: not Path(f"/proc/{compiler}").exists()
                 or "Z" in Path(f"/proc/{compiler}/stat").read_text().split()[2])
