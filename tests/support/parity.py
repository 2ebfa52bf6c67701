"""Running one scenario on confluent-kafka (the peer) and on confluent_binding: both must have the
outcome the test states, what it returned or the exception it raised (type and message, a
KafkaException's code and reason), and the two outcomes must be equal."""

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

import confluent_binding

peer = pytest.importorskip("confluent_kafka")

# What CPython's and Cython's argument parsers say differently about the same mistake, and the
# module a type is named by, are not differences between the two clients. Nor is the wording of
# CPython's parser, which changed between versions: it is brought to CPython 3.10-3.12's.
_NORMALIZE = [
    (re.compile(r"__init__\(\) got an unexpected keyword argument '(\w+)'"),
     r"'\1' is an invalid keyword argument for this function"),
    (re.compile(r"this function got an unexpected keyword argument '(\w+)'"),   # 3.13+
     r"'\1' is an invalid keyword argument for this function"),
    (re.compile(r"an integer is required \(got type (\w+)\)"),   # 3.9
     r"'\1' object cannot be interpreted as an integer"),
    (re.compile(r"integer argument expected, got float"),   # 3.9
     "'float' object cannot be interpreted as an integer"),
    (re.compile(r"(confluent_binding\._core|confluent_kafka\.cimpl|cimpl)\."), ""),
]


def normalize(text):
    """An exception message without the wording that differs by parser and Python version."""
    for pattern, repl in _NORMALIZE:
        text = pattern.sub(repl, text)
    return text


def _text(exc):
    return normalize(str(exc))


def _outcome(scenario, m):
    try:
        return ("returned", scenario(m))
    except Exception as exc:  # the outcome under comparison
        if isinstance(exc, m.KafkaException) and exc.args and isinstance(exc.args[0], m.KafkaError):
            err = exc.args[0]
            return ("raised", "KafkaException", err.code(), err.str())
        return ("raised", type(exc).__name__, _text(exc))


class Raises:
    """The exception a scenario must end with: its type (a class of either module, or its
    name), text its message contains (a KafkaException's reason), and a KafkaException's error
    code. The text is required: a scenario that fails for another reason, with the same type,
    is told apart by it."""

    def __init__(self, exc_type, text, code=None):
        self.name = exc_type if isinstance(exc_type, str) else exc_type.__name__
        self.text = text
        self.code = code

    def matches(self, outcome):
        if outcome[0] != "raised" or outcome[1] != self.name:
            return False
        if self.name == "KafkaException":
            return self.text in outcome[3] and self.code in (None, outcome[2])
        return self.text in outcome[2]

    def __repr__(self):
        return "Raises(%s, %r%s)" % (self.name, self.text,
                                     "" if self.code is None else ", code=%d" % self.code)


def same(scenario, expect):
    """Run ``scenario`` on the peer and on ours; assert both have the outcome ``expect`` states
    (the value returned, compared with ==, or a ``Raises``) and equal outcomes; return ours."""
    theirs = _outcome(scenario, peer)
    ours = _outcome(scenario, confluent_binding)
    assert ours == theirs, "ours: %r\nconfluent-kafka: %r" % (ours, theirs)
    _check(expect, ours, "both")
    return ours


def same_at_once(scenarios, expect):
    """``same(scenario, expect)`` for each of ``scenarios``, every run (each scenario on each
    client) on a thread of its own at once: for scenarios that wait out a fixed timeout."""
    with ThreadPoolExecutor(2 * len(scenarios)) as pool:
        runs = [(pool.submit(_outcome, s, peer), pool.submit(_outcome, s, confluent_binding))
                for s in scenarios]
        for theirs, ours in runs:
            assert ours.result() == theirs.result()
            _check(expect, ours.result(), "both")


def _check(expect, outcome, side):
    if isinstance(expect, Raises):
        assert expect.matches(outcome), "expected %r from %s, got %r" % (expect, side, outcome)
    else:
        assert outcome == ("returned", expect), \
            "expected %r returned by %s, got %r" % (expect, side, outcome)


def differs(scenario, ours, theirs):
    """An intended difference: run ``scenario`` on both and assert each has its own stated
    outcome (a value or a ``Raises``); return ours."""
    mine = _outcome(scenario, confluent_binding)
    _check(ours, mine, "confluent_binding")
    _check(theirs, _outcome(scenario, peer), "confluent-kafka")
    return mine
