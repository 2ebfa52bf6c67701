# The C-level shape of confluent_binding._core: every cdef class's fields and cdef methods.
# The implementations live in the files src/_core.pyx includes (one per concept, named in each
# section). A class added to the core is declared here first.

cimport cython
from libc.stdint cimport int16_t, int32_t, int64_t

from includes.rdkafka_share cimport (
    rd_kafka_share_partition_offsets_list_t,
    rd_kafka_share_t,
)
from includes.rdkafka_admin cimport (
    rd_kafka_AclBinding_t,
    rd_kafka_admin_op_t,
    rd_kafka_AdminOptions_t,
)
from includes.rdkafka cimport (
    rd_kafka_conf_t,
    rd_kafka_event_t,
    rd_kafka_message_t,
    rd_kafka_queue_t,
    rd_kafka_resp_err_t,
    rd_kafka_t,
    rd_kafka_topic_partition_list_t,
    rd_kafka_topic_t,
    rd_kafka_type_t,
)


# -- conf.pyx --

@cython.final
cdef class _Conf:
    cdef rd_kafka_conf_t *ptr

    cdef int set(self, str key, str value) except -1
    cdef int set_all(self, dict conf) except -1
    cdef rd_kafka_conf_t *take(self)


# -- types.pyx --

cdef class Message:                  # not final: applications subclass it
    cdef object _topic
    cdef object _key
    cdef object _value
    cdef object _headers
    cdef object _error
    cdef int32_t _partition
    cdef int32_t _leader_epoch
    cdef int _tstype
    cdef int64_t _offset
    cdef int64_t _timestamp
    cdef int64_t _latency_us
    cdef int16_t _delivery_count    # share consumers: times delivered; -1 when not known


# A message's numeric fields, copied from librdkafka's (types.pyx: _fields_from_c).
ctypedef struct _MsgFields:
    int32_t partition
    int32_t leader_epoch
    int tstype
    int64_t offset
    int64_t timestamp
    int64_t latency_us


@cython.final
cdef class _TopicNames:
    cdef bytes _last_c
    cdef str _last
    cdef dict _names
    cdef rd_kafka_topic_t *_kept    # the last topic seen, while a reference on it is held
    cdef bint _released             # the handle is being freed: no new reference

    cdef str get(self, rd_kafka_topic_t *rkt)
    cdef void _drop(self) noexcept
    cdef void release(self) noexcept


cdef class TopicPartition:           # not final: applications subclass it
    cdef public str topic
    """The topic's name."""
    cdef public int32_t partition
    """The partition number (-1: not set, or any partition)."""
    cdef public int64_t offset
    """The offset, or one of the logical offsets ``OFFSET_BEGINNING`` (-2),
    ``OFFSET_END`` (-1), ``OFFSET_STORED`` (-1000) and ``OFFSET_INVALID`` (-1001, the default).
    For ``offsets_for_times`` it carries a timestamp in milliseconds on the way in.
    """
    cdef public object metadata
    """The commit metadata string stored with a committed offset, or None."""
    cdef int32_t _leader_epoch
    cdef public object error
    """The per-partition KafkaError of a request's result (commit, committed,
    list offsets...), or None when it succeeded.
    """


@cython.final
cdef class _PartList:
    cdef rd_kafka_topic_partition_list_t *ptr

    @staticmethod
    cdef _PartList new(int size)

    @staticmethod
    cdef _PartList adopt(rd_kafka_topic_partition_list_t *ptr)

    @staticmethod
    cdef _PartList from_py(object partitions, bint with_offsets=*)

    cdef list to_py(self)


@cython.final
cdef class ConsumerGroupMetadata:
    cdef readonly bytes _data


# -- handle.pyx --

@cython.final
cdef class _BlockingCalls:
    cdef int inside                 # calls now inside a GIL-free librdkafka call
    # which threads are in those calls or serving callbacks, and how deep (fixed slots: counting
    # must not allocate, it runs on the way out of a MemoryError too)
    cdef unsigned long thread_ids[16]
    cdef int thread_depths[16]
    cdef int counted                # slots with a depth above 0
    cdef bint closing               # close() has begun, in thread `closer`
    cdef unsigned long closer
    cdef bint closed                # the handle is freed: nobody may call in again
    cdef type owner                 # the handle's type: which closed-handle exception

    cdef bint shuts_out(self) noexcept
    cdef int enter(self, bint waits) except -1
    cdef int leave(self, bint waits) except -1
    cdef int slot_of(self, unsigned long me) noexcept
    cdef int drain(self) except -1


