# The asyncio producer's hot path: DeliveryFuture, one per message, which speaks asyncio's
# future protocol; the delivery reports of one served batch run their futures' done-callbacks
# from ONE loop.call_soon (asyncio's own Future makes a Handle per callback); and the compiled
# coroutine that is AIOProducer.produce.

from cpython.contextvars cimport PyContext_CopyCurrent, PyContext_Enter, PyContext_Exit
from cpython.exc cimport PyErr_WarnEx
from cpython.object cimport PyObject, PyTypeObject

from includes.python cimport CO_COROUTINE, PyCodeObject, cb_send_result, cb_set_am_send

import sys

cdef bint _STOP_ITERATION_REFUSED = sys.version_info < (3, 13)

cdef enum:
    FUT_PENDING = 0
    FUT_CANCELLED = 1
    FUT_FINISHED = 2

# asyncio's exception types, imported when the first DeliveryFuture needs one (the binding does
# not import asyncio itself)
cdef object _CancelledError = None
cdef object _InvalidStateError = None


cdef int _asyncio_types() except -1:
    global _CancelledError, _InvalidStateError
    if _CancelledError is None:
        from asyncio import CancelledError, InvalidStateError
        _CancelledError, _InvalidStateError = CancelledError, InvalidStateError
    return 0


cdef tuple _STATES = ("PENDING", "CANCELLED", "FINISHED")


cdef extern from "Python.h":
    PyObject *PyType_GenericAlloc(PyTypeObject *type, Py_ssize_t nitems) except NULL
    void PyTuple_SET_ITEM(object p, Py_ssize_t pos, object o)


cdef inline object _named_tuple(object cls, Py_ssize_t n):
    """An empty ``n``-item instance of the named tuple class ``cls``, as tuple.__new__ starts
    one (without the plain tuple it copies from); the caller sets every item (_set_item)."""
    cdef PyObject *o = PyType_GenericAlloc(<PyTypeObject *>cls, n)
    t = <object>o
    Py_DECREF(t)        # <object> took a reference of its own: the one from the allocation goes
    return t


cdef inline void _set_item(object t, Py_ssize_t i, object v) noexcept:
    Py_INCREF(v)        # PyTuple_SET_ITEM takes over a reference
    PyTuple_SET_ITEM(t, i, v)


@cython.binding(False)
@cython.final
@cython.auto_pickle(False)
cdef class _RecordMetadataOf:
    """The result mapping of an API face (``DeliveryFuture._map``) that makes aiokafka's
    RecordMetadata of a delivery: ``record_type(topic, partition, partition_type(topic,
    partition), offset, timestamp or None, timestamp type (0: create time, 1: log append time),
    None)``, both types named tuples. A future mapped with it makes that straight from its
    delivery report when read (no Message in between); called with a Message it maps that."""

    cdef object record_type, partition_type

    def __cinit__(self, type record_type not None, type partition_type not None):
        if not (issubclass(record_type, tuple) and issubclass(partition_type, tuple)
                and record_type.__itemsize__ and partition_type.__itemsize__
                and not record_type.__dictoffset__ and not partition_type.__dictoffset__):
            raise TypeError("_RecordMetadataOf takes two named tuple classes")
        self.record_type, self.partition_type = record_type, partition_type

    cdef object of_fields(self, object topic, const _MsgFields *f):
        """Both tuples are made outside the cycle collector: immutable, their items strings,
        numbers and None, they cannot be part of a cycle (one made per delivered record would
        otherwise make every collection of a loop with many tasks alive more frequent)."""
        partition = None if f.partition < 0 else f.partition
        tp = _named_tuple(self.partition_type, 2)
        _set_item(tp, 0, topic)
        _set_item(tp, 1, partition)
        PyObject_GC_UnTrack(tp)
        md = _named_tuple(self.record_type, 7)
        _set_item(md, 0, topic)
        _set_item(md, 1, partition)
        _set_item(md, 2, tp)
        _set_item(md, 3, None if f.offset < 0 else f.offset)
        _set_item(md, 4, f.timestamp if f.tstype else None)
        _set_item(md, 5, f.tstype - 1 if f.tstype > 1 else 0)
        _set_item(md, 6, None)
        PyObject_GC_UnTrack(md)
        return md

    def __call__(self, Message msg not None):
        cdef _MsgFields f
        f.partition, f.offset = msg._partition, msg._offset
        f.tstype, f.timestamp = msg._tstype, msg._timestamp
        return self.of_fields(msg._topic, &f)


