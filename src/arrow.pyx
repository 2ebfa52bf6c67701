# Columnar consume (Consumer.consume_arrow): librdkafka messages copied straight into Arrow
# buffers in C, one memcpy per field and no Python object per record. The buffers are handed to
# pyarrow zero-copy through the Arrow C data interface (one struct tree per batch, imported by
# confluent_binding._arrow, pure Python, imported only when the method is used); the batch's
# release callback gives the memory back (from any thread, without the GIL).

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.pythread cimport (
    PyThread_acquire_lock,
    PyThread_allocate_lock,
    PyThread_release_lock,
    PyThread_type_lock,
    WAIT_LOCK,
)
from libc.stdint cimport int32_t, int64_t, uint8_t, uintptr_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcmp, memcpy, memset, strcmp, strlen


cdef int64_t _empty_buffer = 0      # what an empty buffer points at (never NULL)

from includes.rdkafka cimport (
    RD_KAFKA_RESP_ERR_NO_ERROR,
    RD_KAFKA_RESP_ERR__PARTITION_EOF,
    rd_kafka_header_get_all,
    rd_kafka_headers_t,
    rd_kafka_message_t,
    rd_kafka_message_timestamp,
    rd_kafka_timestamp_type_t,
    rd_kafka_topic_name,
)

# Arrow's binary/string columns have 32-bit offsets: one batch holds at most this many bytes
# per column (a batch ends before the record that would not fit).
cdef Py_ssize_t _arrow_max_bytes = 2147483647


def _arrow_column_limit(limit=None):
    """The most bytes one column of a consume_arrow() batch holds (set ``limit`` to lower it,
    for tests: batches then end early). Returns the previous limit."""
    global _arrow_max_bytes
    old = _arrow_max_bytes
    if limit is not None:
        if not 0 < limit <= 2147483647:
            raise ValueError("limit must be between 1 and 2147483647")
        _arrow_max_bytes = limit
    return old


# Large blocks of batches the application dropped, kept for the next batches: a block fresh from
# malloc costs a page fault every 4 KiB (glibc returns large freed blocks to the kernel), about
# a tenth of consume_arrow()'s CPU with 100 B records. At most _POOL_SLOTS blocks and
# _POOL_BYTES in all, under a lock of its own (a batch may be released by any thread).
cdef enum:
    _POOL_SLOTS = 32
cdef Py_ssize_t _POOL_MIN = 16384           # smaller blocks: malloc reuses them well
cdef Py_ssize_t _POOL_BYTES = 32 << 20
cdef char *_pool_data[_POOL_SLOTS]
cdef Py_ssize_t _pool_cap[_POOL_SLOTS]
cdef Py_ssize_t _pool_n = 0
cdef Py_ssize_t _pool_bytes = 0
cdef PyThread_type_lock _pool_lock = PyThread_allocate_lock()
if _pool_lock == NULL:
    raise MemoryError()


def _pool_after_fork():
    """A forked child gets a lock of its own (a thread of the parent may have held the pool's
    at the fork; that thread does not exist in the child)."""
    global _pool_lock
    cdef PyThread_type_lock lock = PyThread_allocate_lock()
    if lock != NULL:
        _pool_lock = lock


import os as _os  # noqa: E402
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_pool_after_fork)


cdef char *_pool_take(Py_ssize_t want, Py_ssize_t *cap) noexcept:
    """The smallest kept block of ``want`` to ``2 * want`` bytes (its size in ``cap``), or
    NULL."""
    global _pool_n, _pool_bytes
    cdef Py_ssize_t i, best = -1
    cdef char *p = NULL
    PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
    for i in range(_pool_n):
        if want <= _pool_cap[i] <= 2 * want and (best < 0 or _pool_cap[i] < _pool_cap[best]):
            best = i
    if best >= 0:
        p, cap[0] = _pool_data[best], _pool_cap[best]
        _pool_n -= 1
        _pool_data[best], _pool_cap[best] = _pool_data[_pool_n], _pool_cap[_pool_n]
        _pool_bytes -= cap[0]
    PyThread_release_lock(_pool_lock)
    return p


cdef void _pool_give(char *p, Py_ssize_t cap) noexcept nogil:
    """Keeps a block for a later batch, or frees it (any thread, GIL or not)."""
    global _pool_n, _pool_bytes
    if cap >= _POOL_MIN:
        PyThread_acquire_lock(_pool_lock, WAIT_LOCK)
        if _pool_n < _POOL_SLOTS and _pool_bytes + cap <= _POOL_BYTES:
            _pool_data[_pool_n], _pool_cap[_pool_n] = p, cap
            _pool_n += 1
            _pool_bytes += cap
            p = NULL
        PyThread_release_lock(_pool_lock)
    free(p)