cdef class _Handle:
    cdef rd_kafka_t *_rk
    cdef rd_kafka_queue_t *_queue
    cdef _BlockingCalls _blocking
    cdef object _exc                # first exception raised by a callback, re-raised by the call
    cdef object _error_cb
    cdef object _stats_cb
    cdef object _throttle_cb
    cdef object _oauth_cb
    cdef bint _oauth_first_token    # OAUTHBEARER: construction serves oauth_cb until a token is set
    cdef bint _oauth_token_set      # oauth_cb has set a token (construction waits for the first)
    cdef rd_kafka_t *_oauth_rk      # the rd_kafka_t oauth_cb last served (a share consumer's own)
    cdef object _logger
    cdef bint _callbacks_off        # being freed: the trampolines run no Python
    cdef int _batch_calls           # batch consumes in librdkafka now: _stash() must not yield
    cdef int _pid                   # the process that created the handle
    cdef _TopicNames _names

    cdef _Conf _new_conf(self, dict conf, int events)
    cdef int _open(self, rd_kafka_type_t rk_type, _Conf c, str what) except -1
    cdef inline int _ensure_open(self, bint handle_call=*) except -1
    cdef bint _forget_if_forked(self) noexcept
    cdef void _stash(self, BaseException exc) noexcept
    cdef inline int _raise_pending(self) except -1
    cdef int _serve_error(self, rd_kafka_t *rk, int err, const char *reason,
                          bint fatal) except -1
    cdef int _serve_stats(self, const char *json) except -1
    cdef int _serve_log(self, const rd_kafka_t *rk, int level, const char *fac,
                        const char *buf) except -1
    cdef int _serve_oauth(self, rd_kafka_t *rk, const char *config) except -1
    cdef int _await_oauth_token(self, rd_kafka_queue_t *saslq) except -1
    cdef int _serve_throttle(self, const char *broker_name, int32_t broker_id,
                             int throttle_ms) except -1
    cdef int _serve_client_event(self, rd_kafka_event_t *ev) except -1
    cdef int _serve_event(self, rd_kafka_event_t *ev) except -1
    cdef int _serve_pending(self) except -1
    cdef int _serve(self, double deadline, bint nowait) except -1
    cdef int _serve_ready(self, double deadline, bint nowait) except -1
    cdef void _destroy(self) noexcept


# -- custody.pyx --

# Messages taken from librdkafka: msgs[start:end] of an array of capacity cap (malloc'd).
ctypedef struct _Msgs:
    rd_kafka_message_t **msgs
    size_t cap
    size_t start
    size_t end


# The consumer's custody of the messages it took from librdkafka and has not handed out yet: the
# whole contract is its docstring (src/custody.pyx).
@cython.final
cdef class _Custody:
    cdef _Msgs ahead                    # read ahead by poll() (positions not moved)
    cdef _Msgs kept                     # left by a call that raised (msgs NULL when none)
    cdef _Msgs spare                    # an empty array for the next call
    cdef long long served_ms            # when a fill last had librdkafka serve the queue
    cdef bint filling                   # a fill runs (its callbacks may let other calls in)
    cdef unsigned long filling_thread

    cdef void drop(self) noexcept
    cdef int begin_call(self, rd_kafka_t *rk, _Msgs *call, size_t n) except -1
    cdef void end_call(self, _Msgs *call, size_t handed) noexcept
    cdef void keep(self, _Msgs *call) noexcept
    cdef void keep_one(self, rd_kafka_message_t *rkm) noexcept
    cdef int take_one(self, _Handle h, int wait, rd_kafka_message_t **out) except -1
    cdef int fetch(self, _Handle h, _Msgs *call, size_t want, int wait) except -1
    cdef int next_ahead(self, _Handle h, rd_kafka_message_t **out) except -1
    cdef int fill(self, _Handle h) except -1
    cdef int await_fill(self, _Handle h, object timeout, double *deadline) except -1
    cdef size_t claim_ahead(self, rd_kafka_t *rk, rd_kafka_message_t **into,
                            size_t n) noexcept


# -- producer.pyx --

@cython.final
cdef class _Topic:
    cdef rd_kafka_topic_t *rkt

    cdef void destroy(self) noexcept


cdef class Producer(_Handle):
    cdef dict _topics
    cdef object _last_topic
    cdef rd_kafka_topic_t *_last_rkt
    cdef object _on_delivery
    cdef bint _dr_only_error
    cdef object _pending            # deque of (callback, Message) not yet called
    cdef double _max_block          # max.block.ms in seconds: how long produce() waits for room

    cdef rd_kafka_topic_t *_topic(self, object topic) except NULL
    cdef rd_kafka_resp_err_t _produce(self, rd_kafka_topic_t *rkt, object value, object key,
                                      int32_t partition, object cb, int64_t timestamp,
                                      object headers) except *
    cdef rd_kafka_resp_err_t _produceva(self, rd_kafka_topic_t *rkt, const char *vp,
                                        Py_ssize_t vn, const char *kp, Py_ssize_t kn,
                                        int32_t partition, void *opaque, int64_t timestamp,
                                        list hdrs, int msgflags) except *
    cdef rd_kafka_resp_err_t _produce_when_room(self, object topic, object value, object key,
                                                int32_t partition, object cb,
                                                int64_t timestamp, object headers) except *
    cdef int _serve_dr(self, rd_kafka_event_t *ev) except -1
    cdef int _serve_client_event(self, rd_kafka_event_t *ev) except -1
    cdef int _serve_pending(self) except -1
    cdef void _release(self) noexcept


