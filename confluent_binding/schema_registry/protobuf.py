"""Protobuf serializer and deserializer framed for the Schema Registry (extra ``[protobuf]``).

The schema registered is the message's file as a base64 FileDescriptorProto, with the files it
imports registered first as references (except the well-known google/protobuf, google/type and
confluent files, with ``skip.known.types``). After the schema id the payload carries the
message's index path in its file as zigzag varints (``[0]``, the first message, is one 0 byte).
"""

import base64
import datetime
from decimal import Decimal
from typing import Any, Dict, List, Optional, Set, Type

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from ..serialization import SerializationError
from ._aserde import _serde_family
from ._rules import (
    FieldTransform,
    FieldType,
    RuleConditionError,
    RuleContext,
    RuleError,
    RuleRegistry,
    ValidationRule,
    ValidationRuleError,
    ValidationRuleExecutor,
    evaluate_validation_rule,
)
from ._types import RuleKind, RuleMode
from ._wire import encode_message_indexes
from .confluent import meta_pb2
from .confluent.type import decimal_pb2, variant_pb2
from .confluent.type.decimal_utils import from_proto_decimal, unscaled_to_bytes
from .confluent.type.variant_utils import Variant
from .schema_registry_client import Schema, SchemaReference
from .serde import BaseDeserializer, BaseSerializer, reference_subject_name_strategy

__all__ = [
    "ProtobufSerializer",
    "ProtobufDeserializer",
    "ProtobufSerializerBuilder",
    "ProtobufDeserializerBuilder",
    "transform",
    "get_type",
    "get_inline_tags",
    "is_map_field",
    "validate_message",
    "decimal_to_protobuf",
    "protobuf_to_decimal",
    "AsyncProtobufSerializer",
    "AsyncProtobufDeserializer",
    "AsyncProtobufSerializerBuilder",
    "AsyncProtobufDeserializerBuilder",
    "variant_to_protobuf",
    "protobuf_to_variant",
]

_PROTOBUF = "PROTOBUF"

# -- confluent.type.Decimal -------------------------------------------------------------------

# the most digits a Java BigDecimal's unscaled value (a BigInteger of at most 2**31 - 1 bits)
# can have: a wider rescale is refused at once rather than computed at length
_MAX_UNSCALED_DIGITS = 646456993


def decimal_to_protobuf(value: Decimal, scale: int) -> Any:
    """``value`` (a :class:`~decimal.Decimal`) as a ``confluent.type.Decimal`` of ``scale``
    fractional digits, exactly as Java's ``BigDecimal.setScale(scale)`` without rounding:
    widening appends zeros; narrowing may drop only zeros (``ValueError`` "Scale provided does
    not match the decimal" otherwise)."""
    sign, digits, exponent = Decimal(value).as_tuple()
    if not isinstance(exponent, int):
        raise ValueError("cannot convert non-finite Decimal '%s' to confluent.type.Decimal"
                         % value)
    unscaled = int("".join(map(str, digits)))
    shift = exponent + scale  # digits to append (or, negative, to drop)
    if shift >= 0:
        if shift + len(digits) > _MAX_UNSCALED_DIGITS:
            raise ValueError("Scale provided is too wide for the decimal")
        unscaled *= 10 ** shift
    elif unscaled:
        kept = len(digits) + shift
        if kept < 0 or any(digits[kept:]):
            raise ValueError("Scale provided does not match the decimal")
        unscaled //= 10 ** -shift
    precision = 1 if unscaled == 0 else len(digits) + shift
    return decimal_pb2.Decimal(value=unscaled_to_bytes(-unscaled if sign else unscaled),
                               precision=precision, scale=scale)


def protobuf_to_decimal(value: Any) -> Decimal:
    """The :class:`~decimal.Decimal` a ``confluent.type.Decimal`` message holds."""
    return from_proto_decimal(value)


def variant_to_protobuf(value: Variant) -> Any:
    """A :class:`~confluent_binding.schema_registry.confluent.type.variant_utils.Variant` as a
    ``confluent.type.Variant`` message (a navigated value's own bytes, not its parent's)."""
    return variant_pb2.Variant(metadata=value.metadata, value=value.standalone_value_bytes())


def protobuf_to_variant(value: Any) -> Variant:
    """The :class:`~confluent_binding.schema_registry.confluent.type.variant_utils.Variant` a
    ``confluent.type.Variant`` message holds."""
    return Variant(value.value, value.metadata)

