"""A ``CEL`` transform's result written back into a Protobuf message.

The map a message-level rule returns *is* the new message, built fresh: a field the map does
not name is left unset, a null clears its field, and a key is a field's ``.proto`` name or its
JSON name (unknown keys are ignored). Decimals, timestamps, durations, variants and wrapper
values go back into their messages (``confluent.type.Decimal``, ``google.protobuf.Timestamp``,
...), and a value read from the message and returned unchanged is copied back exactly. A
value that does not fit its field (a string for an int, 1.5 for an int32, a number out of
range, null inside a list) is a :class:`ValueError` naming the field, never a silent
conversion.
"""

import datetime
import decimal
import math
from collections.abc import Mapping

from celpy import celtypes
from google.protobuf import descriptor, message

from ...confluent.type.decimal_utils import unscaled_to_bytes
from ...confluent.type.variant_utils import Variant
from .constraints import _WRAPPER_TYPES, _is_map, _is_repeated

__all__ = ["convert"]

_FD = descriptor.FieldDescriptor
_DECIMAL = "confluent.type.Decimal"
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
# the widest coefficient the int <-> str conversion of an unscaled value allows
_COEFFICIENT_DIGITS = 4300
_FLOAT32_MAX = 3.4028234663852886e38 * (1 + 1e-6)
_INT_RANGES = {
    **dict.fromkeys((_FD.TYPE_INT32, _FD.TYPE_SINT32, _FD.TYPE_SFIXED32, _FD.TYPE_ENUM),
                    (-2 ** 31, 2 ** 31 - 1)),
    **dict.fromkeys((_FD.TYPE_UINT32, _FD.TYPE_FIXED32), (0, 2 ** 32 - 1)),
    **dict.fromkeys((_FD.TYPE_INT64, _FD.TYPE_SINT64, _FD.TYPE_SFIXED64),
                    (-2 ** 63, 2 ** 63 - 1)),
    **dict.fromkeys((_FD.TYPE_UINT64, _FD.TYPE_FIXED64), (0, 2 ** 64 - 1)),
}


def convert(result, msg):
    """A new message of ``msg``'s class built from the map ``result`` (anything else is
    returned as it is)."""
    if not isinstance(result, Mapping) or not isinstance(msg, message.Message):
        return result
    out = type(msg)()
    _fill(out, result)
    return out


def _null(value):
    return value is None or isinstance(value, celtypes.NullType)


def _fill(out, values):
    desc = out.DESCRIPTOR
    named = {}   # field number -> the key that set it
    oneofs = {}  # oneof -> the member set
    for key, value in values.items():
        key = str(key)
        field = desc.fields_by_name.get(key) or desc.fields_by_camelcase_name.get(key)
        if field is None:
            continue
        if field.number in named:
            first, second = sorted((named[field.number], key))
            raise ValueError("result names field '%s' twice, as '%s' and '%s'"
                             % (field.full_name, first, second))
        if _null(value):
            out.ClearField(field.name)
            continue
        named[field.number] = key
        oneof = field.containing_oneof
        if oneof is not None:
            other = oneofs.setdefault(oneof.full_name, field.name)
            if other != field.name:
                first, second = sorted((other, field.name))
                raise ValueError("result sets more than one member of oneof '%s': '%s' and "
                                 "'%s'" % (oneof.full_name, first, second))
        _set(out, field, value)


def _set(out, field, value):
    if _is_map(field):
        _set_map(getattr(out, field.name), field, value)
    elif _is_repeated(field):
        _set_list(getattr(out, field.name), field, value)
    elif field.type == _FD.TYPE_MESSAGE:
        _set_message(getattr(out, field.name), field, value)
    else:
        setattr(out, field.name, _scalar(field, value))


def _set_map(target, field, value):
    if not isinstance(value, Mapping):
        raise ValueError("cannot write %s to map field '%s'" % (type(value).__name__, field.name))
    value_field = field.message_type.fields_by_name["value"]
    for key, item in value.items():
        if _null(item):
            raise ValueError("cannot write a null value to map field '%s'" % field.name)
        if value_field.type == _FD.TYPE_MESSAGE:
            _set_message(target[key], value_field, item)
        else:
            target[key] = _scalar(value_field, item)


def _set_list(target, field, value):
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise ValueError("cannot write %s to repeated field '%s'"
                         % (type(value).__name__, field.name))
    del target[:]
    for item in value:
        if _null(item):
            raise ValueError("cannot write null to repeated field '%s'" % field.name)
        if field.type == _FD.TYPE_MESSAGE:
            _set_message(target.add(), field, item)
        else:
            target.append(_scalar(field, item))


