"""The suite's shared fixtures and its rules for a run.

- Tests marked slow are deselected unless pytest runs with --slow.
- Order: the unit tests first, then the integration tests, the reliability tests, the package
  tests, the GSSAPI test and the Spark tests last; within each area the timing-sensitive tests
  (TIMING_SENSITIVE) first. A session-scoped server (the Kafka broker, the secure cluster, the
  Schema Registry, Spark's JVM, the Kerberos broker) stays up from its first user to the end of
  the run, so the tests that measure delays run before most of those JVMs load the machine.
- No silent skips: a skip, xfail or xpass that tests/skips-allowed.txt does not allow (for this
  configuration) is listed at the end of the output with its reason, and fails the run.
- The time spent per area (the sum of the tests' set-up, call and tear-down) is printed at the end.
- Under pytest-xdist (`make test` runs ``-n TEST_WORKERS --dist loadfile``, 3 workers by
  default) the suite's scheduler (tests/support/parallel.py) hands out whole files, or the
  groups of files in GROUPS, to the workers: the timing-sensitive tests first, alone, then the
  longest-running areas (PARALLEL_ORDER) first. Each worker starts the session-scoped servers
  its tests need; the controller, which receives every worker's reports, checks the skips and
  sums the times.
"""

import functools
import importlib.util
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from confluent_binding.testing import KafkaCluster

from tests.support import legs

pytest_plugins = ["confluent_binding.testing.pytest_plugin", "tests.support.schema_registry"]

TESTS_DIR = Path(__file__).resolve().parent
ALLOWED_SKIPS = TESTS_DIR / "skips-allowed.txt"

# The areas (a folder under tests/; tests/integration/spark is "spark"), in the suite's order.
AREAS = legs.AREAS

# Tests that assert a delay bound: (file under tests/, test function or None for the whole file).
TIMING_SENSITIVE = (
    ("unit/test_signals_gil.py", None),   # Ctrl-C leaves a blocking call within 0.5 s
    ("unit/test_lifecycle.py", "test_close_while_other_threads_wait"),   # close() within 1 s
    ("integration/test_aio.py", "test_loop_lag_under_a_produce_consume_storm"),   # step p99
    ("integration/test_aio.py", "test_poll_timeout_is_a_loop_timer"),
    ("integration/test_aio.py", "test_metadata_waits_do_not_block_the_loop"),
    ("integration/test_consumer_drop.py", None),  # consumers idle past max.poll.interval.ms
)

# Under pytest-xdist: folders (under tests/) whose files share an expensive session-scoped server,
# run by one worker as one unit, so that only one worker starts it.
GROUPS = (
    ("integration/spark/", "spark"),   # Spark's JVM, a standalone Spark cluster, three brokers
    ("gssapi/", "gssapi"),             # a KDC, a Kerberos broker, the extension built with GSSAPI
)
# The unit of the timing-sensitive tests, which runs before any other, on one worker.
TIMING_UNIT = "timing-sensitive"
# The order in which units go out to the workers: the areas with the longest-running units first,
# the many short unit-test files last, where they even out the workers' ends.
PARALLEL_ORDER = ("spark", "gssapi", "reliability", "package", "integration", "unit")


@pytest.fixture(scope="session")
def no_auto_create_cluster(tmp_path_factory):
    """A broker with ``auto.create.topics.enable=false``, as managed clusters are set up: a
    topic nobody created stays missing."""
    with KafkaCluster(broker_properties={"auto.create.topics.enable": "false"},
                      workdir=tmp_path_factory.mktemp("no-auto-create")) as c:
        yield c


@pytest.fixture(scope="session")
def secure_cluster(tmp_path_factory):
    """A second broker with SSL, SASL_PLAINTEXT and SASL_SSL listeners (PLAIN, SCRAM users)."""
    with KafkaCluster(ssl=True, sasl=True, workdir=tmp_path_factory.mktemp("secure")) as c:
        yield c


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="run the tests marked slow too (make reliability-long, make soak)")


def pytest_configure(config):
    config.pluginmanager.register(SuiteRules(config, read_allowed_skips(ALLOWED_SKIPS)),
                                  "suite-rules")


def pytest_ignore_collect(collection_path, config):
    """The areas this leg does not run (tests/legs.txt) are not collected."""
    if leg_skips_area(collection_path):
        return True
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """The suite's units and order for ``--dist loadfile`` (tests/support/parallel.py)."""
    if config.getoption("dist") != "loadfile":
        return None
    from tests.support.parallel import SuiteScheduling

    root = config.rootpath

    def rank(unit):
        area = area_of(root / unit) if unit.endswith(".py") else unit
        return PARALLEL_ORDER.index(area) if area in PARALLEL_ORDER else len(PARALLEL_ORDER)

    return SuiteScheduling(config, log, lambda nodeid: unit_of(root, nodeid), rank,
                           alone=TIMING_UNIT)


