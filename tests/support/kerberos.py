"""A real MIT Kerberos KDC for the GSSAPI tests: one realm on a free loopback port, in a
directory of its own.

Needs MIT Kerberos' server tools (Debian: ``krb5-kdc`` and ``krb5-admin-server`` for
``krb5kdc``, ``kdb5_util``, ``kadmin.local``; ``krb5-user`` for the ``kinit`` clients run). Nothing
of the system's Kerberos set-up is used or changed: the realm has its own ``krb5.conf`` (point
clients at it with :attr:`KerberosRealm.env`; a JVM with :attr:`KerberosRealm.jvm_opts`), its own
database and log files, and the KDC runs as a child process on loopback.

Example::

    with KerberosRealm() as realm:
        keytab = realm.add_principal("alice", tmp / "alice.keytab")
        with KafkaCluster(kerberos=realm) as kafka:
            conf = kafka.gssapi_client_config(realm.principal("alice"), keytab)
            # run the client with realm.env (KRB5_CONFIG) in its environment
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from confluent_binding.testing import _process

__all__ = ["DEFAULT_REALM", "KerberosError", "KerberosRealm"]

DEFAULT_REALM = "CONFLUENT-BINDING.TEST"
# Both understood by MIT Kerberos and Java 17.
_ENCTYPES = "aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal"
# The server tools live in sbin, which a non-root PATH may lack.
_SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin",
                                "/usr/local/sbin"])


class KerberosError(RuntimeError):
    """The KDC could not be set up, started or administered."""


def _tool(name: str) -> str:
    found = shutil.which(name, path=_SEARCH_PATH)
    if not found:
        raise KerberosError(
            "%r not found: MIT Kerberos' KDC tools are needed (Debian: apt-get install "
            "krb5-kdc krb5-admin-server krb5-user)" % name)
    return found


def _free_port() -> int:
    """A port free for both TCP and UDP on 127.0.0.1 (the KDC serves both on one port)."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            tcp.bind(("127.0.0.1", 0))
            port = tcp.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                try:
                    udp.bind(("127.0.0.1", port))
                except OSError:
                    continue
            return port
    raise KerberosError("no port free for both TCP and UDP on 127.0.0.1")


