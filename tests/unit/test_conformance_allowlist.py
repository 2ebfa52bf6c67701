"""tests/conformance/allowed.txt (the confluent-kafka tests `make conformance` accepts as failing)
is well formed, short, and explained: every key its reasons use is described in the README's
"Differences from confluent-kafka" section, which also shows the last tally."""

import os
import re

from tests.conformance.allowlist import MAX_ALLOWED, read_allowed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def differences_section():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("## Differences from confluent-kafka")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_allow_list_is_well_formed_and_short():
    allowed = read_allowed()
    assert 0 < len(allowed) <= MAX_ALLOWED
    for nodeid, (key, reason) in allowed.items():
        assert nodeid.startswith("tests/"), nodeid
        assert re.fullmatch(r"[a-z0-9-]+", key), key
        assert len(reason) > 20, (nodeid, reason)


def test_every_key_is_explained_in_the_readme():
    section = differences_section()
    explained = set(re.findall(r"^- `([a-z0-9-]+)`: ", section, re.M))
    used = {key for key, _ in read_allowed().values()}
    assert used <= explained, "keys of allowed.txt missing in the README: %s" % (used - explained)
    assert explained <= used, "README keys no entry uses any more: %s" % (explained - used)


def test_readme_shows_the_last_tally_and_how_to_reproduce_it():
    section = differences_section()
    tally = re.search(r"Last tally: \*\*(\d+) passed / (\d+) allowed / (\d+) total\*\*", section)
    assert tally, "no tally in the README's differences section"
    passed, allowed, total = map(int, tally.groups())
    assert allowed <= len(read_allowed()) and passed + allowed <= total
    assert "make conformance CONFLUENT_KAFKA_SRC=" in section
