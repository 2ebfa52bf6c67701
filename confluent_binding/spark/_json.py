"""JSON Schema in the Schema Registry wire format, per Arrow batch: the decoder of the source and
the encoder of the sink (the same per-batch interface as :mod:`._avro`).

- :class:`JsonDecoder`: each framed record's JSON document is parsed, checked against its
  writer's schema (fetched by the record's schema id, once per id, as confluent's
  JSONDeserializer validates), and the documents of a batch are built into the reader schema's
  Arrow column in one ``pyarrow.array`` call: properties are matched by name, missing ones are
  null, others are dropped. Strings of ``format`` ``date-time`` / ``date`` are built as strings
  and cast to timestamps / dates by Arrow, once per batch.
- :class:`JsonEncoder`: rows through the project's
  :class:`~confluent_binding.schema_registry.json_schema.JSONSerializer` (registration, subject
  name strategies, use.latest.version, validation).
"""

from __future__ import annotations

import base64
import copy
import datetime
from decimal import Decimal
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..schema_registry import MessageField, SerializationError
from ._avro import registry_client
from ._framed import FramedDecoder, encode_rows, schema_id

_SIMPLE = ("string", "integer", "number", "boolean")


class _Refs:
    """Resolves ``$ref``: JSON pointers in the document itself and the schema's references
    (registered schemas, by the name the ``$ref`` uses)."""

    def __init__(self, root: Any, named: Dict[str, Any]):
        self.root = root
        self.named = named

    def resolve(self, ref: str, base: Any) -> Tuple[Any, Any]:
        """The schema ``ref`` points at, and the document it is in."""
        where, _, pointer = ref.partition("#")
        doc = base
        if where:
            if where not in self.named:
                raise ValueError("JSON Schema: $ref %r is neither in the schema nor one of its "
                                 "references" % ref)
            doc = self.named[where]
        node = doc
        for part in (p for p in pointer.split("/") if p):
            part = part.replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(part)] if isinstance(node, list) else node[part]
            except (KeyError, IndexError, ValueError, TypeError):
                raise ValueError("JSON Schema: $ref %r points at nothing" % ref) from None
        return node, doc


def arrow_types(schema: Any, named: Optional[Dict[str, Any]] = None) -> Tuple[Any, Any]:
    """``(raw, final)``: the Arrow types the documents are built into and the column's type, of
    the JSON Schema ``schema`` (parsed). Objects with properties -> structs (properties in their
    order), objects of ``additionalProperties`` only -> maps of string keys, arrays -> lists,
    string -> string (``format`` ``date-time`` -> timestamp[us, UTC], ``date`` -> date32),
    integer -> int64, number -> float64, boolean -> bool; a type union with null, or a
    ``oneOf`` / ``anyOf`` with a null branch -> the other type (every column is nullable).
    Raises ``ValueError`` naming what Spark cannot hold."""
    refs = _Refs(schema, dict(named or {}))
    return _types(schema, refs, schema, ())


def _types(node: Any, refs: _Refs, doc: Any, seen: Tuple[str, ...]) -> Tuple[Any, Any]:
    import pyarrow as pa

    if not isinstance(node, dict):
        raise ValueError("JSON Schema: %r has no single type for a Spark column" % (node,))
    if "$ref" in node:
        ref = node["$ref"]
        key = "%d:%s" % (id(doc), ref)
        if key in seen:
            raise ValueError("JSON Schema: %r refers to itself; Spark has no recursive types"
                             % ref)
        target, target_doc = refs.resolve(ref, doc)
        return _types(target, refs, target_doc, seen + (key,))
    for combiner in ("oneOf", "anyOf", "allOf"):
        if combiner in node:
            branches = [b for b in node[combiner] if not _is_null(b)]
            if len(branches) != 1:
                raise ValueError(
                    "JSON Schema: a %s of several non-null schemas is not supported as a Spark "
                    "column; use one schema (or one with null)" % combiner
                )
            return _types(branches[0], refs, doc, seen)
    kind = node.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if set(kinds) == {"integer", "number"}:
            kinds = ["number"]
        if len(kinds) != 1:
            raise ValueError(
                "JSON Schema: the type %r has no single Spark type; use one type (or one with "
                "null)" % (kind,)
            )
        kind = kinds[0]
    if kind is None:
        if "properties" in node or "additionalProperties" in node:
            kind = "object"
        elif "items" in node:
            kind = "array"
        elif "enum" in node and all(isinstance(v, str) for v in node["enum"]):
            kind = "string"
        else:
            raise ValueError("JSON Schema: %s has no type for a Spark column" % _short(node))
    if kind == "string":
        fmt = node.get("format")
        if fmt == "date-time":
            return pa.string(), pa.timestamp("us", tz="UTC")
        if fmt == "date":
            return pa.string(), pa.date32()
        return pa.string(), pa.string()
    if kind in ("integer", "number", "boolean"):
        t = {"integer": pa.int64(), "number": pa.float64(), "boolean": pa.bool_()}[kind]
        return t, t
    if kind == "array":
        items = node.get("items")
        if not isinstance(items, dict):
            raise ValueError("JSON Schema: arrays need one 'items' schema to be a Spark array "
                             "(%s)" % _short(node))
        raw, final = _types(items, refs, doc, seen)
        return pa.list_(raw), pa.list_(final)
    if kind == "object":
        props = node.get("properties")
        if props:
            raws, finals = [], []
            for name, sub in props.items():
                raw, final = _types(sub, refs, doc, seen)
                raws.append(pa.field(name, raw))
                finals.append(pa.field(name, final))
            return pa.struct(raws), pa.struct(finals)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            raw, final = _types(extra, refs, doc, seen)
            return pa.map_(pa.string(), raw), pa.map_(pa.string(), final)
        raise ValueError("JSON Schema: an object without 'properties' (or an "
                         "'additionalProperties' schema) has no Spark type (%s)" % _short(node))
    raise ValueError("JSON Schema: the type %r has no Spark column type" % (kind,))


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null"