# -- field-level rules ------------------------------------------------------------------------

_FD = FieldDescriptor
_SCALARS = {
    _FD.TYPE_ENUM: FieldType.ENUM, _FD.TYPE_STRING: FieldType.STRING,
    _FD.TYPE_BYTES: FieldType.BYTES, _FD.TYPE_INT32: FieldType.INT,
    _FD.TYPE_SINT32: FieldType.INT, _FD.TYPE_UINT32: FieldType.INT,
    _FD.TYPE_FIXED32: FieldType.INT, _FD.TYPE_SFIXED32: FieldType.INT,
    _FD.TYPE_INT64: FieldType.LONG, _FD.TYPE_SINT64: FieldType.LONG,
    _FD.TYPE_UINT64: FieldType.LONG, _FD.TYPE_FIXED64: FieldType.LONG,
    _FD.TYPE_SFIXED64: FieldType.LONG, _FD.TYPE_FLOAT: FieldType.FLOAT,
    _FD.TYPE_DOUBLE: FieldType.DOUBLE, _FD.TYPE_BOOL: FieldType.BOOLEAN,
}


def is_map_field(fd: FieldDescriptor) -> bool:
    """True for a ``map<K, V>`` field (a repeated generated entry message)."""
    return (fd.type == _FD.TYPE_MESSAGE and fd.message_type is not None
            and fd.message_type.GetOptions().map_entry and _is_repeated(fd))


def _is_repeated(fd):
    label = getattr(fd, "is_repeated", None)
    if label is not None:
        return label
    return fd.label == _FD.LABEL_REPEATED


#: message types a rule sees as one value (a decimal, a timestamp), not as a record
_LEAF_MESSAGES = {"confluent.type.Decimal": FieldType.BYTES,
                  "google.protobuf.Timestamp": FieldType.LONG}


def _leaf(desc):
    return desc is not None and desc.full_name in _LEAF_MESSAGES


def get_type(fd: FieldDescriptor) -> FieldType:
    """The FieldType of a field descriptor (a map: MAP, a message: RECORD, but a
    ``confluent.type.Decimal`` is BYTES and a ``google.protobuf.Timestamp`` LONG, as their Avro
    counterparts; a repeated field: its elements' type)."""
    if is_map_field(fd):
        return FieldType.MAP
    if fd.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return _LEAF_MESSAGES.get(fd.message_type.full_name, FieldType.RECORD)
    return _SCALARS.get(fd.type, FieldType.NULL)


def get_inline_tags(fd: FieldDescriptor) -> Set[str]:
    """The tags a field declares in its ``(confluent.field_meta).tags`` option."""
    try:
        options = fd.GetOptions()
        if options.HasExtension(meta_pb2.field_meta):
            return set(options.Extensions[meta_pb2.field_meta].tags)
    except KeyError:  # options of another descriptor pool's making
        pass
    return set()


def transform(ctx: RuleContext, descriptor: Any, message: Any,
              field_transform: FieldTransform) -> Any:
    """Walk a Protobuf ``message`` (of ``descriptor``), applying ``field_transform`` to the
    fields whose tags the rule selects: lists and maps element by element, a decimal or a
    timestamp as one value, an unset field with presence not at all."""
    if message is None or descriptor is None:
        return message
    if isinstance(message, list):
        return [transform(ctx, descriptor, item, field_transform) for item in message]
    if isinstance(message, dict):
        return {k: transform(ctx, descriptor, v, field_transform) for k, v in message.items()}
    if isinstance(message, Message) and not _leaf(message.DESCRIPTOR):
        # the message's fields, each named and tagged as the schema's field of its number
        for fd in message.DESCRIPTOR.fields:
            schema_fd = descriptor.fields_by_number.get(fd.number)
            if schema_fd is not None:
                _transform_field(ctx, fd, schema_fd, descriptor, message, field_transform)
        return message
    field = ctx.current_field()
    if field is not None:
        tags = ctx.rule.tags
        if not tags or not set(tags).isdisjoint(field.tags):
            return field_transform(ctx, field, message)
    return message


def _walked_as(schema_fd, descriptor):
    """The descriptor a field's value is walked with: its message type (a map's value type),
    else the containing one, whose walk reaches the value itself."""
    if schema_fd.type != _FD.TYPE_MESSAGE:
        return descriptor
    if is_map_field(schema_fd):
        value_fd = schema_fd.message_type.fields_by_name["value"]
        return value_fd.message_type if value_fd.type == _FD.TYPE_MESSAGE else descriptor
    return schema_fd.message_type


