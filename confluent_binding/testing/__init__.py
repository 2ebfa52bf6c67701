"""Test helpers for confluent_binding: a real local Kafka broker (or cluster) and a pytest plugin.

The topic helpers (create, delete, inspect, readiness) use the binding's own
:class:`~confluent_binding.admin.AdminClient`.

- :class:`KafkaCluster` - KRaft nodes run from Maven Central jars (needs ``java`` 17+ and,
  once, ``mvn``): one by default, ``brokers=3`` for a cluster; optional SSL / SASL listeners,
  ACLs, GSSAPI with a Kerberos realm of your own.
- :class:`KafkaNode` - one broker of a cluster (``cluster.node(node_id)``): kill, pause,
  resume, restart it on its own.
- :class:`ExternalKafkaCluster` - same helpers for an already running cluster.
- :func:`ensure_kafka_jars` - fetch and cache the broker jars.
- pytest plugin: ``-p confluent_binding.testing.pytest_plugin`` (fixtures
  ``kafka_cluster``, ``topic``, ``make_topic``).
"""

from ._certs import CertError, TestCertificates, make_test_certificates
from ._jars import (
    DEFAULT_KAFKA_VERSION,
    KafkaJarsError,
    cache_dir,
    ensure_kafka_jars,
    find_kafka_jars,
)
from ._kafka import KafkaCluster
from ._node import DEFAULT_JVM_OPTS, SASL_USERS, KafkaNode
from ._topics import ExternalKafkaCluster, KafkaClusterError

__all__ = [
    "CertError",
    "DEFAULT_JVM_OPTS",
    "DEFAULT_KAFKA_VERSION",
    "ExternalKafkaCluster",
    "KafkaCluster",
    "KafkaClusterError",
    "KafkaJarsError",
    "KafkaNode",
    "SASL_USERS",
    "TestCertificates",
    "cache_dir",
    "ensure_kafka_jars",
    "find_kafka_jars",
    "make_test_certificates",
]
