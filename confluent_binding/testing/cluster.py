"""A real Apache Kafka (KRaft) cluster run as local JVM processes.

The broker jars come from Maven Central (:func:`ensure_kafka_jars`); no Kafka
distribution, Docker or network access beyond that is needed.  Each node plays
both roles (``process.roles=broker,controller``) in one static controller
quorum, listens on free loopback ports and keeps its data in a temporary
directory.  One node by default; ``KafkaCluster(brokers=3)`` runs three, each of
which can be killed, paused and restarted on its own (:meth:`KafkaCluster.node`).

Example::

    with KafkaCluster() as kafka:
        kafka.create_topic("orders", partitions=3)
        conf = kafka.client_config(group_id="g1")   # librdkafka config dict

    with KafkaCluster(brokers=3, min_insync_replicas=2) as kafka:
        kafka.create_topic("orders", partitions=6)  # replication factor 3
        kafka.node(kafka.leader("orders", 0)).kill()
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .._keywords import properties
from . import _process
from ._certs import TestCertificates, make_test_certificates
from ._jars import DEFAULT_KAFKA_VERSION, cache_dir, ensure_kafka_jars
from .kerberos import KerberosRealm

__all__ = [
    "DEFAULT_JVM_OPTS",
    "ExternalKafkaCluster",
    "KafkaCluster",
    "KafkaClusterError",
    "SASL_USERS",
]

# Kafka's own defaults from bin/kafka-run-class.sh, minus the heap (see ``heap``).
DEFAULT_JVM_OPTS = (
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-XX:MaxInlineLevel=15",
    "-Djava.awt.headless=true",
)
# The storage formatter is a short-lived JVM: favour start-up time.
_TOOL_JVM_OPTS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                  "-Djava.awt.headless=true")

#: SASL users known to SASL listeners (PLAIN and both SCRAM mechanisms).
SASL_USERS = {"admin": "admin-secret", "alice": "alice-secret"}
_SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
#: The broker's Kerberos service name and host: its principal is kafka/127.0.0.1@<realm>, the
#: name a client asks for when it connects to the advertised 127.0.0.1 listener.
KERBEROS_SERVICE = "kafka"
_KERBEROS_HOST = "127.0.0.1"

_LOG4J2 = """\
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = {level}
rootLogger.appenderRef.out.ref = OUT
logger.statechange.name = state.change.logger
logger.statechange.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
"""

_LOG4J1 = """\
log4j.rootLogger={level}, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.request.logger=WARN
"""


class KafkaClusterError(RuntimeError):
    """The broker could not be formatted, started or reached."""


def _free_ports(n: int) -> List[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _new_cluster_id() -> str:
    # Kafka's Uuid.toString(): URL-safe base64 of 16 bytes without padding.
    # Like Uuid.randomUuid(), avoid a leading "-": command-line parsers take
    # such an id for an option.
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cid.startswith("-"):
            return cid


def _tail(path: Path, lines: int = 60, max_bytes: int = 64 * 1024) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read().decode("utf-8", "replace")
    except OSError as e:
        return "<cannot read %s: %s>" % (path, e)
    return "\n".join(data.splitlines()[-lines:])


def _find_java(java: Optional[str]) -> str:
    if java:
        return java
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", "java"), os.X_OK):
        return os.path.join(home, "bin", "java")
    found = shutil.which("java")
    if not found:
        raise KafkaClusterError(
            "'java' (17 or newer) is needed to run the Kafka broker; set JAVA_HOME or PATH")
    return found




class _TopicAdmin:
    """Topic helpers over the binding's own :class:`~confluent_binding.admin.AdminClient`
    (shared by both cluster kinds)."""

    def client_config(self, _config: Optional[Mapping[str, Any]] = None, /,
                      **extra: Any) -> Dict[str, Any]:
        raise NotImplementedError

    def admin_client(self, **extra: Any) -> Any:
        """An :class:`~confluent_binding.admin.AdminClient` for :meth:`client_config`'s
        listener (close it, or use it in a ``with`` block)."""
        from ..admin import AdminClient

        return AdminClient(self.client_config(**extra))

    def metadata(self, topics: Optional[Sequence[str]] = None, timeout: float = 10) -> Any:
        """:class:`~confluent_binding.admin.ClusterMetadata` of the whole cluster, or of the one
        topic in ``topics``."""
        if topics is not None and len(topics) > 1:
            raise ValueError("metadata() takes at most one topic")
        with self.admin_client() as a:
            return a.list_topics(topics[0] if topics else None, timeout=timeout)

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        config: Optional[Mapping[str, str]] = None,
        timeout: float = 30,
        replication_factor: int = -1,
        exist_ok: bool = False,
    ) -> str:
        """Create ``name`` and wait until metadata shows every partition with a
        leader.  Returns ``name``."""
        from ..admin import KafkaError, KafkaException, NewTopic

        deadline = time.monotonic() + timeout
        with self.admin_client() as a:
            fut = a.create_topics(
                [NewTopic(name, partitions, replication_factor, config=dict(config or {}))],
                request_timeout=timeout, operation_timeout=timeout)[name]
            expected: Optional[int] = partitions
            try:
                fut.result(timeout)
            except KafkaException as e:
                if not (exist_ok and e.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS):
                    raise
                expected = None  # it was there before: however many partitions it has
            _wait_for(deadline, "topic %r to have its partitions' leaders" % name,
                      lambda: _leaders_ready(a, name, expected))
        return name

    def delete_topic(self, name: str, timeout: float = 30, missing_ok: bool = True) -> None:
        """Delete ``name`` and wait until metadata no longer lists it."""
        from ..admin import KafkaError, KafkaException

        deadline = time.monotonic() + timeout
        with self.admin_client() as a:
            try:
                a.delete_topics([name], request_timeout=timeout,
                                operation_timeout=timeout)[name].result(timeout)
            except KafkaException as e:
                if not (missing_ok and e.args[0].code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
                    raise

            def gone():
                return name not in a.list_topics(
                    timeout=max(deadline - time.monotonic(), 1)).topics
            _wait_for(deadline, "topic %r to disappear" % name, gone)

    def topic_partitions(self, name: str) -> Optional[int]:
        """Partition count of ``name``, or ``None`` if the topic does not exist."""
        with self.admin_client() as a:
            md = a.list_topics(timeout=10).topics.get(name)
        return None if md is None or md.error is not None else len(md.partitions)


def _leaders_ready(admin: Any, name: str, partitions: Optional[int]) -> bool:
    md = admin.list_topics(name, timeout=10).topics.get(name)
    return (md is not None and md.error is None and len(md.partitions) > 0
            and (partitions is None or len(md.partitions) == partitions)
            and all(p.leader >= 0 and p.error is None for p in md.partitions.values()))


def _wait_for(deadline: float, what: str, condition: Any) -> None:
    while not condition():
        if time.monotonic() >= deadline:
            raise KafkaClusterError("timed out waiting for " + what)
        time.sleep(0.05)


class ExternalKafkaCluster(_TopicAdmin):
    """An already running cluster (e.g. ``KAFKA_BOOTSTRAP_SERVERS``), same API
    as :class:`KafkaCluster` for what tests need."""

    def __init__(self, bootstrap_servers: str, config: Optional[Mapping[str, Any]] = None):
        self.bootstrap_servers = bootstrap_servers
        self._config = dict(config or {})

    def client_config(self, _config: Optional[Mapping[str, Any]] = None, /,
                      **extra: Any) -> Dict[str, Any]:
        conf: Dict[str, Any] = {"bootstrap.servers": self.bootstrap_servers}
        conf.update(self._config)
        conf.update(_config or {})
        conf.update(properties(extra))
        return conf

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.metadata(timeout=5).brokers:
                    return
            except Exception as e:
                if time.monotonic() >= deadline:
                    raise KafkaClusterError(
                        "Kafka at %s not reachable: %s" % (self.bootstrap_servers, e))
            time.sleep(0.2)

    def __repr__(self) -> str:
        return "ExternalKafkaCluster(%r)" % self.bootstrap_servers


# Running clusters stay referenced here, so a broker is never dropped by the
# garbage collector while it runs; the finalizer below kills leftovers at exit.
_LIVE: "set[KafkaCluster]" = set()


def _replication_properties(brokers: int, replication_factor: Optional[int],
                            min_insync_replicas: Optional[int]) -> Dict[str, str]:
    """Replication defaults for a cluster of ``brokers`` nodes: topics (also the internal
    ones) get ``replication_factor`` replicas (default: every broker, at most 3)."""
    if brokers < 1:
        raise ValueError("brokers must be at least 1, not %r" % brokers)
    if replication_factor is None and min_insync_replicas is None and brokers == 1:
        return {}
    rf = min(brokers, 3) if replication_factor is None else int(replication_factor)
    if not 1 <= rf <= brokers:
        raise ValueError("replication_factor must be between 1 and brokers (%d), not %r"
                         % (brokers, replication_factor))
    isr = 1 if min_insync_replicas is None else int(min_insync_replicas)
    if not 1 <= isr <= rf:
        raise ValueError("min_insync_replicas must be between 1 and the replication factor "
                         "(%d), not %r" % (rf, min_insync_replicas))
    internal_isr = str(min(2, rf))
    return {
        "default.replication.factor": str(rf),
        "min.insync.replicas": str(isr),
        "offsets.topic.replication.factor": str(rf),
        "transaction.state.log.replication.factor": str(rf),
        "transaction.state.log.min.isr": internal_isr,
        "share.coordinator.state.topic.replication.factor": str(rf),
        "share.coordinator.state.topic.min.isr": internal_isr,
    }


class KafkaCluster(_TopicAdmin):
    """Combined broker+controller KRaft nodes on loopback: one by default.

    Parameters:
      brokers: how many nodes (each a broker and a voter of the one controller
        quorum, so a cluster of 3 keeps working with any one node down).  The
        members are :attr:`nodes` (node ids 1..n; :meth:`node`); :meth:`kill`,
        :meth:`restart`, :meth:`stop`, :meth:`pause` and :meth:`resume` of the
        cluster act on all of them, the same methods of a member on that broker.
      replication_factor: replicas of a topic created without one and of the
        internal topics (default: every broker, at most 3).
      min_insync_replicas: the brokers' ``min.insync.replicas`` (default 1).
      ssl: add an ``SSL`` listener with certificates made at :meth:`start`.
      sasl: add a ``SASL_PLAINTEXT`` listener (PLAIN, SCRAM-SHA-256/512; users
        in :data:`SASL_USERS`).  With both, a ``SASL_SSL`` listener too.
      acl: enforce ACLs with KRaft's ``StandardAuthorizer``: ``User:admin`` and
        the unauthenticated listeners' ``User:ANONYMOUS`` are super users, every
        other principal (e.g. SASL user ``alice``) needs ACLs.
      kerberos: a started :class:`~confluent_binding.testing.kerberos.KerberosRealm`: the SASL
        listeners (implies ``sasl``) also offer GSSAPI; :meth:`start` creates the broker's
        principal ``kafka/127.0.0.1`` and keytab in the realm.  Clients:
        :meth:`gssapi_client_config` (run them with ``realm.env``).
      version: Apache Kafka version (jars fetched by :func:`ensure_kafka_jars`).
      broker_properties: overrides for ``server.properties`` (``None`` value
        removes a key).
      workdir: directory for config, certificates, log file and (unless
        ``log_dir``) data; default a fresh temporary directory removed by
        :meth:`cleanup` / the context manager.
      log_dir: parent directory for ``log.dirs`` (e.g. a tmpfs for benchmarks);
        a unique subdirectory is made in it.
      heap, heap_min: ``-Xmx`` / ``-Xms``.
      jvm_opts: JVM flags other than the heap (default :data:`DEFAULT_JVM_OPTS`,
        Kafka's own G1 settings); ``extra_jvm_opts`` are appended.
      libs_dir: use these jars instead of :func:`ensure_kafka_jars`.
      log_level: root level of the broker log (``<workdir>/broker.log``).
      fast_startup: add ``-XX:TieredStopAtLevel=1`` (C1 JIT only): the broker
        is ready sooner and uses less CPU early on, but its peak throughput is
        lower, so leave it off for benchmarks.
      class_data_sharing: use an AppCDS archive of the broker's classes, kept
        in the cache next to the jars (written by the first broker that stops
        cleanly; later JVMs start several times faster).  Affects start-up only.
      verbose: print timings.

    After :meth:`start`, ``timings`` holds seconds spent: ``prepare`` (jars,
    ports, certificates, config), ``format`` (StorageTool), ``ready`` (JVM
    launch until Metadata lists the broker), ``start`` (total); :meth:`stop`
    and :meth:`restart` add ``stop`` and ``restart``.
    """

    def __init__(
        self,
        ssl: bool = False,
        sasl: bool = False,
        version: str = DEFAULT_KAFKA_VERSION,
        broker_properties: Optional[Mapping[str, Any]] = None,
        workdir: Optional[os.PathLike] = None,
        *,
        brokers: int = 1,
        replication_factor: Optional[int] = None,
        min_insync_replicas: Optional[int] = None,
        log_dir: Optional[os.PathLike] = None,
        heap: str = "1g",
        heap_min: str = "256m",
        jvm_opts: Optional[Sequence[str]] = None,
        extra_jvm_opts: Sequence[str] = (),
        libs_dir: Optional[os.PathLike] = None,
        java: Optional[str] = None,
        log_level: str = "INFO",
        fast_startup: bool = False,
        class_data_sharing: bool = True,
        verbose: bool = False,
        acl: bool = False,
        kerberos: Optional[KerberosRealm] = None,
    ):
        self.ssl = bool(ssl)
        self.kerberos = kerberos
        self.sasl = bool(sasl) or kerberos is not None
        self.acl = bool(acl)
        self.version = version
        replication = _replication_properties(brokers, replication_factor, min_insync_replicas)
        if self._is_kafka_3():
            replication = {k: v for k, v in replication.items() if not k.startswith("share.")}
        self.broker_properties = {**replication, **(broker_properties or {})}
        self._owns_workdir = workdir is None
        self.workdir = (Path(workdir) if workdir is not None
                        else Path(tempfile.mkdtemp(prefix="kafka-cluster-")))
        # At interpreter exit (or garbage collection): kill a leftover broker
        # and remove the directories this object created.
        self._res = _process.Resources()
        if self._owns_workdir:
            self._res.remove.append(self.workdir)
        self._finalizer = weakref.finalize(self, _process.release, self._res)
        self._log_dir_parent = Path(log_dir) if log_dir is not None else None
        self.data_dir: Optional[Path] = None
        self.heap = heap
        self.heap_min = heap_min
        self.jvm_opts = list(DEFAULT_JVM_OPTS if jvm_opts is None else jvm_opts)
        if fast_startup:
            self.jvm_opts.append("-XX:TieredStopAtLevel=1")
        if kerberos is not None:
            self.jvm_opts += kerberos.jvm_opts
        self.jvm_opts += list(extra_jvm_opts)
        self.class_data_sharing = class_data_sharing
        self._cds_dump: Optional[tuple] = None
        self.libs_dir = Path(libs_dir) if libs_dir is not None else None
        self._java = java
        self.log_level = log_level
        self.verbose = verbose
        self.node_id = 1
        self.cluster_id: Optional[str] = None
        self.ports: Dict[str, int] = {}
        self.certs: Optional[TestCertificates] = None
        self.keytab: Optional[Path] = None
        self.timings: Dict[str, float] = {}
        self._proc: Optional[subprocess.Popen] = None
        self._log_file = None
        self._formatted = False
        # brokers > 1: the member nodes, each a one-node KafkaCluster in workdir/node-<id>
        self._members: List[KafkaCluster] = []
        for node_id in range(1, brokers + 1) if brokers > 1 else ():
            member = KafkaCluster(
                ssl, sasl, version, self.broker_properties, self.workdir / ("node-%d" % node_id),
                log_dir=log_dir, heap=heap, heap_min=heap_min, jvm_opts=self.jvm_opts,
                libs_dir=libs_dir, java=java, log_level=log_level,
                class_data_sharing=class_data_sharing, acl=acl, kerberos=kerberos)
            member.node_id = node_id
            self._members.append(member)

    # -- nodes --------------------------------------------------------------

    @property
    def nodes(self) -> "List[KafkaCluster]":
        """The brokers, in node id order (a one-node cluster is its own node)."""
        return list(self._members) or [self]

    def node(self, node_id: int) -> "KafkaCluster":
        """The broker with this node id (1..brokers)."""
        for n in self.nodes:
            if n.node_id == node_id:
                return n
        raise KeyError("no node %r (node ids: %s)" % (node_id, [n.node_id for n in self.nodes]))

    def leader(self, topic: str, partition: int) -> int:
        """Node id of the partition's leader now (-1 while it has none)."""
        return self.metadata([topic]).topics[topic].partitions[partition].leader

    def pause(self) -> None:
        """SIGSTOP the broker(s): connections stay open, nothing answers, until :meth:`resume`.
        Returns once the process is stopped."""
        for n in self.nodes:
            n._signal(signal.SIGSTOP, stopped=True)

    def resume(self) -> None:
        """SIGCONT what :meth:`pause` stopped; returns once the process runs again."""
        for n in self.nodes:
            n._signal(signal.SIGCONT, stopped=False)

    def _signal(self, sig: int, stopped: bool, timeout: float = 10) -> None:
        if not self.is_running:
            raise KafkaClusterError("node %d is not running" % self.node_id)
        assert self._proc is not None
        self._proc.send_signal(sig)
        # the signal is delivered asynchronously: wait for the state it causes (Linux /proc)
        stat = Path("/proc/%d/stat" % self._proc.pid)
        deadline = time.monotonic() + timeout
        while stat.exists():
            try:
                state = stat.read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                return
            if (state in ("T", "t")) == stopped:
                return
            if time.monotonic() >= deadline:
                raise KafkaClusterError("node %d still in state %s after signal %d"
                                        % (self.node_id, state, sig))
            time.sleep(0.01)

    # -- paths / state ------------------------------------------------------

    @property
    def log_path(self) -> Path:
        """The broker's stdout/stderr (its log4j console output)."""
        return self.workdir / "broker.log"

    @property
    def properties_path(self) -> Path:
        return self.workdir / "server.properties"

    @property
    def pid(self) -> Optional[int]:
        """The broker's process id (``None`` for a cluster of several: see :meth:`node`)."""
        return self._proc.pid if self._proc is not None else None

    @property
    def is_running(self) -> bool:
        """The broker runs (for a cluster of several: every one does)."""
        if self._members:
            return all(n.is_running for n in self._members)
        return self._proc is not None and self._proc.poll() is None

    def _is_kafka_3(self) -> bool:
        try:
            return int(self.version.split(".", 1)[0]) < 4
        except ValueError:
            return False

    # -- listeners / client configs ---------------------------------------------

    def _require_started(self, listener: str) -> int:
        if listener not in self.ports:
            if not self.ports:
                raise KafkaClusterError("the cluster has not been started")
            raise KafkaClusterError(
                "no %s listener (construct with the matching option)" % listener)
        return self.ports[listener]

    def _servers(self, listener: str) -> str:
        if self._members:
            return ",".join(n._servers(listener) for n in self._members)
        return "127.0.0.1:%d" % self._require_started(listener)

    @property
    def bootstrap_servers(self) -> str:
        """``127.0.0.1:<port>`` of the PLAINTEXT listener (of every broker, comma-separated)."""
        return self._servers("PLAINTEXT")

    @property
    def ssl_bootstrap_servers(self) -> str:
        return self._servers("SSL")

    @property
    def sasl_bootstrap_servers(self) -> str:
        return self._servers("SASL_PLAINTEXT")

    @property
    def sasl_ssl_bootstrap_servers(self) -> str:
        return self._servers("SASL_SSL")

    def client_config(self, _config: Optional[Mapping[str, Any]] = None, /,
                      **extra: Any) -> Dict[str, Any]:
        """librdkafka config for the PLAINTEXT listener, plus ``_config`` and
        ``extra`` (keywords name properties as the clients' keywords do: ``group_id="g"``,
        or pass ``**{"linger.ms": 5}``)."""
        conf: Dict[str, Any] = {"bootstrap.servers": self.bootstrap_servers}
        conf.update(_config or {})
        conf.update(properties(extra))
        return conf

    def _ssl_settings(self, client_cert: bool) -> Dict[str, Any]:
        assert self.certs is not None
        conf: Dict[str, Any] = {"ssl.ca.location": str(self.certs.ca_cert)}
        if client_cert:
            conf["ssl.certificate.location"] = str(self.certs.client_cert)
            conf["ssl.key.location"] = str(self.certs.client_key)
        return conf

    def ssl_client_config(
        self, _config: Optional[Mapping[str, Any]] = None, /, *, client_cert: bool = False,
        **extra: Any
    ) -> Dict[str, Any]:
        """librdkafka config for the SSL listener (``security.protocol=SSL``,
        ``ssl.ca.location``; with ``client_cert`` also a client certificate)."""
        conf: Dict[str, Any] = {"bootstrap.servers": self.ssl_bootstrap_servers,
                                "security.protocol": "SSL"}
        conf.update(self._ssl_settings(client_cert))
        conf.update(_config or {})
        conf.update(properties(extra))
        return conf

    def sasl_client_config(
        self,
        mechanism: str = "SCRAM-SHA-256",
        username: str = "admin",
        password: Optional[str] = None,
        _config: Optional[Mapping[str, Any]] = None,
        **extra: Any,
    ) -> Dict[str, Any]:
        """librdkafka config for the SASL_PLAINTEXT listener."""
        return self._sasl_config("SASL_PLAINTEXT", self.sasl_bootstrap_servers, mechanism,
                                 username, password, _config, extra)

    def sasl_ssl_client_config(
        self,
        mechanism: str = "SCRAM-SHA-256",
        username: str = "admin",
        password: Optional[str] = None,
        _config: Optional[Mapping[str, Any]] = None,
        **extra: Any,
    ) -> Dict[str, Any]:
        """librdkafka config for the SASL_SSL listener (needs ``ssl=True, sasl=True``)."""
        return self._sasl_config("SASL_SSL", self.sasl_ssl_bootstrap_servers, mechanism,
                                 username, password, _config, extra)

    def _sasl_config(self, protocol: str, servers: str, mechanism: str, username: str,
                     password: Optional[str], config: Optional[Mapping[str, Any]],
                     extra: Mapping[str, Any]) -> Dict[str, Any]:
        conf: Dict[str, Any] = {
            "bootstrap.servers": servers,
            "security.protocol": protocol,
            "sasl.mechanisms": mechanism,
            "sasl.username": username,
            "sasl.password": SASL_USERS.get(username, "") if password is None else password,
        }
        if protocol == "SASL_SSL":
            conf.update(self._ssl_settings(False))
        conf.update(config or {})
        conf.update(properties(extra))
        return conf

    def gssapi_client_config(self, principal: str, keytab: os.PathLike,
                             _config: Optional[Mapping[str, Any]] = None,
                             **extra: Any) -> Dict[str, Any]:
        """librdkafka config for GSSAPI (Kerberos) on the SASL_PLAINTEXT listener (needs
        ``kerberos=``): librdkafka gets the ticket itself with ``kinit`` from ``keytab``."""
        if self.kerberos is None:
            raise KafkaClusterError("no Kerberos realm (construct with kerberos=)")
        conf: Dict[str, Any] = {
            "bootstrap.servers": self.sasl_bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "GSSAPI",
            "sasl.kerberos.service.name": KERBEROS_SERVICE,
            "sasl.kerberos.principal": self.kerberos.principal(principal),
            "sasl.kerberos.keytab": str(keytab),
        }
        conf.update(_config or {})
        conf.update(properties(extra))
        return conf

    # -- configuration ------------------------------------------------------------

    def _listener_names(self) -> List[str]:
        names = ["PLAINTEXT", "CONTROLLER"]
        if self.ssl:
            names.append("SSL")
        if self.sasl:
            names.append("SASL_PLAINTEXT")
        if self.ssl and self.sasl:
            names.append("SASL_SSL")
        return names

    def server_properties(self) -> Dict[str, str]:
        """The ``server.properties`` this cluster runs with (after :meth:`start`
        has picked ports)."""
        p = self.ports
        assert self.data_dir is not None
        listeners = ["%s://127.0.0.1:%d" % (n, p[n]) for n in self._listener_names()]
        advertised = [x for x in listeners if not x.startswith("CONTROLLER:")]
        props: Dict[str, str] = {
            "process.roles": "broker,controller",
            "node.id": str(self.node_id),
            "controller.quorum.voters": "%d@127.0.0.1:%d" % (self.node_id, p["CONTROLLER"]),
            "listeners": ",".join(listeners),
            "advertised.listeners": ",".join(advertised),
            "inter.broker.listener.name": "PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": (
                "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,"
                "SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"
            ),
            "log.dirs": str(self.data_dir),
            "num.partitions": "1",
            "default.replication.factor": "1",
            "min.insync.replicas": "1",
            "auto.create.topics.enable": "true",
            "delete.topic.enable": "true",
            "offsets.topic.replication.factor": "1",
            "offsets.topic.num.partitions": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "transaction.state.log.num.partitions": "1",
            "group.initial.rebalance.delay.ms": "0",
            # Tests write records with fixed timestamps years in the past; time-based retention
            # would delete them at its first check (30 s after start) or any later one.
            "log.retention.ms": "-1",
            # After a SIGKILL the new incarnation cannot register until the old
            # one's session expires (default 9 s); keep that short for fault tests.
            "broker.heartbeat.interval.ms": "1000",
            "broker.session.timeout.ms": "4000",
            # KIP-848 groups: members heartbeat every 5 s by default, so every rebalance
            # waits that long; a test broker answers faster.
            "group.consumer.min.heartbeat.interval.ms": "500",
            "group.consumer.heartbeat.interval.ms": "500",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
            "share.coordinator.state.topic.num.partitions": "1",
            # Let a share group's record locks (group config share.record.lock.duration.ms,
            # 30 s by default) be set short, so redelivery after a lock expires is testable.
            "group.share.min.record.lock.duration.ms": "1000",
            # Share group members heartbeat every 5 s by default: every assignment change
            # would wait that long.
            "group.share.min.heartbeat.interval.ms": "500",
            "group.share.heartbeat.interval.ms": "500",
        }
        if self._is_kafka_3():
            for k in [k for k in props if k.startswith("share.")]:
                del props[k]
        if self.ssl:
            assert self.certs is not None
            props.update(
                {
                    "ssl.keystore.type": "PEM",
                    "ssl.keystore.location": str(self.certs.broker_keystore),
                    "ssl.truststore.type": "PEM",
                    "ssl.truststore.location": str(self.certs.ca_cert),
                    "ssl.client.auth": "requested",
                }
            )
        if self.sasl:
            props["sasl.enabled.mechanisms"] = "PLAIN," + ",".join(_SCRAM_MECHANISMS)
            plain = "org.apache.kafka.common.security.plain.PlainLoginModule required " + " ".join(
                ['username="admin"', 'password="%s"' % SASL_USERS["admin"]]
                + ['user_%s="%s"' % (u, pw) for u, pw in SASL_USERS.items()]
            ) + ";"
            scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
            if self.kerberos is not None:
                assert self.keytab is not None
                props["sasl.enabled.mechanisms"] += ",GSSAPI"
                props["sasl.kerberos.service.name"] = KERBEROS_SERVICE
                gssapi = (
                    "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true "
                    'storeKey=true keyTab="%s" principal="%s";'
                    % (self.keytab, self.kerberos.principal(
                        "%s/%s" % (KERBEROS_SERVICE, _KERBEROS_HOST))))
            for listener in [n for n in self._listener_names() if n.startswith("SASL_")]:
                prefix = "listener.name.%s." % listener.lower()
                props[prefix + "plain.sasl.jaas.config"] = plain
                for mech in _SCRAM_MECHANISMS:
                    props[prefix + mech.lower() + ".sasl.jaas.config"] = scram
                if self.kerberos is not None:
                    props[prefix + "gssapi.sasl.jaas.config"] = gssapi
        if self.acl:
            props["authorizer.class.name"] = (
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            # the PLAINTEXT listeners (inter-broker, controller, tests' admin) are ANONYMOUS
            props["super.users"] = "User:admin;User:ANONYMOUS"
            props["allow.everyone.if.no.acl.found"] = "false"
        for k, v in self.broker_properties.items():
            if v is None:
                props.pop(k, None)
            elif isinstance(v, bool):
                props[k] = "true" if v else "false"
            else:
                props[k] = str(v)
        return props

    def _write_config(self) -> None:
        lines = ["# generated by confluent_binding.testing.KafkaCluster"]
        for k, v in self.server_properties().items():
            lines.append("%s=%s" % (k, v.replace("\\", "\\\\").replace("\n", "\\n")))
        self.properties_path.write_text("\n".join(lines) + "\n")
        template = _LOG4J1 if self._is_kafka_3() else _LOG4J2
        for name, level in (("broker", self.log_level), ("tool", "WARN")):
            self._log_config_path(name).write_text(template.format(level=level))

    def _log_config_path(self, name: str) -> Path:
        if self._is_kafka_3():
            return self.workdir / ("log4j-%s.properties" % name)
        return self.workdir / ("log4j2-%s.properties" % name)

    def _logging_opts(self, name: str = "broker") -> List[str]:
        if self._is_kafka_3():
            return ["-Dlog4j.configuration=file:%s" % self._log_config_path(name)]
        return ["-Dlog4j2.configurationFile=%s" % self._log_config_path(name)]

    # -- class data sharing ---------------------------------------------------------

    def _cds_archive(self, java: str, libs: Path) -> Path:
        """Where the AppCDS archive for this java + jar set lives (may not exist)."""
        h = hashlib.sha256()
        for f in [Path(java).resolve(), *sorted(libs.glob("*.jar"))]:
            try:
                st = f.stat()
            except OSError:
                continue
            h.update(("%s %d %d\n" % (f, st.st_size, st.st_mtime_ns)).encode())
        return cache_dir() / "cds" / ("kafka-%s-%s.jsa" % (self.version, h.hexdigest()[:16]))

    def _cds_opts(self, java: str, libs: Path, dump: bool) -> List[str]:
        """Use the archive if present; else (``dump``) have this JVM write it at exit."""
        if dump:
            self._cds_finish(clean_exit=False)  # a dump left over from a crashed JVM
        if not self.class_data_sharing:
            return []
        archive = self._cds_archive(java, libs)
        if archive.is_file():
            return ["-XX:SharedArchiveFile=%s" % archive]
        if not dump:
            return []
        archive.parent.mkdir(parents=True, exist_ok=True)
        tmp = archive.with_name("%s.tmp-%d-%s" % (archive.name, os.getpid(), uuid.uuid4().hex[:8]))
        self._cds_dump = (tmp, archive)
        return ["-XX:ArchiveClassesAtExit=%s" % tmp]

    def _cds_finish(self, clean_exit: bool) -> None:
        dump, self._cds_dump = self._cds_dump, None
        if dump is None:
            return
        tmp, archive = dump
        try:
            if clean_exit and tmp.is_file() and tmp.stat().st_size > 0:
                os.replace(tmp, archive)
                # Archives for older jar sets / JVMs of this version are stale.
                for stale in archive.parent.glob("kafka-%s-*.jsa" % self.version):
                    if stale != archive:
                        with contextlib.suppress(OSError):
                            stale.unlink()
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()

    def _classpath(self, libs: Path) -> str:
        return str(libs / "*")

    # -- lifecycle ------------------------------------------------------------------

    def _libs(self) -> Path:
        if self.libs_dir is None:
            self.libs_dir = ensure_kafka_jars(self.version, verbose=self.verbose)
        return self.libs_dir

    def _format(self, java: str, libs: Path) -> None:
        cmd = [java, *_TOOL_JVM_OPTS, *self._cds_opts(java, libs, dump=False),
               *self._logging_opts("tool")]
        cmd += ["-cp", self._classpath(libs)]
        cmd += ["kafka.tools.StorageTool", "format", "--cluster-id=%s" % self.cluster_id]
        cmd += ["--config=%s" % self.properties_path]
        if not self._is_kafka_3():
            # Share groups (KIP-932) are a preview feature in 4.1: enabled by the
            # share.version feature level, which can be set when the storage is formatted.
            cmd += ["--feature", "share.version=1"]
        if self.sasl:
            for user, pw in SASL_USERS.items():
                for mech in _SCRAM_MECHANISMS:
                    cmd += ["--add-scram", "%s=[name=%s,password=%s]" % (mech, user, pw)]
        proc = subprocess.run(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=str(self.workdir),
        )
        out = proc.stdout.decode("utf-8", "replace")
        (self.workdir / "format.log").write_text(out)
        if proc.returncode != 0:
            raise KafkaClusterError("formatting Kafka storage failed (exit %d):\n%s"
                                    % (proc.returncode, out[-4000:]))

    def start(self, timeout: float = 90) -> "KafkaCluster":
        """Start a fresh broker: new ports, empty formatted storage, new cluster id.

        Waits until it answers a Metadata request listing itself on the
        PLAINTEXT listener.  Raises :class:`KafkaClusterError` (with the tail of
        the broker log) if the JVM exits or ``timeout`` passes.
        """
        if self.is_running:
            raise KafkaClusterError("already running (%r)" % self)
        self._close_log()
        t0 = time.monotonic()
        libs = self._libs()
        java = _find_java(self._java)
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self._members:
            self._start_members(java, libs, timeout)
            self.timings = {"start": time.monotonic() - t0}
            return self
        self._fresh_storage()
        names = self._listener_names()
        self.ports = dict(zip(names, _free_ports(len(names))))
        if self.ssl:
            self.certs = make_test_certificates(self.workdir / "certs")
        if self.kerberos is not None and self.keytab is None:
            self.keytab = self.kerberos.add_principal(
                "%s/%s" % (KERBEROS_SERVICE, _KERBEROS_HOST), self.workdir / "kafka.keytab")
        self.cluster_id = _new_cluster_id()
        self._write_config()
        t1 = time.monotonic()
        self._format(java, libs)
        self._formatted = True
        t2 = time.monotonic()
        self.timings = {"prepare": t1 - t0, "format": t2 - t1}
        self._launch(java, libs, timeout)
        self.timings["ready"] = time.monotonic() - t2
        self.timings["start"] = time.monotonic() - t0
        if self.verbose:
            print(
                "Kafka %s ready at %s in %.1fs (format %.1fs, broker %.1fs), pid %d, log %s"
                % (self.version, self.bootstrap_servers, self.timings["start"],
                   self.timings["format"], self.timings["ready"], self.pid, self.log_path)
            )
        return self

    def _start_members(self, java: str, libs: Path, timeout: float) -> None:
        """Start every node of a cluster of several: one cluster id, certificates and
        controller quorum; all are launched before any is waited on (the quorum needs a
        majority of them)."""
        members = self._members
        names = members[0]._listener_names()
        ports = _free_ports(len(names) * len(members))
        certs = make_test_certificates(self.workdir / "certs") if self.ssl else None
        self.certs = certs
        self.cluster_id = _new_cluster_id()
        for i, m in enumerate(members):
            m.ports = dict(zip(names, ports[i * len(names):(i + 1) * len(names)]))
        voters = ",".join("%d@127.0.0.1:%d" % (m.node_id, m.ports["CONTROLLER"])
                          for m in members)
        for m in members:
            m.workdir.mkdir(parents=True, exist_ok=True)
            m._close_log()
            m._fresh_storage()
            m.libs_dir, m.certs, m.cluster_id = libs, certs, self.cluster_id
            m.broker_properties["controller.quorum.voters"] = voters
            m._write_config()
        with ThreadPoolExecutor(len(members)) as pool:
            list(pool.map(lambda m: m._format(java, libs), members))
        deadline = time.monotonic() + timeout
        try:
            for m in members:
                m._formatted = True
                m._spawn(java, libs)
            for m in members:
                m._wait_ready(max(deadline - time.monotonic(), 1))
        except BaseException:
            self.kill()
            raise

    def _fresh_storage(self) -> None:
        # Fresh storage every start.
        if self._log_dir_parent is not None:
            if self.data_dir is not None:
                shutil.rmtree(self.data_dir, ignore_errors=True)
            self._log_dir_parent.mkdir(parents=True, exist_ok=True)
            self.data_dir = Path(tempfile.mkdtemp(prefix="kraft-", dir=self._log_dir_parent))
            self._res.remove.append(self.data_dir)
        else:
            self.data_dir = self.workdir / "data"
            if self.data_dir.exists():
                shutil.rmtree(self.data_dir)
            self.data_dir.mkdir()

    def _launch(self, java: str, libs: Path, timeout: float) -> None:
        self._spawn(java, libs)
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.kill()
            raise

    def _spawn(self, java: str, libs: Path) -> None:
        cmd = [java, "-Xms%s" % self.heap_min, "-Xmx%s" % self.heap, *self.jvm_opts]
        cmd += self._cds_opts(java, libs, dump=True)
        cmd += self._logging_opts()
        cmd += ["-Dkafka.logs.dir=%s" % self.workdir, "-cp", self._classpath(libs)]
        cmd += ["kafka.Kafka", str(self.properties_path)]
        self._log_file = open(self.log_path, "ab")
        self._log_file.write(b"\n=== %s: %s\n" % (time.strftime("%Y-%m-%d %H:%M:%S").encode(),
                                                    " ".join(cmd).encode()))
        self._log_file.flush()
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            cwd=str(self.workdir),
            start_new_session=True,  # a terminal's Ctrl-C goes to the test run, not the broker
        )
        self._res.proc = self._proc
        _LIVE.add(self)

    def _wait_ready(self, timeout: float) -> None:
        from ..admin import AdminClient

        deadline = time.monotonic() + timeout
        last_error: Optional[BaseException] = None
        addr = "127.0.0.1:%d" % self.ports["PLAINTEXT"]
        while True:
            assert self._proc is not None
            rc = self._proc.poll()
            if rc is not None:
                raise KafkaClusterError(
                    "Kafka broker exited with code %d during start-up; last lines of %s:\n%s"
                    % (rc, self.log_path, _tail(self.log_path))
                )
            try:
                with AdminClient({"bootstrap.servers": addr, "log_level": 0}) as a:
                    md = a.list_topics(timeout=2.0)
                if self.node_id in md.brokers:
                    return
                last_error = KafkaClusterError("broker not yet in metadata: %r" % md.brokers)
            except Exception as e:  # not up yet: keep polling
                last_error = e
            if time.monotonic() >= deadline:
                raise KafkaClusterError(
                    "Kafka broker not ready after %.0fs (last error: %s); last lines of %s:\n%s"
                    % (timeout, last_error, self.log_path, _tail(self.log_path))
                )
            time.sleep(0.1)

    def restart(self, timeout: float = 90) -> "KafkaCluster":
        """Stop (if running) and start again on the same ports with the same
        data; no re-format.  Also the way back after :meth:`kill`."""
        if not (self._members[0] if self._members else self)._formatted:
            raise KafkaClusterError("restart() needs a cluster started before")
        t0 = time.monotonic()
        if self._members:
            self.stop()
            java, libs = _find_java(self._java), self._libs()
            deadline = t0 + timeout
            for m in self._members:
                m._close_log()
                m._spawn(java, libs)
            try:
                for m in self._members:
                    m._wait_ready(max(deadline - time.monotonic(), 1))
            except BaseException:
                self.kill()
                raise
            self.timings["restart"] = time.monotonic() - t0
            return self
        if self.is_running:
            self.stop()
        self._close_log()
        self._launch(_find_java(self._java), self._libs(), timeout)
        self.timings["restart"] = time.monotonic() - t0
        return self

    def stop(self, timeout: float = 30) -> Optional[int]:
        """SIGTERM (controlled shutdown), wait up to ``timeout``, then SIGKILL.
        Returns the exit code (143 after a normal SIGTERM shutdown; ``None`` if
        it was never started).  Data and ports are kept for :meth:`restart`.
        A cluster of several stops every node (the last one's code is returned)."""
        if self._members:
            # all at once: a node left alone would wait for a controller quorum that is gone
            with ThreadPoolExecutor(len(self._members)) as pool:
                codes = list(pool.map(lambda m: m.stop(timeout), self._members))
            return codes[-1]
        proc = self._proc
        if proc is None:
            return None
        t0 = time.monotonic()
        _process.terminate(proc, timeout)
        self.timings["stop"] = time.monotonic() - t0
        self._close_log()
        _LIVE.discard(self)
        # 143 = exit after SIGTERM (128 + 15): a clean shutdown for the JVM.
        self._cds_finish(clean_exit=proc.returncode in (0, 143))
        return proc.returncode

    def kill(self) -> None:
        """SIGKILL the broker (for fault tests); data is kept, :meth:`restart` recovers.
        A cluster of several: every node."""
        for m in self._members:
            m.kill()
        if self._proc is None:
            return
        _process.kill(self._proc)
        self._close_log()
        _LIVE.discard(self)
        self._cds_finish(clean_exit=False)

    def _close_log(self) -> None:
        f, self._log_file = self._log_file, None
        if f is not None:
            f.close()

    def cleanup(self) -> None:
        """Stop and remove what this object created (a workdir it made, its
        data dir under ``log_dir``).  A ``workdir`` given by the caller stays."""
        if self._members:
            self.kill()   # the data goes: no need for a clean shutdown of each node
        self.stop()
        for m in self._members:
            m.cleanup()
        for path in self._res.remove:
            shutil.rmtree(path, ignore_errors=True)

    def __enter__(self) -> "KafkaCluster":
        if not self.is_running:
            self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.cleanup()

    def __repr__(self) -> str:
        if self._members:
            return "KafkaCluster(%s, %d brokers: %s)" % (
                self.version, len(self._members), ", ".join(
                    "node %d %s" % (m.node_id, "pid %d" % m.pid if m.is_running else "stopped")
                    for m in self._members))
        state = "running pid %d" % self.pid if self.is_running else "stopped"
        where = ", ".join("%s=%d" % kv for kv in self.ports.items()) or "no ports"
        return "KafkaCluster(%s, %s, %s)" % (self.version, where, state)
