"""The Kafka source's and sink's options, read the way Spark's built-in Kafka connector reads them.

Everything here runs on the driver (in Spark's planning worker) and only validates and plans:
which partitions, which offset ranges. Errors are ``ValueError``s that name the option.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._formats import (
    REGISTRY_PREFIX,
    SINK_FORMAT_OPTIONS,
    SOURCE_FORMAT_OPTIONS,
    Decoding,
    source_decodings,
)
from ._metrics import OPTIONS as METRICS_OPTIONS
from ._metrics import MetricsOptions, metrics_options

# Per-partition offsets in startingOffsets/endingOffsets JSON (Spark's convention).
EARLIEST = -2
LATEST = -1

# kafka.* options the connector owns itself (Spark's connector rejects the same ones).
_UNSUPPORTED_KAFKA = {
    "auto.offset.reset": "Set the option 'startingOffsets' to say where to start.",
    "enable.auto.commit": "The source never commits offsets: Spark tracks them (checkpoints).",
    "key.deserializer": "Keys are read as bytes; cast the 'key' column to deserialize.",
    "value.deserializer": "Values are read as bytes; cast the 'value' column to deserialize.",
    "interceptor.classes": "Java interceptors do not apply to librdkafka.",
    "key.serializer": "Keys are written as bytes from the 'key' column (string or binary).",
    "value.serializer": "Values are written as bytes from the 'value' column (string or binary).",
}

_SUBSCRIPTIONS = ("assign", "subscribe", "subscribePattern")

# The source's options other than kafka.*: those of Spark's Kafka connector (4.2's integration
# guide) and one of ours (arrowBatchRecords). Anything else is refused with its name: Spark's
# connector ignores a misspelt option silently, which hides the mistake.
SOURCE_OPTIONS = (
    "assign",
    "subscribe",
    "subscribePattern",
    "startingOffsets",
    "endingOffsets",
    "startingTimestamp",
    "endingTimestamp",
    "startingOffsetsByTimestamp",
    "endingOffsetsByTimestamp",
    "startingOffsetsByTimestampStrategy",
    "failOnDataLoss",
    "kafkaConsumer.pollTimeoutMs",
    "fetchOffset.numRetries",
    "fetchOffset.retryIntervalMs",
    "maxOffsetsPerTrigger",
    "minOffsetsPerTrigger",
    "maxTriggerDelay",
    "minPartitions",
    "maxRecordsPerPartition",
    "groupIdPrefix",
    "includeHeaders",
    "arrowBatchRecords",
) + SOURCE_FORMAT_OPTIONS
# The sink's: the topic option (the 'topic' column's default) and includeHeaders, which Spark's
# sink accepts too (the 'headers' column is written whenever it is there).
SINK_OPTIONS = ("topic", "includeHeaders") + SINK_FORMAT_OPTIONS
# Options Spark itself puts among a data source's options (a path given to load()/save(), a
# streaming query's checkpoint), which are not the source's to refuse.
_SPARK_OPTIONS = ("path", "paths", "checkpointLocation")


def check_known(opts: Mapping[str, str], known: Tuple[str, ...], what: str) -> None:
    """Raises naming the first option that is neither kafka.*, schema.registry.* nor one of
    ``known``."""
    allowed = {name.lower() for name in known + _SPARK_OPTIONS}
    unknown = sorted(
        k
        for k in opts
        if not k.startswith(("kafka.", REGISTRY_PREFIX)) and k not in allowed
    )
    if unknown:
        spelled = {name.lower(): name for name in known}
        raise ValueError(
            "Unknown option%s for the Kafka %s: %s. Known options: %s, kafka.* "
            "(passed to the Kafka client without the prefix) and schema.registry.* (to the "
            "Schema Registry client)"
            % (
                "s" if len(unknown) > 1 else "",
                what,
                ", ".join("'%s'" % k for k in unknown),
                ", ".join(sorted(spelled.values(), key=str.lower)),
            )
        )


def lowered(options: Mapping[str, Any]) -> Dict[str, str]:
    """Spark's options are case-insensitive: one lower-cased plain dict."""
    return {str(k).lower(): str(v) for k, v in dict(options).items() if v is not None}


