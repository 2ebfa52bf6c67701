# Consumer: group membership, poll/consume with one GIL release per call, offsets, rebalance
# callbacks served on the polling thread.

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.exc cimport PyErr_CheckSignals
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int64_t
from libc.string cimport strcmp

from includes.rdkafka cimport (
    RD_KAFKA_CONSUMER,
    RD_KAFKA_PARTITION_UA,
    RD_KAFKA_RESP_ERR_NO_ERROR,
    RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS,
    RD_KAFKA_RESP_ERR__PARTITION_EOF,
    RD_KAFKA_RESP_ERR__STATE,
    rd_kafka_assign,
    rd_kafka_assignment,
    rd_kafka_assignment_lost,
    rd_kafka_commit,
    rd_kafka_commit_queue,
    rd_kafka_committed,
    rd_kafka_conf_set_offset_commit_cb,
    rd_kafka_conf_set_rebalance_cb,
    rd_kafka_consume_batch_queue,
    rd_kafka_consumer_close,
    rd_kafka_consumer_group_metadata,
    rd_kafka_consumer_group_metadata_destroy,
    rd_kafka_consumer_group_metadata_t,
    rd_kafka_consumer_group_metadata_write,
    rd_kafka_consumer_poll,
    rd_kafka_error_t,
    rd_kafka_get_watermark_offsets,
    rd_kafka_incremental_assign,
    rd_kafka_incremental_unassign,
    rd_kafka_last_error,
    rd_kafka_mem_free,
    rd_kafka_memberid,
    rd_kafka_message_destroy,
    rd_kafka_message_t,
    rd_kafka_offsets_for_times,
    rd_kafka_offsets_store,
    rd_kafka_pause_partitions,
    rd_kafka_poll_set_consumer,
    rd_kafka_position,
    rd_kafka_query_watermark_offsets,
    rd_kafka_queue_get_consumer,
    rd_kafka_queue_t,
    rd_kafka_rebalance_protocol,
    rd_kafka_resp_err_t,
    rd_kafka_resume_partitions,
    rd_kafka_seek_partitions,
    rd_kafka_subscribe,
    rd_kafka_t,
    rd_kafka_topic_partition_list_add,
    rd_kafka_topic_partition_list_copy,
    rd_kafka_topic_partition_list_t,
    rd_kafka_unsubscribe,
)


cdef struct _CommitResult:
    rd_kafka_resp_err_t err
    rd_kafka_topic_partition_list_t *offsets


cdef void _store_commit_result(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                               rd_kafka_topic_partition_list_t *offsets,
                               void *opaque) noexcept nogil:
    # Pure C: runs inside rd_kafka_commit_queue() on the committing thread, without the GIL.
    cdef _CommitResult *res = <_CommitResult *>opaque
    res.err = err
    if offsets != NULL:
        res.offsets = rd_kafka_topic_partition_list_copy(offsets)


cdef enum:
    CONSUME_MAX = 1000000


