"""tests/conformance/allowed.txt, the confluent-kafka tests that `make conformance` accepts as
failing: read by the conformance plugin and checked by tests/unit/test_conformance_allowlist.py.
Imports nothing of the package (the plugin must install its alias first)."""

import os

ALLOWED_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "allowed.txt")
MAX_ALLOWED = 10


def read_allowed(path=ALLOWED_FILE):
    """``{node id: (key, reason)}`` from an allow-list: one entry a line, ``node-id key: reason``;
    blank lines and lines starting with ``#`` are comments."""
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