def _transform_field(ctx, fd, schema_fd, descriptor, message, field_transform):
    ctx.enter_field(message, schema_fd.full_name, schema_fd.name, get_type(fd),
                    get_inline_tags(schema_fd), fd)
    try:
        if fd.has_presence and not message.HasField(fd.name):
            return  # no value to transform, and writing one would make the field set
        value = getattr(message, fd.name)
        if is_map_field(fd):
            value = dict(value)
        elif _is_repeated(fd):
            value = list(value)
        new = transform(ctx, _walked_as(schema_fd, descriptor), value, field_transform)
        if ctx.rule.kind == RuleKind.CONDITION:
            if new is False:
                raise RuleConditionError(ctx.rule)
            return
        if fd.type == _FD.TYPE_MESSAGE and _leaf(fd.message_type):
            new = ([_leaf_message(fd, item) for item in new] if _is_repeated(fd)
                   else _leaf_message(fd, new))
        _set_field(message, fd, new)
    finally:
        ctx.exit_field()


def _leaf_message(fd, value):
    """The decimal or timestamp message for what a field rule returned (the message itself
    when the rule returned the value it was given)."""
    desc = fd.message_type
    is_decimal = desc.full_name == "confluent.type.Decimal"
    if value is None:
        raise RuleError("Rule returned null for field '%s', which is a %s; expected a decimal "
                        "or timestamp" % (fd.full_name, desc.full_name))
    source = getattr(value, "msg", value)
    if isinstance(source, Message) and source.DESCRIPTOR.full_name == desc.full_name:
        return source
    if not isinstance(value, Decimal if is_decimal else datetime.datetime):
        raise RuleError("Rule returned %s for field '%s', which is a %s; expected %s"
                        % (type(value).__name__, fd.full_name, desc.full_name,
                           "a decimal" if is_decimal else "a timestamp"))
    # a computed decimal or datetime: only a CEL rule makes one, so its library is there
    from .rules.cel import protobuf_result_writer

    out = message_factory.GetMessageClass(desc)()
    protobuf_result_writer._set_message(out, fd, value)
    return out


def _set_field(message, fd, value):
    if isinstance(value, list):
        message.ClearField(fd.name)
        getattr(message, fd.name).extend(value)
    elif isinstance(value, dict):
        if fd.message_type.fields_by_name["value"].type == _FD.TYPE_MESSAGE:
            target = getattr(message, fd.name)
            for key, item in value.items():
                target[key].CopyFrom(item)
        else:
            message.ClearField(fd.name)
            getattr(message, fd.name).update(value)
    elif isinstance(value, Message):
        getattr(message, fd.name).CopyFrom(value)
    else:
        setattr(message, fd.name, value)


def validate_message(executor: Optional[ValidationRuleExecutor], descriptor: Any, message: Any,
                     fail_fast: bool = False) -> List[ValidationRuleError]:
    """The ValidationRuleErrors of ``message`` against the inline rules of ``descriptor``
    (the schema's): ``(confluent.message_meta).rules`` see the message, a field's
    ``(confluent.field_meta).rules`` its value (not when a field with presence is unset);
    fields are paired with the schema's by number; paths read ``a.b``, ``a[3]``,
    ``a["key"]``."""
    out: List[ValidationRuleError] = []
    if executor is not None and descriptor is not None and message is not None:
        _check(executor, descriptor, message, "", fail_fast, out)
    return out


def _rules_of(options, extension):
    try:
        if options.HasExtension(extension):
            return [ValidationRule(r.name, r.doc, r.expr, r.sql)
                    for r in options.Extensions[extension].rules]
    except KeyError:
        pass
    return []


