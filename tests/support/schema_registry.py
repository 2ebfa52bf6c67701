"""A real Schema Registry for the test suite: Apicurio Registry run as a local JVM process, and
the ``schema_registry`` fixture (a pytest plugin: tests/conftest.py loads this module).

Apicurio Registry serves Confluent's Schema Registry REST API under ``/apis/ccompat/v7``.  Its
server is published on Maven Central as a plain jar; :func:`ensure_schema_registry_app` assembles
it into a runnable Quarkus application with ``mvn`` once (``apicurio-pom.xml`` next to this file)
and caches it next to the Kafka jars (``make schema-registry``).  :class:`SchemaRegistryServer`
starts it on a free loopback port with in-memory storage, waits until the API answers, and stops
it cleanly.

``schema_registry`` (session fixture): ``SCHEMA_REGISTRY_URL`` if set (optional
``SCHEMA_REGISTRY_CLIENT_CONFIG``, a JSON object of client settings such as
``basic.auth.user.info``), else a local :class:`SchemaRegistryServer` (``APICURIO_VERSION`` or
the default).  Offers ``url`` and ``client_config(extra=None) -> {"url": ..., ...}``.

Example::

    with SchemaRegistryServer() as sr:
        client = SchemaRegistryClient({"url": sr.url})
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional

import pytest

from confluent_binding.testing import _process
from confluent_binding.testing._jars import cache_dir, cached, find_complete, run_maven
from confluent_binding.testing.pytest_plugin import external_server, running

__all__ = [
    "APICURIO_POM_PATH",
    "CCOMPAT_PATH",
    "DEFAULT_APICURIO_VERSION",
    "ExternalSchemaRegistry",
    "SchemaRegistryServerError",
    "SchemaRegistryServer",
    "ensure_schema_registry_app",
    "find_schema_registry_app",
    "schema_registry",
]

DEFAULT_APICURIO_VERSION = "2.4.2.Final"
APICURIO_POM_PATH = Path(__file__).resolve().with_name("apicurio-pom.xml")
#: Where Apicurio serves Confluent's Schema Registry API.
CCOMPAT_PATH = "/apis/ccompat/v7"
_RUNNER = "apicurio-registry-runner-1-runner.jar"

# A test registry favours start-up time: C1 only, small heap.
_JVM_OPTS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k", "-Djava.awt.headless=true")


class SchemaRegistryServerError(RuntimeError):
    """The registry could not be built, started or reached."""


def _stamp_text(version: str) -> str:
    digest = hashlib.sha256(APICURIO_POM_PATH.read_bytes()).hexdigest()
    return "apicurio-registry %s\npom sha256 %s\n" % (version, digest)


def _app_base(version: str) -> Path:
    return cache_dir() / ("apicurio-registry-%s" % version)


def find_schema_registry_app(version: str = DEFAULT_APICURIO_VERSION) -> Optional[Path]:
    """The runnable jar of the cached, complete build for ``version``, else ``None``."""
    base = _app_base(version)
    return find_complete(base, _stamp_text(version), base / "app" / _RUNNER)


def ensure_schema_registry_app(
    version: str = DEFAULT_APICURIO_VERSION, *, mvn: Optional[str] = None, verbose: bool = False
) -> Path:
    """Return the runnable jar of Apicurio Registry ``version``, building it first if needed.

    The build (``mvn package`` of ``apicurio-pom.xml`` in a temporary directory: resolve the
    published app and its dependencies, run Quarkus' build) lands in
    ``<cache>/apicurio-registry-<version>/app`` (``<runner>.jar`` + ``lib/``); a stamp written
    last marks it complete, so an interrupted build is redone.  Raises
    :class:`SchemaRegistryServerError` when ``mvn`` is missing or fails.
    """
    base = _app_base(version)
    app = base / "app"

    def build() -> None:
        t0 = time.monotonic()
        work = Path(tempfile.mkdtemp(prefix="build.tmp-", dir=base))
        try:
            shutil.copy(APICURIO_POM_PATH, work / "pom.xml")
            target = work / "target"
            run_maven(["-f", str(work / "pom.xml"), "-Dapicurio.version=%s" % version,
                       "-DskipTests", "package"],
                      cwd=work, mvn=mvn, what="build Apicurio Registry %s" % version,
                      doing="building Apicurio Registry %s" % version,
                      otherwise="set SCHEMA_REGISTRY_URL to use a running registry",
                      produced=lambda: (target / _RUNNER).is_file(),
                      error=SchemaRegistryServerError)
            staged = work / "app"
            staged.mkdir()
            os.rename(target / _RUNNER, staged / _RUNNER)
            os.rename(target / "lib", staged / "lib")
            if app.exists():
                shutil.rmtree(app)
            os.rename(staged, app)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if verbose:
            print("built Apicurio Registry %s into %s in %.1fs"
                  % (version, app, time.monotonic() - t0))

    return cached(base, _stamp_text(version), app / _RUNNER, build)


def _http_get(url: str, timeout: float) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - loopback test server
        return json.loads(resp.read() or b"null")


class ExternalSchemaRegistry:
    """An already running registry (``SCHEMA_REGISTRY_URL``), same API as
    :class:`SchemaRegistryServer` for what tests need."""

    def __init__(self, url: str, config: Optional[Mapping[str, Any]] = None):
        self.url = url.rstrip("/")
        self._config = dict(config or {})

    def client_config(self, extra: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """``{"url": ...}`` plus the extra settings given at construction and here."""
        conf: Dict[str, Any] = {"url": self.url}
        conf.update(self._config)
        conf.update(extra or {})
        return conf

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                _http_get(self.url.split(",")[0] + "/subjects", timeout=5)
                return
            except urllib.error.HTTPError as e:
                if e.code in (401, 403):  # answers, but wants credentials
                    return
                err: Exception = e
            except (OSError, ValueError) as e:
                err = e
            if time.monotonic() >= deadline:
                raise SchemaRegistryServerError(
                    "Schema Registry at %s not reachable: %s" % (self.url, err)
                )
            time.sleep(0.2)

    def __repr__(self) -> str:
        return "ExternalSchemaRegistry(%r)" % self.url


class SchemaRegistryServer(ExternalSchemaRegistry, _process.OneProcess, _process.Launcher):
    """Apicurio Registry on ``127.0.0.1:<free port>`` with in-memory storage (H2).

    Parameters:
      version: Apicurio Registry version (built by :func:`ensure_schema_registry_app`).
      workdir: where the log goes; default a temporary directory removed by :meth:`cleanup`.
      app: a runnable jar to use instead of the cached build.
      heap: ``-Xmx``.
      properties: extra Quarkus / Apicurio settings, passed as ``-Dkey=value``.
      verbose: print timings.

    After :meth:`start`, ``timings`` holds seconds spent: ``build`` (0 when cached), ``ready``
    (JVM launch until the API answers) and ``start`` (total); :meth:`stop` adds ``stop``.
    """

    def __init__(
        self,
        version: str = DEFAULT_APICURIO_VERSION,
        workdir: Optional[os.PathLike] = None,
        *,
        app: Optional[os.PathLike] = None,
        heap: str = "512m",
        properties: Optional[Mapping[str, Any]] = None,
        java: Optional[str] = None,
        verbose: bool = False,
    ):
        super().__init__("")
        self.version = version
        self._owns_workdir = workdir is None
        self.workdir = (
            Path(workdir)
            if workdir is not None
            else Path(tempfile.mkdtemp(prefix="schema-registry-"))
        )
        self.process = _process.ServerProcess("Apicurio Registry",
                                              self.workdir / "schema-registry.log",
                                              SchemaRegistryServerError)
        # At interpreter exit (or garbage collection): kill a leftover server, remove the
        # workdir this object made.
        self._res = _process.track(self, servers=[self.process],
                                   remove=[self.workdir] if self._owns_workdir else [])
        self.app = Path(app) if app is not None else None
        self.heap = heap
        self.properties = dict(properties or {})
        self._java = java
        self.verbose = verbose
        self.port: Optional[int] = None
        self.timings: Dict[str, float] = {}

    def _answers(self) -> bool:
        _http_get(self.url + "/subjects", timeout=2)   # raises while not listening yet
        return True

    def _command(self, java: str, app: Path) -> List[str]:
        props: Dict[str, Any] = {
            "quarkus.http.host": "127.0.0.1",
            "quarkus.http.port": self.port,
        }
        props.update(self.properties)
        cmd = [java, "-Xmx%s" % self.heap, *_JVM_OPTS]
        cmd += ["-D%s=%s" % (k, v) for k, v in props.items()]
        cmd += ["-jar", str(app)]
        return cmd

    def start(self, timeout: float = 120) -> "SchemaRegistryServer":
        """Build if needed, launch on a fresh port, wait until ``GET /subjects`` answers."""
        if self.is_running:
            raise SchemaRegistryServerError("already running (pid %s)" % self.pid)
        t0 = time.monotonic()
        app = self.app or ensure_schema_registry_app(self.version, verbose=self.verbose)
        t1 = time.monotonic()
        java = _process.find_java(self._java, SchemaRegistryServerError)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = _process.free_ports(1)[0]
        self.url = "http://127.0.0.1:%d%s" % (self.port, CCOMPAT_PATH)
        self.process.start(self._command(java, app), cwd=self.workdir)
        try:
            self.process.wait_ready(self._answers, timeout)
        except BaseException:
            self.kill()
            raise
        self.timings = {
            "build": t1 - t0,
            "ready": time.monotonic() - t1,
            "start": time.monotonic() - t0,
        }
        if self.verbose:
            print(
                "Apicurio Registry %s ready at %s in %.1fs, pid %s, log %s"
                % (self.version, self.url, self.timings["ready"], self.pid, self.log_path)
            )
        return self

    def stop(self, timeout: float = 30) -> Optional[int]:
        """SIGTERM, wait up to ``timeout``, then SIGKILL.  Returns the exit code."""
        if self.process.proc is None:
            return None
        t0 = time.monotonic()
        rc = self.process.stop(timeout)
        self.timings["stop"] = time.monotonic() - t0
        return rc

    def kill(self) -> None:
        self.process.kill()

    def __repr__(self) -> str:
        state = "running pid %s" % self.pid if self.is_running else "stopped"
        return "SchemaRegistryServer(%s, %s, %s)" % (self.version, self.url or "no url", state)


@pytest.fixture(scope="session")
def schema_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running Schema Registry for the whole test session (see the module's doc)."""
    external = external_server(ExternalSchemaRegistry, "SCHEMA_REGISTRY_URL",
                               "SCHEMA_REGISTRY_CLIENT_CONFIG")
    if external is not None:
        yield external
        return
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.fail(
            "no Schema Registry for tests: set SCHEMA_REGISTRY_URL, or install java 11+ and "
            "maven (Apicurio Registry is built once)",
            pytrace=False,
        )
    version = os.environ.get("APICURIO_VERSION", DEFAULT_APICURIO_VERSION)
    server = SchemaRegistryServer(version, workdir=tmp_path_factory.mktemp("schema-registry"))
    with running(server, "local Apicurio Registry %s" % version, timeout=180):
        yield server
