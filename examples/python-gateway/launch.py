"""Starts the example gateway through its fork server, for the harness.

    .venv/bin/python -S launch.py --openapi DOC --base-url URL --port PORT
    .venv/bin/python -S launch.py --openapi DOC --base-url URL --stdio

takes the same arguments as `python -m hosted_mcp_example` and behaves, to
whoever started it, as that process would: the fork server (`forkserver.py`,
which has the MCP SDK imported already) forks a child that runs the gateway's
`main` on this process's arguments, environment, working directory and
stdin/stdout/stderr (passed over a Unix socket); this process waits and exits
with the child's status. Killed, it takes the child with it: the fork server
kills the child when this process's connection closes.

The first launch starts the fork server (detached, under a lock so that
launches at once start one); it exits after IDLE_SECONDS without a launch or
a running gateway, or when asked to (`stop`, see `forkserver.py`). Its socket
is `EXAMPLE_GATEWAY_FORKSERVER` if that is set, else one per user, Python and
checkout in the temporary directory; its log is beside it (`*.log`). If no
fork server can be reached or started, the gateway is started the plain way,
by exec: slower, the same behaviour.

Lean on purpose, as this runs once per launch: `-S` (no site-packages), and
only modules written in C. `socket`'s and `json`'s Python layers (`enum`,
`selectors`, `re`) would double its start-up, to some 20 ms of CPU.
"""

import _socket  # socket's C core; see above
import array
import fcntl
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(HERE, "hosted_mcp_example")
SOCKET_ENV = "EXAMPLE_GATEWAY_FORKSERVER"
#: How long an unused fork server waits for a launch before it exits.
IDLE_SECONDS = 30
#: How long a launch waits for the fork server to take it (a fresh server
#: imports the SDK first: a second or two, more on a busy machine).
ACCEPT_SECONDS = 60
#: This process's stdin, stdout and stderr, as SCM_RIGHTS carries them.
STDIO = array.array("i", [0, 1, 2]).tobytes()
#: Variables the fork server itself is not given (each launch brings its own).
PER_LAUNCH = (b"HOSTED_MCP_CREDENTIAL", b"HOSTED_MCP_CREDENTIAL_IN", b"EXAMPLE_GATEWAY_BREAK")


def code_version() -> str:
    """The gateway's code as of now (sizes and times of its files): a fork
    server that imported other code retires instead of serving it."""
    files = [os.path.join(HERE, "forkserver.py")]
    files += sorted(os.path.join(PACKAGE, name) for name in os.listdir(PACKAGE) if name.endswith(".py"))
    return ";".join(f"{os.path.basename(f)}:{s.st_size}:{s.st_mtime_ns}" for f in files for s in [os.stat(f)])


def socket_path() -> str:
    path = os.environ.get(SOCKET_ENV)
    if path:
        return path
    # One per user, Python and checkout; private to the user.
    folder = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"hosted-mcp-example-{os.getuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if os.stat(folder).st_uid != os.getuid():
        raise OSError(f"{folder} belongs to someone else")
    key = 0x811C9DC5  # FNV-1a
    for byte in f"{sys.executable}\0{HERE}".encode():
        key = ((key ^ byte) * 0x01000193) & 0xFFFFFFFF
    return os.path.join(folder, f"forkserver-{key:08x}.sock")


def log(path: str, line: str) -> None:
    try:
        with open(path + ".log", "a") as out:
            out.write(f"launch.py [{os.getpid()}]: {line}\n")
    except OSError:
        pass


def try_connect(path: str) -> "_socket.socket | None":
    client = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        client.connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        client.close()
        return None
    return client


def connect(path: str) -> "_socket.socket":
    """A connection to the fork server at `path`, starting one if none runs."""
    client = try_connect(path)
    if client is not None:
        return client
    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        client = try_connect(path)  # another launch may have started it meanwhile
        if client is None:
            start_server(path)
            client = try_connect(path)
        if client is None:
            raise OSError("the fork server just started does not accept connections")
        return client
    finally:
        os.close(lock)  # and with it the lock


