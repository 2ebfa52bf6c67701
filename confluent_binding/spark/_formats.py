"""The Schema Registry formats of the source's and sink's key and value columns: options
(``valueFormat`` / ``keyFormat``, ``schema.registry.*``, the reader or writer schema, ``mode``
and the serializer settings), checked and resolved on the driver.

``binary`` (the default) keeps Spark's connector's binary columns. ``avro``, ``json`` (JSON
Schema) and ``protobuf`` read and write the Schema Registry wire format (:mod:`._avro`,
:mod:`._json`, :mod:`._protobuf`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional

FORMATS = ("binary", "avro", "json", "protobuf")
REGISTRY_PREFIX = "schema.registry."

# Options of both the source and the sink, per column (key or value).
FIELD_OPTIONS = ("Format", "Schema", "Subject")
SOURCE_FORMAT_OPTIONS = tuple(
    c + o for c in ("value", "key") for o in FIELD_OPTIONS + ("SchemaVersion", "MessageName")
) + ("mode",)
SINK_FORMAT_OPTIONS = tuple(
    c + o for c in ("value", "key") for o in ("Format", "Schema", "MessageName")
) + (
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
    if raw not in FORMATS:
        raise ValueError("Option '%s' must be one of %s, got %r" % (name, ", ".join(FORMATS),
                                                                    opts[name.lower()]))
    return raw


def _check_registry(field: str, fmt: str, conf: Dict[str, str]) -> None:
    if "url" not in conf:
        raise ValueError(
            "Option 'schema.registry.url' must be specified with %sFormat=%s" % (field, fmt)
        )


def _message_name(opts: Mapping[str, str], field: str, fmt: str) -> Optional[str]:
    """The ``<field>MessageName`` option (Protobuf only): the message of the schema's file."""
    name = opts.get((field + "MessageName").lower())
    if name is not None and fmt != "protobuf":
        raise ValueError("Option '%sMessageName' needs %sFormat=protobuf" % (field, field))
    return name.strip() if name is not None else None


@dataclass(frozen=True)
class Decoding:
    """How the source decodes one column: the reader schema (parsed JSON and its references;
    for Protobuf, :func:`._protobuf.reader_spec`), the registry's settings and the mode."""

    field: str  # "key" | "value"
    reader: Any
    named: Dict[str, Any]
    registry: Dict[str, str]
    permissive: bool
    format: str = "avro"

    def decoder(self) -> Any:
        if self.format == "json":
            from ._json import JsonDecoder

            return JsonDecoder(self.reader, self.named, self.registry, self.field,
                               self.permissive)
        if self.format == "protobuf":
            from ._protobuf import ProtobufDecoder

            return ProtobufDecoder(self.reader, self.registry, self.field, self.permissive)
        from ._avro import AvroDecoder

        return AvroDecoder(self.reader, self.named, self.registry, self.field, self.permissive)

    def arrow_type(self) -> Any:
        if self.format == "json":
            from ._json import arrow_types

            return arrow_types(self.reader, self.named)[1]
        if self.format == "protobuf":
            from ._protobuf import arrow_type as proto_type

            return proto_type(self.registry, self.reader)
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
        fmt = _format(opts, field)
        if fmt == "binary":
            for o in FIELD_OPTIONS[1:] + ("SchemaVersion", "MessageName"):
                if (field + o).lower() in opts:
                    raise ValueError("Option '%s%s' needs %sFormat=avro, json or protobuf"
                                     % (field, o, field))
            continue
        _check_registry(field, fmt, conf)
        out.append(_reader_schema(opts, field, fmt, topics, conf, permissive))
    if not out and "mode" in opts:
        raise ValueError("Option 'mode' needs valueFormat or keyFormat avro, json or protobuf")
    return out


_SCHEMA_TYPES = {"avro": ("AVRO", "Avro"), "json": ("JSON", "JSON Schema"),
                 "protobuf": ("PROTOBUF", "Protobuf")}


