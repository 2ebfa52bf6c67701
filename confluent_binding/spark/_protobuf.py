"""Protobuf in the Schema Registry wire format, per Arrow batch: the decoder of the source and
the encoder of the sink (the same per-batch interface as :mod:`._avro`).

Schemas come from the registry in its serialized form (a base64 FileDescriptorProto, the form
confluent's serializers register and ask for), so no ``.proto`` compiler is needed: the message
classes are built at run time from the descriptors (the project's
:class:`~confluent_binding.schema_registry.protobuf.ProtobufDeserializer` machinery for the
files and their references).

- :class:`ProtobufDecoder`: each record's writer schema (by id) and message (by the index path
  after the id) is checked to be the reader's message, then the payload is parsed with the
  reader's message class (Protobuf's own evolution: fields by number; fields the reader does
  not know are skipped, fields the writer did not know are defaults), and the parsed messages
  turned into the values of the reader's Arrow column (built in one call per batch).
- :class:`ProtobufEncoder`: rows filled into messages of the writer's class (derived from the
  column's Spark type, or the subject's latest registered schema), through the project's
  :class:`~confluent_binding.schema_registry.protobuf.ProtobufSerializer`.
"""

from __future__ import annotations

import base64
import copy
import datetime
from decimal import Decimal
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..schema_registry import MessageField, SerializationError
from ._framed import FramedDecoder, encode_rows, schema_id

_TIMESTAMP = "google.protobuf.Timestamp"
_DATE = "google.type.Date"
_WRAPPERS = tuple("google.protobuf.%sValue" % n for n in (
    "Double", "Float", "Int64", "UInt64", "Int32", "UInt32", "Bool", "String", "Bytes"))

# --- the registry -----------------------------------------------------------------------------

_CLIENTS: Dict[Tuple[Tuple[str, str], ...], Any] = {}


def _load_known() -> None:
    """Loads the well-known files schemas import (into the default pool, whence the files of a
    registered schema take them)."""
    from google.protobuf import duration_pb2, timestamp_pb2, wrappers_pb2  # noqa: F401

    try:
        from google.type import date_pb2  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        pass


def proto_client(conf: Dict[str, str]) -> Any:
    """One SchemaRegistryClient per configuration in this process for Protobuf schemas, apart
    from the Avro and JSON ones': its caches hold schemas in the serialized form (the client
    caches a schema by id or version whatever the form it was asked in)."""
    from ..schema_registry import SchemaRegistryClient

    _load_known()
    key = tuple(sorted(conf.items()))
    client = _CLIENTS.get(key)
    if client is None:
        client = _CLIENTS[key] = SchemaRegistryClient(dict(conf))
    return client


class _Files:
    """Descriptor pools of registered schemas (one per schema, with the files it references and
    the well-known files it imports). A registry answers with the serialized form when asked
    (Confluent's converts .proto text to it); one that hands back the .proto text it was given
    has it read by :func:`parse_proto`."""

    def __init__(self, client: Any):
        self._client = client
        self._pools: Dict[Any, Tuple[Any, Any]] = {}

    def pool(self, schema: Any) -> Tuple[Any, Any]:
        """``(pool, file descriptor)`` of ``schema``."""
        from google.protobuf import descriptor_pool

        key = (schema.schema_str,
               tuple((r.name, r.subject, r.version) for r in schema.references or ()))
        found = self._pools.get(key)
        if found is None:
            pool = descriptor_pool.DescriptorPool()
            name = self._add(pool, schema, "default.proto", set())
            found = self._pools[key] = (pool, pool.FindFileByName(name))
        return found

    def _add(self, pool: Any, schema: Any, name: str, added: set) -> str:
        from ..schema_registry.protobuf import _is_builtin, _RegisteredFiles

        for ref in schema.references or ():
            if ref.name in added:
                continue
            added.add(ref.name)
            if _is_builtin(ref.name):
                _RegisteredFiles._add_known(pool, ref.name, added)
                continue
            referenced = self._client.get_version(ref.subject, ref.version, fmt="serialized")
            self._add(pool, referenced.schema, ref.name, added)
        proto = file_proto(schema.schema_str, name)
        for dep in proto.dependency:
            if dep not in added and _is_builtin(dep):
                added.add(dep)
                _RegisteredFiles._add_known(pool, dep, added)
        pool.Add(proto)
        return proto.name

    def message_class(self, schema: Any, indexes: List[int]) -> Any:
        """The class of the message at the index path ``indexes`` of ``schema``'s file."""
        from google.protobuf import message_factory

        _, file = self.pool(schema)
        desc = file.message_types_by_name[list(file.message_types_by_name)[indexes[0]]]
        for index in indexes[1:]:
            desc = desc.nested_types[index]
        return message_factory.GetMessageClass(desc)


