"""The Schema Registry formats of the source's and sink's key and value columns: options
(``valueFormat`` / ``keyFormat``, ``schema.registry.*``, the reader or writer schema, ``mode``
and the serializer settings), checked and resolved on the driver.

``binary`` (the default) keeps Spark's connector's binary columns. ``avro`` reads and writes the
Schema Registry wire format (:mod:`._avro`). Other formats are refused by name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional

FORMATS = ("binary", "avro")
_LATER = ("json", "protobuf")
REGISTRY_PREFIX = "schema.registry."

# Options of both the source and the sink, per column (key or value).
FIELD_OPTIONS = ("Format", "Schema", "Subject")
SOURCE_FORMAT_OPTIONS = tuple(
    c + o for c in ("value", "key") for o in FIELD_OPTIONS + ("SchemaVersion",)
) + ("mode",)
SINK_FORMAT_OPTIONS = tuple(c + o for c in ("value", "key") for o in ("Format", "Schema")) + (
    "auto.register.schemas",
    "use.latest.version",
    "normalize.schemas",
    "value.subject.name.strategy",
    "key.subject.name.strategy",
)

# confluent's subject name strategies, by the Java serializers' class names or short names
_STRATEGIES = {
    "topicnamestrategy": "topic_subject_name_strategy",
    "recordnamestrategy": "record_subject_name_strategy",
    "topicrecordnamestrategy": "topic_record_subject_name_strategy",
}


def registry_conf(opts: Mapping[str, str]) -> Dict[str, str]:
    """``schema.registry.*`` options without the prefix: the SchemaRegistryClient's settings
    (``schema.registry.url`` -> ``url``, ``schema.registry.basic.auth.user.info``,
    ``schema.registry.ssl.ca.location``, ...)."""
    return {k[len(REGISTRY_PREFIX):]: v for k, v in opts.items() if k.startswith(REGISTRY_PREFIX)}


def _format(opts: Mapping[str, str], field: str) -> str:
    name = field + "Format"
    raw = opts.get(name.lower(), "binary").strip().lower()
    if raw in _LATER:
        raise ValueError(
            "Option '%s' = '%s': only 'avro' and 'binary' are supported so far" % (name, raw)
        )
    if raw not in FORMATS:
        raise ValueError("Option '%s' must be one of %s, got %r" % (name, ", ".join(FORMATS),
                                                                    opts[name.lower()]))
    return raw


def _check_registry(field: str, conf: Dict[str, str]) -> None:
    if "url" not in conf:
        raise ValueError(
            "Option 'schema.registry.url' must be specified with %sFormat=avro" % field
        )


@dataclass(frozen=True)
class Decoding:
    """How the source decodes one column: the reader schema (parsed JSON and its references),
    the registry's settings and the mode."""

    field: str  # "key" | "value"
    reader: Any
    named: Dict[str, Any]
    registry: Dict[str, str]
    permissive: bool

    def decoder(self) -> Any:
        from ._avro import AvroDecoder

        return AvroDecoder(self.reader, self.named, self.registry, self.field, self.permissive)

    def arrow_type(self) -> Any:
        from ._avro import arrow_type

        return arrow_type(self.reader, self.named)


def _mode(opts: Mapping[str, str]) -> bool:
    raw = opts.get("mode", "FAILFAST").strip().upper()
    if raw not in ("FAILFAST", "PERMISSIVE"):
        raise ValueError("Option 'mode' must be FAILFAST or PERMISSIVE, got %r" % opts["mode"])
    return raw == "PERMISSIVE"


def source_decodings(opts: Mapping[str, str], topics: List[str]) -> List[Decoding]:
    """The source's decoded columns (none when both formats are binary). ``topics``: the topics
    of a ``subscribe`` option (the default subject is ``<topic>-<field>`` of the only one)."""
    out = []
    permissive = _mode(opts)
    conf = registry_conf(opts)
    for field in ("value", "key"):
        if _format(opts, field) == "binary":
            for o in FIELD_OPTIONS[1:] + ("SchemaVersion",):
                if (field + o).lower() in opts:
                    raise ValueError("Option '%s%s' needs %sFormat=avro" % (field, o, field))
            continue
        _check_registry(field, conf)
        out.append(_reader_schema(opts, field, topics, conf, permissive))
    if not out and "mode" in opts:
        raise ValueError("Option 'mode' needs valueFormat or keyFormat avro")
    return out


