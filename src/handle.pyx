# _Handle: owns the rd_kafka_t, serves callbacks on the calling thread, waits without the GIL.
# _BlockingCalls: the one bracket every blocking librdkafka call goes through.

from includes.rdkafka cimport (
    RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE,
    RD_KAFKA_EVENT_ERROR,
    RD_KAFKA_EVENT_LOG,
    RD_KAFKA_EVENT_OAUTHBEARER_TOKEN_REFRESH,
    RD_KAFKA_EVENT_STATS,
    RD_KAFKA_RESP_ERR__FATAL,
    RD_KAFKA_RESP_ERR__INVALID_ARG,
    RD_KAFKA_RESP_ERR__TIMED_OUT,
    rd_kafka_clusterid,
    rd_kafka_conf_destroy,
    rd_kafka_conf_enable_sasl_queue,
    rd_kafka_conf_set_error_cb,
    rd_kafka_conf_set_events,
    rd_kafka_conf_set_log_cb,
    rd_kafka_conf_set_oauthbearer_token_refresh_cb,
    rd_kafka_conf_set_opaque,
    rd_kafka_conf_set_stats_cb,
    rd_kafka_conf_set_throttle_cb,
    rd_kafka_conf_t,
    rd_kafka_controllerid,
    rd_kafka_destroy_flags,
    rd_kafka_err2str,
    rd_kafka_event_config_string,
    rd_kafka_event_destroy,
    rd_kafka_event_error,
    rd_kafka_event_error_is_fatal,
    rd_kafka_event_error_string,
    rd_kafka_event_log,
    rd_kafka_event_stats,
    rd_kafka_event_t,
    rd_kafka_event_type,
    rd_kafka_fatal_error,
    rd_kafka_last_error,
    rd_kafka_mem_free,
    rd_kafka_metadata,
    rd_kafka_metadata_destroy,
    rd_kafka_metadata_t,
    rd_kafka_name,
    rd_kafka_new,
    rd_kafka_oauthbearer_set_token,
    rd_kafka_oauthbearer_set_token_failure,
    rd_kafka_opaque,
    rd_kafka_queue_destroy,
    rd_kafka_queue_io_event_enable,
    rd_kafka_queue_forward,
    rd_kafka_queue_get_main,
    rd_kafka_queue_get_sasl,
    rd_kafka_queue_poll,
    rd_kafka_queue_poll_callback,
    rd_kafka_queue_t,
    rd_kafka_resp_err_t,
    rd_kafka_sasl_set_credentials,
    rd_kafka_set_log_queue,
    rd_kafka_t,
    rd_kafka_topic_destroy,
    rd_kafka_topic_new,
    rd_kafka_topic_t,
    rd_kafka_type_t,
    rd_kafka_yield,
)

cdef enum:
    CHUNK_MS = 200   # longest GIL-free wait between two checks for signals (Ctrl-C)
    # longest wait for an event where another thread may serve it (flush(), a produce() waiting
    # for room): a thread that did not get the event it waits for looks again this soon, as
    # librdkafka's own rd_kafka_flush() does
    SHARED_WAIT_MS = 10

cdef inline double _monotonic() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline double _seconds(object timeout) except? -2:
    """A timeout in seconds; negative: -1, wait forever. Not None: confluent-kafka raises
    TypeError("must be real number, not NoneType") there too."""
    cdef double t = timeout
    return -1 if t < 0 else t


cdef inline double _deadline(object timeout) except? -2:
    """Absolute monotonic deadline for a timeout in seconds; -1 means wait forever."""
    cdef double t = _seconds(timeout)
    return -1 if t < 0 else _monotonic() + t


cdef inline int _chunk_ms(double deadline) noexcept nogil:
    """How long the next GIL-free wait may last: at most CHUNK_MS, 0 once the deadline passed."""
    if deadline < 0:
        return CHUNK_MS
    cdef double left = (deadline - _monotonic()) * 1000.0
    if left <= 0:
        return 0
    if left >= CHUNK_MS:
        return CHUNK_MS
    return <int>left + 1


cdef inline int _timeout_ms(object timeout) except? -2:
    """A timeout in seconds (negative: forever) as librdkafka milliseconds."""
    cdef double t = _seconds(timeout)
    if t < 0:
        return -1
    if t * 1000.0 > 2147483647.0:
        return 2147483647
    return <int>(t * 1000.0)


