"""The Variant format (see :mod:`.variant_utils`): its constants, the kinds of value, and a
value read in place (:class:`Variant`) with its JSON text."""

import base64
import datetime
import decimal
import json
import math
import struct
import uuid as uuid_mod
from enum import Enum

__all__ = [
    "ARRAY", "BASIC_TYPE_BITS", "BASIC_TYPE_MASK", "BINARY", "DATE", "DECIMAL16", "DECIMAL4",
    "DECIMAL8", "DOUBLE", "FALSE", "FLOAT", "I16_MAX", "I16_MIN", "I32_MAX", "I32_MIN",
    "I64_MAX", "I64_MIN", "I8_MAX", "I8_MIN", "INT1", "INT2", "INT4", "INT8", "LONG_STR",
    "MAX_DECIMAL16_PRECISION", "MAX_DECIMAL16_VALUE", "MAX_DECIMAL4_PRECISION",
    "MAX_DECIMAL4_VALUE", "MAX_DECIMAL8_PRECISION", "MAX_DECIMAL8_VALUE", "MAX_SHORT_STR_SIZE",
    "NULL", "OBJECT", "PRIMITIVE", "SHORT_STR", "TIME", "TIMESTAMP", "TIMESTAMP_NANOS",
    "TIMESTAMP_NANOS_NTZ", "TIMESTAMP_NTZ", "TRUE", "TYPE_INFO_MASK", "U16_MAX", "U24_MAX",
    "U24_SIZE", "U32_SIZE", "U8_MAX", "UUID", "UUID_SIZE", "VERSION", "VERSION_MASK", "Variant",
    "VariantError", "VariantType", "from_bytes", "to_json_string",
]

# the value header
BASIC_TYPE_BITS = 2
BASIC_TYPE_MASK = 0x3
TYPE_INFO_MASK = 0x3F
MAX_SHORT_STR_SIZE = 0x3F
# basic types
PRIMITIVE, SHORT_STR, OBJECT, ARRAY = 0, 1, 2, 3
# primitive types
NULL, TRUE, FALSE, INT1, INT2, INT4, INT8, DOUBLE = 0, 1, 2, 3, 4, 5, 6, 7
DECIMAL4, DECIMAL8, DECIMAL16, DATE, TIMESTAMP, TIMESTAMP_NTZ, FLOAT = 8, 9, 10, 11, 12, 13, 14
BINARY, LONG_STR, TIME, TIMESTAMP_NANOS, TIMESTAMP_NANOS_NTZ, UUID = 15, 16, 17, 18, 19, 20
# the metadata header
VERSION = 1
VERSION_MASK = 0x0F
# sizes and ranges
U8_MAX, U16_MAX, U24_MAX = 0xFF, 0xFFFF, 0xFFFFFF
U24_SIZE, U32_SIZE, UUID_SIZE = 3, 4, 16
I8_MIN, I8_MAX = -(1 << 7), (1 << 7) - 1
I16_MIN, I16_MAX = -(1 << 15), (1 << 15) - 1
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
MAX_DECIMAL4_PRECISION, MAX_DECIMAL8_PRECISION, MAX_DECIMAL16_PRECISION = 9, 18, 38
MAX_DECIMAL4_VALUE = 10 ** MAX_DECIMAL4_PRECISION
MAX_DECIMAL8_VALUE = 10 ** MAX_DECIMAL8_PRECISION
MAX_DECIMAL16_VALUE = 10 ** MAX_DECIMAL16_PRECISION

_EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
_EPOCH_DAY = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1)
# what RFC 3339 can write: years 0001-9999, times of day before 24:00
_DAYS = (-719162, 2932896)
_TIME_MICROS = (0, 86_400_000_000 - 1)
_NANOS = 1_000_000_000


class VariantError(ValueError):
    """A variant that is malformed, or a value the format cannot hold."""


class VariantType(Enum):
    """What a variant value is (integer, decimal and timestamp widths kept apart)."""

    OBJECT = "OBJECT"
    ARRAY = "ARRAY"
    NULL = "NULL"
    BOOLEAN = "BOOLEAN"
    BYTE = "BYTE"
    SHORT = "SHORT"
    INT = "INT"
    LONG = "LONG"
    STRING = "STRING"
    DOUBLE = "DOUBLE"
    DECIMAL4 = "DECIMAL4"
    DECIMAL8 = "DECIMAL8"
    DECIMAL16 = "DECIMAL16"
    DATE = "DATE"
    TIMESTAMP_TZ = "TIMESTAMP_TZ"
    TIMESTAMP_NTZ = "TIMESTAMP_NTZ"
    FLOAT = "FLOAT"
    BINARY = "BINARY"
    TIME = "TIME"
    TIMESTAMP_NANOS_TZ = "TIMESTAMP_NANOS_TZ"
    TIMESTAMP_NANOS_NTZ = "TIMESTAMP_NANOS_NTZ"
    UUID = "UUID"


