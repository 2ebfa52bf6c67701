import pytest

from confluent_binding.testing import KafkaCluster

pytest_plugins = ["confluent_binding.testing.pytest_plugin"]


@pytest.fixture(scope="session")
def secure_cluster(tmp_path_factory):
    """A second broker with SSL, SASL_PLAINTEXT and SASL_SSL listeners (PLAIN, SCRAM users)."""
    with KafkaCluster(ssl=True, sasl=True, workdir=tmp_path_factory.mktemp("secure")) as c:
        yield c


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="run the tests marked slow too (make reliability-long, make soak)")


def pytest_collection_modifyitems(config, items):
    """Tests marked slow are left out unless --slow is given."""
    if config.getoption("--slow"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]
