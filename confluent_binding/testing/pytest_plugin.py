"""pytest plugin: a Kafka cluster for integration tests.

Load with ``pytest_plugins = ["confluent_binding.testing.pytest_plugin"]`` in a
``conftest.py`` or ``pytest -p confluent_binding.testing.pytest_plugin``.

Fixtures:

``kafka_cluster`` (session)
    Where the cluster comes from, first match wins:

    1. ``KAFKA_BOOTSTRAP_SERVERS`` set: that cluster
       (:class:`~confluent_binding.testing.ExternalKafkaCluster`).  Optional
       ``KAFKA_CLIENT_CONFIG``: a JSON object of librdkafka settings
       (``security.protocol``, ``sasl.*``, ``ssl.ca.location``, ...) added to
       every ``client_config()`` and used by the topic helpers.
    2. ``java`` available: a local single-node KRaft broker
       (:class:`~confluent_binding.testing.KafkaCluster`, Kafka
       ``KAFKA_VERSION`` or 4.1.2) whose jars :func:`ensure_kafka_jars` fetches
       once with ``mvn``.
    3. otherwise the test fails, saying what is missing.

    All variants offer ``bootstrap_servers``, ``client_config(**extra)``,
    ``create_topic(name, partitions=1, config=None, timeout=30)``,
    ``delete_topic(name)`` and ``topic_partitions(name)``.

``topic`` (function)
    Name of a fresh, uniquely named topic with 1 partition.

``make_topic`` (function)
    Factory ``make_topic(partitions=1, name=None, config=None) -> str``;
    the topics it made are deleted after the test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import uuid
from typing import Any, Callable, Iterator, List, Optional

import pytest

from ._jars import DEFAULT_KAFKA_VERSION, KafkaJarsError, ensure_kafka_jars
from ._kafka import KafkaCluster
from ._topics import ExternalKafkaCluster

__all__ = ["kafka_cluster", "make_topic", "topic"]


def json_object_env(name: str) -> dict:
    """The environment variable ``name`` read as a JSON object (``{}`` when unset); fails the
    test run when it is something else."""
    raw = os.environ.get(name, "").strip()
    config = {}
    if raw:
        try:
            config = json.loads(raw)
        except ValueError as e:
            pytest.fail("%s is not a JSON object: %s" % (name, e), pytrace=False)
        if not isinstance(config, dict):
            pytest.fail("%s must be a JSON object" % name, pytrace=False)
    return config


def external_server(factory: Callable[[str, dict], Any], variable: str,
                    config_variable: str) -> Any:
    """A server already running where the environment variable ``variable`` says, as
    ``factory(address, config)`` makes it (``config``: :func:`json_object_env` of
    ``config_variable``), once it answers; ``None`` when ``variable`` is unset.  Fails the test
    run when it does not answer within 30 seconds."""
    where = os.environ.get(variable, "").strip()
    if not where:
        return None
    server = factory(where, json_object_env(config_variable))
    try:
        server.wait_ready(timeout=30)
    except Exception as e:
        pytest.fail("%s=%s: %s" % (variable, where, e), pytrace=False)
    return server


def _external() -> Optional[ExternalKafkaCluster]:
    """The cluster ``KAFKA_BOOTSTRAP_SERVERS`` names, else ``None``."""
    return external_server(ExternalKafkaCluster, "KAFKA_BOOTSTRAP_SERVERS",
                           "KAFKA_CLIENT_CONFIG")


@contextlib.contextmanager
def running(server: Any, what: str, timeout: float) -> Iterator[Any]:
    """``server`` started (the test run fails, saying that ``what`` did not start, when it
    cannot be), stopped at the end."""
    try:
        server.start(timeout=timeout)
    except Exception as e:
        server.kill()
        pytest.fail("%s did not start: %s" % (what, e), pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running Kafka cluster for the whole test session (see module doc)."""
    external = _external()
    if external is not None:
        yield external
        return

    reasons: List[str] = []
    version = os.environ.get("KAFKA_VERSION", DEFAULT_KAFKA_VERSION)
    if shutil.which("java") or os.environ.get("JAVA_HOME"):
        libs = None
        try:
            libs = ensure_kafka_jars(version)
        except (KafkaJarsError, ValueError) as e:
            reasons.append(str(e))
        if libs is not None:
            cluster = KafkaCluster(
                version=version,
                workdir=tmp_path_factory.mktemp("kafka"),
                libs_dir=libs,
                # Tests favour start-up time over peak broker throughput.
                fast_startup=True,
            )
            with running(cluster, "local Kafka %s broker" % version, timeout=120):
                yield cluster
            return
    else:
        reasons.append("'java' (17+) is not on PATH and JAVA_HOME is not set")

    pytest.fail(
        "no Kafka cluster for integration tests: set KAFKA_BOOTSTRAP_SERVERS=host:port, or "
        "install java 17+ and maven (the broker jars are fetched once). Missing: "
        + "; ".join(reasons),
        pytrace=False,
    )


def _topic_name(request: pytest.FixtureRequest) -> str:
    base = re.sub(r"[^a-zA-Z0-9._-]+", "_", request.node.name)[:120].strip("_.") or "topic"
    return "%s-%s" % (base, uuid.uuid4().hex[:8])


@pytest.fixture
def make_topic(kafka_cluster: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., str]]:
    """Factory: ``make_topic(partitions=1, name=None, config=None) -> name``."""
    made: List[str] = []

    def make(partitions: int = 1, name: Optional[str] = None, config: Optional[dict] = None) -> str:
        name = name or _topic_name(request)
        kafka_cluster.create_topic(name, partitions=partitions, config=config)
        made.append(name)
        return name

    yield make
    for name in made:
        try:
            kafka_cluster.delete_topic(name, timeout=10)
        except Exception:
            pass  # best effort: the broker may have been stopped by the test


@pytest.fixture
def topic(make_topic: Callable[..., str]) -> str:
    """A fresh, uniquely named topic with one partition."""
    return make_topic(1)
