"""The type completeness of the package's public API, held to a floor that only goes up.

Runs ``pyright --verifytypes confluent_binding --ignoreexternal`` (pyright pinned in
requirements-dev.txt) and compares its completeness score with the floor in
type-completeness-floor.txt beside this file: below the floor fails. make lint runs it.

    python tests/typing/type_completeness.py            check against the floor
    python tests/typing/type_completeness.py --raise    check, then raise the floor to the score
    python tests/typing/type_completeness.py --peer     also print confluent-kafka's score

The package is installed editable (an import hook pyright does not follow), so the checkout is
put on the interpreter's path for pyright, which then reads the package as installed with its
py.typed.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLOOR_FILE = Path(__file__).resolve().parent / "type-completeness-floor.txt"


def pyright_env():
    """The environment pyright runs in: this interpreter first on PATH, the checkout on its
    path."""
    env = dict(os.environ)
    bindir = os.path.dirname(sys.executable)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                     else "")
    # the pinned pyright, offline: no look-up of a newer release (whose warning would also go
    # to stdout, in front of the JSON report)
    env["PYRIGHT_PYTHON_IGNORE_WARNINGS"] = "1"
    return env


def pyright_command():
    exe = os.path.join(os.path.dirname(sys.executable), "pyright")
    return [exe] if os.path.exists(exe) else [sys.executable, "-m", "pyright"]


def completeness(package):
    """(score in percent, counts of the exported symbols) of ``package``'s public API."""
    proc = subprocess.run(
        pyright_command() + ["--verifytypes", package, "--ignoreexternal", "--outputjson"],
        capture_output=True, text=True, cwd=str(ROOT), env=pyright_env(), timeout=600)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit("pyright gave no report:\n" + proc.stdout + proc.stderr) from None
    found = report["typeCompleteness"]
    if not found.get("pyTypedPath"):
        raise SystemExit(f"pyright did not find {package} as an installed typed package: "
                         + "; ".join(d["message"] for d in report.get("generalDiagnostics", [])))
    return round(100 * found["completenessScore"], 1), found["exportedSymbolCounts"]


def read_floor():
    for line in FLOOR_FILE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return float(line)
    raise SystemExit(f"{FLOOR_FILE.name}: no floor number")


def write_floor(score):
    lines = [line for line in FLOOR_FILE.read_text().splitlines() if line.startswith("#")]
    FLOOR_FILE.write_text("\n".join(lines + [f"{score:.1f}"]) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raise", dest="raise_floor", action="store_true",
                        help="raise the committed floor to the measured score")
    parser.add_argument("--peer", action="store_true",
                        help="also measure confluent-kafka's public API, for comparison")
    args = parser.parse_args(argv)
    score, counts = completeness("confluent_binding")
    floor = read_floor()
    print(f"type completeness of confluent_binding: {score:.1f} % (floor {floor:.1f} %; "
          f"{counts['withKnownType']} known, {counts['withAmbiguousType']} ambiguous, "
          f"{counts['withUnknownType']} unknown exported symbols)")
    if args.peer:
        peer, peer_counts = completeness("confluent_kafka")
        print(f"type completeness of confluent_kafka: {peer:.1f} % "
              f"({peer_counts['withKnownType']} known, {peer_counts['withAmbiguousType']} "
              f"ambiguous, {peer_counts['withUnknownType']} unknown exported symbols)")
    if score < floor:
        print(f"below the floor: annotate what pyright --verifytypes reports as unknown "
              f"(the floor, {FLOOR_FILE.name}, only goes up)", file=sys.stderr)
        return 1
    if args.raise_floor and score > floor:
        write_floor(score)
        print(f"floor raised to {score:.1f} %")
    elif score >= floor + 1:
        print(f"the score is {score - floor:.1f} points above the floor: raise it "
              f"({Path(__file__).name} --raise)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
