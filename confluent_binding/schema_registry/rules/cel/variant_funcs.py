"""Variants in CEL rules: ``variant(...)`` and the ``variants.*`` functions.

``variant(x)`` takes a variant, a ``confluent.type.Variant`` message (or the Protobuf field
holding one) or an Avro variant record (``{"metadata": ..., "value": ...}``), and CEL null as
null; ``variant(value, metadata)`` builds one from its two buffers. ``variants.parseJson(s)``
(strict) and ``variants.tryParseJson(s)`` (null when ``s`` is not JSON) build one from text.

Navigation answers CEL null for what is absent (a missing field, an index out of bounds, a
step into the wrong kind of value) and a variant of type null for a JSON null that is there:
``variants.field(v, key)``, ``variants.index(v, i)``, ``variants.path(v, "$.a[0]")``,
``variants.type(v)`` (``object``, ``array``, ``null``, ``boolean``, ``int``, ``double``,
``decimal``, ``date``, ``time``, ``timestamp``, ``string``, ``bytes``, ``uuid``),
``variants.isNull(v)``, ``variants.toJson(v)``, and the typed reads ``variants.as(v, type)``
(an error on a mismatch) and ``variants.tryAs(v, type)`` (null on a mismatch).
"""

import datetime

import celpy
from celpy import celtypes

from ...confluent.type import variant_utils
from ...confluent.type.variant_utils import Variant, VariantType
from . import variant_path

__all__ = ["VARIANT_FUNCS", "Variant", "VariantType"]

_VARIANT_MESSAGE = "confluent.type.Variant"
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
# a CEL timestamp's range, in epoch seconds (0001-01-01 to 9999-12-31)
_FIRST_SECOND, _LAST_SECOND = -62135596800, 253402300799

_INTS = (VariantType.BYTE, VariantType.SHORT, VariantType.INT, VariantType.LONG)
_DECIMALS = (VariantType.DECIMAL4, VariantType.DECIMAL8, VariantType.DECIMAL16)
_MICRO_TIMESTAMPS = (VariantType.TIMESTAMP_TZ, VariantType.TIMESTAMP_NTZ)
_TIMESTAMPS = _MICRO_TIMESTAMPS + (VariantType.TIMESTAMP_NANOS_TZ,
                                   VariantType.TIMESTAMP_NANOS_NTZ)
_LABELS = {VariantType.OBJECT: "object", VariantType.ARRAY: "array", VariantType.NULL: "null",
           VariantType.BOOLEAN: "boolean", VariantType.FLOAT: "double",
           VariantType.DOUBLE: "double", VariantType.DATE: "date", VariantType.TIME: "time",
           VariantType.STRING: "string", VariantType.BINARY: "bytes", VariantType.UUID: "uuid",
           **dict.fromkeys(_INTS, "int"), **dict.fromkeys(_DECIMALS, "decimal"),
           **dict.fromkeys(_TIMESTAMPS, "timestamp")}
_NOT_EXTRACTABLE = frozenset(("object", "array", "null", "date", "time", "uuid"))


def _fail(message):
    raise celpy.CELEvalError(message)


