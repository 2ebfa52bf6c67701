"""The import aliases (confluent_binding/_alias.py), each in a fresh interpreter of this venv:
``install_as_confluent_kafka()`` / ``install_as_aiokafka()``, the ``confluent_binding_alias.pth``
file with and without ``CONFLUENT_BINDING_AS`` (processed as the interpreter processes
site-packages at start-up; the installed wheel's copy: tests/package/test_artifacts.py), and
``python -m confluent_binding run``. confluent-kafka itself is installed in this venv, so every
check also shows that the alias wins over it."""

import json
import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PTH = ROOT / "confluent_binding_alias.pth"
# Installed from a wheel (make matrix), not editable, the package has the file in site-packages
# too: with the variable set, the interpreter installs the aliases at start-up already.
PTH_INSTALLED = any((Path(d) / PTH.name).exists() for d in site.getsitepackages())


def run_python(code, *args, env=None, cwd=None, check=True):
    """Run ``code`` (or, with ``code=None``, just ``args``) in a fresh interpreter; its
    completed process."""
    environ = {k: v for k, v in os.environ.items() if k != "CONFLUENT_BINDING_AS"}
    environ.update(env or {})
    cmd = [sys.executable] + (["-c", textwrap.dedent(code)] if code is not None else [])
    cmd += list(args)
    proc = subprocess.run(cmd, env=environ, cwd=cwd, capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def last_json(proc):
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_install_as_confluent_kafka():
    proc = run_python("""
        import json, sys
        import confluent_binding
        confluent_binding.install_as_confluent_kafka()
        confluent_binding.install_as_confluent_kafka()      # twice is harmless
        assert "confluent_kafka" not in sys.modules          # nothing before it is imported
        import confluent_kafka
        from confluent_kafka.admin import AdminClient, NewTopic
        import confluent_kafka.schema_registry.avro
        from confluent_kafka.schema_registry.avro import AvroSerializer
        from confluent_kafka.cimpl import KafkaError
        import confluent_binding.admin, confluent_binding.schema_registry.avro
        p = confluent_kafka.Producer({"bootstrap.servers": "127.0.0.1:1"})
        try:
            import confluent_kafka.no_such_module
            missing = None
        except ModuleNotFoundError as exc:
            missing = str(exc)
        print(json.dumps({
            "package": confluent_kafka is confluent_binding,
            "admin": confluent_kafka.admin is confluent_binding.admin,
            "AdminClient": AdminClient is confluent_binding.admin.AdminClient,
            "avro": confluent_kafka.schema_registry.avro is confluent_binding.schema_registry.avro,
            "AvroSerializer": AvroSerializer.__module__,
            "KafkaError": KafkaError is confluent_binding.KafkaError,
            "producer": isinstance(p, confluent_binding.Producer),
            "missing": missing,
            "modules": sorted({m.__name__ for k, m in sys.modules.items()
                               if k.startswith("confluent_kafka")}),
        }))
        p.close(0)
    """)
    out = last_json(proc)
    assert out.pop("AvroSerializer").startswith("confluent_binding.schema_registry")
    assert out.pop("missing") == "No module named 'confluent_kafka.no_such_module'"
    modules = out.pop("modules")
    assert modules and all(m.startswith("confluent_binding") for m in modules), modules
    assert out == dict.fromkeys(["package", "admin", "AdminClient", "avro", "KafkaError",
                                 "producer"], True)


def test_install_as_aiokafka():
    proc = run_python("""
        import json
        import confluent_binding
        confluent_binding.install_as_aiokafka()
        import aiokafka
        from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
        from aiokafka.structs import TopicPartition
        import confluent_binding.aiokafka, confluent_binding.aiokafka.structs
        print(json.dumps([aiokafka is confluent_binding.aiokafka,
                          AIOKafkaProducer is confluent_binding.aiokafka.AIOKafkaProducer,
                          TopicPartition is confluent_binding.aiokafka.structs.TopicPartition]))
    """)
    assert last_json(proc) == [True, True, True]


def test_an_alias_after_the_real_package_is_refused():
    pytest.importorskip("confluent_kafka")  # the real package
    proc = run_python("""
        import confluent_kafka
        import confluent_binding
        try:
            confluent_binding.install_as_confluent_kafka()
        except RuntimeError as exc:
            print(exc)
    """)
    assert "confluent_kafka was imported before its alias was installed" in proc.stdout


SHOW_ALIASES = """
    import json, sys, warnings
    warnings.simplefilter("always")
    loaded_at_start = "confluent_binding" in sys.modules
    import site
    site.addsitedir(sys.argv[1])        # processes its .pth files, as at start-up
    loaded = "confluent_binding" in sys.modules
    import confluent_kafka
    out = {"loaded_at_start": loaded_at_start, "loaded_by_pth": loaded,
           "confluent_kafka": confluent_kafka.__name__}
    try:
        import aiokafka
        out["aiokafka"] = aiokafka.__name__
    except ImportError:
        out["aiokafka"] = None
    print(json.dumps(out))
"""


@pytest.fixture()
def site_dir(tmp_path):
    """A directory holding a copy of the .pth file, for site.addsitedir()."""
    (tmp_path / PTH.name).write_text(PTH.read_text())
    return tmp_path


def test_pth_without_the_variable_imports_nothing(site_dir):
    pytest.importorskip("confluent_kafka")  # the real package
    out = last_json(run_python(SHOW_ALIASES, str(site_dir)))
    # confluent-kafka itself, and aiokafka itself, as if the file were not there
    assert out == {"loaded_at_start": False, "loaded_by_pth": False,
                   "confluent_kafka": "confluent_kafka", "aiokafka": "aiokafka"}


@pytest.mark.parametrize("value,expect", [
    ("confluent_kafka", ("confluent_binding", "aiokafka")),
    ("aiokafka", ("confluent_kafka", "confluent_binding.aiokafka")),
    ("confluent_kafka,aiokafka", ("confluent_binding", "confluent_binding.aiokafka")),
    (" aiokafka , confluent_kafka ", ("confluent_binding", "confluent_binding.aiokafka")),
])
def test_pth_with_the_variable_installs_the_aliases(site_dir, value, expect):
    if expect[0] == "confluent_kafka":
        pytest.importorskip("confluent_kafka")  # the real package
    out = last_json(run_python(SHOW_ALIASES, str(site_dir), env={"CONFLUENT_BINDING_AS": value}))
    assert out == {"loaded_at_start": PTH_INSTALLED, "loaded_by_pth": True,
                   "confluent_kafka": expect[0], "aiokafka": expect[1]}


def test_pth_skips_an_unknown_name_with_a_warning(site_dir):
    proc = run_python(SHOW_ALIASES, str(site_dir),
                      env={"CONFLUENT_BINDING_AS": "confluent_kafka,kafka_python"})
    assert last_json(proc)["confluent_kafka"] == "confluent_binding"
    assert "RuntimeWarning: CONFLUENT_BINDING_AS: no alias 'kafka_python'" in proc.stderr


APP = """
import json, os, sys
import confluent_kafka, helper
print(json.dumps({"module": confluent_kafka.__name__, "argv": sys.argv, "name": __name__,
                  "helper": helper.X, "path0": os.path.realpath(sys.path[0]),
                  "aiokafka": "aiokafka" in sys.modules}))
sys.exit(int(os.environ.get("APP_STATUS", "0")))
"""


@pytest.fixture()
def app_dir(tmp_path):
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "helper.py").write_text("X = 42\n")
    return tmp_path


