"""JSON Schema serializer and deserializer framed for the Schema Registry.

Extra ``[json]``: jsonschema.
"""

import decimal
import json
import logging
import re
import threading
from typing import Any, Callable, Dict, List, Optional, Set, Tuple, Union

import referencing.jsonschema
from jsonschema import ValidationError
from jsonschema.validators import validator_for
from referencing import Registry, Resource

from ..serialization import SerializationContext, SerializationError
from . import _json_codec
from ._aserde import _serde_family
from ._rules import (
    FieldTransform,
    FieldType,
    RuleContext,
    RuleRegistry,
    ValidationRuleError,
    ValidationRuleExecutor,
    _evaluate_declared_rules,
    _store_field_result,
)
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
JsonMessage = Union[None, str, float, int, decimal.Decimal, bool, bytes, List[Any], Dict[str, Any],
                    Tuple[Any, ...]]
#: a JSON Schema: an object, or true/false
JsonSchema = Union[bool, Dict[str, Any]]

_JSON = "JSON"
# schemas without "$schema" are read as draft 7, as Confluent's serdes read them
DEFAULT_SPEC = referencing.jsonschema.DRAFT7
_DEFAULT_SPEC = DEFAULT_SPEC
log: logging.Logger = logging.getLogger("confluent_binding.schema_registry")

# a serializer's to_dict(obj, ctx) and a deserializer's from_dict(dict, ctx); json_encode and
# json_decode
_ToDict = Callable[[Any, Optional[SerializationContext]], Dict[str, Any]]
_FromDict = Callable[[Dict[str, Any], Optional[SerializationContext]], Any]
_Encode = Callable[[Any], Union[str, bytes]]
_Decode = Callable[[Union[str, bytes]], Any]


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
        self.checker(schema)(value)

    def checker(self, schema):
        """``check(value)``, raising SerializationError (jsonschema's message) when ``value``
        is not valid against ``schema``; made once per parsed schema."""
        parsed, refs = self.parse(schema)
        key = id(parsed)
        with self._lock:
            found = self._validators.get(key)
        if found is None or found[0] is not parsed:
            cls = validator_for(
                parsed,
                default=validator_for({"$schema": "http://json-schema.org/draft-07/schema#"}),
            )
            cls.check_schema(parsed)
            found = (parsed, _checker(cls(parsed, registry=refs), _fast_validity(cls, parsed)))
            with self._lock:
                self._validators[key] = found
        return found[1]


def _checker(validator, valid):
    """``check(value)`` with jsonschema's ``validator``; ``valid(value)`` (True only for a
    value that validator accepts) answers first where it can."""

    def check(value):
        if valid is not None and valid(value):
            return
        try:
            validator.validate(value)
        except ValidationError as e:
            raise SerializationError(e.message)

    return check


# -- a quick validity check -------------------------------------------------------------------
#
# jsonschema walks a record through its keyword functions, which is most of what serializing a
# JSON record costs. For the schemas made of the keywords below (the drafts from 6 on, where
# they mean the same), a predicate made once per schema answers True for a record that
# jsonschema accepts; anything else (False, a keyword or a Python type it does not know) goes
# to jsonschema, which gives the verdict and the error. The predicate must never accept what
# jsonschema rejects; answering False where jsonschema accepts is only slower.

# keywords jsonschema does not assert here (annotations; ``format`` without a format checker;
# the definitions, used only through ``$ref``, which has no quick check)
_ANNOTATIONS = frozenset(("$schema", "$id", "$comment", "title", "description", "default",
                          "examples", "readOnly", "writeOnly", "deprecated", "format",
                          "definitions", "$defs"))


class _Unsupported(Exception):
    """A schema (or part) the quick check does not cover."""


def _fast_validity(cls, schema):
    """The predicate for ``schema`` under jsonschema's validator class ``cls``, or None."""
    from jsonschema import validators

    drafts = tuple(getattr(validators, name, None) for name in (
        "Draft6Validator", "Draft7Validator", "Draft201909Validator", "Draft202012Validator"))
    if cls not in drafts:
        return None
    try:
        return _compile(schema)
    except Exception:  # _Unsupported, or a pattern Python's re does not take
        return None


def _always(value):
    return True


def _never(value):
    return False


_NUMBERS = (int, float)
_TYPE_TESTS = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "number": lambda v: type(v) in _NUMBERS,
    "integer": lambda v: type(v) is int or (type(v) is float and v.is_integer()),
}
# the Python types the keywords below know for sure whether they apply to; a value of another
# type (a Decimal, a tuple, a subclass) gets no quick answer
_KNOWN = frozenset((dict, list, str, bool, type(None), int, float))


def _compile(schema):
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict):
        raise _Unsupported()
    tests = []
    for keyword, arg in schema.items():
        if keyword in _ANNOTATIONS or (isinstance(keyword, str)
                                       and keyword.startswith("confluent:")):
            continue
        make = _KEYWORDS.get(keyword)
        if make is None:
            raise _Unsupported()
        tests.append(make(arg, schema))
    tests = [t for t in tests if t is not None]
    if not tests:

        def known(value):
            return type(value) in _KNOWN

        return known
    if len(tests) == 1:
        only = tests[0]

        def one(value):
            return type(value) in _KNOWN and only(value)

        return one

    def every(value):
        if type(value) not in _KNOWN:
            return False
        for test in tests:
            if not test(value):
                return False
        return True

    return every