@cython.binding(False)
@cython.final
@cython.freelist(1024)
@cython.auto_pickle(False)
cdef class DeliveryFuture:
    """The future ``await AIOProducer.produce(...)`` returns: its result is the delivered
    :class:`Message`, or it raises :class:`KafkaException` when delivery failed.

    It follows asyncio's future protocol (``asyncio.isfuture()`` is true; tasks await it;
    ``gather``, ``wait``, ``wait_for``, ``shield`` and ``wrap``-style chaining accept it), with
    ``result``, ``exception``, ``done``, ``cancelled``, ``cancel``, ``add_done_callback`` /
    ``remove_done_callback`` (with ``context``), ``get_loop``, ``set_result`` and
    ``set_exception``. It is not a subclass of ``asyncio.Future``. Done-callbacks run on the
    loop, in the context they were added with, never inside the call that resolved the future:
    those of every future one served batch of delivery reports resolved are run by one loop
    callback, in order. An exception a done-callback raises goes to the loop's exception
    handler, as asyncio does. Cancelling it does not withdraw the message: its delivery report
    is still served, once.
    """

    def __init__(self, *, loop=None):
        if loop is None:
            from asyncio import get_running_loop
            loop = get_running_loop()
        self.loop = loop

    # -- reading --

    def get_loop(self):
        """The event loop the future belongs to."""
        return self.loop

    def done(self):
        """True once the delivery report has been served (delivered or failed) or the future
        was cancelled.
        """
        return self.state != FUT_PENDING

    def cancelled(self):
        """True when the future was cancelled (the message itself is not recalled)."""
        return self.state == FUT_CANCELLED

    def result(self):
        """The delivered Message.

        Raises:
            KafkaException: the delivery failed (its KafkaError is ``args[0]``).
            asyncio.InvalidStateError: the report has not been served yet.
            asyncio.CancelledError: the future was cancelled.
        """
        if self.state == FUT_PENDING:
            _asyncio_types()
            raise _InvalidStateError("Result is not set.")
        return self._outcome()

    cdef object _outcome(self):
        """The result of a done future (raises its exception, or CancelledError)."""
        if self.state == FUT_CANCELLED:
            raise self._make_cancelled_error()
        if self.exc is not None:
            self.unretrieved = None
            raise self.exc
        return self._result_value()

    cdef object _result_value(self):
        """The result; a delivered Message is made from its report's copies when first read
        (a served batch of reports then allocates no Message: each is made when its future is
        awaited, and most are freed soon after)."""
        if self.dr_pending:
            self.dr_pending = False
            if self.face is not None and type(self.face[0]) is _RecordMetadataOf:
                self.value = (<_RecordMetadataOf>self.face[0]).of_fields(self.dr_topic, &self.dr)
                self.dr_topic = self.dr_value = self.dr_key = None
                return self.value
            self.value = _message_of(self.dr_topic, self.dr_value, self.dr_key, &self.dr)
            self.dr_topic = self.dr_value = self.dr_key = None
            if self.face is not None:
                self.value = self.face[0](self.value)
        return self.value

    def _map(self, result, error, quiet=()):
        """For an API face over the asyncio producer (aiokafka's): the future's result becomes
        ``result(message)`` (made when first read, as the Message is), a failed delivery raises
        ``error(kafka_exception)`` (mapped when the report is served), and one whose error code
        is in ``quiet`` is not reported to the loop when nobody retrieved it. Returns the
        future. For a pending future of the compiled produce path only."""
        if self.state != FUT_PENDING or self.dr_pending:
            raise RuntimeError("_map() is for a pending future")
        self.face = (result, error, tuple(quiet))
        return self

    def _map_as(self, tuple face not None):
        """``_map(*face)`` for ``face`` = (result, error, quiet), ``quiet`` a tuple: one tuple an
        API face shares between its futures, none made (and kept by the cycle collector) per
        message."""
        if self.state != FUT_PENDING or self.dr_pending:
            raise RuntimeError("_map() is for a pending future")
        if len(face) != 3 or type(face[2]) is not tuple:
            raise TypeError("_map_as() takes (result, error, quiet tuple)")
        self.face = face
        return self

    def exception(self):
        """The KafkaException of a failed delivery, or None when it was delivered; raises
        as :meth:`result` does while it is pending or cancelled.
        """
        if self.state == FUT_CANCELLED:
            raise self._make_cancelled_error()
        if self.state == FUT_PENDING:
            _asyncio_types()
            raise _InvalidStateError("Exception is not set.")
        self.unretrieved = None
        return self.exc

    def _make_cancelled_error(self):
        _asyncio_types()
        if self.cancel_msg is None:
            return _CancelledError()
        return _CancelledError(self.cancel_msg)

    # -- callbacks --

    def add_done_callback(self, fn, *, context=None):
        """Call ``fn(future)`` on the loop once the future is done."""
        cdef bint copied = context is None
        if copied:
            context = PyContext_CopyCurrent()
        if self.state != FUT_PENDING:
            self.loop.call_soon(fn, self, context=context)
        elif self.cb0 is None and self.more is None:
            if copied and not PyObject_GC_IsTracked(self):
                # Our copy, referred to by nothing but this future, which is outside the cycle
                # collector: it need not be under it either (see _ctx_out) until it leaves.
                PyObject_GC_UnTrack(context)
            self.cb0, self.ctx0 = fn, context
        elif self.more is None:
            self.more = [(fn, context)]
        else:
            self.more.append((fn, context))

    def remove_done_callback(self, fn):
        """Remove every pending ``fn``; returns how many were removed."""
        cdef list left = self._pending_callbacks()
        cdef list kept = [c for c in left if c[0] != fn]
        if len(kept) == len(left):
            return 0
        self.cb0 = self.ctx0 = self.more = None
        if kept:
            self.cb0, self.ctx0 = kept[0]
            if len(kept) > 1:
                self.more = kept[1:]
        return len(left) - len(kept)

    cdef list _pending_callbacks(self):
        cdef list out = [] if self.cb0 is None else [(self.cb0, _ctx_out(self.ctx0))]
        if self.more is not None:
            out.extend(self.more)
        return out

    # -- resolving --

    def cancel(self, msg=None):
        """Cancel the future (the message is not withdrawn: its report is still served)."""
        if self.state != FUT_PENDING:
            return False
        self.state = FUT_CANCELLED
        self.cancel_msg = msg
        _fut_join(self)
        _fut_dispatch_one(self)
        return True

    def set_result(self, result):
        """Resolve the future with ``result`` (done by the producer when the report is
        served; asyncio's future protocol).
        """
        self._check_pending()
        self.value = result if self.face is None else self.face[0](result)
        self.state = FUT_FINISHED
        _fut_join(self)
        _fut_dispatch_one(self)

    def set_exception(self, exception):
        """Fail the future with ``exception`` (done by the producer for a failed delivery;
        asyncio's future protocol).
        """
        self._check_pending()
        if isinstance(exception, type):
            exception = exception()
        if isinstance(exception, StopIteration):
            # as asyncio's Future on this Python: refused up to 3.12, stored as the
            # RuntimeError it causes from 3.13
            message = ("StopIteration interacts badly with generators and cannot be "
                       "raised into a Future")
            if _STOP_ITERATION_REFUSED:
                raise TypeError(message)
            stop, exception = exception, RuntimeError(message)
            exception.__cause__ = stop
        if not isinstance(exception, BaseException):
            raise TypeError("exception must be an exception, not %s" % type(exception).__name__)
        self._fail(exception)
        self.state = FUT_FINISHED
        _fut_dispatch_one(self)

    cdef int _fail(self, exception) except -1:
        """Hold ``exception`` (an API face's own, if it maps KafkaException), reported to the
        loop if nobody retrieves it (unless the face keeps that code quiet)."""
        cdef bint quiet = False
        if self.face is not None and isinstance(exception, KafkaException):
            args = exception.args
            quiet = bool(args) and isinstance(args[0], KafkaError) and \
                args[0].code() in self.face[2]
            try:
                exception = self.face[1](exception)
            except Exception as exc:        # the face's bug: still fail the future, with it
                exception = exc
        self.exc = exception
        if not quiet:
            self.unretrieved = _Unretrieved(self)
        _fut_join(self)
        return 0

    cdef int _check_pending(self) except -1:
        if self.state != FUT_PENDING:
            _asyncio_types()
            raise _InvalidStateError("%s: %r" % (_STATES[self.state], self))
        return 0

    # -- awaiting --

    # The future is its own await iterator (it keeps no state of an await: several tasks may
    # await it at once). While pending it yields itself: the task waits for it to be done, then
    # sends None and gets the outcome. Python 3.10+ takes that from _fut_am_send, in C (nothing
    # allocated, no StopIteration raised: most futures are done when awaited); __next__ is the
    # same step for Python 3.9 and for callers of next().

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        if self.state == FUT_PENDING:
            self._asyncio_future_blocking = True
            return self
        raise StopIteration(self._outcome())

    # -- what asyncio's own helpers read --

    @property
    def _loop(self):
        return self.loop

    @property
    def _state(self):
        return _STATES[self.state]

    @property
    def _cancel_message(self):
        return self.cancel_msg

    @property
    def _callbacks(self):
        return self._pending_callbacks()

    @property
    def _exception(self):
        return self.exc

    @property
    def _result(self):
        return self._result_value()

    @property
    def _log_traceback(self):
        return self.unretrieved is not None

    @_log_traceback.setter
    def _log_traceback(self, value):
        if value:
            raise ValueError("_log_traceback can only be set to False")
        self.unretrieved = None

    _source_traceback = None

    def __repr__(self):
        if self.state == FUT_FINISHED:
            what = ("exception=%r" % (self.exc,) if self.exc is not None
                    else "result=%r" % (self._result_value(),))
            return "<DeliveryFuture finished %s>" % what
        return "<DeliveryFuture %s>" % _STATES[self.state].lower()

    def __dealloc__(self):
        _ctx_out(self.ctx0)