# -- aio_future.pyx --

@cython.final
cdef class _AioPath:
    cdef Producer producer
    cdef object loop
    cdef int since_turn


# The asyncio produce contract: aio.AIOProducer derives from this; the compiled produce() reads
# _fast and calls the subclass's _produce() coroutine function for what it does not do itself.
cdef class _AioProducerBase:
    cdef public _AioPath _fast


# Final: ``type(x) is DeliveryFuture`` is its isinstance test, one pointer comparison, which is how
# the produce and delivery paths tell a future from a callback (the message opaque is either).
@cython.final
cdef class DeliveryFuture:
    cdef object loop
    cdef int state                  # FUT_PENDING, FUT_CANCELLED or FUT_FINISHED
    cdef object value               # the delivered Message (made on first read: see dr_*)
    cdef object exc                 # or the exception it failed with
    cdef object cb0                 # the first done-callback and its context, then the others:
    cdef object ctx0                # a list of (callback, context), in the order they came
    cdef list more
    cdef object cancel_msg
    cdef object unretrieved         # an _Unretrieved while its exception is not retrieved
    cdef public bint _asyncio_future_blocking
    cdef object __weakref__
    # A delivery report resolves the future with these copies; the Message is made from them
    # when the result is first read (value is None until then). dr_value is set before: an
    # exact bytes value librdkafka reads in place until the report (Producer._produce)
    cdef bint dr_pending
    cdef object dr_topic, dr_value, dr_key
    cdef _MsgFields dr
    cdef tuple face                 # (result, error, quiet codes) of an API face: see _map()

    cdef list _pending_callbacks(self)
    cdef int _check_pending(self) except -1
    cdef object _outcome(self)
    cdef object _result_value(self)
    cdef int _fail(self, exception) except -1


# -- consumer.pyx --

cdef class Consumer(_Handle):
    cdef object _on_assign
    cdef object _on_revoke
    cdef object _on_lost
    cdef object _on_commit
    cdef bint _assigned_by_callback     # the user's rebalance callback did the (un)assign itself
    cdef int _deferred                  # rebalances whose (un)assign _defer_assignment put off
    cdef _Custody _custody              # the messages taken and not handed out yet
    # the Messages the last two poll() calls returned: the older one is refilled by the next
    # poll() when nothing else refers to it any more (the application dropped it)
    cdef Message _recent, _older

    cdef void _assigned(self) noexcept
    cdef Message _deliver_one(self, rd_kafka_message_t *rkm)
    cdef Message _poll_kept(self)
    cdef rd_kafka_queue_t *_close_queue     # close() began: librdkafka's close events arrive here

    cdef void _end_close_queue(self) noexcept
    cdef int _serve_close(self) except -1
    cdef int _serve_close_event(self, rd_kafka_event_t *ev) except -1

    cdef void _rebalance(self, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *parts) noexcept
    cdef void _serve_commit(self, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t *offsets) noexcept


# -- arrow_buffers.pyx, arrow.pyx --

ctypedef struct _EndOffset:
    const char *topic
    int32_t partition
    int64_t end
    bint done


# The Arrow C data interface's array (its ABI is Arrow's specification).
cdef struct ArrowArray:
    int64_t length
    int64_t null_count
    int64_t offset
    int64_t n_buffers
    int64_t n_children
    const void **buffers
    ArrowArray **children
    ArrowArray *dictionary
    void (*release)(ArrowArray *) noexcept nogil
    void *private_data


# One exported batch: the arrays of its columns (and of the headers' entries) and the memory
# blocks of their buffers, freed together by the top array's release callback.
cdef enum:
    _MAX_ARRAYS = 12
    _MAX_BLOCKS = 24

cdef struct _BatchMem:
    ArrowArray arrays[_MAX_ARRAYS]
    ArrowArray *children[_MAX_ARRAYS]
    const void *buffers[3 * _MAX_ARRAYS]
    char *blocks[_MAX_BLOCKS]
    Py_ssize_t caps[_MAX_BLOCKS]
    const void *top_buffers[1]
    int narrays
    int nchildren
    int nblocks