def start_server(path: str) -> None:
    """Binds the socket here and hands it to a new, detached fork server:
    launches can connect at once, and wait in the backlog while it imports."""
    try:
        os.unlink(path)  # a dead server's
    except FileNotFoundError:
        pass
    listener = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        listener.bind(path)
        listener.listen(128)
        env = {name: value for name, value in os.environb.items() if name not in PER_LAUNCH}
        command = [
            sys.executable,
            os.path.join(HERE, "forkserver.py"),
            f"--listen-fd={listener.fileno()}",
            f"--socket={path}",
            f"--idle={IDLE_SECONDS}",
        ]
        log_fd = os.open(path + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        null = os.open(os.devnull, os.O_RDWR)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - in the child
            try:
                # Its own session, out of the launcher's process group (which
                # the harness kills), and not the launcher's child either.
                os.setsid()
                if os.fork() == 0:
                    os.dup2(null, 0)
                    os.dup2(log_fd, 1)
                    os.dup2(log_fd, 2)
                    os.set_inheritable(listener.fileno(), True)
                    os.execve(command[0], command, env)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        os.close(log_fd)
        os.close(null)
    finally:
        listener.close()


def request(argv: list[str]) -> bytes:
    """`run`, the code's version, the working directory, argc, the arguments
    and the environment (`NAME=value`), each ended by a NUL (none of them can
    hold one), after a 4-byte big-endian length."""
    fields = [b"run", code_version().encode(), os.getcwdb(), str(len(argv)).encode()]
    fields += [os.fsencode(arg) for arg in argv]
    fields += [name + b"=" + value for name, value in os.environb.items()]
    body = b"".join(field + b"\0" for field in fields)
    return len(body).to_bytes(4, "big") + body


def read_line(client: "_socket.socket", buffer: bytearray) -> bytes:
    """The next line from the server (without its newline); b"" at its end."""
    while b"\n" not in buffer:
        more = client.recv(4096)
        if not more:
            return b""
        buffer += more
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line


def through_server(client: "_socket.socket", argv: list[str]) -> int | None:
    """Runs the gateway in a child of the fork server; its exit status
    (negative: the signal that killed it), or None if the server did not
    take the launch (it went away or retired first: try again)."""
    message = request(argv)
    client.settimeout(ACCEPT_SECONDS)
    buffer = bytearray()
    try:
        sent = client.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, STDIO)])
        client.sendall(message[sent:])
        first = read_line(client, buffer)
    except OSError:  # TimeoutError too
        return None
    if not first.startswith(b"pid "):  # b"stale": a server of older code; b"": gone
        return None
    # The child has the pipes now: hold no copy of stdin and stdout, so they
    # close when the child closes them, as they would without this process.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    client.settimeout(None)
    try:
        last = read_line(client, buffer)
    except OSError:
        last = b""
    if not last.startswith(b"status "):
        os.write(2, b"launch.py: the fork server went away, and the gateway with it\n")
        return 1
    return int(last.split()[1])


def exit_like(status: int) -> None:
    if status < 0:  # killed by a signal: be killed by it too
        import signal

        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    os._exit(status)


def plain(argv: list[str]) -> None:
    """The gateway without the fork server, as its README starts it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [HERE, env.get("PYTHONPATH")]))
    os.execve(sys.executable, [sys.executable, "-m", "hosted_mcp_example", *argv], env)


def main() -> None:
    argv = sys.argv[1:]
    path = None
    try:
        path = socket_path()
        for _ in range(3):  # a server may retire just as we connect
            status = through_server(connect(path), argv)
            if status is not None:
                exit_like(status)
        reason = "the fork server did not take the launch"
    except OSError as error:
        reason = f"no fork server: {error}"
    if path:
        log(path, f"{reason}; starting the gateway the plain way")
    plain(argv)


if __name__ == "__main__":
    main()
