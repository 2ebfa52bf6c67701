"""aiokafka's constructor keywords, their defaults, and the librdkafka properties they become
(one place for the producer, the consumer and the admin client)."""

import logging
from typing import Any

from .helpers import _ssl_properties

#: The aiokafka release whose API this package offers.
API_VERSION = "0.14.0"
DEFAULT_CLIENT_ID = "aiokafka-" + API_VERSION
#: aiokafka's "not given" marker for ``acks`` (third-party code passes it through)
MISSING = object()

# keyword -> librdkafka property; the value is passed as a string (bools lower-cased)
_COMMON = {
    "client_id": "client.id",
    "metadata_max_age_ms": "metadata.max.age.ms",
    "retry_backoff_ms": "retry.backoff.ms",
    "connections_max_idle_ms": "connections.max.idle.ms",
    "security_protocol": "security.protocol",
    "sasl_mechanism": "sasl.mechanism",
    "sasl_plain_username": "sasl.username",
    "sasl_plain_password": "sasl.password",
    "sasl_kerberos_service_name": "sasl.kerberos.service.name",
}
PRODUCER_KEYWORDS = dict(_COMMON, **{
    "acks": "acks",
    "compression_type": "compression.type",
    "max_batch_size": "batch.size",
    "max_request_size": "message.max.bytes",
    "linger_ms": "linger.ms",
    "request_timeout_ms": "request.timeout.ms",
    "enable_idempotence": "enable.idempotence",
    "transactional_id": "transactional.id",
    "transaction_timeout_ms": "transaction.timeout.ms",
})
CONSUMER_KEYWORDS = dict(_COMMON, **{
    "group_id": "group.id",
    "group_instance_id": "group.instance.id",
    "fetch_max_wait_ms": "fetch.wait.max.ms",
    "fetch_min_bytes": "fetch.min.bytes",
    "fetch_max_bytes": "fetch.max.bytes",
    "max_partition_fetch_bytes": "max.partition.fetch.bytes",
    "request_timeout_ms": "socket.timeout.ms",
    "auto_offset_reset": "auto.offset.reset",
    "enable_auto_commit": "enable.auto.commit",
    "auto_commit_interval_ms": "auto.commit.interval.ms",
    "check_crcs": "check.crcs",
    "session_timeout_ms": "session.timeout.ms",
    "heartbeat_interval_ms": "heartbeat.interval.ms",
    "max_poll_interval_ms": "max.poll.interval.ms",
    "isolation_level": "isolation.level",
    "client_rack": "client.rack",
})
ADMIN_KEYWORDS = dict(_COMMON, request_timeout_ms="socket.timeout.ms")

# aiokafka's defaults where librdkafka's differ (or where aiokafka sets one librdkafka leaves
# unset); the clients start from these unless a keyword or extra gives another value
_COMMON_DEFAULTS = {
    "client.id": DEFAULT_CLIENT_ID,
    "metadata.max.age.ms": "300000",
    "connections.max.idle.ms": "540000",
    "retry.backoff.ms": "100",
}
PRODUCER_DEFAULTS = dict(_COMMON_DEFAULTS, **{
    "acks": "1",
    "linger.ms": "0",
    "batch.size": "16384",
    "message.max.bytes": "1048576",
    "request.timeout.ms": "40000",
})
CONSUMER_DEFAULTS = dict(_COMMON_DEFAULTS, **{
    "auto.offset.reset": "latest",
    "enable.auto.commit": "true",
    "session.timeout.ms": "10000",
    "heartbeat.interval.ms": "3000",
    "check.crcs": "true",
    "isolation.level": "read_uncommitted",
    "partition.assignment.strategy": "roundrobin",
    "socket.timeout.ms": "40000",
    # aiokafka's metadata requests let the broker create a topic they name (where the broker
    # allows it): subscribing to a topic creates it, as a producer sending to it does
    "allow.auto.create.topics": "true",
    # aiokafka fetches a partition again as soon as its fetched records are consumed;
    # librdkafka, once its queue holds queued.min.messages, waits this long before looking
    # again (its default, 1000 ms, stalls a consumer that keeps up)
    "fetch.queue.backoff.ms": "10",
})
ADMIN_DEFAULTS = dict(_COMMON_DEFAULTS, **{"socket.timeout.ms": "40000"})