def _buffer(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    _fail("variant: expected bytes, got %s" % type(value).__name__)


def _built(value, metadata):
    """The variant of two buffers; None when there is no metadata (an unset field)."""
    metadata = _buffer(metadata)
    value = _buffer(value)
    return Variant(value, metadata) if metadata else None


def _variant_message(value):
    for candidate in (value, getattr(value, "msg", None)):
        if getattr(getattr(candidate, "DESCRIPTOR", None), "full_name", "") == _VARIANT_MESSAGE:
            return candidate
    return None


def _coerce(v):
    if v is None or isinstance(v, Variant):
        return v
    message = _variant_message(v)
    if message is not None:
        return _built(message.value, message.metadata)
    if isinstance(v, dict):
        metadata, value = v.get("metadata"), v.get("value")
        if metadata is not None and value is not None:
            return _built(value, metadata)
        if metadata is not None or value is not None:
            _fail("variant: cannot convert map to Variant: missing '%s' entry"
                  % ("value" if value is None else "metadata"))
    if isinstance(v, str):
        _fail("variant: cannot convert string to Variant; use variants.parseJson(s) for strict "
              "JSON parsing or variants.tryParseJson(s) for soft mode")
    _fail("variant: cannot convert %s to Variant" % type(v).__name__)


def variant(*args):
    """CEL ``variant(x)`` and ``variant(value, metadata)``."""
    if len(args) == 2:
        metadata = _buffer(args[1])
        if not metadata:
            _fail("variant(value, metadata): metadata is empty, so there is no variant to read")
        return Variant(_buffer(args[0]), metadata)
    if len(args) != 1:
        _fail("variant: expected 1 or 2 args, got %d" % len(args))
    return _coerce(args[0])


def _operand(v, fn):
    """A ``variants.*`` receiver: a variant or None, else an error naming ``fn``."""
    try:
        return _coerce(v)
    except celpy.CELEvalError as e:
        raise celpy.CELEvalError("%s: expected Variant, got %s" % (fn, type(v).__name__)) from e


def _string_arg(value, fn, what):
    if not isinstance(value, str):
        _fail("%s: expected %s, got %s" % (fn, what, type(value).__name__))
    return str(value)


def _parse_json(s):
    if not isinstance(s, str):
        _fail("variants.parseJson: expected a string")
    try:
        return variant_utils.parse_json(str(s))
    except ValueError as e:
        raise celpy.CELEvalError("variants.parseJson: %s" % e) from e


def _try_parse_json(s):
    if not isinstance(s, str):
        _fail("variants.tryParseJson: expected a string")
    try:
        return variant_utils.parse_json(str(s))
    except Exception:  # noqa: BLE001 - any text that is not JSON reads as null
        return None


def _type(v):
    v = _operand(v, "variants.type")
    return None if v is None else celtypes.StringType(_LABELS[v.get_type()])


def _is_null(v):
    try:
        v = _coerce(v)
    except celpy.CELEvalError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(v is not None and v.get_type() == VariantType.NULL)


def _path(v, path):
    path = _string_arg(path, "variants.path", "a string path")
    v = _operand(v, "variants.path")
    if v is None:
        return None
    try:
        return variant_path.walk(v, path)
    except ValueError as e:
        raise celpy.CELEvalError("variants.path: %s" % e) from e


def _field(v, key):
    key = _string_arg(key, "variants.field", "a string key")
    v = _operand(v, "variants.field")
    if v is None or v.get_type() != VariantType.OBJECT:
        return None
    return v.get_field_by_key(key)


def _index(v, index):
    if (isinstance(index, (bool, celtypes.BoolType, celtypes.UintType))
            or not isinstance(index, int)):
        _fail("variants.index: expected an int index, got %s" % type(index).__name__)
    v = _operand(v, "variants.index")
    if v is None or v.get_type() != VariantType.ARRAY or not 0 <= index <= 2 ** 31 - 1:
        return None
    return v.get_element_at_index(int(index))


def _timestamp(v):
    """A timestamp variant as a CEL timestamp (nanos floored to micros), None past 9999."""
    micros = v.get_long()
    if v.get_type() not in _MICRO_TIMESTAMPS:
        micros //= 1000
    if not _FIRST_SECOND <= micros // 1_000_000 <= _LAST_SECOND:
        return None
    return celtypes.TimestampType(_EPOCH + datetime.timedelta(microseconds=micros))


def _extract(v, kind):
    """``v``'s value as CEL's ``kind``, or None when ``v`` is of another type."""
    t = v.get_type()
    if kind == "string" and t == VariantType.STRING:
        return celtypes.StringType(v.get_string())
    if kind == "int" and t in _INTS:
        return celtypes.IntType(v.get_long())
    if kind == "double" and t == VariantType.FLOAT:
        return celtypes.DoubleType(float(v.get_float()))
    if kind == "double" and t == VariantType.DOUBLE:
        return celtypes.DoubleType(v.get_double())
    if kind == "boolean" and t == VariantType.BOOLEAN:
        return celtypes.BoolType(v.get_boolean())
    if kind == "decimal" and t in _DECIMALS:
        return v.get_decimal()
    if kind == "bytes" and t == VariantType.BINARY:
        return celtypes.BytesType(v.get_binary())
    return None


def _read_as(v, kind, soft):
    fn = "variants.tryAs" if soft else "variants.as"
    kind = _string_arg(kind, fn, "a string type name")
    v = _operand(v, fn)
    if v is None:
        return None
    if kind in _NOT_EXTRACTABLE:
        _fail("variants.as: type '%s' is not supported for extraction (use variants.type/"
              "variants.path/variants.field/variants.index instead)" % kind)
    if kind == "timestamp" and v.get_type() in _TIMESTAMPS:
        value = _timestamp(v)
        if value is None and not soft:
            _fail("variants.as: timestamp %d is outside "
                  "0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z" % v.get_long())
        return value
    if kind not in ("string", "int", "double", "boolean", "decimal", "timestamp", "bytes"):
        if soft:
            return None
        _fail("variants.as: unknown type '%s' (expected one of: string, int, double, boolean, "
              "decimal, timestamp, bytes)" % kind)
    value = _extract(v, kind)
    if value is None and not soft:
        _fail("variants.as: variant is not %s-typed (type=%s)" % (kind, v.get_type().value))
    return value


def _to_json(v):
    v = _operand(v, "variants.toJson")
    return None if v is None else celtypes.StringType(v.to_json())


VARIANT_FUNCS = {
    "variant": variant,
    "variants.parseJson": _parse_json,
    "variants.tryParseJson": _try_parse_json,
    "variants.type": _type,
    "variants.isNull": _is_null,
    "variants.path": _path,
    "variants.field": _field,
    "variants.index": _index,
    "variants.as": lambda v, kind: _read_as(v, kind, False),
    "variants.tryAs": lambda v, kind: _read_as(v, kind, True),
    "variants.toJson": _to_json,
}