@cython.no_gc_clear
cdef class Consumer(_Handle):
    """High-level Kafka consumer (confluent-kafka compatible), classic and KIP-848 groups.

    Callbacks (on_assign/on_revoke/on_lost, on_commit, error_cb, stats_cb, throttle_cb,
    oauth_cb, logger) are served only inside ``poll()``, ``consume()`` and ``close()``.
    """
    def __init__(self, *args, **kwargs):
        if self._rk != NULL:
            raise RuntimeError("Consumer is already initialised")
        conf = _merge_conf(args, kwargs)
        if not conf.get("group.id"):
            # librdkafka's consumer cannot subscribe, assign or close cleanly without a group
            raise ValueError("Failed to create consumer: group.id must be set")
        self._on_commit = _pop_callable(conf, "on_commit")
        cdef _Conf c = self._new_conf(conf, 0)
        rd_kafka_conf_set_rebalance_cb(c.ptr, _rebalance_trampoline)
        rd_kafka_conf_set_offset_commit_cb(c.ptr, _commit_trampoline)
        self._open(RD_KAFKA_CONSUMER, c, "consumer")
        rd_kafka_poll_set_consumer(self._rk)
        self._queue = rd_kafka_queue_get_consumer(self._rk)

    def __dealloc__(self):
        if self._rk != NULL and getpid() == self._pid:
            self._destroy()
        PyMem_Free(self._batch)

    # -- callback bodies --

    cdef void _rebalance(self, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *parts) noexcept:
        cdef bint assign = err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS
        cdef bint cooperative
        self._assigned_by_callback = False
        try:
            if assign:
                cb = self._on_assign
            elif self._on_lost is not None and rd_kafka_assignment_lost(self._rk):
                cb = self._on_lost
            else:
                cb = self._on_revoke
            if cb is not None:
                cb(self, _parts_to_py(parts))
        except BaseException as exc:
            self._stash(exc)
        if self._assigned_by_callback:
            return
        # The callback did not (un)assign: do it, as the group protocol requires.
        try:
            cooperative = strcmp(rd_kafka_rebalance_protocol(self._rk), b"COOPERATIVE") == 0
            if cooperative:
                _check_error(rd_kafka_incremental_assign(self._rk, parts) if assign
                             else rd_kafka_incremental_unassign(self._rk, parts))
            else:
                _check(rd_kafka_assign(self._rk, parts if assign else NULL))
        except BaseException as exc:
            self._stash(exc)

    cdef int _serve_commit(self, rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t *offsets) except -1:
        if self._on_commit is not None:
            self._on_commit(_kafka_error(err), _parts_to_py(offsets))
        return 0

    # -- subscription and assignment --

    def subscribe(self, topics, on_assign=None, on_revoke=None, on_lost=None):
        """Join the group for ``topics`` (names, or ``^regex`` patterns)."""
        self._ensure_open()
        if not isinstance(topics, (list, tuple)):
            raise TypeError("topics must be a list of str, not %s" % type(topics).__name__)
        for name, cb in (("on_assign", on_assign), ("on_revoke", on_revoke), ("on_lost", on_lost)):
            if cb is not None and not callable(cb):
                raise TypeError("%s must be callable" % name)
        cdef _PartList pl = _PartList.new(len(topics))
        for t in topics:
            if not isinstance(t, str):
                raise TypeError("topics must be a list of str, found %s" % type(t).__name__)
            rd_kafka_topic_partition_list_add(pl.ptr, (<str>t).encode(), RD_KAFKA_PARTITION_UA)
        _check(rd_kafka_subscribe(self._rk, pl.ptr), "Failed to set subscription")
        self._on_assign, self._on_revoke, self._on_lost = on_assign, on_revoke, on_lost

    def unsubscribe(self):
        self._ensure_open()
        _check(rd_kafka_unsubscribe(self._rk))

    def assign(self, partitions):
        """Replace the assignment with ``partitions`` (a list of TopicPartition)."""
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions)
        self._assigned_by_callback = True
        _check(rd_kafka_assign(self._rk, pl.ptr))

    def unassign(self):
        self._ensure_open()
        self._assigned_by_callback = True
        _check(rd_kafka_assign(self._rk, NULL))

    def incremental_assign(self, partitions):
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions)
        self._assigned_by_callback = True
        _check_error(rd_kafka_incremental_assign(self._rk, pl.ptr))

    def incremental_unassign(self, partitions):
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions)
        self._assigned_by_callback = True
        _check_error(rd_kafka_incremental_unassign(self._rk, pl.ptr))

    def _defer_assignment(self):
        """Called by a rebalance callback that will (un)assign later (the asyncio consumer
        awaits a coroutine callback first): no automatic (un)assign after it returns. True
        when the group uses the cooperative protocol (incremental_(un)assign then)."""
        self._ensure_open()
        self._assigned_by_callback = True
        return strcmp(rd_kafka_rebalance_protocol(self._rk), b"COOPERATIVE") == 0

    def assignment(self):
        self._ensure_open()
        cdef rd_kafka_topic_partition_list_t *c = NULL
        _check(rd_kafka_assignment(self._rk, &c))
        return _PartList.adopt(c).to_py()

    # -- consuming --

    cdef Message _to_message(self, rd_kafka_message_t *rkm):
        try:
            return _message_from_c(rkm, self._names, False)
        finally:
            rd_kafka_message_destroy(rkm)

    def poll(self, timeout=-1):
        """The next message or event (a Message with error() set), or None after ``timeout``
        seconds (-1: wait forever)."""
        self._ensure_open()
        if self._undelivered:
            return self._undelivered.pop(0)
        cdef rd_kafka_t *rk = self._rk
        # First a non-blocking look with the GIL held: when messages are waiting (the common
        # case under load) there is no GIL release and no clock reading at all.
        cdef rd_kafka_message_t *rkm = rd_kafka_consumer_poll(rk, 0)
        if rkm != NULL and self._exc is None:
            return self._to_message(rkm)
        cdef double deadline = _deadline(timeout)
        cdef int wait
        cdef Message m
        while True:
            wait = 0 if rkm != NULL or self._exc is not None else _chunk_ms(deadline)
            if wait:
                with self._blocking:
                    with nogil:
                        rkm = rd_kafka_consumer_poll(rk, wait)
            m = self._to_message(rkm) if rkm != NULL else None
            rkm = NULL
            if self._exc is not None:
                if m is not None:
                    self._undelivered = [m]
                self._raise_pending()
            if m is not None or wait == 0 or self._blocking.shuts_out():
                return m
            PyErr_CheckSignals()

    def consume(self, int num_messages=1, timeout=-1):
        """Up to ``num_messages`` messages (and events): returns when that many have arrived
        or ``timeout`` seconds have passed (-1: wait forever), like confluent-kafka."""
        self._ensure_open()
        if num_messages < 0 or num_messages > CONSUME_MAX:
            raise ValueError("num_messages must be between 0 and %d (1M)" % CONSUME_MAX)
        if num_messages == 0:
            return []   # nothing asked for: do not wait (it would never end with timeout=-1)
        if self._undelivered:
            held, self._undelivered = self._undelivered, None
            return held
        self._batch_room(num_messages)
        cdef rd_kafka_queue_t *q = self._queue
        cdef rd_kafka_message_t **batch = self._batch
        cdef ssize_t i
        cdef size_t want
        cdef int wait
        # First a non-blocking look with the GIL held: a prefetched full batch costs no GIL
        # release and no clock reading.
        cdef ssize_t n = rd_kafka_consume_batch_queue(q, 0, batch, num_messages)
        cdef list out = [self._to_message(batch[i]) for i in range(n)]
        if n == num_messages and self._exc is None:
            return out
        cdef double deadline = _deadline(timeout)
        # Fill the batch over several GIL-free chunks (Ctrl-C is checked between them): a
        # chunk that brought some messages does not end the call before the timeout.
        while True:
            wait = _chunk_ms(deadline)
            want = num_messages - len(out)
            if wait and self._exc is None and not self._blocking.shuts_out():
                with self._blocking:
                    with nogil:
                        n = rd_kafka_consume_batch_queue(q, wait, batch, want)
            else:
                n = 0
            if n < 0:
                if out:
                    self._undelivered = out
                _check(rd_kafka_last_error())
            for i in range(n):
                out.append(self._to_message(batch[i]))
            if self._exc is not None:
                if out:
                    self._undelivered = out
                self._raise_pending()
            if len(out) >= num_messages or wait == 0 or self._blocking.shuts_out():
                return out
            try:
                PyErr_CheckSignals()
            except BaseException:   # never lose messages already taken from librdkafka
                if out:
                    self._undelivered = out
                raise

    # -- iteration (an extension: kafka-python's and aiokafka's consumers iterate) --

    def __iter__(self):
        return self

    def __next__(self):
        """The next message, waiting as long as it takes (served by poll(), so callbacks run
        and Ctrl-C interrupts as there); KafkaException for a consumer error (partition-EOF
        events are skipped); the iteration ends when the consumer is closed."""
        while True:
            if self._rk == NULL or self._blocking.shuts_out():
                raise StopIteration
            try:
                msg = self.poll(-1)     # a subclass's poll() (DeserializingConsumer) applies
            except RuntimeError:
                if self._rk == NULL or self._blocking.shuts_out():
                    raise StopIteration
                raise
            if msg is None:             # closed by another thread meanwhile
                continue
            err = msg.error()
            if err is None:
                return msg
            if err.code() != RD_KAFKA_RESP_ERR__PARTITION_EOF:
                raise KafkaException(err)

    cdef int _batch_room(self, size_t n) except -1:
        """Makes the reused message pointer array hold at least ``n``."""
        if n > self._batch_size:
            PyMem_Free(self._batch)
            self._batch = <rd_kafka_message_t **>PyMem_Malloc(n * sizeof(void *))
            self._batch_size = n if self._batch != NULL else 0
            if self._batch == NULL:
                raise MemoryError()
        return 0

    def consume_arrow(self, int num_messages=10000, timeout=-1, end_offsets=None,
                      bint headers=False):
        """Up to ``num_messages`` messages as one ``pyarrow.RecordBatch`` with the columns of
        Spark's Kafka source: key, value (binary), topic (string), partition (int32), offset
        (int64), timestamp (timestamp[us, UTC], null when unknown), timestampType (int32: -1
        none, 0 create time, 1 log append time) and, with ``headers=True``, headers
        (list<struct<key: string, value: binary>>, null when a record has none).

        The records go from librdkafka into Arrow buffers in C, without a Python object per
        record (needs pyarrow). Waits like consume(): until ``num_messages`` arrived or
        ``timeout`` seconds passed (-1: forever).

        ``end_offsets``: {(topic, partition): end} makes the read range-bounded: records at
        or after a partition's end are dropped, and the call returns as soon as every listed
        partition reached its end (a record at end - 1, or, with enable.partition.eof, the
        partition's end). Partition-EOF events never become rows. An error event ends the
        batch: it is raised as KafkaException, after the rows taken before it were returned.
        """
        self._ensure_open()
        if num_messages < 0 or num_messages > CONSUME_MAX:
            raise ValueError("num_messages must be between 0 and %d" % CONSUME_MAX)
        if self._arrow_error is not None:
            err, self._arrow_error = self._arrow_error, None
            raise KafkaException(err)
        cdef _ArrowColumns cols = _ArrowColumns(headers)
        cdef _EndOffsets ends = _EndOffsets(end_offsets)
        cdef list errors = []
        if num_messages == 0 or (ends.count and ends.left == 0):
            return cols.finish()
        self._batch_room(num_messages)
        cdef rd_kafka_queue_t *q = self._queue
        cdef rd_kafka_message_t **batch = self._batch
        cdef ssize_t i, n
        cdef size_t taken = 0
        cdef int wait
        cdef double deadline = 0
        cdef bint first = True
        while True:
            if first:   # a non-blocking look first, with the GIL held
                wait = 1
                n = rd_kafka_consume_batch_queue(q, 0, batch, num_messages)
            else:
                wait = _chunk_ms(deadline)
                if wait and self._exc is None and not self._blocking.shuts_out():
                    with self._blocking:
                        with nogil:
                            n = rd_kafka_consume_batch_queue(q, wait, batch,
                                                             num_messages - taken)
                else:
                    n = 0
            if n < 0:
                _check(rd_kafka_last_error())
            i = 0
            try:
                while i < n:
                    _take_columnar(batch[i], cols, ends, errors)
                    i += 1
            finally:
                while i + 1 < n:    # an exception left messages behind: free them
                    i += 1
                    rd_kafka_message_destroy(batch[i])
            taken += n
            if self._exc is not None:
                self._raise_pending()
            if errors:
                if cols.rows:
                    self._arrow_error = errors[0]
                    break
                raise KafkaException(errors[0])
            if (taken >= <size_t>num_messages or wait == 0 or (ends.count and ends.left == 0)
                    or self._blocking.shuts_out()):
                break
            if first:
                first = False
                deadline = _deadline(timeout)
            else:
                PyErr_CheckSignals()
        return cols.finish()

    # -- offsets --

    def commit(self, message=None, offsets=None, bint asynchronous=True):
        """Commit ``message``'s offset + 1, ``offsets``, or the current positions.

        Asynchronous: returns None, the result goes to on_commit. Synchronous: returns the
        committed TopicPartition list (per-partition errors set) or raises KafkaException.
        """
        self._ensure_open()
        if message is not None and offsets is not None:
            raise ValueError("message and offsets are mutually exclusive")
        cdef _PartList pl = None
        if message is not None:
            pl = _PartList.from_py(_message_partition(message, "commit"))
        elif offsets is not None:
            pl = _PartList.from_py(offsets)
        cdef const rd_kafka_topic_partition_list_t *c = pl.ptr if pl is not None else NULL
        cdef _CommitResult res
        cdef rd_kafka_resp_err_t err
        if asynchronous:
            _check(rd_kafka_commit(self._rk, c, 1))
            return None
        res.err, res.offsets = RD_KAFKA_RESP_ERR_NO_ERROR, NULL
        with self._blocking:
            with nogil:
                err = rd_kafka_commit_queue(self._rk, c, NULL, _store_commit_result, &res)
        cdef _PartList result = _PartList.adopt(res.offsets)
        _check(err if err else res.err, "Commit failed")
        return result.to_py()

    def committed(self, partitions, timeout=-1):
        """The group's committed offsets for ``partitions``."""
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions, False)
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_resp_err_t err
        with self._blocking:
            with nogil:
                err = rd_kafka_committed(self._rk, pl.ptr, tmout)
        _check(err, "Failed to get committed offsets")
        return pl.to_py()

    def position(self, partitions):
        """The next offset this consumer will read for each of ``partitions``."""
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions, False)
        _check(rd_kafka_position(self._rk, pl.ptr))
        return pl.to_py()

    def store_offsets(self, message=None, offsets=None):
        """Store offsets (message offset + 1, or ``offsets`` as given) for the next commit."""
        self._ensure_open()
        if message is not None and offsets is not None:
            raise ValueError("message and offsets are mutually exclusive")
        if message is None and offsets is None:
            raise ValueError("expected either message or offsets")
        cdef _PartList pl = _PartList.from_py(
            _message_partition(message, "store") if message is not None else offsets)
        _check(rd_kafka_offsets_store(self._rk, pl.ptr), "StoreOffsets failed")
        cdef int i
        for i in range(pl.ptr.cnt):
            _check(pl.ptr.elems[i].err, "StoreOffsets failed")

    def seek(self, partition):
        """Move the fetch position of an assigned partition to ``partition.offset``."""
        self._ensure_open()
        if not isinstance(partition, TopicPartition):
            raise TypeError("expected cimpl.TopicPartition")
        cdef _PartList pl = _PartList.from_py([partition])
        cdef rd_kafka_error_t *error
        with self._blocking:
            with nogil:
                error = rd_kafka_seek_partitions(self._rk, pl.ptr, -1)
        _check_error(error)
        _check(pl.ptr.elems[0].err,
               "Failed to seek to offset %d" % (<TopicPartition>partition).offset)

    def pause(self, partitions):
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions, False)
        _check(rd_kafka_pause_partitions(self._rk, pl.ptr))

    def resume(self, partitions):
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions, False)
        _check(rd_kafka_resume_partitions(self._rk, pl.ptr))

    def get_watermark_offsets(self, partition, timeout=None, bint cached=False):
        """(low, high) offsets of ``partition``: asked of the broker, or the cached values."""
        self._ensure_open()
        if not isinstance(partition, TopicPartition):
            raise TypeError("expected cimpl.TopicPartition")
        cdef TopicPartition tp = partition
        cdef bytes topic = tp.topic.encode()
        cdef const char *ctopic = topic
        cdef int64_t low = 0, high = 0
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_resp_err_t err
        if cached:
            err = rd_kafka_get_watermark_offsets(self._rk, ctopic, tp.partition, &low, &high)
        else:
            with self._blocking:
                with nogil:
                    err = rd_kafka_query_watermark_offsets(self._rk, ctopic, tp.partition, &low,
                                                           &high, tmout)
        _check(err, "Failed to get watermark offsets")
        return (low, high)

    def offsets_for_times(self, partitions, timeout=None):
        """For each partition (its ``offset`` a timestamp in ms): the earliest offset whose
        timestamp is at or after it (-1 when there is none)."""
        self._ensure_open()
        cdef _PartList pl = _PartList.from_py(partitions)
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_resp_err_t err
        with self._blocking:
            with nogil:
                err = rd_kafka_offsets_for_times(self._rk, pl.ptr, tmout)
        _check(err, "Failed to get offsets")
        return pl.to_py()

    # -- group --

    def memberid(self):
        """The group member id, or None while the consumer is not a member (as confluent-kafka)."""
        self._ensure_open()
        cdef char *mid = rd_kafka_memberid(self._rk)
        if mid == NULL:
            return None
        try:
            return _cstr(mid) if mid[0] else None
        finally:
            rd_kafka_mem_free(self._rk, mid)

    def consumer_group_metadata(self):
        self._ensure_open()
        cdef rd_kafka_consumer_group_metadata_t *cgmd = rd_kafka_consumer_group_metadata(self._rk)
        cdef void *buf = NULL
        cdef size_t size = 0
        if cgmd == NULL:
            raise KafkaException(KafkaError(RD_KAFKA_RESP_ERR__STATE,
                                            "consumer group metadata is not available"))
        try:
            _check_error(rd_kafka_consumer_group_metadata_write(cgmd, &buf, &size))
        finally:
            rd_kafka_consumer_group_metadata_destroy(cgmd)
        try:
            return _cgmd_from_bytes(PyBytes_FromStringAndSize(<const char *>buf, size))
        finally:
            rd_kafka_mem_free(self._rk, buf)

    def close(self):
        """Leave the group (committing offsets if auto-commit is on), serve the final
        rebalance callbacks, and free the consumer. Closing twice is harmless."""
        if self._forget_if_forked() or self._rk == NULL:
            return
        self._blocking.drain()
        cdef rd_kafka_resp_err_t err
        with self._blocking:
            with nogil:
                err = rd_kafka_consumer_close(self._rk)
        self._undelivered = None
        self._destroy()
        self._raise_pending()
        _check(err)


cdef void _rebalance_trampoline(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                                rd_kafka_topic_partition_list_t *partitions,
                                void *opaque) noexcept with gil:
    cdef Consumer c = <Consumer>opaque
    if c._callbacks_off:
        rd_kafka_assign(rk, NULL)
        return
    c._rebalance(err, partitions)


cdef void _commit_trampoline(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t *offsets,
                             void *opaque) noexcept with gil:
    cdef Consumer c = <Consumer>opaque
    if c._callbacks_off:
        return
    try:
        c._serve_commit(err, offsets)
    except BaseException as exc:
        c._stash(exc)
