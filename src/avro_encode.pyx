# The Avro binary encoding of one record, for the Schema Registry Avro serializer.
#
# The schema is compiled once, in Python (confluent_binding/schema_registry/_avro_program.py),
# into a tree of tuples whose first item is one of the AVRO_* op codes below; this file walks
# that tree over a datum and writes Avro's binary encoding behind a given prefix (the wire
# format's header) into one bytes object.
#
# It only writes what it is sure fastavro would write byte for byte: exact Python types
# (dict, list, str, bytes, int, float, bool, Decimal, aware datetime, date, UUID) of the
# schema's types. For anything else (another type, a value out of range, a missing field
# without default, a union of more than null and one type, a logical type it does not know) it
# gives up and returns None, and the caller encodes that record with fastavro, which then
# writes it or raises its own error. So the output and the errors are fastavro's either way.

from cpython.datetime cimport datetime_tzinfo, import_datetime, timedelta_days  # no-cython-lint
from cpython.datetime cimport timedelta_microseconds, timedelta_seconds  # no-cython-lint
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.unicode cimport PyUnicode_AsUTF8AndSize

import datetime as _dt
import decimal as _decimal
import uuid as _uuid

import_datetime()

# op codes (the first item of each node; the Python compiler has the same numbers)
cdef enum:
    AVRO_NULL = 0
    AVRO_BOOLEAN = 1
    AVRO_INT = 2
    AVRO_LONG = 3
    AVRO_FLOAT = 4
    AVRO_DOUBLE = 5
    AVRO_BYTES = 6
    AVRO_STRING = 7
    AVRO_RECORD = 8         # (op, names, nodes, defaults); defaults[i] is _NO_DEFAULT or a value
    AVRO_ENUM = 9           # (op, {symbol: index})
    AVRO_ARRAY = 10         # (op, items)
    AVRO_MAP = 11           # (op, values)
    AVRO_FIXED = 12         # (op, size)
    AVRO_NULLABLE = 13      # (op, index of null, index of the other, the other's node)
    AVRO_DECIMAL = 14       # (op, precision, scale): bytes-decimal
    AVRO_TIMESTAMP = 15     # (op, units per second): timestamp-millis (1000) or -micros (10**6)
    AVRO_DATE = 16
    AVRO_UUID = 17

_AVRO_NO_DEFAULT = object()
_AVRO_OPS = {
    "null": AVRO_NULL, "boolean": AVRO_BOOLEAN, "int": AVRO_INT, "long": AVRO_LONG,
    "float": AVRO_FLOAT, "double": AVRO_DOUBLE, "bytes": AVRO_BYTES, "string": AVRO_STRING,
    "record": AVRO_RECORD, "enum": AVRO_ENUM, "array": AVRO_ARRAY, "map": AVRO_MAP,
    "fixed": AVRO_FIXED, "nullable": AVRO_NULLABLE, "bytes-decimal": AVRO_DECIMAL,
    "long-timestamp-millis": AVRO_TIMESTAMP, "long-timestamp-micros": AVRO_TIMESTAMP,
    "int-date": AVRO_DATE, "string-uuid": AVRO_UUID,
}

cdef object _Decimal = _decimal.Decimal
cdef object _UUID = _uuid.UUID
cdef object _date = _dt.date
cdef object _datetime = _dt.datetime
cdef object _EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
cdef int64_t _DAYS_SHIFT = _dt.date(1970, 1, 1).toordinal()
cdef int64_t _POW10[19]
_POW10[0] = 1
for _i in range(1, 19):
    _POW10[_i] = _POW10[_i - 1] * 10


cdef struct _AvroOut:
    char *data
    Py_ssize_t size
    Py_ssize_t cap


cdef int _avro_room(_AvroOut *out, Py_ssize_t n) except -1:
    cdef Py_ssize_t cap
    cdef char *grown
    if out.size + n <= out.cap:
        return 0
    cap = max(out.cap * 2, out.size + n + 64)
    grown = <char *>realloc(out.data, cap)
    if grown == NULL:
        raise MemoryError()
    out.data = grown
    out.cap = cap
    return 0


cdef int _avro_raw(_AvroOut *out, const char *p, Py_ssize_t n) except -1:
    _avro_room(out, n)
    memcpy(out.data + out.size, p, n)
    out.size += n
    return 0


