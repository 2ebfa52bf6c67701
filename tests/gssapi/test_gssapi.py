"""SASL GSSAPI (Kerberos) with the from-source GSSAPI build (CB_GSSAPI=1), against a real MIT KDC
and a broker whose SASL_PLAINTEXT listener offers GSSAPI.

The extension is built with CB_GSSAPI=1 into build/gssapi/lib (librdkafka from
librdkafka-build/static-gssapi, made by build.sh first if needed); the clients run in child
processes with that package first on sys.path and the realm's KRB5_CONFIG. librdkafka gets the
tickets itself (sasl.kerberos.kinit.cmd runs kinit with the keytab).

System packages (installed by `make test-gssapi`): krb5-kdc, krb5-admin-server, krb5-user,
libsasl2-dev, libsasl2-modules-gssapi-mit.
"""
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

# The first test's set-up compiles the extension (about 2 min on a loaded 2-core machine):
# more time than the suite's per-test limit; the clients have their own time limits.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).with_name("gssapi_client.py")
BUILD_BASE = ROOT / "build" / "gssapi"
# The build is for running the GSSAPI clients, not for speed: without optimisation gcc compiles
# the extension several times faster (CFLAGS come after Python's own -O3 on gcc's command line).
UNOPTIMISED = "-O0"
# A client that cannot authenticate must say so this quickly (no hang, no long retry loop).
AUTH_FAILURE_SECONDS = 20


@pytest.fixture(scope="session")
def gssapi_package():
    """The package built with CB_GSSAPI=1 (a directory to put first on sys.path)."""
    lib = BUILD_BASE / "lib"
    proc = subprocess.run(
        [sys.executable, "setup.py", "build", "--build-base", str(BUILD_BASE),
         "--build-lib", str(lib)],
        cwd=ROOT, env=dict(os.environ, CB_GSSAPI="1", CFLAGS=UNOPTIMISED), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        pytest.fail("CB_GSSAPI=1 setup.py build failed:\n" + proc.stdout[-4000:])
    assert list((lib / "confluent_binding").glob("_core*.so")), proc.stdout[-2000:]
    return lib


def run_client(package, realm, tmp_path, mode, conf, *args, timeout=150):
    """Run gssapi_client.py with its own ticket cache: (its JSON output, its stderr, where
    the kinit librdkafka runs writes)."""
    env = dict(os.environ, **realm.env, KRB5CCNAME="FILE:%s" % (tmp_path / "ccache"))
    proc = subprocess.run(
        [sys.executable, str(CLIENT), str(package), mode, json.dumps(conf), *args],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout)
    # The child used the GSSAPI build, not the checkout's default one.
    assert out["core"].startswith(str(package)), out["core"]
    return out, proc.stderr


def test_produce_consume_round_trip_over_gssapi(gssapi_package, realm, kerberos_cluster,
                                                tmp_path):
    keytab = realm.add_principal("alice", tmp_path / "alice.keytab")
    topic = kerberos_cluster.create_topic("gssapi-" + uuid.uuid4().hex[:8])
    conf = kerberos_cluster.gssapi_client_config("alice", keytab)
    out, stderr = run_client(gssapi_package, realm, tmp_path, "round-trip", conf, topic)
    assert "kinit" not in stderr, stderr
    assert out["unflushed"] == 0
    assert out["reports"] == [[None, 0, 0], [None, 0, 1], [None, 0, 2]]
    assert out["consumed"] == [
        {"key": "key-%d" % i, "value": "value-%d" % i, "headers": [["n", str(i)]],
         "partition": 0, "offset": i}
        for i in range(3)]
    # librdkafka's kinit put alice's ticket and the broker's service ticket in the cache.
    klist = subprocess.run(["klist", "-c", "FILE:%s" % (tmp_path / "ccache")],
                           env=dict(os.environ, **realm.env), stdout=subprocess.PIPE,
                           text=True, check=True).stdout
    assert "Default principal: alice@%s" % realm.realm in klist
    assert "kafka/127.0.0.1@%s" % realm.realm in klist


@pytest.mark.parametrize("case, kinit_says", [
    ("stale-keytab", "Password incorrect"),
    ("unknown-principal", "not found in Kerberos database"),
])
def test_failed_kerberos_login_is_an_authentication_error(gssapi_package, realm,
                                                          kerberos_cluster, tmp_path, case,
                                                          kinit_says):
    name = "%s-%s" % (case, uuid.uuid4().hex[:6])
    keytab = realm.add_principal(name, tmp_path / "old.keytab")
    if case == "stale-keytab":
        realm.export_keytab(name, tmp_path / "new.keytab")   # the KDC's key is now another
    else:
        realm.delete_principal(name)
    conf = kerberos_cluster.gssapi_client_config(name, keytab)
    out, stderr = run_client(gssapi_package, realm, tmp_path, "auth-failure", conf)
    assert kinit_says in stderr, stderr     # librdkafka ran kinit, which failed
    auth = [text for code, text in out["errors"] if code == "_AUTHENTICATION"]
    assert auth, out["errors"]
    # No ticket: the GSSAPI handshake fails at its start, before anything reaches the broker.
    assert "SASL handshake failed" in auth[0], auth
    assert "No Kerberos credentials available" in auth[0], auth
    assert out["seconds"] < AUTH_FAILURE_SECONDS, out
