"""The compiled core is the bottom layer: nothing in src/ imports a Python module of the package.

import-linter (make lint) reads only the package's .py files, so this reads the Cython sources
itself: every import statement in src/ (module level or inside a function, cimports too) names no
module of ``confluent_binding``, relative or absolute, nor reaches one through ``importlib``,
``__import__`` or ``sys.modules``. A second check loads the compiled module without the package's
``__init__`` and uses the parts that once imported upward (the keyword rule, the metadata types,
the share consumer's batch, the Arrow schema): no other module of the package gets loaded.
"""

import os
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src")
PACKAGE = "confluent_binding"

# import x / cimport x / from x import y / from x cimport y, at the start of a statement
_STATEMENT = re.compile(r"^\s*(?:(?:c?import)\s+(?P<names>[\w.]+(?:\s*,\s*[\w.]+)*)"
                        r"|from\s+(?P<module>\.*[\w.]*)\s+c?import\b)")
# dynamic imports: the package's name handed to the import machinery
_DYNAMIC = re.compile(r"(?:importlib|__import__|import_module|sys\.modules)")


def _code_lines(text):
    """(line number, line) of the lines that are code: outside triple-quoted strings, with
    comments cut off."""
    in_string = None
    for number, line in enumerate(text.splitlines(), 1):
        code, rest = [], line
        while rest:
            if in_string:
                end = rest.find(in_string)
                if end < 0:
                    rest = ""
                    continue
                rest, in_string = rest[end + 3:], None
                continue
            starts = [(rest.find(q), q) for q in ('"""', "'''") if rest.find(q) >= 0]
            cut = rest.find("#")
            if starts and (cut < 0 or min(starts)[0] < cut):
                at, quote = min(starts)
                code.append(rest[:at])
                rest, in_string = rest[at + 3:], quote
                continue
            code.append(rest if cut < 0 else rest[:cut])
            rest = ""
        yield number, "".join(code)


def upward_imports(text):
    """[(line number, what)] for every import in ``text`` (Cython source) that reaches the
    package."""
    found = []
    for number, line in _code_lines(text):
        match = _STATEMENT.match(line)
        if match:
            names = ([match.group("module")] if match.group("module") is not None
                     else [n.strip() for n in match.group("names").split(",")])
            for name in names:
                if name.startswith(".") or name == PACKAGE or name.startswith(PACKAGE + "."):
                    found.append((number, name))
        if _DYNAMIC.search(line) and PACKAGE in line:
            found.append((number, line.strip()))
    return found


def _sources():
    for folder, _, files in os.walk(SRC):
        for name in sorted(files):
            if name.endswith((".pyx", ".pxd", ".pxi")):
                yield os.path.join(folder, name)


def test_the_check_sees_every_kind_of_upward_import():
    source = textwrap.dedent('''
        """A docstring that shows ``from confluent_binding import Producer``."""
        from includes.rdkafka cimport rd_kafka_t
        # from confluent_binding._keywords import properties  (a comment)
        import os, confluent_binding._arrow as arrow
        from confluent_binding._keywords import properties

        def f():
            from confluent_binding.admin._metadata import (
                ClusterMetadata)
            from ._model import Messages
            from . import error
            cimport confluent_binding._core
            return importlib.import_module("confluent_binding._arrow")

        x = "import confluent_binding"
        y = sys.modules["confluent_binding.admin"]
        ''')
    assert upward_imports(source) == [
        (5, "confluent_binding._arrow"),
        (6, "confluent_binding._keywords"),
        (9, "confluent_binding.admin._metadata"),
        (11, "._model"),
        (12, "."),
        (13, "confluent_binding._core"),
        (14, 'return importlib.import_module("confluent_binding._arrow")'),
        (17, 'y = sys.modules["confluent_binding.admin"]'),
    ]


def upward_imports_in_src():
    """["path:line: what"] for every upward import in src/ (the check make lint runs too)."""
    sources = list(_sources())
    assert any(path.endswith("_core.pyx") for path in sources), SRC
    report = []
    for path in sources:
        with open(path, encoding="utf-8") as f:
            for number, what in upward_imports(f.read()):
                report.append("%s:%d: %s" % (os.path.relpath(path, ROOT), number, what))
    return report


def test_no_source_of_the_core_imports_the_package():
    report = upward_imports_in_src()
    assert not report, "the compiled core imports the package:\n" + "\n".join(report)


CHILD = textwrap.dedent("""
    import importlib.util, json, os, sys, types

    # The package as an empty shell: its __init__ (and so every Python module) is not run.
    spec = importlib.util.find_spec("confluent_binding")
    shell = types.ModuleType("confluent_binding")
    shell.__path__ = list(spec.submodule_search_locations)
    sys.modules["confluent_binding"] = shell
    import confluent_binding._core as core

    used = {}
    used["properties"] = core._properties({"bootstrap_servers": "h:1", "on_delivery": None})
    p = core.Producer({"socket.timeout.ms": 10}, bootstrap_servers="localhost:1")
    p.flush(0)
    batch = core.Messages._from_list([1, 2, 3])
    used["messages"] = [repr(batch[1:]), len(batch), batch.count(), batch.is_empty()]
    used["metadata"] = [repr(core.ClusterMetadata()), repr(core.TopicMetadata()),
                        repr(core.GroupMetadata())]
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        pass
    else:
        used["arrow"] = core._arrow_schema(True).names
    used["modules"] = sorted(m for m in sys.modules if m.split(".")[0] == "confluent_binding")
    print(json.dumps(used))
""")


def test_the_compiled_core_loads_and_works_without_the_package():
    import json

    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                           timeout=120, cwd=ROOT)
    assert child.returncode == 0, child.stderr
    used = json.loads(child.stdout)
    assert used["modules"] == ["confluent_binding", "confluent_binding._core"]
    assert used["properties"] == {"bootstrap.servers": "h:1", "on_delivery": None}
    assert used["messages"] == ["Messages([2, 3])", 3, 3, False]
    assert used["metadata"] == ["ClusterMetadata(None)", "TopicMetadata(None, 0 partitions)",
                                "GroupMetadata(None)"]
    if "arrow" in used:
        assert used["arrow"] == ["key", "value", "topic", "partition", "offset", "timestamp",
                                 "timestampType", "headers"]


@pytest.mark.parametrize("name", ["BrokerMetadata", "ClusterMetadata", "GroupMember",
                                  "GroupMetadata", "PartitionMetadata", "TopicMetadata"])
def test_the_package_names_the_cores_metadata_types(name):
    import confluent_binding._core as core
    from confluent_binding import admin
    from confluent_binding.admin import _metadata

    assert getattr(admin, name) is getattr(_metadata, name) is getattr(core, name)


def test_the_package_names_the_cores_rules_and_batch():
    import confluent_binding
    import confluent_binding._core as core
    from confluent_binding import _arrow, _keywords, _model

    assert _keywords.properties is core._properties
    assert _keywords.property_name is core._property_name
    assert _keywords.KEPT_AS_GIVEN is core._KEPT_AS_GIVEN
    assert confluent_binding.Messages is _model.Messages is core.Messages
    assert _arrow.schema is core._arrow_schema


if __name__ == "__main__":
    # make lint: the source check alone (no compiled module needed)
    found = upward_imports_in_src()
    for line in found:
        print(line)
    print("src/: %d import(s) of the package" % len(found))
    sys.exit(1 if found else 0)
