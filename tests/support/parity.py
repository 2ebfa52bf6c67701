"""Running one scenario on confluent-kafka (the peer) and on confluent_binding and comparing the
outcomes: what it returned, or the exception's type and message (a KafkaException's code and
reason)."""

import re

import pytest

import confluent_binding

peer = pytest.importorskip("confluent_kafka")

# What CPython's and Cython's argument parsers say differently about the same mistake, and the
# module a type is named by, are not differences between the two clients.
_NORMALIZE = [
    (re.compile(r"__init__\(\) got an unexpected keyword argument '(\w+)'"),
     r"'\1' is an invalid keyword argument for this function"),
    (re.compile(r"(confluent_binding\._core|confluent_kafka\.cimpl|cimpl)\."), ""),
]


def _text(exc):
    text = str(exc)
    for pattern, repl in _NORMALIZE:
        text = pattern.sub(repl, text)
    return text


def _outcome(scenario, m):
    try:
        return ("returned", scenario(m))
    except Exception as exc:  # the outcome under comparison
        if isinstance(exc, m.KafkaException) and exc.args and isinstance(exc.args[0], m.KafkaError):
            err = exc.args[0]
            return ("raised", "KafkaException", err.code(), err.str())
        return ("raised", type(exc).__name__, _text(exc))


def same(scenario):
    """Run ``scenario`` on the peer and on ours; assert equal outcomes; return ours."""
    theirs = _outcome(scenario, peer)
    ours = _outcome(scenario, confluent_binding)
    assert ours == theirs
    return ours
