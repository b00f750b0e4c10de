"""The compile server: ``ompcl cc`` commands run in workers forked from a process that has the
translator imported already.

Consumes connections on a Unix socket (``client.socket_path``); each carries one message
(``client.send_message``) and, for a command, the client's standard streams. Produces, per
command, a worker process that takes on the client's working directory, environment, umask
and streams, runs ``driver.main`` exactly as the client would have, and reports its pid, then
its exit status (negative: the compiler died of that signal). A translation in a worker costs
what it costs in-process minus interpreter start-up and imports (about 0.2 s of a fresh
command's 0.8 s on a PolyBench file here).

One server per socket (an exclusive lock beside it); it exits after ``OMPCL_SERVER_IDLE``
seconds without a connection (default 600), on ``stop`` and on SIGTERM, and removes its socket.
Started by the client: ``python -m ompcl.driver.server SOCKET``.
"""
from __future__ import annotations

import fcntl
import gc
import io
import os
import signal
import socket
import sys
import time

from . import client

_MAX_FDS = 3


#: translated once by a new server (``warm_up``): one of each kind of loop a PolyBench or
#: NAS file has, so that what the translator loads or builds at first use (templates, the
#: model, compiled patterns) is there in every worker
SAMPLE = """#include <stdio.h>
#define N 64
static double a[N][N], b[N][N], c[N];
static double dot(const double *x, const double *y, int n) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}
int main(void) {
  int i, j, k;
  double sum = 0.0;
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) a[i][j] = (double)(i * j % 7) / N;
#pragma omp parallel
  {
#pragma omp for private(j, k)
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++) {
        b[i][j] = 0.0;
        for (k = 0; k < N; k++) b[i][j] += a[i][k] * a[k][j];
      }
  }
#pragma omp parallel for reduction(+:sum)
  for (i = 0; i < N; i++) { c[i] = dot(a[i], b[i], N); sum += c[i]; }
  printf("%f\\n", sum);
  return 0;
}
"""


def preload() -> None:
    """Import everything a translating command uses, and warm what workers share."""
    gc.disable()   # imports allocate much and free little: collections only cost time
    try:
        from .. import pipeline  # noqa: F401  (the translator)
        from ..frontend import parse
        from . import cache, cc, deps  # noqa: F401
        parse._Parser()  # pycparser's tables
        client.package_fingerprint()  # of the code loaded now; workers (cache keys) inherit it
    finally:
        gc.enable()
    gc.collect()
    gc.freeze()  # workers touching these objects' counts must not copy every page


def warm_up() -> None:
    """Translate ``SAMPLE`` once (nothing written but what any first translation writes:
    compiled templates), so that workers start with what a first translation loads; about
    12 ms of each PolyBench command here."""
    import tempfile
    from .cc import _translate_file
    from ..frontend.preprocess import CppOptions
    try:
        with tempfile.TemporaryDirectory(prefix="ompcl-warm-") as d:
            path = os.path.join(d, "sample.c")
            with open(path, "w") as fh:
                fh.write(SAMPLE)
            _translate_file(path, CppOptions())
    except Exception:  # noqa: BLE001 - only an optimisation
        pass
    gc.collect()
    gc.freeze()


def serve(path: str, idle: float) -> int:
    # the warm-up's preprocessor may be 'ompcl cc' behind a gcc shim: not through this server
    os.environ["OMPCL_SERVER"] = "0"
    lock = open(path + ".lock", "w")
    if not _lock(lock, 2.0):
        return 0  # another server has this socket
    preload()
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        sock.bind(path)
    finally:
        os.umask(old_mask)
    ours = os.stat(path).st_ino
    sock.listen(128)
    sock.settimeout(min(idle, 10.0))
    signal.signal(signal.SIGCHLD, _reap)
    signal.signal(signal.SIGTERM, _stop)
    last, warm = time.monotonic(), False
    try:
        while True:
            try:
                conn, _ = sock.accept()
            except socket.timeout:
                if time.monotonic() - last >= idle or not _still_ours(path, ours):
                    break
                continue
            except OSError:
                continue
            last = time.monotonic()
            _fork_worker(conn, (sock, lock))
            if not warm:   # while the first command runs (it waited for this server already)
                warm = True
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)   # the sample's preprocessor
                warm_up()                                      # is the translator's to reap
                signal.signal(signal.SIGCHLD, _reap)
                _reap(None, None)
    except _Stop:
        pass
    finally:
        if _still_ours(path, ours):
            os.unlink(path)
        sock.close()
        lock.close()
    return 0


def _still_ours(path: str, inode: int) -> bool:
    """The socket file is still the one this server bound (not removed or replaced)."""
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _lock(fh, wait: float) -> bool:
    """The socket's lock, waiting ``wait`` seconds for a server that is exiting (it removes
    its socket before it lets go of the lock)."""
    end = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            if time.monotonic() > end:
                return False
            time.sleep(0.02)


class _Stop(BaseException):
    pass


