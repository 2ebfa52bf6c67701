"""One home for the server processes the harness starts (Kafka brokers; the test suite's Schema
Registry and KDC launchers use it too): start with a log file, wait until a readiness probe
passes or the process exits, stop with SIGTERM then SIGKILL, pause and resume; and the life
cycle every launcher shares (:class:`Launcher`: a finalizer, ``cleanup()``, ``with``)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Iterable, List, Mapping, Optional, Sequence, Type, TypeVar

__all__ = ["Launcher", "OneProcess", "Resources", "ServerProcess", "find_java", "free_ports",
           "release", "tail", "track"]


def free_ports(n: int) -> List[int]:
    """``n`` distinct TCP ports free on 127.0.0.1 right now."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def find_java(java: Optional[str] = None, error: Type[Exception] = RuntimeError) -> str:
    """``java`` if given, else ``$JAVA_HOME/bin/java``, else ``java`` on ``PATH``."""
    if java:
        return java
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    found = shutil.which("java")
    if not found:
        raise error("'java' (17 or newer) is needed to run the server; set JAVA_HOME or PATH")
    return found


def tail(path: Path, lines: int = 60, max_bytes: int = 64 * 1024) -> str:
    """The last ``lines`` lines of a (possibly large) log file."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read().decode("utf-8", "replace")
    except OSError as e:
        return "<cannot read %s: %s>" % (path, e)
    return "\n".join(data.splitlines()[-lines:])


# The watchdog each server gets, a process of its own: it waits on pidfds (Linux) for either the
# process that started the server or the server to end, and when the starter ended first it
# kills the server's session. A test run ended by SIGTERM or SIGKILL runs none of its clean-up,
# and a server started in a session of its own would otherwise run on (PR_SET_PDEATHSIG does
# not fit: it fires when the starting *thread* ends, and servers are restarted from threads).
_WATCHDOG = """
import os, select, signal, sys
starter, server = int(sys.argv[1]), int(sys.argv[2])
try:
    server_fd = os.pidfd_open(server)
except ProcessLookupError:          # the server has ended: its pid may be another's by now
    sys.exit()
try:
    starter_fd = os.pidfd_open(starter)
    ended = select.select([server_fd, starter_fd], [], [])[0]
    orphaned = starter_fd in ended and server_fd not in ended
except ProcessLookupError:          # the starter had already ended
    orphaned = not select.select([server_fd], [], [], 0)[0]
if orphaned:
    try:
        os.killpg(server, signal.SIGKILL)
    except ProcessLookupError:
        pass
