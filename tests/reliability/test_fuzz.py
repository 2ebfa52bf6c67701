"""Bad input never crashes or hangs the binding: property-based runs over configuration dicts
and every argument of produce, produce_batch, Message, TopicPartition, subscribe, assign,
commit, seek and consume (fuzz_worker.py), each in a child process so that a crash is a test
failure that names its input, not the end of the test run.

``FUZZ_SCALE`` multiplies the example counts (e.g. ``FUZZ_SCALE=10`` for a long run).
"""
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import confluent_binding

WORKER = Path(__file__).with_name("fuzz_worker.py")
SCALE = float(os.environ.get("FUZZ_SCALE", "1"))

# Examples per target in the default suite: 10,700 in all.
EXAMPLES = {
    "producer_config": 600,
    "consumer_config": 600,
    "produce": 2500,
    "produce_batch": 1500,
    "message": 2000,
    "topic_partition": 1500,
    "consumer": 2000,
}


@pytest.mark.parametrize("target", sorted(EXAMPLES))
def test_bad_input_raises_python_exceptions_only(target, tmp_path):
    examples = max(1, int(EXAMPLES[target] * SCALE))
    journal = tmp_path / "journal.txt"
    env = dict(os.environ)
    root = str(Path(confluent_binding.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    try:
        proc = subprocess.run([sys.executable, str(WORKER), target, str(examples), str(journal)],
                              capture_output=True, text=True, env=env,
                              timeout=60 + examples * 0.1)
    except subprocess.TimeoutExpired:
        pytest.fail("hang: %s did not finish; last input:\n%s" % (target, _last(journal)))
    if proc.returncode < 0:
        pytest.fail("crash: %s died of signal %d; last input:\n%s\nstderr tail:\n%s"
                    % (target, -proc.returncode, _last(journal), proc.stderr[-3000:]))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    outcomes = re.search(r"outcomes %s (.*)" % target, proc.stdout)
    assert outcomes, proc.stdout
    counts = dict(ast.literal_eval(outcomes.group(1)))
    # Both kinds of outcome were exercised: some calls were accepted, some refused.
    assert sum(counts.values()) >= examples
    assert counts.get("ok", 0) > 0 and len(counts) > 1, counts


def _last(journal):
    try:
        lines = journal.read_text().splitlines()
    except OSError:
        return "(no journal)"
    return lines[-1] if lines else "(no example started)"
