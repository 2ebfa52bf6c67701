"""The Kerberos realm (a real MIT KDC, tests/support/kerberos.py) and the broker with a GSSAPI
listener that the tests in this folder share."""

import pytest

from confluent_binding.testing import KafkaCluster

from tests.support.kerberos import KerberosRealm


@pytest.fixture(scope="session")
def realm(tmp_path_factory):
    with KerberosRealm(workdir=tmp_path_factory.mktemp("realm")) as r:
        yield r


@pytest.fixture(scope="session")
def kerberos_cluster(realm, tmp_path_factory):
    with KafkaCluster(kerberos=realm, workdir=tmp_path_factory.mktemp("kerberos-kafka")) as c:
        yield c
