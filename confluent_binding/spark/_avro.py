"""Avro in the Schema Registry wire format, per Arrow batch: the decoder of the source and the
encoder of the sink.

The interface is one call per batch:

- :class:`AvroDecoder` ``decode(values, where) -> (column, errors)``: a binary Arrow column of
  framed records (magic byte 0, 4-byte big-endian schema id, Avro binary) in, the typed column
  out (:func:`arrow_type` of the reader schema) and, in PERMISSIVE mode, a string column with
  the reason of each record that could not be decoded.
- :class:`AvroEncoder` ``encode(column, topics) -> binary column``: the other way, through the
  project's :class:`~confluent_binding.schema_registry.avro.AvroSerializer` (whose compiled
  encoder writes the rows).

A batch is decoded by the compiled loop of :mod:`._avro_compiled` (each record with its
writer's schema, resolved to the reader's: Avro's schema evolution, compiled once per schema
id), straight into the Arrow buffers. A batch with a record that loop does not take (a bad
record, a union branch or schema part it does not compile) is decoded record by record with
fastavro, the same resolution, then built into the column in one ``pyarrow.array`` call; that
path names each bad record. Logical types whose Arrow form is the raw number (dates, times,
timestamps) are read as numbers there: fastavro creates no ``datetime`` per field; ``uuid`` is
read as its string. Decimals are ``Decimal`` objects.
"""

from __future__ import annotations

import copy
import io
import json
from typing import Any, Callable, Dict, List, Optional, Tuple

from .._core import _avro_decode, _avro_schema_ids
from ..schema_registry import MessageField, SchemaRegistryError, SerializationError
from ._avro_compiled import NotCompiled, build, column_layout, reader_program
from ._framed import FramedDecoder, encode_rows, schema_id

# Avro's named types and primitives.
_NAMED = ("record", "enum", "fixed", "error")
# Logical types read as their underlying number or string (Arrow holds them as such).
_RAW_LOGICAL = (
    "uuid",
    "date",
    "time-millis",
    "time-micros",
    "timestamp-millis",
    "timestamp-micros",
    "local-timestamp-millis",
    "local-timestamp-micros",
)
_MAX_DECIMAL_PRECISION = 38  # Spark's DecimalType


class Named:
    """Avro's named types of one schema (full name -> declaration), for references by name."""

    def __init__(self, named: Optional[Dict[str, Any]] = None):
        self.types: Dict[str, Any] = dict(named or {})

    def full_name(self, decl: Dict[str, Any], space: Optional[str]) -> Tuple[str, Optional[str]]:
        name = decl["name"]
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        space = decl.get("namespace", space) or None
        return ("%s.%s" % (space, name) if space else name), space

    def lookup(self, name: str, space: Optional[str]) -> Any:
        for candidate in (("%s.%s" % (space, name)) if space and "." not in name else None, name):
            if candidate is not None and candidate in self.types:
                return self.types[candidate]
        raise ValueError("Avro schema: unknown type name %r" % name)


def arrow_type(decl: Any, named: Optional[Dict[str, Any]] = None) -> Any:
    """The Arrow type of the Avro schema ``decl`` (a parsed JSON declaration) as the source
    hands it to Spark: records -> structs, enums -> strings, arrays -> lists, maps -> maps of
    string keys, unions with null -> the other branch (every column is nullable), decimals ->
    decimal128, date -> date32, timestamp-millis/micros -> timestamp[us, UTC],
    local-timestamp-* -> timestamp[us] (Spark's TIMESTAMP_NTZ), uuid -> string, time-millis ->
    int32 and time-micros -> int64 (Spark has no time of day in Arrow), fixed -> binary.

    ``named``: the declarations of named types the schema refers to (its references)."""
    return _final(_raw_type(decl, Named(named), None, ()))


