"""A pytest plugin that runs aiokafka's own broker-backed API tests (``tests/test_producer.py``
and the others ``run_aiokafka.py`` selects) against a broker of this repository's harness, in
place of aiokafka's ``tests/conftest.py`` (which starts Kafka in Docker). Loaded into both runs
of ``make conformance-aiokafka``, with pytest's ``--noconftest``:

- ours (``--aiokafka-ours``): ``aiokafka`` is aliased to ``confluent_binding.aiokafka`` before
  any test module is imported, and no module of the installed aiokafka may be loaded; the run is
  held to ``--conformance-allowed`` (``allowed-aiokafka.txt``) as ``conformance_plugin`` holds
  the confluent-kafka runs. aiokafka internals the test modules import at their top
  (``aiokafka.cluster``, ``aiokafka.protocol.produce``, ``aiokafka.record``, the fetcher, the
  transaction manager) have no counterpart here: stand-ins let the modules import, and any use
  of one fails the test that makes it, saying what it touched.
- the control: the installed aiokafka, no alias, nothing held.

The fixtures aiokafka's conftest provides are provided from the broker the driver started
(``AIOKAFKA_CONFORMANCE_BROKER``, JSON): ``kafka_server`` (host and the PLAINTEXT, SSL,
SASL_PLAINTEXT and SASL_SSL ports), ``ssl_folder`` (``ca.crt``, ``client.crt``, ``client.key``
of the harness's certificates), ``loop``, ``setup_test_class`` (the class attributes
``kafka_host``, ``kafka_port``, ``kafka_ssl_port``, ``kafka_sasl_plain_port``,
``kafka_sasl_ssl_port``, ``hosts``, ``kafka_version``...), ``setup_test_class_serverless``.
aiokafka's test helper ``wait_topic``
(``tests/_testutil.py``; ``send_messages`` calls it too), which reads the metadata of an
``AIOKafkaClient`` through its internals, is replaced in both runs by the same wait through the
public API (``AIOKafkaProducer.partitions_for``): the tests that only use it to wait for a topic
then test what they are about. What runs commands inside aiokafka's Docker container
(``acl_manager``, ``kafka_config``, ``kerberos_utils``) is a stand-in that fails the test using
it, saying so. ``docker`` (imported
by aiokafka's conftest, which this run does not load) is a stand-in module as well.
Every test's outcome goes to ``--conformance-results`` (``integration_plugin.Results``).
"""

import asyncio
import gc
import json
import os
import pathlib
import socket
import sys
import types
import uuid
from dataclasses import dataclass
from typing import Any, Optional

import pytest
from allowlist import read_allowed
from allowlist_hold import AllowListHold, assert_no_module_of_the_real
from integration_plugin import Results

BROKER_VARIABLE = "AIOKAFKA_CONFORMANCE_BROKER"


class StandInError(AssertionError):
    """A test used something this run cannot provide."""


# -- docker -----------------------------------------------------------------------------------

def _stand_in_for_docker():
    if "docker" in sys.modules:
        return
    module = types.ModuleType("docker")
    module.__path__ = []

    def from_env(*args, **kwargs):
        raise StandInError("no Docker in this run: the broker is the harness's "
                           "(confluent_binding.testing.KafkaCluster)")

    module.from_env = from_env
    module.models = types.SimpleNamespace(
        containers=types.SimpleNamespace(Container=type("Container", (), {})))
    sys.modules["docker"] = module


_stand_in_for_docker()


# -- aiokafka internals (ours only) ---------------------------------------------------------

