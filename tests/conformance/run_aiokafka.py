"""aiokafka's own API-level tests (``make conformance-aiokafka``) against this package's aiokafka
face, with the real aiokafka over the same tests as the control.

    python tests/conformance/run_aiokafka.py AIOKAFKA_SRC [FILE ...] [--no-control] [-- PYTEST_ARGS]

AIOKAFKA_SRC is a checkout of aiokafka (or a ``git archive`` of its ``tests/``) at the tag of the
installed aiokafka; FILEs are relative to it (default: those of :data:`DEFAULT_FILES` that
exist there). For each of the two runs (ours first, then the control) this starts a fresh Kafka
broker of this repository's harness (:class:`confluent_binding.testing.KafkaCluster`) with the
listeners aiokafka's Docker image has (PLAINTEXT, SSL with client certificates, SASL_PLAINTEXT
and SASL_SSL) and the broker settings its start script sets (two partitions a topic, topics
created on first use), and runs pytest from AIOKAFKA_SRC with ``--noconftest`` and
``aiokafka_plugin`` in place of aiokafka's Docker-based ``tests/conftest.py``:

- ours: through the ``aiokafka`` alias, held to ``allowed-aiokafka.txt`` (tests that can only
  pass on aiokafka's own internals): a failure it does not list fails the run;
- the control: the installed aiokafka, no alias, nothing held.

The pytest settings are aiokafka's own (its ``pyproject.toml``: asyncio auto mode, the ``ssl``
marker, warnings are errors). As in ``run_integration.py``, a pytest that ends inside a test (a
hang past the timeout, or a crash) has that test counted as failed and is run again to resume
after it. The end is a table per test file, ours beside the control, and the tests that fail
on ours but not on the control. The exit status is that of our run.
"""

import argparse
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from confluent_binding.testing import KafkaCluster  # noqa: E402

from tests.conformance.allowlist import AIOKAFKA_ALLOWED_FILE  # noqa: E402
from tests.conformance.run_integration import (  # noqa: E402
    ours_and_control,
    outcomes_of,
    print_report,
    read_events,
    run_resuming,
    split_argv,
)

KAFKA_VERSION = "4.2.0"
#: aiokafka's API-level test files (those that use only its public API, or mostly); the
#: protocol, record, connection, coordinator, fetcher and sender tests are left out
DEFAULT_FILES = [
    "tests/test_producer.py", "tests/test_consumer.py", "tests/test_pep492.py",
    "tests/test_transactional_producer.py", "tests/test_transactional_consumer.py",
    "tests/test_admin.py", "tests/test_partitioner.py", "tests/test_helpers.py",
]
#: what aiokafka's Docker image's start script sets (num.partitions from its conftest)
BROKER_PROPERTIES = {
    "num.partitions": "2",
    "auto.create.topics.enable": "true",
    "group.initial.rebalance.delay.ms": "0",
}
#: aiokafka's pytest settings (pyproject.toml), so that a tests/-only archive runs alike
PYTEST_INI = """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
markers =
    ssl: Tests that require SSL certificates to run
filterwarnings =
    error
    default:unclosed event loop:ResourceWarning
"""
PYTEST_OPTIONS = [
    "--noconftest", "-p", "aiokafka_plugin", "-p", "no:cacheprovider", "-p", "no:randomly",
    "-q", "--strict-markers",
    # a test stuck inside the C library holds the main thread: only the thread method gets
    # past it; the driver resumes after that test
    "--timeout=300", "--timeout-method=thread", "--continue-on-collection-errors",
]


def ssl_folder(cluster, workdir):
    """The harness's certificates under the names aiokafka's tests read."""
    folder = os.path.join(workdir, "ssl_cert")
    os.makedirs(folder, exist_ok=True)
    for source, name in ((cluster.certs.ca_cert, "ca.crt"),
                         (cluster.certs.client_cert, "client.crt"),
                         (cluster.certs.client_key, "client.key")):
        shutil.copyfile(str(source), os.path.join(folder, name))
    return folder


def run_pytest(label, src, paths, extra, workdir, ours):
    """One run against a fresh broker: (exit status, outcomes, seconds)."""
    results = os.path.join(workdir, "%s.jsonl" % label)
    ini = os.path.join(workdir, "pytest.ini")
    with open(ini, "w", encoding="utf-8") as f:
        f.write(PYTEST_INI)
    cluster = KafkaCluster(version=KAFKA_VERSION, ssl=True, sasl=True,
                           broker_properties=BROKER_PROPERTIES, fast_startup=True,
                           workdir=os.path.join(workdir, "kafka-" + label))
    t0 = time.monotonic()
    status = 0
    cluster.start(timeout=180)
    try:
        ports = {}
        for name, servers in (("port", cluster.bootstrap_servers),
                              ("ssl_port", cluster.ssl_bootstrap_servers),
                              ("sasl_plain_port", cluster.sasl_bootstrap_servers),
                              ("sasl_ssl_port", cluster.sasl_ssl_bootstrap_servers)):
            ports[name] = int(servers.split(",")[0].rsplit(":", 1)[1])
        broker = dict(ports, host="127.0.0.1", kafka_version=KAFKA_VERSION,
                      ssl_folder=ssl_folder(cluster, os.path.join(workdir, label)))
        env = dict(os.environ)
        env.pop("CONFLUENT_BINDING_AS", None)
        env.update({
            "AIOKAFKA_CONFORMANCE_BROKER": json.dumps(broker),
            "PYTHONPATH": os.pathsep.join(
                [HERE] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
        })
        cmd = [sys.executable, "-m", "pytest", "-c", ini, "--rootdir=.", *PYTEST_OPTIONS,
               "--conformance-results=%s" % results]
        if ours:
            cmd += ["--aiokafka-ours", "--conformance-allowed=%s" % AIOKAFKA_ALLOWED_FILE]
        cmd += [*paths, *extra]
        print("\n==== %s: %s (broker %s)" % (
            label, "confluent_binding through the aiokafka alias" if ours
            else "the real aiokafka", cluster.bootstrap_servers), flush=True)
        status = run_resuming(label, cmd, src, env, results)
    finally:
        cluster.stop()
    return status, outcomes_of(read_events(results)), time.monotonic() - t0


def main(argv=None):
    argv, extra = split_argv(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", help="aiokafka's checkout (or a git archive of its tests/)")
    parser.add_argument("files", nargs="*", help="relative to src (default: the API-level "
                                                 "test files that exist there)")
    parser.add_argument("--no-control", action="store_true",
                        help="run ours only, without the aiokafka control run")
    args = parser.parse_args(argv)
    src = os.path.abspath(args.src)
    files = args.files or [f for f in DEFAULT_FILES if os.path.exists(os.path.join(src, f))]
    if not files:
        raise SystemExit("no aiokafka test files under %s (expected %s)"
                         % (src, ", ".join(DEFAULT_FILES)))
    statuses, ours, control, seconds = ours_and_control(
        lambda label, workdir, ours: run_pytest(label, src, files, extra, workdir, ours=ours),
        "conformance-aiokafka-", control=not args.no_control)
    # the allow-list names tests of aiokafka's internals: they pass on the control
    print_report(ours, control, seconds, statuses, title="aiokafka's tests",
                 allowed_fail_on_control=False)
    return statuses["ours"]


if __name__ == "__main__":
    sys.exit(main())