def _files(client: Any) -> _Files:
    files = getattr(client, "_cbkafka_files", None)
    if files is None:
        files = client._cbkafka_files = _Files(client)
    return files


def file_proto(schema_str: str, name: str) -> Any:
    """The FileDescriptorProto of a registered Protobuf schema: its serialized form (base64),
    else its .proto text."""
    import binascii

    from google.protobuf import descriptor_pb2
    from google.protobuf.message import DecodeError

    text = schema_str.strip()
    if "{" not in text:
        try:
            proto = descriptor_pb2.FileDescriptorProto.FromString(
                base64.standard_b64decode(text))
        except (binascii.Error, DecodeError, ValueError):
            proto = None
        if proto is not None:
            proto.name = proto.name or name
            return proto
    proto = parse_proto(schema_str)
    proto.name = name
    return proto


# --- .proto text ------------------------------------------------------------------------------

_SCALAR_NAMES = ("double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool",
                 "string", "bytes", "uint32", "sfixed32", "sfixed64", "sint32", "sint64")


class _Tokens:
    def __init__(self, text: str):
        import re

        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = re.sub(r"//[^\n]*", " ", text)
        self.items = re.findall(
            r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[A-Za-z_.][\w.]*|-?\d[\w.+-]*|\S',
            text)
        self.i = 0

    def peek(self) -> Optional[str]:
        return self.items[self.i] if self.i < len(self.items) else None

    def next(self) -> str:
        token = self.peek()
        if token is None:
            raise ValueError(".proto text: unexpected end")
        self.i += 1
        return token

    def expect(self, token: str) -> None:
        got = self.next()
        if got != token:
            raise ValueError(".proto text: expected %r, got %r" % (token, got))

    def skip_statement(self) -> None:
        """Up to the end of the statement: a ';', or a balanced ``{...}`` block."""
        depth = 0
        while True:
            token = self.next()
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
                if depth == 0:
                    return
            elif token == ";" and depth == 0:
                return

    def skip_options(self) -> None:
        """A field's ``[...]`` options, if any."""
        if self.peek() == "[":
            depth = 0
            while True:
                token = self.next()
                depth += token == "["
                depth -= token == "]"
                if depth == 0:
                    return


def parse_proto(text: str) -> Any:
    """A FileDescriptorProto from .proto text, for the schemas a registry hands back as text:
    the syntax, the package, imports, messages (nested, fields with labels, maps, oneofs),
    enums; options, reserved ranges, extensions and services are skipped. Type names are kept
    as written (the descriptor pool resolves them by Protobuf's scoping rules)."""
    from google.protobuf import descriptor_pb2

    tokens = _Tokens(text)
    file = descriptor_pb2.FileDescriptorProto(syntax="proto2")
    while tokens.peek() is not None:
        word = tokens.next()
        if word in ("syntax", "edition"):
            tokens.expect("=")
            file.syntax = tokens.next().strip("\"'")
            tokens.expect(";")
        elif word == "package":
            file.package = tokens.next()
            tokens.expect(";")
        elif word == "import":
            name = tokens.next()
            if name in ("public", "weak"):
                name = tokens.next()
            file.dependency.append(name.strip("\"'"))
            tokens.expect(";")
        elif word == "message":
            _parse_message(tokens, file.message_type.add(), file.syntax == "proto3")
        elif word == "enum":
            _parse_enum(tokens, file.enum_type.add())
        elif word == ";":
            continue
        else:  # option, service, extend
            tokens.skip_statement()
    return file


def _parse_enum(tokens: _Tokens, enum: Any) -> None:
    enum.name = tokens.next()
    tokens.expect("{")
    while True:
        word = tokens.next()
        if word == "}":
            return
        if word in ("option", "reserved"):
            tokens.skip_statement()
        elif word != ";":
            tokens.expect("=")
            enum.value.add(name=word, number=int(tokens.next(), 0))
            tokens.skip_options()
            tokens.expect(";")


