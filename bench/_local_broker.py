"""The broker a stand-alone benchmark script uses: the given one, or a local one it starts; and
filling a topic with librdkafka's rdkafka_performance."""

import contextlib
import os
import subprocess
import tempfile

from confluent_binding.testing import ExternalKafkaCluster, KafkaCluster, ensure_kafka_jars

PERF_BIN = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "librdkafka-build", "static", "bin", "rdkafka_performance",
)


def fill(bootstrap, topic, count, partitions=1, size=100):
    """``count`` records of ``size`` bytes, spread evenly over ``partitions``."""
    for p in range(partitions):
        subprocess.run([PERF_BIN, "-P", "-t", topic, "-b", bootstrap, "-s", str(size), "-c",
                        str(count // partitions), "-p", str(p), "-a", "-1", "-X", "linger.ms=5",
                        "-X", "batch.size=1048576", "-X", "queue.buffering.max.messages=1000000",
                        "-X", "enable.idempotence=false"],
                       check=True, capture_output=True, timeout=1800)


@contextlib.contextmanager
def broker(bootstrap=None, prefix="bench-"):
    """Yields (bootstrap servers, cluster: its topic helpers); a started broker is stopped
    afterwards."""
    if bootstrap:
        yield bootstrap, ExternalKafkaCluster(bootstrap)
        return
    cluster = KafkaCluster(workdir=tempfile.mkdtemp(prefix=prefix), libs_dir=ensure_kafka_jars())
    cluster.start(timeout=120)
    try:
        yield cluster.bootstrap_servers, cluster
    finally:
        cluster.stop()
