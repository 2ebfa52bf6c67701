"""Avro serializer and deserializer framed for the Schema Registry (extra ``[avro]``: fastavro)."""

import decimal
import io
import json
import logging
from typing import Any, Callable, Dict, List, Optional, Set, Tuple, Union

from fastavro import parse_schema, schemaless_reader, schemaless_writer
from fastavro.repository.base import AbstractSchemaRepository
from fastavro.schema import expand_schema, load_schema
from fastavro.validation import validate

from .._core import _avro_encode
from ..serialization import SerializationContext, SerializationError
from ._aserde import _serde_family
from ._avro_program import avro_program
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

__all__ = ["AvroSerializer", "AvroDeserializer", "AvroSerializerBuilder", "AvroDeserializerBuilder",
           "transform", "get_type", "get_inline_tags", "validate_message",
           "LocalSchemaRepository", "parse_schema_with_repo", "AvroMessage", "AvroSchema",
           "AsyncAvroSerializer", "AsyncAvroDeserializer", "AsyncAvroSerializerBuilder",
           "AsyncAvroDeserializerBuilder"]

#: what an Avro datum is in Python: null, string/enum, float/double, int/long, fixed as
#: Decimal, boolean, bytes, array, map/record, a (type name, value) union branch
AvroMessage = Union[None, str, float, int, decimal.Decimal, bool, bytes, List[Any], Dict[str, Any],
                    Tuple[Any, ...]]
#: an Avro schema declaration: a type name, a union's list or a complex type's dict
AvroSchema = Union[str, List[Any], Dict[str, Any]]

_AVRO = "AVRO"
log: logging.Logger = logging.getLogger("confluent_binding.schema_registry")

# a serializer's to_dict(obj, ctx) and a deserializer's from_dict(dict, ctx)
_ToDict = Callable[[Any, Optional[SerializationContext]], Dict[str, Any]]
_FromDict = Callable[[Dict[str, Any], Optional[SerializationContext]], Any]


class LocalSchemaRepository(AbstractSchemaRepository):
    """A fastavro schema repository over a dict: ``load(name)`` is the schema (a parsed JSON
    value) stored under ``name``, or None."""

    def __init__(self, schemas: Dict[str, Any]) -> None:
        self.schemas: Dict[str, Any] = schemas

    def load(self, subject: str) -> Any:
        """The schema stored under ``subject`` (a named type's full name), as parsed JSON.

        Args:
            subject: the name fastavro asks for while it resolves a named type.

        Returns:
            The stored schema, or None when there is none (fastavro then reports the name as
            unknown).
        """
        return self.schemas.get(subject)


_ROOT = "$root"


def parse_schema_with_repo(schema_str: str, named_schemas: Dict[str, Any]) -> AvroSchema:
    """The fastavro-parsed schema of the declaration ``schema_str``, whose named types may be
    those in ``named_schemas`` (full name -> declaration as parsed JSON, left unchanged)."""
    schemas = {name: json.loads(json.dumps(decl)) for name, decl in named_schemas.items()}
    schemas[_ROOT] = json.loads(schema_str)
    return load_schema(_ROOT, repo=LocalSchemaRepository(schemas))


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
        self._walks = {}

    def rule_walk(self, parsed):
        """(expanded schema, inline tags, field transformer) for rules over ``parsed``, made
        once per parsed schema: the expanded schema has every named type written out where it
        is used."""
        found = self._walks.get(id(parsed))
        if found is None or found[0] is not parsed:
            expanded = expand_schema(parsed)

            def field_transformer(ctx, field_transform, msg):
                return transform(ctx, expanded, msg, field_transform)

            found = (parsed, expanded, get_inline_tags(parsed), field_transformer)
            self._walks[id(parsed)] = found
        return found[1:]

    def parse(self, schema):
        key = _schema_key(schema)
        parsed = self._parsed.get(key)
        if parsed is None:
            schema_str = _schema_loads(schema.schema_str).schema_str
            named = {}
            self._add_references(schema, named, set())
            if named:
                # fastavro's loader writes each referenced type out once, where it is first
                # used, so that the parsed schema stands alone (a union of references, a type
                # reached through two references)
                parsed = parse_schema_with_repo(schema_str, named)
            else:
                parsed = parse_schema(json.loads(schema_str))
            self._parsed[key] = parsed
        return parsed

    def _add_references(self, schema, named, seen):
        """The declarations (as parsed JSON, not parsed by fastavro) of ``schema``'s references,
        and theirs, under each reference's name and the type's full name."""
        for ref in schema.references or ():
            if ref.subject is None or ref.version is None:
                raise TypeError("Subject or version cannot be None")
            if (ref.subject, ref.version) in seen:
                continue
            seen.add((ref.subject, ref.version))
            referenced = self._registry.get_version(ref.subject, ref.version, True).schema
            self._add_references(referenced, named, seen)
            decl = json.loads(referenced.schema_str)
            named[ref.name] = decl
            if isinstance(decl, dict) and "name" in decl:
                space, name = decl.get("namespace"), decl["name"]
                full = "%s.%s" % (space, name) if space and "." not in name else name
                named.setdefault(full, decl)


