# Producer: cached topic handles, produce without per-message allocation, delivery reports
# served in batches (one librdkafka DR event = one produce response) on the polling thread.

from includes.rdkafka cimport (
    RD_KAFKA_EVENT_DR,
    RD_KAFKA_MSG_F_COPY,
    RD_KAFKA_PRODUCER,
    RD_KAFKA_PURGE_F_INFLIGHT,
    RD_KAFKA_PURGE_F_NON_BLOCKING,
    RD_KAFKA_PURGE_F_QUEUE,
    RD_KAFKA_RESP_ERR_NO_ERROR,
    RD_KAFKA_RESP_ERR__QUEUE_FULL,
    RD_KAFKA_RESP_ERR__TIMED_OUT,
    RD_KAFKA_VTYPE_HEADER,
    RD_KAFKA_VTYPE_KEY,
    RD_KAFKA_VTYPE_MSGFLAGS,
    RD_KAFKA_VTYPE_OPAQUE,
    RD_KAFKA_VTYPE_PARTITION,
    RD_KAFKA_VTYPE_RKT,
    RD_KAFKA_VTYPE_TIMESTAMP,
    RD_KAFKA_VTYPE_VALUE,
    rd_kafka_abort_transaction,
    rd_kafka_begin_transaction,
    rd_kafka_commit_transaction,
    rd_kafka_consumer_group_metadata_destroy,
    rd_kafka_consumer_group_metadata_read,
    rd_kafka_consumer_group_metadata_t,
    rd_kafka_err2str,
    rd_kafka_error_code,
    rd_kafka_error_destroy,
    rd_kafka_error_is_retriable,
    rd_kafka_error_t,
    rd_kafka_event_destroy,
    rd_kafka_event_message_array,
    rd_kafka_event_t,
    rd_kafka_event_type,
    rd_kafka_flush,
    rd_kafka_init_transactions,
    rd_kafka_last_error,
    rd_kafka_message_t,
    rd_kafka_msg_partitioner_consistent,
    rd_kafka_msg_partitioner_fnv1a,
    rd_kafka_msg_partitioner_murmur2,
    rd_kafka_outq_len,
    rd_kafka_produce,
    rd_kafka_produceva,
    rd_kafka_purge,
    rd_kafka_queue_get_main,
    rd_kafka_queue_poll,
    rd_kafka_queue_t,
    rd_kafka_resp_err_t,
    rd_kafka_send_offsets_to_transaction,
    rd_kafka_t,
    rd_kafka_topic_destroy,
    rd_kafka_topic_new,
    rd_kafka_topic_t,
    rd_kafka_vu_t,
)

from collections import deque


# The only manual reference counting in the binding: a message's on_delivery callable travels
# through librdkafka as the message opaque. _hold() takes a reference for it; _take() gives that
# reference back exactly once, when the delivery report (or a purge) is served.
cdef inline void *_hold(object cb):
    Py_INCREF(cb)
    return <void *>cb


cdef inline object _take(void *opaque):
    cdef object cb = <object>opaque
    Py_DECREF(cb)
    return cb


@cython.binding(False)
cdef class _Topic:
    """Owns one rd_kafka_topic_t, cached per topic name for the producer's lifetime."""

    cdef void destroy(self) noexcept:
        if self.rkt != NULL:
            rd_kafka_topic_destroy(self.rkt)
            self.rkt = NULL


cdef enum:
    DR_BATCH = 256
    VU_STACK = 24