def _parse_message(tokens: _Tokens, msg: Any, proto3: bool) -> None:
    from google.protobuf import descriptor_pb2

    F = descriptor_pb2.FieldDescriptorProto
    msg.name = tokens.next()
    tokens.expect("{")
    optional: List[Any] = []
    oneof: Optional[int] = None
    while True:
        word = tokens.next()
        if word == "}":
            if oneof is not None:
                oneof = None
                continue
            break
        if word == ";":
            continue
        if word in ("option", "reserved", "extensions", "extend"):
            tokens.skip_statement()
            continue
        if word == "message":
            _parse_message(tokens, msg.nested_type.add(), proto3)
            continue
        if word == "enum":
            _parse_enum(tokens, msg.enum_type.add())
            continue
        if word == "oneof":
            oneof = len(msg.oneof_decl)
            msg.oneof_decl.add(name=tokens.next())
            tokens.expect("{")
            continue
        label = F.LABEL_OPTIONAL
        explicit = False
        if word in ("optional", "repeated", "required"):
            label = {"optional": F.LABEL_OPTIONAL, "repeated": F.LABEL_REPEATED,
                     "required": F.LABEL_REQUIRED}[word]
            explicit = word == "optional"
            word = tokens.next()
        fd = msg.field.add(label=label)
        if word == "map":
            tokens.expect("<")
            key = tokens.next()
            tokens.expect(",")
            value = tokens.next()
            tokens.expect(">")
            fd.name = tokens.next()
            entry = msg.nested_type.add(name=_camel(fd.name) + "Entry")
            entry.options.map_entry = True
            for number, (field_name, type_name) in enumerate((("key", key), ("value", value)), 1):
                _typed(entry.field.add(name=field_name, number=number, label=F.LABEL_OPTIONAL),
                       type_name)
            fd.label = F.LABEL_REPEATED
            fd.type = F.TYPE_MESSAGE
            fd.type_name = entry.name
        else:
            if word == "group":
                raise ValueError(".proto text: groups are not supported")
            _typed(fd, word)
            fd.name = tokens.next()
        tokens.expect("=")
        fd.number = int(tokens.next(), 0)
        tokens.skip_options()
        tokens.expect(";")
        if oneof is not None:
            fd.oneof_index = oneof
        elif proto3 and explicit:
            fd.proto3_optional = True
            optional.append(fd)
    for fd in optional:  # proto3 optional: a synthetic oneof each, after the real ones
        fd.oneof_index = len(msg.oneof_decl)
        msg.oneof_decl.add(name="_" + fd.name)


def _typed(fd: Any, type_name: str) -> None:
    from google.protobuf import descriptor_pb2

    if type_name in _SCALAR_NAMES:
        fd.type = getattr(descriptor_pb2.FieldDescriptorProto, "TYPE_" + type_name.upper())
    else:
        fd.type_name = type_name  # a message or an enum: the pool resolves which


def reader_spec(schema: Any, message: Optional[str]) -> Dict[str, Any]:
    """What the executors need to rebuild the reader's message class (picklable): the
    registered schema (serialized form) and its references, and the message's name."""
    return {
        "schema": schema.schema_str,
        "refs": [(r.name, r.subject, r.version) for r in schema.references or ()],
        "message": message,
    }


def _schema(spec: Dict[str, Any]) -> Any:
    from ..schema_registry import Schema, SchemaReference

    refs = [SchemaReference(n, s, v) for n, s, v in spec["refs"]]
    return Schema(spec["schema"], "PROTOBUF", refs)


def find_message(pool: Any, file: Any, name: Optional[str]) -> Any:
    """The descriptor of the message ``name`` (a full name, or one relative to the file's
    package) of ``file``, or of its first message."""
    if name is None:
        if not file.message_types_by_name:
            raise ValueError("The Protobuf schema %s declares no message" % file.name)
        return file.message_types_by_name[list(file.message_types_by_name)[0]]
    for candidate in (name, "%s.%s" % (file.package, name) if file.package else None):
        if candidate is None:
            continue
        try:
            return pool.FindMessageTypeByName(candidate)
        except KeyError:
            continue
    raise ValueError("The Protobuf schema %s has no message %r (it declares %s)"
                     % (file.name, name, ", ".join(file.message_types_by_name) or "none"))


