"""confluent-kafka-python's broker-backed tests (``tests/integration/``) against this package,
with the real confluent-kafka over the same tests as the control (``make conformance``).

    python tests/conformance/run_integration.py CONFLUENT_KAFKA_SRC [PATH ...] [-- PYTEST_ARGS]

For each of the two runs (ours first, then the control) this starts a fresh Kafka broker of
this repository's test harness (:class:`confluent_binding.testing.KafkaCluster`, Kafka 4.2: share
groups need it; with an authorizer, as confluent's admin tests create ACLs) with the broker
settings confluent's tests ask for (their ``TestUtils.broker_conf()``, read from the tests'
source), and a fresh Schema Registry (:class:`tests.support.schema_registry.SchemaRegistryServer`,
Apicurio Registry, with Confluent's default compatibility check, BACKWARD, set as its global
rule), hands them to confluent's fixtures as ``BROKERS`` and ``SR_URL``, and runs pytest from
CONFLUENT_KAFKA_SRC over PATHs (default ``tests/integration``):

- ours: through the ``confluent_kafka`` alias (``conformance_plugin``), held to
  ``allowed-integration.txt``: a failure it does not list fails the run;
- the control: the installed confluent-kafka, no alias, nothing held.

Both load ``integration_plugin``: it records each test's outcome as it happens; a pytest that
ends inside a test (hung past the timeout, or crashed) has that test counted as failed, and is
run again to resume after it. The end is a table per test file, ours beside the control, and
the tests that fail on ours but not on the control. The exit status is that of our run.
Kafka's ``kafka-configs.sh`` (confluent's throttle tests set client quotas with it) is given as
``$KAFKA_HOME/bin/kafka-configs.sh``, run from the broker's jars.
"""

import argparse
import ast
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from confluent_binding.testing import KafkaCluster, ensure_kafka_jars  # noqa: E402
from confluent_binding.testing._process import find_java  # noqa: E402

from tests.conformance.allowlist import INTEGRATION_ALLOWED_FILE  # noqa: E402
from tests.support.schema_registry import SchemaRegistryServer  # noqa: E402

KAFKA_VERSION = "4.2.0"
MAX_RESUMES = 5
DEFAULT_PATHS = ["tests/integration"]
PYTEST_OPTIONS = [
    "-p", "no:cacheprovider", "-p", "no:randomly", "--rootdir=.", "-q",
    # a test stuck inside the C library holds the main thread: only the thread method (a stack
    # dump, then the process ends) gets past it; the driver resumes after that test
    "--timeout=300", "--timeout-method=thread",
    "--continue-on-collection-errors", "-o", "asyncio_mode=auto",
    "-o", "asyncio_default_fixture_loop_scope=function",
    # confluent's tox.ini: test_* files only (tests/integration/integration_test.py is a script)
    "-o", "python_files=test_*.py",
    "-p", "integration_plugin",
]


def confluent_broker_conf(src):
    """The ``key=value`` list ``TestUtils.broker_conf()`` returns in confluent's
    ``tests/common/__init__.py``, read without importing it."""
    path = os.path.join(src, "tests", "common", "__init__.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "broker_conf":
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.Return) and stmt.value is not None:
                    entries = ast.literal_eval(stmt.value)
                    return dict(e.split("=", 1) for e in entries)
    raise SystemExit("no TestUtils.broker_conf() in %s" % path)


def kafka_home(workdir):
    """A directory whose bin/kafka-configs.sh runs Kafka's ConfigCommand from the broker jars."""
    home = os.path.join(workdir, "kafka-home")
    os.makedirs(os.path.join(home, "bin"), exist_ok=True)
    script = os.path.join(home, "bin", "kafka-configs.sh")
    libs = ensure_kafka_jars(KAFKA_VERSION)
    with open(script, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\nexec %s -Xmx256m -XX:TieredStopAtLevel=1 -cp %s "
                "kafka.admin.ConfigCommand \"$@\"\n"
                % (shlex.quote(find_java()), shlex.quote(str(libs / "*"))))
    os.chmod(script, 0o755)
    return home