def _set_message(target, field, value):
    type_name = field.message_type.full_name
    source = getattr(value, "msg", value)  # a value read from a message keeps it
    if isinstance(source, message.Message):
        target.CopyFrom(source)
    elif type_name == _DECIMAL and isinstance(value, decimal.Decimal):
        _set_decimal(target, value)
    elif type_name == "google.protobuf.Timestamp" and isinstance(value, datetime.datetime):
        moment = value if value.tzinfo is not None else value.replace(
            tzinfo=datetime.timezone.utc)
        delta = moment - _EPOCH
        target.seconds = delta.days * 86400 + delta.seconds
        target.nanos = delta.microseconds * 1000
    elif type_name == "confluent.type.Variant" and isinstance(value, Variant):
        target.metadata = bytes(value.metadata)
        target.value = bytes(value.standalone_value_bytes())
    elif type_name in _WRAPPER_TYPES:
        target.value = _scalar(target.DESCRIPTOR.fields_by_name["value"], value)
    elif type_name == "google.protobuf.Duration" and isinstance(value, datetime.timedelta):
        micros = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
        sign = -1 if micros < 0 else 1
        target.seconds = sign * (abs(micros) // 1_000_000)
        target.nanos = sign * (abs(micros) % 1_000_000) * 1000
    elif isinstance(value, Mapping):
        _fill(target, value)
    else:
        raise ValueError("cannot write %s to %s (field '%s')"
                         % (type(value).__name__, type_name, field.name))


def _set_decimal(target, value):
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise ValueError("cannot write a non-finite decimal to " + _DECIMAL)
    if not -2 ** 31 <= -exponent <= 2 ** 31 - 1:
        raise ValueError("decimal needs a scale of %d, which does not fit the int32 scale "
                         "field of %s" % (-exponent, _DECIMAL))
    if len(digits) > _COEFFICIENT_DIGITS:
        raise ValueError("decimal coefficient has %d digits, past the %d this client can "
                         "encode into %s" % (len(digits), _COEFFICIENT_DIGITS, _DECIMAL))
    unscaled = int("".join(map(str, digits)) or "0")
    target.value = unscaled_to_bytes(-unscaled if sign else unscaled)
    target.precision = len(digits)
    target.scale = -exponent


def _is_bool(value):
    return isinstance(value, (bool, celtypes.BoolType))


def _scalar(field, value):
    """``value`` as the field's own kind of value; no coercion from another kind."""
    kind = field.type
    if kind == _FD.TYPE_BYTES:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise ValueError("cannot write %s to bytes field '%s'"
                             % (type(value).__name__, field.name))
        return bytes(value)
    if kind == _FD.TYPE_STRING:
        if not isinstance(value, str):
            raise ValueError("cannot write %s to string field '%s'"
                             % (type(value).__name__, field.name))
        return str(value)
    if kind == _FD.TYPE_BOOL:
        if not _is_bool(value):
            raise ValueError("cannot write %s to bool field '%s'"
                             % (type(value).__name__, field.name))
        return bool(value)
    if kind in (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE):
        return _floating(field, value)
    return _integral(field, value)


def _floating(field, value):
    if _is_bool(value):
        raise ValueError("cannot write bool to float field '%s'" % field.name)
    if not isinstance(value, (int, float, decimal.Decimal)):
        raise ValueError("cannot write %s to float field '%s'"
                         % (type(value).__name__, field.name))
    finite = value.is_finite() if isinstance(value, decimal.Decimal) else (
        not isinstance(value, float) or math.isfinite(value))
    try:
        number = float(value)
    except OverflowError as e:
        raise ValueError("out of range value for float field '%s': %s"
                         % (field.name, value)) from e
    if not finite:
        return number  # an infinity or NaN asked for as such
    if not math.isfinite(number):
        raise ValueError("out of range value for float field '%s': %s" % (field.name, value))
    if field.type == _FD.TYPE_FLOAT and abs(number) > _FLOAT32_MAX:
        raise ValueError("out of range float value for field '%s': %s" % (field.name, number))
    return number


def _integral(field, value):
    if _is_bool(value):
        raise ValueError("cannot write bool to integer field '%s'" % field.name)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError("cannot write non-finite %s to integer field '%s'"
                             % (value, field.name))
        if value.adjusted() > 19:
            raise ValueError("value %s is out of range for field '%s'" % (value, field.name))
        if value != value.to_integral_value():
            raise ValueError("cannot write non-integral %s to integer field '%s'"
                             % (value, field.name))
        number = int(value)
    elif isinstance(value, float):
        if not value.is_integer():
            raise ValueError("cannot write non-integral %r to integer field '%s'"
                             % (value, field.name))
        number = int(value)
    elif isinstance(value, int):
        number = int(value)
    else:
        return value  # an enum's symbol name, or a wrong type protobuf itself refuses
    low, high = _INT_RANGES.get(field.type, (number, number))
    if not low <= number <= high:
        raise ValueError("value %d is out of range for field '%s'" % (number, field.name))
    return number
