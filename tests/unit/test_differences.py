"""Every row of the table of intended differences (tests/support/differences.py) holds: its
scenario gives our stated outcome here and confluent-kafka's there, or its side-by-side test
exists; and the migration guide shows exactly the table."""
import re
from pathlib import Path

import pytest

from tests.support.differences import DIFFERENCES, render
from tests.support.parity import differs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("row", [d for d in DIFFERENCES if d.scenario is not None],
                         ids=lambda d: d.api)
def test_the_difference_holds(row):
    differs(row.scenario, row.ours, row.theirs)


@pytest.mark.parametrize("row", [d for d in DIFFERENCES if d.scenario is None],
                         ids=lambda d: d.api)
def test_the_test_that_shows_it_exists(row):
    assert row.proof, "%s: a row needs a scenario or a proof" % row.api
    path, name = row.proof.split("::")
    source = (ROOT / path).read_text()
    assert re.search(r"^(async )?def %s\(" % re.escape(name), source, re.M), row.proof


def test_the_guide_shows_the_table():
    guide = (ROOT / "docs/guides/migrating-from-confluent-kafka.md").read_text()
    assert "```{include} ../_generated/differences.md\n```" in guide
    assert len(render().splitlines()) == len(DIFFERENCES)