def kafka_params(opts: Mapping[str, str]) -> Dict[str, str]:
    """Every ``kafka.*`` option, without the prefix, with the Java client's spellings that
    librdkafka does not know translated (:func:`translate_java`): the librdkafka configuration."""
    if "kafka.bootstrap.servers" not in opts:
        raise ValueError(
            "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka consumer"
        )
    conf = {}
    for key, value in opts.items():
        if key.startswith("kafka."):
            name = key[len("kafka.") :]
            if name in _UNSUPPORTED_KAFKA:
                raise ValueError(
                    "Kafka option '%s' is not supported. %s" % (name, _UNSUPPORTED_KAFKA[name])
                )
            conf[name] = value
    return translate_java(conf)


# --- the Java client's spellings -------------------------------------------------------------

_JAAS = re.compile(
    r"^\s*(?P<module>[\w.$]+)\s+(?P<flag>required|requisite|sufficient|optional)"
    r"(?P<args>.*?);?\s*$",
    re.S,
)
_JAAS_ARG = re.compile(r'(\w[\w.]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))')
_JAAS_USER_PASSWORD = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": "PLAIN",
    "org.apache.kafka.common.security.scram.ScramLoginModule": "SCRAM",
}


def _jaas(value: str) -> Dict[str, str]:
    """``sasl.jaas.config`` of PLAIN or SCRAM -> sasl.username / sasl.password."""
    m = _JAAS.match(value)
    if not m:
        raise ValueError(
            "Kafka option 'sasl.jaas.config' could not be read as a JAAS login module line "
            '(\'<LoginModule class> required username="..." password="...";\')'
        )
    module = m.group("module")
    if module not in _JAAS_USER_PASSWORD:
        raise ValueError(
            "Kafka option 'sasl.jaas.config': the login module %s has no librdkafka "
            "equivalent here; only PlainLoginModule and ScramLoginModule are translated (to "
            "sasl.username and sasl.password). Set the librdkafka sasl.* options instead "
            "(e.g. kafka.sasl.oauthbearer.* for OAUTHBEARER, kafka.sasl.kerberos.* for GSSAPI)"
            % module
        )
    args = {}
    for am in _JAAS_ARG.finditer(m.group("args")):
        quoted = am.group(2)
        args[am.group(1)] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else am.group(3)
    missing = [k for k in ("username", "password") if k not in args]
    if missing:
        raise ValueError(
            "Kafka option 'sasl.jaas.config' (%s) has no %s"
            % (module.rsplit(".", 1)[-1], " and no ".join(missing))
        )
    return {"sasl.username": args["username"], "sasl.password": args["password"]}


def _is_pem_file(path: str) -> Optional[bool]:
    """True/False when the file can be read here (on the driver), None when it cannot."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    return b"-----BEGIN " in head


def _store(conf: Dict[str, str], kind: str) -> None:
    """ssl.truststore.* / ssl.keystore.* -> librdkafka's PEM (or PKCS#12 keystore) options."""
    location = conf.pop("ssl.%s.location" % kind, None)
    store_type = conf.pop("ssl.%s.type" % kind, None)
    password = conf.pop("ssl.%s.password" % kind, None)
    if location is None:
        return
    declared = (store_type or "").strip().upper()
    if declared == "PKCS12" and kind == "keystore":
        # librdkafka reads a PKCS#12 keystore itself.
        conf["ssl.keystore.location"] = location
        if password is not None:
            conf["ssl.keystore.password"] = password
        return
    if declared not in ("", "PEM") or (declared == "" and _is_pem_file(location) is False):
        what = store_type.strip() if store_type else "JKS (the Java default: no PEM content)"
        use = (
            "kafka.ssl.ca.location (a PEM file of CA certificates), or "
            "kafka.ssl.truststore.location with kafka.ssl.truststore.type=PEM"
            if kind == "truststore"
            else "kafka.ssl.certificate.location and kafka.ssl.key.location (PEM), "
            "kafka.ssl.keystore.location with kafka.ssl.keystore.type=PKCS12, or "
            "kafka.ssl.keystore.type=PEM"
        )
        raise ValueError(
            "Kafka option 'ssl.%s.location' (%s): a %s %s cannot be read by librdkafka. "
            "Convert it (keytool -exportcert -rfc, or keytool -importkeystore to PKCS12 and "
            "openssl) and use %s" % (kind, location, what, kind, use)
        )
    if kind == "truststore":
        conf["ssl.ca.location"] = location
    else:
        # A PEM keystore holds the private key and the certificate chain in one file.
        conf["ssl.certificate.location"] = location
        conf["ssl.key.location"] = location
        if password is not None and "ssl.key.password" not in conf:
            conf["ssl.key.password"] = password