def _check(executor, descriptor, message, path, fail_fast, out):
    """Inline rules below ``message``; True when ``fail_fast`` and a rule failed."""
    if not isinstance(message, Message):
        return False
    for rule in _rules_of(descriptor.GetOptions(), meta_pb2.message_meta):
        evaluate_validation_rule(executor, rule, descriptor, message, path, out)
        if fail_fast and out:
            return True
    for fd in message.DESCRIPTOR.fields:
        schema_fd = descriptor.fields_by_number.get(fd.number)
        if schema_fd is None or (fd.has_presence and not message.HasField(fd.name)):
            continue
        value = getattr(message, fd.name)
        where = schema_fd.name if not path else path + "." + schema_fd.name
        for rule in _rules_of(schema_fd.GetOptions(), meta_pb2.field_meta):
            evaluate_validation_rule(executor, rule, schema_fd, value, where, out)
            if fail_fast and out:
                return True
        if fd.type != _FD.TYPE_MESSAGE or schema_fd.type != _FD.TYPE_MESSAGE:
            continue
        if is_map_field(fd):
            value_fd = schema_fd.message_type.fields_by_name["value"]
            if value_fd.type == _FD.TYPE_MESSAGE:
                for key, item in value.items():
                    if _check(executor, value_fd.message_type, item,
                              '{}["{}"]'.format(where, key), fail_fast, out):
                        return True
        elif _is_repeated(fd):
            for i, item in enumerate(value):
                if _check(executor, schema_fd.message_type, item, "{}[{}]".format(where, i),
                          fail_fast, out):
                    return True
        elif _check(executor, schema_fd.message_type, value, where, fail_fast, out):
            return True
    return False


def _is_builtin(file_name):
    return file_name.startswith(("confluent/", "google/protobuf/", "google/type/"))


def _schema_str(file_descriptor):
    return base64.standard_b64encode(file_descriptor.serialized_pb).decode("ascii")


def _message_indexes(descriptor):
    """The path of ``descriptor`` in its file: top-level position, then nested positions."""
    path = []
    current = descriptor
    while current.containing_type is not None:
        parent = current.containing_type
        path.append(list(parent.nested_types).index(current))
        current = parent
    path.append(list(descriptor.file.message_types_by_name).index(current.name))
    return path[::-1]


_create_index_array = _message_indexes  # confluent-kafka's names for them
_schema_to_str = _schema_str


class _RegisteredFiles:
    """Message classes for schemas read from the registry (a migration reads a record with the
    writer's registered schema and builds it with the reader's): each schema's file and the
    files it references go into one descriptor pool per schema."""

    def __init__(self, registry):
        self._registry = registry
        self._pools = {}

    def pool(self, schema):
        key = (schema.schema_str,
               tuple((r.name, r.subject, r.version) for r in schema.references or ()))
        found = self._pools.get(key)
        if found is None:
            pool = descriptor_pool.DescriptorPool()
            name = self._add(pool, schema, "default", set())
            found = self._pools[key] = (pool, pool.FindFileByName(name))
        return found

    def _add(self, pool, schema, name, added):
        for ref in schema.references or ():
            if ref.name in added:
                continue
            added.add(ref.name)
            if _is_builtin(ref.name):
                self._add_known(pool, ref.name, added)
                continue
            referenced = self._registry.get_version(ref.subject, ref.version, True, "serialized")
            self._add(pool, referenced.schema, ref.name, added)
        proto = descriptor_pb2.FileDescriptorProto.FromString(
            base64.standard_b64decode(schema.schema_str))
        proto.name = proto.name or name
        for dep in proto.dependency:
            if _is_builtin(dep) and dep not in added:
                added.add(dep)
                self._add_known(pool, dep, added)
        pool.Add(proto)
        return proto.name

    @staticmethod
    def _add_known(pool, name, added):
        """A well-known file (google/protobuf/..., confluent/...) from the default pool."""
        try:
            known = descriptor_pool.Default().FindFileByName(name)
        except KeyError:
            return
        for dep in known.dependencies:
            if dep.name not in added:
                added.add(dep.name)
                _RegisteredFiles._add_known(pool, dep.name, added)
        proto = descriptor_pb2.FileDescriptorProto()
        known.CopyToProto(proto)
        pool.Add(proto)

    def message_class(self, schema, indexes=None, name=None):
        """The class of the message at ``indexes`` in ``schema``'s file, or of the message
        called ``name`` there (else the file's first)."""
        pool, file = self.pool(schema)
        if name is not None and name in file.message_types_by_name:
            return message_factory.GetMessageClass(file.message_types_by_name[name])
        indexes = indexes or [0]
        desc = file.message_types_by_name[list(file.message_types_by_name)[indexes[0]]]
        for index in indexes[1:]:
            desc = desc.nested_types[index]
        return message_factory.GetMessageClass(desc)


