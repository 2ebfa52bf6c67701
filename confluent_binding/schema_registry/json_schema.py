"""JSON Schema serializer and deserializer framed for the Schema Registry.

Extra ``[json]``: jsonschema.
"""

import decimal
import json
import logging
import threading
from typing import Union

import referencing.jsonschema
from jsonschema import ValidationError
from jsonschema.validators import validator_for
from referencing import Registry, Resource

from ..serialization import SerializationError
from . import _json_codec
from ._aserde import _serde_family
from ._rules import FieldType, _evaluate_declared_rules, _store_field_result
from ._serde import _TO_DICT_NOT_CALLABLE, _callable_or_none
from ._types import RuleMode
from .schema_registry_client import Schema
from .serde import BaseDeserializer, BaseSerializer

__all__ = ["JSONSerializer", "JSONDeserializer", "JSONSerializerBuilder", "JSONDeserializerBuilder",
           "DEFAULT_SPEC", "transform", "get_type", "get_inline_tags", "validate_message",
           "JsonMessage", "JsonSchema",
           "AsyncJSONSerializer", "AsyncJSONDeserializer", "AsyncJSONSerializerBuilder",
           "AsyncJSONDeserializerBuilder"]

#: what a JSON document is in Python (and the Decimal, bytes and tuple values Confluent's
#: field rules may hand over)
JsonMessage = Union[None, str, float, int, decimal.Decimal, bool, bytes, list, dict, tuple]
#: a JSON Schema: an object, or true/false
JsonSchema = Union[bool, dict]

_JSON = "JSON"
# schemas without "$schema" are read as draft 7, as Confluent's serdes read them
DEFAULT_SPEC = referencing.jsonschema.DRAFT7
_DEFAULT_SPEC = DEFAULT_SPEC
log = logging.getLogger("confluent_binding.schema_registry")


# compact and not ASCII-escaped: the bytes Confluent's JSONSerializer writes (orjson where it
# imports)
_json_dumps = _json_codec.json_dumps
_json_loads = _json_codec.json_loads


class _JsonSchemas:
    """Parses schemas once each, with a ``referencing`` registry of their references by name."""

    def __init__(self, registry):
        self._registry = registry
        self._parsed = {}
        self._validators = {}
        self._walks = {}
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

    def field_transformer(self, schema):
        """The field walk of rules over ``schema`` (made once per parsed schema)."""
        parsed, refs = self.parse(schema)
        found = self._walks.get(id(parsed))
        if found is None or found[0] is not parsed:
            resolver = _root_resolver(parsed, refs)

            def field_transformer(ctx, field_transform, msg):
                return transform(ctx, parsed, refs, resolver, "$", msg, field_transform)

            found = self._walks[id(parsed)] = (parsed, field_transformer)
        return found[1]

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


# -- field-level rules ------------------------------------------------------------------------

_SCALARS = {"string": FieldType.STRING, "integer": FieldType.INT, "number": FieldType.DOUBLE,
            "boolean": FieldType.BOOLEAN, "null": FieldType.NULL, "array": FieldType.ARRAY}


def get_type(schema):
    """The FieldType of a JSON Schema (an object without properties is a MAP)."""
    if isinstance(schema, bool):
        return FieldType.COMBINED
    if schema.get("const") is not None or schema.get("enum") is not None:
        return FieldType.ENUM
    kind = schema.get("type")
    if kind == "object":
        return FieldType.RECORD if schema.get("properties") else FieldType.MAP
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    return FieldType.RECORD if schema.get("properties") is not None else FieldType.NULL


def get_inline_tags(schema):
    """The ``confluent:tags`` of a (sub)schema, as a set."""
    return set(schema.get("confluent:tags") or ())


def _matches(schema, message, ref_registry, ref_resolver=None):
    """Whether ``message`` is valid against the subschema ``schema``; its ``$ref``s resolve
    with ``ref_resolver`` (local ones against the root schema, not the subschema)."""
    cls = validator_for(schema, default=validator_for({"$schema": "http://json-schema.org/draft-07/schema#"}))
    return cls(schema, registry=ref_registry, _resolver=ref_resolver).is_valid(message)


def _root_resolver(schema, ref_registry):
    """A resolver of ``$ref``s (local ``#/...`` ones against ``schema`` itself)."""
    root = Resource.from_contents(schema, default_specification=DEFAULT_SPEC)
    return ref_registry.resolver_with_root(root)


