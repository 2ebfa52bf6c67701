"""The broker a stand-alone benchmark script uses: the given one, or a local one it starts."""

import contextlib
import tempfile

from confluent_binding.testing import KafkaCluster, ensure_kafka_jars


@contextlib.contextmanager
def broker(bootstrap=None, prefix="bench-"):
    """Yields (bootstrap servers, cluster or None); a started broker is stopped afterwards."""
    if bootstrap:
        yield bootstrap, None
        return
    cluster = KafkaCluster(workdir=tempfile.mkdtemp(prefix=prefix), libs_dir=ensure_kafka_jars())
    cluster.start(timeout=120)
    try:
        yield cluster.bootstrap_servers, cluster
    finally:
        cluster.stop()
