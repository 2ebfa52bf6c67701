"""A real Apache Kafka (KRaft) cluster run as local JVM processes.

The broker jars come from Maven Central (:func:`ensure_kafka_jars`); no Kafka
distribution, Docker or network access beyond that is needed.  Each node
(:class:`~confluent_binding.testing.KafkaNode`) plays both roles
(``process.roles=broker,controller``) in one static controller quorum, listens
on free loopback ports and keeps its data in a temporary directory.  One node by
default; ``KafkaCluster(brokers=3)`` runs three, each of which can be killed,
paused and restarted on its own (:meth:`KafkaCluster.node`).

Example::

    with KafkaCluster() as kafka:
        kafka.create_topic("orders", partitions=3)
        conf = kafka.client_config(group_id="g1")   # librdkafka config dict

    with KafkaCluster(brokers=3, min_insync_replicas=2) as kafka:
        kafka.create_topic("orders", partitions=6)  # replication factor 3
        kafka.node(kafka.leader("orders", 0)).kill()
"""

from __future__ import annotations

import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import _process
from ._certs import TestCertificates, make_test_certificates
from ._jars import DEFAULT_KAFKA_VERSION, check_kafka_version, ensure_kafka_jars
from ._node import (
    DEFAULT_JVM_OPTS,
    KERBEROS_PRINCIPAL,
    KafkaNode,
    Listeners,
    Realm,
    listener_names,
    new_cluster_id,
)
from ._topics import KafkaClusterError, TopicAdmin

__all__ = ["KafkaCluster"]


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