@cython.binding(False)
@cython.final
cdef class _ArrowBuf:
    """One growable block of memory (malloc'd): an Arrow buffer under construction, until a
    batch takes it over (``own``)."""

    def __dealloc__(self):
        if self.data != NULL:
            _pool_give(self.data, self.cap)

    cdef int reserve(self, Py_ssize_t extra) except -1:
        """Room for ``extra`` more bytes after ``size`` (the capacity at least doubles)."""
        cdef Py_ssize_t want = self.size + extra
        cdef Py_ssize_t cap = self.cap if self.cap else 256
        cdef char *p
        if want <= self.cap:
            return 0
        while cap < want:
            cap *= 2
        p = _pool_take(want, &cap) if want >= _POOL_MIN else NULL
        if p != NULL:
            if self.size:
                memcpy(p, self.data, self.size)
            if self.data != NULL:
                _pool_give(self.data, self.cap)
        else:
            p = <char *>realloc(self.data, cap)
            if p == NULL:
                raise MemoryError()
        self.data, self.cap = p, cap
        return 0

    cdef const void *own(self, _BatchMem *mem) noexcept:
        """Hands the block to an exported batch (its release frees it); the buffer is empty
        again. Returns the data (never NULL)."""
        cdef char *p = self.data
        if p == NULL:
            return &_empty_buffer
        mem.blocks[mem.nblocks], mem.caps[mem.nblocks] = p, self.cap
        mem.nblocks += 1
        self.data = NULL
        self.size = self.cap = 0
        return p

    cdef inline int append(self, const void *src, Py_ssize_t n) except -1:
        if self.size + n > self.cap:
            self.reserve(n)
        if n:
            memcpy(self.data + self.size, src, n)
        self.size += n
        return 0

    cdef inline int append_i32(self, int32_t v) except -1:
        return self.append(&v, 4)

    cdef int zeroed(self, Py_ssize_t nbytes) except -1:
        """A bitmap: at least ``nbytes`` bytes, the ones added zero (``size``: how many are
        initialised)."""
        if nbytes > self.size:
            self.reserve(nbytes - self.size)
            memset(self.data + self.size, 0, nbytes - self.size)
            self.size = nbytes
        return 0


cdef inline void _set_bit(_ArrowBuf bitmap, Py_ssize_t i) noexcept:
    (<uint8_t *>bitmap.data)[i >> 3] |= <uint8_t>(1 << (i & 7))


cdef int _first_null(_ArrowBuf valid, Py_ssize_t row, Py_ssize_t rows_cap) except -1:
    """A column's first null, at ``row``: its validity bitmap begins, the rows before valid
    (columns without nulls have none: no per-row bitmap work)."""
    valid.zeroed((rows_cap + 7) >> 3)
    memset(valid.data, 0xff, row >> 3)
    if row & 7:
        valid.data[row >> 3] = <char>((1 << (row & 7)) - 1)
    return 0


cdef inline int _append_string(_ArrowBuf offsets, _ArrowBuf data, Py_ssize_t row,
                               const char *p, Py_ssize_t n) except -1:
    """Row ``row`` of a column that is never null (topic, header names)."""
    if data.size + n > data.cap:
        data.reserve(n)
    memcpy(data.data + data.size, p, n)
    data.size += n
    (<int32_t *>offsets.data)[row + 1] = <int32_t>data.size
    return 0


cdef inline int _append_binary(_ArrowBuf valid, _ArrowBuf offsets, _ArrowBuf data,
                               Py_ssize_t row, const void *p, Py_ssize_t n, Py_ssize_t *nulls,
                               Py_ssize_t rows_cap) except -1:
    """Row ``row`` of a nullable binary/string column (``p`` NULL: null): its bytes appended,
    its end offset written (the offsets have room: reserved per take())."""
    if p == NULL:
        if nulls[0] == 0:
            _first_null(valid, row, rows_cap)
        nulls[0] += 1
    else:
        if n:
            if data.size + n > data.cap:
                data.reserve(n)
            memcpy(data.data + data.size, p, n)
            data.size += n
        if nulls[0]:
            _set_bit(valid, row)
    (<int32_t *>offsets.data)[row + 1] = <int32_t>data.size
    return 0


cdef void _release_child(ArrowArray *a) noexcept nogil:
    a.release = NULL    # a column's memory is the batch's: freed by the top array's release


