"""tests/legs.txt, what runs where: its reader, and the command line its other readers call.

    python tests/support/legs.py github        the CI test job's matrix, as JSON
    python tests/support/legs.py matrix [X...] make matrix's legs: `name python build ci|-` lines,
                                               of the `matrix` legs, or of the legs or pythons
                                               named
    python tests/support/legs.py lint          the lint tools of this CPython's leg (make lint)
    python tests/support/legs.py check         the table against pyproject.toml and the workflow

Standard library only, Python 3.9+: the workflow runs it on the runner's own Python.
"""

import json
import re
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "tests" / "legs.txt"

LINT_TOOLS = ("ruff", "cython-lint", "import-linter", "layering", "mypy", "types")
# in the suite's order (tests/conftest.py runs and reports them so)
AREAS = ("unit", "integration", "reliability", "package", "gssapi", "spark", "typing")
BUILDS = ("internal", "public")
RUNS = ("ci", "matrix")


class Leg(NamedTuple):
    name: str
    python: str              # "3.12", "3.13t"
    build: str               # "internal" or "public"
    runs: Tuple[str, ...]    # of RUNS
    lint: Tuple[str, ...]    # of LINT_TOOLS
    areas: Tuple[str, ...]   # of AREAS


def _names(text, allowed, what, where):
    if text == "all":
        return allowed
    if text == "-":
        return ()
    names = tuple(text.split())
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ValueError("%s: unknown %s %s (known: %s)" % (where, what, unknown,
                                                           " ".join(allowed)))
    return names


def read(path=TABLE):
    """The legs of the table, in its order; ValueError names the line of a malformed one."""
    legs = []
    for line_no, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = "%s:%d" % (path.name, line_no)
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 6 or not all(fields):
            raise ValueError("%s: want `leg | python | build | runs | lint | areas`, got %r"
                             % (where, line))
        name, python, build, runs, lint, areas = fields
        if not re.fullmatch(r"3\.\d+t?", python):
            raise ValueError("%s: python %r is not X.Y or X.Yt" % (where, python))
        if build not in BUILDS:
            raise ValueError("%s: build %r is not one of %s" % (where, build, BUILDS))
        legs.append(Leg(name, python, build, _names(runs, RUNS, "runs", where),
                        _names(lint, LINT_TOOLS, "lint tool", where),
                        _names(areas, AREAS, "area", where)))
    names = [leg.name for leg in legs]
    if len(set(names)) != len(names):
        raise ValueError("%s: a leg name appears twice" % path.name)
    return legs


def this_python():
    """This interpreter as the table names it: X.Y, X.Yt when free-threaded."""
    ft = "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
    return "%d.%d%s" % (sys.version_info[0], sys.version_info[1], ft)


def leg_of(python, build, legs=None) -> Optional[Leg]:
    """The leg of a CPython (X.Y / X.Yt) and a build, or None when the table has none."""
    return next((leg for leg in (legs if legs is not None else read())
                 if leg.python == python and leg.build == build), None)


def github_matrix(legs):
    """The CI test job's matrix: one entry per `ci` leg."""
    return {"include": [{"leg": leg.name, "python": leg.python,
                         "public-api": leg.build == "public"}
                        for leg in legs if "ci" in leg.runs]}


def check(legs):
    """What the table must agree with; returns the list of disagreements."""
    problems = []
    claimed = set(re.findall(r'"Programming Language :: Python :: (3\.\d+)"',
                             (ROOT / "pyproject.toml").read_text()))
    ci = {leg.python for leg in legs if "ci" in leg.runs}
    if claimed - ci:
        problems.append("pyproject.toml claims Python %s, which no ci leg runs"
                        % sorted(claimed - ci))
    if ci - claimed:
        problems.append("ci legs run Python %s, which pyproject.toml does not claim"
                        % sorted(ci - claimed))
    for leg in legs:
        if "ci" in leg.runs and not (leg.lint and leg.areas):
            problems.append("ci leg %s runs no lint or no test area: make test runs both"
                            % leg.name)
    workflow = (ROOT / ".github" / "workflows" / "test.yml").read_text()
    if "tests/support/legs.py github" not in workflow:
        problems.append(".github/workflows/test.yml does not take its matrix from "
                        "tests/support/legs.py github")
    return problems


def main(argv):
    legs = read()
    command = argv[0] if argv else ""
    if command == "github":
        print(json.dumps(github_matrix(legs), separators=(",", ":")))
    elif command == "matrix":
        chosen = [leg for leg in legs if "matrix" in leg.runs]
        if argv[1:]:   # a leg's name, or a python (its internal build's leg)
            chosen = []
            for want in argv[1:]:
                leg = next((leg for leg in legs if leg.name == want), None) \
                    or leg_of(want, "internal", legs)
                if leg is None:
                    print("tests/legs.txt has no leg %r" % want, file=sys.stderr)
                    return 2
                chosen.append(leg)
        for leg in chosen:
            print(leg.name, leg.python, leg.build, "ci" if "ci" in leg.runs else "-")
    elif command == "lint":
        # make lint: the tools of this CPython's leg (every tool where the table has none)
        python = this_python()
        leg = next((leg for leg in legs if leg.python == python), None)
        print(" ".join(leg.lint if leg is not None else LINT_TOOLS) or "none")
    elif command == "check":
        problems = check(legs)
        for problem in problems:
            print("tests/legs.txt: " + problem, file=sys.stderr)
        if problems:
            return 1
        print("tests/legs.txt: %d legs, agrees with pyproject.toml and the workflow" % len(legs))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
