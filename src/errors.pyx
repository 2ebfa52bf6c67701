# KafkaError, and every helper that turns librdkafka's errors into Python exceptions: one per C
# error shape (an rd_kafka_resp_err_t with an optional reason, an rd_kafka_error_t, an errstr
# buffer), then the few places whose exception type confluent-kafka chooses otherwise (admin
# options, produce, the share consumer).

from includes.rdkafka cimport (
    RD_KAFKA_RESP_ERR__CONFLICT,
    RD_KAFKA_RESP_ERR__INVALID_ARG,
    RD_KAFKA_RESP_ERR__QUEUE_FULL,
    RD_KAFKA_RESP_ERR__STATE,
    RD_KAFKA_RESP_ERR_NO_ERROR,
    rd_kafka_err2name,
    rd_kafka_err2str,
    rd_kafka_err_desc,
    rd_kafka_error_code,
    rd_kafka_error_destroy,
    rd_kafka_error_is_fatal,
    rd_kafka_error_is_retriable,
    rd_kafka_error_string,
    rd_kafka_error_t,
    rd_kafka_error_txn_requires_abort,
    rd_kafka_get_err_descs,
    rd_kafka_resp_err_t,
)


# The exceptions the core raises, defined here (as confluent-kafka's cimpl defines them) and
# re-exported by confluent_binding.error: the core imports no module of the package.

class KafkaException(Exception):
    """An error from Kafka or librdkafka: ``args[0]`` is a :class:`KafkaError`."""


class IllegalStateException(RuntimeError):
    """A share consumer call made in a state that does not allow it (closed, not subscribed,
    not in explicit acknowledgement mode, records left unacknowledged): ``str(exc)`` is
    librdkafka's reason."""


class ConcurrentModificationException(RuntimeError):
    """A share consumer was called from a second thread while a call was in progress."""


class KafkaError(KafkaException):
    """A Kafka error: a librdkafka error code with its name, description and flags.

    Every librdkafka error code is a class attribute (``KafkaError._MSG_TIMED_OUT``,
    ``KafkaError.UNKNOWN_TOPIC_OR_PART``, ...), generated from librdkafka at import.

    A value, passed to callbacks and held by messages; and, as confluent-kafka's tests expect,
    ``raise KafkaError(code)`` surfaces as a ``KafkaException`` whose ``args[0]`` is the error
    itself (confluent-kafka's KafkaError is flagged as an exception without deriving from one,
    so there only ``except KafkaError`` or a bare ``except`` catches it).
    """

    __slots__ = ("_code", "_reason", "_fatal", "_retriable", "_txn_requires_abort")

    @property
    def args(self):
        """``(self,)``: a KafkaException's ``args[0]`` is its KafkaError (made on each read, so
        that the error holds no reference to itself)."""
        return (self,)

    def __init__(self, error, reason=None, fatal=False, retriable=False,
                 txn_requires_abort=False):
        if not isinstance(error, int):
            raise TypeError("KafkaError code must be an int, not %s" % type(error).__name__)
        if reason is not None and not isinstance(reason, str):
            raise TypeError("KafkaError reason must be a str or None")
        self._code = int(error)
        self._reason = reason
        self._fatal = bool(fatal)
        self._retriable = bool(retriable)
        self._txn_requires_abort = bool(txn_requires_abort)

    def code(self):
        """The error code (an int, one of the KafkaError constants)."""
        return self._code

    def name(self):
        """The error code's name, e.g. ``_MSG_TIMED_OUT``."""
        return _cstr(rd_kafka_err2name(<rd_kafka_resp_err_t>self._code))

    def str(self):
        """A human-readable description: the reason if one was given, else librdkafka's text."""
        if self._reason is not None:
            return self._reason
        return _cstr(rd_kafka_err2str(<rd_kafka_resp_err_t>self._code))

    def fatal(self):
        """True for a fatal error: the client (an idempotent or transactional producer) can do
        nothing more and must be closed.
        """
        return self._fatal

    def retriable(self):
        """True when the failed operation may succeed if it is tried again."""
        return self._retriable

    def txn_requires_abort(self):
        """True when the current transaction must be aborted (``abort_transaction()``) before
        the producer can go on.
        """
        return self._txn_requires_abort

    def __repr__(self):
        return 'KafkaError{%scode=%s,val=%d,str="%s"}' % (
            "FATAL," if self._fatal else "", self.name(), self._code, self.str())

    __str__ = __repr__

    def __reduce__(self):
        return (KafkaError, (self._code, self._reason, self._fatal, self._retriable,
                             self._txn_requires_abort))

    def __hash__(self):
        return hash(self._code)

    def _other(self, other):
        if isinstance(other, KafkaError):
            return other._code
        if isinstance(other, int):
            return other
        return None

    def __eq__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._code == o

    def __ne__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._code != o

    def __lt__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._code < o

    def __le__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._code <= o

    def __gt__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._code > o

    def __ge__(self, other):
        o = self._other(other)
        return NotImplemented if o is None else self._code >= o