def _reader_schema(opts: Mapping[str, str], field: str, fmt: str, topics: List[str],
                   conf: Dict[str, str], permissive: bool) -> Decoding:
    from ..schema_registry import SchemaRegistryError
    from ._avro import arrow_type, named_references, registry_client

    message = _message_name(opts, field, fmt)
    inline = opts.get((field + "Schema").lower())
    subject = opts.get((field + "Subject").lower())
    version = opts.get((field + "SchemaVersion").lower(), "latest").strip().lower()
    if inline is not None:
        if subject is not None or (field + "SchemaVersion").lower() in opts:
            raise ValueError(
                "Options '%sSchema' and '%sSubject'/'%sSchemaVersion' exclude each other"
                % (field, field, field)
            )
        if fmt == "protobuf":
            raise ValueError(
                "Option '%sSchema' is not read with %sFormat=protobuf: register the .proto "
                "schema in the Schema Registry and name it with '%sSubject' (and "
                "'%sSchemaVersion', '%sMessageName')" % (field, field, field, field, field)
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
        # Protobuf schemas in the serialized form (a FileDescriptorProto: no .proto compiler
        # needed), from a client of their own (a client caches a schema in one form)
        if fmt == "protobuf":
            from ._protobuf import proto_client

            client, form = proto_client(conf), "serialized"
        else:
            client, form = registry_client(conf), None
        try:
            if version == "latest":
                registered = client.get_latest_version(subject, fmt=form)
            else:
                try:
                    number = int(version)
                except ValueError:
                    raise ValueError(
                        "Option '%sSchemaVersion' must be 'latest' or a version number, got %r"
                        % (field, version)
                    ) from None
                registered = client.get_version(subject, number, fmt=form)
        except SchemaRegistryError as e:
            raise ValueError(
                "The reader schema of the %s column (subject %r, version %s) could not be "
                "fetched from the Schema Registry: %s" % (field, subject, version, e)
            ) from e
        wanted, title = _SCHEMA_TYPES[fmt]
        if (registered.schema.schema_type or "AVRO") != wanted:
            raise ValueError("Subject %r holds a %s schema, not %s (%sFormat=%s)"
                             % (subject, registered.schema.schema_type or "AVRO", title, field,
                                fmt))
        if fmt == "protobuf":
            from ._protobuf import arrow_type as proto_type
            from ._protobuf import reader_spec

            spec = reader_spec(registered.schema, message)
            proto_type(conf, spec)  # raises now, on the driver, naming what Spark cannot hold
            return Decoding(field, spec, {}, conf, permissive, fmt)
        reader = json.loads(registered.schema.schema_str)
        if fmt == "json":
            from ._json import json_references

            named = json_references(client, registered.schema)
        else:
            named = named_references(client, registered.schema)
    if fmt == "json":
        from ._json import arrow_types

        arrow_types(reader, named)  # raises now, on the driver, naming what Spark cannot hold
    else:
        arrow_type(reader, named)
    return Decoding(field, reader, named, conf, permissive, fmt)


@dataclass(frozen=True)
class Encoding:
    """How the sink encodes one column."""

    field: str
    schema_str: Optional[str]
    registry: Dict[str, str]
    conf: Dict[str, Any]
    format: str = "avro"
    message: Optional[str] = None  # Protobuf: the message of the latest schema written

    def encoder(self) -> Any:
        from ..schema_registry import serde

        conf = dict(self.conf)
        conf["subject.name.strategy"] = getattr(serde, conf["subject.name.strategy"])
        if self.format == "json":
            from ._json import JsonEncoder

            return JsonEncoder(self.registry, self.schema_str, conf, self.field)
        if self.format == "protobuf":
            from ._protobuf import ProtobufEncoder

            return ProtobufEncoder(self.registry, self.schema_str, conf, self.field,
                                   self.message)
        from ._avro import AvroEncoder

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
        fmt = _format(opts, field)
        if fmt == "binary":
            if ((field + "Schema").lower() in opts or strategy_option in opts
                    or (field + "MessageName").lower() in opts):
                raise ValueError("Option '%sSchema' / '%sMessageName' / '%s' needs %sFormat=avro, "
                                 "json or protobuf" % (field, field, strategy_option, field))
            continue
        _check_registry(field, fmt, conf)
        message = _message_name(opts, field, fmt)
        if field not in fields:
            raise ValueError("%sFormat=%s but the DataFrame has no '%s' column"
                             % (field, fmt, field))
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
        if fmt == "protobuf":
            schema_str = _protobuf_writer(field, schema_str, use_latest, message,
                                          _STRATEGIES[short], fields[field])
        elif schema_str is None and not use_latest:
            if fmt == "json":
                from ._json import json_schema

                schema_str = json.dumps(json_schema(fields[field]))
            else:
                schema_str = json.dumps(avro_schema(fields[field]))
        elif schema_str is not None:
            try:
                json.loads(schema_str)
            except ValueError as e:
                raise ValueError("Option '%sSchema' is not valid JSON (%s)" % (field, e)) from None
        out.append(Encoding(field, schema_str, conf, serializer_conf, fmt, message))
    return out


def _protobuf_writer(field: str, schema_str: Optional[str], use_latest: bool,
                     message: Optional[str], strategy: str, spark_type: Any) -> Optional[str]:
    """The Protobuf sink's writer: a file derived from the column's type (a base64
    FileDescriptorProto), or None with use.latest.version (the subject's latest schema, which
    may have been registered as .proto text, read on the executors)."""
    if schema_str is not None:
        raise ValueError(
            "Option '%sSchema' is not read with %sFormat=protobuf: register the .proto schema "
            "under the subject and set 'use.latest.version' to 'true' (or leave both out to "
            "write a message derived from the column's type)" % (field, field)
        )
    if use_latest:
        if strategy != "topic_subject_name_strategy" and message is None:
            raise ValueError(
                "With %sFormat=protobuf, use.latest.version and a record subject name strategy, "
                "option '%sMessageName' must name the message (its full name)" % (field, field)
            )
        return None
    if message is not None:
        raise ValueError("Option '%sMessageName' needs use.latest.version with "
                         "%sFormat=protobuf (the derived message is topLevelRecord)"
                         % (field, field))
    from ._protobuf import proto_file

    return proto_file(spark_type)
