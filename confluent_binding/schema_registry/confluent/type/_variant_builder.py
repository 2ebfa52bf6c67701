"""Writing a variant: :class:`VariantBuilder` and :func:`parse_json` (see
:mod:`.variant_utils` for the format)."""

import decimal
import json
import struct
import uuid as uuid_mod

from ._variant import (
    _DECIMALS,
    _INT_WIDTHS,
    ARRAY,
    BASIC_TYPE_BITS,
    BINARY,
    DATE,
    DOUBLE,
    FALSE,
    FLOAT,
    I8_MAX,
    I8_MIN,
    I16_MAX,
    I16_MIN,
    I32_MAX,
    I32_MIN,
    I64_MAX,
    I64_MIN,
    INT1,
    INT2,
    INT4,
    INT8,
    LONG_STR,
    MAX_DECIMAL16_PRECISION,
    MAX_SHORT_STR_SIZE,
    NULL,
    OBJECT,
    PRIMITIVE,
    SHORT_STR,
    TIME,
    TIMESTAMP,
    TIMESTAMP_NANOS,
    TIMESTAMP_NANOS_NTZ,
    TIMESTAMP_NTZ,
    TRUE,
    U8_MAX,
    U32_SIZE,
    UUID,
    UUID_SIZE,
    VERSION,
    Variant,
    VariantError,
    _width,
)

__all__ = ["VariantBuilder", "parse_json"]


def parse_json(json_str):
    """The variant of a JSON text: integers in the narrowest of 1, 2, 4 and 8 bytes (wider ones
    as decimals of scale 0), fractions as doubles, objects with their keys sorted."""
    builder = VariantBuilder()
    builder._append_json(json.loads(json_str))
    return builder.build()


class _Frame:
    """A container being built: where it starts in the value buffer, and for each child
    (key id, key, its start) - an array's children have no key."""

    __slots__ = ("is_object", "start", "children", "key")

    def __init__(self, is_object, start):
        self.is_object = is_object
        self.start = start
        self.children = []
        self.key = None  # (key, id) given by append_key, until its value comes


