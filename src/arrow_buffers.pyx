# The memory of consume_arrow() batches: growable buffers (_ArrowBuf) whose blocks a batch takes
# over when it is exported through the Arrow C data interface, the arrays of that export
# (_BatchMem) and the pool that keeps the large blocks of released batches for the next ones.
# A batch's release callback gives its memory back from any thread, without the GIL.


cdef int64_t _empty_buffer = 0      # what an empty buffer points at (never NULL)


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