# ---- areas and order ----------------------------------------------------------------------------


def _relative(path):
    try:
        return Path(path).resolve().relative_to(TESTS_DIR).as_posix()
    except ValueError:
        return None


def area_of(path):
    """The area of a test file, or of a folder in one: its first folder under tests/ ("spark"
    for tests/integration/spark); "other" for the files directly in tests/."""
    rel = _relative(path)
    if rel is None or (Path(path).suffix == ".py" and "/" not in rel):
        return "other"
    if rel == "integration/spark" or rel.startswith("integration/spark/"):
        return "spark"
    return rel.split("/", 1)[0]


# ---- the leg: this CPython and build in tests/legs.txt ------------------------------------------


@functools.lru_cache(maxsize=None)
def this_leg():
    """The row of tests/legs.txt for this CPython and build, or None (every area runs)."""
    return legs.leg_of(legs.this_python(), _build_name())


def leg_skips_area(path):
    """Whether this leg's row leaves out the area of ``path`` (a test file or folder)."""
    area = area_of(path)
    return area in AREAS and _leg_without(area)


def _timing_sensitive(rel, name):
    return any(rel == file and func in (None, name) for file, func in TIMING_SENSITIVE)


def is_timing_sensitive(item):
    return _timing_sensitive(_relative(item.path), getattr(item, "originalname", item.name))


def unit_of(root, nodeid):
    """The unit of work a test belongs to under pytest-xdist: TIMING_UNIT, a group of GROUPS, or
    its file (the node id's path, relative to ``root``)."""
    path = nodeid.split("::", 1)[0]
    rel = _relative(root / path)
    if rel is not None:
        if _timing_sensitive(rel, nodeid.rsplit("::", 1)[-1].split("[", 1)[0]):
            return TIMING_UNIT
        for folder, group in GROUPS:
            if rel.startswith(folder):
                return group
    return path


def check_timing_sensitive_names(items):
    """Fails the run if an entry of TIMING_SENSITIVE names a test function that its (collected)
    module does not have: a renamed test would otherwise silently lose its place at the front."""
    modules = {_relative(item.path): item.module for item in items
               if getattr(item, "module", None) is not None}
    stale = [(file, func) for file, func in TIMING_SENSITIVE
             if file in modules and func is not None and not hasattr(modules[file], func)]
    if stale:
        raise pytest.UsageError(
            "tests/conftest.py TIMING_SENSITIVE names tests that do not exist: %s" % stale)


def _order_key(indexed):
    index, item = indexed
    area = area_of(item.path)
    rank = AREAS.index(area) if area in AREAS else len(AREAS)
    return rank, not is_timing_sensitive(item), index


# ---- the allow-list -----------------------------------------------------------------------------


