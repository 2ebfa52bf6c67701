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

import sys

import pytest
from allowlist import ALLOWED_FILE, max_allowed, read_allowed
from allowlist_hold import AllowListHold, assert_no_module_of_the_real

import confluent_binding


def _assert_not_the_real_one():
    import confluent_kafka

    assert confluent_kafka is confluent_binding, (
        "confluent_kafka resolves to %r, not to confluent_binding" % (confluent_kafka,))
    assert_no_module_of_the_real("confluent_kafka")


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


def pytest_addoption(parser):
    parser.addoption("--conformance-allowed", default=ALLOWED_FILE,
                     help="the allow-list to hold the run to (default: allowed.txt)")


def pytest_configure(config):
    path = config.getoption("--conformance-allowed")
    allowed = read_allowed(path)
    if len(allowed) > max_allowed(path):
        raise pytest.UsageError("%s lists %d tests; at most %d may be allowed to fail"
                                % (path, len(allowed), max_allowed(path)))
    config.pluginmanager.register(
        AllowListHold(allowed, "confluent-kafka's own tests", _assert_not_the_real_one),
        "conformance")
