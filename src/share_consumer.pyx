# ShareConsumer: a member of a share group (KIP-932, queues for Kafka) over librdkafka's
# rd_kafka_share_t, the one handle it owns. Its callbacks (error_cb, stats_cb, throttle_cb,
# logger, oauth_cb, the acknowledgement-commit callback) are served by librdkafka inside
# poll(), commit_sync(), commit_async() and close(), on the calling thread.

from includes.rdkafka cimport (
    RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE,
    RD_KAFKA_PARTITION_UA,
    RD_KAFKA_RESP_ERR_NO_ERROR,
    rd_kafka_conf_destroy,
    rd_kafka_conf_t,
    rd_kafka_error_destroy,
    rd_kafka_error_t,
    rd_kafka_last_error,
    rd_kafka_message_t,
    rd_kafka_resp_err_t,
    rd_kafka_topic_partition_list_add,
    rd_kafka_topic_partition_list_t,
    rd_kafka_topic_partition_t,
)
from includes.rdkafka_share cimport (
    RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT,
    RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT,
    RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE,
    rd_kafka_message_delivery_count,
    rd_kafka_messages_count,
    rd_kafka_messages_destroy,
    rd_kafka_messages_get,
    rd_kafka_messages_t,
    rd_kafka_share_AcknowledgeType_t,
    rd_kafka_share_ack_commit_cb_t,
    rd_kafka_share_acknowledge_offset,
    rd_kafka_share_commit_async,
    rd_kafka_share_commit_sync,
    rd_kafka_share_consumer_close,
    rd_kafka_share_consumer_new,
    rd_kafka_share_destroy,
    rd_kafka_share_destroy_flags,
    rd_kafka_share_partition_offsets_list_count,
    rd_kafka_share_partition_offsets_list_get,
    rd_kafka_share_partition_offsets_list_t,
    rd_kafka_share_partition_offsets_offsets,
    rd_kafka_share_partition_offsets_offsets_cnt,
    rd_kafka_share_partition_offsets_partition,
    rd_kafka_share_partition_offsets_t,
    rd_kafka_share_poll,
    rd_kafka_share_queue_get_sasl,
    rd_kafka_share_sasl_set_credentials,
    rd_kafka_share_set_acknowledgement_commit_cb,
    rd_kafka_share_set_log_queue,
    rd_kafka_share_subscribe,
    rd_kafka_share_subscription,
    rd_kafka_share_t,
    rd_kafka_share_unsubscribe,
)

SHARE_ACKNOWLEDGE_TYPE_ACCEPT = RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT
SHARE_ACKNOWLEDGE_TYPE_RELEASE = RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE
SHARE_ACKNOWLEDGE_TYPE_REJECT = RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT


class Messages:
    """The read-only batch :meth:`ShareConsumer.poll` returns: iteration, ``len()``, indexing
    and slicing (a slice is a :class:`Messages` too), ``count()``, ``is_empty()`` and
    ``records()`` (a copy as a list). (Re-exported by the package as ``confluent_kafka._model``
    has it.)"""

    __slots__ = ("_records",)

    def __init__(self, messages=()):
        self._records = list(messages)

    @classmethod
    def _from_list(cls, records):
        """Adopt ``records`` (a list nobody else holds) without copying it."""
        batch = cls.__new__(cls)
        batch._records = records
        return batch

    def records(self):
        """The messages of this batch, as a new list."""
        return list(self._records)

    def count(self):
        """How many messages the batch holds."""
        return len(self._records)

    def is_empty(self):
        """True when the batch holds no message."""
        return not self._records

    def __len__(self):
        return len(self._records)

    def __iter__(self):
        return iter(self._records)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._from_list(self._records[index])
        return self._records[index]

    def __repr__(self):
        return "Messages(%r)" % (self._records,)


cdef dict _acked_offsets(const rd_kafka_share_partition_offsets_list_t *lst):
    """{TopicPartition: set of acknowledged offsets} from an acknowledgement-commit result."""
    cdef dict out = {}
    cdef size_t i, j, n
    cdef const rd_kafka_share_partition_offsets_t *po
    cdef const rd_kafka_topic_partition_t *c
    cdef const int64_t *offs
    if lst == NULL:
        return out
    for i in range(rd_kafka_share_partition_offsets_list_count(lst)):
        po = rd_kafka_share_partition_offsets_list_get(lst, i)
        if po == NULL:
            continue
        c = rd_kafka_share_partition_offsets_partition(po)
        if c == NULL:
            continue
        offs = rd_kafka_share_partition_offsets_offsets(po)
        n = rd_kafka_share_partition_offsets_offsets_cnt(po) if offs != NULL else 0
        tp = _part_to_py(c)
        out.setdefault(tp, set()).update([offs[j] for j in range(n)])
    return out