_HANDLE_CLOSED = "Handle has been closed"


def _closed_exception(type owner):
    """The exception confluent-kafka raises when a closed client of type ``owner`` is used."""
    if issubclass(owner, ShareConsumer):
        return IllegalStateException("Share consumer closed")
    if issubclass(owner, Consumer):
        return RuntimeError("Consumer closed")
    # a subclass's (also one whose __init__ never created the handle) says its base's name
    return RuntimeError("%s has been closed"
                        % ("Producer" if issubclass(owner, Producer) else "AdminClient"))


# syslog level (librdkafka) -> logging level
_LOG_LEVELS = (50, 50, 50, 40, 30, 20, 20, 10)
# How long construction waits for oauth_cb's first token (confluent-kafka's 10 seconds), and
# librdkafka's RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED, the error it ends with.
cdef int _OAUTH_FIRST_TOKEN_MS = 10000
cdef int _ERR_SASL_AUTHENTICATION_FAILED = 58
# The oauth_cb of a configuration without one that names a token source by its properties
# (confluent-kafka's AWS IAM autowire: confluent_binding._aws_iam), registered by the package so
# that the core imports none of it: f(conf) -> oauth_cb or None, raising for a bad configuration.
cdef object _configured_oauth_cb = None


def _set_configured_oauth_cb(factory):
    """Register ``factory(conf) -> oauth_cb or None``, asked by every client made without an
    ``oauth_cb`` (the package registers the AWS IAM one)."""
    global _configured_oauth_cb
    _configured_oauth_cb = factory


@cython.binding(False)
cdef class _BlockingCalls:
    """The bracket around every blocking librdkafka call on an open handle::

        with self._blocking:        # count this call in (RuntimeError once closed)
            with nogil:
                err = rd_kafka_committed(self._rk, parts, tmout)
        _check(err)

    The close-race invariant lives here and nowhere else: a call counts itself in, with the
    GIL held, only while the handle is open and close() has not begun in another thread;
    close() (drain()) shuts every other thread out, then waits until no call is inside, so the
    rd_kafka_t is freed under nobody's feet. The closing thread itself may still call in
    (close() flushes) until the handle is freed (closed).
    """

    def __cinit__(self, type owner):
        self.owner = owner

    cdef bint shuts_out(self) noexcept:
        """True once the handle is freed, or close() has begun in another thread: waits end
        early and new calls raise."""
        return self.closed or (self.closing and PyThread_get_thread_ident() != self.closer)

    def __enter__(self):
        self.enter(True)

    def __exit__(self, *exc_info):
        self.leave(True)
        return False

    cdef int enter(self, bint waits) except -1:
        """Count this thread in: into a GIL-free librdkafka call (``waits``), or into serving
        callbacks from events it took (close() from one of those callbacks is refused too)."""
        if waits and self.shuts_out():
            raise _closed_exception(self.owner)
        cdef unsigned long me = PyThread_get_thread_ident()
        cdef int i
        if self.counted == 0:       # nobody inside (the common case): the first slot, no scan
            self.thread_ids[0], self.thread_depths[0], self.counted = me, 1, 1
        else:
            i = self.slot_of(me)
            if i >= 0:
                self.thread_depths[i] += 1
            else:
                for i in range(16):     # more than 16 threads at once go uncounted here
                    if not self.thread_depths[i]:
                        self.thread_ids[i], self.thread_depths[i] = me, 1
                        self.counted += 1
                        break
        if waits:
            self.inside += 1
        return 0

    cdef int leave(self, bint waits) except -1:
        cdef int i = self.slot_of(PyThread_get_thread_ident())
        if i >= 0:
            self.thread_depths[i] -= 1
            if self.thread_depths[i] == 0:
                self.counted -= 1
        if waits:
            self.inside -= 1
        return 0

    cdef int slot_of(self, unsigned long me) noexcept:
        cdef int i
        for i in range(16):
            if self.thread_depths[i] and self.thread_ids[i] == me:
                return i
        return -1

    cdef int drain(self) except -1:
        """Begin close() in this thread: shut other threads out (their GIL-free waits end
        within one chunk) and wait until none is inside librdkafka or serving callbacks of
        this handle (a callback another thread serves may still use the rd_kafka_t after it
        returns). A callback that a call of this thread is serving cannot close its own client
        (the call could never end): that raises RuntimeError and leaves the client open. When
        close() has begun in another thread, waits for it to end first: returns 1 when that
        one freed the handle (nothing left to do), else 0."""
        cdef unsigned long me = PyThread_get_thread_ident()
        if self.slot_of(me) >= 0:
            raise RuntimeError("%s.close() called from a callback that this client is serving; "
                               "close it after the serving call returns" % self.owner.__name__)
        # (a close() interrupted by Ctrl-C leaves closer 0: this one resumes its wait)
        while self.closing and not self.closed and self.closer != 0 and self.closer != me:
            with nogil:
                usleep(2000)
            PyErr_CheckSignals()
        if self.closed:
            return 1
        self.closing = True
        self.closer = me
        while self.inside or self.counted:
            with nogil:
                usleep(2000)
        return 0


