"""The ``ompcl cc`` client: hands a command line to the compile server, or says there is none.

Consumes the command's arguments and this process's context (working directory, environment,
umask, standard streams); produces the command's exit status as the server's worker reports
it, or None when no server answers (the caller then runs the command itself, and a server has
been started in the background for the next commands). Imports only the standard library's
socket layer: this is the whole start-up cost of a command that a server runs.

The server (``server.py``) keeps the translator imported and forks a worker per command; one
server per user, interpreter and ompcl installation (its socket's name is a digest of them), so
an edited or reinstalled ompcl never answers through an older server. ``OMPCL_SERVER=0`` turns
the server off; ``OMPCL_SERVER_DIR`` places its socket (default ``$XDG_RUNTIME_DIR/ompcl`` or
``/tmp/ompcl-<uid>``), ``OMPCL_SERVER_IDLE`` is how many seconds an idle server waits (600).
"""
from __future__ import annotations

import array
import hashlib
import marshal
import os
import signal
import socket
import stat
import struct
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HEADER = struct.Struct("!I")
#: signals a terminal or ``make`` sends the command; the worker gets them instead
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
_fingerprint: str | None = None


def enabled(env=os.environ) -> bool:
    return env.get("OMPCL_SERVER", "1").strip().lower() not in ("0", "off", "no", "false")


def package_fingerprint() -> str:
    """Names, sizes and modification times of ompcl's own files (code, templates, headers,
    models): cheap to take, and changed by any edit or reinstall."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256()
        for d, dirs, files in os.walk(_PACKAGE):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for f in sorted(files):
                st = os.stat(os.path.join(d, f))
                h.update(f"{os.path.relpath(os.path.join(d, f), _PACKAGE)}:{st.st_size}:"
                         f"{st.st_mtime_ns}\0".encode())
        _fingerprint = h.hexdigest()
    return _fingerprint


def server_dir(env=os.environ) -> str | None:
    """The user's private directory for server sockets (created 0700), or None when it is
    not safely ours (another owner, or group/world access)."""
    d = env.get("OMPCL_SERVER_DIR") or os.path.join(
        env.get("XDG_RUNTIME_DIR") or "/tmp", f"ompcl-{os.getuid()}"
        if not env.get("XDG_RUNTIME_DIR") else "ompcl")
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        st = os.lstat(d)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return d


def socket_path(env=os.environ) -> str | None:
    """This ompcl's server socket: one per interpreter, package location and content, and
    module search path (what decides the code a server would run)."""
    d = server_dir(env)
    if d is None:
        return None
    key = hashlib.sha256("\0".join((sys.executable, _PACKAGE, package_fingerprint(),
                                    env.get("PYTHONPATH", ""))).encode()).hexdigest()[:20]
    path = os.path.join(d, f"cc-{key}.sock")
    return path if len(path.encode()) < 104 else None  # sun_path's limit


def sockets(directory: str) -> list[str]:
    """The server sockets in ``directory`` (``socket_path``'s names), [] when there is none."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [os.path.join(directory, f) for f in names if f.startswith("cc-") and f.endswith(".sock")]


def connect(path: str) -> socket.socket | None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError:
        s.close()
        return None
    return s


def send_message(s: socket.socket, message: dict, fds: list[int] = ()) -> None:
    """One length-prefixed message (``marshal``: built in, nothing to import); ``fds``
    travel with its first bytes."""
    data = encode(message)
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
    sent = s.sendmsg([data], anc)
    if sent < len(data):  # never an empty send: a peer that already answered and closed
        s.sendall(data[sent:])  # would make it fail with EPIPE


def encode(message: dict) -> bytes:
    data = marshal.dumps(message)
    return _HEADER.pack(len(data)) + data


def decode(body: bytes) -> dict:
    """A message's body (after its length); ValueError when it is not one."""
    message = marshal.loads(body)
    if not isinstance(message, dict):
        raise ValueError("not a message")
    return message


def read_messages(s: socket.socket):
    """The server's replies, one message each, until it closes the connection."""
    buf = b""
    while True:
        try:
            chunk = s.recv(4096)
        except InterruptedError:
            continue
        if not chunk:
            return
        buf += chunk
        while len(buf) >= _HEADER.size:
            (size,) = _HEADER.unpack(buf[:_HEADER.size])
            if len(buf) < _HEADER.size + size:
                break
            body, buf = buf[_HEADER.size:_HEADER.size + size], buf[_HEADER.size + size:]
            yield decode(body)


def _streams() -> list[int]:
    """The standard streams this process has open (0, 1, 2)."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            pass
    return fds


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def forward(argv: list[str]) -> int | None:
    """Run ``ompcl cc ARGV`` in the server; None when none answers (one is then started)."""
    if not enabled():
        return None
    path = socket_path()
    if path is None:
        return None
    s = connect(path)
    if s is None:
        start_server(path)
        return None
    with s:
        return _run_remote(s, argv)


def _run_remote(s: socket.socket, argv: list[str]) -> int | None:
    fds = _streams()
    try:
        send_message(s, {"op": "cc", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
                         "umask": _umask(), "fds": fds,
                         "encoding": [getattr(sys.stdout, "encoding", None),
                                      getattr(sys.stderr, "encoding", None)]}, fds)
    except OSError:
        return None  # the server went away before it took the command: run it here
    worker, pending = [0], []

    def relay(sig, _frame):
        if worker[0]:
            _kill(worker[0], sig)
        else:
            pending.append(sig)
    old = {sig: signal.signal(sig, relay) for sig in _FORWARDED}
    try:
        for reply in read_messages(s):
            if "pid" in reply:
                worker[0] = reply["pid"]
                for sig in pending:
                    _kill(worker[0], sig)
            elif "status" in reply:
                return _exit_status(reply["status"])
    except (OSError, ValueError):
        pass
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
    if pending:
        return 128 + pending[-1]
    if not worker[0]:
        return None  # no worker took the command: run it here
    print("ompcl: error: the compile server ended the command without an exit status "
          "(OMPCL_SERVER=0 runs commands without it)", file=sys.stderr)
    return 3


def _kill(pid: int, sig: int) -> None:
    """The worker leads its own process group (with the compilers it runs)."""
    try:
        os.killpg(pid, sig)
    except OSError:
        pass


def _exit_status(status: int) -> int:
    """A status below zero: the compiler died of that signal; so does this process."""
    if status >= 0:
        return status
    sig = -status
    signal.signal(sig, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    os.kill(os.getpid(), sig)
    return 128 + sig


def start_server(path: str) -> None:
    """Start a server for ``path`` in the background, detached from this command (its own
    session, no inherited streams: ``make`` and pipes do not wait for it)."""
    try:
        import subprocess
        subprocess.Popen([sys.executable, "-m", "ompcl.driver.server", path],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True,
                         cwd="/")
    except OSError:
        pass


def request(path: str, op: str) -> dict | None:
    """A control request (``ping``, ``stop``) to the server at ``path``: its reply, or None."""
    s = connect(path)
    if s is None:
        return None
    with s:
        try:
            send_message(s, {"op": op})
            for reply in read_messages(s):
                return reply
        except (OSError, ValueError):
            return None
    return None
