"""A pytest plugin that runs confluent-kafka-python's own broker-less tests against this package:
``confluent_kafka`` is aliased to ``confluent_binding`` before anything is collected, and the
run is held to ``allowed.txt``, the failures we accept, each with its reason.

Loaded by ``make conformance`` (``-p conformance_plugin`` with this folder on ``PYTHONPATH``),
from the root of a checkout of confluent-kafka-python, so that node ids read
``tests/test_Producer.py::test_...`` as in ``allowed.txt``.

``--conformance-allowed=FILE`` takes another allow-list (``allowed-integration.txt`` for
``tests/integration/``).

- An unexpected failure (or error) fails the run, as usual.
- A failure ``allowed.txt`` lists is reported as ``xfail`` with its reason (a listed test whose
  own SIGINT escapes it fails instead of ending the run).
- A listed test that passes, or that was not collected, is a stale entry: the summary names it.
- The summary ends with the tally: passed / allowed / total.
"""

import importlib.machinery
import os
import sys

import pytest
from allowlist import ALLOWED_FILE, max_allowed, read_allowed

import confluent_binding


def _real_package_dir():
    """Where the real confluent-kafka is installed (None if it is not): no module may be loaded
    from there."""
    spec = importlib.machinery.PathFinder.find_spec("confluent_kafka")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.realpath(list(spec.submodule_search_locations)[0]) + os.sep


def _assert_not_the_real_one():
    import confluent_kafka

    assert confluent_kafka is confluent_binding, (
        "confluent_kafka resolves to %r, not to confluent_binding" % (confluent_kafka,))
    real = _real_package_dir()
    if real is None:
        return
    leaked = sorted(name for name, module in list(sys.modules.items())
                    if os.path.realpath(getattr(module, "__file__", None) or "").startswith(real))
    assert not leaked, "modules of the real confluent-kafka were imported: %s" % ", ".join(leaked)


# The Schema Registry tests mock HTTP with respx, which patches httpx.  confluent-kafka 2.16's
# transport (as ours) takes httpx2 where it is installed and httpx otherwise, so with httpx2
# installed respx mocks nothing, for confluent-kafka itself as for us: the run hides httpx2, and
# both select httpx, the library the tests were written against.
if sys.modules.get("httpx2") is not None:
    raise pytest.UsageError("httpx2 was imported before the conformance plugin could hide it")
sys.modules["httpx2"] = None  # type: ignore[assignment]  # (import httpx2 raises ImportError)

# Before the checkout's conftest files and test modules are imported.
confluent_binding.install_as_confluent_kafka()
_assert_not_the_real_one()


class Conformance:
    def __init__(self, allowed):
        self.allowed = allowed
        self.collected = set()
        self.passed = set()
        self.allowed_failed = set()
        self.failed = set()
        self.skipped = set()

    def entry(self, nodeid):
        """The allow-list entry that covers ``nodeid``: its own, that of its test function (an
        entry without a parametrization covers every one), that of its file, or None."""
        for key in (nodeid, nodeid.split("[", 1)[0], nodeid.split("::", 1)[0]):
            if key in self.allowed:
                return key
        return None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        self.collected |= {item.nodeid for item in items}
        _assert_not_the_real_one()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report):
        if not report.failed:
            return
        self.collected.add(report.nodeid)
        entry = self.entry(report.nodeid)
        if entry is not None:
            # a test file that cannot be imported, listed as a whole
            key, reason = self.allowed[entry]
            report.outcome = "skipped"
            report.longrepr = (report.nodeid, 0, "allowed (%s): %s" % (key, reason))
            self.allowed_failed.add(report.nodeid)
        else:
            self.failed.add(report.nodeid)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        outcome = yield
        excinfo = outcome.excinfo
        if (excinfo is not None and issubclass(excinfo[0], KeyboardInterrupt)
                and self.entry(item.nodeid) is not None):
            # A listed test whose own SIGINT escaped it (not the user's Ctrl-C): a failure of
            # that test, not the end of the run.
            outcome.force_exception(AssertionError("KeyboardInterrupt escaped the test"))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        nodeid = item.nodeid
        entry = self.entry(nodeid)
        if report.failed and entry is not None:
            key, reason = self.allowed[entry]
            report.outcome = "skipped"
            report.wasxfail = "allowed (%s): %s" % (key, reason)
            self.allowed_failed.add(nodeid)
        elif report.failed:
            self.failed.add(nodeid)
        elif report.skipped and not hasattr(report, "wasxfail"):
            self.skipped.add(nodeid)
        elif report.when == "call" and report.passed:
            self.passed.add(nodeid)

    def pytest_sessionfinish(self, session):
        _assert_not_the_real_one()

    def pytest_terminal_summary(self, terminalreporter):
        tr = terminalreporter
        passed = self.passed - self.failed - self.allowed_failed
        files = {n.split("::")[0] for n in self.collected}
        # An entry is stale when no test it covers failed: they passed, or none was collected
        # (an entry of a file this run did not select is not stale).
        used = {self.entry(n) for n in self.allowed_failed}
        covered = {}
        for n in self.collected:
            if self.entry(n) is not None:
                covered.setdefault(self.entry(n), []).append(n)
        stale = sorted(n for n in self.allowed if n not in used
                       and (any(c in passed for c in covered.get(n, ()))
                            or (n not in covered and n.split("::")[0] in files)))
        tr.section("conformance to confluent-kafka's own tests")
        for nodeid in stale:
            why = ("passes" if any(c in passed for c in covered.get(nodeid, ()))
                   else "was not collected")
            tr.write_line("stale allow-list entry (%s): %s" % (why, nodeid))
        for nodeid in sorted(self.failed):
            tr.write_line("unexpected failure: %s" % nodeid)
        tr.write_line("conformance: %d passed / %d allowed / %d total (%d failed, %d skipped, "
                      "%d stale allow-list entries)"
                      % (len(passed), len(self.allowed_failed), len(self.collected),
                         len(self.failed), len(self.skipped), len(stale)))


def pytest_addoption(parser):
    parser.addoption("--conformance-allowed", default=ALLOWED_FILE,
                     help="the allow-list to hold the run to (default: allowed.txt)")


def pytest_configure(config):
    path = config.getoption("--conformance-allowed")
    allowed = read_allowed(path)
    if len(allowed) > max_allowed(path):
        raise pytest.UsageError("%s lists %d tests; at most %d may be allowed to fail"
                                % (path, len(allowed), max_allowed(path)))
    config.pluginmanager.register(Conformance(allowed), "conformance")
