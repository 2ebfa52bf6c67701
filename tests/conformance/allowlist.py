"""The allow-lists of `make conformance`, the confluent-kafka tests it accepts as failing:
tests/conformance/allowed.txt for the broker-less tests, allowed-integration.txt for
tests/integration/ (what needs a cluster or registry this run cannot start); and that of
`make conformance-aiokafka`, allowed-aiokafka.txt (aiokafka's tests that read its internals).
Read by the conformance plugins and checked by tests/unit/test_conformance_allowlist.py.
Imports nothing of the package (the plugins must install their alias first)."""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))
ALLOWED_FILE = os.path.join(_HERE, "allowed.txt")
MAX_ALLOWED = 10
INTEGRATION_ALLOWED_FILE = os.path.join(_HERE, "allowed-integration.txt")
MAX_INTEGRATION_ALLOWED = 25
AIOKAFKA_ALLOWED_FILE = os.path.join(_HERE, "allowed-aiokafka.txt")
MAX_AIOKAFKA_ALLOWED = 40


def max_allowed(path):
    """How many entries the allow-list at ``path`` may have."""
    if os.path.abspath(path) == INTEGRATION_ALLOWED_FILE:
        return MAX_INTEGRATION_ALLOWED
    if os.path.abspath(path) == AIOKAFKA_ALLOWED_FILE:
        return MAX_AIOKAFKA_ALLOWED
    return MAX_ALLOWED


def read_allowed(path=ALLOWED_FILE):
    """``{node id: (key, reason)}`` from an allow-list: one entry a line, ``node-id key: reason``;
    blank lines and lines starting with ``#`` are comments. A node id may name a test file (all
    its tests), a test function (all its parametrizations) or one parametrization."""
    allowed = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            nodeid, _, rest = line.partition(" ")
            key, sep, reason = rest.strip().partition(":")
            if not sep or not key.strip() or not reason.strip() or " " in key.strip():
                raise ValueError("%s:%d: expected 'node-id key: reason', got %r"
                                 % (path, number, line))
            if nodeid in allowed:
                raise ValueError("%s:%d: %s is listed twice" % (path, number, nodeid))
            allowed[nodeid] = (key.strip(), reason.strip())
    return allowed