class KerberosRealm(_process.OneProcess, _process.Launcher):
    """An MIT KDC serving ``realm`` on ``127.0.0.1:<free port>`` (TCP and UDP).

    Parameters:
      realm: the realm name (upper case by convention).
      workdir: directory for the configuration, database, logs and keytabs made by
        :meth:`add_principal` without a path; default a fresh temporary directory removed by
        :meth:`cleanup` / the context manager.

    Host names are not canonicalised (``dns_canonicalize_hostname`` and ``rdns`` are off in its
    ``krb5.conf``): a client asking for service ``kafka`` on host ``127.0.0.1`` gets a ticket
    for ``kafka/127.0.0.1@<realm>``, whatever the machine's resolver says.
    """

    def __init__(self, realm: str = DEFAULT_REALM, workdir: Optional[os.PathLike] = None):
        self.realm = realm
        made = workdir is None
        self.workdir = Path(workdir if workdir is not None
                            else tempfile.mkdtemp(prefix="kerberos-realm-"))
        self.process = _process.ServerProcess("krb5kdc", self.workdir / "krb5kdc.out",
                                              KerberosError, also_tail=[self.workdir / "kdc.log"])
        self._res = _process.track(self, servers=[self.process],
                                   remove=[self.workdir] if made else [])
        self.port: Optional[int] = None

    # -- paths and client settings ----------------------------------------------------

    @property
    def krb5_conf(self) -> Path:
        """The realm's client configuration (``KRB5_CONFIG``, ``java.security.krb5.conf``)."""
        return self.workdir / "krb5.conf"

    @property
    def kdc_conf(self) -> Path:
        return self.workdir / "kdc.conf"

    @property
    def log_path(self) -> Path:
        return self.workdir / "kdc.log"

    @property
    def env(self) -> Dict[str, str]:
        """Environment for Kerberos clients of this realm (kinit, libraries)."""
        return {"KRB5_CONFIG": str(self.krb5_conf)}

    @property
    def jvm_opts(self) -> List[str]:
        """JVM flags for a Java service (e.g. the Kafka broker) of this realm."""
        return ["-Djava.security.krb5.conf=%s" % self.krb5_conf]

    def principal(self, name: str) -> str:
        """``name@REALM`` (``name`` as given when it already names a realm)."""
        return name if "@" in name else "%s@%s" % (name, self.realm)

    def _tool_env(self) -> Dict[str, str]:
        return dict(os.environ, KRB5_CONFIG=str(self.krb5_conf),
                    KRB5_KDC_PROFILE=str(self.kdc_conf))

    def _run(self, *cmd: str) -> str:
        proc = subprocess.run(list(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, env=self._tool_env(),
                              cwd=str(self.workdir))
        out = proc.stdout.decode("utf-8", "replace")
        if proc.returncode != 0:
            raise KerberosError("%s failed (exit %d): %s"
                                % (" ".join(cmd), proc.returncode, out.strip()[-2000:]))
        return out

    # -- set-up -------------------------------------------------------------------------

    def _write_config(self) -> None:
        w = self.workdir
        self.krb5_conf.write_text(
            "[libdefaults]\n"
            "    default_realm = {realm}\n"
            "    dns_lookup_realm = false\n"
            "    dns_lookup_kdc = false\n"
            "    dns_canonicalize_hostname = false\n"
            "    rdns = false\n"
            "    udp_preference_limit = 1\n"
            "    ticket_lifetime = 1h\n"
            "    default_ccache_name = FILE:{ccache}\n"
            "[realms]\n"
            "    {realm} = {{\n"
            "        kdc = 127.0.0.1:{port}\n"
            "    }}\n"
            "[domain_realm]\n"
            "    127.0.0.1 = {realm}\n"
            "    localhost = {realm}\n".format(realm=self.realm, port=self.port,
                                             ccache=w / "ccache"))
        self.kdc_conf.write_text(
            "[kdcdefaults]\n"
            "    kdc_listen = 127.0.0.1:{port}\n"
            "    kdc_tcp_listen = 127.0.0.1:{port}\n"
            "[realms]\n"
            "    {realm} = {{\n"
            "        database_name = {db}\n"
            "        key_stash_file = {stash}\n"
            "        acl_file = {acl}\n"
            "        max_life = 1h\n"
            "        supported_enctypes = {enctypes}\n"
            "    }}\n"
            "[logging]\n"
            "    kdc = FILE:{log}\n"
            "    admin_server = FILE:{w}/kadmin.log\n"
            "    default = FILE:{w}/krb5.log\n".format(
                realm=self.realm, port=self.port, db=w / "principal", stash=w / "stash",
                acl=w / "kadm5.acl", enctypes=_ENCTYPES, log=self.log_path, w=w))
        (w / "kadm5.acl").write_text("")

    def start(self, timeout: float = 30) -> "KerberosRealm":
        """Create the realm's database and start its KDC; returns when the KDC accepts TCP."""
        if self.is_running:
            raise KerberosError("krb5kdc already running (pid %s)" % self.process.pid)
        krb5kdc, kdb5_util = _tool("krb5kdc"), _tool("kdb5_util")
        _tool("kadmin.local")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self._write_config()
        for old in [*self.workdir.glob("principal*"), self.workdir / "stash"]:
            old.unlink(missing_ok=True)   # a database of an earlier start
        self._run(kdb5_util, "-r", self.realm, "create", "-s", "-P", secrets.token_hex(16))
        self.process.start([krb5kdc, "-n", "-r", self.realm], cwd=self.workdir,
                           env=self._tool_env())
        try:
            self.process.wait_ready(self._accepts_tcp, timeout, interval=0.05)
        except BaseException:
            self.process.kill()
            raise
        return self

    def _accepts_tcp(self) -> bool:
        assert self.port is not None
        socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        return True

    # -- principals ---------------------------------------------------------------------

    def add_principal(self, name: str, keytab: Optional[os.PathLike] = None) -> Path:
        """Create ``name`` (``user`` or ``service/host``) with a random key and write its
        keytab (default ``<workdir>/<name>.keytab``). Returns the keytab's path."""
        self._run(_tool("kadmin.local"), "-r", self.realm, "-q",
                  "addprinc -randkey %s" % self.principal(name))
        return self.export_keytab(name, keytab)

    def export_keytab(self, name: str, keytab: Optional[os.PathLike] = None) -> Path:
        """Give ``name`` a new random key and write it to ``keytab``: keytabs written before
        for ``name`` are stale from now on (their key no longer matches the KDC's)."""
        path = Path(keytab) if keytab is not None else (
            self.workdir / ("%s.keytab" % name.replace("/", "_")))
        path.parent.mkdir(parents=True, exist_ok=True)
        self._run(_tool("kadmin.local"), "-r", self.realm, "-q",
                  "ktadd -k %s %s" % (path, self.principal(name)))
        return path

    def delete_principal(self, name: str) -> None:
        """Remove ``name`` from the realm (its keytabs then name an unknown principal)."""
        self._run(_tool("kadmin.local"), "-r", self.realm, "-q",
                  "delprinc -force %s" % self.principal(name))

    # -- end ----------------------------------------------------------------------------

    def stop(self, timeout: float = 10) -> None:
        """Stop the KDC (the database stays; :meth:`start` makes a new one)."""
        self.process.stop(timeout)

    def __repr__(self) -> str:
        state = "running pid %s" % self.process.pid if self.is_running else "stopped"
        return "KerberosRealm(%s, port %s, %s)" % (self.realm, self.port, state)
