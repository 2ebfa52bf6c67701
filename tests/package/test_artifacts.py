"""The artifacts users install, as `make wheel` leaves them in dist/: the repaired wheel stands
alone in a fresh virtualenv, the sdist carries what a build needs and installs with pip.

Both installs run standalone_check.py with the fresh environment's interpreter from an empty
directory, against the real brokers of the test session (PLAINTEXT, SSL, SASL/SCRAM, SASL_SSL).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import uuid
import zipfile
from pathlib import Path

import pytest

from confluent_binding import build_info

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
CHECK = Path(__file__).with_name("standalone_check.py")
TAG = "cp%d%d" % sys.version_info[:2]


def _pin(key):
    for line in (ROOT / "librdkafka-build" / "VERSION").read_text().splitlines():
        if line.startswith(key + "="):
            return line.split("=", 1)[1]
    raise KeyError(key)


def _artifact(pattern):
    found = sorted(DIST.glob(pattern))
    if len(found) != 1:
        pytest.fail("expected one dist/%s, found %s: run `make wheel`" % (pattern, found),
                    pytrace=False)
    return found[0]


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "RDKAFKA_PREFIX")}
    env.update(PYTHONNOUSERSITE="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def _run(cmd, timeout=600, **kw):
    kw.setdefault("stderr", subprocess.PIPE)
    proc = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, text=True,
                          timeout=timeout, **kw)
    assert proc.returncode == 0, "%s failed (%d):\n%s\n%s" % (
        " ".join(map(str, cmd)), proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:])
    return proc.stdout


def _fresh_venv(path):
    _run([sys.executable, "-m", "venv", path], env=_env())
    return path / ("Scripts" if os.name == "nt" else "bin") / "python"


def _standalone_check(python, tmp_path, clusters):
    """Runs the check from an empty directory in isolated mode (-I: no PYTHONPATH, no user site,
    no current directory on sys.path)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    script = run_dir / CHECK.name
    shutil.copy(CHECK, script)
    (run_dir / "clusters.json").write_text(json.dumps(clusters))
    out = _run([python, "-I", script, "--expect-libversion", _pin("LIBRDKAFKA_VERSION"),
                "--clusters", run_dir / "clusters.json", "--forbid", ROOT],
               cwd=run_dir, env=_env())
    assert "standalone check passed" in out, out
    return out


def _listener(cluster, name, config):
    topic = cluster.create_topic("standalone-%s-%s" % (name, uuid.uuid4().hex[:8]), partitions=3)
    return {"config": config, "topic": topic}


def test_wheel_stands_alone(tmp_path, secure_cluster):
    wheel = _artifact("confluent_binding-*-%s-%s-*.whl" % (TAG, TAG))
    assert "manylinux_" in wheel.name or sys.platform != "linux", wheel.name
    shown = _run([sys.executable, "-m", "auditwheel", "show", wheel])
    assert "external shared libraries" not in shown, shown
    shown = " ".join(shown.split())
    assert 'consistent with the following platform tag: "manylinux_' in shown, shown

    python = _fresh_venv(tmp_path / "venv")
    _run([python, "-m", "pip", "install", "--no-index", "--no-deps", wheel], env=_env())
    c = secure_cluster
    clusters = {
        "PLAINTEXT": _listener(c, "plaintext", c.client_config()),
        "SSL": _listener(c, "ssl", c.ssl_client_config()),
        "SASL_PLAINTEXT SCRAM-SHA-512": _listener(
            c, "scram", c.sasl_client_config("SCRAM-SHA-512")),
        "SASL_SSL SCRAM-SHA-256": _listener(
            c, "sasl-ssl", c.sasl_ssl_client_config("SCRAM-SHA-256", "alice")),
    }
    out = _standalone_check(python, tmp_path, clusters)
    # the wheel is built as the tree's extension (CB_PUBLIC_API_ONLY: tests/legs.txt)
    want = "internal, read-ahead on" if build_info()["read_ahead"] else "public, read-ahead off"
    assert "build: librdkafka API " + want in out, out
    for name in clusters:
        assert "ok   %s: consumed what the delivery reports said (50 records)" % name in out, out