def _stop(_sig, _frame):
    raise _Stop


def _reap(_sig, _frame):
    """Collect finished workers (their usage then counts as this server's children's)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def _fork_worker(conn: socket.socket, inherited) -> None:
    """Fork a worker for ``conn``; it closes what it must not hold (listener, lock)."""
    try:
        pid = os.fork()
    except OSError:
        conn.close()
        return
    if pid:
        conn.close()
        return
    try:
        for held in inherited:
            held.close()
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        conn.settimeout(30.0)   # a client that never sends its command
        _handle(conn)
    except BaseException:  # a worker never returns into the server's loop
        pass
    finally:
        os._exit(0)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    """One message and the descriptors that came with it."""
    fds: list[int] = []
    data, anc, _flags, _addr = conn.recvmsg(65536, socket.CMSG_SPACE(_MAX_FDS * 4))
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            n = len(payload) // 4
            fds.extend(int.from_bytes(payload[4 * i:4 * i + 4], sys.byteorder, signed=True)
                       for i in range(n))
    while len(data) < client._HEADER.size:
        more = conn.recv(65536)
        if not more:
            raise EOFError
        data += more
    (size,) = client._HEADER.unpack(data[:client._HEADER.size])
    body = data[client._HEADER.size:]
    while len(body) < size:
        more = conn.recv(max(65536, size - len(body)))
        if not more:
            raise EOFError
        body += more
    return client.decode(body[:size]), fds


def _reply(conn: socket.socket, message: dict, native: bool = False) -> None:
    """A reply; to the native launcher (``launcher.c``) as ``key=value`` text."""
    if native:
        (key, value), = message.items()
        data = f"{key}={value}".encode()
        conn.sendall(client._HEADER.pack(len(data)) + data)
    else:
        conn.sendall(client.encode(message))


def _from_native(value):
    """The native launcher's message (its strings are bytes, as the OS gave them): strings
    as Python's own ``os.environ`` and ``sys.argv`` would hold them."""
    if isinstance(value, bytes):
        return os.fsdecode(value)
    if isinstance(value, list):
        return [_from_native(v) for v in value]
    if isinstance(value, dict):
        return {_from_native(k): _from_native(v) for k, v in value.items()}
    return value


def _handle(conn: socket.socket) -> None:
    message, fds = _receive(conn)
    conn.settimeout(None)
    native = message.get(b"native") == 1
    if native:
        message = _from_native(message)
    op = message.get("op")
    if op == "ping":
        _reply(conn, {"pid": os.getppid(), "version": client.package_fingerprint()})
        return
    if op == "stop":
        _reply(conn, {"pid": os.getppid()})
        os.kill(os.getppid(), signal.SIGTERM)
        return
    if op != "cc":
        return
    os.setpgid(0, 0)  # the client forwards signals to this group (compilers included)
    _reply(conn, {"pid": os.getpid()}, native)
    _take_context(message, fds)
    status = _run(message["argv"])
    _reply(conn, {"status": status}, native)


def _take_context(message: dict, fds: list[int]) -> None:
    """Become the client: its streams, directory, environment, umask."""
    wanted = message.get("fds", [])
    for target in (0, 1, 2):
        if target in wanted and wanted.index(target) < len(fds):
            os.dup2(fds[wanted.index(target)], target)
        else:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, target)
            os.close(null)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    enc_out, enc_err = message.get("encoding") or (None, None)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding=enc_out,
                                  line_buffering=os.isatty(1))
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding=enc_err,
                                  errors="backslashreplace", line_buffering=True)
    os.chdir(message["cwd"])
    os.environ.clear()
    os.environ.update(message["env"])
    # a compiler this command runs may be 'ompcl cc' again (a gcc shim on PATH that runs it):
    # that one runs on its own, never through this server, which waits for this command
    os.environ["OMPCL_SERVER"] = "0"
    os.umask(message.get("umask", 0o022))
    import tempfile
    tempfile.tempdir = None  # chosen again from this command's TMPDIR


def _run(argv: list[str]) -> int:
    """``ompcl cc ARGV`` as the client would have run it; the compiler's death by a signal
    comes back as minus that signal."""
    from .. import driver
    driver.IN_SERVER = True
    sys.argv = ["ompcl-cc", *argv]
    try:
        status = driver.main(argv)
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 1
    except KeyboardInterrupt:
        status = 130
    except BaseException as e:  # noqa: BLE001 - reported like the in-process driver does
        print(f"ompcl: internal error: {type(e).__name__}: {e} (rerun with --ompcl-debug)",
              file=sys.stderr)
        status = 3
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return status


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m ompcl.driver.server SOCKET", file=sys.stderr)
        return 2
    try:
        idle = float(os.environ.get("OMPCL_SERVER_IDLE", "600"))
    except ValueError:
        idle = 600.0
    return serve(argv[0], max(idle, 0.1))


if __name__ == "__main__":
    sys.exit(main())