cdef void _release_batch(ArrowArray *a) noexcept nogil:
    cdef _BatchMem *mem = <_BatchMem *>a.private_data
    cdef int i
    for i in range(mem.nblocks):
        _pool_give(mem.blocks[i], mem.caps[i])
    free(mem)
    a.release = NULL


cdef ArrowArray *_array(_BatchMem *mem, int64_t length, int64_t nulls, int n_buffers,
                        int n_children) noexcept:
    """The next array of an exported batch (its buffers and child pointers in ``mem``)."""
    cdef int i = mem.narrays
    cdef ArrowArray *a = &mem.arrays[i]
    mem.narrays += 1
    a.length, a.null_count, a.offset = length, nulls, 0
    a.n_buffers, a.n_children = n_buffers, n_children
    a.buffers = &mem.buffers[3 * i]
    a.children = &mem.children[mem.nchildren]
    mem.nchildren += n_children
    a.dictionary = NULL
    a.release = _release_child
    a.private_data = NULL
    return a


cdef ArrowArray *_binary_array(_BatchMem *mem, int64_t n, Py_ssize_t nulls, _ArrowBuf valid,
                               _ArrowBuf offsets, _ArrowBuf data) noexcept:
    cdef ArrowArray *a = _array(mem, n, nulls, 3, 0)
    a.buffers[0] = valid.own(mem) if nulls else NULL
    a.buffers[1] = offsets.own(mem)
    a.buffers[2] = data.own(mem)
    return a


cdef ArrowArray *_fixed_array(_BatchMem *mem, int64_t n, Py_ssize_t nulls, _ArrowBuf valid,
                              _ArrowBuf values) noexcept:
    cdef ArrowArray *a = _array(mem, n, nulls, 2, 0)
    a.buffers[0] = valid.own(mem) if nulls else NULL
    a.buffers[1] = values.own(mem)
    return a