@cython.binding(False)
@cython.no_gc_clear
cdef class Producer(_Handle):
    """Asynchronous Kafka producer (confluent-kafka compatible).

    ``Producer(conf)``, ``Producer(conf, **kwargs)`` or ``Producer(**kwargs)`` with librdkafka
    properties plus ``on_delivery``, ``delivery.report.only.error``, ``error_cb``, ``stats_cb``,
    ``throttle_cb``, ``oauth_cb``, ``logger``. Delivery reports and all callbacks are served only
    inside ``poll()``, ``flush()`` and ``close()``, on the calling thread. With OAUTHBEARER,
    construction also calls ``oauth_cb`` (on the constructing thread) and, as confluent-kafka's,
    returns once it has set the first token (KafkaException after 10 seconds without one).
    """
    def __init__(self, *args, **kwargs):
        if self._rk != NULL:
            raise RuntimeError("Producer is already initialised")
        conf = _merge_conf(args, kwargs)
        self._on_delivery = _pop_callable(conf, "on_delivery")
        dr_only_error = conf.pop("delivery.report.only.error", None)
        self._dr_only_error = (dr_only_error is not None
                               and _conf_bool(dr_only_error, "delivery.report.only.error"))
        self._max_block = _max_block_seconds(conf.pop("max.block.ms", None))
        self._topics = {}
        self._pending = deque()
        self._open(RD_KAFKA_PRODUCER, self._new_conf(conf, RD_KAFKA_EVENT_DR), "producer")
        self._queue = rd_kafka_queue_get_main(self._rk)

    cdef rd_kafka_topic_t *_topic(self, object topic) except NULL:
        if topic is self._last_topic and self._last_rkt != NULL:
            return self._last_rkt
        self._ensure_open()
        cdef _Topic t = self._topics.get(topic)
        if t is None:
            if not isinstance(topic, str):
                raise TypeError("topic must be a str, not %s" % type(topic).__name__)
            t = _Topic.__new__(_Topic)
            t.rkt = rd_kafka_topic_new(self._rk, (<str>topic).encode(), NULL)
            if t.rkt == NULL:
                _check(rd_kafka_last_error(), "invalid topic %r" % topic)
            self._topics[topic] = t
        self._last_topic, self._last_rkt = topic, t.rkt
        return t.rkt

    cdef rd_kafka_resp_err_t _produce(self, rd_kafka_topic_t *rkt, object value, object key,
                                      int32_t partition, object cb, int64_t timestamp,
                                      object headers) except *:
        """Enqueue one message; returns librdkafka's error code (raises only for bad input).

        With a DeliveryFuture for ``cb`` an exact ``bytes`` value is not copied: librdkafka
        reads it in place until the delivery report, and the future holds it until then (its
        delivered Message then has that very object for its value)."""
        cdef Py_buffer vview, kview
        cdef const char *vp
        cdef const char *kp
        cdef Py_ssize_t vn, kn
        cdef int vrel = 0, krel = 0
        cdef int msgflags = RD_KAFKA_MSG_F_COPY
        cdef void *opaque = NULL
        cdef rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR
        cdef list hdrs
        if headers is not None:
            hdrs = _header_items(headers)
        vrel = _buffer(value, &vview, &vp, &vn, b"value")
        try:
            krel = _buffer(key, &kview, &kp, &kn, b"key")
            if cb is not None:
                opaque = _hold(cb)
                if type(cb) is DeliveryFuture and PyBytes_CheckExact(value):
                    msgflags = 0
            if timestamp == 0 and headers is None:
                if rd_kafka_produce(rkt, partition, msgflags, <void *>vp, vn, kp, kn,
                                    opaque) == -1:
                    err = rd_kafka_last_error()
            else:
                err = self._produceva(rkt, vp, vn, kp, kn, partition, opaque, timestamp,
                                      hdrs if headers is not None else None, msgflags)
            if err and opaque != NULL:
                _take(opaque)
            elif not msgflags:
                (<DeliveryFuture>cb).dr_value = value
        finally:
            if vrel:
                PyBuffer_Release(&vview)
            if krel:
                PyBuffer_Release(&kview)
        return err

    cdef rd_kafka_resp_err_t _produceva(self, rd_kafka_topic_t *rkt, const char *vp, Py_ssize_t vn,
                                        const char *kp, Py_ssize_t kn, int32_t partition,
                                        void *opaque, int64_t timestamp, list hdrs,
                                        int msgflags) except *:
        cdef rd_kafka_vu_t stack[VU_STACK]
        cdef size_t nh = len(hdrs) if hdrs is not None else 0
        cdef size_t cnt = 7 + nh, i = 0
        cdef rd_kafka_vu_t *vus = stack
        cdef rd_kafka_error_t *error
        cdef rd_kafka_resp_err_t err
        if cnt > VU_STACK:
            vus = <rd_kafka_vu_t *>PyMem_Malloc(cnt * sizeof(rd_kafka_vu_t))
            if vus == NULL:
                raise MemoryError()
        try:
            _vu_message(vus, rkt, partition, msgflags, vp, vn, kp, kn)
            vus[5].vtype = RD_KAFKA_VTYPE_OPAQUE
            vus[5].u.ptr = opaque
            vus[6].vtype = RD_KAFKA_VTYPE_TIMESTAMP
            vus[6].u.i64 = timestamp
            for i in range(nh):
                name, val = hdrs[i]
                vus[7 + i].vtype = RD_KAFKA_VTYPE_HEADER
                vus[7 + i].u.header.name = <const char *>name
                if val is None:
                    vus[7 + i].u.header.val, vus[7 + i].u.header.size = NULL, 0
                else:
                    vus[7 + i].u.header.val = <const char *>val
                    vus[7 + i].u.header.size = len(val)
            error = rd_kafka_produceva(self._rk, vus, cnt)
            if error == NULL:
                return RD_KAFKA_RESP_ERR_NO_ERROR
            err = rd_kafka_error_code(error)
            rd_kafka_error_destroy(error)
            return err
        finally:
            if vus != stack:
                PyMem_Free(vus)

    # Defaults are literals (-1: RD_KAFKA_PARTITION_UA) so the embedded signatures parse.
    def produce(self, topic, value=None, key=None, int32_t partition=-1,
                on_delivery=None, callback=None, int64_t timestamp=0, headers=None):
        """Enqueue a message for ``topic``; its delivery report is served by poll()/flush().

        ``value``/``key``: bytes, str (UTF-8) or any buffer. ``headers``: a list of
        ``(str, bytes|str|None)`` or a dict. ``on_delivery(err, msg)`` overrides the configured
        callback. Raises BufferError when the local queue is full, at once unless the producer
        was configured with ``max.block.ms`` (an extension: then it first waits up to that
        long for room, serving delivery reports meanwhile as poll() does).
        """
        cdef rd_kafka_resp_err_t err
        cdef rd_kafka_topic_t *rkt
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            cb = _callback(on_delivery if on_delivery is not None else callback)
            rkt = self._topic(topic)
            err = self._produce(rkt, value, key, partition, cb, timestamp, headers)
            if err == RD_KAFKA_RESP_ERR__QUEUE_FULL and self._max_block > 0:
                err = self._produce_when_room(topic, value, key, partition, cb, timestamp, headers)
            if err:
                _raise_produce_error(err)
        finally:
            cb_section_end(&cs)

    cdef rd_kafka_resp_err_t _produce_when_room(self, object topic, object value, object key,
                                                int32_t partition, object cb, int64_t timestamp,
                                                object headers) except *:
        """produce() with max.block.ms: while the queue is full, serve delivery reports (and
        the other callbacks) as poll() would, and try again, until max.block.ms has passed."""
        cdef double deadline = _monotonic() + self._max_block
        cdef rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__QUEUE_FULL
        while err == RD_KAFKA_RESP_ERR__QUEUE_FULL and _monotonic() < deadline:
            # raises what a callback raised, like poll(); tries again soon even when another
            # thread served the reports that made room
            self._serve(min(deadline, _monotonic() + SHARED_WAIT_MS / 1000.0), False)
            self._ensure_open()                 # a callback or another thread may have closed it
            err = self._produce(self._topic(topic), value, key, partition, cb, timestamp,
                                headers)
        return err

    def _produce_delivery(self, topic, value, key, int32_t partition, int64_t timestamp,
                          headers, loop):
        """The asyncio producer's produce: enqueue a message and return the DeliveryFuture
        (on ``loop``) its delivery report resolves inside the serving call, with no Python
        callback in between. Raises BufferError at once when the local queue is full (the
        caller waits on its loop)."""
        cdef DeliveryFuture fut = _new_future(loop)
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            err = self._produce(self._topic(topic), value, key, partition, fut, timestamp, headers)
            if err:
                _raise_produce_error(err)
            return fut
        finally:
            cb_section_end(&cs)

    def produce_batch(self, topic, messages, partition=-1,
                      on_delivery=None, callback=None):
        """Enqueue a list of messages for ``topic``; returns how many were enqueued.

        Each item is a dict with any of ``value`` and ``key`` (bytes or str), ``partition``,
        ``callback`` (or ``on_delivery``) and, beyond confluent-kafka (which refuses the first
        and drops the second), ``timestamp`` and ``headers``, which are produced. As
        confluent-kafka: every message is checked before any is enqueued (TypeError or
        ValueError naming its index); a dict that cannot be enqueued gets ``item['_error']``, a
        KafkaError ("Message failed: ..."). Every enqueued message gets its own delivery report.
        """
        _str_argument(topic, 1)
        cdef int32_t default_partition = _as_int32(partition)
        if not isinstance(messages, list):
            raise TypeError("messages must be a list")
        if not messages:
            return 0
        cdef rd_kafka_topic_t *rkt
        self._ensure_open()     # (a closed producer says so before any item is checked)
        cb = _callback(on_delivery if on_delivery is not None else callback)
        cdef list items = [_batch_item(m, i, default_partition, cb)
                           for i, m in enumerate(messages)]
        cdef rd_kafka_resp_err_t err
        cdef int n = 0
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            rkt = self._topic(topic)
            for m, (value, key, mpartition, mcb, timestamp, headers) in zip(messages, items):
                err = self._produce(rkt, value, key, mpartition, mcb, timestamp, headers)
                if not err:
                    n += 1
                elif isinstance(m, dict):
                    m["_error"] = KafkaError(<int>err, "Message failed: %s"
                                             % _cstr(rd_kafka_err2str(err)))
                elif err == RD_KAFKA_RESP_ERR__QUEUE_FULL:
                    raise BufferError(_cstr(rd_kafka_err2str(err)) + " (%d enqueued)" % n)
                else:
                    _raise_produce_error(err)
            return n
        finally:
            cb_section_end(&cs)

    # -- serving --

    cdef int _serve_dr(self, rd_kafka_event_t *ev) except -1:
        cdef const rd_kafka_message_t *msgs[DR_BATCH]
        cdef const rd_kafka_message_t *rkm
        cdef size_t n, i
        cdef int count = 0
        cdef Message m
        cdef Message spare = None   # the last report's Message, when the callback kept no reference
        cdef list ready = None      # DeliveryFutures resolved here with done-callbacks to run
        try:
            while True:
                n = rd_kafka_event_message_array(ev, msgs, DR_BATCH)
                if n == 0:
                    return count
                count += n
                for i in range(n):
                    rkm = msgs[i]
                    cb = _take(rkm._private) if rkm._private != NULL else self._on_delivery
                    if type(cb) is DeliveryFuture:
                        # no Python runs: resolved now, its callbacks scheduled below
                        if _fut_deliver(<DeliveryFuture>cb, rkm, self._names):
                            if ready is None:
                                ready = []
                            ready.append(cb)
                        continue
                    if cb is None or (self._dr_only_error
                                      and rkm.err == RD_KAFKA_RESP_ERR_NO_ERROR):
                        continue
                    m = _message_into(spare, rkm, self._names, True)
                    spare = None
                    if self._exc is not None:
                        self._pending.append((cb, m))   # served by the next poll()/flush()
                        continue
                    try:
                        cb(m._error, m)
                    except BaseException as exc:
                        self._stash(exc)
                        continue
                    # Only this frame refers to it (Message has no weak references, and one
                    # the callback kept, in a list or a closure, counts): refill it next time.
                    if Py_REFCNT(m) == 1:
                        spare = m
        finally:
            if ready is not None:
                _fut_dispatch(ready)

    cdef int _serve_client_event(self, rd_kafka_event_t *ev) except -1:
        """Delivery reports here; every other event as any handle serves it."""
        if rd_kafka_event_type(ev) == RD_KAFKA_EVENT_DR:
            return self._serve_dr(ev)
        return _Handle._serve_client_event(self, ev)

    cdef int _serve_pending(self) except -1:
        cdef int n = 0
        cdef Message m
        while self._pending and self._exc is None:
            cb, m = self._pending.popleft()
            n += 1
            try:
                cb(m._error, m)
            except BaseException as exc:
                self._stash(exc)
        return n

    def poll(self, timeout=-1):
        """Serve delivery reports and other callbacks; wait up to ``timeout`` seconds (-1:
        forever) for the first one. Returns the number of events served."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if timeout == 0:
                return self._serve(0, True)
            return self._serve(_deadline(timeout), False)
        finally:
            cb_section_end(&cs)

    def flush(self, timeout=-1):
        """Wait until every message is delivered (or failed) and its report served.

        Returns the number of messages still outstanding when ``timeout`` ran out.
        """
        cdef double deadline = _deadline(timeout)
        cdef rd_kafka_t *rk
        cdef rd_kafka_queue_t *q
        cdef rd_kafka_event_t *ev
        cdef int wait
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            rk, q = self._rk, self._queue
            self._serve(0, True)
            # (rk stays valid while this loop runs: a close() in another thread waits until no
            # other thread is inside a call or serving callbacks, see _BlockingCalls.drain())
            while not self._blocking.shuts_out() and rd_kafka_outq_len(rk) > 0:
                wait = _chunk_ms(deadline)
                if wait == 0:
                    break
                # another thread polling may serve the last reports: look at the count again
                # soon instead of waiting a whole chunk for an event that went to it
                wait = min(wait, SHARED_WAIT_MS)
                with self._blocking:
                    with nogil:
                        ev = rd_kafka_queue_poll(q, 0)
                        if ev == NULL:
                            # While rd_kafka_flush() runs the brokers send at once, ignoring
                            # linger.ms.
                            rd_kafka_flush(rk, 1)
                            ev = rd_kafka_queue_poll(q, wait)
                if ev != NULL:
                    self._blocking.enter(False)
                    try:
                        self._serve_event(ev)
                    finally:
                        self._blocking.leave(False)
                    self._serve(0, True)
                self._raise_pending()
                PyErr_CheckSignals()
            if self._rk == NULL:
                return 0
            return rd_kafka_outq_len(self._rk)
        finally:
            cb_section_end(&cs)

    def _send_now(self, timeout):
        """For a thread beside the one that serves reports: the brokers send what is queued at
        once, ignoring ``linger.ms``, until every message's report is served or ``timeout``
        seconds passed. Serves nothing (reports are events on the client's own queue)."""
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_t *rk
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            rk = self._rk
            with self._blocking:
                with nogil:
                    rd_kafka_flush(rk, tmout)
        finally:
            cb_section_end(&cs)

    def purge(self, bint in_queue=True, bint in_flight=True, bint blocking=True):
        """Purge queued and/or in-flight messages; their reports (with _PURGE_QUEUE /
        _PURGE_INFLIGHT) are served by the next poll()/flush()."""
        cdef int flags = ((RD_KAFKA_PURGE_F_QUEUE if in_queue else 0)
                          | (RD_KAFKA_PURGE_F_INFLIGHT if in_flight else 0)
                          | (0 if blocking else RD_KAFKA_PURGE_F_NON_BLOCKING))
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            with self._blocking:
                with nogil:
                    err = rd_kafka_purge(self._rk, flags)
            _check(err)
        finally:
            cb_section_end(&cs)

    def __len__(self):
        """Messages and delivery reports not yet served."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            return 0 if self._rk == NULL else rd_kafka_outq_len(self._rk) + len(self._pending)
        finally:
            cb_section_end(&cs)

    def __bool__(self):
        return True

    # -- transactions --

    def init_transactions(self, timeout=-1):
        """Initialise transactions for this producer's ``transactional.id``: fences
        older producers with the same id and aborts their open transaction. Call once, before
        ``begin_transaction()``.

        Raises:
            KafkaException: the error, with ``retriable()``/``fatal()`` set as librdkafka says;
                a timeout (``_TIMED_OUT``) can be retried with the same call.
        """
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_error_t *error
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            with self._blocking:
                with nogil:
                    error = rd_kafka_init_transactions(self._rk, tmout)
            _check_error(error)
        finally:
            cb_section_end(&cs)

    def begin_transaction(self):
        """Start a transaction: every message produced from now on, and offsets
        sent with ``send_offsets_to_transaction()``, commit or abort together.

        Raises:
            KafkaException: ``_STATE`` when ``init_transactions()`` was not called or a
                transaction is already open.
        """
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            _check_error(rd_kafka_begin_transaction(self._rk))
        finally:
            cb_section_end(&cs)

    def send_offsets_to_transaction(self, positions, group_metadata, timeout=-1):
        """Add a consumer's offsets (``positions``) to the current transaction."""
        cdef _PartList pl
        cdef bytes data
        cdef rd_kafka_consumer_group_metadata_t *cgmd = NULL
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_error_t *error
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if not isinstance(group_metadata, ConsumerGroupMetadata):
                raise TypeError("group_metadata must come from Consumer.consumer_group_metadata()")
            pl = _PartList.from_py(positions)
            data = (<ConsumerGroupMetadata>group_metadata)._data
            _check_error(rd_kafka_consumer_group_metadata_read(&cgmd, <const char *>data,
                                                               len(data)))
            with self._blocking:
                with nogil:
                    error = rd_kafka_send_offsets_to_transaction(self._rk, pl.ptr, cgmd, tmout)
                    rd_kafka_consumer_group_metadata_destroy(cgmd)
            _check_error(error)
        finally:
            cb_section_end(&cs)

    def commit_transaction(self, timeout=-1):
        """Deliver everything produced in the transaction (serving its reports), then commit."""
        cdef double deadline = _deadline(timeout)
        cdef int tmout
        cdef rd_kafka_error_t *error
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            self.flush(timeout)
            self._ensure_open()     # (flush() served callbacks: another thread may have closed it)
            tmout = -1 if deadline < 0 else max(0, <int>((deadline - _monotonic()) * 1000))
            with self._blocking:
                with nogil:
                    error = rd_kafka_commit_transaction(self._rk, tmout)
            _check_error(error)
        finally:
            cb_section_end(&cs)

    def abort_transaction(self, timeout=-1):
        """Abort the transaction: its queued messages are purged (their reports, with
        _PURGE_QUEUE, and those of messages in flight are served by this call)."""
        cdef double deadline = _deadline(timeout)
        cdef rd_kafka_error_t *error
        cdef int wait
        cdef int step = 5
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            # librdkafka purges the queued messages itself, keeping the idempotent sequence
            # numbers consistent (a purge() of our own here would make the next transaction
            # fail with OUT_OF_ORDER_SEQUENCE_NUMBER). It then waits until every report has been
            # served, so call it in short chunks, serving reports in between: a call that timed
            # out is resumed by the next one. The chunks start short: the reports of purged
            # messages are ready at once.
            while True:
                wait = min(_chunk_ms(deadline), step)
                step = min(step * 2, CHUNK_MS)
                with self._blocking:
                    with nogil:
                        error = rd_kafka_abort_transaction(self._rk, wait)
                if (error == NULL or wait == 0
                        or rd_kafka_error_code(error) != RD_KAFKA_RESP_ERR__TIMED_OUT
                        or not rd_kafka_error_is_retriable(error)):
                    break
                rd_kafka_error_destroy(error)
                self._serve(0, True)
                PyErr_CheckSignals()
            _check_error(error)
        finally:
            cb_section_end(&cs)

    # -- lifetime --

    def close(self, timeout=-1):
        """Wait up to ``timeout`` for outstanding deliveries, purge the rest (serving every
        report), and free the producer. Returns True, as confluent-kafka's; closing twice is
        harmless."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            if self._forget_if_forked():
                self._last_topic, self._last_rkt = None, NULL
                self._topics.clear()
                return True
            if self._rk == NULL:
                return True
            if self._blocking.drain():
                return True     # another thread's close() freed it meanwhile
            if self.flush(timeout):
                self.purge(True, True, True)
                self.flush(-1)
            self._release()
            self._destroy()
            return True
        finally:
            cb_section_end(&cs)

    def __dealloc__(self):
        if self._rk != NULL and getpid() == self._pid:
            self._release()
            self._destroy()

    cdef void _release(self) noexcept:
        """Free topic handles and drop unserved reports (no Python runs) before rd_kafka_destroy."""
        cdef const rd_kafka_message_t *msgs[DR_BATCH]
        cdef size_t n, i
        cdef rd_kafka_event_t *ev
        self._callbacks_off = True
        self._last_topic, self._last_rkt = None, NULL
        if self._topics:
            for t in self._topics.values():
                (<_Topic>t).destroy()
            self._topics.clear()
        if self._pending:
            self._pending.clear()
        if self._queue == NULL:
            return
        rd_kafka_purge(self._rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)
        ev = rd_kafka_queue_poll(self._queue, 0)
        while ev != NULL:
            if rd_kafka_event_type(ev) == RD_KAFKA_EVENT_DR:
                n = rd_kafka_event_message_array(ev, msgs, DR_BATCH)
                while n:
                    for i in range(n):
                        if msgs[i]._private != NULL:
                            cb = _take(msgs[i]._private)
                            if type(cb) is DeliveryFuture:
                                # its callbacks may lead back to it
                                _fut_join(<DeliveryFuture>cb)
                    n = rd_kafka_event_message_array(ev, msgs, DR_BATCH)
            rd_kafka_event_destroy(ev)
            ev = rd_kafka_queue_poll(self._queue, 0)


cdef inline void _vu_message(rd_kafka_vu_t *vus, rd_kafka_topic_t *rkt, int32_t partition,
                             int msgflags, const char *vp, size_t vn, const char *kp,
                             size_t kn) noexcept nogil:
    """The first five entries of a rd_kafka_produceva() call: topic handle, partition, flags,
    value and key (the produce paths add the rest from vus[5] on)."""
    vus[0].vtype = RD_KAFKA_VTYPE_RKT
    vus[0].u.rkt = rkt
    vus[1].vtype = RD_KAFKA_VTYPE_PARTITION
    vus[1].u.i32 = partition
    vus[2].vtype = RD_KAFKA_VTYPE_MSGFLAGS
    vus[2].u.i = msgflags
    vus[3].vtype = RD_KAFKA_VTYPE_VALUE
    vus[3].u.mem.ptr, vus[3].u.mem.size = <void *>vp, vn
    vus[4].vtype = RD_KAFKA_VTYPE_KEY
    vus[4].u.mem.ptr, vus[4].u.mem.size = <void *>kp, kn


cdef double _max_block_seconds(object value) except -1:
    """The ``max.block.ms`` property (milliseconds, a number or a numeric string) in seconds;
    0 when unset."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError("'max.block.ms' must be a number of milliseconds, not %s"
                        % type(value).__name__)
    try:
        ms = float(value)
    except ValueError:
        raise ValueError("'max.block.ms' must be a number of milliseconds, not %r" % value) \
            from None
    if not ms >= 0:
        raise ValueError("'max.block.ms' must be >= 0, not %r" % value)
    return ms / 1000.0