def _short(node: Any) -> str:
    import json

    text = json.dumps(node, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def json_references(client: Any, schema: Any) -> Dict[str, Any]:
    """The parsed schemas ``schema`` references (and theirs), by the names its ``$ref``s use."""
    import json

    out: Dict[str, Any] = {}

    def add(s: Any) -> None:
        for ref in s.references or ():
            if ref.name in out:
                continue
            referenced = client.get_version(ref.subject, ref.version).schema
            out[ref.name] = json.loads(referenced.schema_str)
            add(referenced)

    add(schema)
    return out


# --- decoding ---------------------------------------------------------------------------------


class JsonDecoder(FramedDecoder):
    """Decodes one column of framed JSON Schema records per call (see the module's docstring).

    ``reader``: the reader schema (parsed) and ``named`` its references; ``registry``: the
    SchemaRegistryClient configuration (writer schemas by id)."""

    kind = "JSON Schema"

    def __init__(self, reader: Any, named: Dict[str, Any], registry: Dict[str, str],
                 field: str, permissive: bool):
        from ..schema_registry import _json_codec

        raw, final = arrow_types(reader, named)
        super().__init__(raw, final, field, permissive)
        self.registry = registry
        self._loads = _json_codec.json_loads
        self._checks: Dict[int, Callable[[Any], None]] = {}
        self._schemas: Any = None

    def _check(self, sid: int) -> Callable[[Any], None]:
        """The validity check of the writer's schema ``sid`` (raises on an invalid document)."""
        found = self._checks.get(sid)
        if found is None:
            from ..schema_registry.json_schema import _JsonSchemas

            client = registry_client(self.registry)
            schema = client.get_schema(sid)
            if schema.schema_type != "JSON":
                raise SerializationError("schema id %d is a %s schema, not JSON Schema"
                                         % (sid, schema.schema_type or "AVRO"))
            if self._schemas is None:
                self._schemas = _JsonSchemas(client)
            found = self._checks[sid] = self._schemas.checker(schema)
        return found

    def _column(self, records: List[Any]) -> Any:
        import pyarrow as pa

        column = pa.array(records, type=self.raw_type)
        return column if self.raw_type == self.type else _cast(column, self.type)

    def _one(self, data: bytes) -> Any:
        check = self._check(schema_id(data))
        doc = self._loads(data[5:])
        check(doc)
        return doc


def _cast(column: Any, t: Any) -> Any:
    """``column`` cast to ``t`` (strings to timestamps and dates, inside structs, lists and
    maps). Arrow's own cast of a struct parses the empty strings under null structs too; here
    a null struct's children are null (``flatten``) before they are cast."""
    import pyarrow as pa

    if column.type == t:
        return column
    mask = column.is_null() if column.null_count else None
    if pa.types.is_struct(t):
        children = [_cast(c, f.type) for c, f in zip(column.flatten(), t)]
        return pa.StructArray.from_arrays(children, fields=list(t), mask=mask)
    if pa.types.is_map(t):
        return pa.MapArray.from_arrays(column.offsets, column.keys,
                                       _cast(column.items, t.item_type), type=t, mask=mask)
    if pa.types.is_list(t):
        return pa.ListArray.from_arrays(column.offsets, _cast(column.values, t.value_type),
                                        type=t, mask=mask)
    return column.cast(t)


# --- encoding ---------------------------------------------------------------------------------


def json_schema(spark_type: Any, title: Optional[str] = "topLevelRecord") -> Any:
    """The JSON Schema (parsed) of a Spark type: structs -> objects (every field a property,
    the non-nullable ones required, no other properties), nullable -> a union with null, byte to
    long -> integer, float, double, decimal -> number, dates -> string format date, timestamps
    -> string format date-time, binary -> string of base64, maps -> objects of
    ``additionalProperties`` (integer keys as their text). The top one is titled
    ``topLevelRecord`` (the record name of RecordNameStrategy)."""
    from pyspark.sql import types as T

    def nullable(decl: Dict[str, Any], null: bool) -> Dict[str, Any]:
        if not null:
            return decl
        if decl.get("type") in _SIMPLE:
            return dict(decl, type=[decl["type"], "null"])
        return {"oneOf": [{"type": "null"}, decl]}

    def conv(t: Any) -> Dict[str, Any]:
        if isinstance(t, T.BooleanType):
            return {"type": "boolean"}
        if isinstance(t, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
            return {"type": "integer"}
        if isinstance(t, (T.FloatType, T.DoubleType, T.DecimalType)):
            return {"type": "number"}
        if isinstance(t, T.StringType):
            return {"type": "string"}
        if isinstance(t, T.BinaryType):
            return {"type": "string", "contentEncoding": "base64"}
        if isinstance(t, T.DateType):
            return {"type": "string", "format": "date"}
        if isinstance(t, T.TimestampType):
            return {"type": "string", "format": "date-time"}
        if isinstance(t, T.ArrayType):
            return {"type": "array", "items": nullable(conv(t.elementType), t.containsNull)}
        if isinstance(t, T.MapType):
            if not isinstance(t.keyType, (T.StringType, T.ByteType, T.ShortType,
                                          T.IntegerType, T.LongType)):
                raise ValueError("JSON objects have string keys (integers are written as their "
                                 "text); the map column has %s" % t.simpleString())
            return {"type": "object",
                    "additionalProperties": nullable(conv(t.valueType), t.valueContainsNull)}
        if isinstance(t, T.StructType):
            return {
                "type": "object",
                "properties": {f.name: nullable(conv(f.dataType), f.nullable) for f in t.fields},
                "required": [f.name for f in t.fields if not f.nullable],
                "additionalProperties": False,
            }
        raise ValueError("The Spark type %s has no JSON Schema type" % t.simpleString())

    out = conv(spark_type)
    out = dict({"$schema": "http://json-schema.org/draft-07/schema#"}, **out)
    if title and out.get("type") == "object":
        out["title"] = title
    return out


def _to_json(t: Any) -> Optional[Callable[[Any], Any]]:
    """A function giving a row of the Arrow type ``t`` (as ``to_pylist`` makes it) as JSON
    values (timestamps and dates as ISO strings, decimals as numbers, binary as base64), or
    None when the row is JSON already."""
    import pyarrow as pa

    if pa.types.is_timestamp(t):
        def ts(v: datetime.datetime) -> str:
            if v.tzinfo is not None:
                v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            return v.isoformat() + "Z"
        return ts
    if pa.types.is_date(t):
        return lambda v: v.isoformat()
    if pa.types.is_decimal(t):
        return _number
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return lambda v: base64.standard_b64encode(v).decode("ascii")
    if pa.types.is_map(t):
        value = _to_json(t.item_type)
        key_is_str = pa.types.is_string(t.key_type) or pa.types.is_large_string(t.key_type)
        if value is None and key_is_str:
            return None
        return lambda v: {str(k): (x if value is None or x is None else value(x))
                          for k, x in v.items()}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        item = _to_json(t.value_type)
        if item is None:
            return None
        return lambda v: [x if x is None else item(x) for x in v]
    if pa.types.is_struct(t):
        found = [(f.name, _to_json(f.type)) for f in t]
        convs: List[Tuple[str, Callable[[Any], Any]]] = [(n, c) for n, c in found if c is not None]
        if not convs:
            return None

        def struct(v: Dict[str, Any]) -> Dict[str, Any]:
            for name, c in convs:
                x = v.get(name)
                if x is not None:
                    v[name] = c(x)
            return v
        return struct
    return None


def _number(v: Decimal) -> Any:
    """A decimal as a JSON number: exact when it has no fractional digits, else a double."""
    exponent = v.as_tuple().exponent
    return int(v) if isinstance(exponent, int) and exponent >= 0 else float(v)


class JsonEncoder:
    """Encodes one Arrow column per call into framed JSON (a binary column), through the
    project's JSONSerializer. ``schema_str``: the writer schema (None with use.latest.version);
    ``conf``: the serializer's settings."""

    def __init__(self, registry: Dict[str, str], schema_str: Optional[str],
                 conf: Dict[str, Any], field: str):
        from ..schema_registry.json_schema import JSONSerializer

        self.field = MessageField.KEY if field == "key" else MessageField.VALUE
        self.serializer = JSONSerializer(schema_str, registry_client(registry),
                                         conf=copy.copy(conf))
        self._convs: Dict[Any, Optional[Callable[[Any], Any]]] = {}

    def encode(self, column: Any, topics: List[Any]) -> Any:
        """``column``: any Arrow column (null rows stay null, as tombstones); ``topics``: each
        row's topic (the subject name strategies need it)."""
        if column.type not in self._convs:
            self._convs[column.type] = _to_json(column.type)
        conv = self._convs[column.type]
        if conv is None:
            return encode_rows(column, topics, self.field, self.serializer)
        to_json, serializer = conv, self.serializer
        return encode_rows(column, topics, self.field,
                           lambda row, ctx: serializer(to_json(row), ctx))


