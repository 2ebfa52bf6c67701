"""JSON Schema serializer and deserializer framed for the Schema Registry.

Extra ``[json]``: jsonschema.
"""

import json
import threading

import referencing.jsonschema
from jsonschema import ValidationError
from jsonschema.validators import validator_for
from referencing import Registry, Resource

from ..serialization import DeserializerBuilder, SerializationError, SerializerBuilder
from .schema_registry_client import Schema
from .serde import BaseDeserializer, BaseSerializer, _SerdeBuilder

__all__ = ["JSONSerializer", "JSONDeserializer", "JSONSerializerBuilder", "JSONDeserializerBuilder"]

_JSON = "JSON"
# schemas without "$schema" are read as draft 7, as Confluent's serdes read them
_DEFAULT_SPEC = referencing.jsonschema.DRAFT7


def _json_dumps(obj):
    # compact and not ASCII-escaped: the bytes Confluent's JSONSerializer writes
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class _JsonSchemas:
    """Parses schemas once each, with a ``referencing`` registry of their references by name."""

    def __init__(self, registry):
        self._registry = registry
        self._parsed = {}
        self._validators = {}
        self._lock = threading.Lock()

    def parse(self, schema):
        key = (
            schema.schema_str,
            tuple((r.name, r.subject, r.version) for r in (schema.references or ())),
        )
        found = self._parsed.get(key)
        if found is None:
            found = (json.loads(schema.schema_str), self._references(schema, Registry()))
            self._parsed[key] = found
        return found

    def _references(self, schema, refs):
        for ref in schema.references or ():
            if ref.subject is None or ref.version is None:
                raise TypeError("Subject or version cannot be None")
            referenced = self._registry.get_version(ref.subject, ref.version, True).schema
            refs = self._references(referenced, refs)
            contents = json.loads(referenced.schema_str)
            refs = refs.with_resource(
                ref.name, Resource.from_contents(contents, default_specification=_DEFAULT_SPEC)
            )
        return refs

    def validate(self, schema, value):
        parsed, refs = self.parse(schema)
        key = id(parsed)
        with self._lock:
            validator = self._validators.get(key)
        if validator is None:
            cls = validator_for(
                parsed,
                default=validator_for({"$schema": "http://json-schema.org/draft-07/schema#"}),
            )
            cls.check_schema(parsed)
            validator = cls(parsed, registry=refs)
            with self._lock:
                self._validators[key] = validator
        try:
            validator.validate(value)
        except ValidationError as e:
            raise SerializationError(e.message)


def _as_schema(schema_str):
    if isinstance(schema_str, str):
        return Schema(schema_str, schema_type=_JSON)
    if isinstance(schema_str, Schema) or schema_str is None:
        return schema_str
    raise TypeError("You must pass either str or Schema")


class JSONSerializer(BaseSerializer):
    """Serializes dicts (or objects through ``to_dict``) to framed JSON, validated first.

    Args: ``schema_str`` (a JSON Schema str, or a Schema with references; its ``title`` is the
    record name), ``schema_registry_client``, ``to_dict(obj, ctx) -> dict``, ``conf``: as
    AvroSerializer's plus ``validate`` (True), and ``json_encode`` (obj -> str or bytes).
    """

    _schema_type = _JSON

    def __init__(
        self,
        schema_str,
        schema_registry_client,
        to_dict=None,
        conf=None,
        rule_conf=None,
        rule_registry=None,
        json_encode=None,
    ):
        self._schema = _as_schema(schema_str)
        self._json_encode = json_encode or _json_dumps
        conf = self._configure(schema_registry_client, conf, extra_defaults={"validate": True})
        self._validate = conf.take_bool("validate")
        conf.finish()
        if to_dict is not None and not callable(to_dict):
            raise ValueError(
                "to_dict must be callable with the signature "
                "to_dict(object, SerializationContext)->dict"
            )
        self._to_dict = to_dict
        self._schemas = _JsonSchemas(schema_registry_client)
        self._schema_name = None
        if self._schema is not None:
            parsed, _ = self._schemas.parse(self._schema)
            self._schema_name = parsed.get("title") if isinstance(parsed, dict) else None

    def __call__(self, obj, ctx=None):
        if obj is None:
            return None
        schema_id, selected, value = self._prepare(obj, ctx)
        schema = selected.schema if selected is not None else self._schema
        if self._validate and schema is not None:
            self._schemas.validate(schema, value)
        encoded = self._json_encode(value)
        if isinstance(encoded, str):
            encoded = encoded.encode("utf8")
        return self._schema_id_serializer(encoded, ctx, schema_id)


