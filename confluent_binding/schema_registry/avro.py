"""Avro serializer and deserializer framed for the Schema Registry (extra ``[avro]``: fastavro)."""

import io
import json

from fastavro import parse_schema, schemaless_reader, schemaless_writer

from ..serialization import DeserializerBuilder, SerializationError, SerializerBuilder
from .schema_registry_client import Schema
from .serde import BaseDeserializer, BaseSerializer, _SerdeBuilder

__all__ = ["AvroSerializer", "AvroDeserializer", "AvroSerializerBuilder", "AvroDeserializerBuilder"]

_AVRO = "AVRO"


def _schema_loads(schema_str):
    """A Schema for an Avro declaration; a bare primitive name (``"string"``) becomes a type."""
    schema_str = schema_str.strip()
    if schema_str[:1] not in ("{", "["):
        schema_str = '{"type":' + schema_str + "}"
    return Schema(schema_str, schema_type=_AVRO)


def _schema_key(schema):
    refs = tuple((r.name, r.subject, r.version) for r in (schema.references or ()))
    return schema.schema_str, refs


class _AvroSchemas:
    """Parses schemas (with their references, fetched from the registry) once each."""

    def __init__(self, registry):
        self._registry = registry
        self._parsed = {}

    def parse(self, schema):
        key = _schema_key(schema)
        parsed = self._parsed.get(key)
        if parsed is None:
            named = {}
            self._add_references(schema, named, set())
            parsed = parse_schema(
                json.loads(_schema_loads(schema.schema_str).schema_str), named_schemas=named
            )
            self._parsed[key] = parsed
        return parsed

    def _add_references(self, schema, named, seen):
        # depth first, so each named type is defined before a schema that uses it; a type reached
        # twice (a diamond of references) is defined once
        for ref in schema.references or ():
            if ref.subject is None or ref.version is None:
                raise TypeError("Subject or version cannot be None")
            if (ref.subject, ref.version) in seen:
                continue
            seen.add((ref.subject, ref.version))
            referenced = self._registry.get_version(ref.subject, ref.version, True).schema
            self._add_references(referenced, named, seen)
            parse_schema(json.loads(referenced.schema_str), named_schemas=named)


def _is_bytes(parsed):
    return parsed == "bytes" or (isinstance(parsed, dict) and parsed.get("type") == "bytes")


class AvroSerializer(BaseSerializer):
    """Serializes records (dicts, or objects through ``to_dict``) to framed Avro binary.

    Args: ``schema_registry_client``, ``schema_str`` (an Avro schema as a str or a Schema with
    references; optional with ``use.latest.version``), ``to_dict(obj, ctx) -> dict``, ``conf``:
    ``auto.register.schemas`` (True), ``normalize.schemas`` (False), ``use.schema.id``,
    ``use.latest.version`` (False), ``use.latest.with.metadata``, ``subject.name.strategy``
    (topic_subject_name_strategy), ``schema.id.serializer`` (prefix_schema_id_serializer),
    ``validate.strict`` and ``validate.strict.allow.default`` (fastavro's strict writing).
    """

    _schema_type = _AVRO

    def __init__(
        self,
        schema_registry_client,
        schema_str=None,
        to_dict=None,
        conf=None,
        rule_conf=None,
        rule_registry=None,
    ):
        if isinstance(schema_str, str):
            schema = _schema_loads(schema_str)
        elif isinstance(schema_str, Schema):
            schema = schema_str
        else:
            schema = None
        if to_dict is not None and not callable(to_dict):
            raise ValueError(
                "to_dict must be callable with the signature "
                "to_dict(object, SerializationContext)->dict"
            )
        self._to_dict = to_dict
        conf = self._configure(
            schema_registry_client,
            conf,
            extra_defaults={"validate.strict": False, "validate.strict.allow.default": False},
        )
        self._strict = conf.take_bool("validate.strict")
        self._strict_allow_default = conf.take_bool("validate.strict.allow.default")
        conf.finish()
        self._schemas = _AvroSchemas(schema_registry_client)
        self._schema = schema
        self._parsed_schema = None
        self._schema_name = None
        if schema is not None:
            self._parsed_schema = self._schemas.parse(schema)
            if isinstance(self._parsed_schema, dict):
                # a named type's full name; a primitive's is its type (a union has none)
                self._schema_name = self._parsed_schema.get(
                    "name", json.loads(schema.schema_str).get("type")
                )

    def __call__(self, obj, ctx=None):
        if obj is None:
            return None
        schema_id, selected, value = self._prepare(obj, ctx)
        parsed = (
            self._schemas.parse(selected.schema) if selected is not None else self._parsed_schema
        )
        if parsed is None:
            raise SerializationError(
                "No schema to serialize with: give schema_str or use.latest.version"
            )
        if _is_bytes(parsed):
            # Confluent's serializers write a plain "bytes" schema's value as is, unprefixed
            payload = value if isinstance(value, bytes) else value.encode()
        else:
            buf = io.BytesIO()
            schemaless_writer(
                buf,
                parsed,
                value,
                strict=self._strict,
                strict_allow_default=self._strict_allow_default,
            )
            payload = buf.getvalue()
        return self._schema_id_serializer(payload, ctx, schema_id)


