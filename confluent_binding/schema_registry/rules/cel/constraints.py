"""A Protobuf message as CEL rules see it, with Protobuf's field presence.

:class:`MessageType` is a CEL map over a message's fields (by their ``.proto`` names).
Inside ``has()`` a field is present as Protobuf says: a repeated field or map when it is not
empty, a field with explicit presence (``optional``, a oneof member, a message) when it is
set, a plain proto3 scalar when it is not its default. Outside ``has()`` an unset field with
presence reads as its default (an unset wrapper such as ``StringValue`` as null); a oneof
member that is not the one set is absent. Well-known types read as CEL values: a
``Timestamp`` as a timestamp, a ``Duration`` as a duration, a wrapper as the value it holds;
enums are ints, unsigned fields uints.
"""

from celpy import celtypes
from google.protobuf import __version__ as _protobuf_version
from google.protobuf import descriptor, message_factory

from . import string_format
from .cel_field_presence import in_has

__all__ = ["CompilationError", "MessageType", "PROTOBUF_MAJOR_VERSION", "check_field_type",
           "in_has", "make_duration", "make_key_path", "make_timestamp", "unwrap"]

PROTOBUF_MAJOR_VERSION = int(_protobuf_version.split(".")[0])

_FD = descriptor.FieldDescriptor


class CompilationError(Exception):
    """A field this module cannot give to CEL."""


def _is_repeated(field):
    flag = getattr(field, "is_repeated", None)
    return flag if flag is not None else field.label == _FD.LABEL_REPEATED


def _is_map(field):
    return (_is_repeated(field) and field.message_type is not None
            and field.message_type.GetOptions().map_entry)


def make_key_path(field_name, key):
    """How a map entry is named in a message: ``field["key"]``, ``field[3]``."""
    return "%s[%s]" % (field_name, string_format.format_value(key))


def _keep_source(value, message):
    # the message a value was read from rides along, so a transform echoing the value writes
    # the message back as it was (a timestamp keeps its nanoseconds)
    value.msg = message
    return value


def make_duration(msg):
    """A ``google.protobuf.Duration`` message as a CEL duration (the message rides along, so
    a transform that returns the value unchanged writes the same message back).
    """
    return _keep_source(celtypes.DurationType(seconds=msg.seconds, nanos=msg.nanos), msg)


def make_timestamp(msg):
    """A ``google.protobuf.Timestamp`` message as a CEL timestamp (the message rides along,
    keeping its nanoseconds when a transform returns it unchanged).
    """
    return _keep_source(celtypes.TimestampType(1970, 1, 1) + make_duration(msg), msg)


def unwrap(msg):
    """The value a wrapper message (``google.protobuf.Int32Value``, ...) holds."""
    return _field_to_cel(msg, msg.DESCRIPTOR.fields_by_name["value"])


_WELL_KNOWN = {"google.protobuf.Duration": make_duration,
               "google.protobuf.Timestamp": make_timestamp}
_WRAPPER_TYPES = frozenset("google.protobuf.%sValue" % kind for kind in (
    "String", "Bytes", "Int32", "Int64", "UInt32", "UInt64", "Float", "Double", "Bool"))

_SCALARS = {
    _FD.TYPE_ENUM: celtypes.IntType, _FD.TYPE_BOOL: celtypes.BoolType,
    _FD.TYPE_BYTES: celtypes.BytesType, _FD.TYPE_STRING: celtypes.StringType,
    _FD.TYPE_FLOAT: celtypes.DoubleType, _FD.TYPE_DOUBLE: celtypes.DoubleType,
    **dict.fromkeys((_FD.TYPE_INT32, _FD.TYPE_INT64, _FD.TYPE_SINT32, _FD.TYPE_SINT64,
                     _FD.TYPE_SFIXED32, _FD.TYPE_SFIXED64), celtypes.IntType),
    **dict.fromkeys((_FD.TYPE_UINT32, _FD.TYPE_UINT64, _FD.TYPE_FIXED32, _FD.TYPE_FIXED64),
                    celtypes.UintType),
}


class MessageType(celtypes.MapType):
    """A message's fields as a CEL map; ``msg`` is the message and ``desc`` its type."""

    def __init__(self, msg):
        super().__init__()
        self.msg = msg
        self.desc = msg.DESCRIPTOR
        for field in self.desc.fields:
            if field.containing_oneof is None or msg.HasField(field.name):
                self[field.name] = _field_to_cel(msg, field)

    def __getitem__(self, name):
        field = self.desc.fields_by_name[name]
        if not _is_set(self.msg, field):
            if in_has():
                raise KeyError(name)
            if field.has_presence:
                return _zero_value(field)
        return super().__getitem__(name)


def _msg_to_cel(msg):
    """A message as CEL sees it (a well-known type as its value)."""
    name = msg.DESCRIPTOR.full_name
    if name in _WELL_KNOWN:
        return _WELL_KNOWN[name](msg)
    if name in _WRAPPER_TYPES:
        return unwrap(msg)
    return MessageType(msg)


def _value(msg, field):
    return msg.Extensions[field] if field.is_extension else getattr(msg, field.name)


def _has(msg, field):
    return msg.HasExtension(field) if field.is_extension else msg.HasField(field.name)


def _is_set(msg, field):
    if _is_repeated(field):
        return len(_value(msg, field)) > 0
    if field.has_presence:
        return _has(msg, field)
    return _value(msg, field) != field.default_value


def _scalar_field_value_to_cel(value, field):
    if field.type in (_FD.TYPE_MESSAGE, _FD.TYPE_GROUP):
        return _msg_to_cel(value)
    convert = _SCALARS.get(field.type)
    if convert is None:
        raise CompilationError("unknown field type")
    return convert(value)


def _field_value_to_cel(value, field):
    """A field's value (a list for a repeated field, a map for a map) as CEL values."""
    if _is_map(field):
        key_field, value_field = field.message_type.fields[:2]
        out = celtypes.MapType()
        for key, item in value.items():
            out[_field_value_to_cel(key, key_field)] = _field_value_to_cel(item, value_field)
        return out
    if _is_repeated(field):
        return celtypes.ListType(_scalar_field_value_to_cel(item, field) for item in value)
    return _scalar_field_value_to_cel(value, field)


def _field_to_cel(msg, field):
    if not _is_repeated(field) and field.message_type is not None and not _has(msg, field):
        return None
    return _field_value_to_cel(_value(msg, field), field)


def _zero_value(field):
    """What an unset field with presence reads as: its default (null for a wrapper)."""
    if field.message_type is not None and not _is_repeated(field):
        if field.message_type.full_name in _WRAPPER_TYPES:
            return None
        empty = message_factory.GetMessageClass(field.message_type)()
        return _field_value_to_cel(empty, field)
    return _field_value_to_cel(field.default_value, field)


def check_field_type(field, expected, wrapper_name=None):
    """Raise :class:`CompilationError` unless ``field`` is of type ``expected`` (or the
    wrapper message ``wrapper_name``)."""
    if field.type == expected:
        return
    if field.type == _FD.TYPE_MESSAGE and field.message_type.full_name == wrapper_name:
        return
    raise CompilationError("field %s has type %s but expected %s"
                           % (field.name, field.type, expected))