@cython.binding(False)
@cython.final
@cython.auto_pickle(False)
cdef class _Unretrieved:
    """Reports the exception of a DeliveryFuture that nobody retrieved, as asyncio does, when
    the future is freed. The future holds it only while its exception is unretrieved, and it
    holds the future: the cycle collector frees the pair and runs this finaliser, which can then
    name the future to the loop's exception handler. (A finaliser on DeliveryFuture itself would
    cost every delivered future, and be skipped for one reused from the type's freelist.)"""
    cdef DeliveryFuture fut

    def __cinit__(self, DeliveryFuture fut):
        self.fut = fut

    def __del__(self):
        cdef DeliveryFuture f = self.fut
        if f is not None and f.unretrieved is self and f.loop is not None:
            f.unretrieved = None
            f.loop.call_exception_handler({
                "message": "DeliveryFuture exception was never retrieved",
                "exception": f.exc, "future": f})


cdef cb_send_result _fut_am_send(PyObject *o, PyObject *arg, PyObject **presult) except -1:
    """``await future``: yield the future while it is pending (1), else return its result (0)
    or raise its exception (-1). *presult is a new reference, or NULL on error."""
    presult[0] = NULL
    cdef DeliveryFuture f = <DeliveryFuture>o
    if f.state == FUT_PENDING:
        f._asyncio_future_blocking = True
        presult[0] = _new_ref(f)
        return 1
    presult[0] = _new_ref(f._outcome())
    return 0


