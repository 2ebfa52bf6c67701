"""The documentation site builds as `make docs` builds it: Sphinx, warnings as errors, every
internal reference resolved (-n), the API reference generated from the package's docstrings.

Also checks what the build cannot see by itself: every example script is shown on some page
(included from its file, so the page cannot drift from the tested script), every public
module has its page, every public name has a docstring (the compiled classes' in the stub too,
as IDEs read it), and the README is a front page whose links, speed figures and examples are
the repository's (its examples run against the real broker).
"""
import html
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))
import apigen  # noqa: E402

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("sphinx", reason="the site is built with Sphinx 9, for Python 3.11+")
    out = tmp_path_factory.mktemp("docs")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-n", "-W", "--keep-going", "-q",
         "-j", "auto", "-d", str(out / ".doctrees"), str(DOCS), str(out / "html")],
        cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, "the docs build failed:\n" + proc.stdout[-6000:]
    return out / "html"


def test_site_builds_without_warnings(site):
    assert (site / "index.html").is_file()
    assert (site / "api" / "index.html").is_file()


def test_every_public_module_has_a_page(site):
    modules = apigen.public_modules()
    assert "confluent_binding.aiokafka.producer" in modules   # the walk reaches subpackages
    missing = [m for m in modules if not (site / "api" / ("%s.html" % m)).is_file()]
    assert not missing


def test_api_pages_show_the_docstrings(site):
    page = (site / "api" / "confluent_binding.html").read_text()
    # The compiled Producer's own docstring and a method's signature are rendered.
    assert "Asynchronous Kafka producer" in page
    assert re.search(r'id="confluent_binding\.Producer\.produce"', page)
    # A compiled method's docstring (the extension's own, which help() shows) is rendered.
    offset_doc = inspect.getdoc(sys.modules["confluent_binding"].Message.offset)
    assert offset_doc
    assert " ".join(offset_doc.split()[2:8]) in " ".join(html.unescape(page).split())


@pytest.fixture(scope="module")
def docstring_counts():
    modules = apigen.public_modules()
    for name in modules:
        __import__(name)
    return apigen.undocumented(modules, apigen.homes(modules))


def test_every_public_name_has_a_docstring(docstring_counts):
    """Every public module, class, function, method and property of the package (each counted
    once, where the API reference describes it; the compiled classes' members in the
    extension or in its stub) has a docstring."""
    missing = ["%s: %s" % (module, name)
               for module, (_, _, names) in sorted(docstring_counts.items()) for name in names]
    assert missing == []


def test_the_stub_carries_the_compiled_docstrings():
    """What IDEs show for the compiled classes comes from ``_core.pyi``: every docstring the
    compiled module has is in the stub too, and the same."""
    assert apigen.stub_edits() == [], "run: make stubs"
    assert apigen.stub_mismatches() == [], \
        "the stub's and the compiled module's docstrings differ: make them the same"


def test_the_count_sees_a_missing_docstring():
    """The check itself: a class's undocumented method and documented property are told
    apart."""
    class Documented:
        """A class."""

        def bare(self):
            pass

        @property
        def described(self):
            """A property."""

    assert not apigen.has_doc(Documented.bare)
    assert apigen.has_doc(Documented.described)
    assert apigen.has_doc(Documented)


def test_every_example_is_included_in_a_page():
    included = set()
    for page in DOCS.rglob("*.md"):
        included.update(re.findall(r"\{literalinclude\}\s+\S*examples/(\w+\.py)", page.read_text()))
    scripts = {p.name for p in (ROOT / "examples").glob("*.py")}
    assert scripts - included == set()


# -- the README: a front page whose facts come from the repository ---------------------------

README = ROOT / "README.md"


def test_readme_is_a_front_page_with_the_two_commands_first():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    assert first_block.startswith("make demo ")
    assert "\nmake test " in first_block


def test_readme_links_point_to_files_of_the_repository():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    local = [link for link in links if "://" not in link]
    assert local, "the README links into the docs"
    assert [link for link in local if not (ROOT / link).exists()] == []


def test_readme_speed_ratios_are_the_last_benchmark_runs():
    import generated

    ratios = generated.speed_ratios()
    quoted = re.search(r"producing is \*\*([\d.]+)×\*\* confluent-kafka's rate without a callback "
                       r"and \*\*([\d.]+)×\*\* with a\s+per-message delivery callback; consuming "
                       r"with `poll\(\)` is \*\*([\d.]+)×\*\*", README.read_text())
    assert quoted, "the README's speed sentence changed: update this test"
    assert [float(x) for x in quoted.groups()] == \
        [round(ratios[w], 2) for w in ("P1", "P2", "C1")]


def readme_block(heading):
    """The first Python block under a README heading."""
    text = README.read_text()
    section = text[text.index("\n## %s\n" % heading):]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def run_readme_block(heading, kafka_cluster, topic):
    code = readme_block(heading).replace('"localhost:9092"', repr(kafka_cluster.bootstrap_servers))
    code = code.replace('"events"', repr(topic))
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


@pytest.mark.integration
def test_readme_first_producer_and_consumer_run(kafka_cluster, make_topic):
    if kafka_cluster.client_config() != {"bootstrap.servers": kafka_cluster.bootstrap_servers}:
        pytest.skip("the README's example takes bootstrap servers only")
    delivered, consumed = run_readme_block("A first producer and consumer", kafka_cluster,
                                           make_topic())
    assert delivered == "None 0 0"
    assert consumed.startswith("b'k1' b'hello' [('trace', b'42')] (1, ")


@pytest.mark.integration
def test_readme_asyncio_example_runs(kafka_cluster, make_topic):
    if kafka_cluster.client_config() != {"bootstrap.servers": kafka_cluster.bootstrap_servers}:
        pytest.skip("the README's example takes bootstrap servers only")
    assert run_readme_block("asyncio", kafka_cluster, make_topic()) == ["0 0", "b'k1' b'hello'"]