def translate_java(conf: Dict[str, str]) -> Dict[str, str]:
    """The Java client's spellings of the common security settings, as librdkafka's:

    - ``sasl.jaas.config`` with PlainLoginModule / ScramLoginModule -> ``sasl.username`` and
      ``sasl.password`` (other login modules raise, naming librdkafka's options to use);
    - ``ssl.truststore.location`` (PEM) -> ``ssl.ca.location``; ``ssl.truststore.certificates``
      -> ``ssl.ca.pem``; ``ssl.keystore.location`` (PEM) -> ``ssl.certificate.location`` and
      ``ssl.key.location``; PKCS12 keystores as they are; ``ssl.keystore.key`` /
      ``ssl.keystore.certificate.chain`` -> ``ssl.key.pem`` / ``ssl.certificate.pem``;
      a JKS (or otherwise non-PEM) store raises, saying what to use instead;
    - ``ssl.endpoint.identification.algorithm`` empty (Java's "off") -> ``none``.
    """
    conf = dict(conf)
    jaas = conf.pop("sasl.jaas.config", None)
    if jaas is not None:
        for k, v in _jaas(jaas).items():
            conf.setdefault(k, v)
    _store(conf, "truststore")
    _store(conf, "keystore")
    for java, rd in (
        ("ssl.truststore.certificates", "ssl.ca.pem"),
        ("ssl.keystore.key", "ssl.key.pem"),
        ("ssl.keystore.certificate.chain", "ssl.certificate.pem"),
    ):
        if java in conf:
            conf.setdefault(rd, conf.pop(java))
    if conf.get("ssl.endpoint.identification.algorithm", None) == "":
        conf["ssl.endpoint.identification.algorithm"] = "none"
    return conf


def flag(opts: Mapping[str, str], name: str, default: bool) -> bool:
    raw = opts.get(name.lower())
    if raw is None:
        return default
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise ValueError("Option '%s' must be 'true' or 'false', got %r" % (name, raw))
    return value == "true"


def _positive_int(opts: Mapping[str, str], name: str) -> Optional[int]:
    raw = opts.get(name.lower())
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValueError("Option '%s' must be a positive integer, got %r" % (name, raw)) from None
    if value <= 0:
        raise ValueError("Option '%s' must be a positive integer, got %r" % (name, raw))
    return value


def _json(opts: Mapping[str, str], name: str) -> Any:
    raw = opts[name.lower()]
    try:
        return json.loads(raw)
    except ValueError as e:
        raise ValueError("Option '%s' is not valid JSON (%s): %r" % (name, e, raw)) from None