cdef inline PyObject *_new_ref(object o):
    """A reference for the caller of an am_send function, which hands it on."""
    Py_INCREF(o)
    return <PyObject *>o


cb_set_am_send(DeliveryFuture, _fut_am_send)


cdef DeliveryFuture _new_future(object loop):
    """A future of the compiled produce path. It starts outside the cycle collector: while
    pending it is held by its message (so it is not garbage), it refers only to its loop, its
    delivered Message (which refers to nothing that could lead back) and its done-callbacks,
    which are dropped when they are scheduled. It joins the collector (_fut_join) as soon as
    it holds anything else (an exception, whose traceback may lead back to it; a result or
    cancel message set by hand), so a cycle through it is still found."""
    cdef DeliveryFuture f = DeliveryFuture.__new__(DeliveryFuture)
    f.loop = loop
    PyObject_GC_UnTrack(f)
    return f


cdef inline object _ctx_out(object ctx):
    """The first done-callback's context of a future outside the cycle collector may be a copy
    this module made and took out of the collector too (add_done_callback). It goes back under
    it before the future lets go of it or shows it to anyone (its deallocation requires it),
    and whenever the future joins the collector (_fut_join): no path skips this."""
    if ctx is not None:
        _gc_track(ctx)
    return ctx


cdef inline void _fut_join(DeliveryFuture f) noexcept:
    """Put the future (and its first callback's context) under the cycle collector."""
    _ctx_out(f.ctx0)
    _gc_track(f)


