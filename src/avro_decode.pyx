# Framed Avro records (Schema Registry wire format) decoded into Arrow columns, for the Spark
# source: one C loop per batch, no Python object per field.
#
# The Python side (confluent_binding/spark/_avro_compiled.py) compiles, per writer schema id,
# a tree of tuples (op code, column index, arguments...) that reads the writer's encoding and
# appends each value to the reader's column (-1: read and skip), with Avro's schema resolution
# done at compile time (fields skipped or taken from defaults, promotions). It also gives the
# columns' layout (the reader type's Arrow layout, flattened, parents first). This file runs
# those trees over a binary column and returns each column's buffers.
#
# Anything unexpected (a truncated record, bytes left over, a union branch or an enum symbol
# the program does not take, a schema id without a program) makes _avro_decode return None:
# the caller then decodes that batch record by record with fastavro, which names the bad
# record or decodes what this loop left to it.

# Arrow layouts of the reader's columns
cdef enum:
    AL_BOOL = 0
    AL_I32 = 1
    AL_I64 = 2
    AL_F32 = 3
    AL_F64 = 4
    AL_BIN = 5        # string, binary: int32 offsets and bytes
    AL_DEC = 6        # decimal128: 16 bytes little-endian
    AL_STRUCT = 7
    AL_LIST = 8       # int32 offsets and one child
    AL_MAP = 9        # int32 offsets and one child: the entries' struct (key, value)

# read ops (the writer's encoding)
cdef enum:
    AR_NULL = 0       # (op, col): nothing to read; a null is appended (a default of null)
    AR_BOOL = 1
    AR_INT = 2        # int and long: zig-zag varints, into an int or float column
    AR_FLOAT = 3      # 4 bytes
    AR_DOUBLE = 4     # 8 bytes
    AR_BYTES = 5      # bytes and string
    AR_FIXED = 6      # (op, col, size)
    AR_ENUM = 7       # (op, col, symbols: bytes, or None for one the reader does not take)
    AR_DEC_BYTES = 8  # (op, col, precision)
    AR_DEC_FIXED = 9  # (op, col, size, precision)
    AR_MILLIS = 10    # a long in milliseconds into a microsecond column
    AR_RECORD = 11    # (op, col, field nodes, defaults: ((node, encoded default), ...))
    AR_ARRAY = 12     # (op, col, item node)
    AR_MAP = 13       # (op, col, entries col, key node: (AR_BYTES, key col), value node)
    AR_UNION = 14     # (op, col, branch nodes: None for null, False for not taken)

_AVRO_LAYOUTS = {"bool": AL_BOOL, "i32": AL_I32, "i64": AL_I64, "f32": AL_F32, "f64": AL_F64,
                 "bin": AL_BIN, "dec": AL_DEC, "struct": AL_STRUCT, "list": AL_LIST,
                 "map": AL_MAP}
_AVRO_READS = {"null": AR_NULL, "bool": AR_BOOL, "int": AR_INT, "float": AR_FLOAT,
               "double": AR_DOUBLE, "bytes": AR_BYTES, "fixed": AR_FIXED, "enum": AR_ENUM,
               "dec_bytes": AR_DEC_BYTES, "dec_fixed": AR_DEC_FIXED, "millis": AR_MILLIS,
               "record": AR_RECORD, "array": AR_ARRAY, "map": AR_MAP, "union": AR_UNION}


class _AvroBad(Exception):
    """A record this loop does not decode (the batch goes to fastavro)."""


@cython.binding(False)
@cython.final
@cython.auto_pickle(False)
cdef class _AvroColumn:
    """One column under construction: its validity bitmap, values and offsets."""

    def __cinit__(self, int layout):
        self.layout = layout
        self.valid = _ArrowBuf()
        self.values = _ArrowBuf()
        self.offsets = _ArrowBuf()
        self.length = 0
        self.nulls = 0
        if layout == AL_BIN or layout == AL_LIST or layout == AL_MAP:
            self.offsets.append_i32(0)

    cdef int set_valid(self, bint valid) except -1:
        self.valid.zeroed((self.length >> 3) + 1)
        if valid:
            (<uint8_t *>self.valid.data)[self.length >> 3] |= <uint8_t>(1 << (self.length & 7))
        else:
            self.nulls += 1
        self.length += 1
        return 0

    cdef inline int end_offset(self, Py_ssize_t end) except -1:
        return self.offsets.append_i32(<int32_t>end)

    cdef tuple buffers(self):
        """(length, null count, validity, values, offsets) as bytes (validity None: no
        nulls)."""
        return (self.length, self.nulls, _avro_bytes(self.valid) if self.nulls else None,
                _avro_bytes(self.values), _avro_bytes(self.offsets))


cdef bytes _avro_bytes(_ArrowBuf b):
    return PyBytes_FromStringAndSize(b.data, b.size) if b.size else b""


cdef struct _AvroIn:
    const uint8_t *p
    const uint8_t *end