@cython.binding(False)
@cython.no_gc_clear
cdef class _Handle:
    """Base of Producer and Consumer: owns one rd_kafka_t (and its poll queue)."""

    def __cinit__(self, *args, **kwargs):
        self._pid = getpid()
        self._names = _TopicNames()
        self._blocking = _BlockingCalls(type(self))

    cdef _Conf _new_conf(self, dict conf, int events):
        """Split the common Python-only keys off conf and build the librdkafka configuration."""
        self._error_cb = _pop_callable(conf, "error_cb")
        self._stats_cb = _pop_callable(conf, "stats_cb")
        self._throttle_cb = _pop_callable(conf, "throttle_cb")
        self._oauth_cb = _pop_callable(conf, "oauth_cb")
        if self._oauth_cb is None and _configured_oauth_cb is not None:
            self._oauth_cb = _configured_oauth_cb(conf)
        mechanism = conf.get("sasl.mechanisms", conf.get("sasl.mechanism"))
        # As confluent-kafka: with OAUTHBEARER, construction returns once oauth_cb has set the
        # first token (nothing can connect before). Here construction itself serves oauth_cb,
        # on the constructing thread; later refreshes are served by poll() and the others.
        self._oauth_first_token = (self._oauth_cb is not None and isinstance(mechanism, str)
                                   and mechanism.strip().upper() == "OAUTHBEARER")
        self._logger = conf.pop("logger", None)
        if self._logger is not None and not callable(getattr(self._logger, "log", None)):
            raise TypeError("'logger' must be a logging.Logger (an object with a log() method)")
        cdef _Conf c = _Conf()
        c.set_all(conf)
        rd_kafka_conf_set_opaque(c.ptr, <void *>self)
        if self._error_cb is not None:
            rd_kafka_conf_set_error_cb(c.ptr, _error_trampoline)
            events |= RD_KAFKA_EVENT_ERROR
        if self._stats_cb is not None:
            rd_kafka_conf_set_stats_cb(c.ptr, _stats_trampoline)
            events |= RD_KAFKA_EVENT_STATS
        if self._throttle_cb is not None:
            rd_kafka_conf_set_throttle_cb(c.ptr, _throttle_trampoline)
        if self._oauth_cb is not None:
            rd_kafka_conf_set_oauthbearer_token_refresh_cb(c.ptr, _oauth_trampoline)
            events |= RD_KAFKA_EVENT_OAUTHBEARER_TOKEN_REFRESH
        if self._oauth_first_token:
            # the refreshes go to a queue of their own, served by construction (_await_oauth_token)
            rd_kafka_conf_enable_sasl_queue(c.ptr, 1)
        if self._logger is not None:
            c.set("log.queue", "true")
            rd_kafka_conf_set_log_cb(c.ptr, _log_trampoline)
            events |= RD_KAFKA_EVENT_LOG
        if events:
            rd_kafka_conf_set_events(c.ptr, events)
        return c

    cdef int _open(self, rd_kafka_type_t rk_type, _Conf c, str what) except -1:
        """rd_kafka_new; a configuration it refuses raises confluent-kafka's
        "Failed to create <what>: <librdkafka's reason>"."""
        cdef char errstr[512]
        cdef rd_kafka_conf_t *cp = c.take()
        errstr[0] = 0
        with nogil:
            self._rk = rd_kafka_new(rk_type, cp, errstr, sizeof(errstr))
        if self._rk == NULL:
            rd_kafka_conf_destroy(cp)
            _raise_errstr(RD_KAFKA_RESP_ERR__INVALID_ARG, errstr, "Failed to create " + what)
        if self._logger is not None:
            rd_kafka_set_log_queue(self._rk, NULL)   # logs go to the main queue, served by poll
        if self._oauth_first_token:
            self._await_oauth_token(rd_kafka_queue_get_sasl(self._rk))
        return 0

    cdef int _await_oauth_token(self, rd_kafka_queue_t *saslq) except -1:
        """Construction with OAUTHBEARER: serve the SASL queue (the token refreshes librdkafka
        asks for) on this thread, waiting GIL-free in chunks, until oauth_cb has set the first
        token; then forward that queue to the main one, so that later refreshes are served
        inside poll(), flush(), consume() and close() like every other callback (a consumer's
        main queue is forwarded to the one it polls). Without a token after 10 seconds raise
        confluent-kafka's SASL_AUTHENTICATION_FAILED error, from the last exception oauth_cb
        raised. Takes ownership of ``saslq``.

        The refresh op is served through its own callback (_oauth_trampoline), which keeps an
        exception without rd_kafka_yield(): librdkafka then destroys the op itself."""
        cdef rd_kafka_queue_t *mainq
        cdef int wait
        cdef double deadline = _monotonic() + _OAUTH_FIRST_TOKEN_MS / 1000.0
        last = None
        if saslq == NULL:
            return 0
        try:
            while not self._oauth_token_set:
                wait = _chunk_ms(deadline)
                if wait == 0:
                    break
                with nogil:
                    rd_kafka_queue_poll_callback(saslq, wait)
                if self._exc is not None:
                    last, self._exc = self._exc, None
                    if not isinstance(last, Exception):
                        raise last      # KeyboardInterrupt, SystemExit: at once
                PyErr_CheckSignals()
            if not self._oauth_token_set:
                raise KafkaException(KafkaError(
                    _ERR_SASL_AUTHENTICATION_FAILED,
                    "OAuth token not set within %d seconds timeout"
                    % (_OAUTH_FIRST_TOKEN_MS // 1000))) from last
            mainq = rd_kafka_queue_get_main(self._oauth_rk)
            rd_kafka_queue_forward(saslq, mainq)
            rd_kafka_queue_destroy(mainq)
        finally:
            rd_kafka_queue_destroy(saslq)
        return 0

    cdef inline int _ensure_open(self, bint handle_call=False) except -1:
        """Raise confluent-kafka's exception for a closed handle (``handle_call``: a method
        every client type has, e.g. list_topics(), which says "Handle has been closed")."""
        if self._rk == NULL or self._blocking.shuts_out():
            raise (RuntimeError(_HANDLE_CLOSED) if handle_call
                   else _closed_exception(type(self)))
        return 0

    def _calls_inside(self):
        """How many calls are inside a GIL-free librdkafka call right now (for tests)."""
        return self._blocking.inside

    cdef bint _forget_if_forked(self) noexcept:
        """In a forked child: drop the parent's rd_kafka_t without touching it (its threads
        do not exist here, so closing it would hang). True when that happened."""
        if self._rk == NULL or getpid() == self._pid:
            return False
        self._callbacks_off = True
        self._blocking.closed = True
        self._queue = NULL
        self._rk = NULL
        return True

    cdef void _stash(self, BaseException exc) noexcept:
        """Keep the first exception a callback raised and make librdkafka return soon."""
        if self._exc is None:
            self._exc = exc
        # (rd_kafka_yield() only flags the calling thread: the share consumer, which has no
        # rd_kafka_t of its own, passes NULL). Not inside rd_kafka_consume_batch_queue():
        # there librdkafka 2.15 drops the next fetched message when a callback yielded (it
        # leaves the loop holding that message's op: the message is lost and the op leaks, so
        # rd_kafka_destroy() never returns); the batch call then ends at its chunk's end.
        if self._batch_calls == 0:
            rd_kafka_yield(self._rk)

    cdef inline int _raise_pending(self) except -1:
        if self._exc is not None:
            exc, self._exc = self._exc, None
            raise exc
        return 0

    # -- callback bodies: run with the GIL on the thread that polls --

    cdef int _serve_error(self, rd_kafka_t *rk, int err, const char *reason,
                          bint fatal) except -1:
        cdef char buf[512]
        if err == RD_KAFKA_RESP_ERR__FATAL:
            err = rd_kafka_fatal_error(rk, buf, sizeof(buf))
            reason, fatal = buf, True
        if self._error_cb is not None:
            self._error_cb(KafkaError(err, _cstr(reason), fatal))
        return 0

    cdef int _serve_stats(self, const char *json) except -1:
        if self._stats_cb is not None:
            self._stats_cb(_cstr(json))
        return 0

    cdef int _serve_log(self, const rd_kafka_t *rk, int level, const char *fac,
                        const char *buf) except -1:
        if self._logger is not None:
            self._logger.log(_LOG_LEVELS[min(max(level, 0), 7)], "%s [%s] %s",
                             _cstr(fac), _cstr(rd_kafka_name(rk)), _cstr(buf))
        return 0

    cdef int _serve_oauth(self, rd_kafka_t *rk, const char *config) except -1:
        cdef char errstr[512]
        cdef const char **exts = NULL
        if self._oauth_cb is None:
            return 0   # no Python token provider: librdkafka's own (OIDC/unsecured) applies
        try:
            res = self._oauth_cb(_cstr(config))
            if not isinstance(res, tuple) or not 2 <= len(res) <= 4:
                raise TypeError("oauth_cb must return (token, expiry[, principal[, extensions]])")
            token = res[0].encode()
            lifetime_ms = <int64_t>(float(res[1]) * 1000)
            principal = (res[2] if len(res) > 2 and res[2] is not None else "").encode()
            ext = res[3] if len(res) > 3 and res[3] else {}
            flat = [s.encode() for kv in ext.items() for s in kv]
            exts = <const char **>PyMem_Malloc(max(len(flat), 1) * sizeof(char *))
            for i, s in enumerate(flat):
                exts[i] = <const char *>s
            errstr[0] = 0
            if rd_kafka_oauthbearer_set_token(rk, token, lifetime_ms, principal, exts,
                                              len(flat), errstr, sizeof(errstr)):
                raise KafkaException(KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG, _cstr(errstr)))
            self._oauth_token_set = True
            self._oauth_rk = rk
        except BaseException as exc:
            # (never an empty reason: librdkafka ignores that failure and would not retry)
            rd_kafka_oauthbearer_set_token_failure(
                rk, ("OAuth callback raised exception: %r" % (exc,)).encode())
            raise
        finally:
            PyMem_Free(exts)
        return 0

    cdef int _serve_throttle(self, const char *broker_name, int32_t broker_id,
                             int throttle_ms) except -1:
        if self._throttle_cb is not None:
            self._throttle_cb(ThrottleEvent(_cstr(broker_name), broker_id, throttle_ms / 1000.0))
        return 0

    # -- serving the main queue (Producer adds delivery reports; AdminClient uses it as is) --

    cdef int _serve_client_event(self, rd_kafka_event_t *ev) except -1:
        """Serve an error, log, stats or token-refresh event (any other type is ignored);
        the caller destroys ev. Returns how many were served (Producer: the reports of a
        delivery report event)."""
        cdef const char *fac
        cdef const char *text
        cdef int level
        cdef int etype = rd_kafka_event_type(ev)
        if etype == RD_KAFKA_EVENT_ERROR:
            self._serve_error(self._rk, rd_kafka_event_error(ev),
                              rd_kafka_event_error_string(ev),
                              rd_kafka_event_error_is_fatal(ev))
        elif etype == RD_KAFKA_EVENT_LOG:
            if rd_kafka_event_log(ev, &fac, &text, &level) == 0:
                self._serve_log(self._rk, level, fac, text)
        elif etype == RD_KAFKA_EVENT_STATS:
            self._serve_stats(rd_kafka_event_stats(ev))
        elif etype == RD_KAFKA_EVENT_OAUTHBEARER_TOKEN_REFRESH:
            self._serve_oauth(self._rk, rd_kafka_event_config_string(ev))
        return 1

    cdef int _serve_event(self, rd_kafka_event_t *ev) except -1:
        """Serve one event from the main queue and destroy it. Returns how many were served."""
        try:
            return self._serve_client_event(ev)
        except BaseException as exc:
            self._stash(exc)
            return 1
        finally:
            rd_kafka_event_destroy(ev)

    cdef int _serve_pending(self) except -1:
        """Serve what an earlier call took but could not serve (Producer: delivery reports)."""
        return 0

    cdef int _serve(self, double deadline, bint nowait) except -1:
        """Serve what is ready; if nothing is and not nowait, wait (GIL-free) up to deadline."""
        self._blocking.enter(False)
        try:
            return self._serve_ready(deadline, nowait)
        finally:
            self._blocking.leave(False)

    cdef int _serve_ready(self, double deadline, bint nowait) except -1:
        cdef int served = self._serve_pending()
        cdef int wait
        cdef rd_kafka_event_t *ev
        cdef rd_kafka_queue_t *q = self._queue
        while self._exc is None and not self._blocking.shuts_out():
            ev = rd_kafka_queue_poll(q, 0)
            if ev == NULL:
                if served or nowait:
                    break
                wait = _chunk_ms(deadline)
                if wait == 0:
                    break
                with self._blocking:
                    with nogil:
                        ev = rd_kafka_queue_poll(q, wait)
                if ev == NULL:
                    self._raise_pending()
                    PyErr_CheckSignals()
                    continue
            served += self._serve_event(ev)
        self._raise_pending()
        return served

    # -- shared public methods --

    def list_topics(self, topic=None, timeout=-1):
        """Cluster metadata: brokers, topics, partitions (all topics, or only ``topic``)."""
        cdef const rd_kafka_metadata_t *md = NULL
        cdef rd_kafka_topic_t *rkt = NULL
        cdef rd_kafka_resp_err_t err
        cdef char *cid
        cdef int32_t controller
        cdef int tmout = _timeout_ms(timeout)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open(True)
            if topic is not None:
                if not isinstance(topic, str):
                    raise TypeError("argument 1 must be str or None, not %s"
                                    % type(topic).__name__)
                rkt = rd_kafka_topic_new(self._rk, topic.encode(), NULL)
                if rkt == NULL:
                    _check(rd_kafka_last_error(), "invalid topic %r" % topic)
            try:
                with self._blocking:
                    with nogil:
                        err = rd_kafka_metadata(self._rk, rkt == NULL, rkt, &md, tmout)
                _check(err, "Failed to get metadata")
                # Not part of rd_kafka_metadata_t; librdkafka caches both from that response.
                # Asked before any Python object is made (Python code may run there, and a
                # close() in another thread then free the rd_kafka_t).
                cid = rd_kafka_clusterid(self._rk, 0)
                controller = rd_kafka_controllerid(self._rk, 0)
                try:
                    cm = _metadata_to_py(md)
                    if cid != NULL:
                        cm.cluster_id = _cstr(cid)
                finally:
                    if cid != NULL:
                        rd_kafka_mem_free(NULL, cid)
                cm.controller_id = controller
                return cm
            finally:
                if md != NULL:
                    rd_kafka_metadata_destroy(md)
                if rkt != NULL:
                    rd_kafka_topic_destroy(rkt)
        finally:
            cb_section_end(&cs)

    def cluster_id(self, timeout=-1):
        """The cluster id (KIP-78), asked of the brokers if not known yet; waits up to
        ``timeout`` seconds (-1: forever)."""
        cdef double deadline = _deadline(timeout)
        cdef char *cid = NULL
        cdef int wait
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open(True)
            while True:
                wait = _chunk_ms(deadline)
                with self._blocking:
                    with nogil:
                        cid = rd_kafka_clusterid(self._rk, wait)
                if cid != NULL or wait == 0 or self._blocking.shuts_out():
                    break
                PyErr_CheckSignals()
            if cid == NULL:
                raise KafkaException(KafkaError(
                    RD_KAFKA_RESP_ERR__TIMED_OUT,
                    "Failed to retrieve cluster id: %s. The broker must support KIP-78 (>= 0.10.1) "
                    "for the cluster id to be available." % _cstr(rd_kafka_err2str(
                        RD_KAFKA_RESP_ERR__TIMED_OUT))))
            try:
                return _cstr(cid)
            finally:
                rd_kafka_mem_free(self._rk, cid)
        finally:
            cb_section_end(&cs)

    def _io_event_enable(self, int fd):
        """Make librdkafka write one byte to ``fd`` (a non-blocking pipe or eventfd) when the
        queue that poll()/consume() serve gets something while nobody polls; -1 turns it off.
        The asyncio clients watch ``fd`` with loop.add_reader and serve the queue without
        blocking (poll(0)) on the loop thread."""
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open()
            if fd < 0:
                rd_kafka_queue_io_event_enable(self._queue, -1, NULL, 0)
            else:
                rd_kafka_queue_io_event_enable(self._queue, fd, b"1", 1)
        finally:
            cb_section_end(&cs)

    def set_sasl_credentials(self, username, password):
        """Set SASL PLAIN/SCRAM credentials for the next authentication."""
        cdef bytes user = _str_argument(username, 1)
        cdef bytes secret = _str_argument(password, 2)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._ensure_open(True)
            _check_error(rd_kafka_sasl_set_credentials(self._rk, user, secret))
        finally:
            cb_section_end(&cs)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return None

    cdef void _destroy(self) noexcept:
        """Release librdkafka resources without running Python callbacks."""
        cdef rd_kafka_t *rk = self._rk
        if rk == NULL:
            return
        self._callbacks_off = True
        self._blocking.closed = True
        if self._queue != NULL:
            rd_kafka_queue_io_event_enable(self._queue, -1, NULL, 0)
            rd_kafka_queue_destroy(self._queue)
            self._queue = NULL
        self._rk = NULL
        self._names.release()
        with nogil:
            rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)

    def __dealloc__(self):
        # Subclasses release their own resources in their __dealloc__ (which runs first, while
        # their fields still exist). A forked child never destroys its parent's handle.
        if self._rk != NULL and getpid() == self._pid:
            self._destroy()


# -- trampolines: the C callbacks librdkafka calls from inside a serving call on our thread;
# each hands over to the handle's _serve_* method --

cdef void _error_trampoline(rd_kafka_t *rk, int err, const char *reason,
                            void *opaque) noexcept with gil:
    cdef _Handle h = <_Handle>opaque
    if h._callbacks_off:
        return
    try:
        h._serve_error(rk, err, reason, False)
    except BaseException as exc:
        h._stash(exc)


cdef int _stats_trampoline(rd_kafka_t *rk, char *json, size_t json_len,
                           void *opaque) noexcept with gil:
    cdef _Handle h = <_Handle>opaque
    if h._callbacks_off:
        return 0
    try:
        h._serve_stats(json)
    except BaseException as exc:
        h._stash(exc)
    return 0


cdef void _throttle_trampoline(rd_kafka_t *rk, const char *broker_name, int32_t broker_id,
                               int throttle_time_ms, void *opaque) noexcept with gil:
    cdef _Handle h = <_Handle>opaque
    if h._callbacks_off:
        return
    try:
        h._serve_throttle(broker_name, broker_id, throttle_time_ms)
    except BaseException as exc:
        h._stash(exc)


cdef void _log_trampoline(const rd_kafka_t *rk, int level, const char *fac,
                          const char *buf) noexcept with gil:
    cdef void *opaque = rd_kafka_opaque(rk)
    if opaque == NULL or (<_Handle>opaque)._callbacks_off:
        return
    cdef _Handle h = <_Handle>opaque
    try:
        h._serve_log(rk, level, fac, buf)
    except BaseException as exc:
        h._stash(exc)


cdef void _oauth_trampoline(rd_kafka_t *rk, const char *config, void *opaque) noexcept with gil:
    cdef _Handle h = <_Handle>opaque
    if h._callbacks_off:
        return
    try:
        h._serve_oauth(rk, config)
    except BaseException as exc:
        # Kept without rd_kafka_yield(): the token refresh reaches us as an op with its own
        # callback, and librdkafka (2.15.1) never frees such an op when its callback yields
        # (rd_kafka_op_call answers YIELD, nobody destroys the op; found by `make asan`). The
        # serving loops look for a kept exception between their chunks, so it is raised
        # within one chunk all the same.
        if h._exc is None:
            h._exc = exc