class _Internal:
    """What a test module imported from an aiokafka internal: any use fails the test."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def _fail(self, *args, **kwargs):
        raise StandInError("%s is an aiokafka internal with no counterpart in "
                           "confluent_binding.aiokafka" % object.__getattribute__(self, "_name"))

    __call__ = _fail

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        self._fail()

    def __setattr__(self, attr, value):
        self._fail()

    def __repr__(self):
        return "<stand-in for %s>" % object.__getattribute__(self, "_name")


class _InternalModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Internal("%s.%s" % (self.__name__, attr))


#: internal modules aiokafka's API test files import at their top
_INTERNAL_MODULES = ("aiokafka.cluster", "aiokafka.protocol", "aiokafka.protocol.produce",
                     "aiokafka.consumer.fetcher", "aiokafka.record",
                     "aiokafka.record.default_records", "aiokafka.producer.transaction_manager")


def _stand_in_for_internals():
    import importlib

    import confluent_binding.aiokafka  # noqa: F401

    for name in _INTERNAL_MODULES:
        try:
            importlib.import_module(name)
            continue  # a counterpart exists: the test uses it
        except ImportError:
            pass
        module = _InternalModule(name)
        module.__path__ = []
        sys.modules[name] = module
        # ``from aiokafka.consumer import fetcher`` looks the submodule up under the name of the
        # aliased package (confluent_binding.aiokafka.consumer)
        sys.modules["confluent_binding." + name] = module


def _assert_not_the_real_one():
    import aiokafka

    import confluent_binding.aiokafka

    assert aiokafka is confluent_binding.aiokafka, (
        "aiokafka resolves to %r, not to confluent_binding.aiokafka" % (aiokafka,))
    assert_no_module_of_the_real("aiokafka")


# -- fixtures in place of aiokafka's conftest ---------------------------------------------------

def _broker():
    value = os.environ.get(BROKER_VARIABLE)
    if not value:
        pytest.skip("no broker: run these tests through tests/conformance/run_aiokafka.py "
                    "(make conformance-aiokafka)")
    return json.loads(value)


@dataclass
class KafkaServer:
    host: str
    port: int
    ssl_port: int
    sasl_plain_port: Optional[int]
    sasl_ssl_port: Optional[int]
    container: Any = None

    @property
    def hosts(self):
        return ["%s:%d" % (self.host, self.port)]


class _ContainerTool:
    """aiokafka's ACLManager / KafkaConfig / KerberosUtils run commands in its Docker
    container; there is none here."""

    def __init__(self, what):
        self._what = what

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise StandInError("%s: aiokafka's fixture runs commands inside its Docker Kafka "
                           "container (ZooKeeper-based tooling); this run's broker is the "
                           "harness's KRaft broker, with no such container" % self._what)


@pytest.fixture(scope="session")
def docker():
    yield None


@pytest.fixture(scope="session")
def kafka_image():
    return "harness:%s" % _broker()["kafka_version"]


@pytest.fixture(scope="session")
def kafka_server():
    b = _broker()
    return KafkaServer(b["host"], b["port"], b["ssl_port"], b.get("sasl_plain_port"),
                       b.get("sasl_ssl_port"))


@pytest.fixture(scope="session")
def ssl_folder():
    return pathlib.Path(_broker()["ssl_folder"])


@pytest.fixture(scope="class")
def acl_manager(kafka_server):
    return _ContainerTool("acl_manager")


@pytest.fixture(scope="class")
def kafka_config(kafka_server):
    return _ContainerTool("kafka_config")


@pytest.fixture(scope="class")
def kerberos_utils(kafka_server):
    return _ContainerTool("kerberos_utils")


@pytest.fixture(scope="session")
def docker_ip_address():
    return "127.0.0.1"


@pytest.fixture(scope="session")
def unused_port():
    def factory():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    return factory


@pytest.fixture(scope="session")
def session_id():
    return str(uuid.uuid4())


@pytest.fixture(scope="class")
def loop(request):
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    if not loop.is_closed():
        loop.call_soon(loop.stop)
        loop.run_forever()
        loop.close()
    gc.collect()
    asyncio.set_event_loop(None)


@pytest.fixture(autouse=True)
def collect_garbage():
    yield
    gc.collect()


@pytest.fixture(scope="class")
def setup_test_class_serverless(request, loop):
    request.cls.loop = loop


@pytest.fixture(scope="class")
def setup_test_class(request, loop, kafka_server, ssl_folder, acl_manager, kerberos_utils,
                     kafka_config):
    cls = request.cls
    cls.loop = loop
    cls.kafka_host = kafka_server.host
    cls.kafka_port = kafka_server.port
    cls.kafka_ssl_port = kafka_server.ssl_port
    cls.kafka_sasl_plain_port = kafka_server.sasl_plain_port
    cls.kafka_sasl_ssl_port = kafka_server.sasl_ssl_port
    cls.ssl_folder = ssl_folder
    cls.acl_manager = acl_manager
    cls.kerberos_utils = kerberos_utils
    cls.kafka_config = kafka_config
    cls.hosts = kafka_server.hosts
    cls.kafka_version = _broker()["kafka_version"]


# -- aiokafka's test helper that reads its client's metadata ------------------------------------

async def _wait_topic(self, client, topic):
    """In place of ``KafkaIntegrationTestCase.wait_topic`` (``tests/_testutil.py``), which makes
    ``client`` (an ``AIOKafkaClient``) fetch ``topic``'s metadata through its internals
    (``add_topic``, ``force_metadata_update``, ``cluster.topics()``): the same wait (the topic
    exists, auto-created by the metadata request, and has partitions), through the public API
    (``AIOKafkaProducer.partitions_for``), in both runs."""
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=self.hosts)
    await producer.start()
    try:
        for _ in range(5):
            try:
                if await producer.partitions_for(topic):
                    return
            except Exception:  # noqa: BLE001  (not there yet: ask again, as aiokafka's does)
                pass
            await asyncio.sleep(1)
    finally:
        await producer.stop()
    raise AssertionError('No topic "%s" exists' % topic)


def _replace_wait_topic():
    testutil = sys.modules.get("tests._testutil")
    if testutil is not None and hasattr(testutil, "KafkaIntegrationTestCase"):
        testutil.KafkaIntegrationTestCase.wait_topic = _wait_topic


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    # the test modules (and aiokafka's tests/_testutil.py) have been imported by now
    _replace_wait_topic()


# -- options and registration -----------------------------------------------------------------

def pytest_addoption(parser):
    parser.addoption("--aiokafka-ours", action="store_true",
                     help="alias aiokafka to confluent_binding.aiokafka (else: the installed "
                          "aiokafka, the control)")
    parser.addoption("--conformance-allowed", default=None,
                     help="with --aiokafka-ours: the allow-list to hold the run to")
    parser.addoption("--conformance-results", default=None,
                     help="append every test's outcome to this file (JSON lines); tests it "
                          "already names are not run again")


def pytest_configure(config):
    # before any test module (or aiokafka's tests/_testutil.py) imports aiokafka
    if config.getoption("--aiokafka-ours"):
        if "aiokafka" in sys.modules:
            raise pytest.UsageError("aiokafka was imported before its alias could be installed")
        import confluent_binding

        confluent_binding.install_as_aiokafka()
        _stand_in_for_internals()
        _assert_not_the_real_one()
        path = config.getoption("--conformance-allowed")
        if path:
            config.pluginmanager.register(
                AllowListHold(read_allowed(path), "aiokafka's own tests", _assert_not_the_real_one),
                "conformance-allowed")
    path = config.getoption("--conformance-results")
    if path:
        config.pluginmanager.register(Results(path), "conformance-results")
