"""tests/legs.txt, the one table of what runs where, and its readers: the CI workflow's matrix,
make matrix's legs, make lint's tools, the areas make test collects, the allow-list's
conditions."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import conftest
from tests.support import legs

ROOT = Path(__file__).resolve().parents[2]


def run_legs(*args):
    return subprocess.run([sys.executable, str(ROOT / "tests/support/legs.py"), *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_the_table_agrees_with_the_classifiers_and_the_workflow():
    table = legs.read()
    assert legs.check(table) == []
    # a public-API leg and a free-threaded leg are in it
    assert {leg.build for leg in table} == {"internal", "public"}
    assert any(leg.python.endswith("t") for leg in table)


def test_the_workflow_matrix_is_the_ci_legs():
    got = run_legs("github")
    assert got.returncode == 0, got.stderr
    matrix = json.loads(got.stdout)
    ci = [leg for leg in legs.read() if "ci" in leg.runs]
    assert matrix["include"] == [{"leg": leg.name, "python": leg.python,
                                  "public-api": leg.build == "public"} for leg in ci]
    workflow = (ROOT / ".github/workflows/test.yml").read_text()
    assert "matrix: ${{ fromJSON(needs.legs.outputs.matrix) }}" in workflow
    # the job tells the build which API to use from the leg
    assert "CB_PUBLIC_API_ONLY: ${{ matrix.public-api && '1' || '0' }}" in workflow


def test_make_matrix_takes_legs_or_pythons_and_refuses_others():
    got = run_legs("matrix", "3.12-public", "3.9")
    assert got.stdout.splitlines() == ["3.12-public 3.12 public ci", "3.9 3.9 internal ci"]
    everything = run_legs("matrix").stdout.splitlines()
    assert [line.split()[0] for line in everything] == [
        leg.name for leg in legs.read() if "matrix" in leg.runs]
    bad = run_legs("matrix", "2.7")
    assert bad.returncode == 2 and "no leg '2.7'" in bad.stderr


def test_lint_runs_this_legs_tools():
    got = run_legs("lint")
    leg = next(leg for leg in legs.read() if leg.python == legs.this_python())
    assert got.stdout.split() == list(leg.lint)
    # the Makefile runs each tool through lint_with, which names the ones left out
    dry = subprocess.run(["make", "-n", "--no-print-directory", "lint", "VENV=" + sys.prefix],
                         cwd=ROOT, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    for tool, command in (("ruff", "ruff check"), ("import-linter", "lint-imports"),
                          ("mypy", "/mypy"), ("types", "type_completeness.py")):
        assert (command in dry.stdout) == (tool in leg.lint), tool


@pytest.mark.parametrize("line, problem", [
    ("x | 3.9 | internal | ci | all", "want `leg | python"),
    ("x | 3.9x | internal | ci | all | all", "is not X.Y"),
    ("x | 3.9 | static | ci | all | all", "build 'static'"),
    ("x | 3.9 | internal | ci | all | unit sparks", "unknown area ['sparks']"),
    ("x | 3.9 | internal | ci | pylint | all", "unknown lint tool ['pylint']"),
])
def test_a_malformed_row_is_refused_with_its_line(tmp_path, line, problem):
    table = tmp_path / "legs.txt"
    table.write_text("# a comment\n\n%s\n" % line)
    with pytest.raises(ValueError, match=r"legs\.txt:3: .*" + re.escape(problem)):
        legs.read(table)


def test_the_check_names_a_version_no_leg_runs():
    table = [leg for leg in legs.read() if leg.python != "3.10"]
    assert legs.check(table) == [
        "pyproject.toml claims Python ['3.10'], which no ci leg runs"]
    extra = legs.read() + [legs.Leg("3.15", "3.15", "internal", ("ci",), ("ruff",), ())]
    assert legs.check(extra) == [
        "ci legs run Python ['3.15'], which pyproject.toml does not claim",
        "ci leg 3.15 runs no lint or no test area: make test runs both"]


def test_this_run_is_on_its_leg_and_collects_its_areas():
    leg = conftest.this_leg()
    assert leg is not None, "no row of tests/legs.txt for this CPython and build"
    assert leg.python == legs.this_python()
    tests = ROOT / "tests"
    for area, path in (("unit", tests / "unit"), ("spark", tests / "integration/spark"),
                       ("spark", tests / "integration/spark/test_spark_cluster.py"),
                       ("integration", tests / "integration/test_roundtrip.py"),
                       ("typing", tests / "typing")):
        assert conftest.area_of(path) == area
        assert conftest.leg_skips_area(path) == (area not in leg.areas)
    assert conftest.area_of(tests / "conftest.py") == "other"


def test_the_allow_lists_leg_conditions_name_areas_of_the_table():
    text = (ROOT / "tests/skips-allowed.txt").read_text()
    areas = set(re.findall(r"\|\s*leg without (\S+)\s*\|", text))
    assert areas and areas <= set(legs.AREAS)
    for area in areas:
        assert any(area not in leg.areas for leg in legs.read() if "ci" in leg.runs), area