cdef int _fut_deliver(DeliveryFuture f, const rd_kafka_message_t *rkm,
                      _TopicNames names) except -1:
    """Resolve ``f`` with its delivery report (if its awaiting task has not given up on it);
    1 when it has done-callbacks to run."""
    if f.state != FUT_PENDING:
        f.dr_value = None       # librdkafka is done with a value it read in place
        return 0
    if rkm.err == RD_KAFKA_RESP_ERR_NO_ERROR:
        f.dr_topic = names.get(rkm.rkt) if rkm.rkt != NULL else None
        if f.dr_value is None:
            f.dr_value = _payload(rkm.payload, rkm.len)
        f.dr_key = _payload(rkm.key, rkm.key_len)
        _fields_from_c(&f.dr, rkm, True)
        f.dr_pending = True
    else:
        f.dr_value = None
        f._fail(KafkaException(_kafka_error(rkm.err)))
    f.state = FUT_FINISHED
    return f.cb0 is not None or f.more is not None


cdef int _fut_dispatch_one(DeliveryFuture f) except -1:
    if f.cb0 is not None or f.more is not None:
        _fut_dispatch([f])
    return 0


cdef int _fut_dispatch(list ready) except -1:
    """Schedule the done-callbacks of these just-resolved futures: one loop.call_soon for all
    of one loop's. A closed loop can run nothing: its callbacks are dropped."""
    cdef DeliveryFuture f = ready[0]
    loop = f.loop
    cdef dict by_loop = None
    for f in ready:
        if f.loop is not loop:
            by_loop = {}
            break
    if by_loop is None:
        _schedule(loop, ready)
        return 0
    for f in ready:
        by_loop.setdefault(f.loop, []).append(f)
    for loop, futs in by_loop.items():
        _schedule(loop, futs)
    return 0


cdef int _schedule(object loop, list futs) except -1:
    cdef DeliveryFuture f
    if not loop.is_closed():
        loop.call_soon(_run_done_callbacks, futs)
        return 0
    for f in futs:
        _ctx_out(f.ctx0)
        f.cb0 = f.ctx0 = f.more = None
    return 0


def _run_done_callbacks(list futs):
    """Run the done-callbacks of ``futs`` (a loop callback), each in its context. An exception
    goes to the loop's exception handler; SystemExit and KeyboardInterrupt propagate, as from
    any loop callback, after what was not run yet has been scheduled again."""
    cdef Py_ssize_t i = 0, j, n = len(futs)
    cdef DeliveryFuture f
    cdef list more
    while i < n:
        f = futs[i]
        i += 1
        cb, ctx, more = f.cb0, _ctx_out(f.ctx0), f.more
        f.cb0 = f.ctx0 = f.more = None
        if cb is not None:
            try:
                _call_done(f, cb, ctx)
            except BaseException:
                f.more = more
                _run_later(f, futs[i:])
                raise
        if more is not None:
            for j in range(len(more)):
                cb, ctx = more[j]
                try:
                    _call_done(f, cb, ctx)
                except BaseException:
                    f.more = more[j + 1:] or None
                    _run_later(f, futs[i:])
                    raise


