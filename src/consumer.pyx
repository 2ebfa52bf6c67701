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
    RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED,
    RD_KAFKA_RESP_ERR__PARTITION_EOF,
    RD_KAFKA_RESP_ERR__STATE,
    cb_last_stable_offset,
    rd_kafka_assign,
    rd_kafka_assignment,
    rd_kafka_assignment_lost,
    rd_kafka_commit,
    rd_kafka_commit_queue,
    rd_kafka_committed,
    rd_kafka_conf_set_offset_commit_cb,
    rd_kafka_conf_set_rebalance_cb,
    rd_kafka_consumer_close_queue,
    rd_kafka_consumer_closed,
    rd_kafka_consumer_group_metadata,
    rd_kafka_consumer_group_metadata_destroy,
    rd_kafka_consumer_group_metadata_t,
    rd_kafka_consumer_group_metadata_write,
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
    rd_kafka_event_error_string,
    CB_READ_AHEAD,
)
from includes.rdkafka_admin cimport (
    RD_KAFKA_ADMIN_OP_LISTOFFSETS,
    rd_kafka_AdminOptions_destroy,
    rd_kafka_AdminOptions_new,
    rd_kafka_AdminOptions_set_request_timeout,
    rd_kafka_AdminOptions_t,
    rd_kafka_ListOffsets,
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


cdef int _cooperative(rd_kafka_t *rk) noexcept:
    """1 when the group rebalances cooperatively, 0 when eagerly, -1 when librdkafka no longer
    says: its group handler has terminated (NULL), as it may before close() has served the last
    revoke."""
    cdef const char *protocol = rd_kafka_rebalance_protocol(rk)
    if protocol == NULL:
        return -1
    return strcmp(protocol, b"COOPERATIVE") == 0


@cython.binding(False)
@cython.no_gc_clear
cdef class Consumer(_Handle):
    """High-level Kafka consumer (confluent-kafka compatible), classic and KIP-848 groups.

    Callbacks (on_assign/on_revoke/on_lost, on_commit, error_cb, stats_cb, throttle_cb,
    oauth_cb, logger) are served only inside ``poll()``, ``consume()`` and ``close()``, on the
    calling thread; with OAUTHBEARER construction serves ``oauth_cb`` too (see Producer).
    """
    def __cinit__(self, *args, **kwargs):
        self._custody = _Custody()

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
            self._custody.drop()
            self._end_close_queue()
            self._destroy()

    cdef void _end_close_queue(self) noexcept:
        if self._close_queue != NULL:
            rd_kafka_queue_destroy(self._close_queue)
            self._close_queue = NULL

    # -- callback bodies --

    cdef void _rebalance(self, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *parts) noexcept:
        cdef bint assign = err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS
        cdef int cooperative
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
        cooperative = _cooperative(self._rk)
        if cooperative < 0:
            return      # the group has terminated (a close's last revoke): nothing to unassign
        try:
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
        cdef _PartList pl
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if not isinstance(topics, (list, tuple)):
                raise TypeError("topics must be a list of str, not %s" % type(topics).__name__)
            for name, cb in (("on_assign", on_assign), ("on_revoke", on_revoke),
                             ("on_lost", on_lost)):
                if cb is not None and not callable(cb):
                    raise TypeError("%s must be callable" % name)
            pl = _PartList.new(len(topics))
            for t in topics:
                if not isinstance(t, str):
                    raise TypeError("topics must be a list of str, found %s" % type(t).__name__)
                rd_kafka_topic_partition_list_add(pl.ptr, (<str>t).encode(), RD_KAFKA_PARTITION_UA)
            _check(rd_kafka_subscribe(self._rk, pl.ptr), "Failed to set subscription")
            self._on_assign, self._on_revoke, self._on_lost = on_assign, on_revoke, on_lost
        finally:
            cb_section_end(&cs)

    def unsubscribe(self):
        """Leave the subscription: the current assignment is revoked (``on_revoke`` is
        served by the next poll) and no more messages of the subscribed topics arrive.
        """
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            _check(rd_kafka_unsubscribe(self._rk))
        finally:
            cb_section_end(&cs)

    def assign(self, partitions):
        """Replace the assignment with ``partitions`` (a list of TopicPartition)."""
        cdef _PartList pl = _PartList.from_py(partitions)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            self._assigned()
            _check(rd_kafka_assign(self._rk, pl.ptr))
        finally:
            cb_section_end(&cs)

    def unassign(self):
        """Drop the current (manual or rebalance) assignment; no partition is fetched
        until the next ``assign()``.
        """
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            self._assigned()
            _check(rd_kafka_assign(self._rk, NULL))
        finally:
            cb_section_end(&cs)

    def incremental_assign(self, partitions):
        """Add ``partitions`` (TopicPartitions, offsets optional) to the current
        assignment: for the cooperative-sticky assignor's ``on_assign`` or manual assignment.
        """
        cdef _PartList pl = _PartList.from_py(partitions)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            self._assigned()
            _check_error(rd_kafka_incremental_assign(self._rk, pl.ptr))
        finally:
            cb_section_end(&cs)

    def incremental_unassign(self, partitions):
        """Remove ``partitions`` from the current assignment (cooperative rebalancing
        or manual assignment); the rest keep being fetched.
        """
        cdef _PartList pl = _PartList.from_py(partitions)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            self._assigned()
            _check_error(rd_kafka_incremental_unassign(self._rk, pl.ptr))
        finally:
            cb_section_end(&cs)

    cdef void _assigned(self) noexcept:
        """The application (un)assigns: inside a rebalance callback, instead of the automatic
        call; after one that deferred it, the call put off."""
        self._assigned_by_callback = True
        if self._deferred > 0:
            self._deferred -= 1

    def _defer_assignment(self):
        """Called by a rebalance callback that will (un)assign later (the asyncio consumer
        awaits a coroutine callback first): no automatic (un)assign after it returns. True
        when the group uses the cooperative protocol (incremental_(un)assign then). Until that
        call comes, librdkafka waits for it, in close() too: close() unassigns instead."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            self._assigned_by_callback = True
            self._deferred += 1
            return _cooperative(self._rk) == 1
        finally:
            cb_section_end(&cs)

    def assignment(self):
        """The partitions currently assigned to this consumer (a list of TopicPartition,
        offsets not set).
        """
        cdef rd_kafka_topic_partition_list_t *c = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            _check(rd_kafka_assignment(self._rk, &c))
            return _PartList.adopt(c).to_py()
        finally:
            cb_section_end(&cs)

    # -- consuming --

    def poll(self, timeout=-1):
        """The next message or event (a Message with error() set), or None after ``timeout``
        seconds (-1: wait forever)."""
        # Every message taken from librdkafka is in the custody's care until it is handed out:
        # where it waits, when its position moves, what drops it (src/custody.pyx).
        cdef _Custody custody = self._custody
        cdef rd_kafka_message_t *rkm = NULL
        cdef double deadline = 0
        cdef int wait
        cdef int ahead = 0
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if custody.kept.msgs != NULL:
                return self._poll_kept()
            if CB_READ_AHEAD:
                while True:
                    ahead = custody.next_ahead(self, &rkm)
                    if ahead or not custody.filling:
                        break
                    if custody.await_fill(self, timeout, &deadline):
                        return None     # called from the fill's callback, or the timeout passed
            if not ahead:
                # First a look with the GIL held: when messages are waiting there is no GIL
                # release and no clock reading at all.
                custody.take_one(self, 0, &rkm)
            if rkm == NULL and self._exc is None:
                # (nothing taken yet: whatever raises in here loses no message)
                if deadline == 0:   # (else await_fill() computed it)
                    deadline = _deadline(timeout)
                while True:
                    wait = _chunk_ms(deadline)
                    if wait:
                        custody.take_one(self, wait, &rkm)
                    if (rkm != NULL or self._exc is not None or wait == 0
                            or self._blocking.shuts_out()):
                        break
                    PyErr_CheckSignals()
            return self._deliver_one(rkm)
        finally:
            cb_section_end(&cs)

    cdef Message _deliver_one(self, rd_kafka_message_t *rkm):
        """The end of poll(): raises what a callback raised meanwhile, else the Message of
        ``rkm`` (None for NULL), which is handed out: destroyed once copied, or kept when the
        copy raises."""
        cdef Message m = None
        cdef Message spare
        if self._exc is not None:
            if rkm != NULL:
                self._custody.keep_one(rkm)
            self._raise_pending()
        if rkm == NULL:
            return None
        # The Message of two calls ago, when only self._older and this frame refer to it (the
        # application has let it go; Message has no weak references): refilled, not freed and
        # allocated again. The application holds the last call's while it calls this one.
        # Without the GIL too: a count of 2 (local and shared counts together) means no other
        # thread holds a reference, and none can take one (the free-threaded list and dict
        # take a reference from a slot only while the slot still holds the object).
        spare = self._older
        if spare is not None and Py_REFCNT(spare) != 2:
            spare = None
        try:    # (not try/except: that saves the exception state on every call)
            m = _message_into(spare, rkm, self._names, False)
        finally:
            if m is None:       # it raised
                self._custody.keep_one(rkm)
            else:
                rd_kafka_message_destroy(rkm)
        self._older, self._recent = self._recent, m
        return m

    cdef Message _poll_kept(self):
        """poll() when messages are kept: the first of them, taking nothing."""
        cdef Message m
        cdef _Msgs call
        self._custody.begin_call(self._rk, &call, 1)
        try:
            m = _message_from_c(call.msgs[call.start], self._names, False)
        except BaseException:
            self._custody.end_call(&call, 0)
            raise
        self._custody.end_call(&call, 1)
        return m

    def consume(self, int num_messages=1, timeout=-1):
        """Up to ``num_messages`` messages (and events): returns when that many have arrived
        or ``timeout`` seconds have passed (-1: wait forever), like confluent-kafka."""
        cdef _Custody custody = self._custody
        cdef size_t want = num_messages
        cdef size_t i, k = 0
        cdef double deadline = 0
        cdef int wait
        cdef list out
        cdef _Msgs call
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if num_messages < 0 or num_messages > CONSUME_MAX:
                raise ValueError("num_messages must be between 0 and %d (1M)" % CONSUME_MAX)
            if num_messages == 0:
                return []   # nothing asked for: do not wait (it would never end with timeout=-1)
            if custody.filling and custody.await_fill(self, timeout, &deadline):
                return []   # called from the fill's callback, or the timeout passed
            # counted in for the whole call: close() in another thread waits until the messages
            # taken here are handed out or kept
            with self._blocking:
                custody.begin_call(self._rk, &call, want)
                try:
                    # With none kept or read ahead, first a look with the GIL held: a prefetched
                    # full batch costs no GIL release and no clock reading.
                    if (call.start == call.end and custody.fetch(self, &call, want, 0) < want
                            and self._exc is None):
                        if deadline == 0:
                            deadline = _deadline(timeout)
                        # Fill the batch over several GIL-free chunks (Ctrl-C is checked between
                        # them): a chunk that brought some messages does not end the call.
                        while True:
                            wait = _chunk_ms(deadline)
                            if wait and self._exc is None and not self._blocking.shuts_out():
                                custody.fetch(self, &call, want - call.end, wait)
                            if (call.end >= want or self._exc is not None or wait == 0
                                    or self._blocking.shuts_out()):
                                break
                            PyErr_CheckSignals()
                    self._raise_pending()
                    k = min(call.end - call.start, want)
                    out = [_message_from_c(call.msgs[call.start + i], self._names, False)
                           for i in range(k)]
                except BaseException:
                    custody.end_call(&call, 0)
                    raise
                custody.end_call(&call, k)
            return out
        finally:
            cb_section_end(&cs)

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

    def _kept(self):
        """How many messages are kept (see _Custody) for the next call (tests)."""
        return self._custody.kept.end - self._custody.kept.start

    def _taken_ahead(self):
        """How many messages are read ahead (see _Custody) and not handed out yet (tests)."""
        return self._custody.ahead.end - self._custody.ahead.start

    def _read_ahead(self):
        """Serve librdkafka's queue without handing a message out: one fill of the read-ahead
        (see _Custody), whose callbacks (rebalances, error_cb, ...) run here. The aiokafka face
        serves its group with it while the application is in no get* call, as aiokafka's
        coordinator task does. No fill while messages are kept, another call runs, or the
        read-ahead is full or ends in an event (librdkafka serves nothing behind an event before
        it is handed out). What a callback raised is kept for the next poll()/consume().

        Returns ``(read_ahead, event_first)``: how many messages are read ahead, and whether the
        first of them is an event (a poll() then hands it out, overtaking no message); None in
        the build that reads nothing ahead (``build_info()["read_ahead"]``)."""
        cdef _Custody custody = self._custody
        cdef size_t n
        cdef cb_section cs
        if not CB_READ_AHEAD:
            return None
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            n = custody.ahead.end - custody.ahead.start
            if (custody.kept.msgs == NULL and not custody.filling and self._exc is None
                    and self._blocking.counted == 0 and n < AHEAD
                    and (n == 0 or custody.ahead.msgs[custody.ahead.end - 1].err == 0)):
                custody.fill(self)
                n = custody.ahead.end - custody.ahead.start
            return n, n > 0 and custody.ahead.msgs[custody.ahead.start].err != 0
        finally:
            cb_section_end(&cs)

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
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            return _consume_arrow(self, num_messages, timeout, end_offsets, headers)
        finally:
            cb_section_end(&cs)

    # -- offsets --

    def commit(self, message=None, offsets=None, bint asynchronous=True):
        """Commit ``message``'s offset + 1, ``offsets``, or the current positions.

        Asynchronous: returns None, the result goes to on_commit. Synchronous: returns the
        committed TopicPartition list (per-partition errors set) or raises KafkaException.
        """
        cdef _PartList pl = None
        cdef const rd_kafka_topic_partition_list_t *c
        cdef _CommitResult res
        cdef rd_kafka_resp_err_t err
        cdef _PartList result
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if message is not None and offsets is not None:
                raise ValueError("message and offsets are mutually exclusive")
            if message is not None:
                pl = _PartList.from_py(_message_partition(message, "commit"))
            elif offsets is not None:
                pl = _PartList.from_py(offsets)
            c = pl.ptr if pl is not None else NULL
            if asynchronous:
                _check(rd_kafka_commit(self._rk, c, 1))
                return None
            res.err, res.offsets = RD_KAFKA_RESP_ERR_NO_ERROR, NULL
            with self._blocking:
                with nogil:
                    err = rd_kafka_commit_queue(self._rk, c, NULL, _store_commit_result, &res)
            result = _PartList.adopt(res.offsets)
            _check(err if err else res.err, "Commit failed")
            return result.to_py()
        finally:
            cb_section_end(&cs)

    def committed(self, partitions, timeout=-1):
        """The group's committed offsets for ``partitions``."""
        cdef _PartList pl = _PartList.from_py(partitions, False)
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            with self._blocking:
                with nogil:
                    err = rd_kafka_committed(self._rk, pl.ptr, tmout)
            _check(err, "Failed to get committed offsets")
            return pl.to_py()
        finally:
            cb_section_end(&cs)

    def position(self, partitions):
        """The next offset this consumer will read for each of ``partitions``."""
        cdef _PartList pl = _PartList.from_py(partitions, False)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            _check(rd_kafka_position(self._rk, pl.ptr))
            return pl.to_py()
        finally:
            cb_section_end(&cs)

    def store_offsets(self, message=None, offsets=None):
        """Store offsets (message offset + 1, or ``offsets`` as given) for the next commit."""
        cdef _PartList pl
        cdef int i
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if message is not None and offsets is not None:
                raise ValueError("message and offsets are mutually exclusive")
            if message is None and offsets is None:
                raise ValueError("expected either message or offsets")
            pl = _PartList.from_py(
                _message_partition(message, "store") if message is not None else offsets)
            _check(rd_kafka_offsets_store(self._rk, pl.ptr), "StoreOffsets failed")
            for i in range(pl.ptr.cnt):
                _check(pl.ptr.elems[i].err, "StoreOffsets failed")
        finally:
            cb_section_end(&cs)

    def seek(self, partition):
        """Move the fetch position of an assigned partition to ``partition.offset``."""
        cdef _PartList pl
        cdef rd_kafka_error_t *error
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if not isinstance(partition, TopicPartition):
                raise TypeError("expected cimpl.TopicPartition")
            pl = _PartList.from_py([partition])
            with self._blocking:
                with nogil:
                    error = rd_kafka_seek_partitions(self._rk, pl.ptr, -1)
            _check_error(error)
            _check(pl.ptr.elems[0].err,
                   "Failed to seek to offset %d" % (<TopicPartition>partition).offset)
        finally:
            cb_section_end(&cs)

    def pause(self, partitions):
        """Stop fetching ``partitions`` (keeping their positions) until ``resume()``;
        the group membership is unaffected.
        """
        cdef _PartList pl = _PartList.from_py(partitions, False)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            _check(rd_kafka_pause_partitions(self._rk, pl.ptr))
        finally:
            cb_section_end(&cs)

    def resume(self, partitions):
        """Fetch ``partitions`` again after ``pause()``, from where they stopped."""
        cdef _PartList pl = _PartList.from_py(partitions, False)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            _check(rd_kafka_resume_partitions(self._rk, pl.ptr))
        finally:
            cb_section_end(&cs)

    def get_watermark_offsets(self, partition, timeout=-1, bint cached=False):
        """(low, high) offsets of ``partition``: asked of the broker, or the cached values."""
        cdef TopicPartition tp
        cdef bytes topic
        cdef const char *ctopic
        cdef int64_t low = 0, high = 0
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if not isinstance(partition, TopicPartition):
                raise TypeError("expected cimpl.TopicPartition")
            tp = partition
            topic = tp.topic.encode()
            ctopic = topic
            if cached:
                err = rd_kafka_get_watermark_offsets(self._rk, ctopic, tp.partition, &low, &high)
            else:
                with self._blocking:
                    with nogil:
                        err = rd_kafka_query_watermark_offsets(self._rk, ctopic, tp.partition, &low,
                                                               &high, tmout)
            _check(err, "Failed to get watermark offsets")
            return (low, high)
        finally:
            cb_section_end(&cs)

    def _last_stable_offset(self, TopicPartition partition):
        """The last stable offset of ``partition`` as of its last fetch response (-1001 before
        one), which librdkafka keeps beside the cached watermarks; None in the build without
        librdkafka's internals (``build_info()["librdkafka_api"] == "public"``). For the
        aiokafka face's ``last_stable_offset()``."""
        cdef bytes topic = partition.topic.encode()
        cdef int64_t lso = 0
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            err = cb_last_stable_offset(self._rk, topic, partition.partition, &lso)
            if err == RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED:
                return None
            _check(err, "Failed to get the last stable offset")
            return lso
        finally:
            cb_section_end(&cs)

    def offsets_for_times(self, partitions, timeout=-1):
        """For each partition (its ``offset`` a timestamp in ms): the earliest offset whose
        timestamp is at or after it (-1 when there is none)."""
        cdef _PartList pl = _PartList.from_py(partitions)
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            with self._blocking:
                with nogil:
                    err = rd_kafka_offsets_for_times(self._rk, pl.ptr, tmout)
            _check(err, "Failed to get offsets")
            return pl.to_py()
        finally:
            cb_section_end(&cs)

    def _list_offsets(self, list parts, timeout=-1):
        """ListOffsets on this consumer's connections, for ``(topic, partition, spec)`` tuples
        (spec: a timestamp in ms; -1 the end, -2 the beginning, -3 the largest timestamp): a
        ``(topic, partition, error, offset, timestamp, leader_epoch)`` row each, ``timestamp``
        that of the record found. (offsets_for_times() gives no timestamp: aiokafka's does.)
        Waits up to ``timeout`` seconds (-1: the request timeout, socket.timeout.ms)."""
        cdef _PartList pl = _parts_list(parts)
        cdef double deadline = _deadline(timeout)
        cdef rd_kafka_queue_t *q = NULL
        cdef rd_kafka_AdminOptions_t *o = NULL
        cdef rd_kafka_event_t *ev = NULL
        cdef char errstr[512]
        cdef int wait
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            q = rd_kafka_queue_new(self._rk)
            o = rd_kafka_AdminOptions_new(self._rk, RD_KAFKA_ADMIN_OP_LISTOFFSETS)
            if timeout is not None and timeout >= 0:
                _check(rd_kafka_AdminOptions_set_request_timeout(
                    o, max(1, <int>(timeout * 1000)), errstr, sizeof(errstr)), _cstr(errstr))
            rd_kafka_ListOffsets(self._rk, pl.ptr, o, q)
            while ev == NULL:
                wait = _chunk_ms(deadline)
                with self._blocking:
                    with nogil:
                        ev = rd_kafka_queue_poll(q, wait)
                if ev == NULL:
                    if wait == 0 or self._blocking.shuts_out():
                        raise KafkaException(KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT,
                                                        "Failed to list offsets: timed out"))
                    PyErr_CheckSignals()
            if rd_kafka_event_error(ev):
                raise KafkaException(KafkaError(<int>rd_kafka_event_error(ev),
                                                _cstr(rd_kafka_event_error_string(ev))))
            return _listed_offsets(ev)
        finally:
            if ev != NULL:
                rd_kafka_event_destroy(ev)
            if o != NULL:
                rd_kafka_AdminOptions_destroy(o)
            if q != NULL:
                rd_kafka_queue_destroy(q)
            cb_section_end(&cs)

    # -- group --

    def memberid(self):
        """The group member id, or None while the consumer is not a member (as confluent-kafka)."""
        cdef char *mid
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            mid = rd_kafka_memberid(self._rk)
            if mid == NULL:
                return None
            try:
                return _cstr(mid) if mid[0] else None
            finally:
                rd_kafka_mem_free(self._rk, mid)
        finally:
            cb_section_end(&cs)

    def consumer_group_metadata(self):
        """The group's state (id, generation, member id) to pass to
        ``Producer.send_offsets_to_transaction()`` in a consume-transform-produce loop.
        """
        cdef rd_kafka_consumer_group_metadata_t *cgmd
        cdef void *buf = NULL
        cdef size_t size = 0
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            cgmd = rd_kafka_consumer_group_metadata(self._rk)
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
        finally:
            cb_section_end(&cs)

    def close(self):
        """Leave the group (committing offsets if auto-commit is on), serve the final
        rebalance callbacks, and free the consumer. Closing twice is harmless.

        The wait (up to ``session.timeout.ms`` when the group coordinator cannot be reached)
        is served in short GIL-free chunks, so Ctrl-C interrupts it: the consumer then stays
        closed to every other call, and calling close() again resumes the wait."""
        cdef rd_kafka_error_t *error = NULL
        cdef rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            if self._forget_if_forked() or self._rk == NULL:
                return
            if self._blocking.drain():
                return      # another thread's close() freed it meanwhile
            self._custody.drop()
            self._older = self._recent = None
            if self._close_queue == NULL:
                self._close_queue = rd_kafka_queue_new(self._rk)
                error = rd_kafka_consumer_close_queue(self._rk, self._close_queue)
                if error != NULL:
                    err = (RD_KAFKA_RESP_ERR__FATAL if rd_kafka_error_is_fatal(error)
                           else rd_kafka_error_code(error))
                    rd_kafka_error_destroy(error)
                elif self._deferred:
                    # A rebalance's (un)assign was put off (_defer_assignment) and will not be
                    # made now: librdkafka's close would wait for it for ever. The group is
                    # terminating (that request is ahead in its queue), so librdkafka takes this
                    # as the unassign.
                    self._deferred = 0
                    with nogil:
                        rd_kafka_assign(self._rk, NULL)
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
        finally:
            cb_section_end(&cs)

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
