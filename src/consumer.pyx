# Consumer: group membership, poll/consume with one GIL release per call, offsets, rebalance
# callbacks served on the polling thread.

from includes.rdkafka cimport (
    RD_KAFKA_CONSUMER,
    RD_KAFKA_PARTITION_UA,
    RD_KAFKA_EVENT_OFFSET_COMMIT,
    RD_KAFKA_EVENT_REBALANCE,
    RD_KAFKA_RESP_ERR_NO_ERROR,
    RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS,
    RD_KAFKA_RESP_ERR__FATAL,
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
    rd_kafka_consume_batch_queue_deferred,
    rd_kafka_consumer_close_queue,
    rd_kafka_consumer_closed,
    rd_kafka_consumer_group_metadata,
    rd_kafka_consumer_group_metadata_destroy,
    rd_kafka_consumer_group_metadata_t,
    rd_kafka_consumer_group_metadata_write,
    rd_kafka_consumer_poll,
    rd_kafka_error_code,
    rd_kafka_event_destroy,
    rd_kafka_event_error,
    rd_kafka_event_t,
    rd_kafka_event_topic_partition_list,
    rd_kafka_event_type,
    rd_kafka_error_destroy,
    rd_kafka_error_is_fatal,
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
    rd_kafka_queue_destroy,
    rd_kafka_queue_get_consumer,
    rd_kafka_queue_new,
    rd_kafka_queue_poll,
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
    CB_READ_AHEAD,
    cb_coarse_ms,
    cb_hand_out,
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
    # poll() takes up to AHEAD messages per librdkafka call, and has librdkafka serve the queue
    # again (callbacks, rebalances, max.poll.interval.ms) once STALE_MS passed without
    AHEAD = 64
    STALE_MS = 20


@cython.binding(False)
@cython.no_gc_clear
cdef class Consumer(_Handle):
    """High-level Kafka consumer (confluent-kafka compatible), classic and KIP-848 groups.

    Callbacks (on_assign/on_revoke/on_lost, on_commit, error_cb, stats_cb, throttle_cb,
    oauth_cb, logger) are served only inside ``poll()``, ``consume()`` and ``close()``, on the
    calling thread; with OAUTHBEARER construction serves ``oauth_cb`` too (see Producer).
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
            self._drop_held()
            self._drop_ahead()
            self._end_close_queue()
            self._destroy()
        free(self._held)
        free(self._spare)
        free(self._ahead)

    cdef void _end_close_queue(self) noexcept:
        if self._close_queue != NULL:
            rd_kafka_queue_destroy(self._close_queue)
            self._close_queue = NULL

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

    cdef void _serve_commit(self, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *offsets) noexcept:
        """Calls on_commit; what it raises is kept (raised when the serving call returns)."""
        if self._on_commit is not None:
            try:
                self._on_commit(_kafka_error(err), _parts_to_py(offsets))
            except BaseException as exc:
                self._stash(exc)

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

    def poll(self, timeout=-1):
        """The next message or event (a Message with error() set), or None after ``timeout``
        seconds (-1: wait forever)."""
        self._ensure_open()
        if self._held != NULL:      # an earlier call took messages it could not deliver
            return self._poll_held()
        cdef rd_kafka_t *rk = self._rk
        cdef rd_kafka_message_t *rkm = NULL
        cdef double deadline = 0
        cdef int wait
        cdef int ahead = 0
        if CB_READ_AHEAD:
            while True:
                ahead = self._next_ahead(&rkm)
                if ahead or not self._filling:
                    break
                # another call's read-ahead serves a callback: the messages it takes come first
                if self._await_fill(timeout, &deadline):
                    return None     # called from that callback, or the timeout passed
        if not ahead:
            # First a non-blocking look with the GIL held: when messages are waiting there is
            # no GIL release and no clock reading at all. Callbacks already queued are served
            # here: counted in, so they cannot close().
            self._blocking.enter(True)
            rkm = rd_kafka_consumer_poll(rk, 0)
            self._blocking.leave(True)
        if rkm == NULL and self._exc is None:
            # (nothing taken yet: whatever raises in here loses no message)
            if deadline == 0:   # (else the wait for another call's read-ahead counted already)
                deadline = _deadline(timeout)
            while True:
                wait = _chunk_ms(deadline)
                if wait:
                    with self._blocking:
                        with nogil:
                            rkm = rd_kafka_consumer_poll(rk, wait)
                if (rkm != NULL or self._exc is not None or wait == 0
                        or self._blocking.shuts_out()):
                    break
                PyErr_CheckSignals()
        return self._deliver_one(rkm)

    cdef Message _deliver_one(self, rd_kafka_message_t *rkm):
        """The end of poll(): raises what a callback raised meanwhile, else the Message of
        ``rkm`` (None for NULL). The message taken is destroyed once copied, or kept for the
        next call when this one raises (never lost)."""
        cdef Message m = None
        cdef Message spare
        if self._exc is not None:
            if rkm != NULL:
                self._keep_one(rkm)
            self._raise_pending()
        if rkm == NULL:
            return None
        # The Message of two calls ago, when only self._older and this frame refer to it (the
        # application has let it go; Message has no weak references): refilled, not freed and
        # allocated again. The application holds the last call's while it calls this one.
        spare = self._older
        if spare is not None and Py_REFCNT(spare) != 2:
            spare = None
        try:    # (not try/except: that saves the exception state on every call)
            m = _message_into(spare, rkm, self._names, False)
        finally:
            if m is None:       # it raised
                self._keep_one(rkm)
            else:
                rd_kafka_message_destroy(rkm)
        self._older, self._recent = self._recent, m
        return m

    cdef void _keep_one(self, rd_kafka_message_t *rkm) noexcept:
        """Keeps one message poll() took for the next call (see _hold)."""
        cdef _Taken t
        t.msgs = <rd_kafka_message_t **>malloc(sizeof(void *))
        if t.msgs == NULL:      # out of memory: nothing can keep it
            rd_kafka_message_destroy(rkm)
            return
        t.msgs[0], t.cap, t.start, t.end, t.held = rkm, 1, 0, 1, False
        self._hold(&t)

    cdef Message _poll_held(self):
        """poll() when an earlier call kept messages: the first of them, fetching nothing."""
        cdef Message m
        cdef _Taken t
        self._take_start(&t, 1)
        try:
            m = _message_from_c(t.msgs[t.start], self._names, False)
        except BaseException:   # never lose a message taken from librdkafka
            self._take_end(&t, 0)
            raise
        self._take_end(&t, 1)
        return m

    def consume(self, int num_messages=1, timeout=-1):
        """Up to ``num_messages`` messages (and events): returns when that many have arrived
        or ``timeout`` seconds have passed (-1: wait forever), like confluent-kafka."""
        self._ensure_open()
        if num_messages < 0 or num_messages > CONSUME_MAX:
            raise ValueError("num_messages must be between 0 and %d (1M)" % CONSUME_MAX)
        if num_messages == 0:
            return []   # nothing asked for: do not wait (it would never end with timeout=-1)
        cdef size_t want = num_messages
        cdef size_t i, k = 0
        cdef double deadline = 0
        cdef int wait
        cdef list out
        cdef _Taken t
        if self._filling and self._await_fill(timeout, &deadline):
            return []   # called from a callback of poll()'s read-ahead, or the timeout passed
        # counted in for the whole call: close() in another thread waits until the messages
        # taken here are delivered or kept
        with self._blocking:
            self._take_start(&t, want)
            try:
                # First a non-blocking look with the GIL held: a prefetched full batch costs
                # no GIL release and no clock reading.
                if not t.held and self._fetch(&t, want, 0) < want and self._exc is None:
                    if deadline == 0:
                        deadline = _deadline(timeout)
                    # Fill the batch over several GIL-free chunks (Ctrl-C is checked between
                    # them): a chunk that brought some messages does not end the call.
                    while True:
                        wait = _chunk_ms(deadline)
                        if wait and self._exc is None and not self._blocking.shuts_out():
                            self._fetch(&t, want - t.end, wait)
                        if (t.end >= want or self._exc is not None or wait == 0
                                or self._blocking.shuts_out()):
                            break
                        PyErr_CheckSignals()
                self._raise_pending()
                k = min(t.end - t.start, want)
                out = [_message_from_c(t.msgs[t.start + i], self._names, False)
                       for i in range(k)]
            except BaseException:   # never lose messages taken from librdkafka
                self._take_end(&t, 0)
                raise
            self._take_end(&t, k)
        return out

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

    # -- messages taken from librdkafka: a call owns them until it delivered them --

    cdef int _take_start(self, _Taken *t, size_t n) except -1:
        """Begins a call that delivers up to ``n`` messages. Messages an earlier call took
        and could not deliver come first (t.held: the call delivers from them and fetches
        nothing); else ``t`` gets an empty pointer array for ``n`` messages (the consumer's
        spare one, unless a call in another thread has it)."""
        if self._held != NULL:
            t.msgs, t.cap, t.start, t.end = self._held, self._held_cap, self._held_at, self._held_n
            t.held = True
            self._held = NULL
            self._held_cap = self._held_at = self._held_n = 0
            return 0
        t.held = False
        t.start = t.end = 0
        if self._spare != NULL and self._spare_cap >= n:
            t.msgs, t.cap = self._spare, self._spare_cap
            self._spare, self._spare_cap = NULL, 0
        else:
            t.msgs = <rd_kafka_message_t **>malloc(n * sizeof(void *))
            if t.msgs == NULL:
                raise MemoryError()
            t.cap = n
        if self._ahead_at < self._ahead_n:     # what poll() read ahead comes first
            t.end = self._take_ahead(t.msgs, n)
            t.held = t.end > 0
        return 0

    cdef void _take_end(self, _Taken *t, size_t delivered) noexcept:
        """Ends the call: destroys the first ``delivered`` messages (the call handed them to
        the application) and keeps the others for the next call. Never fails."""
        cdef size_t i
        for i in range(t.start, t.start + delivered):
            rd_kafka_message_destroy(t.msgs[i])
        t.start += delivered
        if t.start < t.end:
            self._hold(t)
        elif self._spare == NULL or t.cap > self._spare_cap:
            free(self._spare)
            self._spare, self._spare_cap = t.msgs, t.cap
        else:
            free(t.msgs)
        t.msgs = NULL

    cdef void _hold(self, _Taken *t) noexcept:
        """Keeps t.msgs[t.start:t.end] (and the array) for the next call."""
        cdef size_t n = t.end - t.start
        cdef size_t m = self._held_n - self._held_at
        cdef size_t i
        cdef rd_kafka_message_t **merged
        if self._held == NULL:
            self._held, self._held_cap, self._held_at, self._held_n = t.msgs, t.cap, t.start, t.end
            return
        # A call in another thread kept messages meanwhile: this call's are older, first.
        merged = <rd_kafka_message_t **>malloc((n + m) * sizeof(void *))
        if merged == NULL:      # out of memory: nothing can keep them
            for i in range(t.start, t.end):
                rd_kafka_message_destroy(t.msgs[i])
            free(t.msgs)
            return
        memcpy(merged, t.msgs + t.start, n * sizeof(void *))
        memcpy(merged + n, self._held + self._held_at, m * sizeof(void *))
        free(t.msgs)
        free(self._held)
        self._held, self._held_cap, self._held_at, self._held_n = merged, n + m, 0, n + m

    def _kept(self):
        """How many messages a call that raised took and left for the next call (tests)."""
        return self._held_n - self._held_at

    def _taken_ahead(self):
        """How many messages poll() read ahead and has not handed out yet (tests)."""
        return self._ahead_n - self._ahead_at

    cdef void _drop_held(self) noexcept:
        """Destroys the kept messages (the consumer is being closed)."""
        cdef size_t i
        for i in range(self._held_at, self._held_n):
            rd_kafka_message_destroy(self._held[i])
        free(self._held)
        self._held = NULL
        self._held_cap = self._held_at = self._held_n = 0

    # -- poll()'s read-ahead: one librdkafka call per AHEAD messages, positions moved one by one

    cdef int _next_ahead(self, rd_kafka_message_t **out) except -1:
        """The next message poll() read ahead, handed out (its position moved: cb_hand_out), into
        ``*out``. Takes up to AHEAD more first, without waiting, when none is left, or when
        librdkafka has not served the queue for STALE_MS (so callbacks, rebalances and
        max.poll.interval.ms are served about as often as with one message per call). Returns
        0, taking nothing, when none is left and another call of this consumer runs (the
        messages it takes have their positions moved by librdkafka: they must not overtake
        these); else 1, ``*out`` NULL when nothing is waiting or a callback raised."""
        cdef bint fill
        while True:
            if self._ahead_at < self._ahead_n:
                # An error or event ends a read-ahead (patches/0002), and what librdkafka queued
                # behind it (a rebalance after MAX_POLL_EXCEEDED) is served only once it was
                # handed out, as one message per call serves it.
                fill = (self._blocking.counted == 0
                        and cb_coarse_ms() - self._ahead_served_ms >= STALE_MS
                        and self._ahead[self._ahead_n - 1].err == 0)
            elif self._blocking.counted != 0:
                return 0
            else:
                fill = True
            if fill:
                self._fill_ahead()
                if self._exc is not None or self._ahead_at == self._ahead_n:
                    return 1
            if self._take_ahead(out, 1):
                return 1
            # (all left were dropped: their partitions moved on since, or control records)

    cdef int _fill_ahead(self) except -1:
        """One non-blocking deferred batch call (positions left alone) appending to _ahead."""
        cdef size_t left = self._ahead_n - self._ahead_at
        cdef ssize_t n
        if self._ahead == NULL:
            self._ahead = <rd_kafka_message_t **>malloc(AHEAD * sizeof(void *))
            if self._ahead == NULL:
                raise MemoryError()
        elif self._ahead_at:
            memmove(self._ahead, self._ahead + self._ahead_at, left * sizeof(void *))
            self._ahead_at, self._ahead_n = 0, left
        # (a fill never finds AHEAD left: each poll() hands one out after its fill)
        self._blocking.enter(True)      # close() waits for it; its callbacks cannot close()
        self._filling, self._filling_thread = True, PyThread_get_thread_ident()
        self._batch_calls += 1
        try:
            n = rd_kafka_consume_batch_queue_deferred(self._queue, 0, self._ahead + self._ahead_n,
                                                      AHEAD - left)
        finally:
            self._batch_calls -= 1
            self._blocking.leave(True)
            self._filling = False
        self._ahead_served_ms = cb_coarse_ms()
        if n < 0:
            _check(rd_kafka_last_error())
        self._ahead_n += n
        return 0

    cdef int _await_fill(self, object timeout, double *deadline) except -1:
        """While a read-ahead call serves a callback, no other call may take messages (theirs
        would overtake its). Returns 1 when called from that callback (nothing to take now) or
        when the call's deadline passed first; else 0 once it ended. ``*deadline`` is the
        call's, computed from ``timeout`` here when still 0, so that the call's own wait after
        this one ends by the same deadline."""
        if self._filling_thread == PyThread_get_thread_ident():
            return 1
        if deadline[0] == 0:
            deadline[0] = _deadline(timeout)
        while self._filling and not self._blocking.shuts_out():
            if _chunk_ms(deadline[0]) == 0:
                return 1
            with nogil:
                usleep(1000)
            PyErr_CheckSignals()
        return 0

    cdef size_t _take_ahead(self, rd_kafka_message_t **into, size_t n) noexcept:
        """Hands up to ``n`` messages poll() read ahead out into ``into``; returns how many."""
        cdef size_t k = 0
        cdef rd_kafka_message_t *rkm
        while k < n and self._ahead_at < self._ahead_n:
            rkm = self._ahead[self._ahead_at]
            self._ahead_at += 1
            if cb_hand_out(self._rk, rkm):
                into[k] = rkm
                k += 1
            else:
                rd_kafka_message_destroy(rkm)
        return k

    cdef void _drop_ahead(self) noexcept:
        """Destroys the messages read ahead (never handed out: their positions never moved)."""
        while self._ahead_at < self._ahead_n:
            rd_kafka_message_destroy(self._ahead[self._ahead_at])
            self._ahead_at += 1
        self._ahead_at = self._ahead_n = 0

    cdef int _fetch(self, _Taken *t, size_t want, int wait) except -1:
        """Takes up to ``want`` more messages into t.msgs[t.end:]: a non-blocking look with
        the GIL held (``wait`` 0), else one GIL-free wait of ``wait`` ms. Returns t.end."""
        cdef ssize_t n
        cdef rd_kafka_queue_t *q = self._queue
        cdef rd_kafka_message_t **into = t.msgs + t.end
        self._batch_calls += 1     # no rd_kafka_yield() from a callback meanwhile
        try:
            if wait == 0:
                n = rd_kafka_consume_batch_queue(q, 0, into, want)
            else:
                with self._blocking:
                    with nogil:
                        n = rd_kafka_consume_batch_queue(q, wait, into, want)
        finally:
            self._batch_calls -= 1
        if n < 0:
            _check(rd_kafka_last_error())
        t.end += n
        return t.end

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
        batch: it is raised as KafkaException, by the next call when rows came before it. A
        batch also ends before a record that would take a column past Arrow's 2 GiB.

        Nothing is lost when the call raises (a callback it serves raised, Ctrl-C, no memory):
        the messages it had taken are delivered first by the next poll()/consume()/
        consume_arrow().
        """
        return _consume_arrow(self, num_messages, timeout, end_offsets, headers)

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

    def get_watermark_offsets(self, partition, timeout=-1, bint cached=False):
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

    def offsets_for_times(self, partitions, timeout=-1):
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
        rebalance callbacks, and free the consumer. Closing twice is harmless.

        The wait (up to ``session.timeout.ms`` when the group coordinator cannot be reached)
        is served in short GIL-free chunks, so Ctrl-C interrupts it: the consumer then stays
        closed to every other call, and calling close() again resumes the wait."""
        if self._forget_if_forked() or self._rk == NULL:
            return
        self._blocking.drain()
        self._drop_held()
        self._drop_ahead()
        self._older = self._recent = None
        cdef rd_kafka_error_t *error = NULL
        cdef rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR
        if self._close_queue == NULL:
            self._close_queue = rd_kafka_queue_new(self._rk)
            error = rd_kafka_consumer_close_queue(self._rk, self._close_queue)
            if error != NULL:
                err = (RD_KAFKA_RESP_ERR__FATAL if rd_kafka_error_is_fatal(error)
                       else rd_kafka_error_code(error))
                rd_kafka_error_destroy(error)
        if err == RD_KAFKA_RESP_ERR_NO_ERROR:
            try:
                self._serve_close()
            except BaseException:
                # Interrupted (Ctrl-C): nobody may call in, not even this thread, until a
                # later close() resumes the wait (or the object is freed).
                self._blocking.closer = 0
                raise
        self._end_close_queue()
        self._destroy()
        self._raise_pending()
        _check(err)

    cdef int _serve_close(self) except -1:
        """Serve the close queue on this thread until librdkafka reports the consumer closed,
        checking for signals between GIL-free chunks. librdkafka forwards the consumer's queue
        there: rebalance, commit, error, log and stats events are served as callbacks; fetched
        messages nobody will read are dropped without moving the consumer's position (as
        librdkafka's own blocking close does)."""
        cdef rd_kafka_queue_t *q = self._close_queue
        cdef rd_kafka_event_t *ev = NULL
        while True:
            with self._blocking:
                with nogil:
                    ev = rd_kafka_queue_poll(q, 0)
                    if ev == NULL and not rd_kafka_consumer_closed(self._rk):
                        ev = rd_kafka_queue_poll(q, CHUNK_MS)
            if ev != NULL:
                self._serve_close_event(ev)
            elif rd_kafka_consumer_closed(self._rk):
                return 0
            if isinstance(self._exc, KeyboardInterrupt):
                self._raise_pending()
            PyErr_CheckSignals()

    cdef int _serve_close_event(self, rd_kafka_event_t *ev) except -1:
        cdef int etype = rd_kafka_event_type(ev)
        self._blocking.enter(False)     # a callback served here cannot close() this client
        try:
            if etype == RD_KAFKA_EVENT_REBALANCE:
                self._rebalance(rd_kafka_event_error(ev), rd_kafka_event_topic_partition_list(ev))
            elif etype == RD_KAFKA_EVENT_OFFSET_COMMIT:
                self._serve_commit(rd_kafka_event_error(ev),
                                   rd_kafka_event_topic_partition_list(ev))
            else:
                self._serve_client_event(ev)
        except BaseException as exc:
            self._stash(exc)
        finally:
            self._blocking.leave(False)
            rd_kafka_event_destroy(ev)
        return 0


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
    if not c._callbacks_off:
        c._serve_commit(err, offsets)