cdef int _avro_long(_AvroOut *out, int64_t v) except -1:
    cdef uint64_t n = (<uint64_t>v << 1) ^ <uint64_t>(v >> 63)   # zig-zag
    _avro_room(out, 10)
    while n >= 0x80:
        out.data[out.size] = <char>((n & 0x7f) | 0x80)
        out.size += 1
        n >>= 7
    out.data[out.size] = <char>n
    out.size += 1
    return 0


cdef int _avro_le(_AvroOut *out, uint64_t bits, int n) except -1:
    """The low ``n`` bytes of ``bits``, little-endian (Avro's float and double)."""
    cdef int i
    _avro_room(out, n)
    for i in range(n):
        out.data[out.size + i] = <char>((bits >> (8 * i)) & 0xff)
    out.size += n
    return 0


cdef int _avro_utf8(_AvroOut *out, str s) except -1:
    cdef Py_ssize_t n
    cdef const char *p = PyUnicode_AsUTF8AndSize(s, &n)
    _avro_long(out, n)
    return _avro_raw(out, p, n)


cdef int _avro_int64(object datum, int64_t *v):
    """1 with ``v`` set when ``datum`` is an exact int within int64, else 0."""
    cdef int overflow = 0
    if type(datum) is not int:
        return 0
    v[0] = PyLong_AsLongLongAndOverflow(datum, &overflow)
    return overflow == 0


cdef int _avro_decimal(_AvroOut *out, tuple node, object datum) except -1:
    """As fastavro's bytes-decimal: the unscaled value in big-endian two's complement, in
    (bit length + 8) // 8 bytes."""
    cdef int64_t precision = node[1], scale = node[2], delta, digit
    cdef uint64_t unscaled = 0
    cdef int64_t signed_value
    cdef int nbytes, bits, i
    cdef char be[9]
    sign, digits, exp = datum.as_tuple()
    if type(exp) is not int or len(digits) > precision or len(digits) > 18:
        return 1
    delta = exp + scale
    if delta < 0 or delta + len(digits) > 18:
        return 1
    for d in digits:
        digit = d
        unscaled = unscaled * 10 + <uint64_t>digit
    unscaled *= <uint64_t>_POW10[delta]
    bits = 0
    while (unscaled >> bits) != 0:
        bits += 1
    nbytes = (bits + 8) // 8
    signed_value = -<int64_t>unscaled if sign else <int64_t>unscaled
    for i in range(nbytes):
        be[nbytes - 1 - i] = <char>((<uint64_t>signed_value >> (8 * i)) & 0xff)
    _avro_long(out, nbytes)
    _avro_raw(out, be, nbytes)
    return 0


cdef int _avro_timestamp(_AvroOut *out, tuple node, object datum) except -1:
    """As fastavro's timestamp-millis/-micros of an aware datetime (an int is written as is)."""
    cdef int64_t per_second = node[1], v
    if _avro_int64(datum, &v):
        return _avro_long(out, v)
    if type(datum) is not _datetime or datetime_tzinfo(datum) is None:
        return 1         # a naive datetime is local time to fastavro: left to it
    delta = datum - _EPOCH
    v = (<int64_t>timedelta_days(delta) * 86400 + timedelta_seconds(delta)) * per_second
    v += timedelta_microseconds(delta) // (1000000 // per_second)
    return _avro_long(out, v)