def _files(serde):
    """The serde's _RegisteredFiles (made on first use)."""
    files = getattr(serde, "_registered_files", None)
    if files is None:
        files = serde._registered_files = _RegisteredFiles(serde._registry)
    return files


def _message_to_dict(message):
    """A message as JSON-shaped values for migration rules (JSON field names, every field)."""
    try:
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    except TypeError:  # protobuf < 5.26
        return json_format.MessageToDict(message, including_default_value_fields=True)


def _check_deprecated_format(conf):
    value = conf.take_bool("use.deprecated.format")
    if value:
        raise ValueError("use.deprecated.format is no longer supported")


class ProtobufSerializer(BaseSerializer):
    """Serializes instances of the generated message class ``msg_type`` to framed Protobuf.

    ``conf`` as AvroSerializer's plus ``skip.known.types`` (True),
    ``reference.subject.name.strategy`` (a file's subject is its name) and
    ``use.deprecated.format`` (only False: the old unzigzagged indexes are not written).
    """

    _schema_type = _PROTOBUF
    _fmt = "serialized"

    def __init__(self, msg_type: Type[Message], schema_registry_client: Any,
                 conf: Optional[Dict[str, Any]] = None, rule_conf: Optional[Dict[str, Any]] = None,
                 rule_registry: Optional[RuleRegistry] = None) -> None:
        settings = self._configure(
            schema_registry_client,
            conf,
            extra_defaults={
                "skip.known.types": True,
                "reference.subject.name.strategy": reference_subject_name_strategy,
                "use.deprecated.format": False,
            },
        )
        self._skip_known_types = settings.take_bool("skip.known.types")
        _check_deprecated_format(settings)
        self._reference_subject = settings.take_callable("reference.subject.name.strategy")
        settings.finish()
        self._configure_rules(rule_conf, rule_registry)
        self._msg_class = msg_type
        self._index_array = _message_indexes(msg_type.DESCRIPTOR)
        self._file = msg_type.DESCRIPTOR.file

    _files = _files

    @staticmethod
    def _encode_varints(buf, ints, zigzag=True):
        """Write the message-index array ``ints`` to ``buf`` (confluent-kafka's name)."""
        buf.write(encode_message_indexes(ints, zigzag))

    def _references(self, ctx, file_descriptor):
        """Register (auto.register.schemas) and look up each imported file; their references."""
        refs = []
        for dep in file_descriptor.dependencies:
            if self._skip_known_types and _is_builtin(dep.name):
                continue
            dep_refs = self._references(ctx, dep)
            subject = self._reference_subject(ctx, dep)
            schema = Schema(_schema_str(dep), references=dep_refs, schema_type=_PROTOBUF)
            if self._auto_register:
                self._registry.register_schema(
                    subject, schema, normalize_schemas=self._normalize_schemas
                )
            registered = self._registry.lookup_schema(
                subject, schema, normalize_schemas=self._normalize_schemas
            )
            refs.append(SchemaReference(dep.name, subject, registered.version))
        return refs

    def __call__(self, message, ctx=None):  # confluent-kafka's parameter name
        return super().__call__(message, ctx)

    def _serialize(self, message, ctx):
        if ctx is not None and type(message) is self._msg_class:
            framing = self._cached_framing((ctx.topic, ctx.field))
            if framing is not None:
                # as below, with the schema id resolved for this topic and field before
                self._schema_id = framing[1]
                return framing[2] + message.SerializeToString()
        if not isinstance(message, self._msg_class):
            raise ValueError(
                "message must be of type {} not {}".format(self._msg_class, type(message))
            )
        generation = self._generation()
        subject = self._subject(ctx, message.DESCRIPTOR.full_name) if ctx is not None else None
        schema_id, selected = self._schema_id_for(
            subject,
            lambda: Schema(
                _schema_str(self._file),
                schema_type=_PROTOBUF,
                references=self._references(ctx, self._file),
            ),
        )
        schema_id.message_indexes = self._index_array
        if type(message) is self._msg_class:
            # (a subclass's records may be named otherwise)
            self._keep_framing(ctx, generation, schema_id, selected)
        if selected is not None or self._validation_enabled():
            # the registered schema's view of the message: its field names, tags and rules
            desc = message.DESCRIPTOR
            if selected is not None:
                desc = self._files().message_class(selected.schema, name=desc.name).DESCRIPTOR

            def field_transformer(ctx, field_transform, msg):
                return transform(ctx, desc, msg, field_transform)

            message = self._write_with_rules(
                ctx, subject, selected, message, None, field_transformer,
                lambda m: validate_message(self._validation_rule_executor, desc, m,
                                           self._validation_rules_fail_fast))
        payload = self._encoding_rules_out(ctx, subject, selected, message.SerializeToString())
        return self._schema_id_serializer(payload, ctx, schema_id)


