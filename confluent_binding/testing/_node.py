"""One Apache Kafka KRaft node (broker and controller in one JVM): its configuration, storage,
process, and the client settings for its listeners.
:class:`~confluent_binding.testing.KafkaCluster` makes, starts and stops its nodes; a test
reaches one through ``cluster.node(node_id)``."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Protocol, Sequence

from .._keywords import properties
from . import _process
from ._certs import TestCertificates
from ._jars import cache_dir
from ._topics import KafkaClusterError, TopicAdmin

__all__ = ["DEFAULT_JVM_OPTS", "KERBEROS_SERVICE", "SASL_USERS", "KafkaNode", "Realm"]

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
SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
#: The broker's Kerberos service name and host: its principal is kafka/127.0.0.1@<realm>, the
#: name a client asks for when it connects to the advertised 127.0.0.1 listener.
KERBEROS_SERVICE = "kafka"
KERBEROS_HOST = "127.0.0.1"
KERBEROS_PRINCIPAL = "%s/%s" % (KERBEROS_SERVICE, KERBEROS_HOST)

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


class Realm(Protocol):
    """What the harness needs of a Kerberos realm (``KafkaCluster(kerberos=...)``): a KDC that
    runs, with the broker's service principal and keytab made on request."""

    @property
    def jvm_opts(self) -> List[str]:
        """JVM flags pointing a Java service at the realm (``-Djava.security.krb5.conf=...``)."""

    def principal(self, name: str) -> str:
        """``name@REALM``."""

    def add_principal(self, name: str, keytab: Optional[os.PathLike] = None) -> Path:
        """Create ``name`` with a random key and write its keytab; returns the keytab's path."""