@cython.binding(False)
@cython.final
@cython.no_gc
cdef class _ArrowColumns:
    """The connector's columns (key, value, topic, partition, offset, timestamp, timestampType,
    optional headers) being filled from librdkafka messages. The fixed-width columns and the
    offsets get room for every message of a take() at once; a validity bitmap exists only
    once its column has a null."""

    def __cinit__(self, bint headers):
        self.key_valid, self.key_off, self.key_data = _ArrowBuf(), _ArrowBuf(), _ArrowBuf()
        self.value_valid, self.value_off, self.value_data = _ArrowBuf(), _ArrowBuf(), _ArrowBuf()
        self.topic_off, self.topic_data = _ArrowBuf(), _ArrowBuf()
        self.partition, self.offset, self.ts_valid = _ArrowBuf(), _ArrowBuf(), _ArrowBuf()
        self.ts, self.ts_type = _ArrowBuf(), _ArrowBuf()
        self.h_valid, self.h_off, self.hk_off = _ArrowBuf(), _ArrowBuf(), _ArrowBuf()
        self.hk_data, self.hv_valid, self.hv_off = _ArrowBuf(), _ArrowBuf(), _ArrowBuf()
        self.hv_data = _ArrowBuf()
        self.headers = headers
        self.rows = self.rows_cap = 0
        self.header_rows = 0
        self.key_nulls = self.value_nulls = self.ts_nulls = self.h_nulls = self.hv_nulls = 0
        self.last_rkt = NULL
        self.room(0)
        for b in (self.key_off, self.value_off, self.topic_off, self.h_off, self.hk_off,
                  self.hv_off):
            (<_ArrowBuf>b).append_i32(0)

    cdef int room(self, Py_ssize_t n) except -1:
        """Room for ``n`` more rows in the fixed-width columns, the offsets and the bitmaps
        that exist; the byte columns sized from the first of them (then they double)."""
        cdef Py_ssize_t cap = self.rows + n
        cdef _ArrowBuf b
        if cap <= self.rows_cap and self.rows_cap:
            return 0
        self.rows_cap = cap
        for b in (self.partition, self.ts_type):
            b.reserve(cap * 4 - b.size)
        for b in (self.offset, self.ts):
            b.reserve(cap * 8 - b.size)
        for b in (self.key_off, self.value_off, self.topic_off, self.h_off):
            b.reserve((cap + 1) * 4 - b.size)
        if self.key_nulls:
            self.key_valid.zeroed((cap + 7) >> 3)
        if self.value_nulls:
            self.value_valid.zeroed((cap + 7) >> 3)
        if self.ts_nulls:
            self.ts_valid.zeroed((cap + 7) >> 3)
        if self.headers:
            self.h_valid.zeroed((cap + 7) >> 3)
        return 0

    cdef int add(self, const rd_kafka_message_t *rkm) except -1:
        """Appends one record (the caller still owns it, checked rkm.err is 0, that it fits
        and cached its topic name; room() made room for the row)."""
        cdef Py_ssize_t row = self.rows
        cdef rd_kafka_timestamp_type_t tstype
        cdef int64_t ts
        _append_binary(self.key_valid, self.key_off, self.key_data, row, rkm.key,
                       rkm.key_len, &self.key_nulls, self.rows_cap)
        _append_binary(self.value_valid, self.value_off, self.value_data, row, rkm.payload,
                       rkm.len, &self.value_nulls, self.rows_cap)
        _append_string(self.topic_off, self.topic_data, row, self.last_topic,
                       self.last_topic_len)
        (<int32_t *>self.partition.data)[row] = rkm.partition
        (<int64_t *>self.offset.data)[row] = rkm.offset
        ts = rd_kafka_message_timestamp(rkm, &tstype)
        if tstype == 0:
            if self.ts_nulls == 0:
                _first_null(self.ts_valid, row, self.rows_cap)
            self.ts_nulls += 1
            ts = 0
        elif self.ts_nulls:
            _set_bit(self.ts_valid, row)
        (<int64_t *>self.ts.data)[row] = ts * 1000
        # Kafka's (and Spark's) numbering: -1 none, 0 create time, 1 log append time
        (<int32_t *>self.ts_type.data)[row] = <int32_t>tstype - 1
        if self.headers:
            self._add_headers(rkm, row)
        self.rows += 1
        return 0

    cdef int _add_headers(self, const rd_kafka_message_t *rkm, Py_ssize_t row) except -1:
        cdef rd_kafka_headers_t *hdrs = _headers_of(rkm)
        cdef size_t i = 0
        cdef const char *name
        cdef const void *val
        cdef size_t size
        if hdrs == NULL:
            self.h_nulls += 1
        else:
            while (rd_kafka_header_get_all(hdrs, i, &name, &val, &size)
                   == RD_KAFKA_RESP_ERR_NO_ERROR):
                self.hk_off.reserve(4)
                self.hv_off.reserve(4)
                if self.hv_nulls:
                    self.hv_valid.zeroed((self.header_rows + 8) >> 3)
                _append_string(self.hk_off, self.hk_data, self.header_rows, name,
                               strlen(name))
                _append_binary(self.hv_valid, self.hv_off, self.hv_data, self.header_rows, val,
                               size, &self.hv_nulls, self.header_rows + 1)
                self.header_rows += 1
                self.hk_off.size += 4
                self.hv_off.size += 4
                i += 1
            _set_bit(self.h_valid, row)
        (<int32_t *>self.h_off.data)[row + 1] = <int32_t>self.header_rows
        return 0

    cdef bint headers_fit(self, const rd_kafka_message_t *rkm) noexcept:
        cdef rd_kafka_headers_t *hdrs = _headers_of(rkm)
        cdef size_t i = 0
        cdef const char *name
        cdef const void *val
        cdef size_t size
        cdef Py_ssize_t names = 0, values = 0
        while (hdrs != NULL and rd_kafka_header_get_all(hdrs, i, &name, &val, &size)
               == RD_KAFKA_RESP_ERR_NO_ERROR):
            names += strlen(name)
            values += size
            i += 1
        return (self.hk_data.size + names <= _arrow_max_bytes
                and self.hv_data.size + values <= _arrow_max_bytes)

    cdef Py_ssize_t take(self, rd_kafka_message_t **msgs, Py_ssize_t i, Py_ssize_t end,
                         _EndOffsets ends, Py_ssize_t expect) except -1:
        """Takes the records of msgs[i:end] into the columns (the caller still owns the
        messages); partition-EOF events and records at or past their partition's end are
        skipped. Returns where it stopped: ``end``, or the index of an error event or of a
        record that does not fit (the batch ends before it). ``expect``: how many rows the
        batch may still get (room is made for them at once)."""
        cdef rd_kafka_message_t *rkm
        cdef _EndOffset *e
        cdef Py_ssize_t rows = min(max(end - i, expect), 1 << 16)
        if i >= end:
            return end
        self.room(max(end - i, rows))
        rkm = msgs[i]
        if not rkm.err and self.value_data.cap == 0:
            # the byte columns sized for the batch from its first record (at most 64 MiB)
            self.value_data.reserve(min(<Py_ssize_t>rkm.len * rows, 1 << 26))
            if rkm.key != NULL:
                self.key_data.reserve(min(<Py_ssize_t>rkm.key_len * rows, 1 << 26))
        while i < end:
            rkm = msgs[i]
            e = ends.find(rkm) if ends.count and rkm.rkt != NULL else NULL
            if rkm.err == RD_KAFKA_RESP_ERR__PARTITION_EOF:
                if e != NULL and rkm.offset >= e.end:
                    ends.finished(e)
            elif rkm.err:
                return i
            elif e == NULL or rkm.offset < e.end:
                if rkm.rkt != self.last_rkt:
                    self.last_rkt = rkm.rkt
                    self.last_topic = rd_kafka_topic_name(rkm.rkt)
                    self.last_topic_len = strlen(self.last_topic)
                    self.topic_data.reserve(self.last_topic_len * max(end - i, rows))
                if (self.key_data.size + <Py_ssize_t>rkm.key_len > _arrow_max_bytes
                        or self.value_data.size + <Py_ssize_t>rkm.len > _arrow_max_bytes
                        or self.topic_data.size + self.last_topic_len > _arrow_max_bytes
                        or (self.headers and not self.headers_fit(rkm))):
                    return i
                if e != NULL and rkm.offset + 1 >= e.end:
                    ends.finished(e)
                self.add(rkm)
            else:
                ends.finished(e)
            i += 1
        return end

    def __dealloc__(self):
        if self.top.release != NULL:    # exported, never imported
            self.top.release(&self.top)

    cdef int _export(self) except -1:
        """Makes ``top`` the batch of the rows so far (a struct array of the columns, the
        Arrow C data interface); the buffers go to it (the columns are empty after)."""
        cdef int64_t n = self.rows
        cdef int64_t m = self.header_rows
        cdef ArrowArray *lst
        cdef ArrowArray *entries
        cdef _BatchMem *mem = <_BatchMem *>calloc(1, sizeof(_BatchMem))
        if mem == NULL:
            raise MemoryError()
        if self.top.release != NULL:
            self.top.release(&self.top)
        self.top.length, self.top.null_count, self.top.offset = n, 0, 0
        self.top.n_buffers, self.top.n_children = 1, 8 if self.headers else 7
        self.top.buffers = mem.top_buffers
        self.top.children = mem.children
        mem.nchildren = <int>self.top.n_children
        self.top.dictionary = NULL
        self.top.private_data = mem
        self.top.release = _release_batch
        mem.children[0] = _binary_array(mem, n, self.key_nulls, self.key_valid, self.key_off,
                                        self.key_data)
        mem.children[1] = _binary_array(mem, n, self.value_nulls, self.value_valid,
                                        self.value_off, self.value_data)
        mem.children[2] = _binary_array(mem, n, 0, self.key_valid, self.topic_off,
                                        self.topic_data)
        mem.children[3] = _fixed_array(mem, n, 0, self.ts_valid, self.partition)
        mem.children[4] = _fixed_array(mem, n, 0, self.ts_valid, self.offset)
        mem.children[5] = _fixed_array(mem, n, self.ts_nulls, self.ts_valid, self.ts)
        mem.children[6] = _fixed_array(mem, n, 0, self.ts_valid, self.ts_type)
        if self.headers:
            lst = mem.children[7] = _array(mem, n, self.h_nulls, 2, 1)
            lst.buffers[0] = self.h_valid.own(mem) if self.h_nulls else NULL
            lst.buffers[1] = self.h_off.own(mem)
            entries = lst.children[0] = _array(mem, m, 0, 1, 2)
            entries.buffers[0] = NULL
            entries.children[0] = _binary_array(mem, m, 0, self.hv_valid, self.hk_off,
                                                self.hk_data)
            entries.children[1] = _binary_array(mem, m, self.hv_nulls, self.hv_valid,
                                                self.hv_off, self.hv_data)
        self.rows = self.rows_cap = self.header_rows = 0
        return 0

    def to_batch(self, importer, schema_of):
        """The rows as one pyarrow.RecordBatch, zero-copy: ``importer(address of the
        ArrowArray, schema)`` is pyarrow's C data interface import, ``schema_of(headers)`` the
        schema (called by confluent_binding._arrow.record_batch)."""
        schema = schema_of(self.headers)
        self._export()
        try:
            return importer(<uintptr_t>&self.top, schema)
        finally:
            if self.top.release != NULL:    # not taken: the import failed before
                self.top.release(&self.top)