def descriptor(client: Any, spec: Dict[str, Any]) -> Any:
    """The reader's message descriptor of ``spec`` (see :func:`reader_spec`)."""
    pool, file = _files(client).pool(_schema(spec))
    return find_message(pool, file, spec["message"])


# --- types and values -------------------------------------------------------------------------


def _scalar(fd: Any) -> Tuple[Any, Optional[Callable[[Any], Any]]]:
    """The Arrow type of a scalar field and the conversion of its values (None: as they are)."""
    import pyarrow as pa
    from google.protobuf.descriptor import FieldDescriptor as F

    t = fd.type
    if t in (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32):
        return pa.int32(), None
    if t in (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64, F.TYPE_UINT32, F.TYPE_FIXED32):
        return pa.int64(), None
    if t in (F.TYPE_UINT64, F.TYPE_FIXED64):
        return pa.decimal128(20, 0), Decimal
    if t == F.TYPE_DOUBLE:
        return pa.float64(), None
    if t == F.TYPE_FLOAT:
        return pa.float32(), None
    if t == F.TYPE_BOOL:
        return pa.bool_(), None
    if t == F.TYPE_STRING:
        return pa.string(), None
    if t == F.TYPE_BYTES:
        return pa.binary(), None
    if t == F.TYPE_ENUM:
        names = {v.number: v.name for v in fd.enum_type.values}
        return pa.string(), lambda v: names.get(v) or str(v)
    raise ValueError("Protobuf: the field %s has no Spark type" % fd.full_name)


def _is_message(fd: Any) -> bool:
    from google.protobuf.descriptor import FieldDescriptor as F

    return fd.type in (F.TYPE_MESSAGE, F.TYPE_GROUP)


def _is_repeated(fd: Any) -> bool:
    from google.protobuf.descriptor import FieldDescriptor as F

    repeated = getattr(fd, "is_repeated", None)
    return repeated if repeated is not None else fd.label == F.LABEL_REPEATED


def _value(fd: Any, seen: Tuple[str, ...]) -> Tuple[Any, Optional[Callable[[Any], Any]]]:
    """The Arrow type of one value of the field ``fd`` (an element when repeated) and its
    conversion."""
    if _is_message(fd):
        return message_type(fd.message_type, seen)
    return _scalar(fd)


def message_type(desc: Any, seen: Tuple[str, ...] = ()) -> Tuple[Any, Callable[[Any], Any]]:
    """The Arrow type of the message ``desc`` and the function turning a parsed message into
    the Python value that type is built from: messages -> structs (every field, by name),
    repeated -> lists, maps -> maps, enums -> their value's name, uint32 -> int64, uint64 ->
    decimal(20, 0); ``google.protobuf.Timestamp`` -> timestamp[us, UTC], ``google.type.Date``
    -> date32, the wrappers (``google.protobuf.Int64Value``...) -> their value. A field without
    presence (proto3's plain scalars) reads its default when unset; one with presence
    (``optional``, a message, a oneof member) reads null."""
    import pyarrow as pa

    name = desc.full_name
    if name == _TIMESTAMP:
        return pa.timestamp("us", tz="UTC"), lambda m: m.seconds * 1_000_000 + m.nanos // 1000
    if name == _DATE:
        return pa.date32(), lambda m: datetime.date(m.year, m.month, m.day)
    if name in _WRAPPERS:
        t, conv = _scalar(desc.fields_by_name["value"])
        if conv is None:
            return t, lambda m: m.value
        return t, lambda m: conv(m.value)
    if name in seen:
        raise ValueError("Protobuf: the message %s contains itself; Spark has no recursive "
                         "types" % name)
    seen = seen + (name,)
    fields = []
    convs: Dict[str, Optional[Callable[[Any], Any]]] = {}
    defaults: Dict[str, Any] = {}
    for fd in desc.fields:
        if _is_repeated(fd) and _is_message(fd) and fd.message_type.GetOptions().map_entry:
            entry = fd.message_type
            kt, kconv = _value(entry.fields_by_name["key"], seen)
            vt, vconv = _value(entry.fields_by_name["value"], seen)
            t = pa.map_(kt, vt)
            conv = _map_conv(kconv, vconv)
            default: Any = []
        elif _is_repeated(fd):
            et, econv = _value(fd, seen)
            t = pa.list_(et)
            conv = list if econv is None else _list_conv(econv)
            default = []
        else:
            t, conv = _value(fd, seen)
            if fd.has_presence:
                default = None
            else:
                default = fd.default_value if conv is None else conv(fd.default_value)
        fields.append(pa.field(fd.name, t))
        convs[fd.name] = conv
        defaults[fd.name] = default

    def read(message: Any) -> Dict[str, Any]:
        out = dict(defaults)
        for fd, v in message.ListFields():
            if fd.name in convs:  # (not an extension)
                c = convs[fd.name]
                out[fd.name] = v if c is None else c(v)
        return out

    return pa.struct(fields), read


