"""The harness's one process helper (confluent_binding.testing._process.ServerProcess), which
every server launcher uses (Kafka nodes, the suite's Schema Registry and KDC): start with a log
file, readiness, start-up failures reported with the log, SIGTERM then SIGKILL, pause/resume;
and the life cycle the launchers share (Launcher: ``with``, cleanup, the finalizer).
Real child processes (the running Python), no broker."""

import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from confluent_binding.testing import KafkaCluster, ensure_kafka_jars
from confluent_binding.testing._process import (
    _WATCHDOG,
    Launcher,
    OneProcess,
    Resources,
    ServerProcess,
    free_ports,
    release,
    track,
)


class LauncherError(RuntimeError):
    pass


def _python(code):
    return [sys.executable, "-c", code]


# a server that prints a line, writes its ready file once set up, then waits to be stopped
_SERVE = """
import pathlib, signal, sys, time
{setup}
print("server-says-hello", flush=True)
pathlib.Path({ready!r}).write_text("ok")
while True:
    time.sleep(1)
"""


def _server(tmp_path, setup=""):
    ready = tmp_path / "ready"
    proc = ServerProcess("test server", tmp_path / "server.log", LauncherError)
    proc.start(_python(_SERVE.format(setup=setup, ready=str(ready))), cwd=tmp_path)
    return proc, ready


def _state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_ready_once_the_probe_passes_and_sigterm_stops_it(tmp_path):
    proc, ready = _server(tmp_path)
    try:
        proc.wait_ready(ready.exists, timeout=60)
        assert proc.is_running and proc.pid is not None
        assert ready.read_text() == "ok"
    finally:
        rc = proc.stop(timeout=30)
    assert rc == -signal.SIGTERM and not proc.is_running
    log = (tmp_path / "server.log").read_text()
    # a header line naming the command, then the server's own output
    assert log.startswith("\n=== ") and sys.executable in log
    assert "server-says-hello" in log


def test_exit_during_start_up_raises_with_the_log_tail(tmp_path):
    proc = ServerProcess("test server", tmp_path / "server.log", LauncherError)
    proc.start(_python("import sys; print('bad-setting-marker', file=sys.stderr); sys.exit(3)"),
               cwd=tmp_path)
    t0 = time.monotonic()
    with pytest.raises(LauncherError) as e:
        proc.wait_ready(lambda: False, timeout=120)
    # the exit is noticed, not the timeout waited out
    assert time.monotonic() - t0 < 60
    msg = str(e.value)
    assert "test server exited with code 3 during start-up" in msg
    assert "bad-setting-marker" in msg and str(tmp_path / "server.log") in msg


def test_not_ready_in_time_names_the_last_probe_error(tmp_path):
    proc, _ = _server(tmp_path)
    try:
        def probe():
            raise ValueError("connection refused 4242")
        with pytest.raises(LauncherError, match=r"not ready after 1s.*connection refused 4242"):
            proc.wait_ready(probe, timeout=1)
        assert proc.is_running   # left for the caller to stop or kill
    finally:
        proc.kill()
    assert not proc.is_running and proc.returncode == -signal.SIGKILL


def test_stop_kills_what_ignores_sigterm_after_the_grace_period(tmp_path):
    proc, ready = _server(tmp_path, setup="signal.signal(signal.SIGTERM, signal.SIG_IGN)")
    try:
        proc.wait_ready(ready.exists, timeout=60)
        t0 = time.monotonic()
        rc = proc.stop(timeout=0.5)
        assert time.monotonic() - t0 >= 0.5
    finally:
        proc.kill()
    assert rc == -signal.SIGKILL


def test_pause_and_resume_wait_for_the_process_state(tmp_path):
    proc, ready = _server(tmp_path)
    try:
        proc.wait_ready(ready.exists, timeout=60)
        proc.pause()
        assert _state(proc.pid) in ("T", "t")
        proc.resume()
        assert _state(proc.pid) not in ("T", "t")
        assert proc.is_running
    finally:
        proc.kill()
    with pytest.raises(LauncherError, match="not running"):
        proc.pause()


def test_a_second_start_while_running_is_refused(tmp_path):
    proc, ready = _server(tmp_path)
    try:
        with pytest.raises(LauncherError, match="already running"):
            proc.start(_python("pass"), cwd=tmp_path)
    finally:
        proc.kill()


# A test run ended by SIGKILL: the process that started a server dies without any clean-up.
_STARTER = """
import pathlib, sys
from confluent_binding.testing._process import ServerProcess
proc = ServerProcess("test server", pathlib.Path({log!r}))
proc.start([sys.executable, "-c", "import time; time.sleep(600)"], cwd=pathlib.Path({cwd!r}))
pathlib.Path({pid_file!r}).write_text(str(proc.pid))
import time; time.sleep(600)
"""