def transform(ctx, schema, ref_registry, ref_resolver, path, message, field_transform):
    """Walk ``message`` along ``schema`` (``path`` is the JSON path so far, ``$`` at the top),
    applying ``field_transform`` to the scalar fields whose tags the rule selects."""
    if message is None or schema is None or isinstance(schema, bool):
        return message
    field = ctx.current_field()
    if field is not None:
        field.field_type = get_type(schema)
    kinds = schema.get("type")
    if isinstance(kinds, list) and kinds:
        for kind in kinds:
            sub = dict(schema, type=kind)
            if _matches(sub, message, ref_registry, ref_resolver):
                return transform(ctx, sub, ref_registry, ref_resolver, path, message,
                                 field_transform)
    combined = [(k, schema.get(k)) for k in ("allOf", "anyOf", "oneOf")
                if schema.get(k) is not None]
    if combined:
        kind, subs = combined[0]
        for sub in subs:
            if kind == "allOf" or _matches(sub, message, ref_registry, ref_resolver):
                message = transform(ctx, sub, ref_registry, ref_resolver, path, message,
                                    field_transform)
                if kind == "oneOf":
                    break
        _transform_properties(ctx, schema, ref_registry, ref_resolver, path, message,
                              field_transform)
        items = schema.get("items")
        if items is not None and isinstance(message, list):
            message = [transform(ctx, items, ref_registry, ref_resolver, path, item,
                                 field_transform) for item in message]
        return message
    items = schema.get("items")
    if items is not None and isinstance(message, list):
        return [transform(ctx, items, ref_registry, ref_resolver, path, item, field_transform)
                for item in message]
    ref = schema.get("$ref")
    if ref is not None:
        if ref_resolver is None:
            ref_resolver = _root_resolver(schema, ref_registry)
        resolved = ref_resolver.lookup(ref)
        return transform(ctx, resolved.contents, ref_registry, resolved.resolver, path, message,
                         field_transform)
    kind = get_type(schema)
    if kind == FieldType.RECORD:
        if not isinstance(message, dict):
            log.warning("Incompatible message type for record schema")
            return message
        _transform_properties(ctx, schema, ref_registry, ref_resolver, path, message,
                              field_transform)
        return message
    if field is not None and kind in (FieldType.ENUM, FieldType.STRING, FieldType.INT,
                                      FieldType.DOUBLE, FieldType.BOOLEAN):
        tags = ctx.rule.tags
        if not tags or not set(tags).isdisjoint(field.tags):
            return field_transform(ctx, field, message)
    return message


def _transform_properties(ctx, schema, ref_registry, ref_resolver, path, message,
                          field_transform):
    props = schema.get("properties")
    if not props or not isinstance(message, dict):
        return
    for name, sub in props.items():
        if not isinstance(sub, dict):
            continue
        full_name = path + "." + name
        ctx.enter_field(message, full_name, name, get_type(sub), get_inline_tags(sub))
        try:
            value = message.get(name)
            if value is not None:
                value = transform(ctx, sub, ref_registry, ref_resolver, full_name, value,
                                  field_transform)
                _store_field_result(ctx, message, name, value)
        finally:
            ctx.exit_field()


def validate_message(executor, schema, ref_registry, ref_resolver, message, fail_fast=False):
    """The ValidationRuleErrors of ``message`` against the inline ``confluent:rules`` of
    ``schema``: an object schema's rules see the object, a property's rules its value (not
    when it is absent or null); paths are rooted at ``$`` (``$.a.b``, ``$.a[3]``)."""
    out = []
    if executor is not None and schema is not None and message is not None:
        if ref_resolver is None and ref_registry is not None:
            ref_resolver = _root_resolver(schema, ref_registry)
        _check(executor, schema, ref_registry, ref_resolver, "$", message, fail_fast, out)
    return out


def _check(executor, schema, ref_registry, ref_resolver, path, message, fail_fast, out):
    """Inline rules below ``schema``; True when ``fail_fast`` and a rule failed."""
    if message is None or schema is None or isinstance(schema, bool):
        return False

    def below(sub, value, where=path, resolver=ref_resolver):
        return _check(executor, sub, ref_registry, resolver, where, value, fail_fast, out)

    kinds = schema.get("type")
    if isinstance(kinds, list) and kinds:
        for kind in kinds:
            sub = dict(schema, type=kind)
            if _matches(sub, message, ref_registry, ref_resolver):
                return below(sub, message)
        return False
    combined = [(k, schema.get(k)) for k in ("allOf", "anyOf", "oneOf")
                if schema.get(k) is not None]
    if combined:
        kind, subs = combined[0]
        for sub in subs:
            if kind == "allOf" or _matches(sub, message, ref_registry, ref_resolver):
                if below(sub, message):
                    return True
                if kind == "oneOf":
                    break
        if _check_object(executor, schema, ref_registry, ref_resolver, path, message, fail_fast,
                         out):
            return True
    items = schema.get("items")
    if items is not None and isinstance(message, list):
        return any(below(items, item, "{}[{}]".format(path, i))
                   for i, item in enumerate(message))
    if combined:
        return False
    ref = schema.get("$ref")
    if ref is not None:
        if ref_resolver is None:
            ref_resolver = _root_resolver(schema, ref_registry)
        resolved = ref_resolver.lookup(ref)
        return below(resolved.contents, message, path, resolved.resolver)
    return _check_object(executor, schema, ref_registry, ref_resolver, path, message, fail_fast,
                         out)