def _list_conv(conv: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: [conv(x) for x in v]


def _map_conv(kconv: Optional[Callable[[Any], Any]],
              vconv: Optional[Callable[[Any], Any]]) -> Callable[[Any], Any]:
    if kconv is None and vconv is None:
        return lambda v: list(v.items())
    k = kconv or (lambda x: x)
    f = vconv or (lambda x: x)
    return lambda v: [(k(a), f(b)) for a, b in v.items()]


def arrow_type(registry: Dict[str, str], spec: Dict[str, Any]) -> Any:
    """The Arrow type of the reader's message (see :func:`message_type`)."""
    return message_type(descriptor(proto_client(registry), spec))[0]


# --- decoding ---------------------------------------------------------------------------------


class ProtobufDecoder(FramedDecoder):
    """Decodes one column of framed Protobuf records per call (see the module's docstring).

    ``spec``: the reader's schema and message (:func:`reader_spec`); ``registry``: the
    SchemaRegistryClient configuration (writer schemas by id)."""

    kind = "Protobuf"

    def __init__(self, spec: Dict[str, Any], registry: Dict[str, str], field: str,
                 permissive: bool):
        from google.protobuf import message_factory

        self.registry = registry
        self._client = proto_client(registry)
        desc = descriptor(self._client, spec)
        t, self._read = message_type(desc)
        super().__init__(t, t, field, permissive)
        self._name = desc.full_name
        self._parse = message_factory.GetMessageClass(desc).FromString
        # (schema id, index path) -> None when the writer's message is the reader's, else why not
        self._writers: Dict[Tuple[int, Tuple[int, ...]], Optional[str]] = {}

    def _writer(self, sid: int, indexes: Tuple[int, ...]) -> Optional[str]:
        key = (sid, indexes)
        if key in self._writers:
            return self._writers[key]
        schema = self._client.get_schema(sid, fmt="serialized")
        if schema.schema_type != "PROTOBUF":
            why: Optional[str] = "schema id %d is a %s schema, not Protobuf" % (
                sid, schema.schema_type or "AVRO")
        else:
            try:
                written = _files(self._client).message_class(schema, list(indexes)).DESCRIPTOR
            except (IndexError, KeyError):
                written = None
            if written is None:
                why = "schema id %d has no message at the index path %s" % (sid, list(indexes))
            elif written.full_name != self._name:
                why = "written as the message %s (schema id %d), read as %s" % (
                    written.full_name, sid, self._name)
            else:
                why = None
        self._writers[key] = why
        return why

    def _one(self, data: bytes) -> Any:
        import io

        from ..schema_registry._wire import read_message_indexes

        sid = schema_id(data)
        if len(data) > 5 and data[5] == 0:
            indexes: Tuple[int, ...] = (0,)
            start = 6
        else:
            buf = io.BytesIO(data)
            buf.seek(5)
            indexes = tuple(read_message_indexes(buf)) or (0,)
            start = buf.tell()
        why = self._writer(sid, indexes)
        if why is not None:
            raise SerializationError(why)
        return self._read(self._parse(data[start:]))


# --- encoding ---------------------------------------------------------------------------------


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p) or "Message"