@cython.final
cdef class _EndOffsets:
    cdef _EndOffset *parts
    cdef Py_ssize_t count
    cdef Py_ssize_t left                # partitions not finished yet
    cdef list names                     # keeps the topic names' bytes alive
    cdef const rd_kafka_topic_t *last_rkt   # the partition find() found last
    cdef int32_t last_partition
    cdef _EndOffset *last

    cdef _EndOffset *find(self, const rd_kafka_message_t *rkm) noexcept
    cdef inline void finished(self, _EndOffset *e)


@cython.final
cdef class _ArrowBuf:
    cdef char *data
    cdef Py_ssize_t size
    cdef Py_ssize_t cap

    cdef int reserve(self, Py_ssize_t extra) except -1
    cdef inline int append(self, const void *src, Py_ssize_t n) except -1
    cdef inline int append_i32(self, int32_t v) except -1
    cdef int zeroed(self, Py_ssize_t nbytes) except -1
    cdef const void *own(self, _BatchMem *mem) noexcept


@cython.final
cdef class _AvroColumn:
    cdef int layout
    cdef _ArrowBuf valid, values, offsets
    cdef Py_ssize_t length, nulls
    cdef list children

    cdef int set_valid(self, bint valid) except -1
    cdef inline int end_offset(self, Py_ssize_t end) except -1
    cdef tuple buffers(self)


@cython.final
@cython.no_gc
cdef class _ArrowColumns:
    cdef _ArrowBuf key_valid, key_off, key_data
    cdef _ArrowBuf value_valid, value_off, value_data
    cdef _ArrowBuf topic_off, topic_data
    cdef _ArrowBuf partition, offset, ts_valid, ts, ts_type
    cdef _ArrowBuf h_valid, h_off, hk_off, hk_data, hv_valid, hv_off, hv_data
    cdef bint headers
    cdef Py_ssize_t rows, header_rows
    cdef Py_ssize_t rows_cap            # rows room() made room for
    cdef Py_ssize_t key_nulls, value_nulls, ts_nulls, h_nulls, hv_nulls
    cdef const rd_kafka_topic_t *last_rkt   # the topic name of the last message, cached
    cdef const char *last_topic
    cdef Py_ssize_t last_topic_len

    cdef int room(self, Py_ssize_t n) except -1
    cdef bint headers_fit(self, const rd_kafka_message_t *rkm) noexcept
    cdef int add(self, const rd_kafka_message_t *rkm) except -1
    cdef int _add_headers(self, const rd_kafka_message_t *rkm, Py_ssize_t row) except -1
    cdef Py_ssize_t take(self, rd_kafka_message_t **msgs, Py_ssize_t i, Py_ssize_t end,
                         _EndOffsets ends, Py_ssize_t expect) except -1
    cdef int _export(self, ArrowArray *top) except -1


# -- share_consumer.pyx --

cdef class ShareConsumer(_Handle):
    cdef rd_kafka_share_t *_rkshare
    cdef object _on_ack_commit          # set_acknowledgement_commit_callback()'s callable
    cdef list _undelivered              # records a poll() took from librdkafka before it raised
    cdef bint _in_ack_commit            # the acknowledgement-commit callback is running

    cdef int _check_open(self) except -1
    cdef int _refuse_close_from_callback(self) except -1
    cdef Message _share_message(self, const rd_kafka_message_t *rkm)
    cdef void _serve_ack_commit(self, rd_kafka_share_partition_offsets_list_t *parts,
                                rd_kafka_resp_err_t err) noexcept

# -- admin.pyx --


@cython.final
cdef class _Requests:
    cdef void **ptr                     # librdkafka request objects of one admin API
    cdef size_t n
    cdef rd_kafka_admin_op_t api        # which destroy call frees them

    @staticmethod
    cdef _Requests new(rd_kafka_admin_op_t api, size_t size)
    cdef int add(self, void *obj) except -1


cdef class _AdminClientImpl(_Handle):
    cdef rd_kafka_queue_t *_results     # admin results, served by the client's result thread
    cdef dict _in_flight_requests       # request id (the options' opaque) -> its Future
    cdef Py_ssize_t _next_id
    cdef bint _stopped                  # close() began: the result thread ends

    cdef rd_kafka_AdminOptions_t *_options(self, rd_kafka_admin_op_t api, dict opts) except NULL
    cdef rd_kafka_queue_t *_track(self, rd_kafka_AdminOptions_t *o, object future) except NULL
    cdef _Requests _config_resources(self, rd_kafka_admin_op_t api, list resources)
    cdef rd_kafka_AclBinding_t *_acl_binding(self, tuple t, bint is_filter) except NULL
    cdef int _send(self, rd_kafka_admin_op_t api, _Requests a, future, dict opts) except -1
    cdef int _send_names(self, rd_kafka_admin_op_t api, list names, future,
                         dict opts) except -1
    cdef int _complete(self, rd_kafka_event_t *ev) except -1
    cdef void _release(self) noexcept