@cython.binding(False)
@cython.final
cdef class _EndOffsets:
    """Where a range-bounded columnar read stops, per partition (a small C array: a range
    read has one or a few partitions, so a linear scan with strcmp is the fastest lookup)."""

    def __cinit__(self, ends):
        cdef Py_ssize_t i
        items = list(ends.items()) if ends else []
        self.count = len(items)
        self.names = []
        self.parts = <_EndOffset *>PyMem_Malloc(max(1, self.count) * sizeof(_EndOffset))
        if self.parts == NULL:
            raise MemoryError()
        for i, (tp, end) in enumerate(items):
            topic, partition = tp
            if not isinstance(topic, str):
                raise TypeError("end_offsets keys must be (topic str, partition int) tuples")
            b = topic.encode("utf-8")
            self.names.append(b)
            self.parts[i].topic = <const char *>b
            self.parts[i].partition = partition
            self.parts[i].end = end
            self.parts[i].done = end <= 0
        self.left = sum(1 for i in range(self.count) if not self.parts[i].done)
        self.last_rkt = NULL

    def __dealloc__(self):
        PyMem_Free(self.parts)

    cdef _EndOffset *find(self, const rd_kafka_message_t *rkm) noexcept:
        """The end of the record's partition, or NULL (the last one found is remembered:
        records come in runs of one partition)."""
        cdef Py_ssize_t i
        cdef const char *name
        if self.count == 0:
            return NULL
        if rkm.rkt == self.last_rkt and rkm.partition == self.last_partition:
            return self.last
        name = rd_kafka_topic_name(rkm.rkt)
        for i in range(self.count):
            if self.parts[i].partition == rkm.partition and strcmp(self.parts[i].topic, name) == 0:
                self.last = &self.parts[i]
                self.last_rkt, self.last_partition = rkm.rkt, rkm.partition
                return self.last
        return NULL

    cdef inline void finished(self, _EndOffset *e):
        if not e.done:
            e.done = True
            self.left -= 1