def proto_file(spark_type: Any, name: str = "topLevelRecord") -> str:
    """The Protobuf schema (a base64 FileDescriptorProto, proto3) of a struct type: one message
    ``topLevelRecord`` whose fields are the struct's, numbered from 1 in order; nested structs
    -> messages nested in their parent (named after their field), arrays -> repeated, maps ->
    maps (string, integer or boolean keys), nullable scalars -> ``optional``, byte to int ->
    int32, long -> int64, decimals -> string (their text), dates -> ``google.type.Date``,
    timestamps -> ``google.protobuf.Timestamp``."""
    import re

    from google.protobuf import descriptor_pb2
    from pyspark.sql import types as T

    F = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="%s.proto" % name, syntax="proto3")
    deps: List[str] = []
    ident = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
    scalars: List[Tuple[Any, int]] = [
        (T.BooleanType, F.TYPE_BOOL), ((T.ByteType, T.ShortType, T.IntegerType), F.TYPE_INT32),
        (T.LongType, F.TYPE_INT64), (T.FloatType, F.TYPE_FLOAT), (T.DoubleType, F.TYPE_DOUBLE),
        (T.StringType, F.TYPE_STRING), (T.BinaryType, F.TYPE_BYTES),
        (T.DecimalType, F.TYPE_STRING),
    ]

    def well_known(type_name: str, dep: str) -> Tuple[int, str]:
        if dep not in deps:
            deps.append(dep)
        return F.TYPE_MESSAGE, "." + type_name

    def kind(t: Any, field: str, parent: Any, parent_name: str) -> Tuple[int, str]:
        for cls, proto in scalars:
            if isinstance(t, cls):
                return proto, ""
        if isinstance(t, (T.TimestampType, T.TimestampNTZType)):
            return well_known(_TIMESTAMP, "google/protobuf/timestamp.proto")
        if isinstance(t, T.DateType):
            return well_known(_DATE, "google/type/date.proto")
        if isinstance(t, T.StructType):
            taken = {m.name for m in parent.nested_type}
            nested = _camel(field)
            while nested in taken:
                nested += "_"
            msg = parent.nested_type.add(name=nested)
            fill(msg, t, "%s.%s" % (parent_name, nested))
            return F.TYPE_MESSAGE, ".%s.%s" % (parent_name, nested)
        raise ValueError("The Spark type %s (field %r) has no Protobuf type"
                         % (t.simpleString(), field))

    def fill(msg: Any, struct: Any, full: str) -> None:
        optional = []
        for number, f in enumerate(struct.fields, 1):
            if not ident.match(f.name):
                raise ValueError("The field name %r is not a Protobuf identifier" % f.name)
            fd = F(name=f.name, number=number, label=F.LABEL_OPTIONAL)
            t = f.dataType
            if isinstance(t, T.ArrayType):
                if isinstance(t.elementType, (T.ArrayType, T.MapType)):
                    raise ValueError("Protobuf has no repeated field of %s (field %r)"
                                     % (t.elementType.simpleString(), f.name))
                fd.label = F.LABEL_REPEATED
                fd.type, type_name = kind(t.elementType, f.name, msg, full)
            elif isinstance(t, T.MapType):
                if not isinstance(t.keyType, (T.StringType, T.IntegerType, T.LongType,
                                              T.BooleanType)):
                    raise ValueError("Protobuf map keys are strings, integers or booleans; the "
                                     "map %r has %s" % (f.name, t.keyType.simpleString()))
                if isinstance(t.valueType, (T.ArrayType, T.MapType)):
                    raise ValueError("Protobuf has no map of %s (field %r)"
                                     % (t.valueType.simpleString(), f.name))
                entry_name = _camel(f.name) + "Entry"
                entry = msg.nested_type.add(name=entry_name)
                entry.options.map_entry = True
                key = entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL)
                key.type, _ = kind(t.keyType, "key", entry, "%s.%s" % (full, entry_name))
                value = entry.field.add(name="value", number=2, label=F.LABEL_OPTIONAL)
                value.type, value_type = kind(t.valueType, f.name, msg, full)
                if value_type:
                    value.type_name = value_type
                fd.label = F.LABEL_REPEATED
                fd.type, type_name = F.TYPE_MESSAGE, ".%s.%s" % (full, entry_name)
            else:
                fd.type, type_name = kind(t, f.name, msg, full)
                if f.nullable and fd.type != F.TYPE_MESSAGE:
                    fd.proto3_optional = True
                    optional.append(fd)
            if type_name:
                fd.type_name = type_name
            msg.field.append(fd)
        for fd in optional:  # each proto3 optional field is in a synthetic oneof of its own
            index = len(msg.oneof_decl)
            msg.oneof_decl.add(name="_" + fd.name)
            next(x for x in msg.field if x.name == fd.name).oneof_index = index

    if not isinstance(spark_type, T.StructType):
        raise ValueError("Protobuf records are messages: the column must be a struct, not %s"
                         % spark_type.simpleString())
    top = file.message_type.add(name=name)
    fill(top, spark_type, name)
    file.dependency.extend(deps)
    return base64.standard_b64encode(file.SerializeToString()).decode("ascii")