class KafkaCluster(Listeners, _process.Launcher):
    """Combined broker+controller KRaft nodes on loopback: one by default.

    Parameters:
      brokers: how many nodes (each a broker and a voter of the one controller
        quorum, so a cluster of 3 keeps working with any one node down).  The
        members are :attr:`nodes` (:class:`~confluent_binding.testing.KafkaNode`,
        node ids 1..n; :meth:`node`); :meth:`kill`, :meth:`restart`, :meth:`stop`,
        :meth:`pause` and :meth:`resume` of the cluster act on all of them, the
        same methods of a node on that broker.
      replication_factor: replicas of a topic created without one and of the
        internal topics (default: every broker, at most 3).
      min_insync_replicas: the brokers' ``min.insync.replicas`` (default 1).
      ssl: add an ``SSL`` listener with certificates made at :meth:`start`.
      sasl: add a ``SASL_PLAINTEXT`` listener (PLAIN, SCRAM-SHA-256/512; users
        in :data:`SASL_USERS`).  With both, a ``SASL_SSL`` listener too.
      acl: enforce ACLs with KRaft's ``StandardAuthorizer``: ``User:admin`` and
        the unauthenticated listeners' ``User:ANONYMOUS`` are super users, every
        other principal (e.g. SASL user ``alice``) needs ACLs.
      kerberos: a running Kerberos realm (an object with ``jvm_opts``,
        ``principal(name)`` and ``add_principal(name, keytab)``, such as the test
        suite's MIT KDC launcher): the SASL listeners (implies ``sasl``) also offer
        GSSAPI; :meth:`start` creates the broker's principal ``kafka/127.0.0.1`` and
        keytab in the realm.  Clients: :meth:`gssapi_client_config`.
      version: Apache Kafka version, 4.0 or newer (jars fetched by
        :func:`ensure_kafka_jars`).
      broker_properties: overrides for ``server.properties`` (``None`` value
        removes a key).
      workdir: directory for config, certificates, log file and (unless
        ``log_dir``) data; default a fresh temporary directory removed by
        :meth:`cleanup` / the context manager.  A cluster of several nodes keeps
        each node's files in ``workdir/node-<id>``.
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
    launch until Metadata lists every broker), ``start`` (total); :meth:`stop`
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
        kerberos: Optional[Realm] = None,
    ):
        check_kafka_version(version)
        self.ssl = bool(ssl)
        self.kerberos = kerberos
        self.sasl = bool(sasl) or kerberos is not None
        self.acl = bool(acl)
        self.version = version
        replication = _replication_properties(brokers, replication_factor, min_insync_replicas)
        self.broker_properties = {**replication, **(broker_properties or {})}
        self._owns_workdir = workdir is None
        self.workdir = (Path(workdir) if workdir is not None
                        else Path(tempfile.mkdtemp(prefix="kafka-cluster-")))
        # each node's finalizer kills its own process; this one removes the workdir it made
        self._res = _process.track(self, remove=[self.workdir] if self._owns_workdir else [])
        self.heap = heap
        self.heap_min = heap_min
        self.jvm_opts = list(DEFAULT_JVM_OPTS if jvm_opts is None else jvm_opts)
        if fast_startup:
            self.jvm_opts.append("-XX:TieredStopAtLevel=1")
        if kerberos is not None:
            self.jvm_opts += kerberos.jvm_opts
        self.jvm_opts += list(extra_jvm_opts)
        self.class_data_sharing = class_data_sharing
        self.libs_dir = Path(libs_dir) if libs_dir is not None else None
        self._java = java
        self.log_level = log_level
        self.verbose = verbose
        self.cluster_id: Optional[str] = None
        self.certs: Optional[TestCertificates] = None
        self.keytab: Optional[Path] = None
        self.timings: Dict[str, float] = {}
        self._started = False
        self._nodes = [
            KafkaNode(node_id,
                      self.workdir if brokers == 1 else self.workdir / ("node-%d" % node_id),
                      ssl=self.ssl, sasl=self.sasl, acl=self.acl, kerberos=kerberos,
                      version=version, broker_properties=self.broker_properties,
                      log_dir=Path(log_dir) if log_dir is not None else None, heap=heap,
                      heap_min=heap_min, jvm_opts=self.jvm_opts, log_level=log_level,
                      class_data_sharing=class_data_sharing)
            for node_id in range(1, brokers + 1)]

    # -- nodes ----------------------------------------------------------------------------

    @property
    def nodes(self) -> List[KafkaNode]:
        """The brokers, in node id order."""
        return list(self._nodes)

    def node(self, node_id: int) -> KafkaNode:
        """The broker with this node id (1..brokers)."""
        for n in self._nodes:
            if n.node_id == node_id:
                return n
        raise KeyError("no node %r (node ids: %s)" % (node_id, [n.node_id for n in self._nodes]))

    def leader(self, topic: str, partition: int) -> int:
        """Node id of the partition's leader now (-1 while it has none)."""
        return self.metadata([topic]).topics[topic].partitions[partition].leader

    def _metadata_views(self) -> Sequence[TopicAdmin]:
        if len(self._nodes) == 1:
            return (self,)
        return [n for n in self._nodes if n.is_running and not n.process.is_paused]

    def _single(self) -> Optional[KafkaNode]:
        return self._nodes[0] if len(self._nodes) == 1 else None

    # -- one node's state, for a cluster of one ----------------------------------------------

    @property
    def node_id(self) -> Optional[int]:
        """1 for a cluster of one (``None`` for several: see :meth:`node`)."""
        one = self._single()
        return one.node_id if one is not None else None

    @property
    def pid(self) -> Optional[int]:
        """The broker's process id (``None`` for a cluster of several: see :meth:`node`)."""
        one = self._single()
        return one.pid if one is not None else None

    @property
    def ports(self) -> Dict[str, int]:
        """The broker's ports by listener name (a cluster of several: see :meth:`node`)."""
        one = self._single()
        return one.ports if one is not None else {}

    @property
    def log_path(self) -> Path:
        """The broker's stdout/stderr (a cluster of several: the first node's)."""
        return self._nodes[0].log_path

    @property
    def properties_path(self) -> Path:
        """The ``server.properties`` file the broker is started with (a cluster of several: the
        first node's; each node's is :meth:`node`'s ``properties_path``)."""
        return self._nodes[0].properties_path

    @property
    def data_dir(self) -> Optional[Path]:
        """The broker's log directory (``log.dirs``: the topics' partitions and the KRaft
        metadata log), made fresh and empty by :meth:`start`; ``None`` before the first start.
        A cluster of several: the first node's."""
        return self._nodes[0].data_dir

    def server_properties(self) -> Dict[str, str]:
        """The ``server.properties`` the (first) broker runs with, after :meth:`start`."""
        return self._nodes[0].server_properties()

    @property
    def is_running(self) -> bool:
        """Every broker runs."""
        return all(n.is_running for n in self._nodes)

    def _servers(self, listener: str) -> str:
        return ",".join(n._servers(listener) for n in self._nodes)

    def _listener_names(self) -> List[str]:
        return listener_names(self.ssl, self.sasl)

    # -- lifecycle --------------------------------------------------------------------------

    def _libs(self) -> Path:
        if self.libs_dir is None:
            self.libs_dir = ensure_kafka_jars(self.version, verbose=self.verbose)
        return self.libs_dir

    def start(self, timeout: float = 90) -> "KafkaCluster":
        """Start fresh brokers: new ports, empty formatted storage, new cluster id.

        All nodes are launched before any is waited on (the controller quorum needs a
        majority of them); returns once each answers a Metadata request listing itself on
        the PLAINTEXT listener.  Raises :class:`KafkaClusterError` (with the tail of the
        broker log) if a JVM exits or ``timeout`` passes.
        """
        if any(n.is_running for n in self._nodes):
            raise KafkaClusterError("already running (%r)" % self)
        t0 = time.monotonic()
        libs = self._libs()
        java = _process.find_java(self._java, KafkaClusterError)
        self.workdir.mkdir(parents=True, exist_ok=True)
        names = self._listener_names()
        ports = _process.free_ports(len(names) * len(self._nodes))
        self.certs = make_test_certificates(self.workdir / "certs") if self.ssl else None
        if self.kerberos is not None and self.keytab is None:
            self.keytab = self.kerberos.add_principal(KERBEROS_PRINCIPAL,
                                                      self.workdir / "kafka.keytab")
        self.cluster_id = new_cluster_id()
        node_ports = [dict(zip(names, ports[i * len(names):(i + 1) * len(names)]))
                      for i in range(len(self._nodes))]
        voters = ",".join("%d@127.0.0.1:%d" % (n.node_id, p["CONTROLLER"])
                          for n, p in zip(self._nodes, node_ports))
        for n, p in zip(self._nodes, node_ports):
            n._prepare(java, libs, self.cluster_id, p, voters, self.certs, self.keytab)
        t1 = time.monotonic()
        with ThreadPoolExecutor(len(self._nodes)) as pool:
            list(pool.map(lambda n: n._format(scram_users=self.sasl), self._nodes))
        self._started = True
        t2 = time.monotonic()
        self._launch_all(timeout)
        t3 = time.monotonic()
        self.timings = {"prepare": t1 - t0, "format": t2 - t1, "ready": t3 - t2,
                        "start": t3 - t0}
        if self.verbose:
            print("Kafka %s ready at %s in %.1fs (format %.1fs, brokers %.1fs), pids %s, log %s"
                  % (self.version, self.bootstrap_servers, self.timings["start"],
                     self.timings["format"], self.timings["ready"],
                     [n.pid for n in self._nodes], self.log_path))
        return self

    def _launch_all(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        try:
            for n in self._nodes:
                n._spawn()
            for n in self._nodes:
                n._wait_ready(max(deadline - time.monotonic(), 1))
        except BaseException:
            self.kill()
            raise

    def restart(self, timeout: float = 90) -> "KafkaCluster":
        """Stop (if running) and start again on the same ports with the same data; no
        re-format.  Also the way back after :meth:`kill`."""
        if not self._started:
            raise KafkaClusterError("restart() needs a cluster started before")
        t0 = time.monotonic()
        self.stop()
        self._launch_all(timeout)
        self.timings["restart"] = time.monotonic() - t0
        return self

    def stop(self, timeout: float = 30) -> Optional[int]:
        """SIGTERM (controlled shutdown), wait up to ``timeout``, then SIGKILL.
        Returns the exit code (143 after a normal SIGTERM shutdown; ``None`` if
        it was never started; of several nodes, the last one's).  Data and ports
        are kept for :meth:`restart`."""
        t0 = time.monotonic()
        # all at once: a node left alone would wait for a controller quorum that is gone
        with ThreadPoolExecutor(len(self._nodes)) as pool:
            codes = list(pool.map(lambda n: n.stop(timeout), self._nodes))
        if self._started:
            self.timings["stop"] = time.monotonic() - t0
        return codes[-1]

    def kill(self) -> None:
        """SIGKILL every broker (for fault tests); data is kept, :meth:`restart` recovers."""
        for n in self._nodes:
            n.kill()

    def pause(self) -> None:
        """SIGSTOP every broker: connections stay open, nothing answers, until :meth:`resume`.
        Returns once the processes are stopped."""
        for n in self._nodes:
            n.pause()

    def resume(self) -> None:
        """SIGCONT what :meth:`pause` stopped; returns once the processes run again."""
        for n in self._nodes:
            n.resume()

    def cleanup(self) -> None:
        """Stop and remove what this object created (a workdir it made, data dirs under
        ``log_dir``).  A ``workdir`` given by the caller stays."""
        if len(self._nodes) > 1:
            self.kill()   # the data goes: no need for a clean shutdown of each node
        super().cleanup()

    def _remove_files(self) -> None:
        for n in self._nodes:
            n._res.remove_files()
        super()._remove_files()

    def __repr__(self) -> str:
        one = self._single()
        if one is None:
            return "KafkaCluster(%s, %d brokers: %s)" % (
                self.version, len(self._nodes), ", ".join(
                    "node %d %s" % (n.node_id, "pid %s" % n.pid if n.is_running else "stopped")
                    for n in self._nodes))
        state = "running pid %s" % one.pid if one.is_running else "stopped"
        where = ", ".join("%s=%d" % kv for kv in one.ports.items()) or "no ports"
        return "KafkaCluster(%s, %s, %s)" % (self.version, where, state)