# accepted, with no librdkafka counterpart: handled in Python or meaningless here
_PYTHON_SIDE = {
    "loop",                     # deprecated in aiokafka; the running loop is used
    "api_version",              # librdkafka negotiates the protocol versions with the broker
    "max_poll_records", "consumer_timeout_ms", "rebalance_timeout_ms",
    "exclude_internal_topics", "partitioner", "partition_assignment_strategy",
    "ssl_context",
}
_REFUSED = {
    "sasl_oauth_token_provider": (
        "sasl_oauth_token_provider is not supported: give librdkafka's OIDC properties "
        "(sasl.oauthbearer.method=oidc, sasl.oauthbearer.token.endpoint.url, ...) or an "
        "oauth_cb in extra"),
    "sasl_kerberos_domain_name": (
        "sasl_kerberos_domain_name is not supported: librdkafka uses the broker's host name; "
        "set sasl.kerberos.principal / sasl.kerberos.kinit.cmd in extra"),
}
_ASSIGNORS = {"roundrobin": "roundrobin", "range": "range"}
_RESETS = {"earliest": "earliest", "latest": "latest", "none": "error"}


#: librdkafka log facilities about broker connections: logged under aiokafka's connection logger
_CONNECTION_FACILITIES = frozenset((
    "FAIL", "CONNECT", "CONNECTED", "BROKERFAIL", "DISCONNECT", "SSL", "SASL", "SASLMECHS",
    "AUTH", "RECV", "SEND", "REQTMOUT", "TIMEOUT", "STATE", "BROKER", "APIVERSION", "FEATURE",
    "ADDRESS", "RESOLVE"))


class LibrdkafkaLog:
    """The ``logger`` the aiokafka clients give librdkafka: its log lines go through Python's
    :mod:`logging` (not to stderr), under aiokafka's logger names: connection facilities under
    ``aiokafka.conn``, the others under the client's module logger (``aiokafka.producer.producer``,
    ``aiokafka.consumer.consumer``, ``aiokafka.admin.client``). librdkafka's syslog levels are
    mapped to logging's (emergency to error: CRITICAL, ERROR, WARNING, notice and info: INFO,
    debug: DEBUG) by the clients before ``log()`` is called."""

    def __init__(self, name: str) -> None:
        self._client = logging.getLogger(name)
        self._conn = logging.getLogger("aiokafka.conn")

    def log(self, level: int, msg: str, facility: Any = "", *args: Any) -> None:
        logger = self._conn if facility in _CONNECTION_FACILITIES else self._client
        logger.log(level, msg, facility, *args)


#: the librdkafka ``logger`` of each kind of client (under aiokafka's module logger names)
LOGGERS = {"producer": LibrdkafkaLog("aiokafka.producer.producer"),
           "consumer": LibrdkafkaLog("aiokafka.consumer.consumer"),
           "admin": LibrdkafkaLog("aiokafka.admin.client")}


def _value(value: Any) -> Any:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _assignors(strategies: Any) -> Any:
    names = []
    for assignor in strategies:
        name = getattr(assignor, "name", assignor)
        if name not in _ASSIGNORS:
            raise ValueError(
                "partition_assignment_strategy %r is not available: librdkafka offers range "
                "and roundrobin (and cooperative-sticky through "
                "extra={'partition.assignment.strategy': 'cooperative-sticky'})" % (name,))
        names.append(_ASSIGNORS[name])
    return ",".join(names)


def build(keywords: Any, defaults: Any, bootstrap_servers: Any, kwargs: Any, extra: Any) -> Any:
    """The librdkafka configuration for aiokafka keyword arguments ``kwargs``: aiokafka's
    defaults, then the keywords given, then ``extra`` (librdkafka properties, which win).
    TypeError for a keyword aiokafka does not have, ValueError for one refused here."""
    if isinstance(bootstrap_servers, (list, tuple)):
        bootstrap_servers = ",".join(bootstrap_servers)
    conf = dict(defaults)
    conf["bootstrap.servers"] = bootstrap_servers
    for name, value in kwargs.items():
        if name in _REFUSED:
            if value is not None:
                raise ValueError(_REFUSED[name])
        elif name in keywords:
            if value is not None and value is not MISSING:
                conf[keywords[name]] = _value(value)
        elif name not in _PYTHON_SIDE:
            raise TypeError("unexpected keyword argument %r" % name)
    _check_security(kwargs, extra or {})
    if "security.protocol" in conf:
        conf["security.protocol"] = conf["security.protocol"].lower()
    if conf.get("security.protocol", "plaintext").startswith("sasl"):
        conf.setdefault("sasl.mechanism", "PLAIN")      # aiokafka's default mechanism
    else:
        conf.pop("sasl.mechanism", None)    # unused without SASL (librdkafka warns of it)
    if kwargs.get("ssl_context") is not None:
        conf.update(_ssl_properties(kwargs["ssl_context"]))
    if "auto.offset.reset" in conf and "auto_offset_reset" in kwargs:
        reset = kwargs["auto_offset_reset"]
        if reset not in _RESETS:
            raise ValueError("auto_offset_reset must be 'earliest', 'latest' or 'none', not %r"
                             % (reset,))
        conf["auto.offset.reset"] = _RESETS[reset]
    if kwargs.get("partition_assignment_strategy"):
        conf["partition.assignment.strategy"] = _assignors(
            kwargs["partition_assignment_strategy"])
    if keywords is PRODUCER_KEYWORDS:
        _producer_rules(conf, kwargs)
        kind = "producer"
    elif keywords is CONSUMER_KEYWORDS:
        _consumer_rules(conf, kwargs)
        kind = "consumer"
    else:
        kind = "admin"
    conf["logger"] = LOGGERS[kind]
    conf.update(extra or {})
    return conf


