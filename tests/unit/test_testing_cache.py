"""The harness's cache of what Maven fetches or builds (confluent_binding.testing._jars: the Kafka
jars here, the suite's Schema Registry build the same way): Maven runs once, a completion stamp
written last marks the result, a stale or missing stamp runs it again, a failed run leaves no
result and says why. A stand-in ``mvn`` (a Python script) does what Maven would."""

import stat
import sys

import pytest

from confluent_binding.testing import KafkaJarsError, ensure_kafka_jars, find_kafka_jars

VERSION = "4.9.9"

# writes a kafka jar (named after its run) into -DoutputDirectory, counts its runs; exits with
# EXIT after printing a marker when EXIT is not 0
_FAKE_MVN = """#!{python}
import pathlib, sys
runs = pathlib.Path({runs!r})
n = int(runs.read_text()) + 1 if runs.exists() else 1
runs.write_text(str(n))
out = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("-DoutputDirectory=")][0]
if {exit_code}:
    print("maven-failed-marker", flush=True)
    sys.exit({exit_code})
pathlib.Path(out, "kafka_2.13-run%d.jar" % n).write_text("jar")
"""


def _fake_mvn(tmp_path, exit_code=0):
    script = tmp_path / ("mvn-%d" % exit_code)
    script.write_text(_FAKE_MVN.format(python=sys.executable, runs=str(tmp_path / "runs"),
                                       exit_code=exit_code))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def _runs(tmp_path):
    path = tmp_path / "runs"
    return int(path.read_text()) if path.exists() else 0


@pytest.fixture
def cache(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("CONFLUENT_BINDING_CACHE", str(path))
    return path


def test_maven_runs_once_and_the_stamp_marks_the_result(tmp_path, cache):
    mvn = _fake_mvn(tmp_path)
    assert find_kafka_jars(VERSION) is None
    libs = ensure_kafka_jars(VERSION, mvn=mvn)
    assert libs == cache / ("kafka-%s" % VERSION) / "libs"
    assert sorted(p.name for p in libs.iterdir()) == ["kafka_2.13-run1.jar"]
    assert _runs(tmp_path) == 1
    # found from now on, without Maven
    assert ensure_kafka_jars(VERSION, mvn=mvn) == libs
    assert find_kafka_jars(VERSION) == libs
    assert _runs(tmp_path) == 1
    # the temporary download directory went into place: nothing else is left
    assert sorted(p.name for p in libs.parent.iterdir()) == [".complete", "libs"]


def test_a_stale_stamp_fetches_again_and_replaces_the_result(tmp_path, cache):
    mvn = _fake_mvn(tmp_path)
    libs = ensure_kafka_jars(VERSION, mvn=mvn)
    (libs.parent / ".complete").write_text("kafka %s\npom sha256 of another pom\n" % VERSION)
    assert find_kafka_jars(VERSION) is None
    assert ensure_kafka_jars(VERSION, mvn=mvn) == libs
    assert _runs(tmp_path) == 2
    assert sorted(p.name for p in libs.iterdir()) == ["kafka_2.13-run2.jar"]
    assert find_kafka_jars(VERSION) == libs


def test_a_failed_run_leaves_no_result_and_says_why(tmp_path, cache):
    with pytest.raises(KafkaJarsError, match=r"(?s)fetching Kafka 4\.9\.9 jars with Maven "
                       r"failed \(exit 3\).*maven-failed-marker"):
        ensure_kafka_jars(VERSION, mvn=_fake_mvn(tmp_path, exit_code=3))
    base = cache / ("kafka-%s" % VERSION)
    assert list(base.iterdir()) == []   # no stamp, no libs, no temporary directory
    assert find_kafka_jars(VERSION) is None
    # the next call runs Maven again
    assert ensure_kafka_jars(VERSION, mvn=_fake_mvn(tmp_path)) == base / "libs"
    assert _runs(tmp_path) == 2


def test_without_maven_the_error_says_what_to_do(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(KafkaJarsError, match="'mvn'.*not on PATH.*KAFKA_BOOTSTRAP_SERVERS"):
        ensure_kafka_jars(VERSION)
    assert find_kafka_jars(VERSION) is None


# stands in for `mvn -f <work>/pom.xml package`: the runner jar and its lib/ under <work>/target
_FAKE_PACKAGE = """#!{python}
import pathlib, sys
target = pathlib.Path(sys.argv[sys.argv.index("-f") + 1]).parent / "target"
(target / "lib").mkdir(parents=True)
(target / "lib" / "dep.jar").write_text("dep")
(target / {runner!r}).write_text("runner")
"""


def test_the_schema_registry_build_is_cached_the_same_way(tmp_path, cache):
    from tests.support import schema_registry as sr

    mvn = tmp_path / "mvn-package"
    mvn.write_text(_FAKE_PACKAGE.format(python=sys.executable, runner=sr._RUNNER))
    mvn.chmod(mvn.stat().st_mode | stat.S_IXUSR)
    assert sr.find_schema_registry_app("9.9.9") is None
    runner = sr.ensure_schema_registry_app("9.9.9", mvn=str(mvn))
    app = cache / "apicurio-registry-9.9.9" / "app"
    assert runner == app / sr._RUNNER and runner.read_text() == "runner"
    assert (app / "lib" / "dep.jar").is_file()
    assert sorted(p.name for p in app.parent.iterdir()) == [".complete", "app"]
    mvn.unlink()   # found from now on, without Maven
    assert sr.ensure_schema_registry_app("9.9.9", mvn=str(mvn)) == runner
    assert sr.find_schema_registry_app("9.9.9") == runner