# --- subscription ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Subscription:
    kind: str  # "assign" | "subscribe" | "subscribePattern"
    topics: Tuple[str, ...] = ()  # subscribe
    pattern: Optional[str] = None  # subscribePattern (Java regex; the whole name must match)
    assigned: Tuple[Tuple[str, int], ...] = ()  # assign

    def partitions(self, metadata: Mapping[str, int]) -> List[Tuple[str, int]]:
        """The (topic, partition) pairs this subscription covers today, sorted.

        ``metadata`` maps every topic of the cluster to its partition count."""
        if self.kind == "assign":
            missing = [tp for tp in self.assigned if tp[1] >= metadata.get(tp[0], 0)]
            if missing:
                raise ValueError(
                    "Option 'assign' names partitions the cluster does not have: %s"
                    % ", ".join("%s-%d" % tp for tp in missing)
                )
            return sorted(self.assigned)
        if self.kind == "subscribe":
            names = [t for t in self.topics if t in metadata]
        else:
            rx = re.compile(self.pattern or "")
            names = [t for t in metadata if not t.startswith("__") and rx.fullmatch(t)]
        return sorted((t, p) for t in names for p in range(metadata[t]))


def subscription(opts: Mapping[str, str]) -> Subscription:
    given = [name for name in _SUBSCRIPTIONS if name.lower() in opts]
    if not given:
        raise ValueError(
            "One of the following options must be specified for Kafka source: "
            "subscribe, subscribePattern, assign. See the docs for more details."
        )
    if len(given) > 1:
        raise ValueError(
            "Only one of the following options can be specified for Kafka source: "
            "subscribe, subscribePattern, assign; got %s." % ", ".join(given)
        )
    kind = given[0]
    if kind == "subscribe":
        topics = tuple(t.strip() for t in opts["subscribe"].split(",") if t.strip())
        if not topics:
            raise ValueError(
                "No topics to subscribe to as specified value for option "
                "'subscribe' is '%s'" % opts["subscribe"]
            )
        return Subscription("subscribe", topics=topics)
    if kind == "subscribePattern":
        pattern = opts["subscribepattern"].strip()
        if not pattern:
            raise ValueError(
                "Pattern to subscribe is empty as specified value for option "
                "'subscribePattern' is '%s'" % opts["subscribepattern"]
            )
        try:
            re.compile(pattern)
        except re.error as e:
            raise ValueError(
                "Option 'subscribePattern' is not a valid pattern (%s): %r" % (e, pattern)
            ) from None
        return Subscription("subscribePattern", pattern=pattern)
    parsed = _json(opts, "assign")
    pairs: List[Tuple[str, int]] = []
    if not isinstance(parsed, dict) or not parsed:
        raise ValueError(
            "Option 'assign' must be a JSON object of topic to partition list, "
            'like {"topicA":[0,1]}, got %r' % opts["assign"]
        )
    for topic, parts in parsed.items():
        if not isinstance(parts, list) or not all(isinstance(p, int) and p >= 0 for p in parts):
            raise ValueError(
                "Option 'assign': partitions of topic %r must be a list of "
                "non-negative integers, got %r" % (topic, parts)
            )
        pairs.extend((topic, p) for p in parts)
    return Subscription("assign", assigned=tuple(sorted(set(pairs))))


# --- offset specifications -------------------------------------------------------------------


@dataclass(frozen=True)
class OffsetSpec:
    """Where a range starts or ends: one of Spark's connector's forms."""

    option: str  # the option it came from (for error messages)
    kind: str  # "earliest" | "latest" | "offsets" | "timestamp" | "timestamps"
    per_partition: Dict[Tuple[str, int], int] = field(default_factory=dict)
    timestamp: Optional[int] = None


def _partition_map(opts: Mapping[str, str], name: str) -> Dict[Tuple[str, int], int]:
    parsed = _json(opts, name)
    if not isinstance(parsed, dict):
        raise ValueError(
            'Option \'%s\' must be a JSON object like {"topicA":{"0":23,"1":-1}}, got %r'
            % (name, opts[name.lower()])
        )
    out = {}
    for topic, parts in parsed.items():
        if not isinstance(parts, dict):
            raise ValueError(
                "Option '%s': topic %r must map partition numbers to values, got %r"
                % (name, topic, parts)
            )
        for p, value in parts.items():
            try:
                partition = int(p)
            except ValueError:
                raise ValueError(
                    "Option '%s': %r is not a partition number (topic %r)" % (name, p, topic)
                ) from None
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(
                    "Option '%s': value for %s-%s must be an integer, got %r"
                    % (name, topic, p, value)
                )
            out[(topic, partition)] = value
    return out