def new_cluster_id() -> str:
    """A random cluster id as Kafka's ``Uuid.toString()`` writes it (URL-safe base64 of 16
    bytes, no padding), never starting with "-" (a command line would take it for an option)."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not cid.startswith("-"):
            return cid


class Listeners(TopicAdmin):
    """librdkafka settings for the PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL listeners of one
    node or of all nodes of a cluster (``_servers`` says which)."""

    certs: Optional[TestCertificates]
    kerberos: Optional[Realm]

    def _servers(self, listener: str) -> str:
        raise NotImplementedError

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


def listener_names(ssl: bool, sasl: bool) -> List[str]:
    names = ["PLAINTEXT", "CONTROLLER"]
    if ssl:
        names.append("SSL")
    if sasl:
        names.append("SASL_PLAINTEXT")
    if ssl and sasl:
        names.append("SASL_SSL")
    return names


# Running nodes stay referenced here, so a broker is never dropped by the garbage collector
# while it runs; each node's finalizer kills a leftover process at exit.
_LIVE: "set[KafkaNode]" = set()


class KafkaNode(Listeners):
    """One combined broker+controller JVM of a :class:`~confluent_binding.testing.KafkaCluster`.

    Made by the cluster (which passes its settings, see there); the cluster formats and starts
    it.  A test stops, kills, pauses, resumes or restarts one node with the methods here.
    Attributes: ``node_id``, ``workdir`` (``server.properties``, ``broker.log``), ``ports`` (by
    listener name), ``data_dir``, ``cluster_id``, ``certs``, ``keytab``, ``timings``.
    """

    def __init__(self, node_id: int, workdir: Path, *, ssl: bool, sasl: bool, acl: bool,
                 kerberos: Optional[Realm], version: str, broker_properties: Mapping[str, Any],
                 log_dir: Optional[Path], heap: str, heap_min: str, jvm_opts: Sequence[str],
                 log_level: str, class_data_sharing: bool):
        self.node_id = node_id
        self.workdir = Path(workdir)
        self.ssl, self.sasl, self.acl, self.kerberos = ssl, sasl, acl, kerberos
        self.version = version
        self.broker_properties = dict(broker_properties)
        self.heap, self.heap_min = heap, heap_min
        self.jvm_opts = list(jvm_opts)
        self.log_level = log_level
        self.class_data_sharing = class_data_sharing
        self._log_dir_parent = log_dir
        self.data_dir: Optional[Path] = None
        self.cluster_id: Optional[str] = None
        self.ports: Dict[str, int] = {}
        self.voters = ""
        self.certs: Optional[TestCertificates] = None
        self.keytab: Optional[Path] = None
        self.timings: Dict[str, float] = {}
        self._java: Optional[str] = None
        self._libs: Optional[Path] = None
        self._formatted = False
        self._cds_dump: Optional[tuple] = None
        self.process = _process.ServerProcess("Kafka broker (node %d)" % node_id,
                                              self.workdir / "broker.log", KafkaClusterError)
        # At interpreter exit (or garbage collection): kill a leftover broker and remove the
        # data directories made under log_dir (the cluster starts and cleans up the node).
        self._res = _process.track(self, servers=[self.process])

    # -- paths / state ------------------------------------------------------------------

    @property
    def log_path(self) -> Path:
        """The broker's stdout/stderr (its log4j console output)."""
        return self.process.log_path

    @property
    def properties_path(self) -> Path:
        """The ``server.properties`` file this broker is started with."""
        return self.workdir / "server.properties"

    @property
    def pid(self) -> Optional[int]:
        """The broker JVM's process id, or None while it is not started."""
        return self.process.pid

    @property
    def is_running(self) -> bool:
        """True while the broker's process runs."""
        return self.process.is_running

    def _servers(self, listener: str) -> str:
        if listener not in self.ports:
            if not self.ports:
                raise KafkaClusterError("the cluster has not been started")
            raise KafkaClusterError(
                "no %s listener (construct with the matching option)" % listener)
        return "127.0.0.1:%d" % self.ports[listener]

    def _listener_names(self) -> List[str]:
        return listener_names(self.ssl, self.sasl)

    # -- configuration ------------------------------------------------------------------

    def server_properties(self) -> Dict[str, str]:
        """The ``server.properties`` this node runs with (once its cluster has picked ports)."""
        p = self.ports
        assert self.data_dir is not None
        listeners = ["%s://127.0.0.1:%d" % (n, p[n]) for n in self._listener_names()]
        advertised = [x for x in listeners if not x.startswith("CONTROLLER:")]
        props: Dict[str, str] = {
            "process.roles": "broker,controller",
            "node.id": str(self.node_id),
            "controller.quorum.voters": (
                self.voters or "%d@127.0.0.1:%d" % (self.node_id, p["CONTROLLER"])),
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
            props.update(self._sasl_properties())
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

    def _sasl_properties(self) -> Dict[str, str]:
        props = {"sasl.enabled.mechanisms": "PLAIN,OAUTHBEARER," + ",".join(SCRAM_MECHANISMS)}
        plain = "org.apache.kafka.common.security.plain.PlainLoginModule required " + " ".join(
            ['username="admin"', 'password="%s"' % SASL_USERS["admin"]]
            + ['user_%s="%s"' % (u, pw) for u, pw in SASL_USERS.items()]
        ) + ";"
        scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        # OAUTHBEARER with Kafka's unsecured validator: any well-formed JWT with alg "none", a
        # subject and an "exp" still to come is accepted (clients set tokens with oauth_cb)
        oauth = ("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
                 ' unsecuredLoginStringClaim_sub="admin";')
        gssapi = None
        if self.kerberos is not None:
            assert self.keytab is not None
            props["sasl.enabled.mechanisms"] += ",GSSAPI"
            props["sasl.kerberos.service.name"] = KERBEROS_SERVICE
            gssapi = (
                "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true "
                'storeKey=true keyTab="%s" principal="%s";'
                % (self.keytab, self.kerberos.principal(KERBEROS_PRINCIPAL)))
        for listener in [n for n in self._listener_names() if n.startswith("SASL_")]:
            prefix = "listener.name.%s." % listener.lower()
            props[prefix + "plain.sasl.jaas.config"] = plain
            props[prefix + "oauthbearer.sasl.jaas.config"] = oauth
            for mech in SCRAM_MECHANISMS:
                props[prefix + mech.lower() + ".sasl.jaas.config"] = scram
            if gssapi is not None:
                props[prefix + "gssapi.sasl.jaas.config"] = gssapi
        return props

    def _write_config(self) -> None:
        lines = ["# generated by confluent_binding.testing.KafkaCluster"]
        for k, v in self.server_properties().items():
            lines.append("%s=%s" % (k, v.replace("\\", "\\\\").replace("\n", "\\n")))
        self.properties_path.write_text("\n".join(lines) + "\n")
        for name, level in (("broker", self.log_level), ("tool", "WARN")):
            self._log_config_path(name).write_text(_LOG4J2.format(level=level))

    def _log_config_path(self, name: str) -> Path:
        return self.workdir / ("log4j2-%s.properties" % name)

    def _logging_opts(self, name: str = "broker") -> List[str]:
        return ["-Dlog4j2.configurationFile=%s" % self._log_config_path(name)]

    # -- class data sharing -------------------------------------------------------------

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

    # -- lifecycle (the cluster calls these) ---------------------------------------------

    def _prepare(self, java: str, libs: Path, cluster_id: str, ports: Dict[str, int],
                 voters: str, certs: Optional[TestCertificates],
                 keytab: Optional[Path]) -> None:
        """Fresh, empty storage and the configuration for a first start."""
        self._java, self._libs = java, libs
        self.cluster_id, self.ports, self.voters = cluster_id, ports, voters
        self.certs, self.keytab = certs, keytab
        self.workdir.mkdir(parents=True, exist_ok=True)
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
        self._formatted = False
        self._write_config()

    def _format(self, scram_users: bool) -> None:
        """Kafka's StorageTool: write the cluster id (and SCRAM credentials) into the storage."""
        java, libs = self._java, self._libs
        assert java is not None and libs is not None and self.cluster_id is not None
        cmd = [java, *_TOOL_JVM_OPTS, *self._cds_opts(java, libs, dump=False),
               *self._logging_opts("tool"), "-cp", str(libs / "*")]
        cmd += ["kafka.tools.StorageTool", "format", "--cluster-id=%s" % self.cluster_id]
        cmd += ["--config=%s" % self.properties_path]
        # Share groups (KIP-932) are a preview feature in 4.1: enabled by the
        # share.version feature level, which can be set when the storage is formatted.
        cmd += ["--feature", "share.version=1"]
        if scram_users:
            for user, pw in SASL_USERS.items():
                for mech in SCRAM_MECHANISMS:
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
        self._formatted = True

    def _spawn(self) -> None:
        java, libs = self._java, self._libs
        assert java is not None and libs is not None
        cmd = [java, "-Xms%s" % self.heap_min, "-Xmx%s" % self.heap, *self.jvm_opts]
        cmd += self._cds_opts(java, libs, dump=True)
        cmd += self._logging_opts()
        cmd += ["-Dkafka.logs.dir=%s" % self.workdir, "-cp", str(libs / "*")]
        cmd += ["kafka.Kafka", str(self.properties_path)]
        self.process.start(cmd, cwd=self.workdir)
        _LIVE.add(self)

    def _wait_ready(self, timeout: float) -> None:
        """Until the node answers a Metadata request (PLAINTEXT) that lists itself."""
        from ..admin import AdminClient

        addr = "127.0.0.1:%d" % self.ports["PLAINTEXT"]

        def lists_itself() -> bool:
            with AdminClient({"bootstrap.servers": addr, "log_level": 0}) as a:
                md = a.list_topics(timeout=2.0)
            if self.node_id not in md.brokers:
                raise KafkaClusterError("broker not yet in metadata: %r" % md.brokers)
            return True

        self.process.wait_ready(lists_itself, timeout)

    # -- one node's faults ---------------------------------------------------------------

    def restart(self, timeout: float = 90) -> "KafkaNode":
        """Stop (if running) and start again on the same ports with the same data; no
        re-format.  Also the way back after :meth:`kill`."""
        if not self._formatted:
            raise KafkaClusterError("restart() needs a cluster started before")
        t0 = time.monotonic()
        if self.is_running:
            self.stop()
        self._spawn()
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.kill()
            raise
        self.timings["restart"] = time.monotonic() - t0
        return self

    def stop(self, timeout: float = 30) -> Optional[int]:
        """SIGTERM (controlled shutdown), wait up to ``timeout``, then SIGKILL.  Returns the exit
        code (143 after a normal SIGTERM shutdown; ``None`` if it was never started).  Data and
        ports are kept for :meth:`restart`."""
        if self.process.proc is None:
            return None
        t0 = time.monotonic()
        rc = self.process.stop(timeout)
        self.timings["stop"] = time.monotonic() - t0
        _LIVE.discard(self)
        # 143 = exit after SIGTERM (128 + 15): a clean shutdown for the JVM.
        self._cds_finish(clean_exit=rc in (0, 143))
        return rc

    def kill(self) -> None:
        """SIGKILL the broker (for fault tests); data is kept, :meth:`restart` recovers."""
        if self.process.proc is None:
            return
        self.process.kill()
        _LIVE.discard(self)
        self._cds_finish(clean_exit=False)

    def pause(self) -> None:
        """SIGSTOP: connections stay open, nothing answers, until :meth:`resume`.  Returns once
        the process is stopped."""
        self.process.pause()

    def resume(self) -> None:
        """SIGCONT what :meth:`pause` stopped; returns once the process runs again."""
        self.process.resume()

    def __repr__(self) -> str:
        state = "running pid %s" % self.pid if self.is_running else "stopped"
        where = ", ".join("%s=%d" % kv for kv in self.ports.items()) or "no ports"
        return "KafkaNode(%d, %s, %s)" % (self.node_id, where, state)
