# The Arrow sink (Producer._produce_arrow, used by the Spark sink): the rows of Arrow arrays
# produced in one C loop, without the GIL and without a Python object per row: each array is
# read in place through the Arrow C data interface (the PyCapsules of ``__arrow_c_array__``),
# librdkafka copies each key and value (RD_KAFKA_MSG_F_COPY). The loop takes the GIL back only
# when the local queue is full (then delivery reports are served, as poll() does, and the row is
# tried again), at the first row of a topic it has no handle for yet, and on an error.

from includes.rdkafka cimport (
    RD_KAFKA_MSG_F_COPY,
    RD_KAFKA_PARTITION_UA,
    RD_KAFKA_RESP_ERR__QUEUE_FULL,
    RD_KAFKA_VTYPE_HEADERS,
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
            _vu_message(vus, r.rkt, partition, RD_KAFKA_MSG_F_COPY, vp, vn, kp, kn)
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
    cdef cb_section cs
    cb_section_begin(&cs, producer)
    try:
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
    finally:
        cb_section_end(&cs)