class JSONDeserializer(BaseDeserializer):
    """Deserializes framed JSON to dicts (or objects through ``from_dict``), validating them.

    The record is validated against (in order) the latest registered version
    (``use.latest.version``), ``schema_str``, or the writer's schema fetched by id when a
    ``schema_registry_client`` is given.
    """

    _schema_type = _JSON

    def __init__(
        self,
        schema_str,
        from_dict=None,
        schema_registry_client=None,
        conf=None,
        rule_conf=None,
        rule_registry=None,
        json_decode=None,
    ):
        self._schema = _as_schema(schema_str)
        if self._schema is None and schema_registry_client is None:
            raise ValueError(
                "schema_registry_client must be provided if schema_str is not provided"
            )
        self._json_decode = json_decode or json.loads
        conf = self._configure(schema_registry_client, conf, extra_defaults={"validate": True})
        self._validate = conf.take_bool("validate")
        conf.finish()
        if from_dict is not None and not callable(from_dict):
            raise ValueError(
                "from_dict must be callable with the signature "
                "from_dict(dict, SerializationContext) "
                "-> object"
            )
        self._from_dict = from_dict
        self._schemas = _JsonSchemas(schema_registry_client)
        if self._schema is not None:
            self._schemas.parse(self._schema)

    def __call__(self, data, ctx=None):
        if data is None:
            return None
        subject = self._subject(ctx, None) if ctx is not None else None
        schema_id = None
        schema_id, payload = self._unframe(data, ctx, check_length=False)
        reader = None
        if self._registry is not None:
            writer = self._writer_schema(schema_id, subject)
            parsed, _ = self._schemas.parse(writer)
            if subject is None and ctx is not None and isinstance(parsed, dict):
                subject = self._subject(ctx, parsed.get("title"))
            latest = self._get_reader_schema(subject) if subject is not None else None
            reader = latest.schema if latest is not None else (self._schema or writer)
        else:
            reader = self._schema
        obj = self._json_decode(payload.read())
        if self._validate and reader is not None:
            self._schemas.validate(reader, obj)
        if self._from_dict is not None:
            if ctx is None:
                raise TypeError("SerializationContext cannot be None")
            return self._from_dict(obj, ctx)
        return obj


class JSONSerializerBuilder(_SerdeBuilder, SerializerBuilder):
    """Builds a JSONSerializer for ``key.serializer.builder``/``value.serializer.builder``."""

    _fields = (
        "schema_registry_config",
        "schema_registry_client",
        "schema",
        "to_dict",
        "serializer_config",
        "rule_config",
        "rule_registry",
        "json_encode",
        "serializer_init",
    )
    _init_field = "serializer_init"

    def _make(self, client, v):
        return JSONSerializer(
            v["schema"],
            client,
            v["to_dict"],
            v["serializer_config"],
            v["rule_config"],
            v["rule_registry"],
            v["json_encode"],
        )


class JSONDeserializerBuilder(_SerdeBuilder, DeserializerBuilder):
    """Builds a JSONDeserializer for ``key.deserializer.builder``/``value.deserializer.builder``."""

    _fields = (
        "schema_registry_config",
        "schema_registry_client",
        "schema",
        "from_dict",
        "deserializer_config",
        "rule_config",
        "rule_registry",
        "json_decode",
        "deserializer_init",
    )
    _init_field = "deserializer_init"

    def _make(self, client, v):
        return JSONDeserializer(
            v["schema"],
            v["from_dict"],
            client,
            v["deserializer_config"],
            v["rule_config"],
            v["rule_registry"],
            v["json_decode"],
        )