# -- field-level rules ------------------------------------------------------------------------

_FIELD_TYPES = {
    "record": FieldType.RECORD, "enum": FieldType.ENUM, "array": FieldType.ARRAY,
    "map": FieldType.MAP, "union": FieldType.COMBINED, "fixed": FieldType.FIXED,
    "string": FieldType.STRING, "bytes": FieldType.BYTES, "int": FieldType.INT,
    "long": FieldType.LONG, "float": FieldType.FLOAT, "double": FieldType.DOUBLE,
    "boolean": FieldType.BOOLEAN, "null": FieldType.NULL,
}


def get_type(schema: AvroSchema) -> FieldType:
    """The FieldType of a (parsed) Avro schema; a union is COMBINED, a name unknown NULL."""
    if isinstance(schema, list):
        return FieldType.COMBINED
    kind: Any = schema.get("type") if isinstance(schema, dict) else schema
    return _FIELD_TYPES.get(kind, FieldType.NULL)


def get_inline_tags(schema: AvroSchema) -> Dict[str, Set[str]]:
    """{``<record full name>.<field>``: set of its ``confluent:tags``} over a parsed schema."""
    found: Dict[str, Set[str]] = {}

    def walk(node, seen):
        if isinstance(node, list):
            for branch in node:
                walk(branch, seen)
        elif isinstance(node, dict):
            kind = node.get("type")
            if kind == "array":
                walk(node.get("items"), seen)
            elif kind == "map":
                walk(node.get("values"), seen)
            elif kind == "record" and node.get("name") not in seen:
                seen.add(node.get("name"))
                for field in node.get("fields", ()):
                    tags = field.get("confluent:tags")
                    if tags:
                        found.setdefault(node["name"] + "." + field["name"], set()).update(tags)
                    walk(field.get("type"), seen)

    walk(schema, set())
    return found


def _branch_name(branch):
    if isinstance(branch, dict):
        return branch.get("name", branch.get("type"))
    return branch


def _union_branch(union, message):
    """(branch schema, value) of a union for ``message`` (a ``(name, value)`` tuple names it)."""
    if isinstance(message, tuple) and len(message) == 2 and isinstance(message[0], str):
        for branch in union:
            name = _branch_name(branch)
            if name == message[0] or (isinstance(name, str) and name.split(".")[-1] == message[0]):
                return branch, message[1]
    for branch in union:
        if validate(message, _collapsed(branch), raise_errors=False):
            return branch, message
    return None, message


_COLLAPSED: Dict[int, Tuple[Any, Any]] = {}  # id(expanded schema) -> (it, its collapsed copy)


def _collapsed(schema):
    """An expanded schema as fastavro parses it again: each named type (record, enum, fixed)
    declared where it is first met and named by its full name after that."""
    found = _COLLAPSED.get(id(schema))
    if found is None or found[0] is not schema:
        found = _COLLAPSED[id(schema)] = (schema, _collapse(schema, set(), None))
    return found[1]