cdef int _avro_write(_AvroOut *out, tuple node, object datum) except -1:
    """Writes ``datum`` as ``node``: 0 done, 1 not a case for this encoder (the output is then
    discarded)."""
    cdef int op = node[0], r
    cdef int64_t v
    cdef double d
    cdef float f
    cdef uint64_t bits
    cdef uint32_t bits32
    cdef Py_ssize_t i, n
    cdef tuple names, nodes, defaults
    if op == AVRO_RECORD:
        if type(datum) is not dict:
            return 1
        names = node[1]
        nodes = node[2]
        defaults = node[3]
        for i in range(len(names)):
            value = (<dict>datum).get(names[i], _AVRO_NO_DEFAULT)
            if value is _AVRO_NO_DEFAULT:
                value = defaults[i]
                if value is _AVRO_NO_DEFAULT:
                    value = None
            r = _avro_write(out, <tuple>nodes[i], value)
            if r:
                return r
        return 0
    if op == AVRO_LONG:
        if not _avro_int64(datum, &v):
            return 1
        return _avro_long(out, v)
    if op == AVRO_INT:
        if not _avro_int64(datum, &v) or v < -2147483648 or v > 2147483647:
            return 1
        return _avro_long(out, v)
    if op == AVRO_STRING:
        if type(datum) is not str:
            return 1
        return _avro_utf8(out, <str>datum)
    if op == AVRO_NULLABLE:
        if datum is None:
            return _avro_long(out, node[1])
        _avro_long(out, node[2])
        return _avro_write(out, <tuple>node[3], datum)
    if op == AVRO_DOUBLE or op == AVRO_FLOAT:
        if type(datum) is float:
            d = <double>datum
        elif type(datum) is int and _avro_int64(datum, &v):
            d = <double>datum
        else:
            return 1
        if op == AVRO_DOUBLE:
            memcpy(&bits, &d, 8)
            return _avro_le(out, bits, 8)
        f = <float>d
        memcpy(&bits32, &f, 4)
        return _avro_le(out, bits32, 4)
    if op == AVRO_BOOLEAN:
        if type(datum) is not bool:
            return 1
        return _avro_raw(out, b"\x01" if datum else b"\x00", 1)
    if op == AVRO_BYTES:
        if type(datum) is not bytes:
            return 1
        n = PyBytes_GET_SIZE(datum)
        _avro_long(out, n)
        return _avro_raw(out, PyBytes_AS_STRING(datum), n)
    if op == AVRO_NULL:
        return 0 if datum is None else 1
    if op == AVRO_ARRAY:
        if type(datum) is not list:
            return 1
        n = len(<list>datum)
        if n:
            _avro_long(out, n)
            for item in <list>datum:
                r = _avro_write(out, <tuple>node[1], item)
                if r:
                    return r
        return _avro_long(out, 0)
    if op == AVRO_MAP:
        if type(datum) is not dict:
            return 1
        n = len(<dict>datum)
        if n:
            _avro_long(out, n)
            for key, item in (<dict>datum).items():
                if type(key) is not str:
                    return 1
                _avro_utf8(out, <str>key)
                r = _avro_write(out, <tuple>node[1], item)
                if r:
                    return r
        return _avro_long(out, 0)
    if op == AVRO_ENUM:
        if type(datum) is not str:
            return 1
        index = (<dict>node[1]).get(datum)
        if index is None:
            return 1
        return _avro_long(out, index)
    if op == AVRO_FIXED:
        if type(datum) is not bytes or PyBytes_GET_SIZE(datum) != <Py_ssize_t>node[1]:
            return 1
        return _avro_raw(out, PyBytes_AS_STRING(datum), PyBytes_GET_SIZE(datum))
    if op == AVRO_DECIMAL:
        if type(datum) is not _Decimal:
            return 1
        return _avro_decimal(out, node, datum)
    if op == AVRO_TIMESTAMP:
        return _avro_timestamp(out, node, datum)
    if op == AVRO_DATE:
        if type(datum) is _date:
            return _avro_long(out, <int64_t>datum.toordinal() - _DAYS_SHIFT)
        if not _avro_int64(datum, &v) or v < -2147483648 or v > 2147483647:
            return 1
        return _avro_long(out, v)
    if op == AVRO_UUID:
        if type(datum) is _UUID:
            return _avro_utf8(out, str(datum))
        if type(datum) is not str:
            return 1
        return _avro_utf8(out, <str>datum)
    return 1


def _avro_encode(tuple program, bytes prefix, object datum):
    """``prefix`` followed by ``datum`` in Avro's binary encoding of the compiled schema
    ``program``, or None when this record is one for fastavro (see the top of this file)."""
    cdef _AvroOut out
    cdef Py_ssize_t n = PyBytes_GET_SIZE(prefix)
    out.size = 0
    out.cap = 256 + n
    out.data = <char *>malloc(out.cap)
    if out.data == NULL:
        raise MemoryError()
    try:
        _avro_raw(&out, PyBytes_AS_STRING(prefix), n)
        if _avro_write(&out, program, datum):
            return None
        return PyBytes_FromStringAndSize(out.data, out.size)
    finally:
        free(out.data)
