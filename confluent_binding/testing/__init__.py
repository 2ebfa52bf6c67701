"""Test helpers for confluent_binding: a real local Kafka broker and a pytest plugin.

The topic helpers (create, delete, inspect, readiness) use the binding's own
:class:`~confluent_binding.admin.AdminClient`.

- :class:`KafkaCluster` - single-node KRaft broker run from Maven Central jars
  (needs ``java`` 17+ and, once, ``mvn``), optional SSL / SASL listeners.
- :class:`ExternalKafkaCluster` - same helpers for an already running cluster.
- :class:`KerberosRealm` - a real MIT Kerberos KDC on loopback (needs Debian's ``krb5-kdc``,
  ``krb5-admin-server``), for a broker with GSSAPI (``KafkaCluster(kerberos=realm)``).
- :func:`ensure_kafka_jars` - fetch and cache the broker jars.
- :class:`SchemaRegistryServer` - a real Schema Registry (Apicurio Registry,
  Confluent's REST API) built from Maven Central with ``mvn`` once;
  :class:`ExternalSchemaRegistry` for a running one.
- pytest plugin: ``-p confluent_binding.testing.pytest_plugin`` (fixtures
  ``kafka_cluster``, ``topic``, ``make_topic``, ``schema_registry``).
"""

from ._certs import CertError, TestCertificates, make_test_certificates
from ._jars import (
    DEFAULT_KAFKA_VERSION,
    KafkaJarsError,
    cache_dir,
    ensure_kafka_jars,
    find_kafka_jars,
)
from .cluster import (
    DEFAULT_JVM_OPTS,
    SASL_USERS,
    ExternalKafkaCluster,
    KafkaCluster,
    KafkaClusterError,
)
from .kerberos import KerberosError, KerberosRealm
from .schema_registry import (
    CCOMPAT_PATH,
    DEFAULT_APICURIO_VERSION,
    ExternalSchemaRegistry,
    SchemaRegistryServer,
    SchemaRegistryServerError,
    ensure_schema_registry_app,
    find_schema_registry_app,
)

__all__ = [
    "CCOMPAT_PATH",
    "CertError",
    "DEFAULT_JVM_OPTS",
    "DEFAULT_APICURIO_VERSION",
    "DEFAULT_KAFKA_VERSION",
    "ExternalSchemaRegistry",
    "ExternalKafkaCluster",
    "KafkaCluster",
    "KafkaClusterError",
    "KafkaJarsError",
    "KerberosError",
    "KerberosRealm",
    "SASL_USERS",
    "SchemaRegistryServer",
    "SchemaRegistryServerError",
    "TestCertificates",
    "cache_dir",
    "ensure_kafka_jars",
    "ensure_schema_registry_app",
    "find_kafka_jars",
    "find_schema_registry_app",
    "make_test_certificates",
]