def _raw_type(decl: Any, named: Named, space: Optional[str], seen: Tuple[str, ...]) -> Any:
    """The Arrow type the decoded records are built into (timestamps in the unit written)."""
    import pyarrow as pa

    if isinstance(decl, list):
        branches = [b for b in decl if b != "null" and not (isinstance(b, dict)
                                                            and b.get("type") == "null")]
        if len(branches) == 1:
            return _raw_type(branches[0], named, space, seen)
        if not branches:
            raise ValueError("Avro schema: a union of null only has no Spark type")
        raise ValueError(
            "Avro schema: unions of several non-null types (%s) are not supported yet as Spark "
            "columns; use a union of one type with null, or a record" % json.dumps(decl)
        )
    if isinstance(decl, str):
        simple = {
            "boolean": pa.bool_(),
            "int": pa.int32(),
            "long": pa.int64(),
            "float": pa.float32(),
            "double": pa.float64(),
            "bytes": pa.binary(),
            "string": pa.string(),
        }
        if decl in simple:
            return simple[decl]
        if decl == "null":
            raise ValueError("Avro schema: the type null has no Spark column type")
        return _raw_type(named.lookup(decl, space), named, space, seen)
    if not isinstance(decl, dict) or "type" not in decl:
        raise ValueError("Avro schema: not a type declaration: %r" % (decl,))
    kind = decl["type"]
    logical = decl.get("logicalType")
    if logical == "decimal" and kind in ("bytes", "fixed"):
        precision, scale = int(decl.get("precision", 0)), int(decl.get("scale", 0))
        if not 0 < precision <= _MAX_DECIMAL_PRECISION or not 0 <= scale <= precision:
            raise ValueError(
                "Avro schema: decimal(%d, %d) has no Spark type (precision 1 to %d, scale 0 to "
                "the precision)" % (precision, scale, _MAX_DECIMAL_PRECISION)
            )
        if kind == "fixed":
            named.types.setdefault(named.full_name(decl, space)[0], decl)
        return pa.decimal128(precision, scale)
    if logical == "date" and kind == "int":
        return pa.date32()
    if logical in ("timestamp-millis", "timestamp-micros") and kind == "long":
        return pa.timestamp("ms" if logical.endswith("millis") else "us", tz="UTC")
    if logical in ("local-timestamp-millis", "local-timestamp-micros") and kind == "long":
        return pa.timestamp("ms" if logical.endswith("millis") else "us")
    if kind in _NAMED:
        full, inner = named.full_name(decl, space)
        named.types.setdefault(full, decl)
        if kind == "enum":
            return pa.string()
        if kind == "fixed":
            return pa.binary()
        if full in seen:
            raise ValueError("Avro schema: the record %s contains itself; Spark has no "
                             "recursive types" % full)
        return pa.struct(
            [
                pa.field(f["name"], _raw_type(f["type"], named, inner, seen + (full,)))
                for f in decl.get("fields", ())
            ]
        )
    if kind == "array":
        return pa.list_(_raw_type(decl["items"], named, space, seen))
    if kind == "map":
        return pa.map_(pa.string(), _raw_type(decl["values"], named, space, seen))
    if isinstance(kind, (dict, list)) or kind in ("boolean", "int", "long", "float", "double",
                                                  "bytes", "string", "null"):
        return _raw_type(kind, named, space, seen)
    return _raw_type(named.lookup(kind, space), named, space, seen)