def _message_class(schema_str: str) -> Any:
    """The first message's class of a derived file (:func:`proto_file`)."""
    from google.protobuf import descriptor_pool, message_factory

    from ..schema_registry.protobuf import _RegisteredFiles

    _load_known()
    proto = file_proto(schema_str, "topLevelRecord.proto")
    pool = descriptor_pool.DescriptorPool()
    added: set = set()
    for dep in proto.dependency:
        if dep not in added:
            added.add(dep)
            _RegisteredFiles._add_known(pool, dep, added)
    pool.Add(proto)
    file = pool.FindFileByName(proto.name)
    return message_factory.GetMessageClass(find_message(pool, file, None))


def _filler(desc: Any) -> Callable[[Any, Dict[str, Any]], None]:
    """``fill(message, row)``: sets the message's fields from a row (a dict, as ``to_pylist``
    gives a struct): structs -> messages, lists -> repeated fields, dicts -> maps, enum fields
    from their value's name, timestamps and dates into the well-known messages."""
    setters: Dict[str, Callable[[Any, Any], None]] = {}
    for fd in desc.fields:
        setters[fd.name] = _setter(fd)
    name = desc.full_name

    def fill(message: Any, row: Dict[str, Any]) -> None:
        for k, v in row.items():
            if v is None:
                continue
            setter = setters.get(k)
            if setter is None:
                raise ValueError("The message %s has no field %r" % (name, k))
            setter(message, v)

    return fill


def _scalar_in(fd: Any) -> Optional[Callable[[Any], Any]]:
    if fd.type == fd.TYPE_ENUM:
        numbers = {v.name: v.number for v in fd.enum_type.values}

        def enum(v: Any) -> int:
            if isinstance(v, int):
                return v
            if v not in numbers:
                raise ValueError("%r is not a value of the enum %s" % (v, fd.enum_type.full_name))
            return numbers[v]
        return enum
    if fd.type == fd.TYPE_STRING:
        return lambda v: v if isinstance(v, str) else str(v)
    if fd.type in (fd.TYPE_UINT64, fd.TYPE_FIXED64, fd.TYPE_INT64, fd.TYPE_SINT64,
                   fd.TYPE_SFIXED64, fd.TYPE_UINT32, fd.TYPE_FIXED32):
        return lambda v: int(v)
    return None


def _put(desc: Any) -> Callable[[Any, Any], None]:
    """``put(message, value)`` for a message field's value (a row, or a timestamp, a date, a
    wrapped scalar)."""
    name = desc.full_name
    if name == _TIMESTAMP:
        def timestamp(m: Any, v: Any) -> None:
            if isinstance(v, datetime.datetime) and v.tzinfo is not None:
                v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            m.FromDatetime(v)
        return timestamp
    if name == _DATE:
        def date(m: Any, v: Any) -> None:
            m.year, m.month, m.day = v.year, v.month, v.day
        return date
    if name in _WRAPPERS:
        conv = _scalar_in(desc.fields_by_name["value"])

        def wrapped(m: Any, v: Any) -> None:
            m.value = v if conv is None else conv(v)
        return wrapped
    fill = _filler(desc)

    def record(m: Any, v: Any) -> None:
        m.SetInParent()
        fill(m, v)
    return record