def read_events(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def unfinished_test(events):
    """The test the run was in when its process ended (a hang that the timeout ended, or a
    crash): the last one started whose teardown was not reported."""
    started = [e["nodeid"] for e in events if e["event"] == "start"]
    if not started:
        return None
    last = started[-1]
    done = any(e["nodeid"] == last and e["event"] in ("finish", "process-ended") for e in events)
    return None if done else last


def outcomes_of(events):
    """``{node id: (outcome, summary)}``: ``failed`` if any phase failed, else ``allowed`` if
    the allow-list took a failure, else ``skipped``, else ``passed``."""
    rank = {"passed": 0, "skipped": 1, "allowed": 2, "failed": 3}
    outcomes = {}
    for e in events:
        event = "failed" if e["event"] == "process-ended" else e["event"]
        if event not in rank:
            continue
        old = outcomes.get(e["nodeid"])
        if old is None or rank[event] > rank[old[0]]:
            summary = e["summary"]
            if event == "failed":
                summary = "%s: %s" % (e["when"], summary)
            outcomes[e["nodeid"]] = (event, summary)
    return outcomes


def confluent_default_compatibility(url):
    """Confluent's registry checks new versions for BACKWARD compatibility unless told
    otherwise, and confluent's tests count on it; Apicurio checks nothing until a global rule
    is set: set it, through the same API."""
    request = urllib.request.Request(
        url + "/config", data=json.dumps({"compatibility": "BACKWARD"}).encode(), method="PUT",
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


def run_pytest(label, src, paths, extra, broker_conf, workdir, ours):
    """One run against a fresh broker and registry: (exit status, outcomes, seconds). A pytest
    process that ends inside a test (a hang the per-test timeout ends, or a crash) has that test
    recorded as failed, and the run resumes after it (at most MAX_RESUMES times)."""
    results = os.path.join(workdir, "%s.jsonl" % label)
    # acl: an authorizer (StandardAuthorizer; the plaintext clients are super users), as
    # confluent's admin tests create and describe ACLs
    cluster = KafkaCluster(version=KAFKA_VERSION, broker_properties=broker_conf, acl=True,
                           fast_startup=True, workdir=os.path.join(workdir, "kafka-" + label))
    registry = SchemaRegistryServer(workdir=os.path.join(workdir, "registry-" + label))
    t0 = time.monotonic()
    status = 0
    cluster.start(timeout=180)
    try:
        registry.start(timeout=180)
        try:
            confluent_default_compatibility(registry.url)
            env = dict(os.environ)
            env.update({
                "BROKERS": cluster.bootstrap_servers,
                "SR_URL": registry.url,
                "KAFKA_HOME": kafka_home(workdir),
                "PYTHONPATH": os.pathsep.join(
                    [HERE] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
            })
            for name in ("BROKERS_7_0_1", "SR_URL_7_0_1"):
                env.pop(name, None)
            cmd = [sys.executable, "-m", "pytest", *PYTEST_OPTIONS,
                   "--conformance-results=%s" % results]
            if ours:
                cmd += ["-p", "conformance_plugin",
                        "--conformance-allowed=%s" % INTEGRATION_ALLOWED_FILE]
            cmd += [*paths, *extra]
            print("\n==== %s: %s (broker %s, registry %s)" % (
                label, "confluent_binding through the confluent_kafka alias" if ours
                else "the real confluent-kafka", cluster.bootstrap_servers, registry.url),
                flush=True)
            status = run_resuming(label, cmd, src, env, results)
        finally:
            registry.stop()
    finally:
        cluster.stop()
    return status, outcomes_of(read_events(results)), time.monotonic() - t0


def run_resuming(label, cmd, cwd, env, results):
    """Runs the pytest ``cmd``; when it ended inside a test (``results`` shows it started, not
    finished: a hang past --timeout, or a crash), that test is recorded as failed and pytest
    runs again, resuming after it (integration_plugin skips what is recorded), up to
    MAX_RESUMES times. Returns the first non-zero exit status (0 when every run passed)."""
    status = 0
    for _ in range(MAX_RESUMES + 1):
        code = subprocess.call(cmd, cwd=cwd, env=env)
        status = status or code
        stuck = unfinished_test(read_events(results))
        if stuck is None:
            break
        with open(results, "a", encoding="utf-8") as f:
            f.write(json.dumps({
                "nodeid": stuck, "event": "process-ended", "when": "process",
                "summary": "the pytest process ended in this test (exit status %d: a "
                           "hang past --timeout, or a crash); resuming after it" % code,
            }) + "\n")
        print("\n==== %s: pytest ended in %s; resuming after it" % (label, stuck), flush=True)
    return status


def tally(outcomes):
    per_file = defaultdict(lambda: defaultdict(int))
    for nodeid, (outcome, _) in outcomes.items():
        per_file[nodeid.split("::", 1)[0]][outcome] += 1
    return per_file


def cell(counts):
    if counts is None:
        return "-"
    failed = "%d" % counts["failed"]
    if counts["allowed"]:
        failed += "+%da" % counts["allowed"]
    return "%d/%s/%d" % (counts["passed"], failed, counts["skipped"])


def print_report(ours, control, seconds, statuses, title="tests/integration",
                 allowed_fail_on_control=True):
    ours_files, control_files = tally(ours), tally(control)
    files = sorted(set(ours_files) | set(control_files))
    width = max([len("file")] + [len(f) for f in files])
    print("\n==== %s, per file: passed/failed/skipped "
          "(ours: +Na = failures the allow-list takes)" % title)
    print("%-*s  %-14s  %-14s" % (width, "file", "ours", "control"))
    for f in files:
        print("%-*s  %-14s  %-14s" % (width, f, cell(ours_files.get(f)),
                                       cell(control_files.get(f))))
    total = [defaultdict(int), defaultdict(int)]
    for side, per_file in zip(total, (ours_files, control_files)):
        for counts in per_file.values():
            for k, v in counts.items():
                side[k] += v
    print("%-*s  %-14s  %-14s" % (width, "total", cell(total[0]), cell(total[1])))

    worse = sorted(n for n, (o, _) in ours.items()
                   if o == "failed" and control.get(n, ("",))[0] != "failed")
    both = sorted(n for n, (o, _) in ours.items()
                  if o in ("failed", "allowed") and control.get(n, ("",))[0] == "failed")
    allowed_but_passing = sorted(n for n, (o, _) in ours.items()
                                 if o == "allowed" and control.get(n, ("",))[0] != "failed")
    print("\n==== failing on ours, not on the control (%d)" % len(worse))
    for n in worse:
        print("%s  [control: %s]\n    %s" % (n, control.get(n, ("not run",))[0], ours[n][1]))
    print("\n==== failing on both (%d)" % len(both))
    for n in both:
        print("%s  [ours: %s]\n    control: %s" % (n, ours[n][0], control[n][1]))
    if allowed_but_passing and allowed_fail_on_control:
        print("\n==== allowed on ours, not failing on the control (%d)" % len(allowed_but_passing))
        for n in allowed_but_passing:
            print("%s  [control: %s]" % (n, control.get(n, ("not run",))[0]))
    print("\n==== pytest exit status: " + ", ".join("%s %s" % kv for kv in statuses.items()))
    print("==== wall time: " + ", ".join("%s %.0f s" % kv for kv in seconds.items()))


def split_argv(argv):
    """The driver's own arguments, and pytest's (those after ``--``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        return argv, []
    return argv[:argv.index("--")], argv[argv.index("--") + 1:]


def ours_and_control(run, prefix, control=True):
    """``run(label, workdir, ours)`` for ours, then (``control``) for the control, in one
    temporary directory: (exit statuses, our outcomes, the control's, seconds with the total)."""
    t0 = time.monotonic()
    seconds, statuses, outcomes = {}, {}, {"control": {}}
    with tempfile.TemporaryDirectory(prefix=prefix) as workdir:
        for label in ("ours", "control") if control else ("ours",):
            statuses[label], outcomes[label], seconds[label] = run(label, workdir,
                                                                   label == "ours")
    seconds["total"] = time.monotonic() - t0
    return statuses, outcomes["ours"], outcomes["control"], seconds


def main(argv=None):
    argv, extra = split_argv(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", help="confluent-kafka-python's checkout (or its tests/)")
    parser.add_argument("paths", nargs="*", help="relative to src (default: tests/integration)")
    parser.add_argument("--no-control", action="store_true",
                        help="run ours only, without the confluent-kafka control run")
    args = parser.parse_args(argv)
    src = os.path.abspath(args.src)
    paths = args.paths or DEFAULT_PATHS
    broker_conf = confluent_broker_conf(src)
    statuses, ours, control, seconds = ours_and_control(
        lambda label, workdir, ours: run_pytest(label, src, paths, extra, broker_conf, workdir,
                                                ours=ours),
        "conformance-integration-", control=not args.no_control)
    print_report(ours, control, seconds, statuses)
    return statuses["ours"]


if __name__ == "__main__":
    sys.exit(main())