class VariantBuilder:
    """Writes one variant value: a scalar (``append_*``), or a container opened with
    :meth:`start_object`/:meth:`start_array` and closed with :meth:`end_object`/
    :meth:`end_array`, whose children are appended in between (each object value after its
    :meth:`append_key`). :meth:`build` answers the :class:`Variant`.

    Each ``append_*`` (and ``start_*``) places its value as the root value, as the next element
    of the open array, or as the value of the key :meth:`append_key` gave in the open object.
    Each raises :class:`VariantError` when a root value was already written, when an object's
    value comes without a key, when the builder's ``size_limit`` would be exceeded, or, for
    the integers, dates, times and timestamps, when the value does not fit the type's width
    (1 byte for ``BYTE``, 2 for ``SHORT``, 4 for ``INT`` and ``DATE``, else 8)."""

    DEFAULT_SIZE_LIMIT = 16 * 1024 * 1024

    def __init__(self, size_limit=DEFAULT_SIZE_LIMIT):
        self.size_limit = size_limit
        self.value = bytearray()
        self.dictionary = {}
        self.dictionary_keys = []
        self._open = []
        self._root_done = False

    # -- the value buffer ---------------------------------------------------------------

    def _reserve(self, size):
        if len(self.value) + size > self.size_limit:
            raise VariantError("variant size limit exceeded")

    def _put(self, header, payload=b""):
        self._reserve(1 + len(payload))
        self.value.append(header)
        self.value += payload

    def _primitive(self, kind, payload=b""):
        self._put(kind << BASIC_TYPE_BITS | PRIMITIVE, payload)

    def _fixed(self, kind, number):
        width = _INT_WIDTHS[kind]
        try:
            payload = int(number).to_bytes(width, "little", signed=True)
        except OverflowError:
            raise VariantError("integer value out of range for a %d-byte width" % width) \
                from None
        self._primitive(kind, payload)

    def _slot(self):
        """Account for the value about to be written: the root, an array element or the
        value of the pending key."""
        if not self._open:
            if self._root_done:
                raise VariantError("cannot append multiple root values")
            self._root_done = True
            return
        frame = self._open[-1]
        offset = len(self.value) - frame.start
        if frame.is_object:
            if frame.key is None:
                raise VariantError("a value in an object must follow append_key")
            frame.children.append((frame.key[0], frame.key[1], offset))
            frame.key = None
        else:
            frame.children.append((None, None, offset))

    def _key_id(self, key):
        key_id = self.dictionary.get(key)
        if key_id is None:
            key_id = self.dictionary[key] = len(self.dictionary_keys)
            self.dictionary_keys.append(key.encode("utf-8"))
        return key_id

    # -- scalars ------------------------------------------------------------------------

    def _string(self, s):
        data = s.encode("utf-8")
        if len(data) > MAX_SHORT_STR_SIZE:
            self._primitive(LONG_STR, len(data).to_bytes(U32_SIZE, "little") + data)
        else:
            self._put(len(data) << BASIC_TYPE_BITS | SHORT_STR, data)

    def _smallest_int(self, n):
        for kind, low, high in ((INT1, I8_MIN, I8_MAX), (INT2, I16_MIN, I16_MAX),
                                (INT4, I32_MIN, I32_MAX), (INT8, I64_MIN, I64_MAX)):
            if low <= n <= high:
                self._fixed(kind, n)
                return True
        return False

    def _decimal_parts(self, unscaled, scale):
        if scale < 0:
            raise VariantError("cannot encode decimal with negative scale")
        digits = len(str(abs(unscaled))) if unscaled.bit_length() <= 128 else None
        for kind, (width, _, max_precision) in _DECIMALS.items():
            if digits is not None and scale <= max_precision and digits <= max_precision:
                self._reserve(2 + width)
                self._primitive(kind, bytes([scale]) + unscaled.to_bytes(width, "little",
                                                                         signed=True))
                return
        raise VariantError("decimal exceeds maximum precision (38)")

    def _decimal(self, d):
        sign, digits, exponent = d.as_tuple()
        if not isinstance(exponent, int):
            raise VariantError("cannot encode non-finite decimal")
        if len(digits) > MAX_DECIMAL16_PRECISION:
            raise VariantError("decimal exceeds maximum precision (38)")
        unscaled = int("".join(map(str, digits)) or "0")
        self._decimal_parts(-unscaled if sign else unscaled, -exponent)

    def _append_fixed(self, kind, number):
        self._slot()
        self._fixed(kind, number)

    def _append_primitive(self, kind, payload=b""):
        self._slot()
        self._primitive(kind, payload)

    def append_null(self):
        """Append a null."""
        self._append_primitive(NULL)

    def append_boolean(self, b):
        """Append a boolean (the truth of ``b``)."""
        self._append_primitive(TRUE if b else FALSE)

    def append_byte(self, value):
        """Append a 1-byte integer (``BYTE``): -128..127."""
        self._append_fixed(INT1, value)

    def append_short(self, value):
        """Append a 2-byte integer (``SHORT``): -32768..32767."""
        self._append_fixed(INT2, value)

    def append_int(self, value):
        """Append a 4-byte integer (``INT``), in the signed 32-bit range."""
        self._append_fixed(INT4, value)

    def append_long(self, value):
        """Append an 8-byte integer (``LONG``), in the signed 64-bit range."""
        self._append_fixed(INT8, value)

    def append_float(self, value):
        """Append a 4-byte float (``FLOAT``): ``value`` rounded to single precision."""
        self._append_primitive(FLOAT, struct.pack("<f", value))

    def append_double(self, value):
        """Append an 8-byte float (``DOUBLE``)."""
        self._append_primitive(DOUBLE, struct.pack("<d", value))

    def append_decimal(self, unscaled, scale=None):
        """A decimal: ``append_decimal(Decimal)`` at the value's own scale, or
        ``append_decimal(unscaled, scale)`` with the unscaled value as an int or as big-endian
        two's-complement bytes."""
        self._slot()
        if isinstance(unscaled, decimal.Decimal):
            if scale is not None:
                raise VariantError("scale must not be given with a Decimal value")
            self._decimal(unscaled)
            return
        if isinstance(unscaled, (bytes, bytearray)):
            if scale is None:
                raise VariantError("scale is required when appending a decimal from bytes")
            unscaled = int.from_bytes(bytes(unscaled), "big", signed=True)
        elif isinstance(unscaled, int):
            if scale is None:
                raise VariantError("scale is required when appending an unscaled integer")
        else:
            raise VariantError("invalid append_decimal arguments")
        self._decimal_parts(unscaled, scale)

    def append_string(self, s):
        """Append a string (the short form up to 63 UTF-8 bytes, else the long form)."""
        self._slot()
        self._string(s)

    def append_binary(self, data):
        """Append the bytes of a bytes-like object (``BINARY``)."""
        data = bytes(data)
        self._append_primitive(BINARY, len(data).to_bytes(U32_SIZE, "little") + data)

    def append_uuid(self, value):
        """A UUID: a :class:`uuid.UUID` or its 16 bytes (big-endian)."""
        self._slot()
        raw = value.bytes if isinstance(value, uuid_mod.UUID) else bytes(value)
        if len(raw) != UUID_SIZE:
            raise VariantError("uuid must be 16 bytes")
        self._primitive(UUID, raw)

    # the dates, times and timestamps: counts since the epoch (1970-01-01, at 00:00:00 UTC for
    # an instant, on the wall clock for a local time), or since midnight for a time of day

    def append_date(self, days_since_epoch):
        """Append a ``DATE``: days since 1970-01-01 (negative before)."""
        self._append_fixed(DATE, days_since_epoch)

    def append_time(self, micros_since_midnight):
        """Append a ``TIME`` of day (no time zone), in microseconds since midnight."""
        self._append_fixed(TIME, micros_since_midnight)

    def append_timestamp_tz(self, micros):
        """Append a ``TIMESTAMP_TZ``: an instant, in microseconds."""
        self._append_fixed(TIMESTAMP, micros)

    def append_timestamp_ntz(self, micros):
        """Append a ``TIMESTAMP_NTZ``: a local date and time without a time zone, in
        microseconds."""
        self._append_fixed(TIMESTAMP_NTZ, micros)

    def append_timestamp_nanos_tz(self, nanos):
        """Append a ``TIMESTAMP_NANOS_TZ``: an instant, in nanoseconds."""
        self._append_fixed(TIMESTAMP_NANOS, nanos)

    def append_timestamp_nanos_ntz(self, nanos):
        """Append a ``TIMESTAMP_NANOS_NTZ``: a local date and time without a time zone, in
        nanoseconds."""
        self._append_fixed(TIMESTAMP_NANOS_NTZ, nanos)

    # -- containers ---------------------------------------------------------------------

    def start_object(self):
        """Open an object: until :meth:`end_object`, each value appended follows an
        :meth:`append_key`. The object itself is placed like any appended value."""
        self._slot()
        self._open.append(_Frame(True, len(self.value)))

    def append_key(self, key):
        """Give the key of the next value of the open object (keys may come in any order; the
        object is written sorted by key, and each distinct key is stored once in the metadata).

        Args:
            key: the field name.

        Raises:
            VariantError: no object is open, or the previous key has no value yet.
        """
        if not self._open or not self._open[-1].is_object:
            raise VariantError("append_key called outside of an object")
        frame = self._open[-1]
        if frame.key is not None:
            raise VariantError("append_key called twice without an intervening value")
        frame.key = (key, self._key_id(key))

    def end_object(self):
        """Close the object :meth:`start_object` opened (writing its header).

        Raises:
            VariantError: the innermost open container is not an object, or its last key has no
                value.
        """
        if not self._open or not self._open[-1].is_object:
            raise VariantError("end_object without a matching start_object")
        frame = self._open.pop()
        if frame.key is not None:
            raise VariantError("end_object with a dangling append_key (no value)")
        self._close(frame)

    def start_array(self):
        """Open an array: the values appended until :meth:`end_array` are its elements, in
        order. The array itself is placed like any appended value."""
        self._slot()
        self._open.append(_Frame(False, len(self.value)))

    def end_array(self):
        """Close the array :meth:`start_array` opened (writing its header).

        Raises:
            VariantError: the innermost open container is not an array.
        """
        if not self._open or self._open[-1].is_object:
            raise VariantError("end_array without a matching start_array")
        self._close(self._open.pop())

    def _close(self, frame):
        """Put the container's header in front of its children's bytes."""
        children = frame.children
        size = len(self.value) - frame.start
        count = len(children)
        large = count > U8_MAX
        offset_width = _width(size)
        header = bytearray()
        if frame.is_object:
            children = sorted(children, key=lambda child: child[0])
            id_width = _width(max((child[1] for child in children), default=0))
            header.append(large << (BASIC_TYPE_BITS + 4) | (id_width - 1) << (BASIC_TYPE_BITS + 2)
                          | (offset_width - 1) << BASIC_TYPE_BITS | OBJECT)
        else:
            id_width = 0
            header.append(large << (BASIC_TYPE_BITS + 2) | (offset_width - 1) << BASIC_TYPE_BITS
                          | ARRAY)
        header += count.to_bytes(U32_SIZE if large else 1, "little")
        for _, key_id, _ in children if id_width else ():
            header += key_id.to_bytes(id_width, "little")
        for _, _, offset in children:
            header += offset.to_bytes(offset_width, "little")
        header += size.to_bytes(offset_width, "little")
        self._reserve(len(header))
        self.value[frame.start:frame.start] = header

    def _append_json(self, parsed):
        """Write a parsed JSON value (dicts, lists, str, bool, int, float, Decimal, None)."""
        self._slot()
        if isinstance(parsed, dict):
            self._open.append(_Frame(True, len(self.value)))
            for key, item in parsed.items():
                self.append_key(key)
                self._append_json(item)
            self.end_object()
        elif isinstance(parsed, list):
            self._open.append(_Frame(False, len(self.value)))
            for item in parsed:
                self._append_json(item)
            self.end_array()
        elif isinstance(parsed, str):
            self._string(parsed)
        elif isinstance(parsed, bool):
            self._primitive(TRUE if parsed else FALSE)
        elif isinstance(parsed, int):
            if not self._smallest_int(parsed):
                self._decimal(decimal.Decimal(parsed))
        elif isinstance(parsed, float):
            self._primitive(DOUBLE, struct.pack("<d", parsed))
        elif isinstance(parsed, decimal.Decimal):
            self._decimal(parsed)
        elif parsed is None:
            self._primitive(NULL)
        else:
            raise VariantError("unsupported JSON value: %r" % type(parsed))

    # -- the result ---------------------------------------------------------------------

    def _metadata(self):
        keys = self.dictionary_keys
        total = sum(len(k) for k in keys)
        if max(total, len(keys)) > self.size_limit:
            raise VariantError("variant size limit exceeded")
        width = _width(max(total, len(keys)))
        if 1 + width + (len(keys) + 1) * width + total > self.size_limit:
            raise VariantError("variant size limit exceeded")
        out = bytearray([VERSION | (width - 1) << 6])
        out += len(keys).to_bytes(width, "little")
        offset = 0
        for key in keys:
            out += offset.to_bytes(width, "little")
            offset += len(key)
        out += offset.to_bytes(width, "little")
        for key in keys:
            out += key
        return bytes(out)

    def build(self):
        """The :class:`Variant` written (every container closed, one value written)."""
        if self._open:
            raise VariantError("cannot build with an open container")
        if not self._root_done:
            raise VariantError("cannot build an empty variant")
        return Variant(bytes(self.value), self._metadata())
