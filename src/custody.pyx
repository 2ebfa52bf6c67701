# The consumer's custody of the messages it took from librdkafka and has not handed to the
# application yet: _Custody. Its docstring is the whole contract; everything else links to it.

from includes.rdkafka cimport (
    rd_kafka_consume_batch_queue,
    rd_kafka_consume_batch_queue_deferred,
    rd_kafka_consumer_poll,
    rd_kafka_last_error,
    rd_kafka_message_destroy,
    rd_kafka_message_t,
    rd_kafka_queue_t,
    rd_kafka_t,
    cb_coarse_ms,
    cb_hand_out,
)


cdef enum:
    # A read-ahead takes up to AHEAD messages per librdkafka call; messages still read ahead do
    # not stop librdkafka from serving its queue (callbacks, rebalances, max.poll.interval.ms):
    # once STALE_MS passed since it last did, the next poll() has it serve the queue again.
    AHEAD = 64
    STALE_MS = 20


@cython.binding(False)
@cython.final
cdef class _Custody:
    """The messages a Consumer took from librdkafka and has not handed to the application yet.

    Every such message is in one of three places, each a ``_Msgs`` (``msgs[start:end]``):

    - **read ahead** (``ahead``): poll() took it with one deferred batch call of up to AHEAD
      messages (``fill()``; ``rd_kafka_consume_batch_queue_deferred``, librdkafka-build/patches/
      0002), which leaves positions and stored offsets alone. Only in the build with librdkafka's
      internals (``CB_READ_AHEAD``); without them nothing is ever read ahead.
    - **in a call** (the call's own ``_Msgs``, between ``begin_call()`` and ``end_call()``, or
      the one message of poll()): a poll(), consume() or consume_arrow() is handing it out.
    - **kept** (``kept``): the call that had it raised before handing it out (a callback it served
      raised, Ctrl-C, MemoryError). The next call of any of the three begins with all the kept
      messages and takes no other message while any is kept.

    The fourth place is **handed out**: copied into a Message or an Arrow row and destroyed,
    out of custody. A message goes from librdkafka's queue into the read-ahead or into a call,
    from the read-ahead into a call (``claim_ahead()``), from a call to the application or into
    ``kept``, and from ``kept`` into the next call.

    **Position and stored offset.** A message's partition position (and, with
    ``enable.auto.offset.store``, its stored offset) moves once, when the message enters a call:
    taken straight from librdkafka (``take_one()``, ``fetch()``: librdkafka moves them), or claimed
    from the read-ahead (``claim_ahead()``: ``cb_hand_out()`` in ``rdkafka_fast.h`` does what
    ``rd_kafka_consumer_poll()`` does to the message it returns). Never while it is read ahead: a
    commit (automatic, on close(), or without offsets) covers only messages that entered a call.
    A kept message has moved already; it is the next call's first, so the application still sees
    the messages in the order of the positions.

    **What drops a message** (destroyed, never handed out):

    - a read-ahead message whose partition was sought, paused, resumed, revoked, unassigned or
      assigned again since it was taken: ``cb_hand_out()`` refuses it when a call claims it
      (librdkafka's own queue drops such messages by the same version check). librdkafka fetches
      the partition again from its position, which never passed it. Control records (transaction
      markers) are dropped there too, their position moved in order;
    - every message, when close() begins and when the consumer is freed (``drop()``, before its
      rd_kafka_t: a message must not outlive it); in a forked child none is touched;
    - the messages a call could not keep because no memory was left to keep them.

    **Order and threads.** Kept messages come before the read-ahead, which comes before what
    librdkafka still holds. While a fill serves a callback (``filling``), no call takes messages
    from librdkafka (they would overtake the ones being read ahead): a poll() from that callback
    gets the messages already read ahead, then None, a consume() or consume_arrow() there gets
    nothing; a call in another thread waits (``await_fill()``) up to its timeout. When calls in
    two threads each keep messages, the one that ends later puts its own first (they are older).

    It owns one resource, the messages in its custody; the arrays that hold them are freed by
    ``__dealloc__``. The messages are destroyed only by ``drop()``, ``end_call()`` and
    ``claim_ahead()``, while the consumer's handle exists.
    """

    def __dealloc__(self):
        # drop() destroyed the messages before the handle went (or, in a forked child, they are
        # the parent's): only the arrays are left.
        free(self.ahead.msgs)
        free(self.kept.msgs)
        free(self.spare.msgs)

    cdef void drop(self) noexcept:
        """Destroys every message in custody (close() begins, or the consumer is freed)."""
        cdef size_t i
        for i in range(self.kept.start, self.kept.end):
            rd_kafka_message_destroy(self.kept.msgs[i])
        free(self.kept.msgs)
        self.kept.msgs = NULL
        self.kept.cap = self.kept.start = self.kept.end = 0
        for i in range(self.ahead.start, self.ahead.end):
            rd_kafka_message_destroy(self.ahead.msgs[i])
        self.ahead.start = self.ahead.end = 0

    # -- calls: what they take, what they hand out, what they keep --

    cdef int begin_call(self, rd_kafka_t *rk, _Msgs *call, size_t n) except -1:
        """Begins a call that hands out up to ``n`` messages. ``call`` gets the kept messages
        (all of them, with their array), else an empty array for ``n`` (the spare one, unless a
        call in another thread has it) with up to ``n`` read-ahead messages claimed into it. When
        ``call.start < call.end`` after this, the call hands those out and takes no other."""
        if self.kept.msgs != NULL:
            call[0] = self.kept
            self.kept.msgs = NULL
            self.kept.cap = self.kept.start = self.kept.end = 0
            return 0
        call.start = call.end = 0
        if self.spare.msgs != NULL and self.spare.cap >= n:
            call.msgs, call.cap = self.spare.msgs, self.spare.cap
            self.spare.msgs, self.spare.cap = NULL, 0
        else:
            call.msgs = <rd_kafka_message_t **>malloc(n * sizeof(void *))
            if call.msgs == NULL:
                raise MemoryError()
            call.cap = n
        if self.ahead.start < self.ahead.end:
            call.end = self.claim_ahead(rk, call.msgs, n)
        return 0

    cdef void end_call(self, _Msgs *call, size_t handed) noexcept:
        """Ends a call: destroys the first ``handed`` messages (the call handed them out) and
        keeps the others for the next call. Never fails."""
        cdef size_t i
        for i in range(call.start, call.start + handed):
            rd_kafka_message_destroy(call.msgs[i])
        call.start += handed
        if call.start < call.end:
            self.keep(call)
        elif self.spare.msgs == NULL or call.cap > self.spare.cap:
            free(self.spare.msgs)
            self.spare.msgs, self.spare.cap = call.msgs, call.cap
        else:
            free(call.msgs)
        call.msgs = NULL

    cdef void keep(self, _Msgs *call) noexcept:
        """Keeps call.msgs[call.start:call.end] (and the array) for the next call."""
        cdef size_t n = call.end - call.start
        cdef size_t m = self.kept.end - self.kept.start
        cdef size_t i
        cdef rd_kafka_message_t **merged
        if self.kept.msgs == NULL:
            self.kept = call[0]
            return
        # A call in another thread kept messages meanwhile: this call's are older, first.
        merged = <rd_kafka_message_t **>malloc((n + m) * sizeof(void *))
        if merged == NULL:      # out of memory: nothing can keep them
            for i in range(call.start, call.end):
                rd_kafka_message_destroy(call.msgs[i])
            free(call.msgs)
            return
        memcpy(merged, call.msgs + call.start, n * sizeof(void *))
        memcpy(merged + n, self.kept.msgs + self.kept.start, m * sizeof(void *))
        free(call.msgs)
        free(self.kept.msgs)
        self.kept.msgs, self.kept.cap, self.kept.start, self.kept.end = merged, n + m, 0, n + m

    cdef void keep_one(self, rd_kafka_message_t *rkm) noexcept:
        """Keeps the one message of a poll() that raised for the next call."""
        cdef _Msgs call
        call.msgs = <rd_kafka_message_t **>malloc(sizeof(void *))
        if call.msgs == NULL:   # out of memory: nothing can keep it
            rd_kafka_message_destroy(rkm)
            return
        call.msgs[0], call.cap, call.start, call.end = rkm, 1, 0, 1
        self.keep(&call)

    cdef int take_one(self, _Handle h, int wait, rd_kafka_message_t **out) except -1:
        """poll() without a read-ahead: one message (or event) from librdkafka into ``*out``
        (NULL when none came): a look with the GIL held (``wait`` 0; callbacks already queued
        are served there, counted in so that they cannot close()), else one GIL-free wait of
        ``wait`` ms."""
        if wait == 0:
            h._blocking.enter(True)
            out[0] = rd_kafka_consumer_poll(h._rk, 0)
            h._blocking.leave(True)
        else:
            with h._blocking:
                with nogil:
                    out[0] = rd_kafka_consumer_poll(h._rk, wait)
        return 0

    cdef int fetch(self, _Handle h, _Msgs *call, size_t want, int wait) except -1:
        """Takes up to ``want`` more messages into call.msgs[call.end:]: a look with the GIL
        held (``wait`` 0), else one GIL-free wait of ``wait`` ms. Returns call.end."""
        cdef ssize_t n
        cdef rd_kafka_queue_t *q = h._queue
        cdef rd_kafka_message_t **into = call.msgs + call.end
        h._batch_calls += 1     # no rd_kafka_yield() from a callback meanwhile
        try:
            if wait == 0:
                n = rd_kafka_consume_batch_queue(q, 0, into, want)
            else:
                with h._blocking:
                    with nogil:
                        n = rd_kafka_consume_batch_queue(q, wait, into, want)
        finally:
            h._batch_calls -= 1
        if n < 0:
            _check(rd_kafka_last_error())
        call.end += n
        return call.end

    # -- poll()'s read-ahead: one librdkafka call per AHEAD messages, claimed one by one --

    cdef int next_ahead(self, _Handle h, rd_kafka_message_t **out) except -1:
        """poll(): the next read-ahead message, claimed, into ``*out``. Fills first, without
        waiting, when none is left, or when librdkafka has not served the queue for STALE_MS.
        Returns 0, taking nothing, when none is left and another call of this consumer runs
        (the messages it takes must not overtake these); else 1, ``*out`` NULL when nothing is
        waiting or a callback raised."""
        cdef bint fill
        while True:
            if self.ahead.start < self.ahead.end:
                # An error or event ends a read-ahead (patches/0002), and what librdkafka queued
                # behind it (a rebalance after MAX_POLL_EXCEEDED) is served only once it was
                # handed out, as one message per call serves it.
                fill = (h._blocking.counted == 0
                        and cb_coarse_ms() - self.served_ms >= STALE_MS
                        and self.ahead.msgs[self.ahead.end - 1].err == 0)
            elif h._blocking.counted != 0:
                return 0
            else:
                fill = True
            if fill:
                self.fill(h)
                if h._exc is not None or self.ahead.start == self.ahead.end:
                    return 1
            if self.claim_ahead(h._rk, out, 1):
                return 1
            # (all left were dropped: their partitions moved on since, or control records)

    cdef int fill(self, _Handle h) except -1:
        """One non-blocking deferred batch call appending to the read-ahead."""
        cdef size_t left = self.ahead.end - self.ahead.start
        cdef ssize_t n
        if self.ahead.msgs == NULL:
            self.ahead.msgs = <rd_kafka_message_t **>malloc(AHEAD * sizeof(void *))
            if self.ahead.msgs == NULL:
                raise MemoryError()
            self.ahead.cap = AHEAD
        elif self.ahead.start:
            memmove(self.ahead.msgs, self.ahead.msgs + self.ahead.start, left * sizeof(void *))
            self.ahead.start, self.ahead.end = 0, left
        # (a fill never finds AHEAD left: each poll() hands one out after its fill)
        h._blocking.enter(True)     # close() waits for it; its callbacks cannot close()
        self.filling, self.filling_thread = True, PyThread_get_thread_ident()
        h._batch_calls += 1
        try:
            n = rd_kafka_consume_batch_queue_deferred(h._queue, 0, self.ahead.msgs + self.ahead.end,
                                                      AHEAD - left)
        finally:
            h._batch_calls -= 1
            h._blocking.leave(True)
            self.filling = False
        self.served_ms = cb_coarse_ms()
        if n < 0:
            _check(rd_kafka_last_error())
        self.ahead.end += n
        return 0

    cdef int await_fill(self, _Handle h, object timeout, double *deadline) except -1:
        """A call that finds a fill serving a callback: returns 1 when called from that callback
        (nothing to take now) or when the call's deadline passed first; else 0 once the fill
        ended. ``*deadline`` is the call's, computed from ``timeout`` here when still 0, so that
        the call's own wait after this one ends by the same deadline."""
        if self.filling_thread == PyThread_get_thread_ident():
            return 1
        if deadline[0] == 0:
            deadline[0] = _deadline(timeout)
        while self.filling and not h._blocking.shuts_out():
            if _chunk_ms(deadline[0]) == 0:
                return 1
            with nogil:
                usleep(1000)
            PyErr_CheckSignals()
        return 0

    cdef size_t claim_ahead(self, rd_kafka_t *rk, rd_kafka_message_t **into,
                            size_t n) noexcept:
        """Moves up to ``n`` read-ahead messages into a call's ``into`` (their positions move:
        cb_hand_out), dropping those librdkafka's queue would have dropped; returns how many."""
        cdef size_t k = 0
        cdef rd_kafka_message_t *rkm
        while k < n and self.ahead.start < self.ahead.end:
            rkm = self.ahead.msgs[self.ahead.start]
            self.ahead.start += 1
            if cb_hand_out(rk, rkm):
                into[k] = rkm
                k += 1
            else:
                rd_kafka_message_destroy(rkm)
        return k