cdef int64_t _avro_varint(_AvroIn *r) except? -1:
    cdef uint64_t n = 0
    cdef int shift = 0
    cdef uint8_t b
    while True:
        if r.p >= r.end or shift > 63:
            raise _AvroBad()
        b = r.p[0]
        r.p += 1
        n |= <uint64_t>(b & 0x7f) << shift
        if b < 0x80:
            break
        shift += 7
    return <int64_t>(n >> 1) ^ -<int64_t>(n & 1)


cdef const uint8_t *_avro_take(_AvroIn *r, int64_t n) except NULL:
    cdef const uint8_t *p = r.p
    if n < 0 or n > r.end - r.p:
        raise _AvroBad()
    r.p += n
    return p


cdef int _avro_null(list cols, Py_ssize_t c) except -1:
    """A null in column ``c`` (and, for a struct, in each of its children)."""
    cdef _AvroColumn col = <_AvroColumn>cols[c]
    cdef int64_t zero[2]
    zero[0] = zero[1] = 0
    if col.layout == AL_STRUCT:
        for child in col.children:
            _avro_null(cols, child)
    elif col.layout == AL_BIN:
        col.end_offset((<int32_t *>col.offsets.data)[col.length])
    elif col.layout == AL_LIST or col.layout == AL_MAP:
        col.end_offset((<int32_t *>col.offsets.data)[col.length])
    elif col.layout == AL_BOOL:
        col.values.zeroed((col.length >> 3) + 1)
    elif col.layout == AL_DEC:
        col.values.append(zero, 16)
    elif col.layout == AL_I64 or col.layout == AL_F64:
        col.values.append(zero, 8)
    else:
        col.values.append(zero, 4)
    return col.set_valid(False)


cdef int _avro_number(_AvroColumn col, int64_t i, double d, bint is_int) except -1:
    cdef int32_t i32
    cdef float f
    if col.layout == AL_I64:
        col.values.append(&i, 8)
    elif col.layout == AL_I32:
        i32 = <int32_t>i
        col.values.append(&i32, 4)
    elif col.layout == AL_F64:
        if is_int:
            d = <double>i
        col.values.append(&d, 8)
    elif col.layout == AL_F32:
        f = <float>i if is_int else <float>d
        col.values.append(&f, 4)
    else:
        raise _AvroBad()
    return col.set_valid(True)


cdef int _avro_binary(_AvroColumn col, const uint8_t *p, int64_t n) except -1:
    """A string or binary value."""
    col.values.append(p, n)
    col.end_offset(col.values.size)
    return col.set_valid(True)


cdef int _avro_decimal_value(_AvroColumn col, const uint8_t *p, int64_t n,
                             int64_t precision) except -1:
    """Big-endian two's complement of ``n`` bytes -> 16 bytes little-endian. Values beyond
    int64, or beyond the column's precision, are fastavro's (which refuses the latter)."""
    cdef uint8_t sign = 0xff if (n and p[0] & 0x80) else 0
    cdef int64_t i, v
    cdef int64_t high
    for i in range(n - 8):
        if p[i] != sign:
            raise _AvroBad()
    if n > 8:
        p += n - 8
        n = 8
        if (p[0] & 0x80) != (sign & 0x80):
            raise _AvroBad()
    v = -1 if sign else 0
    for i in range(n):
        v = <int64_t>((<uint64_t>v << 8) | p[i])
    if precision <= 18 and (v >= _POW10[precision] or v <= -_POW10[precision]):
        raise _AvroBad()
    high = -1 if v < 0 else 0
    col.values.append(&v, 8)
    col.values.append(&high, 8)
    return col.set_valid(True)


cdef object _avro_choice(_AvroIn *r, tuple choices):
    """The element of ``choices`` at the index read next (a union's branch, an enum's symbol)."""
    cdef int64_t i = _avro_varint(r)
    if i < 0 or i >= len(choices):
        raise _AvroBad()
    return choices[i]