def _type(arg, schema):
    names = [arg] if isinstance(arg, str) else arg
    if not isinstance(names, list) or not names:
        raise _Unsupported()
    checks = []
    for name in names:
        if name not in _TYPE_TESTS:
            raise _Unsupported()
        checks.append(_TYPE_TESTS[name])
    if len(checks) == 1:
        return checks[0]
    return lambda v: any(c(v) for c in checks)


def _properties(arg, schema):
    if not isinstance(arg, dict):
        raise _Unsupported()
    subs = [(name, _compile(sub)) for name, sub in arg.items()]

    def properties(v):
        if type(v) is dict:
            for name, valid in subs:
                if name in v and not valid(v[name]):
                    return False
        return True

    return properties


def _required(arg, schema):
    if not isinstance(arg, list):
        raise _Unsupported()
    names = tuple(arg)
    return lambda v: type(v) is not dict or all(n in v for n in names)


def _additional_properties(arg, schema):
    if "patternProperties" in schema:
        raise _Unsupported()
    known = schema.get("properties", {})
    if not isinstance(known, dict):
        raise _Unsupported()
    if arg is False:
        return lambda v: type(v) is not dict or all(k in known for k in v)
    valid = _compile(arg)

    def additional(v):
        if type(v) is dict:
            for k, item in v.items():
                if k not in known and not valid(item):
                    return False
        return True

    return additional


def _items(arg, schema):
    if isinstance(arg, list) or "prefixItems" in schema or "additionalItems" in schema:
        raise _Unsupported()
    valid = _compile(arg)
    return lambda v: type(v) is not list or all(valid(item) for item in v)


def _bound(compare):
    def make(arg, schema):
        if type(arg) not in _NUMBERS:
            raise _Unsupported()
        return lambda v: type(v) not in _NUMBERS or compare(v, arg)

    return make


def _length(kind, compare):
    def make(arg, schema):
        if type(arg) is not int:
            raise _Unsupported()
        return lambda v: type(v) is not kind or compare(len(v), arg)

    return make


def _pattern(arg, schema):
    if not isinstance(arg, str):
        raise _Unsupported()
    search = re.compile(arg).search
    return lambda v: type(v) is not str or search(v) is not None


def _enum(arg, schema):
    if not isinstance(arg, list):
        raise _Unsupported()
    strings = frozenset(item for item in arg if type(item) is str)
    # only strings get a quick answer (jsonschema's equality sets bools apart from numbers)
    return lambda v: type(v) is str and v in strings


def _all_of(arg, schema):
    if not isinstance(arg, list) or not arg:
        raise _Unsupported()
    subs = [_compile(sub) for sub in arg]
    return lambda v: all(valid(v) for valid in subs)


def _any_of(arg, schema):
    if not isinstance(arg, list) or not arg:
        raise _Unsupported()
    subs = [_compile(sub) for sub in arg]
    return lambda v: any(valid(v) for valid in subs)


_KEYWORDS = {
    "type": _type,
    "properties": _properties,
    "required": _required,
    "additionalProperties": _additional_properties,
    "items": _items,
    # as jsonschema compares (a NaN passes every bound)
    "minimum": _bound(lambda v, b: not v < b),
    "maximum": _bound(lambda v, b: not v > b),
    "exclusiveMinimum": _bound(lambda v, b: not v <= b),
    "exclusiveMaximum": _bound(lambda v, b: not v >= b),
    "minLength": _length(str, lambda n, b: not n < b),
    "maxLength": _length(str, lambda n, b: not n > b),
    "minItems": _length(list, lambda n, b: not n < b),
    "maxItems": _length(list, lambda n, b: not n > b),
    "pattern": _pattern,
    "enum": _enum,
    "allOf": _all_of,
    "anyOf": _any_of,
}


# -- field-level rules ------------------------------------------------------------------------

_SCALARS = {"string": FieldType.STRING, "integer": FieldType.INT, "number": FieldType.DOUBLE,
            "boolean": FieldType.BOOLEAN, "null": FieldType.NULL, "array": FieldType.ARRAY}


def get_type(schema: JsonSchema) -> FieldType:
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


def get_inline_tags(schema: Dict[str, Any]) -> Set[str]:
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