def _reader_schema(opts: Mapping[str, str], field: str, topics: List[str],
                   conf: Dict[str, str], permissive: bool) -> Decoding:
    from ..schema_registry import SchemaRegistryError
    from ._avro import arrow_type, named_references, registry_client

    inline = opts.get((field + "Schema").lower())
    subject = opts.get((field + "Subject").lower())
    version = opts.get((field + "SchemaVersion").lower(), "latest").strip().lower()
    if inline is not None:
        if subject is not None or (field + "SchemaVersion").lower() in opts:
            raise ValueError(
                "Options '%sSchema' and '%sSubject'/'%sSchemaVersion' exclude each other"
                % (field, field, field)
            )
        try:
            reader = json.loads(inline)
        except ValueError as e:
            raise ValueError("Option '%sSchema' is not valid JSON (%s)" % (field, e)) from None
        named: Dict[str, Any] = {}
    else:
        if subject is None:
            if len(topics) != 1:
                raise ValueError(
                    "Option '%sSubject' (or '%sSchema') is needed to find the reader schema "
                    "unless the source subscribes to one topic (then <topic>-%s)"
                    % (field, field, field)
                )
            subject = "%s-%s" % (topics[0], field)
        client = registry_client(conf)
        try:
            if version == "latest":
                registered = client.get_latest_version(subject)
            else:
                try:
                    number = int(version)
                except ValueError:
                    raise ValueError(
                        "Option '%sSchemaVersion' must be 'latest' or a version number, got %r"
                        % (field, version)
                    ) from None
                registered = client.get_version(subject, number)
        except SchemaRegistryError as e:
            raise ValueError(
                "The reader schema of the %s column (subject %r, version %s) could not be "
                "fetched from the Schema Registry: %s" % (field, subject, version, e)
            ) from e
        if registered.schema.schema_type not in (None, "AVRO"):
            raise ValueError("Subject %r holds a %s schema, not Avro (%sFormat=avro)"
                             % (subject, registered.schema.schema_type, field))
        reader = json.loads(registered.schema.schema_str)
        named = named_references(client, registered.schema)
    arrow_type(reader, named)  # raises now, on the driver, naming what Spark cannot hold
    return Decoding(field, reader, named, conf, permissive)


@dataclass(frozen=True)
class Encoding:
    """How the sink encodes one column."""

    field: str
    schema_str: Optional[str]
    registry: Dict[str, str]
    conf: Dict[str, Any]

    def encoder(self) -> Any:
        from ..schema_registry import serde
        from ._avro import AvroEncoder

        conf = dict(self.conf)
        conf["subject.name.strategy"] = getattr(serde, conf["subject.name.strategy"])
        return AvroEncoder(self.registry, self.schema_str, conf, self.field)


def _bool(opts: Mapping[str, str], name: str, default: bool) -> bool:
    raw = opts.get(name.lower())
    if raw is None:
        return default
    if raw.strip().lower() not in ("true", "false"):
        raise ValueError("Option '%s' must be 'true' or 'false', got %r" % (name, raw))
    return raw.strip().lower() == "true"


def sink_encodings(opts: Mapping[str, str], schema: Any) -> List[Encoding]:
    """The sink's encoded columns, from the options and the DataFrame's schema (Spark's)."""
    from ._avro import avro_schema

    out = []
    conf = registry_conf(opts)
    fields = {f.name.lower(): f.dataType for f in schema.fields}
    for field in ("value", "key"):
        strategy_option = field + ".subject.name.strategy"
        if _format(opts, field) == "binary":
            if (field + "Schema").lower() in opts or strategy_option in opts:
                raise ValueError("Option '%sSchema' / '%s' needs %sFormat=avro"
                                 % (field, strategy_option, field))
            continue
        _check_registry(field, conf)
        if field not in fields:
            raise ValueError("%sFormat=avro but the DataFrame has no '%s' column" % (field, field))
        raw_strategy = opts.get(strategy_option, "TopicNameStrategy").strip()
        short = raw_strategy.rsplit(".", 1)[-1].lower()
        if short not in _STRATEGIES:
            raise ValueError(
                "Option '%s' must be TopicNameStrategy, RecordNameStrategy or "
                "TopicRecordNameStrategy (or confluent's class names), got %r"
                % (strategy_option, raw_strategy)
            )
        use_latest = _bool(opts, "use.latest.version", False)
        serializer_conf = {
            "auto.register.schemas": _bool(opts, "auto.register.schemas", not use_latest),
            "use.latest.version": use_latest,
            "normalize.schemas": _bool(opts, "normalize.schemas", False),
            "subject.name.strategy": _STRATEGIES[short],
        }
        schema_str = opts.get((field + "Schema").lower())
        if schema_str is None and not use_latest:
            schema_str = json.dumps(avro_schema(fields[field]))
        elif schema_str is not None:
            try:
                json.loads(schema_str)
            except ValueError as e:
                raise ValueError("Option '%sSchema' is not valid JSON (%s)" % (field, e)) from None
        out.append(Encoding(field, schema_str, conf, serializer_conf))
    return out