_PROTOCOLS = ("SSL", "PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL")
_MECHANISMS = ("PLAIN", "GSSAPI", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")


def _check_security(kwargs: Any, extra: Any) -> None:
    """aiokafka's checks of the security keywords, with its ValueError messages. An SSL
    protocol needs ``ssl_context``, or librdkafka's ``ssl.*`` properties in ``extra``."""
    protocol = kwargs.get("security_protocol")
    if protocol is None:
        return
    if protocol not in _PROTOCOLS:
        raise ValueError("`security_protocol` should be SSL or PLAINTEXT")
    if protocol in ("SSL", "SASL_SSL") and kwargs.get("ssl_context") is None \
            and not any(str(k).startswith("ssl.") for k in extra):
        raise ValueError("`ssl_context` is mandatory if security_protocol=='SSL'")
    if protocol in ("SASL_SSL", "SASL_PLAINTEXT"):
        mechanism = kwargs.get("sasl_mechanism") or "PLAIN"
        if mechanism not in _MECHANISMS:
            raise ValueError("only `PLAIN`, `GSSAPI`, `SCRAM-SHA-256`, `SCRAM-SHA-512` and "
                             "`OAUTHBEARER`sasl_mechanism are supported at the moment")
        if mechanism == "PLAIN" and "sasl.username" not in extra and (
                kwargs.get("sasl_plain_username") is None
                or kwargs.get("sasl_plain_password") is None):
            raise ValueError("sasl_plain_username and sasl_plain_password required for "
                             "PLAIN sasl")


def _consumer_rules(conf: Any, kwargs: Any) -> None:
    """aiokafka accepts settings librdkafka's cross-checks refuse: translated to the nearest
    ones librdkafka accepts.

    - ``max_poll_interval_ms`` below ``session_timeout_ms`` (librdkafka wants the poll interval
      at least the session timeout): the poll interval is raised to the session timeout (a
      member that stops calling ``get*`` leaves the group after the session timeout; lowering
      the session timeout instead would be refused by brokers below their
      ``group.min.session.timeout.ms``, 6 s by default);
    - ``fetch_max_bytes`` below ``message.max.bytes`` (1000 at least, which a consumer only
      uses as a fetch limit): both become ``max(fetch_max_bytes, 1000)``. Like aiokafka's,
      the limit is soft: a fetch returns at least one record however large.
    """
    if conf["isolation.level"] not in ("read_uncommitted", "read_committed"):
        raise ValueError("Incorrect isolation level {}".format(conf["isolation.level"]))
    session = int(conf["session.timeout.ms"])
    poll = int(conf.get("max.poll.interval.ms", 300000))
    if poll < session:
        conf["max.poll.interval.ms"] = str(session)
    fetch = conf.get("fetch.max.bytes")
    if fetch is not None and int(fetch) < int(conf.get("message.max.bytes", 1000000)):
        conf["fetch.max.bytes"] = conf["message.max.bytes"] = str(max(int(fetch), 1000))


def _producer_rules(conf: Any, kwargs: Any) -> Any:
    acks = kwargs.get("acks")
    if acks is MISSING:
        acks = None
    idempotent = kwargs.get("enable_idempotence") or kwargs.get("transactional_id")
    if acks is None:
        conf["acks"] = "all" if idempotent else "1"
    elif acks not in (0, 1, -1, "all"):
        raise ValueError("Invalid ACKS parameter")
    elif idempotent and acks not in (-1, "all"):
        raise ValueError("acks={} not supported if enable_idempotence=True".format(acks))
    else:
        conf["acks"] = "all" if acks in (-1, "all") else str(acks)
    compression = kwargs.get("compression_type")
    if compression not in (None, "gzip", "snappy", "lz4", "zstd"):
        raise ValueError("Invalid compression type!")
    if kwargs.get("transactional_id") is not None:
        conf["enable.idempotence"] = "true"