def offset_spec(opts: Mapping[str, str], which: str, default: str) -> OffsetSpec:
    """``which`` is "starting" or "ending". Precedence as in Spark: the global timestamp, then
    the per-partition timestamps, then the offsets option."""
    ts_name = which + "Timestamp"
    by_ts_name = which + "OffsetsByTimestamp"
    off_name = which + "Offsets"
    if ts_name.lower() in opts:
        raw = opts[ts_name.lower()]
        try:
            ts = int(raw)
        except ValueError:
            raise ValueError(
                "Option '%s' must be a timestamp in milliseconds, got %r" % (ts_name, raw)
            ) from None
        if ts < 0:
            raise ValueError("Option '%s' must not be negative, got %r" % (ts_name, raw))
        return OffsetSpec(ts_name, "timestamp", timestamp=ts)
    if by_ts_name.lower() in opts:
        parts = _partition_map(opts, by_ts_name)
        bad = {tp: v for tp, v in parts.items() if v < 0}
        if bad:
            raise ValueError("Option '%s': timestamps must not be negative: %s" % (by_ts_name, bad))
        return OffsetSpec(by_ts_name, "timestamps", per_partition=parts)
    raw = opts.get(off_name.lower(), default).strip()
    if raw.lower() in ("earliest", "latest"):
        return OffsetSpec(off_name, raw.lower())
    parts = _partition_map(opts, off_name)
    bad = {tp: v for tp, v in parts.items() if v < EARLIEST}
    if bad:
        raise ValueError(
            "Option '%s': offsets must be >= 0, -2 (earliest) or -1 (latest): %s"
            % (off_name, ", ".join("%s-%d: %d" % (t, p, v) for (t, p), v in bad.items()))
        )
    return OffsetSpec(off_name, "offsets", per_partition=parts)


@dataclass(frozen=True)
class SourceOptions:
    """Everything the source needs, checked."""

    kafka: Dict[str, str]
    subscription: Subscription
    starting: OffsetSpec
    ending: Optional[OffsetSpec]
    min_partitions: Optional[int]
    include_headers: bool
    fail_on_data_loss: bool
    poll_timeout_ms: int
    max_offsets_per_trigger: Optional[int]
    min_offsets_per_trigger: Optional[int]
    max_trigger_delay_ms: int
    max_records_per_partition: Optional[int]
    fetch_retries: int
    fetch_retry_interval_ms: int
    by_timestamp_strategy: str
    group_id: str
    batch_records: int
    # the key and value columns decoded from the Schema Registry wire format (valueFormat...)
    decodings: Tuple[Decoding, ...] = ()
    # where the tasks' figures are pushed (metrics.pushGateway), or None
    metrics: Optional[MetricsOptions] = None


_DURATION_UNITS = {
    "us": 0.001,
    "ms": 1,
    "s": 1000,
    "m": 60_000,
    "min": 60_000,
    "h": 3_600_000,
    "d": 86_400_000,
}


def duration_ms(opts: Mapping[str, str], name: str, default: str) -> int:
    """A duration as Spark writes it ("15m", "30s", "500ms", a plain number of ms)."""
    raw = opts.get(name.lower(), default)
    m = re.fullmatch(r"\s*(\d+)\s*([a-z]*)\s*", raw.lower())
    if not m or m.group(2) not in ("",) + tuple(_DURATION_UNITS):
        raise ValueError(
            "Option '%s' must be a duration like '15m', '30s' or '500ms', got %r" % (name, raw)
        )
    return int(int(m.group(1)) * _DURATION_UNITS.get(m.group(2), 1))


def _non_negative_int(opts: Mapping[str, str], name: str, default: int) -> int:
    raw = opts.get(name.lower())
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError("Option '%s' must be a non-negative integer, got %r" % (name, raw))
    return value


