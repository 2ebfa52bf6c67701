"""Typed user programs (programs/: the blocking clients, the asyncio clients, the AdminClient, the
Schema Registry serdes) pass mypy --strict and pyright's strict mode as a user's code would: the
package read as installed, its own modules not judged. A wrong program fails both, at the lines
that are wrong. No broker: the programs are checked, never run.
"""
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

HERE = Path(__file__).resolve().parent
PROGRAMS = sorted((HERE / "programs").glob("*.py"))

_spec = importlib.util.spec_from_file_location("type_completeness", HERE / "type_completeness.py")
assert _spec is not None and _spec.loader is not None
type_completeness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(type_completeness)

WRONG = '''\
from typing import List, Optional

from confluent_binding import Consumer, Message
from confluent_binding.admin import AdminClient, NewTopic


def value_length(msg: Message[bytes, bytes]) -> int:
    return len(msg.value())  # WRONG: the value may be None


def key_text(msg: Message[str, bytes]) -> Optional[int]:
    return msg.key()  # WRONG: the key is a str


def topics(admin: AdminClient) -> List[int]:
    return list(admin.create_topics([NewTopic("t", 1)]))  # WRONG: keyed by topic name


def poll(consumer: Consumer) -> Message:
    return consumer.poll(1.0)  # WRONG: poll() may give None
'''


def _wrong_lines():
    return [i for i, line in enumerate(WRONG.splitlines(), 1) if "# WRONG" in line]


def _mypy(tmp_path, files):
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", str(tmp_path / "mypy-cache"), "--follow-imports=silent",
         "--python-version", "%d.%d" % sys.version_info[:2]] + [str(f) for f in files],
        capture_output=True, text=True, timeout=300, cwd=str(type_completeness.ROOT))
    return proc, [line for line in proc.stdout.splitlines() if ": error:" in line]


def _pyright(tmp_path, files):
    config = tmp_path / "pyrightconfig.json"
    config.write_text(json.dumps({"typeCheckingMode": "strict"}))
    proc = subprocess.run(
        type_completeness.pyright_command()
        + ["-p", str(config), "--outputjson"] + [str(f) for f in files],
        capture_output=True, text=True, timeout=300, cwd=str(type_completeness.ROOT),
        env=type_completeness.pyright_env())
    report = json.loads(proc.stdout)
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    return report, errors


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """One mypy run and one pyright run over the programs and a wrong one (programs/wrong.py
    is not a program: it is written to a temporary directory)."""
    tmp_path = tmp_path_factory.mktemp("typing")
    wrong = tmp_path / "wrong.py"
    wrong.write_text(WRONG)
    files = PROGRAMS + [wrong]
    return {"mypy": _mypy(tmp_path, files), "pyright": _pyright(tmp_path, files)}


def test_there_is_a_program_per_client():
    assert {p.stem for p in PROGRAMS} == {"sync_clients", "asyncio_clients", "admin_client",
                                          "serdes_clients"}


def test_typed_programs_pass_mypy_strict(checked):
    proc, errors = checked["mypy"]
    checked_files = "(checked %d source files)" % (len(PROGRAMS) + 1)
    assert checked_files in proc.stdout, proc.stdout + proc.stderr
    assert not [e for e in errors if "wrong.py:" not in e], proc.stdout + proc.stderr


def test_typed_programs_pass_pyright_strict(checked):
    report, errors = checked["pyright"]
    assert report["summary"]["filesAnalyzed"] == len(PROGRAMS) + 1, report["summary"]
    assert not [e for e in errors if not e["file"].endswith("wrong.py")], errors


def test_a_wrong_program_fails_mypy_at_each_wrong_line(checked):
    proc, errors = checked["mypy"]
    lines = sorted({int(re.match(r".*wrong\.py:(\d+):", e).group(1)) for e in errors
                    if "wrong.py:" in e})
    assert lines == _wrong_lines(), proc.stdout


def test_a_wrong_program_fails_pyright_at_each_wrong_line(checked):
    _, errors = checked["pyright"]
    lines = sorted({e["range"]["start"]["line"] + 1 for e in errors
                    if e["file"].endswith("wrong.py")})
    assert lines == _wrong_lines(), errors