cdef int _avro_read(_AvroIn *r, list cols, tuple node) except -1:
    cdef int op = node[0]
    cdef Py_ssize_t c = node[1], count
    cdef _AvroColumn col = <_AvroColumn>cols[c] if c >= 0 else None
    cdef int64_t i, n
    cdef double d
    cdef float f
    cdef const uint8_t *p
    if op == AR_INT:
        i = _avro_varint(r)
        if col is not None:
            _avro_number(col, i, 0, True)
    elif op == AR_BYTES:
        n = _avro_varint(r)
        p = _avro_take(r, n)
        if col is not None:
            _avro_binary(col, p, n)
    elif op == AR_UNION:
        branch = _avro_choice(r, <tuple>node[2])
        if branch is None:
            if col is not None:
                _avro_null(cols, c)
        elif branch is False:
            raise _AvroBad()
        else:
            _avro_read(r, cols, <tuple>branch)
    elif op == AR_DOUBLE:
        p = _avro_take(r, 8)
        if col is not None:
            memcpy(&d, p, 8)
            _avro_number(col, 0, d, False)
    elif op == AR_RECORD:
        for child in <tuple>node[2]:
            _avro_read(r, cols, <tuple>child)
        for default in <tuple>node[3]:
            _avro_read_default(cols, <tuple>default)
        if col is not None:
            col.set_valid(True)
    elif op == AR_BOOL:
        p = _avro_take(r, 1)
        if col is not None:
            col.values.zeroed((col.length >> 3) + 1)
            if p[0]:
                (<uint8_t *>col.values.data)[col.length >> 3] |= <uint8_t>(1 << (col.length & 7))
            col.set_valid(True)
    elif op == AR_FLOAT:
        p = _avro_take(r, 4)
        if col is not None:
            memcpy(&f, p, 4)
            _avro_number(col, 0, f, False)
    elif op == AR_MILLIS:
        i = _avro_varint(r)
        if col is not None:
            _avro_number(col, i * 1000, 0, True)
    elif op == AR_ARRAY or op == AR_MAP:
        while True:
            count = _avro_varint(r)
            if count == 0:
                break
            if count < 0:
                count = -count
                _avro_varint(r)       # the block's size in bytes
            for _ in range(count):
                if op == AR_MAP:
                    _avro_read(r, cols, <tuple>node[3])
                    _avro_read(r, cols, <tuple>node[4])
                    if col is not None:
                        (<_AvroColumn>cols[node[2]]).set_valid(True)
                else:
                    _avro_read(r, cols, <tuple>node[2])
        if col is not None:
            col.end_offset((<_AvroColumn>cols[col.children[0]]).length)
            col.set_valid(True)
    elif op == AR_ENUM:
        symbol = _avro_choice(r, <tuple>node[2])
        if symbol is None:
            raise _AvroBad()
        if col is not None:
            _avro_binary(col, <const uint8_t *>PyBytes_AS_STRING(symbol),
                         PyBytes_GET_SIZE(symbol))
    elif op == AR_FIXED:
        n = node[2]
        p = _avro_take(r, n)
        if col is not None:
            _avro_binary(col, p, n)
    elif op == AR_DEC_BYTES:
        n = _avro_varint(r)
        p = _avro_take(r, n)
        if col is not None:
            _avro_decimal_value(col, p, n, node[2])
    elif op == AR_DEC_FIXED:
        n = node[2]
        p = _avro_take(r, n)
        if col is not None:
            _avro_decimal_value(col, p, n, node[3])
    elif op == AR_NULL:
        if col is not None:
            _avro_null(cols, c)
    else:
        raise _AvroBad()
    return 0


cdef int _avro_read_default(list cols, tuple default) except -1:
    """A reader field the writer does not have: its default, decoded from its encoding."""
    cdef bytes encoded = default[1]
    cdef _AvroIn r
    r.p = <const uint8_t *>PyBytes_AS_STRING(encoded)
    r.end = r.p + PyBytes_GET_SIZE(encoded)
    return _avro_read(&r, cols, <tuple>default[0])


def _avro_schema_ids(validity, offsets, data, Py_ssize_t offset, Py_ssize_t n):
    """The schema ids of a binary column's framed records (None if one is not framed)."""
    cdef const uint8_t[:] valid = validity if validity is not None else None
    cdef const int32_t[:] off = offsets
    cdef const uint8_t[:] d = data
    cdef Py_ssize_t i, row, a
    cdef set ids = set()
    for i in range(n):
        row = offset + i
        if valid is not None and not (valid[row >> 3] >> (row & 7)) & 1:
            continue
        a = off[row]
        if off[row + 1] - a < 5 or d[a] != 0:
            return None
        ids.add((<uint32_t>d[a + 1] << 24) | (<uint32_t>d[a + 2] << 16)
                | (<uint32_t>d[a + 3] << 8) | d[a + 4])
    return ids


def _avro_decode(validity, offsets, data, Py_ssize_t offset, Py_ssize_t n, dict programs,
                 tuple layout):
    """The columns (``layout``: (layout code, children) per column, the record's first) of a
    binary column of framed Avro records, decoded by the program of each record's schema id,
    as a list of ``_AvroColumn.buffers()``; None when a record is one for fastavro."""
    cdef const uint8_t[:] valid = validity if validity is not None else None
    cdef const int32_t[:] off = offsets
    cdef const uint8_t[:] d = data
    cdef Py_ssize_t i, row, a
    cdef _AvroIn r
    cdef _AvroColumn col
    cdef list cols = []
    cdef uint32_t schema_id
    for kind, children in layout:
        col = _AvroColumn(kind)
        col.children = list(children)
        cols.append(col)
    try:
        for i in range(n):
            row = offset + i
            if valid is not None and not (valid[row >> 3] >> (row & 7)) & 1:
                _avro_null(cols, 0)
                continue
            a = off[row]
            if off[row + 1] - a < 5 or d[a] != 0:
                return None
            schema_id = ((<uint32_t>d[a + 1] << 24) | (<uint32_t>d[a + 2] << 16)
                         | (<uint32_t>d[a + 3] << 8) | d[a + 4])
            program = programs.get(schema_id)
            if program is None:
                return None
            r.p = &d[a + 5]
            r.end = &d[0] + off[row + 1]
            _avro_read(&r, cols, <tuple>program)
            if r.p != r.end:
                return None
    except _AvroBad:
        return None
    return [(<_AvroColumn>c).buffers() for c in cols]
