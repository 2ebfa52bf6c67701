"""Fetch the Apache Kafka broker jars from Maven Central with ``mvn``.

``ensure_kafka_jars()`` copies the runtime dependencies of
``org.apache.kafka:kafka_2.13`` (see ``pom.xml`` next to this file) into
``<cache>/kafka-<version>/libs`` once, and returns that directory.  The download
goes to a temporary directory that is renamed into place; a stamp file written
last marks the directory complete, so an interrupted fetch is redone.  The test
suite's Schema Registry build is cached the same way (:func:`cached`,
:func:`run_maven`).
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
from typing import Callable, Iterator, List, Optional, Sequence, Type

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


def find_complete(base: Path, stamp: str, result: Path) -> Optional[Path]:
    """``result`` (inside ``base``) when it exists and ``base``'s completion stamp reads
    ``stamp``, else ``None``."""
    try:
        if (base / _STAMP).read_text() == stamp and result.exists():
            return result
    except OSError:
        pass
    return None


def find_kafka_jars(version: str = DEFAULT_KAFKA_VERSION) -> Optional[Path]:
    """The cached libs directory for ``version`` if complete and current, else ``None``."""
    base = cache_dir() / ("kafka-%s" % version)
    return find_complete(base, _stamp_text(version), base / "libs")


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


def cached(base: Path, stamp: str, result: Path, build: Callable[[], None]) -> Path:
    """``result``, made first by ``build()`` unless :func:`find_complete` finds it.

    ``build`` runs under an inter-process lock (a second process waits, then finds the
    result) after the stale stamp is removed; it puts ``result`` in place, and the stamp,
    written last, marks it complete, so an interrupted build is redone.
    """
    found = find_complete(base, stamp, result)
    if found is not None:
        return found
    with _locked(base.parent / (".%s.lock" % base.name)):
        found = find_complete(base, stamp, result)  # made by another process meanwhile
        if found is not None:
            return found
        base.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            (base / _STAMP).unlink()
        build()
        stamp_tmp = base / (_STAMP + ".tmp")
        stamp_tmp.write_text(stamp)
        os.replace(stamp_tmp, base / _STAMP)
    return result


def run_maven(args: Sequence[str], *, cwd: Path, mvn: Optional[str], what: str, doing: str,
              otherwise: str, produced: Callable[[], bool],
              error: Type[Exception]) -> None:
    """Run ``mvn -B -q <args>`` in ``cwd``; raise ``error`` when Maven is missing (``what``
    names what it is needed for, ``otherwise`` the way around it) or fails, or when
    ``produced()`` is false afterwards (``doing`` names the step, with Maven's output)."""
    mvn = mvn or shutil.which("mvn")
    if not mvn:
        raise error("Maven ('mvn') is not on PATH: it is needed once to %s (apt-get install "
                    "maven), or %s" % (what, otherwise))
    cmd: List[str] = [mvn, "-B", "-q", *args]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, cwd=str(cwd))
    if proc.returncode != 0 or not produced():
        out = proc.stdout.decode("utf-8", "replace")
        raise error("%s with Maven failed (exit %d):\n%s\n%s"
                    % (doing, proc.returncode, " ".join(cmd), out[-4000:]))


def ensure_kafka_jars(
    version: str = DEFAULT_KAFKA_VERSION, *, mvn: Optional[str] = None, verbose: bool = False
) -> Path:
    """Return ``<cache>/kafka-<version>/libs``, running Maven first if needed.

    Maven runs only when the directory lacks a completion stamp matching this
    ``pom.xml``.  Kafka 4.0 or newer (:func:`check_kafka_version`).
    Raises :class:`KafkaJarsError` when ``mvn`` is missing or fails.
    """
    check_kafka_version(version)
    base = cache_dir() / ("kafka-%s" % version)
    libs = base / "libs"

    def fetch() -> None:
        t0 = time.monotonic()
        tmp = Path(tempfile.mkdtemp(prefix="libs.tmp-", dir=base))
        try:
            run_maven(["-f", str(POM_PATH), "-Dkafka.version=%s" % version,
                       DEPENDENCY_PLUGIN + ":copy-dependencies", "-DincludeScope=runtime",
                       "-DoutputDirectory=%s" % tmp],
                      cwd=base, mvn=mvn, what="fetch the Kafka %s jars" % version,
                      doing="fetching Kafka %s jars" % version,
                      otherwise="set KAFKA_BOOTSTRAP_SERVERS to use an existing cluster",
                      produced=lambda: any(tmp.glob("kafka_*.jar")), error=KafkaJarsError)
            os.chmod(tmp, 0o755)  # mkdtemp made it private
            old = None
            if libs.exists():  # stale: move aside first so the swap is quick
                old = Path(tempfile.mkdtemp(prefix="libs.old-", dir=base))
                os.rename(libs, old / "libs")
            os.rename(tmp, libs)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        if verbose:
            print("fetched Kafka %s jars into %s in %.1fs" % (version, libs, time.monotonic() - t0))

    return cached(base, _stamp_text(version), libs, fetch)