"""


class ServerProcess:
    """One server process and its log file.

    ``name`` says what it is in error messages (``"Kafka broker"``); ``error`` is the exception
    class raised when it exits during start-up or is not ready in time (the message ends with the
    tail of ``log_path`` and of each of ``also_tail``).  Usable again after it ended.
    """

    def __init__(self, name: str, log_path: Path, error: Type[Exception] = RuntimeError,
                 also_tail: Sequence[Path] = ()):
        self.name = name
        self.log_path = Path(log_path)
        self.error = error
        self.also_tail = tuple(Path(p) for p in also_tail)
        self.proc: Optional[subprocess.Popen] = None
        self._watchdog: Optional[subprocess.Popen] = None
        self._log_file: Any = None

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc is not None else None

    @property
    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def is_paused(self) -> bool:
        """Stopped by :meth:`pause` (or any SIGSTOP) and not yet resumed."""
        return self.is_running and self._state() in ("T", "t")

    def _state(self) -> Optional[str]:
        # the process state letter from Linux's /proc, None once the process is gone
        if self.proc is None:
            return None
        try:
            text = Path("/proc/%d/stat" % self.proc.pid).read_text()
            return text.rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return None

    @property
    def returncode(self) -> Optional[int]:
        return self.proc.returncode if self.proc is not None else None

    def log_tail(self) -> str:
        parts = ["last lines of %s:\n%s" % (p, tail(p))
                 for p in (self.log_path, *self.also_tail) if p.exists()]
        return "\n".join(parts) or "<no log at %s>" % self.log_path

    def start(self, cmd: Sequence[str], cwd: Path,
              env: Optional[Mapping[str, str]] = None) -> None:
        """Launch ``cmd`` in its own session (a terminal's Ctrl-C goes to the test run, not to
        the server), its output appended to the log file after a header line."""
        if self.is_running:
            raise self.error("%s already running (pid %s)" % (self.name, self.pid))
        self._close_log()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_file = open(self.log_path, "ab")
        self._log_file.write(b"\n=== %s: %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S").encode(),
                                                    " ".join(cmd).encode()))
        self._log_file.flush()
        self.proc = subprocess.Popen(
            list(cmd), stdin=subprocess.DEVNULL, stdout=self._log_file,
            stderr=subprocess.STDOUT, cwd=str(cwd), env=None if env is None else dict(env),
            start_new_session=True)
        if hasattr(os, "pidfd_open"):   # (Linux 5.3+; elsewhere a killed run leaves it running)
            self._watchdog = subprocess.Popen(
                [sys.executable, "-I", "-c", _WATCHDOG, str(os.getpid()), str(self.proc.pid)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)

    def wait_ready(self, probe: Callable[[], Any], timeout: float,
                   interval: float = 0.1) -> None:
        """Call ``probe`` until it returns a true value.  A probe that raises or returns a
        false value is not ready yet (the last exception is reported).  Raises ``error`` with
        the log's tail when the process exits or ``timeout`` passes (the process is then left
        as it is: the caller kills it)."""
        assert self.proc is not None, "start() first"
        deadline = time.monotonic() + timeout
        last: Optional[BaseException] = None
        while True:
            rc = self.proc.poll()
            if rc is not None:
                raise self.error("%s exited with code %d during start-up; %s"
                                 % (self.name, rc, self.log_tail()))
            try:
                if probe():
                    return
            except Exception as e:  # not up yet: keep polling
                last = e
            if time.monotonic() >= deadline:
                raise self.error("%s not ready after %.0fs (last error: %s); %s"
                                 % (self.name, timeout, last, self.log_tail()))
            time.sleep(interval)

    def stop(self, timeout: float) -> Optional[int]:
        """SIGTERM (a JVM's clean shutdown), wait up to ``timeout`` seconds, then SIGKILL.
        Returns the exit code (``None`` if never started)."""
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._close_log()
        return proc.returncode

    def kill(self) -> None:
        """SIGKILL the process if it still runs, and reap it."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        self._close_log()

    def pause(self, timeout: float = 10) -> None:
        """SIGSTOP; returns once the process is stopped."""
        self._signal(signal.SIGSTOP, True, timeout)

    def resume(self, timeout: float = 10) -> None:
        """SIGCONT; returns once the process runs again."""
        self._signal(signal.SIGCONT, False, timeout)

    def _signal(self, sig: int, stopped: bool, timeout: float) -> None:
        if not self.is_running:
            raise self.error("%s is not running" % self.name)
        assert self.proc is not None
        self.proc.send_signal(sig)
        # the signal is delivered asynchronously: wait for the state it causes
        deadline = time.monotonic() + timeout
        while True:
            state = self._state()
            if state is None or (state in ("T", "t")) == stopped:
                return
            if time.monotonic() >= deadline:
                raise self.error("%s still in state %s after signal %d"
                                 % (self.name, state, sig))
            time.sleep(0.01)

    def _close_log(self) -> None:
        f, self._log_file = self._log_file, None
        if f is not None:
            f.close()
        self._reap_watchdog()

    def _reap_watchdog(self) -> None:
        """Once the server ended, its watchdog ends too: collect it."""
        watchdog = self._watchdog
        if watchdog is not None and (self.proc is None or self.proc.poll() is not None):
            self._watchdog = None
            try:
                watchdog.wait(10)
            except subprocess.TimeoutExpired:
                watchdog.kill()
                watchdog.wait()


class Resources:
    """What a server object's finalizer releases: its processes and the directories it made (no
    reference to the object itself)."""

    __slots__ = ("servers", "remove")

    def __init__(self) -> None:
        self.servers: List[ServerProcess] = []
        self.remove: List[Path] = []

    def remove_files(self) -> None:
        """Remove the directories in ``remove`` (what is already gone is no error)."""
        for path in self.remove:
            shutil.rmtree(path, ignore_errors=True)


def release(res: Resources) -> None:
    """Kill the servers of ``res`` that still run and remove ``res.remove``."""
    for server in res.servers:
        server.kill()
    res.remove_files()


def track(owner: object, servers: Iterable[ServerProcess] = (),
          remove: Iterable[Path] = ()) -> Resources:
    """The :class:`Resources` that :func:`release` releases when ``owner`` is garbage
    collected or at interpreter exit, whichever comes first (more may be added later)."""
    res = Resources()
    res.servers.extend(servers)
    res.remove.extend(remove)
    weakref.finalize(owner, release, res)
    return res


_L = TypeVar("_L", bound="Launcher")


class Launcher:
    """The life cycle every launcher shares: at interpreter exit (or garbage collection) its
    finalizer kills the processes it started and removes the directories it made; ``with``
    starts it unless it runs and calls :meth:`cleanup` at the end; :meth:`cleanup` stops it
    and removes those directories.

    A subclass sets ``self._res = track(self, ...)`` in ``__init__`` and provides ``start``,
    ``stop`` and ``is_running``.
    """

    _res: Resources

    @property
    def is_running(self) -> bool:
        raise NotImplementedError

    def start(self: _L) -> _L:  # each launcher adds a timeout with its own default
        raise NotImplementedError

    def stop(self) -> Optional[int]:
        raise NotImplementedError

    def _remove_files(self) -> None:
        self._res.remove_files()

    def cleanup(self) -> None:
        """Stop, and remove the directories this object made (a ``workdir`` given by the
        caller stays)."""
        self.stop()
        self._remove_files()

    def __enter__(self: _L) -> _L:
        if not self.is_running:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()


class OneProcess:
    """The state of a launcher that runs one :class:`ServerProcess` (``process``)."""

    process: ServerProcess

    @property
    def log_path(self) -> Path:
        """The process's stdout/stderr."""
        return self.process.log_path

    @property
    def pid(self) -> Optional[int]:
        return self.process.pid

    @property
    def is_running(self) -> bool:
        return self.process.is_running
