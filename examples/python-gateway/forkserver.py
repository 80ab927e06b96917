"""The example gateway's fork server: the SDK imported once, a gateway forked
per launch. Started by `launch.py` (read it first); not meant to be run by
hand, though it can be:

    .venv/bin/python forkserver.py --socket PATH [--idle SECONDS]

A launch costs a plain `python -m hosted_mcp_example` most of a second of
CPU importing the MCP SDK before it answers anything. This process pays that
once, then serves launches on a Unix socket: for each, it forks a child that
takes the launcher's stdin/stdout/stderr as its own, its arguments,
environment and working directory, and runs the gateway's `main`.

The protocol, one connection per launch:

- the launcher sends a 4-byte big-endian length and that many bytes: fields
  each ended by a NUL, `run`, the version of the gateway's code it sees, its
  working directory, its argument count, its arguments, then its environment
  (`NAME=value`), with its fds 0, 1 and 2 attached to the first bytes
  (SCM_RIGHTS);
- the server answers a line `pid N` once the child runs (or `stale` if that
  version is not the code this server imported: it retires, and the launcher
  starts a new one), then `status S` when the child exits: its exit code, or
  minus the signal that killed it;
- if the launcher's end closes first (it was killed), the child is killed.

The request `stop` (a length, then those 4 bytes) instead kills every child
and ends the server, which closes the connection last.

Fork safety: the server is one thread and runs no event loop; each child
builds its own (inside the gateway's `main`). Children are reaped on SIGCHLD,
and killed by the kernel should the server die (PR_SET_PDEATHSIG, Linux).
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import gc
import importlib
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from launch import code_version  # noqa: E402 - the same definition as the launcher's

#: What a launch imports, on top of the gateway's own modules: the SDK, and
#: what the SDK, uvicorn and httpx2 import lazily once running. Found by
#: diffing `sys.modules` of a gateway that answered a tools/call (HTTP and
#: stdio) against this list; one missing costs each launch its import, no more.
PRELOAD = (
    "hosted_mcp_example.__main__",
    "hosted_mcp_example.server",
    "hosted_mcp_example.authorization",
    "jwt",
    "anyio",
    "anyio._backends._asyncio",
    "anyio.streams.memory",
    "anyio.streams.stapled",
    "anyio.streams.tls",
    "anyio._core._sockets",
    "asyncio",
    "httpx2",
    "httpcore2",
    "h11",
    "encodings.idna",
    "mcp.server.stdio",
    "mcp.server.streamable_http",
    "mcp.server.streamable_http_manager",
    "starlette.applications",
    "starlette.routing",
    "starlette.middleware",
    "starlette.responses",
    "uvicorn",
    "uvicorn.config",
    "uvicorn.server",
    "uvicorn.lifespan.on",
    "uvicorn.loops.auto",
    "uvicorn.loops.asyncio",
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.websockets.auto",
    "uvicorn.logging",
    "logging.config",
)


def log(line: str) -> None:
    print(f"forkserver [{os.getpid()}] {time.strftime('%H:%M:%S')}: {line}", file=sys.stderr, flush=True)


def preload() -> None:
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError as error:  # another version of a dependency: only slower
            log(f"cannot preload {name}: {error}")


class Server:
    def __init__(self, listener: socket.socket, path: str | None, idle: float) -> None:
        self.listener = listener
        self.path = path
        self.idle = idle
        self.inode = os.stat(path).st_ino if path else None
        self.version = code_version()  # before the imports: what they will have read at least
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, socket.socket | None] = {}  # pid -> its launcher, None once gone
        self.last_busy = time.monotonic()
        self.retired = False
        self.stopping = False
        self.stop_requests: list[socket.socket] = []
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.wake_w.setblocking(False)
        self.libc_prctl = _prctl()

    # The loop

    def run(self) -> None:
        signal.set_wakeup_fd(self.wake_w.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake the loop
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGHUP, self._on_signal)
        self.listener.setblocking(False)
        self.selector.register(self.listener, selectors.EVENT_READ, "listener")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.last_busy = time.monotonic()
        log(f"ready on {self.path}, idle exit after {self.idle:.0f} s")
        while True:
            self.reap()
            if self.stopping:
                break
            if not self.children and not self.retired and time.monotonic() - self.last_busy >= self.idle:
                log("idle; exiting")
                break
            if self.retired and not self.children:
                break
            timeout = None if self.children else max(0.0, self.idle - (time.monotonic() - self.last_busy))
            for key, _ in self.selector.select(timeout):
                if key.data == "listener":
                    self.accept()
                elif key.data == "wake":
                    try:
                        while self.wake_r.recv(512):
                            pass
                    except BlockingIOError:
                        pass
                else:
                    self.launcher_readable(key.fileobj, key.data)
        self.retire()
        for pid in list(self.children):
            _kill(pid)
        while self.children:
            self.reap(block=True)
        log("stopped")
        for conn in self.stop_requests:
            conn.close()

    def _on_signal(self, *_: object) -> None:
        self.stopping = True

    def accept(self) -> None:
        while not self.retired:
            try:
                conn, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # e.g. out of file descriptors: try later
                log(f"accept: {error}")
                return
            self.last_busy = time.monotonic()
            try:
                self.take(conn)
            except Exception:  # one bad launch must not end the server
                log(f"launch failed:\n{traceback.format_exc()}")
                conn.close()

    def take(self, conn: socket.socket) -> None:
        conn.setblocking(True)
        conn.settimeout(5)
        fds: list[int] = []
        try:
            request, fds = _receive(conn)
        except (OSError, ValueError) as error:
            log(f"unreadable request: {error}")
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        if request is None:
            log("stop requested")
            self.stopping = True
            for fd in fds:
                os.close(fd)
            self.stop_requests.append(conn)  # closed once stopped: the asker may wait for that
            return
        if request.version != self.version or self.retired:
            log("the gateway's code changed since the imports; retiring")
            for fd in fds:
                os.close(fd)
            try:
                conn.sendall(b"stale\n")
            except OSError:
                pass
            conn.close()
            self.retire()
            return
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            raise ValueError(f"{len(fds)} file descriptors instead of 3")
        if threading.active_count() != 1:
            log(f"warning: {threading.active_count()} threads; forking anyway")
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            conn.close()
            self.child(request, fds)  # never returns
        for fd in fds:  # the child's now: the launcher's pipes must close when it exits
            os.close(fd)
        try:
            conn.sendall(b"pid %d\n" % pid)
        except OSError:  # the launcher is gone already
            conn.close()
            self.children[pid] = None
            _kill(pid)
            return
        self.children[pid] = conn
        conn.setblocking(False)
        self.selector.register(conn, selectors.EVENT_READ, pid)

    def launcher_readable(self, conn: socket.socket, pid: int) -> None:
        try:
            data = conn.recv(64)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            return  # launchers say nothing more; ignore
        # The launcher is gone (killed with its process group): so is its gateway.
        self.selector.unregister(conn)
        conn.close()
        if pid in self.children:
            self.children[pid] = None
            _kill(pid)

    def reap(self, block: bool = False) -> None:
        while self.children:
            try:
                pid, status, usage = os.wait4(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            code = os.waitstatus_to_exitcode(status)
            conn = self.children.pop(pid, None)
            self.last_busy = time.monotonic()
            log(f"child {pid} exited {code}, cpu {usage.ru_utime + usage.ru_stime:.3f} s")
            if conn is not None:
                self.selector.unregister(conn)
                try:
                    conn.setblocking(True)
                    conn.settimeout(1)
                    conn.sendall(b"status %d\n" % code)
                except OSError:
                    pass
                conn.close()
            if block:
                return

    def retire(self) -> None:
        """Takes no more launches: the socket's path is left to a new server."""
        if self.retired:
            return
        self.retired = True
        self.selector.unregister(self.listener)
        if self.path:
            lock = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    if os.stat(self.path).st_ino == self.inode:  # not a newer server's
                        os.unlink(self.path)
                except FileNotFoundError:
                    pass
            finally:
                os.close(lock)
        # Launches still in the backlog see the connection reset and try again.
        self.listener.close()

    # The child

    def child(self, request: Request, fds: list[int]) -> None:
        code = 1
        try:
            code = self._child(request, fds)
        except SystemExit as stop:
            code = _exit_code(stop)
        except BaseException:
            sys.excepthook(*sys.exc_info())
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)

    def _child(self, request: Request, fds: list[int]) -> int:
        parent = os.getppid()
        os.setsid()  # its own process group, killed as one
        if self.libc_prctl is not None:
            self.libc_prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            if os.getppid() != parent:
                return 1  # the server died before that
        # Nothing of the server's: its signals, sockets and selector.
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        self.selector.close()
        for sock in (self.listener, self.wake_r, self.wake_w, *filter(None, self.children.values())):
            sock.close()
        # The launcher's stdin, stdout and stderr become ours.
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        # New stream objects on them, configured as the interpreter's own.
        old = (sys.stdin, sys.stdout, sys.stderr)
        sys.stdin = sys.__stdin__ = open(0, "r", encoding=old[0].encoding, errors=old[0].errors, closefd=False)
        sys.stdout = sys.__stdout__ = open(
            1, "w", encoding=old[1].encoding, errors=old[1].errors, closefd=False, buffering=1 if os.isatty(1) else -1
        )
        sys.stderr = sys.__stderr__ = open(
            2, "w", encoding=old[2].encoding, errors=old[2].errors, closefd=False, buffering=1
        )
        os.chdir(request.cwd)
        os.environb.clear()
        os.environb.update(request.env)

        from hosted_mcp_example.__main__ import __file__ as main_file
        from hosted_mcp_example.__main__ import main

        argv = [os.fsdecode(arg) for arg in request.argv]
        sys.argv = [main_file, *argv]
        return main(argv)