_PRIMITIVE_TYPES = {
    NULL: VariantType.NULL, TRUE: VariantType.BOOLEAN, FALSE: VariantType.BOOLEAN,
    INT1: VariantType.BYTE, INT2: VariantType.SHORT, INT4: VariantType.INT,
    INT8: VariantType.LONG, DOUBLE: VariantType.DOUBLE, DECIMAL4: VariantType.DECIMAL4,
    DECIMAL8: VariantType.DECIMAL8, DECIMAL16: VariantType.DECIMAL16, DATE: VariantType.DATE,
    TIMESTAMP: VariantType.TIMESTAMP_TZ, TIMESTAMP_NTZ: VariantType.TIMESTAMP_NTZ,
    FLOAT: VariantType.FLOAT, BINARY: VariantType.BINARY, LONG_STR: VariantType.STRING,
    TIME: VariantType.TIME, TIMESTAMP_NANOS: VariantType.TIMESTAMP_NANOS_TZ,
    TIMESTAMP_NANOS_NTZ: VariantType.TIMESTAMP_NANOS_NTZ, UUID: VariantType.UUID,
}
# the integer-backed primitives and their widths
_INT_WIDTHS = {INT1: 1, INT2: 2, INT4: 4, DATE: 4, INT8: 8, TIMESTAMP: 8, TIMESTAMP_NTZ: 8,
               TIME: 8, TIMESTAMP_NANOS: 8, TIMESTAMP_NANOS_NTZ: 8}
# widest integer each getter widens from
_GETTER_WIDTHS = {"byte": (INT1,), "short": (INT1, INT2), "int": (INT1, INT2, INT4)}
_DECIMALS = {DECIMAL4: (4, MAX_DECIMAL4_VALUE, MAX_DECIMAL4_PRECISION),
             DECIMAL8: (8, MAX_DECIMAL8_VALUE, MAX_DECIMAL8_PRECISION),
             DECIMAL16: (16, MAX_DECIMAL16_VALUE, MAX_DECIMAL16_PRECISION)}


def _malformed(what="index out of bounds"):
    return VariantError("malformed variant: " + what)


def _uint(buf, pos, width, signed=False):
    """The little-endian integer of ``width`` bytes at ``pos``."""
    if pos < 0 or pos + width > len(buf) or width <= 0:
        raise _malformed()
    return int.from_bytes(buf[pos:pos + width], "little", signed=signed)


def _width(n):
    """Bytes an unsigned offset or id up to ``n`` takes: 1, 2, 3 or 4."""
    return 1 if n <= U8_MAX else 2 if n <= U16_MAX else U24_SIZE if n <= U24_MAX else U32_SIZE


def _metadata_key(metadata, key_id):
    width = ((metadata[0] >> 6) & 0x3) + 1
    count = _uint(metadata, 1, width)
    if key_id >= count:
        raise _malformed("field id out of range")
    start, end = (_uint(metadata, 1 + (key_id + i) * width, width) for i in (1, 2))
    if start > end:
        raise _malformed("non-monotonic metadata offsets")
    strings = 1 + (count + 2) * width
    if strings + end > len(metadata):
        raise _malformed()
    return metadata[strings + start:strings + end].decode("utf-8")


