# Columnar consume (Consumer.consume_arrow): librdkafka messages copied straight into Arrow
# buffers in C, one memcpy per field and no Python object per record. The buffers are handed to
# pyarrow zero-copy through the buffer protocol; confluent_binding._arrow (pure Python, imported
# only when the method is used) assembles them into a RecordBatch.

from cpython.buffer cimport PyBuffer_FillInfo
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.string cimport memcpy, strcmp, strlen

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


@cython.final
cdef class _ArrowBuf:
    """One growable block of memory: an Arrow buffer under construction. Exposes it read-only
    through the buffer protocol (pyarrow.py_buffer wraps it without a copy)."""

    def __dealloc__(self):
        PyMem_Free(self.data)

    def __getbuffer__(self, Py_buffer *view, int flags):
        PyBuffer_FillInfo(view, self, self.data if self.data != NULL else <char *>"",
                          self.size, 1, flags)

    def __len__(self):
        return self.size

    cdef int reserve(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t want = self.size + extra
        cdef Py_ssize_t cap = self.cap if self.cap else 256
        cdef char *p
        if want <= self.cap:
            return 0
        while cap < want:
            cap *= 2
        p = <char *>PyMem_Realloc(self.data, cap)
        if p == NULL:
            raise MemoryError()
        self.data, self.cap = p, cap
        return 0

    cdef inline int append(self, const void *src, Py_ssize_t n) except -1:
        if self.size + n > self.cap:
            self.reserve(n)
        if n:
            memcpy(self.data + self.size, src, n)
        self.size += n
        return 0

    cdef inline int append_i32(self, int32_t v) except -1:
        return self.append(&v, 4)

    cdef inline int append_i64(self, int64_t v) except -1:
        return self.append(&v, 8)

    cdef inline int append_bit(self, Py_ssize_t i, bint v) except -1:
        """Sets bit ``i`` (rows are appended in order: a new byte starts every 8 rows)."""
        cdef uint8_t zero = 0
        if i % 8 == 0:
            self.append(&zero, 1)
        if v:
            (<uint8_t *>self.data)[i >> 3] |= <uint8_t>(1 << (i & 7))
        return 0


cdef inline int _append_bytes(_ArrowBuf valid, _ArrowBuf offsets, _ArrowBuf data,
                              Py_ssize_t row, const void *p, Py_ssize_t n) except -1:
    """One row of a nullable binary/string column (``p`` NULL: null)."""
    if valid is not None:
        valid.append_bit(row, p != NULL)
    if p != NULL:
        data.append(p, n)
    offsets.append_i32(<int32_t>data.size)
    return 0


@cython.final
cdef class _ArrowColumns:
    """The connector's columns (key, value, topic, partition, offset, timestamp, timestampType,
    optional headers) being filled from librdkafka messages."""

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
        self.rows = 0
        self.header_rows = 0
        self.key_nulls = self.value_nulls = self.ts_nulls = self.h_nulls = self.hv_nulls = 0
        self.last_rkt = NULL
        self.key_off.append_i32(0)
        self.value_off.append_i32(0)
        self.topic_off.append_i32(0)
        self.h_off.append_i32(0)
        self.hk_off.append_i32(0)
        self.hv_off.append_i32(0)

    cdef bint fits(self, const rd_kafka_message_t *rkm) noexcept:
        """Whether the record can join the batch without a column passing the size limit."""
        cdef rd_kafka_headers_t *hdrs
        cdef size_t i = 0
        cdef const char *name
        cdef const void *val
        cdef size_t size
        cdef Py_ssize_t names = 0, values = 0
        if rkm.rkt != self.last_rkt:
            self.last_rkt = rkm.rkt
            self.last_topic = rd_kafka_topic_name(rkm.rkt)
            self.last_topic_len = strlen(self.last_topic)
        if (self.key_data.size + <Py_ssize_t>rkm.key_len > _arrow_max_bytes
                or self.value_data.size + <Py_ssize_t>rkm.len > _arrow_max_bytes
                or self.topic_data.size + self.last_topic_len > _arrow_max_bytes):
            return False
        if self.headers:
            hdrs = _headers_of(rkm)
            while (hdrs != NULL and rd_kafka_header_get_all(hdrs, i, &name, &val, &size)
                   == RD_KAFKA_RESP_ERR_NO_ERROR):
                names += strlen(name)
                values += size
                i += 1
            return (self.hk_data.size + names <= _arrow_max_bytes
                    and self.hv_data.size + values <= _arrow_max_bytes)
        return True

    cdef int add(self, const rd_kafka_message_t *rkm) except -1:
        """Appends one record (the caller still owns it, checked rkm.err is 0 and that it
        fits(), which also cached its topic name)."""
        cdef Py_ssize_t row = self.rows
        cdef rd_kafka_timestamp_type_t tstype
        cdef int64_t ts
        _append_bytes(self.key_valid, self.key_off, self.key_data, row, rkm.key, rkm.key_len)
        _append_bytes(self.value_valid, self.value_off, self.value_data, row, rkm.payload,
                      rkm.len)
        _append_bytes(None, self.topic_off, self.topic_data, row, self.last_topic,
                      self.last_topic_len)
        if rkm.key == NULL:
            self.key_nulls += 1
        if rkm.payload == NULL:
            self.value_nulls += 1
        self.partition.append_i32(rkm.partition)
        self.offset.append_i64(rkm.offset)
        ts = rd_kafka_message_timestamp(rkm, &tstype)
        self.ts_valid.append_bit(row, tstype != 0)
        if tstype == 0:
            self.ts_nulls += 1
            ts = 0
        self.ts.append_i64(ts * 1000)
        # Kafka's (and Spark's) numbering: -1 none, 0 create time, 1 log append time
        self.ts_type.append_i32(<int32_t>tstype - 1)
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
            self.h_valid.append_bit(row, False)
            self.h_nulls += 1
            self.h_off.append_i32(<int32_t>self.header_rows)
            return 0
        while rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR:
            _append_bytes(None, self.hk_off, self.hk_data, self.header_rows, name, strlen(name))
            _append_bytes(self.hv_valid, self.hv_off, self.hv_data, self.header_rows, val, size)
            if val == NULL:
                self.hv_nulls += 1
            self.header_rows += 1
            i += 1
        self.h_valid.append_bit(row, True)
        self.h_off.append_i32(<int32_t>self.header_rows)
        return 0

    cdef Py_ssize_t take(self, rd_kafka_message_t **msgs, Py_ssize_t i, Py_ssize_t end,
                         _EndOffsets ends) except -1:
        """Takes the records of msgs[i:end] into the columns (the caller still owns the
        messages); partition-EOF events and records at or past their partition's end are
        skipped. Returns where it stopped: ``end``, or the index of an error event or of a
        record that does not fit (the batch ends before it)."""
        cdef rd_kafka_message_t *rkm
        cdef _EndOffset *e
        while i < end:
            rkm = msgs[i]
            e = ends.find(rkm) if ends.count and rkm.rkt != NULL else NULL
            if rkm.err == RD_KAFKA_RESP_ERR__PARTITION_EOF:
                if e != NULL and rkm.offset >= e.end:
                    ends.finished(e)
            elif rkm.err:
                return i
            elif e == NULL or rkm.offset < e.end:
                if not self.fits(rkm):
                    return i
                if e != NULL and rkm.offset + 1 >= e.end:
                    ends.finished(e)
                self.add(rkm)
            else:
                ends.finished(e)
            i += 1
        return end

    # read by confluent_binding._arrow.record_batch
    @property
    def parts(self):
        return dict(
            rows=self.rows, headers=self.headers, header_rows=self.header_rows,
            key=(self.key_valid, self.key_off, self.key_data, self.key_nulls),
            value=(self.value_valid, self.value_off, self.value_data, self.value_nulls),
            topic=(self.topic_off, self.topic_data),
            partition=self.partition, offset=self.offset,
            timestamp=(self.ts_valid, self.ts, self.ts_nulls), timestamp_type=self.ts_type,
            header_list=(self.h_valid, self.h_off, self.h_nulls),
            header_key=(self.hk_off, self.hk_data),
            header_value=(self.hv_valid, self.hv_off, self.hv_data, self.hv_nulls),
        )


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

    def __dealloc__(self):
        PyMem_Free(self.parts)

    cdef _EndOffset *find(self, const rd_kafka_message_t *rkm):
        cdef Py_ssize_t i
        cdef const char *name
        if self.count == 0:
            return NULL
        name = rd_kafka_topic_name(rkm.rkt)
        for i in range(self.count):
            if self.parts[i].partition == rkm.partition and strcmp(self.parts[i].topic, name) == 0:
                return &self.parts[i]
        return NULL

    cdef inline void finished(self, _EndOffset *e):
        if not e.done:
            e.done = True
            self.left -= 1
