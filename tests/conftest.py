import pytest

from confluent_binding.testing import KafkaCluster

pytest_plugins = ["confluent_binding.testing.pytest_plugin"]


@pytest.fixture(scope="session")
def secure_cluster(tmp_path_factory):
    """A second broker with SSL, SASL_PLAINTEXT and SASL_SSL listeners (PLAIN, SCRAM users)."""
    with KafkaCluster(ssl=True, sasl=True, workdir=tmp_path_factory.mktemp("secure")) as c:
        yield c
