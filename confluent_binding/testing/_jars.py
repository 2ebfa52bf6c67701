"""Fetch the Apache Kafka broker jars from Maven Central with ``mvn``.

``ensure_kafka_jars()`` copies the runtime dependencies of
``org.apache.kafka:kafka_2.13`` (see ``pom.xml`` next to this file) into
``<cache>/kafka-<version>/libs`` once, and returns that directory.  The download
goes to a temporary directory that is renamed into place; a stamp file written
last marks the directory complete, so an interrupted fetch is redone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

__all__ = [
    "DEFAULT_KAFKA_VERSION",
    "DEPENDENCY_PLUGIN",
    "KafkaJarsError",
    "POM_PATH",
    "check_kafka_version",
    "cache_dir",
    "ensure_kafka_jars",
    "find_kafka_jars",
]

DEFAULT_KAFKA_VERSION = "4.1.2"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
POM_PATH = Path(__file__).resolve().with_name("pom.xml")
_STAMP = ".complete"


class KafkaJarsError(RuntimeError):
    """The Kafka jars are not available and could not be fetched."""


def _source_root() -> Optional[Path]:
    """The repository root when running from a source checkout, else ``None``."""
    root = Path(__file__).resolve().parents[2]
    if (root / ".git").exists() and (root / "confluent_binding").is_dir():
        return root
    return None


def cache_dir() -> Path:
    """``$CONFLUENT_BINDING_CACHE``, else ``<repo>/.cache`` in a source
    checkout, else ``~/.cache/confluent_binding``."""
    env = os.environ.get("CONFLUENT_BINDING_CACHE")
    if env:
        return Path(env).expanduser()
    root = _source_root()
    if root is not None:
        return root / ".cache"
    return Path.home() / ".cache" / "confluent_binding"


def check_kafka_version(version: str) -> None:
    """Raise :class:`ValueError` for a Kafka version the harness cannot run: it writes
    Kafka 4's configuration (KRaft only, Log4j2), so 4.0 or newer."""
    try:
        major = int(version.split(".", 1)[0])
    except ValueError:
        raise ValueError("not a Kafka version: %r" % (version,)) from None
    if major < 4:
        raise ValueError("Kafka %s is not supported: the harness runs Kafka 4.0 or newer"
                         % version)


def _stamp_text(version: str) -> str:
    digest = hashlib.sha256(POM_PATH.read_bytes()).hexdigest()
    return "kafka %s\npom sha256 %s\n" % (version, digest)


def find_kafka_jars(version: str = DEFAULT_KAFKA_VERSION) -> Optional[Path]:
    """The cached libs directory for ``version`` if complete and current, else ``None``."""
    base = cache_dir() / ("kafka-%s" % version)
    libs = base / "libs"
    try:
        if (base / _STAMP).read_text() == _stamp_text(version) and libs.is_dir():
            return libs
    except OSError:
        pass
    return None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Exclusive inter-process lock (no-op where ``fcntl`` is unavailable)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def ensure_kafka_jars(
    version: str = DEFAULT_KAFKA_VERSION, *, mvn: Optional[str] = None, verbose: bool = False
) -> Path:
    """Return ``<cache>/kafka-<version>/libs``, running Maven first if needed.

    Maven runs only when the directory lacks a completion stamp matching this
    ``pom.xml``.  Kafka 4.0 or newer (:func:`check_kafka_version`).
    Raises :class:`KafkaJarsError` when ``mvn`` is missing or fails.
    """
    check_kafka_version(version)
    found = find_kafka_jars(version)
    if found is not None:
        return found
    base = cache_dir() / ("kafka-%s" % version)
    with _locked(cache_dir() / (".kafka-%s.lock" % version)):
        found = find_kafka_jars(version)  # another process may have finished meanwhile
        if found is not None:
            return found
        mvn = mvn or shutil.which("mvn")
        if not mvn:
            raise KafkaJarsError(
                "Maven ('mvn') is not on PATH: it is needed once to fetch the Kafka %s jars "
                "(apt-get install maven), or set KAFKA_BOOTSTRAP_SERVERS to use an existing "
                "cluster" % version
            )
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix="libs.tmp-", dir=base))
        cmd = [
            mvn,
            "-B",
            "-q",
            "-f",
            str(POM_PATH),
            "-Dkafka.version=%s" % version,
            DEPENDENCY_PLUGIN + ":copy-dependencies",
            "-DincludeScope=runtime",
            "-DoutputDirectory=%s" % tmp,
        ]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=str(base),
            )
            if proc.returncode != 0 or not any(tmp.glob("kafka_*.jar")):
                out = proc.stdout.decode("utf-8", "replace")
                raise KafkaJarsError(
                    "fetching Kafka %s jars with Maven failed (exit %d):\n%s\n%s"
                    % (version, proc.returncode, " ".join(cmd), out[-4000:])
                )
            libs = base / "libs"
            stamp = base / _STAMP
            with contextlib.suppress(FileNotFoundError):
                stamp.unlink()
            os.chmod(tmp, 0o755)  # mkdtemp made it private
            old = None
            if libs.exists():  # stale: move aside first so the swap is quick
                old = Path(tempfile.mkdtemp(prefix="libs.old-", dir=base))
                os.rename(libs, old / "libs")
            os.rename(tmp, libs)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            stamp_tmp = base / (_STAMP + ".tmp")
            stamp_tmp.write_text(_stamp_text(version))
            os.replace(stamp_tmp, stamp)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        if verbose:
            print(
                "fetched Kafka %s jars into %s in %.1fs" % (version, libs, time.monotonic() - t0)
            )
        return libs