# -- the sink: Producer._produce_arrow() --
#
# The rows of Arrow arrays produced in one C loop, without the GIL and without a Python object
# per row: each array is read in place through the Arrow C data interface (the PyCapsules of
# ``__arrow_c_array__``), librdkafka copies each key and value (RD_KAFKA_MSG_F_COPY). The loop
# takes the GIL back only when the local queue is full (then delivery reports are served, as
# poll() does, and the row is tried again), at the first row of a topic it has no handle for yet,
# and on an error.

from cpython.pycapsule cimport PyCapsule_GetPointer

from includes.rdkafka cimport (
    RD_KAFKA_MSG_F_COPY,
    RD_KAFKA_PARTITION_UA,
    RD_KAFKA_RESP_ERR__QUEUE_FULL,
    RD_KAFKA_VTYPE_HEADERS,
    RD_KAFKA_VTYPE_KEY,
    RD_KAFKA_VTYPE_MSGFLAGS,
    RD_KAFKA_VTYPE_PARTITION,
    RD_KAFKA_VTYPE_RKT,
    RD_KAFKA_VTYPE_VALUE,
    rd_kafka_error_code,
    rd_kafka_error_destroy,
    rd_kafka_error_t,
    rd_kafka_last_error,
    rd_kafka_produce,
    rd_kafka_produceva,
    rd_kafka_resp_err_t,
    rd_kafka_t,
    rd_kafka_topic_t,
    rd_kafka_vu_t,
    rd_kafka_header_add,
    rd_kafka_headers_destroy,
    rd_kafka_headers_new,
)


# One input column, read in place: a binary/string (``wide``: 64-bit offsets), int32 or list
# array; ``present`` False when the sink has no such column.
cdef struct _InCol:
    const ArrowArray *a
    const uint8_t *valid
    const void *offsets
    const char *data
    int64_t offset
    bint wide
    bint present


cdef enum:
    _RUN_DONE = 0
    _RUN_FULL = 1           # the local queue is full: serve delivery reports, then again
    _RUN_TOPIC = 2          # the row's topic has no handle here yet
    _RUN_NULL_TOPIC = 3
    _RUN_NULL_HEADER = 4    # a header with a null name
    _RUN_ERROR = 5          # librdkafka refused the row: err


cdef struct _Run:
    _InCol value, key, topic, partition, headers, hkey, hvalue
    int64_t hentries_offset       # the headers' struct array's own offset
    const uint8_t *hentries_valid
    int64_t row, rows
    rd_kafka_t *rk
    rd_kafka_topic_t *rkt         # the handle of the topic named by name/name_len
    const char *name
    Py_ssize_t name_len
    rd_kafka_resp_err_t err