def _check_object(executor, schema, ref_registry, ref_resolver, path, message, fail_fast, out):
    if not isinstance(message, dict):
        return False
    if _evaluate_declared_rules(executor, schema, schema, message, path, fail_fast, out):
        return True
    for name, sub in (schema.get("properties") or {}).items():
        value = message.get(name)
        if value is None or not isinstance(sub, dict):
            continue
        where = path + "." + name
        if _evaluate_declared_rules(executor, sub, sub, value, where, fail_fast, out):
            return True
        if _check(executor, sub, ref_registry, ref_resolver, where, value, fail_fast, out):
            return True
    return False


def _as_schema(schema_str):
    if isinstance(schema_str, str):
        return Schema(schema_str, schema_type=_JSON)
    if isinstance(schema_str, Schema) or schema_str is None:
        return schema_str
    raise TypeError("You must pass either str or Schema")


def _configure_json(serde, schema_registry_client, conf, rule_conf, rule_registry):
    """What both JSON serdes take: the common settings plus ``validate`` (True), and the
    rules."""
    conf = serde._configure(schema_registry_client, conf, extra_defaults={"validate": True})
    serde._validate = conf.take_bool("validate")
    conf.finish()
    serde._configure_rules(rule_conf, rule_registry)


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
        _configure_json(self, schema_registry_client, conf, rule_conf, rule_registry)
        self._to_dict = _callable_or_none(to_dict, _TO_DICT_NOT_CALLABLE)
        self._schemas = _JsonSchemas(schema_registry_client)
        self._schema_name = None
        if self._schema is not None:
            parsed, _ = self._schemas.parse(self._schema)
            self._schema_name = parsed.get("title") if isinstance(parsed, dict) else None

    def _serialize(self, obj, ctx):
        schema_id, selected, value, subject = self._prepare(obj, ctx)
        schema = selected.schema if selected is not None else self._schema
        if schema is not None and (selected is not None or self._validation_enabled()):
            value = self._write_with_rules(
                ctx, subject, selected, value, None, self._schemas.field_transformer(schema),
                lambda v: validate_message(self._validation_rule_executor,
                                           *self._schemas.parse(schema), None, v,
                                           self._validation_rules_fail_fast))
        if self._validate and schema is not None:
            self._schemas.validate(schema, value)
        encoded = self._json_encode(value)
        if isinstance(encoded, str):
            encoded = encoded.encode("utf8")
        encoded = self._encoding_rules_out(ctx, subject, selected, encoded)
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
        if schema_registry_client is None:
            if self._schema is None:
                raise ValueError(
                    'schema_registry_client must be provided if "schema_str" is not provided')
            if self._schema.references:
                raise ValueError('schema_registry_client must be provided if "schema_str" is a'
                                 ' Schema instance with references')
        self._json_decode = json_decode or _json_loads
        _configure_json(self, schema_registry_client, conf, rule_conf, rule_registry)
        self._from_dict = _callable_or_none(
            from_dict, "from_dict must be callable with the signature "
                       "from_dict(dict, SerializationContext) -> object")
        self._schemas = _JsonSchemas(schema_registry_client)
        if self._schema is not None:
            self._schemas.parse(self._schema)

    def _deserialize(self, data, ctx):
        subject = self._subject(ctx, None) if ctx is not None else None
        schema_id, payload = self._unframe(data, ctx, check_length=False)
        reader = None
        migrations = None
        if self._registry is not None:
            writer = self._writer_schema(schema_id, subject)
            parsed, _ = self._schemas.parse(writer)
            if subject is None and ctx is not None and isinstance(parsed, dict):
                subject = self._subject(ctx, parsed.get("title"))
            payload = self._encoding_rules_in(ctx, subject, writer, payload, data)
            latest = self._get_reader_schema(subject) if subject is not None else None
            reader = latest.schema if latest is not None else (self._schema or writer)
            if latest is not None and ctx is not None:
                migrations = self._get_migrations(subject, writer, latest)
        else:
            reader = self._schema
        obj = self._json_decode(payload.read())
        if migrations:
            obj = self._execute_migrations(ctx, subject, migrations, obj)
        if ctx is not None and subject is not None and getattr(reader, "rule_set", None):
            obj = self._execute_rules(ctx, subject, RuleMode.READ, None, reader, obj, None,
                                      self._schemas.field_transformer(reader), data)
        if self._validate and reader is not None:
            self._schemas.validate(reader, obj)
        if self._from_dict is not None:
            if ctx is None:
                raise TypeError("SerializationContext cannot be None")
            return self._from_dict(obj, ctx)
        return obj


# the builders, and the asyncio serdes and builders (the blocking ones awaited, see _aserde)
(JSONSerializerBuilder, JSONDeserializerBuilder, AsyncJSONSerializer, AsyncJSONDeserializer,
 AsyncJSONSerializerBuilder, AsyncJSONDeserializerBuilder) = _serde_family(
    JSONSerializer, JSONDeserializer)