cdef int _run_later(DeliveryFuture f, list rest) except -1:
    if f.more is not None:
        rest.insert(0, f)
    if rest:
        f.loop.call_soon(_run_done_callbacks, rest)
    return 0


cdef int _call_done(DeliveryFuture f, object cb, object ctx) except -1:
    try:
        PyContext_Enter(ctx)
        try:
            cb(f)
        finally:
            PyContext_Exit(ctx)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:
        f.loop.call_exception_handler({
            "message": "Exception in callback %s(%r)" % (getattr(cb, "__qualname__", cb), f),
            "exception": exc, "future": f})
    return 0


def _aio_produce(self, topic, value=None, key=None, partition=-1, on_delivery=None,
                 timestamp=0, headers=None, callback=None):
    """Enqueue a message; returns a DeliveryFuture resolved with the delivered Message (or a
    KafkaException). Waits (on the loop) while librdkafka's queue is full.

    A coroutine function's call: the message is enqueued when the result is awaited (or run as
    a task). That result is an _AioProduce, not a Python coroutine: with nothing to wait for it
    answers the await at once, from C (see _produce_am_send)."""
    cdef _AioProduce c = _AioProduce.__new__(_AioProduce)
    c.owner = <_AioProducerBase?>self
    c.topic, c.value, c.key, c.partition = topic, value, key, partition
    c.on_delivery, c.timestamp, c.headers, c.callback = on_delivery, timestamp, headers, callback
    return c


# produce is a coroutine function to introspection, as confluent-kafka's (and as it was when it
# was an ``async def``): inspect/asyncio.iscoroutinefunction() read the CO_COROUTINE flag of its
# code object, which only describes the compiled function (nothing executes it).
(<PyCodeObject *>_aio_produce.__code__).co_flags |= CO_COROUTINE


cdef enum:
    CALL_NEW = 0        # not awaited yet
    CALL_WAITING = 1    # delegating to the producer's _produce() coroutine
    CALL_DONE = 2
    CALL_PAUSED = 3     # let the loop run once before enqueueing (see LOOP_TURN)
    # produce() on the compiled path lets the loop run (a bare yield, as asyncio.sleep(0))
    # before every LOOP_TURN-th message, so that a task producing in a loop never holds the loop
    # for long (about half a millisecond): other tasks run, delivery reports are served while
    # they are few and the futures' done-callbacks run, instead of piling up until flush().
    LOOP_TURN = 1000


@cython.binding(False)
@cython.final
@cython.auto_pickle(False)
cdef class _AioPath:
    """AIOProducer's compiled produce path, while it is open: its producer, the loop its
    futures are on, and how many messages went out since produce() last let the loop run."""

    def __cinit__(self, Producer producer not None, loop not None):
        self.producer, self.loop = producer, loop


@cython.binding(False)
@cython.auto_pickle(False)
cdef class _AioProducerBase:
    """The base of the asyncio producer (``aio.AIOProducer``): what its compiled produce()
    (``_aio_produce``, installed as the class's ``produce``) needs of it. ``_fast`` is the
    compiled path while the producer is open (None: every message takes ``_produce``), and
    ``_produce(topic, value, key, partition, on_delivery, timestamp, headers, callback)`` is the
    coroutine function the subclass defines for the rest (a callback of the caller's, a
    serializing producer, a full queue, a closed producer)."""

    def _produce(self, topic, value, key, partition, on_delivery, timestamp, headers, callback):
        raise NotImplementedError("AIOProducer subclasses define _produce()")