cdef object _in_col(_InCol *c, object array, bint wide):
    """Points ``c`` at ``array`` (None: no such column), exported through the Arrow PyCapsule
    interface; returns the capsule that owns the export (keep it while ``c`` is used)."""
    cdef const ArrowArray *a
    if array is None:
        return None
    capsule = array.__arrow_c_array__()[1]
    a = <const ArrowArray *>PyCapsule_GetPointer(capsule, "arrow_array")
    _in_child(c, a, wide)
    return capsule


cdef void _in_child(_InCol *c, const ArrowArray *a, bint wide) noexcept:
    c.a = a
    c.valid = <const uint8_t *>a.buffers[0] if a.null_count != 0 else NULL
    c.offsets = a.buffers[1] if a.n_buffers > 1 else NULL
    c.data = <const char *>a.buffers[2] if a.n_buffers > 2 else NULL
    c.offset = a.offset
    c.wide = wide
    c.present = True


cdef inline bint _is_null(const uint8_t *valid, int64_t i) noexcept nogil:
    return valid != NULL and not ((valid[i >> 3] >> (i & 7)) & 1)


cdef inline bint _slot(const _InCol *c, int64_t row, int64_t *start, int64_t *end) noexcept nogil:
    """Row ``row``'s [start, end) in the column's data or child (False: null)."""
    cdef int64_t i = row + c.offset
    if _is_null(c.valid, i):
        return False
    if c.wide:
        start[0] = (<const int64_t *>c.offsets)[i]
        end[0] = (<const int64_t *>c.offsets)[i + 1]
    else:
        start[0] = (<const int32_t *>c.offsets)[i]
        end[0] = (<const int32_t *>c.offsets)[i + 1]
    return True


cdef inline const char *_bytes_at(const _InCol *c, int64_t row, size_t *n) noexcept nogil:
    """Row ``row`` of a binary/string column (NULL: null or no such column)."""
    cdef int64_t start, end
    if not c.present or not _slot(c, row, &start, &end):
        n[0] = 0
        return NULL
    n[0] = <size_t>(end - start)
    return c.data + start


cdef int _run_rows(_Run *r) noexcept nogil:
    """Produces rows from ``r.row`` on until all are enqueued or one needs the GIL (the
    reason is returned; ``r.row`` is that row)."""
    cdef const char *vp
    cdef const char *kp
    cdef const char *tp
    cdef const char *hk
    cdef const char *hv
    cdef size_t vn, kn, tn, hkn, hvn
    cdef int32_t partition
    cdef int64_t i, hstart, hend, j
    cdef rd_kafka_headers_t *hdrs
    cdef rd_kafka_vu_t vus[7]
    cdef rd_kafka_error_t *error
    cdef rd_kafka_resp_err_t err
    while r.row < r.rows:
        i = r.row
        if r.topic.present:
            tp = _bytes_at(&r.topic, i, &tn)
            if tp == NULL:
                return _RUN_NULL_TOPIC
            if (r.rkt == NULL or <Py_ssize_t>tn != r.name_len
                    or (tn and memcmp(tp, r.name, tn) != 0)):
                return _RUN_TOPIC
        partition = RD_KAFKA_PARTITION_UA
        if r.partition.present and not _is_null(r.partition.valid, i + r.partition.offset):
            partition = (<const int32_t *>r.partition.offsets)[i + r.partition.offset]
        vp = _bytes_at(&r.value, i, &vn)
        kp = _bytes_at(&r.key, i, &kn)
        hdrs = NULL
        if r.headers.present and _slot(&r.headers, i, &hstart, &hend) and hend > hstart:
            hdrs = rd_kafka_headers_new(<size_t>(hend - hstart))
            for j in range(hstart, hend):
                if _is_null(r.hentries_valid, j + r.hentries_offset):
                    continue
                hk = _bytes_at(&r.hkey, j + r.hentries_offset, &hkn)
                if hk == NULL:
                    rd_kafka_headers_destroy(hdrs)
                    return _RUN_NULL_HEADER
                hv = _bytes_at(&r.hvalue, j + r.hentries_offset, &hvn)
                rd_kafka_header_add(hdrs, hk, <ssize_t>hkn, hv, <ssize_t>hvn)
        if hdrs == NULL:
            if rd_kafka_produce(r.rkt, partition, RD_KAFKA_MSG_F_COPY, <void *>vp, vn, kp, kn,
                                NULL) == -1:
                err = rd_kafka_last_error()
            else:
                err = RD_KAFKA_RESP_ERR_NO_ERROR
        else:
            vus[0].vtype = RD_KAFKA_VTYPE_RKT
            vus[0].u.rkt = r.rkt
            vus[1].vtype = RD_KAFKA_VTYPE_PARTITION
            vus[1].u.i32 = partition
            vus[2].vtype = RD_KAFKA_VTYPE_MSGFLAGS
            vus[2].u.i = RD_KAFKA_MSG_F_COPY
            vus[3].vtype = RD_KAFKA_VTYPE_VALUE
            vus[3].u.mem.ptr, vus[3].u.mem.size = <void *>vp, vn
            vus[4].vtype = RD_KAFKA_VTYPE_KEY
            vus[4].u.mem.ptr, vus[4].u.mem.size = <void *>kp, kn
            vus[5].vtype = RD_KAFKA_VTYPE_HEADERS
            vus[5].u.headers = hdrs
            error = rd_kafka_produceva(r.rk, vus, 6)
            err = RD_KAFKA_RESP_ERR_NO_ERROR
            if error != NULL:
                err = rd_kafka_error_code(error)
                rd_kafka_error_destroy(error)
                rd_kafka_headers_destroy(hdrs)    # librdkafka owns them only on success
        if err == RD_KAFKA_RESP_ERR__QUEUE_FULL:
            return _RUN_FULL
        if err:
            r.err = err
            return _RUN_ERROR
        r.row += 1
    return _RUN_DONE