def _final(t: Any) -> Any:
    """``t`` with millisecond timestamps as microseconds (the unit Spark reads)."""
    import pyarrow as pa

    if pa.types.is_timestamp(t):
        return pa.timestamp("us", tz=t.tz)
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _final(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(t.key_type, _final(t.item_type))
    if pa.types.is_list(t):
        return pa.list_(_final(t.value_type))
    return t


def plain(decl: Any) -> Any:
    """A copy of ``decl`` without the logical types the decoder reads as raw values."""
    if isinstance(decl, list):
        return [plain(b) for b in decl]
    if not isinstance(decl, dict):
        return decl
    out = {}
    for k, v in decl.items():
        if k in ("type", "items", "values"):
            out[k] = plain(v)
        elif k == "fields":
            out[k] = [dict(f, type=plain(f["type"])) for f in v]
        else:
            out[k] = v
    if out.get("logicalType") in _RAW_LOGICAL:
        del out["logicalType"]
    return out


# --- the registry -----------------------------------------------------------------------------

_CLIENTS: Dict[Tuple[Tuple[str, str], ...], Any] = {}


def registry_client(conf: Dict[str, str]) -> Any:
    """One SchemaRegistryClient per configuration in this process (a Python worker serves many
    tasks): its caches of schemas by id then serve them all."""
    from ..schema_registry import SchemaRegistryClient

    key = tuple(sorted(conf.items()))
    client = _CLIENTS.get(key)
    if client is None:
        client = _CLIENTS[key] = SchemaRegistryClient(dict(conf))
    return client


def named_references(client: Any, schema: Any) -> Dict[str, Any]:
    """The declarations of ``schema``'s references (and theirs), by name and full name."""
    out: Dict[str, Any] = {}
    seen = set()

    def add(s: Any) -> None:
        for ref in s.references or ():
            if (ref.subject, ref.version) in seen:
                continue
            seen.add((ref.subject, ref.version))
            referenced = client.get_version(ref.subject, ref.version).schema
            add(referenced)
            decl = json.loads(referenced.schema_str)
            out[ref.name] = decl
            if isinstance(decl, dict) and "name" in decl:
                out.setdefault(Named().full_name(decl, None)[0], decl)

    add(schema)
    return out


def _parse(decl: Any, named: Dict[str, Any]) -> Any:
    """fastavro's parsed form of ``decl`` (logical types read raw, see :func:`plain`)."""
    from fastavro import parse_schema

    known: Dict[str, Any] = {}
    for name, d in named.items():
        if isinstance(d, dict) and d.get("type") in _NAMED:
            parse_schema(plain(d), named_schemas=known)
    return parse_schema(plain(decl), named_schemas=known)


def _loads(schema_str: str) -> Any:
    text = schema_str.strip()
    return json.loads(text if text[:1] in ("{", "[", '"') else json.dumps(text))


# --- decoding ---------------------------------------------------------------------------------


class AvroDecoder(FramedDecoder):
    """Decodes one column of framed Avro records per call (see the module's docstring).

    ``reader``: the reader schema's declaration (parsed JSON) and ``named`` its references;
    ``registry``: the SchemaRegistryClient configuration (writer schemas by id); ``field``:
    "key" or "value" (for messages); ``permissive``: PERMISSIVE (null and an error string per
    bad record) instead of FAILFAST (raise)."""

    kind = "Avro"

    def __init__(
        self,
        reader: Any,
        named: Dict[str, Any],
        registry: Dict[str, str],
        field: str,
        permissive: bool,
    ):
        raw_type = _raw_type(reader, Named(named), None, ())
        super().__init__(raw_type, _final(raw_type), field, permissive)
        self.registry = registry
        self._reader_decl = reader
        self._reader = _parse(reader, named)
        self._reader_canonical = json.dumps(plain(reader), sort_keys=True)
        # schema id -> (fastavro writer schema, reader schema or None when the same)
        self._writers: Dict[int, Tuple[Any, Any]] = {}
        # the compiled decoder (see _avro_compiled): the columns it fills (None: the reader
        # type is not one it builds) and its program per writer schema id (None: fastavro's)
        self._named = named
        try:
            self._layout: Optional[Tuple[Any, ...]] = column_layout(self.type)
        except NotCompiled:
            self._layout = None
        self._programs: Dict[int, Optional[tuple]] = {}

    def decode(self, values: Any, where: Callable[[int], str]) -> Tuple[Any, Optional[Any]]:
        """As :meth:`FramedDecoder.decode`; a batch whose records the compiled decoder takes
        is decoded in one C loop, any other record by record with fastavro."""
        import pyarrow as pa

        column = self._compiled(values)
        if column is None:
            return super().decode(values, where)
        return column, (pa.nulls(len(values), pa.string()) if self.permissive else None)

    def _compiled(self, values: Any) -> Any:
        import pyarrow as pa

        if self._layout is None or not pa.types.is_binary(values.type) or not len(values):
            return None
        validity, offsets, data = values.buffers()[:3]
        if validity is not None:
            validity = memoryview(validity).cast("B")
        offsets = memoryview(offsets).cast("i")
        data = memoryview(data).cast("B") if data is not None else b""
        ids = _avro_schema_ids(validity, offsets, data, values.offset, len(values))
        if ids is None:
            return None
        programs = {}
        for writer_id in ids:
            if writer_id not in self._programs:
                try:
                    self._programs[writer_id] = self._program(writer_id, self._layout)
                except SchemaRegistryError:
                    return None         # record by record: each gets its error
            programs[writer_id] = self._programs[writer_id]
            if programs[writer_id] is None:
                return None
        buffers = _avro_decode(validity, offsets, data, values.offset, len(values), programs,
                               self._layout)
        return None if buffers is None else build(self.type, self._layout, buffers)

    def _program(self, writer_id: int, layout: Tuple[Any, ...]) -> Optional[tuple]:
        client = registry_client(self.registry)
        schema = client.get_schema(writer_id)
        if schema.schema_type not in (None, "AVRO"):
            return None
        return reader_program(Named, _loads(schema.schema_str), named_references(client, schema),
                              self._reader_decl, self._named, layout)

    def _writer(self, schema_id: int) -> Tuple[Any, Any]:
        found = self._writers.get(schema_id)
        if found is None:
            client = registry_client(self.registry)
            schema = client.get_schema(schema_id)
            if schema.schema_type not in (None, "AVRO"):
                raise SerializationError(
                    "schema id %d is a %s schema, not Avro" % (schema_id, schema.schema_type)
                )
            decl = _loads(schema.schema_str)
            named = named_references(client, schema)
            writer = _parse(decl, named)
            same = json.dumps(plain(decl), sort_keys=True) == self._reader_canonical
            found = self._writers[schema_id] = (writer, None if same else self._reader)
        return found

    def _one(self, data: bytes) -> Any:
        from fastavro import schemaless_reader

        writer, reader = self._writer(schema_id(data))
        buf = io.BytesIO(data)
        buf.seek(5)
        obj = schemaless_reader(buf, writer, reader)
        if buf.tell() != len(data):
            raise SerializationError(
                "%d bytes left over after the Avro record" % (len(data) - buf.tell())
            )
        return obj

    def _fits(self, record: Any) -> None:
        # the record's part is its raw type (a decimal beyond its precision); the cast to the
        # final type only widens millisecond timestamps, and a failure there fails the task
        import pyarrow as pa

        pa.array([record], type=self.raw_type)


# --- encoding ---------------------------------------------------------------------------------


def avro_schema(spark_type: Any, name: str = "topLevelRecord",
                namespace: Optional[str] = None) -> Any:
    """The Avro schema (parsed JSON) of a Spark type, as Spark's ``to_avro`` derives it: structs
    -> records (the top one ``topLevelRecord``, nested ones named after their field in the
    parent's namespace), nullable -> a union with null (null first, default null), decimals ->
    bytes with logicalType decimal, dates, timestamps -> timestamp-micros, TIMESTAMP_NTZ ->
    local-timestamp-micros, maps with string keys."""
    from pyspark.sql import types as T

    def nullable(decl: Any, null: bool) -> Any:
        return ["null", decl] if null else decl

    def conv(t: Any, name: str, space: Optional[str]) -> Any:
        simple: List[Tuple[Any, str]] = [
            (T.BooleanType, "boolean"),
            ((T.ByteType, T.ShortType, T.IntegerType), "int"),
            (T.LongType, "long"),
            (T.FloatType, "float"),
            (T.DoubleType, "double"),
            (T.StringType, "string"),
            (T.BinaryType, "bytes"),
        ]
        for cls, avro in simple:
            if isinstance(t, cls):
                return avro
        if isinstance(t, T.DecimalType):
            return {"type": "bytes", "logicalType": "decimal", "precision": t.precision,
                    "scale": t.scale}
        if isinstance(t, T.DateType):
            return {"type": "int", "logicalType": "date"}
        if isinstance(t, T.TimestampNTZType):
            return {"type": "long", "logicalType": "local-timestamp-micros"}
        if isinstance(t, T.TimestampType):
            return {"type": "long", "logicalType": "timestamp-micros"}
        if isinstance(t, T.ArrayType):
            return {"type": "array", "items": nullable(conv(t.elementType, name, space),
                                                       t.containsNull)}
        if isinstance(t, T.MapType):
            if not isinstance(t.keyType, T.StringType):
                raise ValueError("Avro maps have string keys; the column has %s"
                                 % t.simpleString())
            return {"type": "map", "values": nullable(conv(t.valueType, name, space),
                                                      t.valueContainsNull)}
        if isinstance(t, T.StructType):
            inner = "%s.%s" % (space, name) if space else name
            fields = []
            for f in t.fields:
                decl: Dict[str, Any] = {"name": f.name,
                                        "type": nullable(conv(f.dataType, f.name, inner),
                                                         f.nullable)}
                if f.nullable:
                    decl["default"] = None
                fields.append(decl)
            out: Dict[str, Any] = {"type": "record", "name": name, "fields": fields}
            if space:
                out["namespace"] = space
            return out
        raise ValueError("The Spark type %s has no Avro type" % t.simpleString())

    return conv(spark_type, name, namespace)


class AvroEncoder:
    """Encodes one Arrow column per call into framed Avro (a binary column), through the
    project's AvroSerializer (schema registration, subject name strategies, use.latest.version
    as confluent's serializers). ``schema_str``: the writer schema (None with
    use.latest.version); ``conf``: the serializer's settings."""

    def __init__(self, registry: Dict[str, str], schema_str: Optional[str],
                 conf: Dict[str, Any], field: str):
        from ..schema_registry.avro import AvroSerializer

        self.field = MessageField.KEY if field == "key" else MessageField.VALUE
        self.serializer = AvroSerializer(registry_client(registry), schema_str,
                                         conf=copy.copy(conf))

    def encode(self, column: Any, topics: List[Any]) -> Any:
        """``column``: any Arrow column (null rows stay null, as tombstones); ``topics``: each
        row's topic (the subject name strategies need it)."""
        return encode_rows(column, topics, self.field, self.serializer)