def _setter(fd: Any) -> Callable[[Any, Any], None]:
    name = fd.name
    if _is_repeated(fd) and _is_message(fd) and fd.message_type.GetOptions().map_entry:
        vfd = fd.message_type.fields_by_name["value"]
        kconv = _scalar_in(fd.message_type.fields_by_name["key"]) or (lambda k: k)
        if _is_message(vfd):
            put = _put(vfd.message_type)

            def map_of_messages(m: Any, v: Any) -> None:
                container = getattr(m, name)
                for k, x in v.items():
                    put(container[kconv(k)], x)
            return map_of_messages
        vconv = _scalar_in(vfd) or (lambda x: x)

        def map_of_scalars(m: Any, v: Any) -> None:
            getattr(m, name).update({kconv(k): vconv(x) for k, x in v.items()})
        return map_of_scalars
    if _is_repeated(fd):
        if _is_message(fd):
            put = _put(fd.message_type)

            def repeated_messages(m: Any, v: Any) -> None:
                container = getattr(m, name)
                for x in v:
                    put(container.add(), x)
            return repeated_messages
        conv = _scalar_in(fd)

        def repeated(m: Any, v: Any) -> None:
            getattr(m, name).extend(v if conv is None else [conv(x) for x in v])
        return repeated
    if _is_message(fd):
        put = _put(fd.message_type)
        return lambda m, v: put(getattr(m, name), v)
    conv = _scalar_in(fd)
    if conv is None:
        return lambda m, v: setattr(m, name, v)
    return lambda m, v: setattr(m, name, conv(v))


class ProtobufEncoder:
    """Encodes one Arrow column of rows per call into framed Protobuf (a binary column),
    through the project's ProtobufSerializer (registration, subject name strategies).
    ``schema_str``: the writer's file (a base64 FileDescriptorProto, :func:`proto_file`), or
    None with use.latest.version: then each topic's writer is the message ``message``
    (default: the first) of the latest schema of the topic's subject; ``conf``: the
    serializer's settings."""

    def __init__(self, registry: Dict[str, str], schema_str: Optional[str],
                 conf: Dict[str, Any], field: str, message: Optional[str]):
        self.field = MessageField.KEY if field == "key" else MessageField.VALUE
        self._client = proto_client(registry)
        self._conf = conf
        self._message = message
        # topic (None: every topic) -> (message class, fill, serializer)
        self._writers: Dict[Optional[str], Tuple[Any, Any, Any]] = {}
        if schema_str is not None:
            self._writers[None] = self._writer(_message_class(schema_str))

    def _writer(self, cls: Any) -> Tuple[Any, Any, Any]:
        from ..schema_registry.protobuf import ProtobufSerializer

        return cls, _filler(cls.DESCRIPTOR), ProtobufSerializer(cls, self._client,
                                                               conf=copy.copy(self._conf))

    def _for(self, ctx: Any) -> Tuple[Any, Any, Any]:
        found = self._writers.get(None) or self._writers.get(ctx.topic)
        if found is None:
            found = self._writers[ctx.topic] = self._latest(ctx)
        return found

    def _latest(self, ctx: Any) -> Tuple[Any, Any, Any]:
        """The writer of ``ctx``'s topic with use.latest.version: the message of the subject's
        latest schema, framed with its id here (that schema may be the .proto text it was
        registered as, which only :func:`file_proto` reads)."""
        from google.protobuf import message_factory

        from ..schema_registry._wire import encode_message_indexes
        from ..schema_registry.protobuf import _message_indexes

        subject = self._conf["subject.name.strategy"](ctx, self._message)
        registered = self._client.get_latest_version(subject, fmt="serialized")
        if registered.schema.schema_type != "PROTOBUF":
            raise ValueError("The subject %r holds a %s schema, not Protobuf"
                             % (subject, registered.schema.schema_type or "AVRO"))
        pool, file = _files(self._client).pool(registered.schema)
        cls = message_factory.GetMessageClass(find_message(pool, file, self._message))
        prefix = (b"\x00" + registered.schema_id.to_bytes(4, "big")
                  + encode_message_indexes(_message_indexes(cls.DESCRIPTOR)))

        def serialize(message: Any, ctx: Any) -> bytes:
            return prefix + message.SerializeToString()

        return cls, _filler(cls.DESCRIPTOR), serialize

    def encode(self, column: Any, topics: List[Any]) -> Any:
        """``column``: a struct column (null rows stay null, as tombstones); ``topics``: each
        row's topic (the subject name strategies need it)."""
        def serialize(row: Dict[str, Any], ctx: Any) -> bytes:
            cls, fill, serializer = self._for(ctx)
            message = cls()
            fill(message, row)
            return serializer(message, ctx)

        return encode_rows(column, topics, self.field, serialize)