def _produce_arrow(Producer producer, object topic, object value, object key=None,
                   object topics=None, object partitions=None, object headers=None,
                   bint wide_value=False, bint wide_key=False, bint wide_topic=False):
    """Produces every row of Arrow arrays of one batch (the sink's columns, any object with
    ``__arrow_c_array__``): ``value`` and ``key`` binary or string (``wide_*``: the large_
    types, 64-bit offsets), ``topics`` string (else every row goes to ``topic``),
    ``partitions`` int32 (null: the partitioner picks), ``headers``
    list<struct<key: string, value: binary>> (32-bit offsets). A null value or key is produced
    as a null; an empty or null header list as no headers. Returns how many rows were
    enqueued (all of them, or it raises: ValueError for a null topic or header name,
    KafkaException when librdkafka refuses a row, what a delivery callback raised). While the
    local queue is full it serves delivery reports, as poll() would, and tries again.
    Delivery reports go to the producer's ``on_delivery``, served by its poll()/flush()."""
    cdef _Run r
    cdef int why
    cdef size_t tn
    cdef const ArrowArray *entries
    memset(&r, 0, sizeof(r))
    producer._ensure_open()
    if value is None:
        raise TypeError("value must be an Arrow array")
    # the capsules own the exported arrays: kept (in _owners) while the loop reads them
    _owners = [_in_col(&r.value, value, wide_value), _in_col(&r.key, key, wide_key),
               _in_col(&r.topic, topics, wide_topic),
               _in_col(&r.partition, partitions, False), _in_col(&r.headers, headers, False)]
    r.rows = r.value.a.length
    if ((r.key.present and r.key.a.length != r.rows)
            or (r.topic.present and r.topic.a.length != r.rows)
            or (r.partition.present and r.partition.a.length != r.rows)
            or (r.headers.present and r.headers.a.length != r.rows)):
        raise ValueError("every column must have as many rows as value")
    if r.headers.present:
        entries = r.headers.a.children[0]
        r.hentries_offset = entries.offset
        r.hentries_valid = (<const uint8_t *>entries.buffers[0]
                            if entries.null_count != 0 else NULL)
        _in_child(&r.hkey, entries.children[0], False)
        _in_child(&r.hvalue, entries.children[1], False)
    if not r.topic.present:
        if topic is None:
            raise ValueError("topic is required when there is no topic column")
        r.rkt = producer._topic(topic)
    r.rk = producer._rk
    while True:
        with producer._blocking:
            with nogil:
                why = _run_rows(&r)
        if why == _RUN_DONE:
            return r.rows
        if why == _RUN_FULL:
            producer._serve(_monotonic() + 0.1, False)
            producer._ensure_open()         # a callback may have closed it
        elif why == _RUN_TOPIC:
            r.name = _bytes_at(&r.topic, r.row, &tn)
            r.name_len = <Py_ssize_t>tn
            name = r.name[:r.name_len].decode("utf-8")
            r.rkt = producer._topic(name)
        elif why == _RUN_NULL_TOPIC:
            raise ValueError("Null topic present in the data. Use the topic option for "
                             "setting a default topic.")
        elif why == _RUN_NULL_HEADER:
            raise ValueError("Null header key present in the data (row %d)" % r.row)
        else:
            _raise_produce_error(r.err)
