"""Every public name of confluent-kafka 2.16's modules exists in confluent_binding's, but for the
gaps tests/support/api_surface.py lists with their reasons; and the docs page's table is what
that module finds (generated at each docs build), so neither can drift silently."""

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka  # noqa: E402

from tests.support import api_surface  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "confluent-kafka-api.md"


@pytest.mark.parametrize("module", api_surface.MODULES)
def test_every_public_name_of_the_module_exists_here(module):
    [(name, theirs, missing)] = [row for row in api_surface.surface() if row[0] == module]
    assert theirs, "no public names found in %s" % module
    assert sorted(missing) == sorted(api_surface.GAPS.get(module, {})), (
        "names of %s missing here (or listed as gaps but present): update "
        "tests/support/api_surface.py's GAPS" % module)


def test_the_same_objects_under_confluents_names():
    # a name present is the thing confluent-kafka's is: the same object across our modules
    # where confluent's are the same object
    import confluent_binding
    import confluent_binding.cimpl
    import confluent_binding.error

    for name in ("Producer", "Consumer", "Message", "TopicPartition", "KafkaError",
                 "ShareConsumer", "murmur2"):
        assert getattr(confluent_kafka.cimpl, name) is getattr(confluent_kafka, name)
        assert getattr(confluent_binding.cimpl, name) is getattr(confluent_binding, name)
    assert confluent_binding.error.KafkaError is confluent_binding.KafkaError
    assert confluent_binding.error.Message is confluent_binding.Message


def test_type_aliases_equal_confluents():
    import confluent_kafka.serialization
    import confluent_kafka.serializing_producer

    import confluent_binding.serialization
    import confluent_binding.serializing_producer

    for ours, theirs in ((confluent_binding.serialization, confluent_kafka.serialization),
                         (confluent_binding.serializing_producer,
                          confluent_kafka.serializing_producer)):
        assert ours.HeadersType == theirs.HeadersType
    assert (confluent_binding.serializing_producer.DeliveryCallback
            == confluent_kafka.serializing_producer.DeliveryCallback)


SUBMODULES_LOADED = """
import importlib, json, sys, types
name = sys.argv[1]
module = importlib.import_module(name)
print(json.dumps(sorted(n for n, v in vars(module).items() if isinstance(v, types.ModuleType)
                        and v.__name__ == name + "." + n and not n.startswith("_"))))
"""


@pytest.mark.parametrize("package", ["confluent_kafka", "confluent_kafka.admin",
                                     "confluent_kafka.schema_registry",
                                     "confluent_kafka.schema_registry.common",
                                     "confluent_kafka.aio"])
def test_a_fresh_import_loads_confluents_submodules(package):
    """After ``import confluent_kafka`` alone, ``confluent_kafka.cimpl``, ``.error`` and the
    other submodules its import loads are attributes: code may use them without importing
    them. Each side in a fresh process (in this one, other tests have imported more)."""
    def loaded(name):
        out = subprocess.run([sys.executable, "-c", SUBMODULES_LOADED, name],
                             capture_output=True, text=True, timeout=120, check=True)
        return set(json.loads(out.stdout))

    theirs = loaded(package)
    assert loaded(api_surface.ours(package)) >= theirs


def test_every_module_of_confluent_kafka_is_accounted_for():
    modules = [m.name for m in pkgutil.walk_packages(confluent_kafka.__path__,
                                                     "confluent_kafka.")]
    public = [m for m in modules if not any(p.startswith("_") for p in m.split("."))]
    unaccounted = [m for m in public if m not in api_surface.MODULES + api_surface.PACKAGES
                   and not any(
        m == n or m.startswith(n + ".") for n in api_surface.NOT_MIRRORED_MODULES)]
    assert not unaccounted


def test_the_docs_page_shows_the_generated_table(tmp_path):
    assert "{include} ../_generated/api_surface.md" in PAGE.read_text()
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import generated
    finally:
        sys.path.remove(str(ROOT / "docs"))
    generated.write_all(tmp_path)
    assert (tmp_path / "api_surface.md").read_text() == api_surface.render()


def test_every_mirrored_module_imports_here():
    for module in api_surface.MODULES + api_surface.PACKAGES:
        importlib.import_module(api_surface.ours(module))