def test_wheel_installs_the_alias_pth(tmp_path):
    """The wheel puts confluent_binding_alias.pth at the top of site-packages: in a fresh
    virtualenv (without confluent-kafka), CONFLUENT_BINDING_AS=confluent_kafka makes
    ``import confluent_kafka`` this package; without the variable the file imports nothing."""
    wheel = _artifact("confluent_binding-*-%s-%s-*.whl" % (TAG, TAG))
    with zipfile.ZipFile(wheel) as zf:
        assert zf.read("confluent_binding_alias.pth") == (ROOT / "confluent_binding_alias.pth"
                                                          ).read_bytes()
    python = _fresh_venv(tmp_path / "venv")
    _run([python, "-m", "pip", "install", "--no-index", "--no-deps", wheel], env=_env())
    show = ("import json, sys\n"
            "loaded = 'confluent_binding' in sys.modules\n"
            "try:\n"
            "    import confluent_kafka, confluent_kafka.admin\n"
            "    name = confluent_kafka.admin.AdminClient.__module__\n"
            "except ImportError as exc:\n"
            "    name = str(exc)\n"
            "print(json.dumps([loaded, name]))\n")
    out = _run([python, "-c", show], cwd=tmp_path, env=_env())
    assert json.loads(out) == [False, "No module named 'confluent_kafka'"]
    out = _run([python, "-c", show], cwd=tmp_path,
               env=_env(CONFLUENT_BINDING_AS="confluent_kafka"))
    assert json.loads(out) == [True, "confluent_binding.admin._client"]


SDIST_MUST_HAVE = ["pyproject.toml", "setup.py", "MANIFEST.in", "LICENSE", "CHANGELOG.md",
                   "README.md", "src/_core.pyx", "src/includes/rdkafka.pxd",
                   "src/includes/rdkafka_fast.h", "confluent_binding/_core.pxd",
                   "librdkafka-build/VERSION", "librdkafka-build/build.sh",
                   "librdkafka-build/lib.sh", "licenses/librdkafka-LICENSES.txt",
                   "licenses/openssl-LICENSE.txt", "licenses/curl-COPYING",
                   "licenses/zlib-LICENSE", "licenses/zstd-LICENSE",
                   "confluent_binding/__init__.py", "confluent_binding/_version.py",
                   "confluent_binding_alias.pth", "tests/package/standalone_check.py"]


def test_sdist_carries_the_sources_and_no_build_products():
    sdist = _artifact("confluent_binding-*.tar.gz")
    with tarfile.open(sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    missing = [n for n in SDIST_MUST_HAVE if n not in names]
    assert not missing, missing
    # every Cython source and header of the compiled part
    tracked = subprocess.run(["git", "ls-files", "src"], cwd=ROOT, capture_output=True,
                             text=True).stdout.split()
    assert tracked and not [f for f in tracked if f not in names]
    built = [n for n in names
             if n.endswith((".so", ".c", ".a", ".o")) and not n.startswith("bench/")
             or n.startswith(("librdkafka-build/static", "librdkafka-build/build/",
                              "librdkafka-build/downloads"))]
    assert not built, built


def test_sdist_metadata_needs_no_librdkafka(tmp_path):
    """Building an sdist from the unpacked sdist (metadata, file list) neither looks for nor
    builds librdkafka."""
    sdist = _artifact("confluent_binding-*.tar.gz")
    with tarfile.open(sdist) as tf:
        if hasattr(tarfile, "data_filter"):
            tf.extractall(tmp_path, filter="data")
        else:
            tf.extractall(tmp_path)
    tree = next(tmp_path.glob("confluent_binding-*"))
    out = _run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir",
                tmp_path / "out", tree], env=_env(PKG_CONFIG_PATH=str(tmp_path / "none")),
               timeout=300)
    assert "confluent_binding: librdkafka from" not in out, out
    assert "building the pinned one" not in out, out
    assert not (tree / "librdkafka-build" / "static").exists()
    assert len(list((tmp_path / "out").glob("*.tar.gz"))) == 1


