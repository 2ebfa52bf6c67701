"""The documentation site builds as `make docs` builds it: Sphinx, warnings as errors, every
internal reference resolved (-n), the API reference generated from the package's docstrings.

Also checks what the build cannot see by itself: every example script is shown on some page
(included from its file, so the page cannot drift from the tested script), and every public
module has its page.
"""
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


def test_every_example_is_included_in_a_page():
    included = set()
    for page in DOCS.rglob("*.md"):
        included.update(re.findall(r"\{literalinclude\}\s+\S*examples/(\w+\.py)", page.read_text()))
    scripts = {p.name for p in (ROOT / "examples").glob("*.py")}
    assert scripts - included == set()