class ProtobufDeserializer(BaseDeserializer):
    """Deserializes framed Protobuf into instances of the generated class ``message_type``.

    With a ``schema_registry_client`` the writer's schema id is checked against the registry
    (an unknown id is an error); without one, only the framing is read.
    """

    _schema_type = _PROTOBUF
    _fmt = "serialized"

    def __init__(self, message_type: Type[Message], conf: Optional[Dict[str, Any]] = None,
                 schema_registry_client: Any = None, rule_conf: Optional[Dict[str, Any]] = None,
                 rule_registry: Optional[RuleRegistry] = None) -> None:
        settings = self._configure(
            schema_registry_client, conf, extra_defaults={"use.deprecated.format": False}
        )
        _check_deprecated_format(settings)
        settings.finish()
        self._configure_rules(rule_conf, rule_registry)
        self._msg_class = message_type

    def _deserialize(self, data, ctx):
        reading = self._cached_reading(data, ctx)
        if reading is not None:
            # as below, with the writer's schema id checked before and no rules to run
            msg = self._msg_class()
            try:
                msg.ParseFromString(data[len(reading[1]):])
            except DecodeError as e:
                raise SerializationError(str(e))
            return msg
        generation = self._generation()
        schema_id, payload = self._unframe(data, ctx, check_length=False)
        writer = subject = None
        if self._registry is not None:
            subject = self._subject(ctx, None) if ctx is not None else None
            writer = self._writer_schema(schema_id, subject)
            if subject is None and ctx is not None:
                subject = self._subject(ctx, self._msg_class.DESCRIPTOR.full_name)
            payload = self._encoding_rules_in(ctx, subject, writer, payload, data)
        latest = migrations = None
        if writer is not None and ctx is not None and subject is not None:
            latest = self._get_reader_schema(subject)
            if latest is not None:
                migrations = self._get_migrations(subject, writer, latest)
        if latest is None and (writer is None or writer.rule_set is None):
            self._keep_reading(ctx, generation, schema_id, data, payload.tell())
        if migrations:
            # read with the writer's registered schema, reshape, build the reader's message
            files = self._files()
            written = files.message_class(writer, schema_id.message_indexes)()
            try:
                written.ParseFromString(payload.read())
            except DecodeError as e:
                raise SerializationError(str(e))
            obj = self._execute_migrations(ctx, subject, migrations, _message_to_dict(written))
            reader_class = files.message_class(latest.schema, name=written.DESCRIPTOR.name)
            msg = json_format.ParseDict(obj, reader_class())
        else:
            msg = self._msg_class()
            try:
                msg.ParseFromString(payload.read())
            except DecodeError as e:
                raise SerializationError(str(e))
        if writer is not None and ctx is not None and subject is not None:
            reader = latest.schema if latest is not None else writer
            if reader.rule_set is not None:
                # the reader's registered schema names and tags the fields
                desc = self._files().message_class(reader, name=msg.DESCRIPTOR.name).DESCRIPTOR

                def field_transformer(ctx, field_transform, message):
                    return transform(ctx, desc, message, field_transform)

                msg = self._execute_rules(ctx, subject, RuleMode.READ, None, reader, msg, None,
                                          field_transformer, data)
        return msg

    _files = _files


# the builders, and the asyncio serdes and builders (the blocking ones awaited, see _aserde):
# classes made at import, so declared here for type checkers
ProtobufSerializerBuilder: Any
ProtobufDeserializerBuilder: Any
AsyncProtobufSerializer: Any
AsyncProtobufDeserializer: Any
AsyncProtobufSerializerBuilder: Any
AsyncProtobufDeserializerBuilder: Any
(ProtobufSerializerBuilder, ProtobufDeserializerBuilder, AsyncProtobufSerializer,
 AsyncProtobufDeserializer, AsyncProtobufSerializerBuilder,
 AsyncProtobufDeserializerBuilder) = _serde_family(
    ProtobufSerializer, ProtobufDeserializer,
    _encode_varints=staticmethod(ProtobufSerializer._encode_varints))