def _collapse(schema, declared, space):
    if isinstance(schema, list):
        return [_collapse(branch, declared, space) for branch in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind in ("record", "error", "enum", "fixed"):
        name = schema.get("name", "")
        space = schema.get("namespace", space)
        full = name if "." in name or not space else space + "." + name
        if full in declared:
            return full
        declared.add(full)
        if kind in ("record", "error"):
            space = full.rpartition(".")[0] or None
            fields = [dict(field, type=_collapse(field.get("type"), declared, space))
                      for field in schema.get("fields", ())]
            return dict(schema, fields=fields)
        return dict(schema)
    if kind == "array":
        return dict(schema, items=_collapse(schema.get("items"), declared, space))
    if kind == "map":
        return dict(schema, values=_collapse(schema.get("values"), declared, space))
    if isinstance(kind, (list, dict)):
        return dict(schema, type=_collapse(kind, declared, space))
    return schema


def transform(ctx: RuleContext, schema: AvroSchema, message: AvroMessage,
              field_transform: FieldTransform) -> AvroMessage:
    """Walk ``message`` along the (expanded, parsed) ``schema``, applying ``field_transform``
    to each field whose tags the rule selects; a CONDITION fails on a field giving False."""
    if schema is None:
        return message
    field = ctx.current_field()
    if field is not None:
        field.field_type = get_type(schema)
    if isinstance(schema, list):
        branch, value = _union_branch(schema, message)
        if branch is None:
            return message
        value = transform(ctx, branch, value, field_transform)
        if isinstance(message, tuple) and validate(value, branch, raise_errors=False):
            return (message[0], value)
        return value
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind == "array":
            if not isinstance(message, list):
                log.warning("Incompatible message type for array schema")
                return message
            return [transform(ctx, schema["items"], item, field_transform) for item in message]
        if kind == "map":
            if not isinstance(message, dict):
                log.warning("Incompatible message type for map schema")
                return message
            return {k: transform(ctx, schema["values"], v, field_transform)
                    for k, v in message.items()}
        if kind == "record":
            if message is None:
                return message
            if not isinstance(message, dict):
                log.warning("Incompatible message type for record schema")
                return message
            for spec in schema["fields"]:
                if spec["name"] in message:
                    _transform_field(ctx, schema, spec, message, field_transform)
            return message
    if field is not None:
        tags = ctx.rule.tags
        if not tags or not set(tags).isdisjoint(field.tags):
            return field_transform(ctx, field, message)
    return message


def _transform_field(ctx, schema, spec, message, field_transform):
    name = spec["name"]
    ctx.enter_field(message, schema["name"] + "." + name, name, get_type(spec["type"]), None)
    try:
        value = transform(ctx, spec["type"], message[name], field_transform)
        _store_field_result(ctx, message, name, value)
    finally:
        ctx.exit_field()


def validate_message(executor: ValidationRuleExecutor, schema: AvroSchema, message: AvroMessage,
                     fail_fast: bool = False) -> List[ValidationRuleError]:
    """The ValidationRuleErrors of ``message`` against the inline ``confluent:rules`` of the
    (expanded, parsed) ``schema``: a record's own rules see the record, a field's rules its
    value (not when it is absent or null); paths read ``a.b``, ``a[3]``, ``a["key"]``."""
    out: List[ValidationRuleError] = []
    if executor is not None and schema is not None and message is not None:
        _check(executor, schema, message, "", fail_fast, out)
    return out


def _check(executor, schema, message, path, fail_fast, out):
    """Inline rules below ``schema``; True when ``fail_fast`` and a rule failed."""
    if isinstance(schema, list):
        if message is None:
            return False
        branch, value = _union_branch(schema, message)
        if branch is None or branch == "null":
            return False
        return _check(executor, branch, value, path, fail_fast, out)
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "array" and isinstance(message, list):
        return any(_check(executor, schema["items"], item, "{}[{}]".format(path, i), fail_fast,
                          out) for i, item in enumerate(message))
    if kind == "map" and isinstance(message, dict):
        return any(_check(executor, schema["values"], item, '{}["{}"]'.format(path, key),
                          fail_fast, out) for key, item in message.items())
    if kind != "record" or not isinstance(message, dict):
        return False
    if _evaluate_declared_rules(executor, schema, schema, message, path, fail_fast, out):
        return True
    for spec in schema["fields"]:
        sub = spec["name"] if not path else path + "." + spec["name"]
        value = message.get(spec["name"])
        if value is not None and _evaluate_declared_rules(executor, spec, spec["type"], value,
                                                          sub, fail_fast, out):
            return True
        if _check(executor, spec["type"], value, sub, fail_fast, out):
            return True
    return False


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

    def __init__(self, schema_registry_client: Any, schema_str: Union[str, Schema, None] = None,
                 to_dict: Optional[_ToDict] = None,
                 conf: Optional[Dict[str, Any]] = None, rule_conf: Optional[Dict[str, Any]] = None,
                 rule_registry: Optional[RuleRegistry] = None) -> None:
        if isinstance(schema_str, str):
            schema = _schema_loads(schema_str)
        elif isinstance(schema_str, Schema):
            schema = schema_str
        else:
            schema = None
        self._to_dict = _callable_or_none(to_dict, _TO_DICT_NOT_CALLABLE)
        settings = self._configure(
            schema_registry_client,
            conf,
            extra_defaults={"validate.strict": False, "validate.strict.allow.default": False},
        )
        self._strict = settings.take_bool("validate.strict")
        self._strict_allow_default = settings.take_bool("validate.strict.allow.default")
        settings.finish()
        self._configure_rules(rule_conf, rule_registry)
        self._schemas = _AvroSchemas(schema_registry_client)
        self._schema = schema
        self._parsed_schema = None
        self._schema_name = None
        self._plain_bytes = False
        # the compiled encoder's program (None: fastavro writes every record); fastavro's
        # strict modes check a record's extra fields, which the compiled encoder does not
        self._program = None
        if schema is not None:
            self._parsed_schema = self._schemas.parse(schema)
            self._plain_bytes = _is_bytes(self._parsed_schema)
            if not (self._strict or self._strict_allow_default):
                self._program = avro_program(self._parsed_schema)
            if isinstance(self._parsed_schema, dict):
                # a named type's full name; a primitive's is its type (a union has none)
                self._schema_name = self._parsed_schema.get(
                    "name", json.loads(schema.schema_str).get("type")
                )

    def _serialize(self, obj, ctx):
        if ctx is not None:
            framing = self._framings.get((ctx.topic, ctx.field))
            if framing is not None and (self._associated is None
                                        or framing[0] == self._associated.generation):
                # as below, with the schema id resolved for this topic and field before (the
                # check of _cached_framing, written out: this is the path of every record)
                self._schema_id = framing[1]
                value = obj if self._to_dict is None else self._to_dict(obj, ctx)
                if self._plain_bytes:
                    return framing[2] + (value if isinstance(value, bytes) else value.encode())
                if self._program is not None:
                    framed = _avro_encode(self._program, framing[2], value)
                    if framed is not None:
                        return framed
                buf = io.BytesIO()
                buf.write(framing[2])
                schemaless_writer(buf, self._parsed_schema, value, strict=self._strict,
                                  strict_allow_default=self._strict_allow_default)
                return buf.getvalue()
        schema_id, selected, value, subject = self._prepare(obj, ctx)
        parsed = (
            self._schemas.parse(selected.schema) if selected is not None else self._parsed_schema
        )
        if parsed is None:
            raise SerializationError(
                "No schema to serialize with: give schema_str or use.latest.version"
            )
        if selected is not None or self._validation_enabled():
            expanded, inline_tags, field_transformer = self._schemas.rule_walk(parsed)
            value = self._write_with_rules(
                ctx, subject, selected, value, inline_tags, field_transformer,
                lambda v: validate_message(self._validation_rule_executor, expanded, v,
                                           self._validation_rules_fail_fast))
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
        payload = self._encoding_rules_out(ctx, subject, selected, payload)
        return self._schema_id_serializer(payload, ctx, schema_id)


class AvroDeserializer(BaseDeserializer):
    """Deserializes framed Avro binary to dicts (or objects through ``from_dict``).

    The writer's schema is fetched by the payload's schema id; the reader's schema is
    ``schema_str`` if given, else the latest registered version with ``use.latest.version``,
    else the writer's. ``return_record_name`` is fastavro's (unions of records give
    ``(name, record)``).
    """

    _schema_type = _AVRO

    def __init__(self, schema_registry_client: Any, schema_str: Union[str, Schema, None] = None,
                 from_dict: Optional[_FromDict] = None,
                 return_record_name: bool = False, conf: Optional[Dict[str, Any]] = None,
                 rule_conf: Optional[Dict[str, Any]] = None,
                 rule_registry: Optional[RuleRegistry] = None) -> None:
        schema = None
        if schema_str is not None:
            if isinstance(schema_str, str):
                schema = _schema_loads(schema_str)
            elif isinstance(schema_str, Schema):
                schema = schema_str
            else:
                raise TypeError("You must pass either schema string or schema object")
        self._configure(schema_registry_client, conf).finish()
        self._configure_rules(rule_conf, rule_registry)
        self._schemas = _AvroSchemas(schema_registry_client)
        self._schema = schema
        self._reader_schema = self._schemas.parse(schema) if schema is not None else None
        self._from_dict = _callable_or_none(
            from_dict, "from_dict must be callable with the signature "
                       "from_dict(SerializationContext, dict) -> object")
        if not isinstance(return_record_name, bool):
            raise ValueError("return_record_name must be a boolean value")
        self._return_record_name = return_record_name

    def _deserialize(self, data, ctx):
        reading = self._cached_reading(data, ctx) if len(data) > 5 else None
        if reading is not None:
            # as below, with the writer's schema of this id read before and no rules to run
            payload = io.BytesIO(data)
            payload.seek(5)
            _, _, writer, reader = reading
            if reader is None:
                obj = payload.read()
            else:
                obj = schemaless_reader(payload, writer, reader, self._return_record_name)
            return obj if self._from_dict is None else self._from_dict(obj, ctx)
        generation = self._generation()
        schema_id, payload = self._unframe(data, ctx)
        subject = self._subject(ctx, None) if ctx is not None else None
        writer_schema = self._writer_schema(schema_id, subject)
        writer = self._schemas.parse(writer_schema)
        if subject is None and ctx is not None and isinstance(writer, dict):
            subject = self._subject(ctx, writer.get("name"))
        payload = self._encoding_rules_in(ctx, subject, writer_schema, payload, data)
        latest = self._get_reader_schema(subject) if subject is not None else None
        migrations = None
        if latest is not None:
            reader_schema, reader = latest.schema, self._schemas.parse(latest.schema)
            if ctx is not None:
                migrations = self._get_migrations(subject, writer_schema, latest)
        elif self._reader_schema is not None:
            reader_schema, reader = self._schema, self._reader_schema
        else:
            reader_schema, reader = writer_schema, writer
        if (latest is None and writer_schema.rule_set is None
                and reader_schema.rule_set is None):
            self._keep_reading(ctx, generation, schema_id, data, 5, writer,
                               None if _is_bytes(writer) else reader)
        if _is_bytes(writer):
            obj = payload.read()
        elif migrations:
            # read as written, then let the migration rules reshape it
            obj = schemaless_reader(payload, writer, None, self._return_record_name)
            obj = self._execute_migrations(ctx, subject, migrations, obj)
        else:
            obj = schemaless_reader(payload, writer, reader, self._return_record_name)
        if ctx is not None and subject is not None and reader_schema.rule_set is not None:
            obj = self._execute_rules(ctx, subject, RuleMode.READ, None, reader_schema, obj,
                                      *self._schemas.rule_walk(reader)[1:], data)
        if self._from_dict is not None:
            return self._from_dict(obj, ctx)
        return obj


# the builders, and the asyncio serdes and builders (the blocking ones awaited, see _aserde):
# classes made at import, so declared here for type checkers
AvroSerializerBuilder: Any
AvroDeserializerBuilder: Any
AsyncAvroSerializer: Any
AsyncAvroDeserializer: Any
AsyncAvroSerializerBuilder: Any
AsyncAvroDeserializerBuilder: Any
(AvroSerializerBuilder, AvroDeserializerBuilder, AsyncAvroSerializer, AsyncAvroDeserializer,
 AsyncAvroSerializerBuilder, AsyncAvroDeserializerBuilder) = _serde_family(
    AvroSerializer, AvroDeserializer)