class AvroDeserializer(BaseDeserializer):
    """Deserializes framed Avro binary to dicts (or objects through ``from_dict``).

    The writer's schema is fetched by the payload's schema id; the reader's schema is
    ``schema_str`` if given, else the latest registered version with ``use.latest.version``,
    else the writer's. ``return_record_name`` is fastavro's (unions of records give
    ``(name, record)``).
    """

    _schema_type = _AVRO

    def __init__(
        self,
        schema_registry_client,
        schema_str=None,
        from_dict=None,
        return_record_name=False,
        conf=None,
        rule_conf=None,
        rule_registry=None,
    ):
        schema = None
        if schema_str is not None:
            if isinstance(schema_str, str):
                schema = _schema_loads(schema_str)
            elif isinstance(schema_str, Schema):
                schema = schema_str
            else:
                raise TypeError("You must pass either schema string or schema object")
        self._configure(schema_registry_client, conf).finish()
        self._schemas = _AvroSchemas(schema_registry_client)
        self._reader_schema = self._schemas.parse(schema) if schema is not None else None
        if from_dict is not None and not callable(from_dict):
            raise ValueError(
                "from_dict must be callable with the signature "
                "from_dict(SerializationContext, dict) "
                "-> object"
            )
        self._from_dict = from_dict
        if not isinstance(return_record_name, bool):
            raise ValueError("return_record_name must be a boolean value")
        self._return_record_name = return_record_name

    def __call__(self, data, ctx=None):
        if data is None:
            return None
        schema_id, payload = self._unframe(data, ctx)
        subject = self._subject(ctx, None) if ctx is not None else None
        writer_schema = self._writer_schema(schema_id, subject)
        writer = self._schemas.parse(writer_schema)
        if subject is None and ctx is not None and isinstance(writer, dict):
            subject = self._subject(ctx, writer.get("name"))
        latest = self._get_reader_schema(subject) if subject is not None else None
        if latest is not None:
            reader = self._schemas.parse(latest.schema)
        else:
            reader = self._reader_schema if self._reader_schema is not None else writer
        if _is_bytes(writer):
            obj = payload.read()
        else:
            obj = schemaless_reader(payload, writer, reader, self._return_record_name)
        if self._from_dict is not None:
            return self._from_dict(obj, ctx)
        return obj


class AvroSerializerBuilder(_SerdeBuilder, SerializerBuilder):
    """Builds an AvroSerializer for ``key.serializer.builder``/``value.serializer.builder``."""

    _fields = (
        "schema_registry_config",
        "schema_registry_client",
        "schema",
        "to_dict",
        "serializer_config",
        "rule_config",
        "rule_registry",
        "serializer_init",
    )
    _init_field = "serializer_init"

    def _make(self, client, v):
        return AvroSerializer(
            client,
            v["schema"],
            v["to_dict"],
            v["serializer_config"],
            v["rule_config"],
            v["rule_registry"],
        )


class AvroDeserializerBuilder(_SerdeBuilder, DeserializerBuilder):
    """Builds an AvroDeserializer for ``key/value.deserializer.builder``."""

    _fields = (
        "schema_registry_config",
        "schema_registry_client",
        "schema",
        "from_dict",
        "return_record_name",
        "deserializer_config",
        "rule_config",
        "rule_registry",
        "deserializer_init",
    )
    _init_field = "deserializer_init"

    def _make(self, client, v):
        return AvroDeserializer(
            client,
            v["schema"],
            v["from_dict"],
            bool(v["return_record_name"]),
            v["deserializer_config"],
            v["rule_config"],
            v["rule_registry"],
        )
