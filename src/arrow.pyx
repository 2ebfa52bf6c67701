# Columnar consume (Consumer.consume_arrow): librdkafka messages copied straight into Arrow
# buffers in C (arrow_buffers.pyx), one memcpy per field and no Python object per record. A batch
# goes to pyarrow zero-copy through the Arrow PyCapsule interface (``__arrow_c_array__``: the C
# data interface's schema and array, imported with pyarrow.record_batch); the batch's release
# callback gives the memory back (from any thread, without the GIL). pyarrow is optional: imported
# when the method is first used.

from includes.rdkafka cimport (
    RD_KAFKA_RESP_ERR__PARTITION_EOF,
    rd_kafka_message_errstr,
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


# -- the batch's schema: the one list of the columns --
#
# The columns of Spark's Kafka source, in this order (_ArrowColumns._export() fills them by these
# positions). _schema() names and types them in the Arrow C data interface; the pyarrow schema
# (_arrow_schema) is imported from it, and Spark's (confluent_binding.spark.kafka_schema) is
# converted from that.

cdef enum:
    _KEY = 0
    _VALUE = 1
    _TOPIC = 2
    _PARTITION = 3
    _OFFSET = 4
    _TIMESTAMP = 5
    _TIMESTAMP_TYPE = 6
    _COLUMNS = 7            # without the optional headers column
    _HEADERS = 7


# The Arrow C data interface's schema (its ABI is Arrow's specification).
cdef struct ArrowSchema:
    const char *format
    const char *name
    const char *metadata
    int64_t flags
    int64_t n_children
    ArrowSchema **children
    ArrowSchema *dictionary
    void (*release)(ArrowSchema *) noexcept nogil
    void *private_data


cdef enum:
    _ARROW_FLAG_NULLABLE = 2
    _SCHEMA_NODES = 12      # the columns, the headers' entries and their key and value


# The nodes under an exported schema, freed by its release callback.
cdef struct _SchemaMem:
    ArrowSchema nodes[_SCHEMA_NODES]
    ArrowSchema *children[_SCHEMA_NODES]
    int nnodes
    int nchildren


cdef void _release_schema_child(ArrowSchema *s) noexcept nogil:
    s.release = NULL    # a node's memory is the schema's: freed by the top node's release


cdef void _release_schema(ArrowSchema *s) noexcept nogil:
    free(s.private_data)
    s.release = NULL


cdef ArrowSchema *_field(_SchemaMem *m, const char *name, const char *fmt,
                         int n_children) noexcept:
    """The next node of an exported schema: a nullable field."""
    cdef ArrowSchema *f = &m.nodes[m.nnodes]
    m.nnodes += 1
    f[0] = ArrowSchema(format=fmt, name=name, metadata=NULL, flags=_ARROW_FLAG_NULLABLE,
                       n_children=n_children, children=&m.children[m.nchildren],
                       dictionary=NULL, release=_release_schema_child, private_data=NULL)
    m.nchildren += n_children
    return f


cdef int _schema(ArrowSchema *top, bint headers) except -1:
    """Makes ``top`` the schema of a batch: a struct of the columns."""
    cdef ArrowSchema *entry
    cdef ArrowSchema **col
    cdef _SchemaMem *m = <_SchemaMem *>calloc(1, sizeof(_SchemaMem))
    if m == NULL:
        raise MemoryError()
    m.nchildren = _COLUMNS + 1 if headers else _COLUMNS
    top[0] = ArrowSchema(format=b"+s", name=b"", metadata=NULL, flags=0, n_children=m.nchildren,
                         children=&m.children[0], dictionary=NULL, release=_release_schema,
                         private_data=m)
    col = m.children
    col[_KEY] = _field(m, b"key", b"z", 0)                         # binary
    col[_VALUE] = _field(m, b"value", b"z", 0)
    col[_TOPIC] = _field(m, b"topic", b"u", 0)                     # string
    col[_PARTITION] = _field(m, b"partition", b"i", 0)             # int32
    col[_OFFSET] = _field(m, b"offset", b"l", 0)                   # int64
    col[_TIMESTAMP] = _field(m, b"timestamp", b"tsu:UTC", 0)       # timestamp[us, UTC]
    col[_TIMESTAMP_TYPE] = _field(m, b"timestampType", b"i", 0)
    if headers:             # list<element: struct<key: string, value: binary>>
        col[_HEADERS] = _field(m, b"headers", b"+l", 1)
        entry = col[_HEADERS].children[0] = _field(m, b"element", b"+s", 2)
        entry.children[0] = _field(m, b"key", b"u", 0)
        entry.children[1] = _field(m, b"value", b"z", 0)
    return 0


cdef void _free_schema_capsule(object capsule) noexcept:
    cdef ArrowSchema *s = <ArrowSchema *>PyCapsule_GetPointer(capsule, b"arrow_schema")
    if s != NULL:
        if s.release != NULL:       # not imported
            s.release(s)
        free(s)


cdef void _free_array_capsule(object capsule) noexcept:
    cdef ArrowArray *a = <ArrowArray *>PyCapsule_GetPointer(capsule, b"arrow_array")
    if a != NULL:
        if a.release != NULL:       # not imported: the batch's memory goes back here
            a.release(a)
        free(a)


cdef object _new_capsule(size_t size, const char *name, PyCapsule_Destructor destructor):
    """A PyCapsule owning ``size`` zeroed bytes: a C data interface struct, released until it
    is filled (the destructor releases it unless imported, then frees it)."""
    cdef void *p = calloc(1, size)
    if p == NULL:
        raise MemoryError()
    try:
        return PyCapsule_New(p, name, destructor)
    except BaseException:
        free(p)
        raise


cdef object _schema_capsule(bint headers):
    """A batch's schema in an "arrow_schema" PyCapsule."""
    capsule = _new_capsule(sizeof(ArrowSchema), b"arrow_schema", _free_schema_capsule)
    _schema(<ArrowSchema *>PyCapsule_GetPointer(capsule, b"arrow_schema"), headers)
    return capsule


# -- pyarrow: optional, imported when consume_arrow() or the schema is first used --

cdef object _record_batch = None    # pyarrow.record_batch: imports a __arrow_c_array__ object
cdef dict _arrow_schemas = {}


cdef object _pyarrow():
    """pyarrow; ImportError naming the extra when it is missing."""
    global _record_batch
    try:
        import pyarrow
    except ImportError as e:
        raise ImportError("Consumer.consume_arrow() needs pyarrow: "
                          "pip install 'confluent_binding[arrow]'") from e
    _record_batch = pyarrow.record_batch
    return pyarrow


def _arrow_schema(headers=False):
    """The columns of Spark's Kafka source, as Spark expects them from a Python data source
    (a ``pyarrow.Schema``; ``headers=True`` adds the headers column)."""
    headers = bool(headers)
    s = _arrow_schemas.get(headers)
    if s is None:
        s = _arrow_schemas[headers] = _pyarrow().schema(_ArrowColumns(headers))
    return s


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
        cdef _Header h
        if not _headers_start(&h, rkm):
            self.h_nulls += 1
        else:
            while _next_header(&h):
                self.hk_off.reserve(4)
                self.hv_off.reserve(4)
                if self.hv_nulls:
                    self.hv_valid.zeroed((self.header_rows + 8) >> 3)
                _append_string(self.hk_off, self.hk_data, self.header_rows, h.name,
                               strlen(h.name))
                _append_binary(self.hv_valid, self.hv_off, self.hv_data, self.header_rows,
                               h.val, h.size, &self.hv_nulls, self.header_rows + 1)
                self.header_rows += 1
                self.hk_off.size += 4
                self.hv_off.size += 4
            _set_bit(self.h_valid, row)
        (<int32_t *>self.h_off.data)[row + 1] = <int32_t>self.header_rows
        return 0

    cdef bint headers_fit(self, const rd_kafka_message_t *rkm) noexcept:
        cdef _Header h
        cdef Py_ssize_t names = 0, values = 0
        _headers_start(&h, rkm)
        while _next_header(&h):
            names += strlen(h.name)
            values += h.size
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

    cdef int _export(self, ArrowArray *top) except -1:
        """Makes ``top`` the batch of the rows so far (a struct array of the columns, in the
        order of _COLUMNS); the buffers go to it (the columns are empty after)."""
        cdef int64_t n = self.rows
        cdef int64_t m = self.header_rows
        cdef ArrowArray *lst
        cdef ArrowArray *entries
        cdef ArrowArray **col
        cdef _BatchMem *mem = <_BatchMem *>calloc(1, sizeof(_BatchMem))
        if mem == NULL:
            raise MemoryError()
        top.length, top.null_count, top.offset = n, 0, 0
        top.n_buffers, top.n_children = 1, _COLUMNS + 1 if self.headers else _COLUMNS
        top.buffers = mem.top_buffers
        top.children = col = mem.children
        mem.nchildren = <int>top.n_children
        top.dictionary = NULL
        top.private_data = mem
        top.release = _release_batch
        col[_KEY] = _binary_array(mem, n, self.key_nulls, self.key_valid, self.key_off,
                                  self.key_data)
        col[_VALUE] = _binary_array(mem, n, self.value_nulls, self.value_valid, self.value_off,
                                    self.value_data)
        col[_TOPIC] = _binary_array(mem, n, 0, self.key_valid, self.topic_off, self.topic_data)
        col[_PARTITION] = _fixed_array(mem, n, 0, self.ts_valid, self.partition)
        col[_OFFSET] = _fixed_array(mem, n, 0, self.ts_valid, self.offset)
        col[_TIMESTAMP] = _fixed_array(mem, n, self.ts_nulls, self.ts_valid, self.ts)
        col[_TIMESTAMP_TYPE] = _fixed_array(mem, n, 0, self.ts_valid, self.ts_type)
        if self.headers:
            lst = col[_HEADERS] = _array(mem, n, self.h_nulls, 2, 1)
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

    def __arrow_c_schema__(self):
        """The batch's schema, an "arrow_schema" PyCapsule (the Arrow PyCapsule interface)."""
        return _schema_capsule(self.headers)

    def __arrow_c_array__(self, requested_schema=None):
        """The rows so far as a pair of PyCapsules, "arrow_schema" and "arrow_array" (the
        Arrow PyCapsule interface): a struct array of the columns, zero-copy, whose release
        callback gives the memory back; the columns are empty after. ``requested_schema`` is
        not followed (the columns' types are fixed; the interface leaves a cast to the
        importer)."""
        schema = _schema_capsule(self.headers)
        array = _new_capsule(sizeof(ArrowArray), b"arrow_array", _free_array_capsule)
        self._export(<ArrowArray *>PyCapsule_GetPointer(array, b"arrow_array"))
        return schema, array


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


# -- Consumer.consume_arrow() --

cdef object _consume_arrow(Consumer c, int num_messages, object timeout, object end_offsets,
                           bint headers):
    """Consumer.consume_arrow(): the messages it takes go into an _ArrowColumns, the batch is
    the columns imported by pyarrow (the Consumer's method says what it does)."""
    c._ensure_open()
    if num_messages < 0 or num_messages > CONSUME_MAX:
        raise ValueError("num_messages must be between 0 and %d" % CONSUME_MAX)
    if _record_batch is None:
        _pyarrow()      # ImportError before taking any message
    cdef _ArrowColumns cols = _ArrowColumns(headers)
    cdef _EndOffsets ends = _EndOffsets(end_offsets)
    if num_messages == 0 or (ends.count and ends.left == 0):
        return _record_batch(cols)
    cdef _Custody custody = c._custody
    cdef size_t want = num_messages
    cdef size_t done = 0    # call.msgs[call.start:done] went into the columns or were skipped
    cdef size_t stop
    cdef double deadline = 0
    cdef int wait
    cdef rd_kafka_message_t *rkm
    cdef _Msgs call
    error = None
    if custody.filling and custody.await_fill(c, timeout, &deadline):
        return _record_batch(cols)  # called from the fill's callback, or the timeout passed
    # Counted in for the whole call: close() in another thread waits until the messages taken
    # here are handed out or kept. They are handed out (destroyed) only once the RecordBatch is
    # built (see _Custody).
    with c._blocking:
        custody.begin_call(c._rk, &call, want)
        try:
            done = call.start
            if call.start < call.end:   # kept or read ahead: those only
                stop = min(call.end, call.start + want)
                done = cols.take(call.msgs, done, stop, ends, want)
            else:
                custody.fetch(c, &call, want, 0)    # a look first, GIL held
                done = cols.take(call.msgs, done, call.end, ends, want - cols.rows)
                if (done == call.end and call.end < want
                        and not (ends.count and ends.left == 0)):
                    if deadline == 0:   # (else await_fill() computed it)
                        deadline = _deadline(timeout)
                    while c._exc is None:
                        wait = _chunk_ms(deadline)
                        if wait and not c._blocking.shuts_out():
                            custody.fetch(c, &call, want - call.end, wait)
                            done = cols.take(call.msgs, done, call.end, ends, want - cols.rows)
                        if (done < call.end or call.end >= want or wait == 0
                                or (ends.count and ends.left == 0)
                                or c._blocking.shuts_out()):
                            break
                        PyErr_CheckSignals()
                c._raise_pending()
            if done < call.end and done < call.start + want:
                # an error event, or a record that does not fit: the batch ends before it
                rkm = call.msgs[done]
                if rkm.err and cols.rows == 0:
                    error = KafkaError(<int>rkm.err, _cstr(rd_kafka_message_errstr(rkm)))
                    done += 1
                elif not rkm.err and cols.rows == 0:
                    raise OverflowError("a record does not fit in an Arrow batch column")
            batch = (None if error is not None
                     else _record_batch(cols))
        except BaseException:
            custody.end_call(&call, 0)
            raise
        custody.end_call(&call, done - call.start)
    if error is not None:
        raise KafkaException(error)
    return batch
