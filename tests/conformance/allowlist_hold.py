"""The allow-list hold that ``make conformance`` and ``make conformance-aiokafka`` put on a
run of a peer's own tests against this package (conformance_plugin, aiokafka_plugin)."""

import importlib.machinery
import os
import sys

import pytest


def assert_no_module_of_the_real(package):
    """Fails when a module was imported from where the real ``package`` (the peer, installed
    beside this package) lives: the alias must have served every import."""
    spec = importlib.machinery.PathFinder.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return      # the peer is not installed
    real = os.path.realpath(list(spec.submodule_search_locations)[0]) + os.sep
    leaked = sorted(name for name, module in list(sys.modules.items())
                    if os.path.realpath(getattr(module, "__file__", None) or "").startswith(real))
    assert not leaked, "modules of the real %s were imported: %s" % (package, ", ".join(leaked))


class AllowListHold:
    """Holds a run of a peer's own tests to an allow-list (``allowlist.read_allowed``): a
    failure it lists becomes an ``allowed`` skip with its reason, any other fails the run, a
    listed test that passes is named as a stale entry; the tally at the end. ``check`` asserts
    that no module of the real peer package was imported (called after collection and at the
    end)."""

    def __init__(self, allowed, title, check):
        self.allowed = allowed
        self.title = title
        self.check = check
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
        self.check()

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
        self.check()

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
        tr.section("conformance to %s" % self.title)
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
