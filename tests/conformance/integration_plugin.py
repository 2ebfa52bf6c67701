"""A pytest plugin for the broker-backed run of confluent-kafka-python's tests
(``tests/integration/``), loaded into both of its pytest runs: the one against this package
(with ``conformance_plugin``, which aliases ``confluent_kafka``) and the control run against the
real confluent-kafka. It changes nothing a test checks; it only lets confluent's fixtures use
the cluster and registry that ``run_integration.py`` started:

- ``trivup`` (the cluster builder confluent's fixtures import) is not installed here: a stand-in
  module makes any fixture that asks for a cluster of its own (the SASL and OAUTHBEARER clusters,
  the registry at a pinned Confluent Platform version) fail at once, saying so. The plain
  ``kafka_cluster`` fixture takes the running cluster from ``BROKERS`` and ``SR_URL``.
- confluent's fixture for such a running cluster (``ByoFixture``) lacks the asyncio registry
  client its trivup twin has (``async_schema_registry()``, which the asyncio serializer tests
  use): it is supplied, made as the trivup fixture makes it.
- Every test's outcome (passed, failed, skipped, or allowed by the allow-list) goes to the file
  ``--conformance-results`` names, as it happens, with the failure's one-line summary, for the
  driver's table; a run over the same file resumes where the last one stopped.
"""

import json
import sys
import types

import pytest

_TRIVUP_MESSAGE = ("no trivup cluster in this run: confluent's fixture asked for a cluster of "
                   "its own (a SASL or OAUTHBEARER listener, or a registry at a pinned version); "
                   "only the cluster given by BROKERS and SR_URL is running")


class _NoTrivupCluster:
    def __init__(self, *args, **kwargs):
        raise RuntimeError(_TRIVUP_MESSAGE)


def _stand_in_for_trivup():
    try:
        import trivup.clusters.KafkaCluster  # noqa: F401
        return
    except ImportError:
        pass
    names = ("trivup", "trivup.clusters", "trivup.clusters.KafkaCluster")
    modules = {name: types.ModuleType(name) for name in names}
    modules["trivup"].clusters = modules["trivup.clusters"]
    modules["trivup.clusters"].KafkaCluster = modules["trivup.clusters.KafkaCluster"]
    modules["trivup.clusters.KafkaCluster"].KafkaCluster = _NoTrivupCluster
    for name, module in modules.items():
        module.__path__ = []  # a package, as far as the import system is concerned
        sys.modules[name] = module


def _complete_running_cluster_fixture():
    """Give confluent's ``ByoFixture`` the asyncio registry client its trivup fixture has."""
    module = sys.modules.get("tests.integration.cluster_fixture")
    if module is None or hasattr(module.ByoFixture, "async_schema_registry"):
        return

    def async_schema_registry(self, conf=None):
        if self._sr_url is None:
            raise RuntimeError("No Schema-registry available in Byo cluster")
        config = {"url": self._sr_url}
        config.update(conf or {})
        return module.AsyncSchemaRegistryClient(config)

    module.ByoFixture.async_schema_registry = async_schema_registry


def _summary(report):
    if isinstance(report.longrepr, tuple):  # a skip: (file, line, reason)
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else str(report.longrepr or "")
    lines = [line for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[0] if crash is not None else lines[-1]


class Results:
    """Appends one JSON line per event to ``--conformance-results``, as it happens (a run that
    hangs or dies keeps what it recorded): ``{"nodeid", "event"}`` with event ``start`` when a
    test begins, then per phase ``passed`` (of the call), ``failed``, ``skipped`` or ``allowed``
    (a failure the allow-list takes), with ``when`` and the failure's one-line ``summary``, and
    ``finish`` once its teardown is over. Tests
    the file already names are deselected, so a second run over the same file resumes the
    first."""

    def __init__(self, path):
        self.path = path
        self.done = set()
        try:
            with open(path, encoding="utf-8") as f:
                self.done = {json.loads(line)["nodeid"] for line in f if line.strip()}
        except FileNotFoundError:
            pass

    def _write(self, nodeid, event, when="", summary=""):
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"nodeid": nodeid, "event": event, "when": when,
                                "summary": summary}) + "\n")

    def pytest_collection_modifyitems(self, config, items):
        if not self.done:
            return
        keep = [item for item in items if item.nodeid not in self.done]
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in self.done])
        items[:] = keep

    @pytest.hookimpl(trylast=True)
    def pytest_collectreport(self, report):
        if report.failed:
            self._write(report.nodeid, "failed", "collect", _summary(report))
        elif report.skipped and "allowed (" in str(report.longrepr):
            self._write(report.nodeid, "allowed", "collect", str(report.longrepr[2]))

    def pytest_runtest_logstart(self, nodeid):
        self._write(nodeid, "start")

    def pytest_runtest_logfinish(self, nodeid):
        self._write(nodeid, "finish")

    def pytest_runtest_logreport(self, report):
        wasxfail = getattr(report, "wasxfail", "")
        if report.failed:
            self._write(report.nodeid, "failed", report.when, _summary(report))
        elif report.skipped and wasxfail.startswith("allowed ("):
            self._write(report.nodeid, "allowed", report.when, wasxfail)
        elif report.skipped:
            self._write(report.nodeid, "skipped", report.when, _summary(report))
        elif report.when == "call":
            self._write(report.nodeid, "passed", report.when)


def pytest_addoption(parser):
    parser.addoption("--conformance-results", default=None,
                     help="append every test's outcome to this file (JSON lines); tests it "
                          "already names are not run again")


# before confluent's conftest (which imports trivup) is loaded
_stand_in_for_trivup()


def pytest_configure(config):
    path = config.getoption("--conformance-results")
    if path:
        config.pluginmanager.register(Results(path), "conformance-results")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    # confluent's conftest (and its cluster fixture module) has been imported by now
    _complete_running_cluster_fixture()
