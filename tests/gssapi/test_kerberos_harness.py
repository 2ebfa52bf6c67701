"""The harness side of the GSSAPI tests, with the regular build: the suite's MIT KDC launcher
(tests/support/kerberos.py) and a broker started with ``KafkaCluster(kerberos=realm)``."""

import os
import subprocess

import pytest

import confluent_binding as kafka

from tests.support.kerberos import KerberosError

pytestmark = pytest.mark.integration


def _kinit(realm, principal, keytab, ccache):
    return subprocess.run(
        ["kinit", "-c", "FILE:%s" % ccache, "-kt", str(keytab), realm.principal(principal)],
        env=dict(os.environ, **realm.env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=60)


def test_the_brokers_keytab_matches_the_kdc(realm, kerberos_cluster, tmp_path):
    assert realm.is_running
    props = kerberos_cluster.server_properties()
    assert "GSSAPI" in props["sasl.enabled.mechanisms"].split(",")
    assert props["sasl.kerberos.service.name"] == "kafka"
    jaas = props["listener.name.sasl_plaintext.gssapi.sasl.jaas.config"]
    assert str(kerberos_cluster.keytab) in jaas
    # the keytab start() wrote logs the broker's service principal in at the realm's KDC
    ccache = tmp_path / "ccache"
    proc = _kinit(realm, "kafka/127.0.0.1", kerberos_cluster.keytab, ccache)
    assert proc.returncode == 0, proc.stdout
    klist = subprocess.run(["klist", "-c", "FILE:%s" % ccache], env=dict(os.environ, **realm.env),
                           stdout=subprocess.PIPE, text=True, check=True).stdout
    assert "kafka/127.0.0.1@%s" % realm.realm in klist


def test_a_kerberos_broker_still_serves_scram_on_its_sasl_listener(kerberos_cluster):
    topic = kerberos_cluster.create_topic("scram-beside-gssapi")
    reports = []
    p = kafka.Producer(kerberos_cluster.sasl_client_config("SCRAM-SHA-512", "alice"),
                       on_delivery=lambda err, msg: reports.append(err))
    p.produce(topic, b"v")
    assert p.flush(60) == 0
    p.close()
    assert reports == [None]


def test_a_deleted_principal_no_longer_logs_in(realm, tmp_path):
    keytab = realm.add_principal("short-lived", tmp_path / "short.keytab")
    assert _kinit(realm, "short-lived", keytab, tmp_path / "c1").returncode == 0
    realm.delete_principal("short-lived")
    proc = _kinit(realm, "short-lived", keytab, tmp_path / "c2")
    assert proc.returncode != 0 and "not found in Kerberos database" in proc.stdout


def test_a_running_kdc_is_not_started_twice(realm):
    port = realm.port
    with pytest.raises(KerberosError, match="already running"):
        realm.start()
    assert realm.is_running and realm.port == port