def test_sdist_installs_with_pip(tmp_path, kafka_cluster):
    """pip builds the sdist in its isolated build environment (setuptools and Cython at the
    versions pinned for development) against the checkout's librdkafka build given as
    RDKAFKA_PREFIX, so that build is not repeated; without internal headers this is also the
    public-API build of src/includes/rdkafka_fast.h. (A build with no librdkafka at all runs
    the same build.sh that made RDKAFKA_PREFIX; CI does that on a bare image.)"""
    sdist = _artifact("confluent_binding-*.tar.gz")
    pins = [line for line in (ROOT / "requirements-dev.txt").read_text().splitlines()
            if line.lower().startswith(("setuptools==", "cython==", "wheel=="))]
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n")
    python = _fresh_venv(tmp_path / "venv")
    # CFLAGS=-O0 (after Python's -O3 on gcc's command line): what this proves does not depend
    # on the optimiser, and gcc compiles several times faster; the wheel tests above run the
    # optimised release build.
    out = _run([python, "-m", "pip", "install", "-v", "--no-cache-dir", sdist], timeout=900,
               env=_env(RDKAFKA_PREFIX=str(ROOT / "librdkafka-build" / "static"),
                        PIP_CONSTRAINT=str(constraints), CFLAGS="-O0"),
               stderr=subprocess.STDOUT)
    assert "librdkafka from RDKAFKA_PREFIX (static)" in out, out[-3000:]
    assert "librdkafka API: public" in out, out[-3000:]
    clusters = {"PLAINTEXT": _listener(kafka_cluster, "sdist", kafka_cluster.client_config())}
    out = _standalone_check(python, tmp_path, clusters)
    assert "build: librdkafka API public, read-ahead off" in out, out


# confluent-kafka's extras (its metadata's Provides-Extra) the package leaves out: its development
# tooling, not features of the client. Every other name is an extra of the package too.
CONFLUENT_KAFKA_DEVELOPMENT_EXTRAS = {"dev", "docs", "examples", "soaktest"}


def _wheel_dist_info(wheel, name):
    with zipfile.ZipFile(wheel) as zf:
        found = [n for n in zf.namelist()
                 if n.count("/") == 1 and n.split("/")[0].endswith(".dist-info")
                 and n.endswith("/" + name)]
        assert len(found) == 1, (name, found)
        return zf.read(found[0]).decode()


def test_wheel_metadata_has_confluent_kafka_extras_and_project_urls():
    import email.parser
    import importlib.metadata

    wheel = _artifact("confluent_binding-*-%s-%s-*.whl" % (TAG, TAG))
    meta = email.parser.Parser().parsestr(_wheel_dist_info(wheel, "METADATA"))
    ours = set(meta.get_all("Provides-Extra"))
    theirs = set(importlib.metadata.metadata("confluent-kafka").get_all("Provides-Extra"))
    assert theirs - ours == CONFLUENT_KAFKA_DEVELOPMENT_EXTRAS, sorted(theirs - ours)
    requires = meta.get_all("Requires-Dist")
    assert 'confluent_binding[schemaregistry]; extra == "schema-registry"' in requires, requires
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Documentation", "Source", "Changelog"} <= set(urls), urls
    assert all(u.startswith("https://") for u in urls.values()), urls
    assert urls["Changelog"].endswith("/CHANGELOG.md"), urls
    # the README as a package index shows it: every link absolute, those into the repository
    # to its Source address
    links = re.findall(r"\]\(([^)\s]+)\)", meta.get_payload())
    assert links and all(link.startswith("https://") for link in links), links
    assert urls["Source"] + "/blob/main/docs/index.md" in links, links


def _pip_dry_run(requirement, cwd):
    """pip's resolution of ``requirement`` (a wheel with extras) in this environment, offline:
    every dependency of the extras asked for is installed here (requirements-dev.txt)."""
    report = cwd / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--quiet",
         "--report", report, requirement],
        cwd=cwd, capture_output=True, text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "does not provide the extra" not in proc.stderr, proc.stderr
    return json.loads(report.read_text())