def _importable(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _python_cmp(op, major, minor):
    here = sys.version_info[:2]
    want = (int(major), int(minor))
    return here < want if op == "<" else here >= want


def _build_name():
    from confluent_binding import build_info

    return build_info()["librdkafka_api"]


def _build_is(name):
    return _build_name() == name


def _leg_without(area):
    leg = this_leg()
    return leg is not None and area not in leg.areas


_CONDITIONS = (
    (re.compile(r"always"), lambda: True),
    (re.compile(r"build (internal|public)"), _build_is),
    (re.compile(r"leg without (\w+)"), _leg_without),
    (re.compile(r"python (<|>=) (\d+)\.(\d+)"), _python_cmp),
    (re.compile(r"platform (==|!=) (\S+)"),
     lambda op, name: (sys.platform == name) == (op == "==")),
    (re.compile(r"env (\w+)"), lambda name: bool(os.environ.get(name, "").strip())),
    (re.compile(r"importable ([\w.]+)"), _importable),
    (re.compile(r"not importable ([\w.]+)"), lambda name: not _importable(name)),
)


def _condition(text):
    for pattern, test in _CONDITIONS:
        m = pattern.fullmatch(text)
        if m:
            return lambda: test(*m.groups())
    return None


class AllowedSkip:
    def __init__(self, line_no, pattern, when, why):
        self.line_no, self.pattern, self.when, self.why = line_no, pattern, when, why
        self._regex = re.compile(".*".join(re.escape(part) for part in pattern.split("*")))
        self._holds = _condition(when)

    def allows(self, nodeid):
        return self._regex.fullmatch(nodeid) is not None and self._holds()


def read_allowed_skips(path):
    entries = []
    for line_no, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 3 or not all(fields):
            raise pytest.UsageError("%s:%d: want `node id pattern | when | why`, got %r"
                                    % (path, line_no, line))
        if _condition(fields[1]) is None:
            raise pytest.UsageError("%s:%d: unknown condition %r (see the file's header)"
                                    % (path, line_no, fields[1]))
        entries.append(AllowedSkip(line_no, *fields))
    return entries


def _skip_reason(report, root):
    if hasattr(report, "wasxfail"):
        return report.wasxfail or "(no reason given)"
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:   # (path, line, "Skipped: reason")
        where = Path(longrepr[0])
        if where.is_absolute() and where.is_relative_to(root):
            where = where.relative_to(root)
        return "%s (%s:%s)" % (longrepr[2], where.as_posix(), longrepr[1])
    return str(longrepr)


# ---- the session's rules ------------------------------------------------------------------------


class SuiteRules:
    """Order, the skip check and the time per area, for one session."""

    def __init__(self, config, allowed):
        self.config = config
        self.allowed = allowed
        self.unexpected = []   # (kind, node id, reason, report)
        self.accepted = []     # (kind, node id, reason, entry)
        self.seconds = defaultdict(float)
        self.tests = defaultdict(set)
        self.worker_seconds = defaultdict(float)   # under pytest-xdist: worker id -> seconds

    @pytest.hookimpl(trylast=True)   # after pytest's own reordering by fixture parameters
    def pytest_collection_modifyitems(self, config, items):
        if not config.getoption("--slow"):
            slow = [item for item in items if item.get_closest_marker("slow") is not None]
            if slow:
                config.hook.pytest_deselected(items=slow)
                items[:] = [item for item in items if item.get_closest_marker("slow") is None]
        check_timing_sensitive_names(items)
        items[:] = [item for _, item in sorted(enumerate(items), key=_order_key)]

    def _check(self, kind, report):
        reason = _skip_reason(report, self.config.rootpath)
        entry = next((e for e in self.allowed if e.allows(report.nodeid)), None)
        if entry is None:
            self.unexpected.append((kind, report.nodeid, reason, report))
        else:
            self.accepted.append((kind, report.nodeid, reason, entry))

    def pytest_collectreport(self, report):
        if report.skipped:
            self._check("skipped at collection", report)

    def pytest_runtest_logreport(self, report):
        # from the node id: under pytest-xdist the controller sees reports, not items
        area = area_of(self.config.rootpath / report.nodeid.split("::", 1)[0])
        self.seconds[area] += report.duration
        self.tests[area].add(report.nodeid)
        worker = getattr(report, "worker_id", None)
        if worker is not None:
            self.worker_seconds[worker] += report.duration
        if hasattr(report, "wasxfail"):
            if report.skipped:
                self._check("xfailed", report)
            elif report.passed and report.when == "call":
                self._check("xpassed", report)
        elif report.skipped:
            self._check("skipped", report)

    def pytest_sessionfinish(self, session, exitstatus):
        if self.unexpected and session.exitstatus in (pytest.ExitCode.OK,
                                                      pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        tr = terminalreporter
        if self.seconds:
            tr.section("time per area")
            order = sorted(self.seconds, key=lambda a: (AREAS.index(a) if a in AREAS
                                                        else len(AREAS), a))
            for area in order:
                tr.write_line("%-12s %5d tests %9.1f s" % (area, len(self.tests[area]),
                                                            self.seconds[area]))
            tr.write_line("%-12s %5d tests %9.1f s" % (
                "total", sum(len(t) for t in self.tests.values()), sum(self.seconds.values())))
            for worker in sorted(self.worker_seconds):
                tr.write_line("%-12s             %9.1f s busy" % (worker,
                                                                  self.worker_seconds[worker]))
        leg = this_leg()
        tr.write_line("leg (tests/legs.txt): %s" % (
            "none for CPython %s with the %s build: every area" % (
                legs.this_python(), _build_name()) if leg is None else
            "%s; areas not run here: %s" % (leg.name, " ".join(
                a for a in AREAS if a not in leg.areas) or "none")))
        if self.accepted:
            tr.section("skips allowed by tests/skips-allowed.txt")
            for kind, nodeid, reason, entry in self.accepted:
                tr.write_line("%s %s: %s [line %d, when %s: %s]"
                              % (kind, nodeid, reason, entry.line_no, entry.when, entry.why))
        if self.unexpected:
            tr.section("unexpected skips", red=True, bold=True)
            for kind, nodeid, reason, _ in self.unexpected:
                tr.write_line("%s %s: %s" % (kind.upper(), nodeid, reason), red=True)
            tr.write_line("%d skip/xfail/xpass not allowed by tests/skips-allowed.txt on this "
                          "configuration: the run fails. Make the test run here, or allow it "
                          "there with the configuration and the reason." % len(self.unexpected),
                          red=True, bold=True)
            # shown in the final "N passed, ..." line as well
            tr.stats.setdefault("unexpected skip/xfail", []).extend(
                report for _, _, _, report in self.unexpected)
