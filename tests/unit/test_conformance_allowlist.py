"""tests/conformance/allowed.txt and allowed-integration.txt (the confluent-kafka tests
`make conformance` accepts as failing) are well formed, short, and explained: every key their
reasons use is described in the "Differences from confluent-kafka" section of
docs/guides/migrating-from-confluent-kafka.md, which also shows the last tally."""

import os
import re

from tests.conformance.allowlist import (
    AIOKAFKA_ALLOWED_FILE,
    INTEGRATION_ALLOWED_FILE,
    MAX_AIOKAFKA_ALLOWED,
    MAX_ALLOWED,
    MAX_INTEGRATION_ALLOWED,
    max_allowed,
    read_allowed,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUIDE = os.path.join(ROOT, "docs", "guides", "migrating-from-confluent-kafka.md")
AIOKAFKA_GUIDE = os.path.join(ROOT, "docs", "guides", "migrating-from-aiokafka.md")


def differences_section():
    with open(GUIDE, encoding="utf-8") as f:
        text = f.read()
    start = text.index("## Differences from confluent-kafka")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def test_allow_list_is_well_formed_and_short():
    allowed = read_allowed()
    assert 0 < len(allowed) <= MAX_ALLOWED
    for nodeid, (key, reason) in allowed.items():
        assert nodeid.startswith("tests/"), nodeid
        assert re.fullmatch(r"[a-z0-9-]+", key), key
        assert len(reason) > 20, (nodeid, reason)


def test_the_integration_allow_list_is_well_formed_and_short():
    allowed = read_allowed(INTEGRATION_ALLOWED_FILE)
    assert max_allowed(INTEGRATION_ALLOWED_FILE) == MAX_INTEGRATION_ALLOWED
    assert 0 < len(allowed) <= MAX_INTEGRATION_ALLOWED
    for nodeid, (key, reason) in allowed.items():
        assert nodeid.startswith("tests/integration/"), nodeid
        assert re.fullmatch(r"[a-z0-9-]+", key), key
        assert len(reason) > 20, (nodeid, reason)


def test_every_key_is_explained_in_the_readme():
    section = differences_section()
    explained = set(re.findall(r"^- `([a-z0-9-]+)`: ", section, re.M))
    used = {key for key, _ in read_allowed().values()}
    used |= {key for key, _ in read_allowed(INTEGRATION_ALLOWED_FILE).values()}
    assert used <= explained, "keys of allowed.txt missing in the guide: %s" % (used - explained)
    assert explained <= used, "guide keys no entry uses any more: %s" % (explained - used)


def test_the_guide_shows_the_last_tally_and_how_to_reproduce_it():
    section = differences_section()
    tally = re.search(r"Last tally: \*\*(\d+) passed / (\d+) allowed / (\d+) total\*\*", section)
    assert tally, "no tally in the guide's differences section"
    passed, allowed, total = map(int, tally.groups())
    assert passed + allowed <= total
    # an entry may cover several tests (every parametrization of a test function)
    entries = re.search(r"\((\d+) allow-list entries\)", section)
    listed = len(read_allowed())
    assert entries and int(entries.group(1)) == listed and allowed >= listed
    assert "make conformance CONFLUENT_KAFKA_SRC=" in section


def test_the_aiokafka_allow_list_is_well_formed_short_and_explained():
    """allowed-aiokafka.txt (`make conformance-aiokafka`) names only aiokafka's test files, and
    every key it uses is described in the aiokafka guide's section on aiokafka's own tests."""
    allowed = read_allowed(AIOKAFKA_ALLOWED_FILE)
    assert max_allowed(AIOKAFKA_ALLOWED_FILE) == MAX_AIOKAFKA_ALLOWED
    assert 0 < len(allowed) <= MAX_AIOKAFKA_ALLOWED
    for nodeid, (key, reason) in allowed.items():
        assert re.fullmatch(r"tests/test_\w+\.py::.+", nodeid), nodeid
        assert re.fullmatch(r"[a-z0-9-]+", key), key
        assert len(reason) > 20, (nodeid, reason)
    with open(AIOKAFKA_GUIDE, encoding="utf-8") as f:
        text = f.read()
    start = text.index("## aiokafka's own tests")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    explained = set(re.findall(r"^- `([a-z0-9-]+)`: ", section, re.M))
    assert {key for key, _ in allowed.values()} == explained
    assert "make conformance-aiokafka AIOKAFKA_SRC=" in section