def test_wheel_installs_with_confluent_kafka_extras_names(tmp_path):
    """``pip install "<wheel>[schema-registry]"``, as a confluent-kafka requirements file says
    it, resolves to the package with its Schema Registry client's transport (httpx2 on 3.10+)."""
    wheel = _artifact("confluent_binding-*-%s-%s-*.whl" % (TAG, TAG))
    report = _pip_dry_run("%s[schema-registry,json-fast]" % wheel, tmp_path)
    ours = [i for i in report["install"] if i["metadata"]["name"] == "confluent_binding"]
    assert len(ours) == 1, report["install"]
    # (pip 24 also lists the extras these two stand for: json, schemaregistry; pip 23.0, the
    # venv's on 3.10, reports none, and _pip_dry_run's check of its warnings is the test there)
    assert {"json-fast", "schema-registry"} <= set(
        ours[0].get("requested_extras", ["json-fast", "schema-registry"]))


def test_readme_extras_line_works_as_written(tmp_path):
    """The README's install line for a wheel with extras, run by the shell as written (the glob
    expanded) in a directory holding the wheel; pip resolves without installing."""
    wheel = _artifact("confluent_binding-*-%s-%s-*.whl" % (TAG, TAG))
    lines = [line.split("#", 1)[0].strip()
             for line in (ROOT / "README.md").read_text().splitlines()
             if line.startswith("pip install") and ".whl" in line and "[" in line]
    assert len(lines) == 1, lines
    shutil.copy(wheel, tmp_path / wheel.name)
    script = ('pip() { "$PY" -m pip "$1" --dry-run --no-index --quiet --report report.json '
              '"${@:2}"; }\n' + lines[0] + "\n")
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=_env(PY=sys.executable))
    assert proc.returncode == 0, lines[0] + "\n" + proc.stdout + proc.stderr
    assert "does not provide the extra" not in proc.stderr, proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    ours = [i for i in report["install"] if i["metadata"]["name"] == "confluent_binding"]
    assert ours, report["install"]
    # (pip 23.0, the venv's on 3.10, reports no requested_extras: the warnings check above)
    assert sorted(ours[0].get("requested_extras", ["avro", "testing"])) == ["avro", "testing"]


_PLUGIN = "confluent_binding.testing.pytest_plugin"


@pytest.fixture(scope="module")
def wheel_site(tmp_path_factory):
    """The wheel unpacked (what installing it puts in site-packages), for PYTHONPATH."""
    wheel = _artifact("confluent_binding-*-%s-%s-*.whl" % (TAG, TAG))
    entry_points = _wheel_dist_info(wheel, "entry_points.txt")
    assert "[pytest11]\n%s = %s\n" % (_PLUGIN, _PLUGIN) in entry_points, entry_points
    site = tmp_path_factory.mktemp("wheel-site")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return site


@pytest.mark.parametrize("also_named", ["", "conftest and -p"])
def test_pytest_loads_the_plugin_from_the_wheel_without_p(tmp_path, wheel_site, also_named):
    """The wheel registers the pytest plugin (entry point pytest11): an environment with the
    package installed has its fixtures in every pytest run. A conftest.py's pytest_plugins or a
    -p naming the module as well (as tests/conftest.py does) is no second registration."""
    plugin = _PLUGIN
    site = wheel_site
    run = tmp_path / "run"
    run.mkdir()
    args = [sys.executable, "-m", "pytest", "--fixtures", "-p", "no:cacheprovider"]
    if also_named:
        (run / "conftest.py").write_text("pytest_plugins = [%r]\n" % plugin)
    if also_named.endswith("-p"):
        args += ["-p", plugin]
    show = "import confluent_binding.testing.pytest_plugin as p; print(p.__file__)"
    where = _run([sys.executable, "-c", show], cwd=run, env=_env(PYTHONPATH=str(site)))
    assert where.strip().startswith(str(site)), where
    out = _run(args, cwd=run, env=_env(PYTHONPATH=str(site)))
    for fixture in ("kafka_cluster", "make_topic", "topic"):
        assert len(re.findall(r"^%s(?: \[session scope\])? -- " % fixture, out, re.M)) == 1, out