def source_options(
    options: Mapping[str, Any], streaming: bool, decodings: Optional[Tuple[Decoding, ...]] = None
) -> SourceOptions:
    """The source's options, checked; ``decodings``: the decoded columns when already
    resolved (else resolved here, fetching the reader schemas)."""
    opts = lowered(options)
    check_known(opts, SOURCE_OPTIONS + METRICS_OPTIONS, "source")
    kafka = kafka_params(opts)
    sub = subscription(opts)
    starting = offset_spec(opts, "starting", "latest" if streaming else "earliest")
    if streaming:
        for name in ("endingOffsets", "endingTimestamp", "endingOffsetsByTimestamp"):
            if name.lower() in opts:
                raise ValueError(
                    "Option '%s' is not valid in streaming queries: a stream has no end." % name
                )
        ending = None
    else:
        ending = offset_spec(opts, "ending", "latest")
        if starting.kind == "latest":
            raise ValueError(
                "Option 'startingOffsets' can't be 'latest' for batch queries on Kafka"
            )
        if ending.kind == "earliest":
            raise ValueError(
                "Option 'endingOffsets' can't be 'earliest' for batch queries on Kafka"
            )
        for spec, banned, word in (
            (starting, LATEST, "latest (-1)"),
            (ending, EARLIEST, "earliest (-2)"),
        ):
            if spec.kind == "offsets":
                bad = [tp for tp, v in spec.per_partition.items() if v == banned]
                if bad:
                    raise ValueError(
                        "Option '%s' can't be %s for batch queries on Kafka: %s"
                        % (spec.option, word, ", ".join("%s-%d" % tp for tp in bad))
                    )
    strategy = opts.get("startingoffsetsbytimestampstrategy", "error").strip().lower()
    if strategy not in ("error", "latest"):
        raise ValueError(
            "Option 'startingOffsetsByTimestampStrategy' must be 'error' or 'latest', got %r"
            % opts["startingoffsetsbytimestampstrategy"]
        )
    poll_timeout = _positive_int(opts, "kafkaConsumer.pollTimeoutMs") or 120000
    low, high = (
        _positive_int(opts, "minOffsetsPerTrigger"),
        _positive_int(opts, "maxOffsetsPerTrigger"),
    )
    if low is not None and high is not None and low > high:
        raise ValueError(
            "Option 'minOffsetsPerTrigger' (%d) is higher than option 'maxOffsetsPerTrigger' (%d)"
            % (low, high)
        )
    group_id = kafka.pop("group.id", None) or "%s-%s" % (
        opts.get("groupidprefix", "spark-kafka-source"),
        uuid.uuid4().hex,
    )
    return SourceOptions(
        kafka=kafka,
        subscription=sub,
        starting=starting,
        ending=ending,
        min_partitions=_positive_int(opts, "minPartitions"),
        include_headers=flag(opts, "includeHeaders", False),
        fail_on_data_loss=flag(opts, "failOnDataLoss", True),
        poll_timeout_ms=poll_timeout,
        max_offsets_per_trigger=_positive_int(opts, "maxOffsetsPerTrigger") if streaming else None,
        min_offsets_per_trigger=_positive_int(opts, "minOffsetsPerTrigger") if streaming else None,
        max_trigger_delay_ms=duration_ms(opts, "maxTriggerDelay", "15m"),
        max_records_per_partition=_positive_int(opts, "maxRecordsPerPartition"),
        fetch_retries=_non_negative_int(opts, "fetchOffset.numRetries", 3),
        fetch_retry_interval_ms=_non_negative_int(opts, "fetchOffset.retryIntervalMs", 10),
        by_timestamp_strategy=strategy,
        group_id=group_id,
        batch_records=_positive_int(opts, "arrowBatchRecords") or 10000,
        decodings=(
            decodings if decodings is not None else tuple(source_decodings(opts, _topics(sub)))
        ),
        metrics=metrics_options(opts),
    )


def _topics(sub: Subscription) -> List[str]:
    """The topics a subscription names (none for a pattern)."""
    if sub.kind == "subscribe":
        return list(sub.topics)
    return sorted({t for t, _ in sub.assigned})