def _fraction(nanos):
    """'.mmm', '.uuuuuu' or '.nnnnnnnnn' (the fewest of those groups), '' for none."""
    if not nanos:
        return ""
    for digits, unit in ((3, 1_000_000), (6, 1_000)):
        if nanos % unit == 0:
            return ".%0*d" % (digits, nanos // unit)
    return ".%09d" % nanos


def _datetime_text(nanos, zone):
    seconds, rest = divmod(nanos, _NANOS)
    t = _EPOCH + datetime.timedelta(seconds=seconds)
    return "%04d-%02d-%02dT%02d:%02d:%02d%s%s" % (
        t.year, t.month, t.day, t.hour, t.minute, t.second, _fraction(rest), zone)


def _time_text(micros):
    if not _TIME_MICROS[0] <= micros <= _TIME_MICROS[1]:
        raise VariantError("time microseconds of day (%d) must be in range [%d, %d]"
                           % ((micros,) + _TIME_MICROS))
    seconds, rest = divmod(micros * 1000, _NANOS)
    return "%02d:%02d:%02d%s" % (seconds // 3600, seconds // 60 % 60, seconds % 60,
                                 _fraction(rest))


def _date_text(days):
    if not _DAYS[0] <= days <= _DAYS[1]:
        raise VariantError("date epoch day (%d) must be in range [%d, %d]" % ((days,) + _DAYS))
    return (_EPOCH_DAY + datetime.timedelta(days=days)).isoformat()


def _special(x):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    negative_zero = x == 0 and math.copysign(1.0, x) < 0
    if x == int(x) and abs(x) < 1e16 and not negative_zero:
        return "%d.0" % int(x)
    return None


def _double_text(d):
    """Java's rendering where it matters: NaN/Infinity barewords, integral values as N.0
    (-0.0 keeps its sign), else the shortest round-tripping form."""
    return _special(d) or repr(d)


def _float_text(f):
    """As :func:`_double_text`, with the shortest digits that read back as the same 32-bit
    float."""
    text = _special(f)
    if text is not None:
        return text
    for digits in range(1, 10):
        candidate = float("%.*g" % (digits, f))
        try:
            if struct.unpack("<f", struct.pack("<f", candidate))[0] == f:
                return repr(candidate)
        except OverflowError:
            continue
    return repr(f)


class Variant:
    """A read-only view of the variant value at ``pos`` of ``value`` with its ``metadata``;
    what :meth:`get_field_by_key` and :meth:`get_element_at_index` answer shares the buffers.
    Two variants are equal when their metadata and their value bytes from ``pos`` are."""

    _BINARY_SEARCH_THRESHOLD = 32

    def __init__(self, value, metadata, pos=0):
        self.value = bytes(value)
        self.metadata = bytes(metadata)
        self.pos = pos
        if not self.metadata:
            raise _malformed()
        version = self.metadata[0] & VERSION_MASK
        if version != VERSION:
            raise VariantError("unsupported variant metadata version: %d" % version)

    def standalone_value_bytes(self):
        """The value bytes from this value's start (to the buffer's end: the encoding is
        self-delimiting)."""
        return self.value[self.pos:] if self.pos else self.value

    def __eq__(self, other):
        if not isinstance(other, Variant):
            return NotImplemented
        return (self.metadata == other.metadata
                and self.standalone_value_bytes() == other.standalone_value_bytes())

    def __hash__(self):
        return hash((self.metadata, self.standalone_value_bytes()))

    def _header(self):
        if not 0 <= self.pos < len(self.value):
            raise _malformed()
        byte = self.value[self.pos]
        return byte & BASIC_TYPE_MASK, (byte >> BASIC_TYPE_BITS) & TYPE_INFO_MASK

    def get_type(self):
        """What this value is.

        Returns:
            VariantType: ``STRING`` for short and long strings, ``OBJECT``, ``ARRAY``, or the
            primitive's type (``BYTE``, ``SHORT``, ``INT``, ``LONG`` by width, ``DECIMAL4``,
            ``TIMESTAMP_TZ``, ``TIMESTAMP_NANOS_NTZ``, ...).

        Raises:
            VariantError: the header is malformed or names an unknown primitive type.
        """
        basic, info = self._header()
        if basic == SHORT_STR:
            return VariantType.STRING
        if basic == OBJECT:
            return VariantType.OBJECT
        if basic == ARRAY:
            return VariantType.ARRAY
        try:
            return _PRIMITIVE_TYPES[info]
        except KeyError:
            raise VariantError("unknown variant primitive type: %d" % info) from None

    def _primitive(self):
        basic, info = self._header()
        if basic != PRIMITIVE:
            raise VariantError("expected a primitive variant value")
        return info

    def _integer(self, allowed, what):
        info = self._primitive()
        if info not in allowed:
            raise VariantError("variant is not %s" % what)
        return _uint(self.value, self.pos + 1, _INT_WIDTHS[info], signed=True)

    def get_boolean(self):
        """The boolean value.

        Raises:
            VariantError: the value is not a boolean.
        """
        info = self._primitive()
        if info not in (TRUE, FALSE):
            raise VariantError("variant is not a boolean")
        return info == TRUE

    def get_byte(self):
        """The integer of a 1-byte integer value (``BYTE``).

        Raises:
            VariantError: the value is not a 1-byte integer.
        """
        return self._integer(_GETTER_WIDTHS["byte"], "a byte-width integer")

    def get_short(self):
        """The integer of a 1- or 2-byte integer value (``BYTE``, ``SHORT``).

        Raises:
            VariantError: the value is not an integer that narrow.
        """
        return self._integer(_GETTER_WIDTHS["short"], "a short-width integer")

    def get_int(self):
        """The integer of a 1-, 2- or 4-byte integer value (``BYTE``, ``SHORT``, ``INT``).

        Raises:
            VariantError: the value is not an integer that narrow (a ``LONG`` needs
                :meth:`get_long`).
        """
        return self._integer(_GETTER_WIDTHS["int"], "an int-width integer")

    def get_long(self):
        """The integer of any integer-backed value (integers, dates as days, times and
        timestamps as micro- or nanoseconds)."""
        return self._integer(_INT_WIDTHS, "an integer-backed type")

    def _packed(self, expected, fmt, size, what):
        if self._primitive() != expected:
            raise VariantError("variant is not " + what)
        if self.pos + size >= len(self.value):
            raise _malformed()
        return struct.unpack(fmt, self.value[self.pos + 1:self.pos + 1 + size])[0]

    def get_float(self):
        """The value of a 4-byte ``FLOAT`` (as a Python float).

        Raises:
            VariantError: the value is not a float (a ``DOUBLE`` needs :meth:`get_double`), or is
                truncated.
        """
        return self._packed(FLOAT, "<f", 4, "a float")

    def get_double(self):
        """The value of an 8-byte ``DOUBLE``.

        Raises:
            VariantError: the value is not a double, or is truncated.
        """
        return self._packed(DOUBLE, "<d", 8, "a double")

    def get_decimal(self):
        """The value of a ``DECIMAL4``, ``DECIMAL8`` or ``DECIMAL16``, exactly.

        Returns:
            decimal.Decimal: the unscaled integer scaled by the stored scale (``12.30`` keeps its
            trailing zero).

        Raises:
            VariantError: the value is not a decimal, or its digits or scale exceed its width's
                precision (9, 18, 38).
        """
        info = self._primitive()
        if info not in _DECIMALS:
            raise VariantError("variant is not a decimal")
        width, bound, max_scale = _DECIMALS[info]
        scale = _uint(self.value, self.pos + 1, 1)
        unscaled = _uint(self.value, self.pos + 2, width, signed=True)
        if not -bound < unscaled < bound or scale > max_scale:
            raise _malformed("decimal out of range")
        return decimal.Decimal(unscaled).scaleb(-scale, context=_EXACT)

    def _sized(self, start, length):
        if length and start + length > len(self.value):
            raise _malformed()
        return self.value[start:start + length]

    def get_binary(self):
        """The bytes of a ``BINARY`` value.

        Raises:
            VariantError: the value is not binary, or is truncated.
        """
        if self._primitive() != BINARY:
            raise VariantError("variant is not binary")
        return bytes(self._sized(self.pos + 5, _uint(self.value, self.pos + 1, U32_SIZE)))

    def get_uuid(self):
        """The :class:`uuid.UUID` of a ``UUID`` value.

        Raises:
            VariantError: the value is not a UUID, or is truncated.
        """
        if self._primitive() != UUID:
            raise VariantError("variant is not a uuid")
        if self.pos + UUID_SIZE >= len(self.value):
            raise _malformed()
        return uuid_mod.UUID(bytes=self.value[self.pos + 1:self.pos + 1 + UUID_SIZE])

    def get_string(self):
        """The text of a string value (short or long form), decoded from UTF-8.

        Raises:
            VariantError: the value is not a string, or is truncated.
            UnicodeDecodeError: the bytes are not UTF-8.
        """
        basic, info = self._header()
        if basic == SHORT_STR:
            return self._sized(self.pos + 1, info).decode("utf-8")
        if basic == PRIMITIVE and info == LONG_STR:
            length = _uint(self.value, self.pos + 1, U32_SIZE)
            return self._sized(self.pos + 5, length).decode("utf-8")
        raise VariantError("variant is not a string")

    def _container(self, kind):
        """(count, id width, offset width, ids at, offsets at, values at) of an object or
        array (an array has no ids)."""
        basic, info = self._header()
        if basic != kind:
            raise VariantError("variant is not an %s" % ("object" if kind == OBJECT else "array"))
        large = (info >> (4 if kind == OBJECT else 2)) & 1
        count_width = U32_SIZE if large else 1
        count = _uint(self.value, self.pos + 1, count_width)
        id_width = ((info >> 2) & 0x3) + 1 if kind == OBJECT else 0
        offset_width = (info & 0x3) + 1
        ids = self.pos + 1 + count_width
        offsets = ids + count * id_width
        return count, id_width, offset_width, ids, offsets, offsets + (count + 1) * offset_width

    def num_object_fields(self):
        """The number of fields of an object value.

        Raises:
            VariantError: the value is not an object.
        """
        return self._container(OBJECT)[0]

    def num_array_elements(self):
        """The number of elements of an array value.

        Raises:
            VariantError: the value is not an array.
        """
        return self._container(ARRAY)[0]

    def _field(self, layout, i):
        _, id_width, offset_width, ids, offsets, values = layout
        key_id = _uint(self.value, ids + i * id_width, id_width)
        at = values + _uint(self.value, offsets + i * offset_width, offset_width)
        return key_id, at

    def get_field_at_index(self, idx):
        """(key, value) of the object's field ``idx`` (in key order)."""
        key_id, at = self._field(self._container(OBJECT), idx)
        return _metadata_key(self.metadata, key_id), Variant(self.value, self.metadata, at)

    def get_field_by_key(self, key):
        """The value of the object's field ``key``, or None."""
        layout = self._container(OBJECT)
        count = layout[0]
        if count < self._BINARY_SEARCH_THRESHOLD:
            for i in range(count):
                key_id, at = self._field(layout, i)
                if _metadata_key(self.metadata, key_id) == key:
                    return Variant(self.value, self.metadata, at)
            return None
        low, high = 0, count - 1
        while low <= high:
            middle = (low + high) // 2
            key_id, at = self._field(layout, middle)
            found = _metadata_key(self.metadata, key_id)
            if found == key:
                return Variant(self.value, self.metadata, at)
            if found < key:
                low = middle + 1
            else:
                high = middle - 1
        return None

    def get_element_at_index(self, index):
        """The array's element ``index``, or None when there is none."""
        count, _, offset_width, _, offsets, values = self._container(ARRAY)
        if not 0 <= index < count:
            return None
        at = values + _uint(self.value, offsets + index * offset_width, offset_width)
        return Variant(self.value, self.metadata, at)

    def to_json(self):
        """The value as JSON text, as the Java client writes it: decimals in plain notation,
        dates, times and timestamps as ISO-8601 strings (seconds always written), binary as
        base64, UUIDs in their usual form."""
        kind = self.get_type()
        if kind is VariantType.OBJECT:
            return "{%s}" % ",".join(
                json.dumps(key, ensure_ascii=False) + ":" + child.to_json()
                for key, child in (self.get_field_at_index(i)
                                   for i in range(self.num_object_fields())))
        if kind is VariantType.ARRAY:
            items = []
            for i in range(self.num_array_elements()):
                element = self.get_element_at_index(i)
                if element is None:
                    raise VariantError("array element count exceeds the encoded elements")
                items.append(element.to_json())
            return "[%s]" % ",".join(items)
        return _JSON_TEXT[kind](self)


def _quoted(text):
    return '"' + text + '"'


_JSON_TEXT = {
    VariantType.NULL: lambda v: "null",
    VariantType.BOOLEAN: lambda v: "true" if v.get_boolean() else "false",
    VariantType.STRING: lambda v: json.dumps(v.get_string(), ensure_ascii=False),
    VariantType.BYTE: lambda v: str(v.get_long()),
    VariantType.SHORT: lambda v: str(v.get_long()),
    VariantType.INT: lambda v: str(v.get_long()),
    VariantType.LONG: lambda v: str(v.get_long()),
    VariantType.FLOAT: lambda v: _float_text(v.get_float()),
    VariantType.DOUBLE: lambda v: _double_text(v.get_double()),
    VariantType.DECIMAL4: lambda v: format(v.get_decimal(), "f"),
    VariantType.DECIMAL8: lambda v: format(v.get_decimal(), "f"),
    VariantType.DECIMAL16: lambda v: format(v.get_decimal(), "f"),
    VariantType.DATE: lambda v: _quoted(_date_text(v.get_long())),
    VariantType.TIMESTAMP_TZ: lambda v: _quoted(_datetime_text(v.get_long() * 1000, "Z")),
    VariantType.TIMESTAMP_NTZ: lambda v: _quoted(_datetime_text(v.get_long() * 1000, "")),
    VariantType.TIMESTAMP_NANOS_TZ: lambda v: _quoted(_datetime_text(v.get_long(), "Z")),
    VariantType.TIMESTAMP_NANOS_NTZ: lambda v: _quoted(_datetime_text(v.get_long(), "")),
    VariantType.TIME: lambda v: _quoted(_time_text(v.get_long())),
    VariantType.BINARY: lambda v: _quoted(base64.b64encode(v.get_binary()).decode("ascii")),
    VariantType.UUID: lambda v: _quoted(str(v.get_uuid())),
}


def from_bytes(value, metadata):
    """The :class:`Variant` of the two buffers."""
    return Variant(value, metadata)


def to_json_string(variant):
    """``variant.to_json()``."""
    return variant.to_json()

