"""A tiny, blocking, pure-Python Kafka protocol client (stdlib only).

It exists so the test harness can check broker readiness and create or delete
topics without depending on the compiled client under test.  Only the handful
of requests the harness needs are implemented, and only in their
*non-flexible* versions (no tagged fields):

=================  ===  ===============  =========================
API                key  versions used    Kafka 4.1 accepts
=================  ===  ===============  =========================
Metadata             3  1..8             0..13
SaslHandshake       17  0..1             0..1
ApiVersions         18  0                0..4
CreateTopics        19  2..4             2..7
DeleteTopics        20  1..3             1..6
SaslAuthenticate    36  0..1             0..2
=================  ===  ===============  =========================

The version of each request is picked from the broker's ApiVersions answer:
the highest version that both sides support.

Security: ``ssl_context`` wraps the socket in TLS; ``sasl_mechanism`` (PLAIN,
SCRAM-SHA-256, SCRAM-SHA-512) authenticates with SaslHandshake v1 followed by
SaslAuthenticate, like a modern client.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

__all__ = [
    "API_KEYS",
    "BrokerMetadata",
    "ClusterMetadata",
    "KafkaProtocolError",
    "KafkaWireClient",
    "PartitionMetadata",
    "TopicMetadata",
    "error_name",
    "parse_bootstrap_servers",
]

# API keys used here (plus a few names for nicer ApiVersions output).
API_KEYS = {
    0: "Produce",
    1: "Fetch",
    2: "ListOffsets",
    3: "Metadata",
    8: "OffsetCommit",
    9: "OffsetFetch",
    10: "FindCoordinator",
    11: "JoinGroup",
    12: "Heartbeat",
    13: "LeaveGroup",
    14: "SyncGroup",
    17: "SaslHandshake",
    18: "ApiVersions",
    19: "CreateTopics",
    20: "DeleteTopics",
    36: "SaslAuthenticate",
    49: "AlterClientQuotas",
}

METADATA = 3
SASL_HANDSHAKE = 17
API_VERSIONS = 18
CREATE_TOPICS = 19
DELETE_TOPICS = 20
SASL_AUTHENTICATE = 36
ALTER_CLIENT_QUOTAS = 49

# Highest non-flexible version implemented here, per API key.
_MAX_IMPLEMENTED = {
    METADATA: 8,
    SASL_HANDSHAKE: 1,
    API_VERSIONS: 0,
    CREATE_TOPICS: 4,
    DELETE_TOPICS: 3,
    SASL_AUTHENTICATE: 1,
    ALTER_CLIENT_QUOTAS: 0,
}
_MIN_IMPLEMENTED = {
    METADATA: 1,
    SASL_HANDSHAKE: 0,
    API_VERSIONS: 0,
    CREATE_TOPICS: 2,
    DELETE_TOPICS: 1,
    SASL_AUTHENTICATE: 0,
    ALTER_CLIENT_QUOTAS: 0,
}

_ERRORS = {
    -1: "UNKNOWN_SERVER_ERROR",
    0: "NONE",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    8: "BROKER_NOT_AVAILABLE",
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    17: "INVALID_TOPIC_EXCEPTION",
    29: "TOPIC_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    33: "UNSUPPORTED_SASL_MECHANISM",
    34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION",
    36: "TOPIC_ALREADY_EXISTS",
    37: "INVALID_PARTITIONS",
    38: "INVALID_REPLICATION_FACTOR",
    39: "INVALID_REPLICA_ASSIGNMENT",
    40: "INVALID_CONFIG",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
    44: "POLICY_VIOLATION",
    58: "SASL_AUTHENTICATION_FAILED",
    73: "TOPIC_DELETION_DISABLED",
    87: "THROTTLING_QUOTA_EXCEEDED",
}

TOPIC_ALREADY_EXISTS = 36
UNKNOWN_TOPIC_OR_PARTITION = 3


def error_name(code: int) -> str:
    return _ERRORS.get(code, "ERROR_%d" % code)


class KafkaProtocolError(Exception):
    """A Kafka error code in a response, or a broken/unsupported exchange."""

    def __init__(self, message: str, error_code: Optional[int] = None):
        super().__init__(message)
        self.error_code = error_code


# --------------------------------------------------------------------------
# Encoding / decoding helpers


def _i8(v: int) -> bytes:
    return struct.pack(">b", v)


def _i16(v: int) -> bytes:
    return struct.pack(">h", v)


def _i32(v: int) -> bytes:
    return struct.pack(">i", v)


def _f64(v: float) -> bytes:
    return struct.pack(">d", v)


def _bool(v: bool) -> bytes:
    return b"\x01" if v else b"\x00"


def _string(s: Optional[str]) -> bytes:
    if s is None:
        return _i16(-1)
    b = s.encode("utf-8")
    return _i16(len(b)) + b


def _bytes(b: Optional[bytes]) -> bytes:
    if b is None:
        return _i32(-1)
    return _i32(len(b)) + b


def _array(items: Optional[Sequence[bytes]]) -> bytes:
    if items is None:
        return _i32(-1)
    return _i32(len(items)) + b"".join(items)


class _Reader:
    __slots__ = ("buf", "pos")

    def __init__(self, buf: bytes):
        self.buf = buf
        self.pos = 0

    def _take(self, fmt: str, size: int):
        if self.pos + size > len(self.buf):
            raise KafkaProtocolError("truncated response")
        (v,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return v

    def i8(self) -> int:
        return self._take(">b", 1)

    def bool(self) -> bool:
        return self._take(">b", 1) != 0

    def i16(self) -> int:
        return self._take(">h", 2)

    def i32(self) -> int:
        return self._take(">i", 4)

    def i64(self) -> int:
        return self._take(">q", 8)

    def raw(self, n: int) -> bytes:
        if self.pos + n > len(self.buf):
            raise KafkaProtocolError("truncated response")
        b = self.buf[self.pos : self.pos + n]
        self.pos += n
        return b

    def string(self) -> Optional[str]:
        n = self.i16()
        if n < 0:
            return None
        return self.raw(n).decode("utf-8")

    def bytes(self) -> Optional[bytes]:
        n = self.i32()
        if n < 0:
            return None
        return self.raw(n)

    def array(self, read_item) -> List:
        n = self.i32()
        if n < 0:
            return []
        return [read_item() for _ in range(n)]


# --------------------------------------------------------------------------
# Result types


@dataclass
class BrokerMetadata:
    node_id: int
    host: str
    port: int
    rack: Optional[str] = None


@dataclass
class PartitionMetadata:
    partition: int
    error_code: int
    leader: int
    replicas: List[int] = field(default_factory=list)
    isr: List[int] = field(default_factory=list)


@dataclass
class TopicMetadata:
    name: str
    error_code: int
    is_internal: bool
    partitions: Dict[int, PartitionMetadata] = field(default_factory=dict)

    @property
    def ready(self) -> bool:
        """True when the topic and every partition have no error and a leader."""
        return (
            self.error_code == 0
            and bool(self.partitions)
            and all(p.error_code == 0 and p.leader >= 0 for p in self.partitions.values())
        )


@dataclass
class ClusterMetadata:
    brokers: Dict[int, BrokerMetadata]
    cluster_id: Optional[str]
    controller_id: int
    topics: Dict[str, TopicMetadata]


def parse_bootstrap_servers(servers: str) -> List[Tuple[str, int]]:
    """``"h1:9092,[::1]:9093"`` -> ``[("h1", 9092), ("::1", 9093)]``.

    A ``PROTOCOL://`` prefix on an entry is ignored.
    """
    out = []
    for item in servers.split(","):
        item = item.strip()
        if not item:
            continue
        if "://" in item:
            item = item.split("://", 1)[1]
        if item.startswith("["):
            host, _, rest = item[1:].partition("]")
            port = rest.lstrip(":") or "9092"
        elif item.count(":") == 1:
            host, port = item.split(":")
        else:
            host, port = item, "9092"
        out.append((host, int(port)))
    if not out:
        raise ValueError("empty bootstrap servers: %r" % servers)
    return out


# --------------------------------------------------------------------------
# SCRAM (RFC 5802) client side, as Kafka implements it


class _ScramClient:
    def __init__(self, mechanism: str, username: str, password: str):
        self.hash = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}[mechanism]
        self.username = username
        self.password = password
        self.cnonce = base64.b64encode(os.urandom(18)).decode()
        self.server_signature = b""

    def first(self) -> bytes:
        name = self.username.replace("=", "=3D").replace(",", "=2C")
        self.client_first_bare = "n=%s,r=%s" % (name, self.cnonce)
        return ("n,," + self.client_first_bare).encode()

    def final(self, server_first: bytes) -> bytes:
        sf = server_first.decode()
        attrs = dict(kv.split("=", 1) for kv in sf.split(",") if "=" in kv)
        nonce, salt, iterations = attrs["r"], base64.b64decode(attrs["s"]), int(attrs["i"])
        if not nonce.startswith(self.cnonce):
            raise KafkaProtocolError("SCRAM: server nonce does not extend client nonce")
        salted = hashlib.pbkdf2_hmac(self.hash, self.password.encode(), salt, iterations)
        client_key = hmac.new(salted, b"Client Key", self.hash).digest()
        stored_key = hashlib.new(self.hash, client_key).digest()
        without_proof = "c=biws,r=" + nonce
        auth_message = ",".join((self.client_first_bare, sf, without_proof)).encode()
        client_sig = hmac.new(stored_key, auth_message, self.hash).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, client_sig))
        server_key = hmac.new(salted, b"Server Key", self.hash).digest()
        self.server_signature = hmac.new(server_key, auth_message, self.hash).digest()
        return (without_proof + ",p=" + base64.b64encode(proof).decode()).encode()

    def verify(self, server_final: bytes) -> None:
        attrs = dict(kv.split("=", 1) for kv in server_final.decode().split(",") if "=" in kv)
        if "e" in attrs:
            raise KafkaProtocolError("SCRAM: server error %s" % attrs["e"], 58)
        if base64.b64decode(attrs.get("v", "")) != self.server_signature:
            raise KafkaProtocolError("SCRAM: bad server signature", 58)


# --------------------------------------------------------------------------
# The client


class KafkaWireClient:
    """One blocking connection to one broker of ``bootstrap_servers``.

    The first reachable address is used.  Every request is sent and its
    response read before the call returns.  Not thread-safe.
    """

    def __init__(
        self,
        bootstrap_servers: str,
        *,
        timeout: float = 10.0,
        ssl_context=None,
        sasl_mechanism: Optional[str] = None,
        sasl_username: Optional[str] = None,
        sasl_password: Optional[str] = None,
        client_id: str = "confluent_binding-testing",
    ):
        self.addresses = parse_bootstrap_servers(bootstrap_servers)
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.sasl_mechanism = sasl_mechanism.upper() if sasl_mechanism else None
        self.sasl_username = sasl_username
        self.sasl_password = sasl_password
        self.client_id = client_id
        self._sock: Optional[socket.socket] = None
        self._corr = 0
        self._versions: Optional[Dict[int, Tuple[int, int]]] = None
        self.address: Optional[Tuple[str, int]] = None

    # -- connection ---------------------------------------------------------

    def connect(self) -> "KafkaWireClient":
        if self._sock is not None:
            return self
        errors = []
        for host, port in self.addresses:
            try:
                sock = socket.create_connection((host, port), timeout=self.timeout)
            except OSError as e:
                errors.append("%s:%d: %s" % (host, port, e))
                continue
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self.ssl_context is not None:
                    sock = self.ssl_context.wrap_socket(sock, server_hostname=host)
                self._sock = sock
                self.address = (host, port)
                self._versions = None
                self.api_versions()
                if self.sasl_mechanism:
                    self._authenticate()
                return self
            except Exception:
                self.close()
                raise
        raise ConnectionError("cannot connect to any of %s" % "; ".join(errors))

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def __enter__(self) -> "KafkaWireClient":
        return self.connect()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- framing ------------------------------------------------------------

    def _recv_exact(self, n: int) -> bytes:
        assert self._sock is not None
        chunks = []
        while n:
            chunk = self._sock.recv(min(n, 1 << 20))
            if not chunk:
                raise ConnectionError("connection closed by broker")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _request(self, api_key: int, version: int, body: bytes) -> _Reader:
        if self._sock is None:
            self.connect()
        assert self._sock is not None
        self._corr = (self._corr + 1) & 0x7FFFFFFF
        corr = self._corr
        # Request header v1 (non-flexible): key, version, correlation id, client id.
        header = _i16(api_key) + _i16(version) + _i32(corr) + _string(self.client_id)
        payload = header + body
        try:
            self._sock.sendall(_i32(len(payload)) + payload)
            (size,) = struct.unpack(">i", self._recv_exact(4))
            data = self._recv_exact(size)
        except Exception:
            self.close()
            raise
        r = _Reader(data)
        got = r.i32()  # response header v0: correlation id only
        if got != corr:
            self.close()
            raise KafkaProtocolError("correlation id mismatch: sent %d, got %d" % (corr, got))
        return r

    def version_for(self, api_key: int) -> int:
        """Highest version of ``api_key`` supported by both the broker and this module."""
        versions = self.api_versions()
        name = API_KEYS.get(api_key, str(api_key))
        if api_key not in versions:
            raise KafkaProtocolError("broker does not support %s" % name, 35)
        lo, hi = versions[api_key]
        v = min(hi, _MAX_IMPLEMENTED[api_key])
        if v < max(lo, _MIN_IMPLEMENTED[api_key]):
            raise KafkaProtocolError(
                "no common version for %s: broker %d..%d, here %d..%d"
                % (name, lo, hi, _MIN_IMPLEMENTED[api_key], _MAX_IMPLEMENTED[api_key]),
                35,
            )
        return v

    # -- ApiVersions --------------------------------------------------------

    def api_versions(self) -> Dict[int, Tuple[int, int]]:
        """``{api_key: (min_version, max_version)}`` as the broker reports it (v0)."""
        if self._versions is not None:
            return self._versions
        r = self._request(API_VERSIONS, 0, b"")
        err = r.i16()
        ranges = r.array(lambda: (r.i16(), r.i16(), r.i16()))
        if err and not ranges:
            raise KafkaProtocolError("ApiVersions failed: %s" % error_name(err), err)
        self._versions = {k: (lo, hi) for k, lo, hi in ranges}
        return self._versions

    # -- SASL ---------------------------------------------------------------

    def sasl_handshake(self, mechanism: str,
                       version: Optional[int] = None) -> Tuple[int, List[str]]:
        """Send SaslHandshake; returns ``(error_code, enabled_mechanisms)``.

        Meant for a fresh connection made with ``sasl_mechanism=None``; after a
        successful handshake the broker expects authentication bytes next.
        """
        v = self.version_for(SASL_HANDSHAKE) if version is None else version
        r = self._request(SASL_HANDSHAKE, v, _string(mechanism))
        err = r.i16()
        mechs = r.array(r.string)
        return err, mechs

    def _sasl_authenticate(self, auth_bytes: bytes, version: int) -> bytes:
        r = self._request(SASL_AUTHENTICATE, version, _bytes(auth_bytes))
        err = r.i16()
        msg = r.string()
        data = r.bytes() or b""
        if err:
            raise KafkaProtocolError(
                "SASL authentication failed: %s%s" % (error_name(err), ": " + msg if msg else ""),
                err,
            )
        return data

    def _authenticate(self) -> None:
        mech = self.sasl_mechanism
        assert mech is not None
        if self.sasl_username is None or self.sasl_password is None:
            raise ValueError("SASL needs sasl_username and sasl_password")
        err, mechs = self.sasl_handshake(mech, version=1)
        if err:
            raise KafkaProtocolError(
                "SaslHandshake(%s): %s; broker offers %s" % (mech, error_name(err), mechs), err
            )
        v = self.version_for(SASL_AUTHENTICATE)
        if mech == "PLAIN":
            token = b"\0" + self.sasl_username.encode() + b"\0" + self.sasl_password.encode()
            self._sasl_authenticate(token, v)
        elif mech in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            scram = _ScramClient(mech, self.sasl_username, self.sasl_password)
            server_first = self._sasl_authenticate(scram.first(), v)
            server_final = self._sasl_authenticate(scram.final(server_first), v)
            scram.verify(server_final)
        else:
            raise ValueError("unsupported SASL mechanism here: %s" % mech)

    # -- Metadata -----------------------------------------------------------

    def metadata(
        self, topics: Optional[Iterable[str]] = None, allow_auto_topic_creation: bool = False
    ) -> ClusterMetadata:
        """Metadata for ``topics`` (``None``: all topics)."""
        v = self.version_for(METADATA)
        names = None if topics is None else list(topics)
        body = _array(None if names is None else [_string(t) for t in names])
        if v >= 4:
            body += _bool(allow_auto_topic_creation)
        if v >= 8:
            body += _bool(False) + _bool(False)  # include cluster/topic authorized ops
        r = self._request(METADATA, v, body)
        if v >= 3:
            r.i32()  # throttle_time_ms

        def broker() -> BrokerMetadata:
            node_id, host, port = r.i32(), r.string(), r.i32()
            rack = r.string()
            return BrokerMetadata(node_id, host or "", port, rack)

        brokers = {b.node_id: b for b in r.array(broker)}
        cluster_id = r.string() if v >= 2 else None
        controller_id = r.i32()

        def partition() -> PartitionMetadata:
            err, idx, leader = r.i16(), r.i32(), r.i32()
            if v >= 7:
                r.i32()  # leader_epoch
            replicas = r.array(r.i32)
            isr = r.array(r.i32)
            if v >= 5:
                r.array(r.i32)  # offline_replicas
            return PartitionMetadata(idx, err, leader, replicas, isr)

        def topic() -> TopicMetadata:
            err, name, internal = r.i16(), r.string(), r.bool()
            parts = {p.partition: p for p in r.array(partition)}
            if v >= 8:
                r.i32()  # topic_authorized_operations
            return TopicMetadata(name or "", err, internal, parts)

        tops = {t.name: t for t in r.array(topic)}
        return ClusterMetadata(brokers, cluster_id, controller_id, tops)

    # -- CreateTopics / DeleteTopics -----------------------------------------

    def create_topics(
        self,
        topics: Mapping[str, Tuple[int, int, Optional[Mapping[str, str]]]],
        timeout_ms: int = 30000,
        validate_only: bool = False,
    ) -> Dict[str, Tuple[int, Optional[str]]]:
        """``{name: (partitions, replication_factor, config)}`` ->
        ``{name: (error_code, error_message)}``.

        ``replication_factor=-1`` means the broker default (needs CreateTopics
        v4; on older brokers 1 is sent instead).
        """
        v = self.version_for(CREATE_TOPICS)
        items = []
        for name, (partitions, rf, config) in topics.items():
            if rf < 0 and v < 4:
                rf = 1
            cfg = [_string(k) + _string(None if val is None else str(val))
                   for k, val in (config or {}).items()]
            items.append(_string(name) + _i32(partitions) + _i16(rf) + _array([]) + _array(cfg))
        body = _array(items) + _i32(timeout_ms) + _bool(validate_only)
        r = self._request(CREATE_TOPICS, v, body)
        r.i32()  # throttle_time_ms (v2+)

        def result():
            name, err = r.string(), r.i16()
            msg = r.string()
            return name, (err, msg)

        return dict(r.array(result))

    def delete_topics(self, names: Iterable[str], timeout_ms: int = 30000) -> Dict[str, int]:
        """``[name, ...]`` -> ``{name: error_code}``."""
        v = self.version_for(DELETE_TOPICS)
        body = _array([_string(n) for n in names]) + _i32(timeout_ms)
        r = self._request(DELETE_TOPICS, v, body)
        r.i32()  # throttle_time_ms (v1+)

        def result():
            return r.string(), r.i16()

        return dict(r.array(result))

    def alter_client_quota(self, client_id: str, quotas: Dict[str, Optional[float]]) -> None:
        """Set (or, for a None value, remove) quotas such as ``producer_byte_rate`` for one
        client id."""
        v = self.version_for(ALTER_CLIENT_QUOTAS)
        entity = _array([_string("client-id") + _string(client_id)])
        ops = _array([_string(k) + _f64(0.0 if q is None else q) + _bool(q is None)
                      for k, q in quotas.items()])
        r = self._request(ALTER_CLIENT_QUOTAS, v, _array([entity + ops]) + _bool(False))
        r.i32()  # throttle_time_ms

        def result():
            code, message = r.i16(), r.string()
            r.array(lambda: (r.string(), r.string()))
            return code, message

        for code, message in r.array(result):
            if code:
                raise KafkaProtocolError("AlterClientQuotas: %s %s"
                                         % (error_name(code), message or ""), code)

    # -- conveniences ---------------------------------------------------------

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        replication_factor: int = -1,
        config: Optional[Mapping[str, str]] = None,
        timeout: float = 30.0,
        exist_ok: bool = False,
    ) -> None:
        """Create one topic and wait until every partition has a leader."""
        res = self.create_topics(
            {name: (partitions, replication_factor, config)}, timeout_ms=int(timeout * 1000)
        )
        err, msg = res.get(name, (-1, "no result for topic"))
        if err and not (exist_ok and err == TOPIC_ALREADY_EXISTS):
            raise KafkaProtocolError(
                "CreateTopics(%s): %s%s" % (name, error_name(err), ": " + msg if msg else ""), err
            )
        self.wait_for_topic(name, partitions=None if err else partitions, timeout=timeout)

    def wait_for_topic(
        self, name: str, partitions: Optional[int] = None, timeout: float = 30.0
    ) -> TopicMetadata:
        """Poll Metadata until ``name`` exists with (``partitions``) leaders everywhere."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            md = self.metadata([name])
            t = md.topics.get(name)
            last = t
            if t is not None and t.ready and (partitions is None
                                              or len(t.partitions) == partitions):
                return t
            if time.monotonic() >= deadline:
                raise TimeoutError("topic %r not ready after %.1fs: %r" % (name, timeout, last))
            time.sleep(0.05)

    def delete_topic(self, name: str, timeout: float = 30.0, missing_ok: bool = True) -> None:
        """Delete one topic and wait until metadata no longer lists it."""
        err = self.delete_topics([name], timeout_ms=int(timeout * 1000)).get(name, -1)
        if err == UNKNOWN_TOPIC_OR_PARTITION and missing_ok:
            return
        if err:
            raise KafkaProtocolError("DeleteTopics(%s): %s" % (name, error_name(err)), err)
        deadline = time.monotonic() + timeout
        while True:
            t = self.metadata([name]).topics.get(name)
            if t is None or t.error_code == UNKNOWN_TOPIC_OR_PARTITION:
                return
            if time.monotonic() >= deadline:
                raise TimeoutError("topic %r still listed %.1fs after deletion" % (name, timeout))
            time.sleep(0.05)

    def topic_partitions(self, name: str) -> Optional[int]:
        """Number of partitions of ``name``, or ``None`` if it does not exist."""
        t = self.metadata([name]).topics.get(name)
        if t is None or t.error_code != 0:
            return None
        return len(t.partitions)