cdef dict _commit_results(const rd_kafka_topic_partition_list_t *parts):
    """{TopicPartition: None, or the KafkaException of that partition} of commit_sync()."""
    cdef dict out = {}
    cdef int i
    if parts == NULL:
        return out
    for i in range(parts.cnt):
        tp = _part_to_py(&parts.elems[i])
        out[tp] = None if parts.elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR \
            else KafkaException(KafkaError(<int>parts.elems[i].err))
    return out


@cython.binding(False)
@cython.no_gc_clear
cdef class ShareConsumer(_Handle):
    """A share-group consumer (KIP-932, confluent-kafka compatible): the records of the
    subscribed topics are shared out among the group's members, each delivered to one member
    at a time and acknowledged one by one.

    ``ShareConsumer(conf)``, ``ShareConsumer(conf, **kwargs)`` or ``ShareConsumer(**kwargs)``;
    ``group.id`` is required, ``share.acknowledgement.mode`` is ``implicit`` (records of a poll
    are accepted by the next poll or commit) or ``explicit`` (acknowledge() each record, then
    commit). ``error_cb``, ``stats_cb``, ``throttle_cb``, ``logger`` and the
    acknowledgement-commit callback are served only inside poll(), commit_sync(),
    commit_async() and close(), on the calling thread; ``oauth_cb`` as for Producer. Not for
    concurrent use from several threads (a second thread's call raises
    ConcurrentModificationException).
    """

    def __init__(self, *args, **kwargs):
        if self._rkshare != NULL:
            raise RuntimeError("ShareConsumer already initialized")
        conf = _merge_conf(args, kwargs)
        if conf.get("on_commit") is not None:
            raise ValueError("on_commit is not supported on ShareConsumer")
        conf.pop("on_commit", None)
        if not conf.get("group.id"):
            raise ValueError("Failed to create consumer: group.id must be set")
        cdef _Conf c = self._new_conf(conf, 0)
        cdef char errstr[512]
        cdef rd_kafka_conf_t *cp = c.take()
        errstr[0] = 0
        with nogil:
            self._rkshare = rd_kafka_share_consumer_new(cp, errstr, sizeof(errstr))
        if self._rkshare == NULL:
            rd_kafka_conf_destroy(cp)
            raise _share_exception(rd_kafka_last_error(),
                                   "Failed to create share consumer: %s" % _cstr(errstr))
        if self._logger is not None:
            # logs go to the queue poll()/commit_*() serve
            _share_check_error(rd_kafka_share_set_log_queue(self._rkshare, NULL))
        if self._oauth_first_token:
            # serves oauth_cb here until the first token is set, as Producer's construction
            self._await_oauth_token(rd_kafka_share_queue_get_sasl(self._rkshare))

    def __dealloc__(self):
        cdef rd_kafka_share_t *rkshare = self._rkshare
        if rkshare == NULL or getpid() != self._pid:
            return
        self._callbacks_off = True
        self._rkshare = NULL
        self._names.release()
        cdef rd_kafka_error_t *error
        with nogil:
            error = rd_kafka_share_destroy_flags(rkshare, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)
        if error != NULL:
            rd_kafka_error_destroy(error)

    cdef int _check_open(self) except -1:
        if self._rkshare == NULL or self._blocking.shuts_out():
            raise _closed_exception(type(self))
        return 0

    # -- subscription --

    def subscribe(self, topics):
        """Subscribe to ``topics`` (a list of names; it replaces the current subscription,
        an empty list unsubscribes). The broker assigns the partitions."""
        cdef _PartList pl
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            if not isinstance(topics, list):
                raise TypeError("expected list of topic unicode strings")
            pl = _PartList.new(len(topics))
            for t in topics:
                if not isinstance(t, str):
                    raise TypeError("expected list of unicode strings")
                rd_kafka_topic_partition_list_add(pl.ptr, (<str>t).encode(), RD_KAFKA_PARTITION_UA)
            with self._blocking:
                with nogil:
                    err = rd_kafka_share_subscribe(self._rkshare, pl.ptr)
            _share_check(err, "Failed to subscribe")
        finally:
            cb_section_end(&cs)

    def unsubscribe(self):
        """Leave the subscription: the broker takes this member out of the share group."""
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            with self._blocking:
                with nogil:
                    err = rd_kafka_share_unsubscribe(self._rkshare)
            _share_check(err, "Failed to unsubscribe")
        finally:
            cb_section_end(&cs)

    def subscription(self):
        """The subscribed topic names."""
        cdef rd_kafka_topic_partition_list_t *c = NULL
        cdef rd_kafka_resp_err_t err
        cdef _PartList _owned
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            with self._blocking:
                with nogil:
                    err = rd_kafka_share_subscription(self._rkshare, &c)
            _share_check(err, "Failed to get subscription")
            _owned = _PartList.adopt(c)     # frees c
            return [_cstr(c.elems[i].topic) for i in range(c.cnt)] if c != NULL else []
        finally:
            cb_section_end(&cs)

    # -- consuming --

    def poll(self, timeout=-1):
        """A :class:`~confluent_binding.Messages` batch of the records acquired for this
        member (empty after ``timeout`` seconds; -1: wait forever). Check each message's
        error(). In explicit mode every record of the previous batch must be acknowledged
        first."""
        cdef list out
        cdef double deadline = _deadline(timeout)
        cdef rd_kafka_share_t *rkshare
        cdef rd_kafka_messages_t *batch = NULL
        cdef rd_kafka_error_t *error = NULL
        cdef size_t n = 0, i
        cdef int wait
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            if self._undelivered:
                out, self._undelivered = self._undelivered, None
                return Messages._from_list(out)
            rkshare = self._rkshare
            while True:
                wait = _chunk_ms(deadline)
                with self._blocking:
                    with nogil:
                        error = rd_kafka_share_poll(rkshare, wait, &batch)
                n = rd_kafka_messages_count(batch) if batch != NULL else 0
                if error != NULL or n or wait == 0 or self._exc is not None \
                        or self._blocking.shuts_out():
                    break
                rd_kafka_messages_destroy(batch)    # (an empty batch; share_poll wants NULL)
                batch = NULL
                PyErr_CheckSignals()
            try:
                out = [self._share_message(rd_kafka_messages_get(batch, i)) for i in range(n)]
            finally:
                rd_kafka_messages_destroy(batch)
            if self._exc is not None:
                if out:
                    self._undelivered = out     # acquired records are never dropped
                if error != NULL:
                    rd_kafka_error_destroy(error)
                self._raise_pending()
            _share_check_error(error)
            return Messages._from_list(out)
        finally:
            cb_section_end(&cs)

    cdef Message _share_message(self, const rd_kafka_message_t *rkm):
        cdef Message m = _message_from_c(rkm, self._names, False)
        cdef int16_t count = rd_kafka_message_delivery_count(rkm)
        m._delivery_count = count if count > 0 else -1
        return m

    # -- acknowledging --

    # ack_type's default is a literal (1: RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT) so the
    # embedded signatures parse.
    def acknowledge(self, message, ack_type=1):
        """Explicit mode: record how the broker is to treat ``message`` (ACCEPT, RELEASE or
        REJECT); sent by the next poll(), commit_sync() or commit_async()."""
        cdef Message m
        cdef int kind
        cdef bytes topic
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            if not isinstance(message, Message):
                raise TypeError("argument 1 must be cimpl.Message, not %s" % type(message).__name__)
            m = <Message>message
            kind = _as_int32(ack_type)
            topic = m._topic.encode() if isinstance(m._topic, str) else None
            err = rd_kafka_share_acknowledge_offset(
                self._rkshare, <const char *>topic if topic is not None else NULL, m._partition,
                m._offset, <rd_kafka_share_AcknowledgeType_t>kind)
            _share_check(err, "Failed to acknowledge message")
        finally:
            cb_section_end(&cs)

    def acknowledge_offset(self, topic, partition, offset,
                           ack_type=1):
        """Explicit mode: acknowledge the record at ``topic``/``partition``/``offset``."""
        cdef int32_t cpartition
        cdef int64_t coffset
        cdef int kind
        cdef rd_kafka_resp_err_t err
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            if not isinstance(topic, str):
                raise TypeError("argument 1 must be str, not %s" % type(topic).__name__)
            cpartition = _as_int32(partition)
            coffset = PyNumber_Index(offset)
            kind = _as_int32(ack_type)
            err = rd_kafka_share_acknowledge_offset(
                self._rkshare, (<str>topic).encode(), cpartition, coffset,
                <rd_kafka_share_AcknowledgeType_t>kind)
            _share_check(err, "Failed to acknowledge offset")
        finally:
            cb_section_end(&cs)

    def commit_sync(self, timeout=60):
        """Send the pending acknowledgements and wait up to ``timeout`` seconds (-1: forever)
        for the broker: {TopicPartition: None or KafkaException}, empty when nothing was
        pending. In implicit mode the records of the last poll are accepted first."""
        cdef int tmout = _timeout_ms(timeout)
        cdef rd_kafka_topic_partition_list_t *parts = NULL
        cdef rd_kafka_error_t *error
        cdef _PartList _owned
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            with self._blocking:
                with nogil:
                    error = rd_kafka_share_commit_sync(self._rkshare, tmout, &parts)
            _owned = _PartList.adopt(parts)     # frees parts
            if self._exc is not None:
                if error != NULL:
                    rd_kafka_error_destroy(error)
                self._raise_pending()
            _share_check_error(error)
            return _commit_results(parts)
        finally:
            cb_section_end(&cs)

    def commit_async(self):
        """Send the pending acknowledgements; the outcome goes to the acknowledgement-commit
        callback."""
        cdef rd_kafka_error_t *error
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            with self._blocking:
                with nogil:
                    error = rd_kafka_share_commit_async(self._rkshare)
            if self._exc is not None:
                if error != NULL:
                    rd_kafka_error_destroy(error)
                self._raise_pending()
            _share_check_error(error)
        finally:
            cb_section_end(&cs)

    def set_acknowledgement_commit_callback(self, callback):
        """``callback(offsets, exception)`` gets the acknowledged offsets
        ({TopicPartition: set of offsets}) and None or a KafkaException, each time the broker
        answers an acknowledgement commit; None clears it."""
        cdef rd_kafka_share_ack_commit_cb_t trampoline = NULL
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            if callback is not None and not callable(callback):
                raise TypeError("callback must be callable or None")
            if callback is not None:
                trampoline = _ack_commit_trampoline
            _share_check_error(rd_kafka_share_set_acknowledgement_commit_cb(
                self._rkshare, trampoline, <void *>self))
            self._on_ack_commit = callback
        finally:
            cb_section_end(&cs)

    cdef void _serve_ack_commit(self, rd_kafka_share_partition_offsets_list_t *parts,
                                rd_kafka_resp_err_t err) noexcept:
        """Calls on_ack_commit; what it raises is kept (raised when the serving call
        returns)."""
        cb = self._on_ack_commit
        cdef bint outer = self._in_ack_commit
        if cb is not None:
            self._in_ack_commit = True
            try:
                cb(_acked_offsets(parts), None if err == RD_KAFKA_RESP_ERR_NO_ERROR
                   else KafkaException(KafkaError(<int>err)))
            except BaseException as exc:
                self._stash(exc)
            finally:
                self._in_ack_commit = outer

    def set_sasl_credentials(self, username, password):
        """Set SASL PLAIN/SCRAM credentials for the next authentication."""
        cdef bytes user = _str_argument(username, 1)
        cdef bytes secret = _str_argument(password, 2)
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            self._check_open()
            _share_check_error(rd_kafka_share_sasl_set_credentials(self._rkshare, user, secret))
        finally:
            cb_section_end(&cs)

    # -- lifetime --

    def close(self):
        """Commit the pending acknowledgements, leave the share group and free the consumer
        (callbacks are served meanwhile). Closing twice is harmless."""
        cdef rd_kafka_share_t *rkshare
        cdef rd_kafka_error_t *error
        cdef rd_kafka_error_t *destroy_error
        cdef cb_section cs
        cb_section_begin(&cs, self)
        try:
            if self._rkshare == NULL:
                return None
            if getpid() != self._pid:      # a forked child never touches the parent's handle
                self._rkshare = NULL
                self._blocking.closed = True
                return None
            self._refuse_close_from_callback()
            if self._blocking.drain():
                return None     # another thread's close() freed it meanwhile
            rkshare = self._rkshare
            self._names.release()       # before the rd_kafka_t is freed
            with self._blocking:
                with nogil:
                    error = rd_kafka_share_consumer_close(rkshare)
                    destroy_error = rd_kafka_share_destroy(rkshare)
            self._callbacks_off = True
            self._blocking.closed = True
            self._rkshare = NULL
            self._undelivered = None
            if destroy_error != NULL:
                if error == NULL:
                    error = destroy_error
                else:
                    rd_kafka_error_destroy(destroy_error)
            if self._exc is not None:
                if error != NULL:
                    rd_kafka_error_destroy(error)
                self._raise_pending()
            _share_check_error(error)
            return None
        finally:
            cb_section_end(&cs)

    cdef int _refuse_close_from_callback(self) except -1:
        """close() from a callback this consumer is serving leaves it open and raises
        IllegalStateException: from the acknowledgement-commit callback librdkafka's refusal
        (its share-consumer methods refuse to run in that callback, close included, as in
        confluent-kafka); from the others (error_cb, logger, ...), which librdkafka does not
        guard, this binding's own (confluent-kafka's process aborts there)."""
        if self._blocking.slot_of(PyThread_get_thread_ident()) < 0:
            return 0
        if self._in_ack_commit:
            _share_check_error(rd_kafka_share_consumer_close(self._rkshare))
        raise IllegalStateException(
            "ShareConsumer.close() called from a callback that this client is serving; close "
            "it after the serving call returns")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        if self._rkshare != NULL:
            self.close()
        return None


cdef void _ack_commit_trampoline(rd_kafka_share_t *rkshare,
                                 rd_kafka_share_partition_offsets_list_t *partitions,
                                 rd_kafka_resp_err_t err, void *opaque) noexcept with gil:
    cdef ShareConsumer c = <ShareConsumer>opaque
    if not c._callbacks_off:
        c._serve_ack_commit(partitions, err)
