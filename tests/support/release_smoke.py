"""make release's smoke test: one broker for every installed release artifact.

Started by tests/support/release.sh with the development environment's interpreter (it has the
project's broker harness); the artifacts under test are already installed, each in its own bare
environment. One Kafka broker (confluent_binding.testing.KafkaCluster, with SSL and SASL
listeners) serves all of them: for each case, tests/package/standalone_check.py runs with the
case's interpreter from an empty directory and produces and consumes through every listener.

    python -m tests.support.release_smoke CASES.json RESULTS.json

CASES.json is a list of {"label": ..., "python": [interpreter command ...], "check_args": [...]}:
the command may be a prefix such as an emulator (``qemu-aarch64-static -L ROOT ROOT-PYTHON``) and
check_args are extra arguments for the check; "gil_off": true (a free-threaded interpreter) adds a
check that the package, imported and used for a produce and a consumer, leaves the GIL
disabled. RESULTS.json gets, per label, "passed" (bool),
"seconds" and "detail" (the last lines of the check's output on failure). Exit status 1 if any
case failed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_binding.testing import KafkaCluster

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tests" / "package" / "standalone_check.py"
RECORDS = 50  # standalone_check's round trip size


def _pin(key):
    for line in (ROOT / "librdkafka-build" / "VERSION").read_text().splitlines():
        if line.startswith(key + "="):
            return line.split("=", 1)[1]
    raise KeyError(key)


def _listeners(cluster):
    """The check's clusters.json for one case: a fresh topic per listener."""
    def listener(name, config):
        topic = cluster.create_topic("release-%s-%s" % (name, uuid.uuid4().hex[:8]), partitions=3)
        return {"config": config, "topic": topic}

    return {
        "PLAINTEXT": listener("plaintext", cluster.client_config()),
        "SSL": listener("ssl", cluster.ssl_client_config()),
        "SASL_PLAINTEXT SCRAM-SHA-512": listener(
            "scram", cluster.sasl_client_config("SCRAM-SHA-512")),
        "SASL_SSL SCRAM-SHA-256": listener(
            "sasl-ssl", cluster.sasl_ssl_client_config("SCRAM-SHA-256", "alice")),
    }


# Run with the case's interpreter after the round trip: exit status 0 only if the GIL is still off.
GIL_CHECK = """
import json, sys
import confluent_binding as kafka
listener = json.load(open("clusters.json"))["PLAINTEXT"]
p = kafka.Producer(listener["config"])
p.produce(listener["topic"], b"gil")
assert p.flush(30) == 0
c = kafka.Consumer(dict(listener["config"], **{"group.id": "gil-check"}))
c.close()
print("GIL after import and use:", "on" if sys._is_gil_enabled() else "off")
sys.exit(sys._is_gil_enabled())
"""


def _env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "RDKAFKA_PREFIX")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def run_case(cluster, case, workdir):
    run_dir = Path(tempfile.mkdtemp(prefix="case-", dir=workdir))
    shutil.copy(CHECK, run_dir / CHECK.name)
    clusters = _listeners(cluster)
    (run_dir / "clusters.json").write_text(json.dumps(clusters))
    cmd = list(case["python"]) + [
        "-I", str(run_dir / CHECK.name), "--expect-libversion", _pin("LIBRDKAFKA_VERSION"),
        "--clusters", str(run_dir / "clusters.json"), "--forbid", str(ROOT),
    ] + list(case.get("check_args", []))
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=run_dir, env=_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=900)
    out = proc.stdout
    gil_ok = True
    if case.get("gil_off"):
        gil = subprocess.run(list(case["python"]) + ["-I", "-c", GIL_CHECK], cwd=run_dir,
                             env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=120)
        out += gil.stdout
        gil_ok = gil.returncode == 0
    seconds = time.monotonic() - start
    (Path(workdir) / ("%s.log" % case["label"].replace(" ", "_"))).write_text(out)
    # Every listener's round trip must be reported, not just a clean exit.
    wanted = ["ok   %s: consumed what the delivery reports said (%d records)" % (name, RECORDS)
              for name in clusters]
    passed = (proc.returncode == 0 and gil_ok and "standalone check passed" in out
              and all(line in out for line in wanted))
    detail = "" if passed else "\n".join(out.splitlines()[-15:])
    return {"passed": passed, "seconds": round(seconds, 1), "detail": detail}


def main():
    cases_path, results_path = sys.argv[1:3]
    cases = json.loads(Path(cases_path).read_text())
    workdir = Path(results_path).resolve().parent / "smoke"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    results = {}
    with KafkaCluster(ssl=True, sasl=True, workdir=workdir / "broker") as cluster:
        for case in cases:
            result = run_case(cluster, case, workdir)
            results[case["label"]] = result
            print("%-4s %s (%.1f s)" % ("ok" if result["passed"] else "FAIL", case["label"],
                                        result["seconds"]), flush=True)
            if result["detail"]:
                print(result["detail"], flush=True)
    Path(results_path).write_text(json.dumps(results, indent=1))
    sys.exit(0 if all(r["passed"] for r in results.values()) else 1)


if __name__ == "__main__":
    main()