cdef inline object _callback(object cb):
    if cb is not None and not callable(cb):
        raise TypeError("on_delivery must be callable, not %s" % type(cb).__name__)
    return cb


cdef tuple _batch_item(object m, int i, int32_t partition, object cb):
    """(value, key, partition, callback, timestamp, headers) of produce_batch()'s item ``i``,
    checked as confluent-kafka checks it, in its order; beyond it, a partition outside int32
    and a callback that is not callable are refused (confluent-kafka wraps the first around and
    fails on the second when the delivery report is served), and a timestamp is produced
    (confluent-kafka raises NotImplementedError)."""
    if not isinstance(m, dict):
        raise TypeError("Message at index %d must be a dict" % i)
    value, key = m.get("value"), m.get("key")
    for what, v in (("value", value), ("key", key)):
        if v is not None and not isinstance(v, (bytes, str)):
            raise TypeError("Message %s at index %d must be bytes or str" % (what, i))
    mpartition = m.get("partition")
    if mpartition is None:
        mpartition = partition
    elif not isinstance(mpartition, int):
        raise TypeError("Message partition at index %d must be int" % i)
    else:
        mpartition = _as_int32(mpartition)
    timestamp = m.get("timestamp")
    if timestamp is None:
        timestamp = 0
    elif not isinstance(timestamp, int):
        raise TypeError("Message timestamp at index %d must be int" % i)
    headers = m.get("headers")
    if headers is not None:
        try:
            _header_items(headers)
        except TypeError:
            raise ValueError("Invalid headers at index %d" % i) from None
    mcb = m.get("callback")
    if mcb is None:
        mcb = m.get("on_delivery")
    if mcb is None:
        mcb = cb
    elif not callable(mcb):
        raise TypeError("Message callback at index %d must be callable" % i)
    return (value, key, mpartition, mcb, timestamp, headers)


_PARTITIONERS = {"consistent": 0, "murmur2": 1, "fnv1a": 2}


def _partition(str name, bytes key, int32_t partition_count):
    """The partition librdkafka's ``name`` partitioner picks for ``key`` (validated by the
    caller: partition_count > 0)."""
    cdef int which = _PARTITIONERS[name]
    cdef const char *k = key
    cdef size_t n = len(key)
    if which == 0:
        return rd_kafka_msg_partitioner_consistent(NULL, k, n, partition_count, NULL, NULL)
    if which == 1:
        return rd_kafka_msg_partitioner_murmur2(NULL, k, n, partition_count, NULL, NULL)
    return rd_kafka_msg_partitioner_fnv1a(NULL, k, n, partition_count, NULL, NULL)