def transform(ctx: RuleContext, schema: JsonSchema, ref_registry: Any, ref_resolver: Any,
              path: str, message: JsonMessage, field_transform: FieldTransform) -> JsonMessage:
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
    combined: List[Tuple[str, Any]] = [(k, schema.get(k)) for k in ("allOf", "anyOf", "oneOf")
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


def validate_message(executor: Optional[ValidationRuleExecutor], schema: JsonSchema,
                     ref_registry: Any, ref_resolver: Any, message: JsonMessage,
                     fail_fast: bool = False) -> List[ValidationRuleError]:
    """The ValidationRuleErrors of ``message`` against the inline ``confluent:rules`` of
    ``schema``: an object schema's rules see the object, a property's rules its value (not
    when it is absent or null); paths are rooted at ``$`` (``$.a.b``, ``$.a[3]``)."""
    out: List[ValidationRuleError] = []
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

    def __init__(self, schema_str: Union[str, Schema, None], schema_registry_client: Any,
                 to_dict: Optional[_ToDict] = None, conf: Optional[Dict[str, Any]] = None,
                 rule_conf: Optional[Dict[str, Any]] = None,
                 rule_registry: Optional[RuleRegistry] = None,
                 json_encode: Optional[_Encode] = None) -> None:
        self._schema = _as_schema(schema_str)
        self._json_encode = json_encode or _json_dumps
        _configure_json(self, schema_registry_client, conf, rule_conf, rule_registry)
        self._to_dict = _callable_or_none(to_dict, _TO_DICT_NOT_CALLABLE)
        self._schemas = _JsonSchemas(schema_registry_client)
        self._schema_name = None
        if self._schema is not None:
            parsed, _ = self._schemas.parse(self._schema)
            self._schema_name = parsed.get("title") if isinstance(parsed, dict) else None

    def _own_check(self, value):
        """Validate ``value`` against the serializer's schema (its checker kept once made)."""
        check = self.__dict__.get("_check")
        if check is None:
            check = self._check = self._schemas.checker(self._schema)
        check(value)

    def _serialize(self, obj, ctx):
        if ctx is not None:
            framing = self._cached_framing((ctx.topic, ctx.field))
            if framing is not None:
                # as below, with the schema id resolved for this topic and field before
                self._schema_id = framing[1]
                value = obj if self._to_dict is None else self._to_dict(obj, ctx)
                if self._validate and self._schema is not None:
                    self._own_check(value)
                encoded = self._json_encode(value)
                if isinstance(encoded, str):
                    encoded = encoded.encode("utf8")
                return framing[2] + encoded
        schema_id, selected, value, subject = self._prepare(obj, ctx)
        schema = selected.schema if selected is not None else self._schema
        if schema is not None and (selected is not None or self._validation_enabled()):
            value = self._write_with_rules(
                ctx, subject, selected, value, None, self._schemas.field_transformer(schema),
                lambda v: validate_message(self._validation_rule_executor,
                                           *self._schemas.parse(schema), None, v,
                                           self._validation_rules_fail_fast))
        if self._validate and schema is not None:
            if schema is self._schema:
                self._own_check(value)
            else:
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

    def __init__(self, schema_str: Union[str, Schema, None], from_dict: Optional[_FromDict] = None,
                 schema_registry_client: Any = None, conf: Optional[Dict[str, Any]] = None,
                 rule_conf: Optional[Dict[str, Any]] = None,
                 rule_registry: Optional[RuleRegistry] = None,
                 json_decode: Optional[_Decode] = None) -> None:
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
        reading = self._cached_reading(data, ctx)
        if reading is not None:
            # as below, with the reader's schema chosen for this id before and no rules to run
            obj = self._json_decode(data[len(reading[1]):])
            if reading[2] is not None:
                reading[2](obj)
            return obj if self._from_dict is None else self._from_dict(obj, ctx)
        generation = self._generation()
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
            writer = reader = self._schema
            latest = None
        framing_length = payload.tell()
        obj = self._json_decode(payload.read())
        if migrations:
            obj = self._execute_migrations(ctx, subject, migrations, obj)
        if ctx is not None and subject is not None and getattr(reader, "rule_set", None):
            obj = self._execute_rules(ctx, subject, RuleMode.READ, None, reader, obj, None,
                                      self._schemas.field_transformer(reader), data)
        if self._validate and reader is not None:
            self._schemas.validate(reader, obj)
        if latest is None and getattr(writer, "rule_set", None) is None and (
                getattr(reader, "rule_set", None) is None):
            self._keep_reading(ctx, generation, schema_id, data, framing_length,
                               self._schemas.checker(reader)
                               if self._validate and reader is not None else None)
        if self._from_dict is not None:
            if ctx is None:
                raise TypeError("SerializationContext cannot be None")
            return self._from_dict(obj, ctx)
        return obj


# the builders, and the asyncio serdes and builders (the blocking ones awaited, see _aserde):
# classes made at import, so declared here for type checkers
JSONSerializerBuilder: Any
JSONDeserializerBuilder: Any
AsyncJSONSerializer: Any
AsyncJSONDeserializer: Any
AsyncJSONSerializerBuilder: Any
AsyncJSONDeserializerBuilder: Any
(JSONSerializerBuilder, JSONDeserializerBuilder, AsyncJSONSerializer, AsyncJSONDeserializer,
 AsyncJSONSerializerBuilder, AsyncJSONDeserializerBuilder) = _serde_family(
    JSONSerializer, JSONDeserializer)