def _err_descs():
    """[(code, name, description)] for every error code librdkafka knows."""
    cdef const rd_kafka_err_desc *descs
    cdef size_t cnt, i
    rd_kafka_get_err_descs(&descs, &cnt)
    return [(<int>descs[i].code, _cstr(descs[i].name), _cstr(descs[i].desc))
            for i in range(cnt) if descs[i].name != NULL]


for _code, _name, _desc in _err_descs():
    setattr(KafkaError, _name, _code)
del _code, _name, _desc


cdef object _kafka_error(rd_kafka_resp_err_t err, const char *reason=NULL):
    """KafkaError for err, or None for NO_ERROR."""
    if err == RD_KAFKA_RESP_ERR_NO_ERROR:
        return None
    return KafkaError(<int>err, _cstr(reason) if reason != NULL and reason[0] else None)


cdef int _check(rd_kafka_resp_err_t err, str context=None) except -1:
    """Raise KafkaException for a non-zero rd_kafka_resp_err_t."""
    if err == RD_KAFKA_RESP_ERR_NO_ERROR:
        return 0
    cdef str text = _cstr(rd_kafka_err2str(err))
    raise KafkaException(KafkaError(<int>err, "%s: %s" % (context, text) if context else None))


cdef object _kafka_error_of(const rd_kafka_error_t *error):
    """KafkaError (reason and flags included) for an rd_kafka_error_t, or None for NULL and
    for an error object that carries NO_ERROR (librdkafka's per-item admin results do).

    The caller still owns error."""
    if error == NULL or rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR_NO_ERROR:
        return None
    return KafkaError(<int>rd_kafka_error_code(error), _cstr(rd_kafka_error_string(error)),
                      rd_kafka_error_is_fatal(error), rd_kafka_error_is_retriable(error),
                      rd_kafka_error_txn_requires_abort(error))


cdef int _check_error(rd_kafka_error_t *error) except -1:
    """Raise KafkaException for an rd_kafka_error_t (destroying it), do nothing for NULL or
    NO_ERROR."""
    if error == NULL:
        return 0
    try:
        ke = _kafka_error_of(error)
    finally:
        rd_kafka_error_destroy(error)
    if ke is not None:
        raise KafkaException(ke)
    return 0


cdef int _raise_errstr(rd_kafka_resp_err_t err, char *errstr, str context=None) except -1:
    """Raise KafkaException with librdkafka's own reason from an errstr buffer
    ("context: reason" when a context is given)."""
    cdef str reason = _cstr(errstr)
    raise KafkaException(KafkaError(<int>err, "%s: %s" % (context, reason) if context else reason))


# What the AdminClient's option and request setters refuse (ValueError, as confluent-kafka).

cdef int _check_errstr(rd_kafka_resp_err_t err, char *errstr) except -1:
    """An argument librdkafka refused: ValueError with its reason (as confluent-kafka)."""
    if err:
        raise ValueError(_cstr(errstr))
    return 0


cdef int _check_option(rd_kafka_error_t *error) except -1:
    """An option librdkafka refused (destroyed here): ValueError with its reason."""
    if error == NULL:
        return 0
    reason = _cstr(rd_kafka_error_string(error))
    rd_kafka_error_destroy(error)
    raise ValueError(reason)


# What produce() refuses: a full queue is BufferError, the rest KafkaException.

cdef int _raise_produce_error(rd_kafka_resp_err_t err) except -1:
    if err == RD_KAFKA_RESP_ERR__QUEUE_FULL:
        raise BufferError(_cstr(rd_kafka_err2str(err)))
    _check(err, "Unable to produce message")


# The share consumer's errors, as confluent-kafka raises them.

cdef object _share_exception(rd_kafka_resp_err_t code, str text, object kafka_error=None):
    """The exception confluent-kafka raises for a share consumer error: invalid state and
    concurrent use have their own RuntimeError subclasses, a bad argument is a ValueError,
    anything else a KafkaException (carrying ``kafka_error`` when given)."""
    if code == RD_KAFKA_RESP_ERR__STATE:
        return IllegalStateException(text)
    if code == RD_KAFKA_RESP_ERR__CONFLICT:
        return ConcurrentModificationException(text)
    if code == RD_KAFKA_RESP_ERR__INVALID_ARG:
        return ValueError(text)
    return KafkaException(kafka_error if kafka_error is not None else KafkaError(<int>code, text))


cdef int _share_check(rd_kafka_resp_err_t err, str context) except -1:
    """Raise the share consumer's exception for a non-zero rd_kafka_resp_err_t."""
    if err == RD_KAFKA_RESP_ERR_NO_ERROR:
        return 0
    raise _share_exception(err, "%s: %s" % (context, _cstr(rd_kafka_err2str(err))))


cdef int _share_check_error(rd_kafka_error_t *error) except -1:
    """Raise the share consumer's exception for an rd_kafka_error_t (destroying it)."""
    if error == NULL:
        return 0
    cdef rd_kafka_resp_err_t code = rd_kafka_error_code(error)
    cdef str text
    try:
        text = _cstr(rd_kafka_error_string(error)) or _cstr(rd_kafka_err2str(code))
        ke = _kafka_error_of(error)
    finally:
        rd_kafka_error_destroy(error)
    raise _share_exception(code, text, ke)