@cython.binding(False)
@cython.final
@cython.freelist(16)
@cython.auto_pickle(False)
cdef class _AioProduce:
    """The coroutine ``AIOProducer.produce(...)`` returns (it has the coroutine protocol:
    ``send``, ``throw``, ``close``, ``__await__``; ``asyncio.iscoroutine()`` is true, so
    ``create_task`` runs it). Awaited, it enqueues the message; on the compiled path (no callback
    of the caller's, not a serializing producer, room in librdkafka's queue) it returns the
    DeliveryFuture at once (once in LOOP_TURN calls it first lets the loop run). Otherwise it
    runs the producer's ``_produce()`` coroutine, which may wait on the loop, and hands on what
    that yields and returns."""

    cdef _AioProducerBase owner
    cdef object topic, value, key, partition, on_delivery, timestamp, headers, callback
    cdef object inner           # the _produce() coroutine it delegates to
    cdef int state

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        return self.send(None)

    def send(self, arg):
        cdef bint yielded = False
        r = self._step(arg, &yielded)
        if yielded:
            return r
        raise StopIteration(r)

    def throw(self, typ, val=None, tb=None):
        """Raise an exception where the coroutine waits (or at once, when it does not)."""
        if self.inner is not None:
            try:
                if val is None and tb is None:
                    return self.inner.throw(typ)
                return self.inner.throw(typ, val, tb)
            except BaseException:
                self._finish()
                raise
        self._finish()
        exc = val if isinstance(val, BaseException) else (
            (typ() if val is None else typ(val)) if isinstance(typ, type) else typ)
        if tb is not None:
            exc = exc.with_traceback(tb)
        raise exc

    def close(self):
        inner = self.inner
        self._finish()
        if inner is not None:
            inner.close()

    cdef void _finish(self) noexcept:
        self.state = CALL_DONE
        self.owner = None
        self.topic = self.value = self.key = self.headers = None
        self.on_delivery = self.callback = self.inner = None

    cdef object _step(self, object arg, bint *yielded):
        """Run the coroutine on; ``yielded[0]`` says whether it yielded (the returned object)
        or returned (the returned object is its result)."""
        cdef Producer p
        cdef DeliveryFuture fut
        cdef rd_kafka_resp_err_t err
        cdef _AioPath fast
        cdef cb_section cs
        if self.state == CALL_NEW or self.state == CALL_PAUSED:
            fast = self.owner._fast
            if fast is not None and self.on_delivery is None and self.callback is None:
                if fast.since_turn >= LOOP_TURN and self.state == CALL_NEW:
                    fast.since_turn = 0
                    self.state = CALL_PAUSED
                    yielded[0] = True
                    return None
                self.state = CALL_DONE      # (also when this raises: bad input)
                fast.since_turn += 1
                p = fast.producer
                fut = _new_future(fast.loop)
                cb_section_begin(&cs, p)     # as Producer.produce() (free-threaded builds)
                try:
                    err = p._produce(p._topic(self.topic), self.value, self.key, self.partition,
                                     fut, self.timestamp, self.headers)
                finally:
                    cb_section_end(&cs)
                if err == RD_KAFKA_RESP_ERR_NO_ERROR:
                    return fut
                if err != RD_KAFKA_RESP_ERR__QUEUE_FULL:
                    _raise_produce_error(err)
            self.state = CALL_WAITING
            # a callback of the caller's, a serializing producer, a closed producer or a full
            # queue
            self.inner = self.owner._produce(self.topic, self.value, self.key, self.partition,
                                             self.on_delivery, self.timestamp, self.headers,
                                             self.callback)
            arg = None
        elif self.state == CALL_DONE or self.inner is None:
            self._finish()
            raise RuntimeError("cannot reuse already awaited coroutine")
        try:
            r = self.inner.send(arg)
        except StopIteration as stop:
            self._finish()
            return stop.value
        except BaseException:
            self._finish()
            raise
        yielded[0] = True
        return r

    def __dealloc__(self):
        # as Python warns of a coroutine never awaited (in __dealloc__, not __del__: a finaliser
        # would cost every call, and a recycled object from the freelist would skip it)
        if self.state == CALL_NEW:
            PyErr_WarnEx(RuntimeWarning, b"coroutine 'AIOProducer.produce' was never awaited", 1)


cdef cb_send_result _produce_am_send(PyObject *o, PyObject *arg, PyObject **presult) except -1:
    """``await producer.produce(...)``: _AioProduce's step, answered in C."""
    presult[0] = NULL
    cdef bint yielded = False
    r = (<_AioProduce>o)._step(<object>arg, &yielded)
    presult[0] = _new_ref(r)
    return yielded


cb_set_am_send(_AioProduce, _produce_am_send)