@dataclass
class Request:
    version: str
    cwd: bytes
    argv: list[bytes]
    env: dict[bytes, bytes]


def _parse(body: bytes) -> Request | None:
    """A launch, or None for `stop`."""
    if body == b"stop":
        return None
    if not body.endswith(b"\0"):
        raise ValueError("a request that does not end with a NUL")
    kind, version, cwd, argc, *rest = body[:-1].split(b"\0")
    if kind != b"run":
        raise ValueError(f"an unknown request: {kind!r}")
    count = int(argc)
    env = dict(entry.partition(b"=")[::2] for entry in rest[count:])
    return Request(version.decode(), cwd, rest[:count], env)


def _receive(conn: socket.socket) -> tuple[Request | None, list[int]]:
    data, fds, flags, _ = socket.recv_fds(conn, 65536, 3)
    if flags & socket.MSG_CTRUNC:
        raise ValueError("file descriptors cut off")
    try:
        while len(data) < 4:
            more = conn.recv(65536)
            if not more:
                raise ValueError("the request ends early")
            data += more
        (length,) = struct.unpack(">I", data[:4])
        while len(data) < 4 + length:
            more = conn.recv(max(65536, 4 + length - len(data)))
            if not more:
                raise ValueError("the request ends early")
            data += more
        return _parse(data[4 : 4 + length]), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):  # its group; itself, should it not lead one yet
        try:
            kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _exit_code(stop: SystemExit) -> int:
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    print(stop.code, file=sys.stderr)
    return 1


def _prctl():  # type: ignore[no-untyped-def]
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl  # the C library the interpreter has loaded
    except (OSError, AttributeError):
        return None


def main() -> None:
    parser = argparse.ArgumentParser(prog="forkserver.py", description=__doc__.split("\n")[0])
    parser.add_argument("--socket", required=True, help="the Unix socket's path")
    parser.add_argument("--listen-fd", type=int, help="the socket, bound and listening already (from launch.py)")
    parser.add_argument("--idle", type=float, default=30, help="exit after this many seconds without a launch")
    args = parser.parse_args()
    if args.listen_fd is not None:
        listener = socket.socket(fileno=args.listen_fd)
    else:
        try:
            os.unlink(args.socket)
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(args.socket)
        listener.listen(128)
    server = Server(listener, args.socket, args.idle)
    started = time.monotonic()
    gc.disable()  # no collections while importing; frozen below, so children don't touch the pages
    preload()
    gc.collect()
    gc.freeze()
    gc.enable()
    log(f"imported {len(sys.modules)} modules in {time.monotonic() - started:.2f} s")
    server.run()


if __name__ == "__main__":
    main()