def test_run_a_script(app_dir, tmp_path):
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    proc = run_python(None, "-m", "confluent_binding", "run", str(app_dir / "app.py"),
                      "a", "-b", "--c", cwd=elsewhere, env={"APP_STATUS": "3"}, check=False)
    assert proc.returncode == 3, proc.stderr
    assert last_json(proc) == {"module": "confluent_binding",
                               "argv": [str(app_dir / "app.py"), "a", "-b", "--c"],
                               "name": "__main__", "helper": 42,
                               "path0": os.path.realpath(app_dir), "aiokafka": False}


def test_run_a_module_with_both_aliases(app_dir):
    proc = run_python(None, "-m", "confluent_binding", "run", "--as", "confluent_kafka,aiokafka",
                      "-m", "app", "x", cwd=app_dir)
    out = last_json(proc)
    assert (out["module"], out["argv"], out["name"]) == (
        "confluent_binding", [str(app_dir / "app.py"), "x"], "__main__")
    pytest.importorskip("confluent_kafka")  # the real package, for the app without the alias
    proc = run_python("""
        import runpy, sys
        sys.argv = ["confluent_binding", "run", "--as=aiokafka", "-m", "app"]
        runpy.run_module("confluent_binding", run_name="__main__")
    """, cwd=app_dir, check=False)
    assert last_json(proc)["module"] == "confluent_kafka"       # only aiokafka was asked for


@pytest.mark.parametrize("args,message", [
    ([], "usage: python -m confluent_binding run"),
    (["go", "app.py"], "unknown command 'go'"),
    (["run", "--as", "nope", "app.py"], "no alias 'nope'"),
    (["run"], "a script or -m MODULE is needed"),
    (["run", "--as"], "--as needs alias names"),
])
def test_run_usage_errors(args, message):
    proc = run_python(None, "-m", "confluent_binding", *args, check=False)
    assert proc.returncode == 2
    assert message in proc.stdout + proc.stderr