def _gone(pid):
    try:
        return _state(pid) == "Z"       # (ended: the init process reaps it)
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the watchdog needs pidfds (Linux)")
def test_a_server_does_not_outlive_the_process_that_started_it(tmp_path):
    pid_file = tmp_path / "server.pid"
    starter = subprocess.Popen(_python(_STARTER.format(
        log=str(tmp_path / "server.log"), cwd=str(tmp_path), pid_file=str(pid_file))))
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert starter.poll() is None and time.monotonic() < deadline, "no server started"
            time.sleep(0.05)
        server = int(pid_file.read_text())
        assert not _gone(server)
    finally:
        starter.kill()
        starter.wait()
    deadline = time.monotonic() + 30
    while not _gone(server):
        assert time.monotonic() < deadline, "the server outlived its starter"
        time.sleep(0.05)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the watchdog needs pidfds (Linux)")
def test_a_watchdog_whose_starter_is_already_gone_kills_the_server():
    """The starter gone before its watchdog looked (no pidfd for it): the server, a session of
    its own, is killed; a server already gone is left alone (its number may be another's)."""
    def watchdog(starter, server):
        return subprocess.run([sys.executable, "-I", "-c", _WATCHDOG, str(starter), str(server)],
                              timeout=60).returncode

    ended = subprocess.Popen(_python("pass"))
    ended.wait()
    server = subprocess.Popen(_python("import time; time.sleep(120)"), start_new_session=True)
    try:
        assert watchdog(ended.pid, server.pid) == 0
        assert server.wait(timeout=30) == -signal.SIGKILL
    finally:
        server.kill()
        server.wait()
    assert watchdog(os.getpid(), server.pid) == 0


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the watchdog needs pidfds (Linux)")
def test_a_watchdog_ends_with_its_server_and_is_collected(tmp_path):
    proc, ready = _server(tmp_path)
    proc.wait_ready(ready.exists, timeout=60)
    watchdog = proc._watchdog
    assert watchdog is not None and watchdog.poll() is None
    proc.kill()
    assert proc._watchdog is None and watchdog.returncode == 0


def test_release_kills_the_servers_and_removes_the_directories(tmp_path):
    made = tmp_path / "made"
    made.mkdir()
    (made / "file").write_text("x")
    proc, ready = _server(tmp_path)
    res = Resources()
    res.servers.append(proc)
    res.remove.append(made)
    pid = proc.pid
    release(res)
    assert not proc.is_running and not made.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


class _TestLauncher(OneProcess, Launcher):
    """The smallest launcher: one server process, a workdir made unless given."""

    def __init__(self, workdir=None, made_in=None):
        self.workdir = workdir if workdir is not None else made_in / "made-workdir"
        self.workdir.mkdir(exist_ok=True)
        self.process = ServerProcess("test server", self.workdir / "server.log", LauncherError)
        self._res = track(self, servers=[self.process],
                          remove=[] if workdir is not None else [self.workdir])
        self.starts = 0

    def start(self, timeout=30):
        ready = self.workdir / "ready"
        ready.unlink(missing_ok=True)
        self.process.start(_python(_SERVE.format(setup="", ready=str(ready))), cwd=self.workdir)
        self.process.wait_ready(ready.exists, timeout)
        self.starts += 1
        return self

    def stop(self, timeout=10):
        return self.process.stop(timeout)


def test_a_launcher_starts_in_with_and_cleans_up_what_it_made(tmp_path):
    with _TestLauncher(made_in=tmp_path) as server:
        assert server.is_running and server.starts == 1
        pid, workdir = server.pid, server.workdir
        assert "server-says-hello" in server.log_path.read_text()
    assert not server.is_running and not workdir.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_with_on_a_running_launcher_does_not_start_it_again_and_keeps_a_given_workdir(tmp_path):
    server = _TestLauncher(workdir=tmp_path / "given").start()
    with server as same:
        assert same is server and server.starts == 1
    assert not server.is_running
    assert (tmp_path / "given" / "server.log").exists()


def test_a_forgotten_launcher_is_released_by_its_finalizer(tmp_path):
    server = _TestLauncher(made_in=tmp_path).start()
    proc, workdir = server.process, server.workdir
    del server
    gc.collect()
    assert not proc.is_running and not workdir.exists()


def test_free_ports_are_distinct_and_bindable():
    import socket

    ports = free_ports(4)
    assert len(set(ports)) == 4
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


@pytest.mark.parametrize("version", ["3.9.1", "2.8.0", "next"])
def test_only_kafka_4_or_newer(version, monkeypatch, tmp_path):
    # refused before anything is fetched or started
    monkeypatch.setenv("CONFLUENT_BINDING_CACHE", str(tmp_path))
    with pytest.raises(ValueError, match="Kafka|version"):
        KafkaCluster(version=version)
    with pytest.raises(ValueError):
        ensure_kafka_jars(version, mvn="/nonexistent/mvn")
    assert list(Path(tmp_path).iterdir()) == []
