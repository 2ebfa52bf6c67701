"""A Spark standalone cluster on loopback for the tests: a master and workers as processes of
their own, started from PySpark's own distribution (``bin/spark-class``), and a PySpark driver in a
process of its own that runs jobs on it.

- :class:`SparkStandalone` starts ``org.apache.spark.deploy.master.Master`` and N
  ``org.apache.spark.deploy.worker.Worker``s (one core each, small heaps), waits until the master's
  web UI (``/json/``) lists every worker alive, finds the executor JVMs the workers launch (their
  child processes) and SIGKILLs one on request; :meth:`SparkStandalone.stop` ends them all.
- :class:`Driver` is a separate Python process holding one SparkSession on that cluster (one Spark
  application: its executors start once and serve every job). The test process keeps its own
  ``local[2]`` session, and a process has only one SparkContext, hence the separate process. Jobs
  are functions of a module (``tests.integration.spark.cluster_jobs``) called by name with JSON
  arguments; :meth:`Driver.submit` returns at once, so a test can kill an executor or a broker
  while a job runs, then :meth:`Driver.result` waits for its answer.

Run as a module (``python -m tests.support.spark_cluster``) this file is the driver's loop.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional

from confluent_binding.testing._process import free_ports

ROOT = Path(__file__).resolve().parents[2]
_RESULT = "@@result "
# JVM flags for quick start-up on a small machine (C1 only, one GC thread); the tests move
# little data, so peak speed does not matter.
_QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def _children(pid: int) -> List[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        # the command name (field 2) is in parentheses and may hold spaces
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            out.append(int(entry))
    return out


def _cmdline(pid: int) -> str:
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def worker_python(directory: Path) -> str:
    """This interpreter behind a wrapper that drops the pyspark.zip Spark puts first on its
    workers' PYTHONPATH (see tests/integration/spark/conftest.py: the same pyspark then comes
    from site-packages with its bytecode, and Python workers start fast enough)."""
    script = directory / "python"
    script.write_text(
        "#!/bin/sh\n"
        "set -f\n"
        "kept=\n"
        "old_ifs=$IFS\n"
        "IFS=:\n"
        "for p in $PYTHONPATH; do\n"
        '  case "$p" in */pyspark.zip) ;; *) kept="${kept:+$kept:}$p" ;; esac\n'
        "done\n"
        "IFS=$old_ifs\n"
        "PYTHONPATH=$kept\n"
        "export PYTHONPATH\n"
        "exec '%s' \"$@\"\n" % sys.executable
    )
    script.chmod(0o755)
    return str(script)


class SparkStandalone:
    """A master and ``workers`` workers, each worker offering ``cores`` cores and
    ``worker_memory`` for executors."""

    def __init__(
        self,
        workdir: os.PathLike,
        workers: int = 2,
        cores: int = 1,
        worker_memory: str = "1g",
        daemon_memory: str = "256m",
    ):
        self.workdir = Path(workdir)
        self.workers = workers
        self.cores = cores
        self.worker_memory = worker_memory
        self.daemon_memory = daemon_memory
        self.master: Optional[subprocess.Popen] = None
        self.worker_procs: List[subprocess.Popen] = []
        self.port = 0
        self.ui_port = 0
        self.timings: Dict[str, float] = {}

    @property
    def url(self) -> str:
        return "spark://127.0.0.1:%d" % self.port

    def _env(self) -> Dict[str, str]:
        conf_dir = self.workdir / "conf"
        conf_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_CONF_DIR=str(conf_dir),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_DAEMON_MEMORY=self.daemon_memory,
            # The master and workers only coordinate: start-up time over peak speed.
            SPARK_DAEMON_JAVA_OPTS=_QUICK_JVM,
            # A lost worker is noticed after 20 s instead of 60 (the workers heartbeat every
            # quarter of it: both sides must agree). No REST submission server (a fixed port).
            SPARK_MASTER_OPTS="-Dspark.worker.timeout=20 -Dspark.master.rest.enabled=false",
            SPARK_WORKER_OPTS="-Dspark.worker.timeout=20 -Dspark.worker.cleanup.enabled=false",
        )
        env.pop("PYSPARK_PYTHON", None)
        env.pop("PYSPARK_DRIVER_PYTHON", None)
        return env

    def _launch(self, name: str, args: List[str]) -> subprocess.Popen:
        log = open(self.workdir / ("%s.log" % name), "wb")
        try:
            return subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self._env(),
                cwd=str(self.workdir),
                start_new_session=True,
            )
        finally:
            log.close()

    def state(self) -> Dict[str, Any]:
        """The master's view: its web UI's JSON (workers, applications)."""
        with urllib.request.urlopen("http://127.0.0.1:%d/json/" % self.ui_port, timeout=5) as r:
            return json.loads(r.read().decode())

    def start(self, timeout: float = 120) -> "SparkStandalone":
        self.workdir.mkdir(parents=True, exist_ok=True)
        began = time.monotonic()
        ports = free_ports(2 + self.workers)
        self.port, self.ui_port = ports[0], ports[1]
        self.master = self._launch(
            "master",
            [
                "org.apache.spark.deploy.master.Master",
                "--host", "127.0.0.1",
                "--port", str(self.port),
                "--webui-port", str(self.ui_port),
            ],
        )  # fmt: skip
        for i in range(self.workers):
            work = self.workdir / ("worker-%d" % i)
            work.mkdir(exist_ok=True)
            self.worker_procs.append(
                self._launch(
                    "worker-%d" % i,
                    [
                        "org.apache.spark.deploy.worker.Worker",
                        "--host",
                        "127.0.0.1",
                        "--cores",
                        str(self.cores),
                        "--memory",
                        self.worker_memory,
                        "--webui-port",
                        str(ports[2 + i]),
                        "--work-dir",
                        str(work),
                        self.url,
                    ],
                )  # fmt: skip
            )
        try:
            self._wait(timeout, "every worker registered", self._all_workers_alive)
        except Exception:
            self.stop()
            raise
        self.timings["start"] = time.monotonic() - began
        return self

    def _all_workers_alive(self) -> bool:
        try:
            state = self.state()
        except (OSError, ValueError):  # not listening yet, or its pages before the JSON one
            return False
        return state.get("status") == "ALIVE" and state.get("aliveworkers") == self.workers

    def _wait(self, timeout: float, what: str, cond: Any) -> None:
        end = time.monotonic() + timeout
        while not cond():
            for name, p in [("master", self.master)] + [
                ("worker-%d" % i, w) for i, w in enumerate(self.worker_procs)
            ]:
                if p is not None and p.poll() is not None:
                    raise RuntimeError(
                        "Spark %s exited (%s) before %s:\n%s"
                        % (name, p.returncode, what, _tail(self.workdir / ("%s.log" % name)))
                    )
            if time.monotonic() > end:
                raise TimeoutError(
                    "Spark standalone: not %s within %s s:\n%s"
                    % (what, timeout, _tail(self.workdir / "master.log"))
                )
            time.sleep(0.2)

    def executor_pids(self) -> List[int]:
        """The executor JVMs the workers run now (one per worker per application)."""
        pids = []
        for w in self.worker_procs:
            if w.poll() is None:
                pids += [
                    c for c in _children(w.pid) if "CoarseGrainedExecutorBackend" in _cmdline(c)
                ]
        return sorted(pids)

    def wait_for_executors(self, n: int, timeout: float = 120, exclude=()) -> List[int]:
        """Waits until ``n`` executors run (none of ``exclude``); their pids."""
        found: List[int] = []

        def enough() -> bool:
            found[:] = [p for p in self.executor_pids() if p not in exclude]
            return len(found) >= n

        self._wait(timeout, "%d executors running" % n, enough)
        return list(found)

    def kill_executor(self, pid: Optional[int] = None) -> int:
        """SIGKILLs an executor JVM (the first one when ``pid`` is None) and its Python workers
        (they would notice and exit; killing them too leaves nothing behind); returns its pid."""
        pids = self.executor_pids()
        if pid is None:
            if not pids:
                raise RuntimeError("no executor is running")
            pid = pids[0]
        python = _children(pid)
        os.kill(pid, signal.SIGKILL)
        for child in python:
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return pid

    def stop(self, timeout: float = 30) -> None:
        executors = self.executor_pids()
        for p in self.worker_procs + [self.master]:
            if p is not None and p.poll() is None:
                p.terminate()
        for p in self.worker_procs + [self.master]:
            if p is None:
                continue
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for pid in executors:  # their worker is gone; make sure they are too
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.worker_procs = []
        self.master = None


class Driver:
    """A PySpark driver process connected to ``cluster``, running jobs of ``jobs_module``."""

    def __init__(
        self,
        cluster: SparkStandalone,
        workdir: os.PathLike,
        jobs_module: str,
        conf: Optional[Dict[str, str]] = None,
    ):
        self.cluster = cluster
        self.workdir = Path(workdir)
        self.jobs_module = jobs_module
        self.conf = dict(conf or {})
        self.proc: Optional[subprocess.Popen] = None
        self._answers: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self._next = 0
        self._pending: Dict[int, Dict[str, Any]] = {}

    def session_conf(self) -> Dict[str, str]:
        self.workdir.mkdir(parents=True, exist_ok=True)
        conf = {
            "spark.master": self.cluster.url,
            "spark.app.name": "confluent_binding-cluster-tests",
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.driver.memory": "768m",
            "spark.executor.memory": "640m",
            "spark.executor.cores": "1",
            "spark.cores.max": str(self.cluster.workers * self.cluster.cores),
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.sql.session.timeZone": "UTC",
            "spark.python.worker.reuse": "true",
            "spark.pyspark.python": worker_python(self.workdir),
            "spark.pyspark.driver.python": sys.executable,
            # Functions of the jobs module (UDFs) are pickled by reference: executors' Python
            # workers import them from the checkout.
            "spark.executorEnv.PYTHONPATH": str(ROOT),
            "spark.local.dir": str(self.workdir / "local"),
            "spark.sql.warehouse.dir": str(self.workdir / "warehouse"),
            # Every task may fail this often before its job does (an executor killed mid-task
            # fails its tasks once; they run again on the other executor).
            "spark.task.maxFailures": "8",
            # Parquet without compression: the tests check the connector, and snappy's native
            # library fails to load where a musl loader sits beside glibc (its loader then
            # picks its musl build).
            "spark.sql.parquet.compression.codec": "uncompressed",
            "spark.driver.extraJavaOptions": _QUICK_JVM,
            "spark.executor.extraJavaOptions": _QUICK_JVM,
        }
        conf.update(self.conf)
        return conf

    def start(self, timeout: float = 180) -> "Driver":
        spec = self.workdir / "session.json"
        self.workdir.mkdir(parents=True, exist_ok=True)
        spec.write_text(json.dumps({"conf": self.session_conf(), "jobs": self.jobs_module}))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        )
        env["PYSPARK_PYTHON"] = self.session_conf()["spark.pyspark.python"]
        env["PYSPARK_DRIVER_PYTHON"] = sys.executable
        log = open(self.workdir / "driver.log", "wb")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.support.spark_cluster", str(spec)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=env,
                cwd=str(ROOT),
            )
        finally:
            log.close()
        threading.Thread(target=self._read, daemon=True).start()
        self.result(self._send("ping", {}), timeout)
        return self

    def _read(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode(errors="replace")
            if line.startswith(_RESULT):
                self._answers.put(json.loads(line[len(_RESULT) :]))
        self._answers.put({"id": None, "exit": proc.wait()})

    def _send(self, job: str, kwargs: Dict[str, Any]) -> int:
        assert self.proc is not None and self.proc.stdin is not None
        self._next += 1
        self.proc.stdin.write(
            (json.dumps({"id": self._next, "job": job, "kwargs": kwargs}) + "\n").encode()
        )
        self.proc.stdin.flush()
        return self._next

    def submit(self, job: str, **kwargs: Any) -> int:
        """Starts ``job(spark, **kwargs)`` in the driver (jobs run one after the other)."""
        return self._send(job, kwargs)

    def result(self, ticket: int, timeout: float = 300) -> Any:
        """The return value of the submitted job; raises with the driver's error if it failed."""
        end = time.monotonic() + timeout
        while ticket not in self._pending:
            try:
                answer = self._answers.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(
                    "no answer from the Spark driver within %s s:\n%s"
                    % (timeout, _tail(self.workdir / "driver.log", 150))
                ) from None
            if answer.get("id") is None:
                raise RuntimeError(
                    "the Spark driver exited (%s):\n%s"
                    % (answer.get("exit"), _tail(self.workdir / "driver.log"))
                )
            self._pending[answer["id"]] = answer
        answer = self._pending.pop(ticket)
        if "error" in answer:
            raise RuntimeError("job failed in the Spark driver: %s" % answer["error"])
        return answer["value"]

    def done(self, ticket: int) -> bool:
        """Whether the submitted job has answered (without waiting)."""
        while True:
            try:
                answer = self._answers.get_nowait()
            except queue.Empty:
                break
            if answer.get("id") is None:
                self._answers.put(answer)  # for result() to report
                break
            self._pending[answer["id"]] = answer
        return ticket in self._pending

    def call(self, job: str, timeout: float = 300, **kwargs: Any) -> Any:
        return self.result(self.submit(job, **kwargs), timeout)

    def close(self, timeout: float = 60) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()  # the loop ends at end of input and stops the session
                self.proc.wait(timeout)
            except (subprocess.TimeoutExpired, OSError):
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def _serve(spec_path: str) -> int:
    """The driver process: one SparkSession, then one job per input line."""
    import importlib
    import traceback

    spec = json.loads(Path(spec_path).read_text())
    from pyspark.sql import SparkSession

    import confluent_binding.spark

    builder = SparkSession.builder
    for k, v in spec["conf"].items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    confluent_binding.spark.register(spark)
    jobs = importlib.import_module(spec["jobs"])
    out = sys.stdout
    try:
        for line in sys.stdin:
            request = json.loads(line)
            answer: Dict[str, Any] = {"id": request["id"]}
            try:
                if request["job"] == "ping":
                    answer["value"] = spark.version
                else:
                    answer["value"] = getattr(jobs, request["job"])(spark, **request["kwargs"])
            except Exception as e:  # the test gets the error, the driver serves on
                traceback.print_exc()
                answer["error"] = "%s: %s" % (type(e).__name__, e)
            out.write(_RESULT + json.dumps(answer) + "\n")
            out.flush()
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1]))
