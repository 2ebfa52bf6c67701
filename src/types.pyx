# The value types (Message, TopicPartition, ConsumerGroupMetadata, ThrottleEvent) and every
# conversion between C and Python: strings, messages, headers, partition lists, metadata, and the
# Python buffers and header lists produce() hands to librdkafka.

from includes.python cimport PyUnicode_AsUTF8AndSize


cdef extern from "Python.h":
    void PyObject_GC_Track(object op)
    void PyObject_GC_UnTrack(object op)
    bint PyObject_GC_IsTracked(object op)


cdef inline void _gc_track(object o) noexcept:
    """Put an object that was made outside the cycle collector (it could not be part of a
    reference cycle then) back under it, once it may be."""
    if not PyObject_GC_IsTracked(o):
        PyObject_GC_Track(o)
from includes.rdkafka cimport (
    RD_KAFKA_OFFSET_BEGINNING,
    RD_KAFKA_OFFSET_END,
    RD_KAFKA_OFFSET_INVALID,
    RD_KAFKA_OFFSET_STORED,
    RD_KAFKA_PARTITION_UA,
    RD_KAFKA_RESP_ERR_NO_ERROR,
    RD_KAFKA_RESP_ERR__INVALID_ARG,
    RD_KAFKA_TIMESTAMP_CREATE_TIME,
    RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME,
    RD_KAFKA_TIMESTAMP_NOT_AVAILABLE,
    cb_message_may_have_headers,
    cb_topic_keep,
    cb_topic_release,
    rd_kafka_header_get_all,
    rd_kafka_headers_t,
    rd_kafka_message_errstr,
    rd_kafka_message_headers,
    rd_kafka_message_latency,
    rd_kafka_message_leader_epoch,
    rd_kafka_message_t,
    rd_kafka_message_timestamp,
    rd_kafka_metadata_partition_t,
    rd_kafka_metadata_t,
    rd_kafka_metadata_topic_t,
    rd_kafka_timestamp_type_t,
    rd_kafka_topic_name,
    rd_kafka_topic_partition_get_leader_epoch,
    rd_kafka_topic_partition_list_add,
    rd_kafka_topic_partition_list_destroy,
    rd_kafka_topic_partition_list_new,
    rd_kafka_topic_partition_list_t,
    rd_kafka_topic_partition_set_leader_epoch,
    rd_kafka_topic_partition_t,
    rd_kafka_topic_t,
)

TIMESTAMP_NOT_AVAILABLE = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
TIMESTAMP_CREATE_TIME = RD_KAFKA_TIMESTAMP_CREATE_TIME
TIMESTAMP_LOG_APPEND_TIME = RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME
OFFSET_BEGINNING = RD_KAFKA_OFFSET_BEGINNING
OFFSET_END = RD_KAFKA_OFFSET_END
OFFSET_STORED = RD_KAFKA_OFFSET_STORED
OFFSET_INVALID = RD_KAFKA_OFFSET_INVALID

cdef int32_t _NO_EPOCH = -1


cdef inline str _cstr(const char *s):
    """A C string as str (None for NULL; undecodable bytes replaced)."""
    return None if s == NULL else s.decode("utf-8", "replace")


cdef bytes _str_argument(object value, int position):
    """A str argument for a C string, with the errors CPython's argument parser gives
    confluent-kafka's C functions: TypeError "argument N must be str, not T" and ValueError
    "embedded null character"."""
    if not isinstance(value, str):
        raise TypeError("argument %d must be str, not %s"
                        % (position, "None" if value is None else type(value).__name__))
    cdef bytes encoded = (<str>value).encode()
    if b"\0" in encoded:
        raise ValueError("embedded null character")
    return encoded


cdef int64_t _as_c_int(object value, int64_t lowest, int64_t highest, str kind) except? -1:
    """An int argument as confluent-kafka parses one: TypeError for a non-integer, OverflowError
    outside the C type's range (``kind``: "integer" for an int, "short integer" for a short)."""
    value = PyNumber_Index(value)
    if value > highest:
        raise OverflowError("signed %s is greater than maximum" % kind)
    if value < lowest:
        raise OverflowError("signed %s is less than minimum" % kind)
    return value


cdef inline int32_t _as_int32(object value) except? -1:
    return _as_c_int(value, -2147483648, 2147483647, "integer")


# binding(False), on every cdef class of the core: its methods are method descriptors, which
# check their instance (a cyfunction does not: Message.topic(None) would read from None, and
# Consumer.poll(None) or Producer.produce(object(), "t") would crash); subclasses may call them.
# always_allow_keywords(False): the accessors are METH_NOARGS and the setters METH_O, as
# confluent-kafka's (the same TypeErrors, and no keyword parsing on the calls made per message).
@cython.binding(False)
@cython.always_allow_keywords(False)
@cython.freelist(1024)
cdef class Message:
    """Message(topic=None, partition=None, offset=None, key=None, value=None, headers=None,
    error=None, timestamp=None, latency=None, leader_epoch=None, delivery_count=None)

    A Kafka message: what a consumer receives and what a delivery report describes. Holds
    copies of the topic, key, value and headers; it owns no librdkafka memory. Constructed from
    Python in confluent-kafka's positional and keyword forms, subclassed, pickled (a subclass's
    instance as a Message, as confluent-kafka's), and compared (by topic, partition, offset, key,
    value, headers, error, timestamp and leader epoch).
    """

    def __init__(self, topic=None, partition=None, offset=None, key=None, value=None,
                 headers=None, error=None, timestamp=None, latency=None, leader_epoch=None,
                 delivery_count=None):
        cdef double lat
        cdef int32_t part = RD_KAFKA_PARTITION_UA if partition is None else _as_int32(partition)
        cdef int64_t off = RD_KAFKA_OFFSET_INVALID if offset is None else PyNumber_Index(offset)
        _gc_track(self)     # __init__ called again on a received message: anything may come
        self._topic = topic
        # as confluent-kafka, any negative partition, offset, leader epoch, latency and delivery
        # count is stored as "not set" (what __reduce__ then gives)
        self._partition = part if part >= 0 else RD_KAFKA_PARTITION_UA
        self._offset = off if off >= 0 else RD_KAFKA_OFFSET_INVALID
        self._key = key
        self._value = value
        self._headers = headers
        self._error = error
        if timestamp is None:
            self._tstype, self._timestamp = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE, 0
        else:
            if not isinstance(timestamp, tuple) or len(timestamp) != 2:
                raise TypeError("timestamp must be a tuple of (int, int)")
            self._tstype, self._timestamp = _as_int32(timestamp[0]), PyNumber_Index(timestamp[1])
        if latency is None:
            self._latency_us = -1
        else:
            lat = latency
            self._latency_us = <int64_t>(lat * 1e6) if lat >= 0 else -1
        self._leader_epoch = _NO_EPOCH if leader_epoch is None else _as_int32(leader_epoch)
        if self._leader_epoch < 0:
            self._leader_epoch = _NO_EPOCH
        self._delivery_count = (-1 if delivery_count is None
                                else _as_c_int(delivery_count, -32768, 32767, "short integer"))
        if self._delivery_count <= 0:
            self._delivery_count = -1

    def error(self):
        """None, or the KafkaError of a failed delivery or of a consumer event."""
        return self._error

    def topic(self):
        """The topic's name, or None for an event not tied to a topic."""
        return self._topic

    def partition(self):
        """The partition, or None when it is not known (a message not yet delivered,
        an error event).
        """
        return None if self._partition < 0 else self._partition

    def offset(self):
        """The message's offset in its partition, or None when it has none (not yet
        delivered, a failed delivery, an error event).
        """
        return None if self._offset < 0 else self._offset

    def key(self):
        """The key (bytes as read from the broker; whatever ``set_key()`` stored), or None
        when the message has no key.
        """
        return self._key

    def value(self):
        """The value (payload): bytes as read from the broker, or None for a null value
        (a tombstone) and for events.
        """
        return self._value

    def deserialized_key(self):
        """The key; a DeserializingConsumer's messages hold the deserialized object here."""
        return self._key

    def deserialized_value(self):
        """The value; a DeserializingConsumer's messages hold the deserialized object here."""
        return self._value

    def headers(self):
        """A list of (str, bytes|None) tuples, or None when the message has no headers."""
        if self._headers is not None:
            _gc_track(self)     # the caller may put anything into the list
        return self._headers

    def timestamp(self):
        """(timestamp type, milliseconds since the epoch): one of the TIMESTAMP_* constants."""
        return (self._tstype, self._timestamp)

    def latency(self):
        """Producer: seconds from produce() to the delivery report; None otherwise."""
        return None if self._latency_us < 0 else self._latency_us / 1e6

    def leader_epoch(self):
        """The leader epoch of the partition when the message was read, or None when
        the broker did not say (old brokers, produced messages).
        """
        return None if self._leader_epoch < 0 else self._leader_epoch

    def delivery_count(self):
        """Share consumers: how many times the record has been delivered; None otherwise."""
        return None if self._delivery_count <= 0 else self._delivery_count

    def set_headers(self, headers):
        """Replace the headers with ``headers``, stored as given (confluent-kafka's
        takes a list of ``(str, bytes)`` tuples); ``headers()`` then returns it.
        """
        _gc_track(self)
        self._headers = headers

    def set_key(self, key):
        """Replace the key, e.g. with a deserialized object (confluent-kafka's
        DeserializingConsumer does this).
        """
        _gc_track(self)
        self._key = key

    def set_value(self, value):
        """Replace the value, e.g. with a deserialized object (confluent-kafka's
        DeserializingConsumer does this).
        """
        _gc_track(self)
        self._value = value

    def set_topic(self, topic):
        """Replace the topic name."""
        _gc_track(self)
        self._topic = topic

    def set_error(self, error):
        """Replace the error (a KafkaError, or None to clear it)."""
        _gc_track(self)
        self._error = error

    def __len__(self):
        return 0 if self._value is None else len(self._value)

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, Message):
            return False
        cdef Message o = <Message>other
        # ints first (cheap); latency and delivery count, like confluent-kafka, do not count
        return (self._partition == o._partition and self._offset == o._offset
                and self._leader_epoch == o._leader_epoch and self._timestamp == o._timestamp
                and self._topic == o._topic and self._value == o._value and self._key == o._key
                and self._headers == o._headers and self._error == o._error)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None     # mutable (set_value, ...) and compared by value: unhashable

    def __reduce__(self):
        return (Message, (self._topic, self._partition, self._offset, self._key, self._value,
                          self._headers, self._error, (self._tstype, self._timestamp),
                          self._latency_us / 1e6 if self._latency_us >= 0 else -1.0,
                          self._leader_epoch, self._delivery_count))

    def __repr__(self):
        return "Message(topic=%r, partition=%r, offset=%r, key=%r, error=%r)" % (
            self._topic, self.partition(), self.offset(), self._key, self._error)


@cython.binding(False)
cdef class _TopicNames:
    """Caches the topic str per topic name seen in librdkafka messages. The last topic handle
    seen is recognised by its address alone while a reference on it is held (cb_topic_keep():
    its address cannot name another topic meanwhile); without one, by its name. The owning
    handle calls release() before it frees its rd_kafka_t."""

    def __cinit__(self):
        self._last_c = b""
        self._last = ""
        self._names = {}

    cdef str get(self, rd_kafka_topic_t *rkt):
        if rkt == self._kept:
            return self._last
        cdef const char *name = rd_kafka_topic_name(rkt)
        if strcmp(name, <const char *>self._last_c) == 0:
            return self._last
        cdef bytes b = name
        cdef str s = self._names.get(b)
        if s is None:
            s = b.decode("utf-8", "replace")
            if len(self._names) < 10000:
                self._names[b] = s
        self._drop()
        if not self._released and cb_topic_keep(rkt):
            self._kept = rkt
        self._last_c, self._last = b, s
        return s

    cdef void _drop(self) noexcept:
        cdef rd_kafka_topic_t *rkt = self._kept
        if rkt != NULL:
            self._kept = NULL
            cb_topic_release(rkt)

    cdef void release(self) noexcept:
        """Drops the reference on the last topic handle and takes no other: the owning handle
        is about to call rd_kafka_destroy()."""
        self._released = True
        self._drop()


cdef inline rd_kafka_headers_t *_headers_of(const rd_kafka_message_t *rkm) noexcept:
    """The message's headers, or NULL when it has none."""
    cdef rd_kafka_headers_t *hdrs
    if (not cb_message_may_have_headers(rkm)
            or rd_kafka_message_headers(rkm, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR):
        return NULL
    return hdrs


# One header of a message at a time: _headers_start(), then _next_header() until False.
ctypedef struct _Header:
    rd_kafka_headers_t *hdrs
    size_t i                # the next header's index
    const char *name        # the current header
    const void *val
    size_t size


cdef inline bint _headers_start(_Header *h, const rd_kafka_message_t *rkm) noexcept:
    """Points ``h`` before the message's first header; False when it has no headers."""
    h.hdrs = _headers_of(rkm)
    h.i = 0
    return h.hdrs != NULL


cdef inline bint _next_header(_Header *h) noexcept:
    """The next header into h.name, h.val and h.size; False after the last."""
    if (h.hdrs == NULL or rd_kafka_header_get_all(h.hdrs, h.i, &h.name, &h.val, &h.size)
            != RD_KAFKA_RESP_ERR_NO_ERROR):
        return False
    h.i += 1
    return True


cdef list _headers_from_c(const rd_kafka_message_t *rkm):
    cdef _Header h
    if not _headers_start(&h, rkm):
        return None
    out = []
    while _next_header(&h):
        out.append((_cstr(h.name), None if h.val == NULL
                    else PyBytes_FromStringAndSize(<const char *>h.val, h.size)))
    return out


cdef inline object _payload(const void *data, size_t size):
    return None if data == NULL else PyBytes_FromStringAndSize(<const char *>data, size)


cdef void _fields_from_c(_MsgFields *f, const rd_kafka_message_t *rkm, bint producer) noexcept:
    """The numeric fields of a (data, not error event) librdkafka message."""
    cdef rd_kafka_timestamp_type_t tstype
    f.partition, f.offset = rkm.partition, rkm.offset
    f.timestamp = rd_kafka_message_timestamp(rkm, &tstype)
    f.tstype = tstype
    f.leader_epoch = rd_kafka_message_leader_epoch(rkm)
    # a delivery report has a latency; a received message has none
    f.latency_us = rd_kafka_message_latency(rkm) if producer else -1


cdef Message _message_of(object topic, object value, object key, const _MsgFields *f):
    """A new Message of these parts: no error, no headers (untracked: see _message_into)."""
    cdef Message m = Message.__new__(Message)
    PyObject_GC_UnTrack(m)
    m._topic, m._value, m._key = topic, value, key
    m._partition, m._offset, m._leader_epoch = f.partition, f.offset, f.leader_epoch
    m._tstype, m._timestamp, m._latency_us = f.tstype, f.timestamp, f.latency_us
    m._delivery_count = -1
    return m


cdef Message _message_from_c(const rd_kafka_message_t *rkm, _TopicNames names, bint producer):
    """Copy a librdkafka message into a new Message (the caller still owns rkm)."""
    return _message_into(None, rkm, names, producer)


cdef Message _message_into(Message m, const rd_kafka_message_t *rkm, _TopicNames names,
                           bint producer):
    """``m``, a Message of an earlier call that nothing refers to any more (the caller checked
    its reference count), refilled from ``rkm``; or a new Message when ``m`` is None. A refill
    saves the object's deallocation and allocation per message."""
    cdef _MsgFields f
    if m is None:
        m = Message.__new__(Message)
    # It refers only to new str/bytes/KafkaError/list-of-tuples objects, none of which can lead
    # back to it: no cycle is possible, so the cycle collector need not look at it (the many
    # delivered Messages held by asyncio futures until their callbacks run would otherwise make
    # it walk them again and again). set_*() and headers() put it back under the collector.
    if PyObject_GC_IsTracked(m):
        PyObject_GC_UnTrack(m)
    m._topic = names.get(rkm.rkt) if rkm.rkt != NULL else None
    m._delivery_count = -1
    if rkm.err and not producer:
        # A consumer event: payload holds the error string, not data.
        m._partition, m._offset, m._leader_epoch = rkm.partition, rkm.offset, _NO_EPOCH
        m._tstype, m._timestamp, m._latency_us = 0, 0, -1
        m._value = m._key = m._headers = None
        m._error = KafkaError(<int>rkm.err, _cstr(rd_kafka_message_errstr(rkm)))
        return m
    _fields_from_c(&f, rkm, producer)
    m._partition, m._offset, m._leader_epoch = f.partition, f.offset, f.leader_epoch
    m._tstype, m._timestamp, m._latency_us = f.tstype, f.timestamp, f.latency_us
    m._value = _payload(rkm.payload, rkm.len)
    m._key = _payload(rkm.key, rkm.key_len)
    m._error = _kafka_error(rkm.err) if rkm.err else None
    # (a delivery report describes the message without its headers, as confluent-kafka's)
    m._headers = None if producer else _headers_from_c(rkm)
    return m


# Commit metadata as confluent-kafka has it on the wire, so that a group committed to by either
# client reads the same in both: a str without NUL is written as its UTF-8 bytes and a NUL (the C
# string, terminator included: '' is one NUL byte, not "no metadata"); None is no metadata. What
# is read is the C string: the bytes up to the first NUL (all of them without one), None when the
# broker holds none (librdkafka reads an empty string as none).
cdef bytes _metadata_bytes(str metadata):
    """The bytes of commit metadata without the NUL; ValueError for an embedded NUL and
    UnicodeEncodeError for a lone surrogate, confluent-kafka's errors."""
    cdef bytes md = metadata.encode("utf-8")
    if b"\0" in md:
        raise ValueError("embedded null character")
    return md


cdef object _metadata_str(const rd_kafka_topic_partition_t *e):
    """The commit metadata of a librdkafka partition as a str (None without metadata)."""
    if e.metadata == NULL:
        return None
    cdef bytes raw = PyBytes_FromStringAndSize(<const char *>e.metadata, e.metadata_size)
    return raw.partition(b"\0")[0].decode("utf-8", "replace")


@cython.binding(False)
cdef class TopicPartition:
    """A topic partition, optionally with an offset, commit metadata and leader epoch."""

    def __init__(self, str topic not None, int32_t partition=-1,
                 int64_t offset=RD_KAFKA_OFFSET_INVALID,
                 metadata=None, leader_epoch=None):
        if metadata is not None:
            if not isinstance(metadata, str):
                raise TypeError("metadata must be a str or None")
            _metadata_bytes(metadata)       # confluent-kafka's errors, when it is made
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.metadata = metadata
        self._leader_epoch = _NO_EPOCH if leader_epoch is None or leader_epoch < 0 else leader_epoch
        self.error = None

    @property
    def leader_epoch(self):
        """The leader epoch of the offset, or None when it is not known."""
        return None if self._leader_epoch < 0 else self._leader_epoch

    @leader_epoch.setter
    def leader_epoch(self, value):
        self._leader_epoch = _NO_EPOCH if value is None or value < 0 else value

    def __hash__(self):
        return hash((self.topic, self.partition))

    def __richcmp__(self, other, int op):
        if not isinstance(other, TopicPartition):
            return NotImplemented
        cdef TopicPartition o = <TopicPartition>other
        a, b = (self.topic, self.partition), (o.topic, o.partition)
        if op == 0:
            return a < b
        if op == 1:
            return a <= b
        if op == 2:
            return a == b
        if op == 3:
            return a != b
        if op == 4:
            return a > b
        return a >= b

    def __repr__(self):
        return "TopicPartition{topic=%s,partition=%d,offset=%d,leader_epoch=%s,error=%r}" % (
            self.topic, self.partition, self.offset, self.leader_epoch, self.error)

    __str__ = __repr__

    def __reduce__(self):
        return (TopicPartition, (self.topic, self.partition, self.offset, self.metadata,
                                 self.leader_epoch))


@cython.binding(False)
cdef class _PartList:
    """Owns one rd_kafka_topic_partition_list_t."""

    def __dealloc__(self):
        if self.ptr != NULL:
            rd_kafka_topic_partition_list_destroy(self.ptr)

    @staticmethod
    cdef _PartList new(int size):
        cdef _PartList pl = _PartList.__new__(_PartList)
        pl.ptr = rd_kafka_topic_partition_list_new(size)
        return pl

    @staticmethod
    cdef _PartList adopt(rd_kafka_topic_partition_list_t *ptr):
        cdef _PartList pl = _PartList.__new__(_PartList)
        pl.ptr = ptr
        return pl

    @staticmethod
    cdef _PartList from_py(object partitions, bint with_offsets=True):
        """From a list of TopicPartition; TypeError for anything else."""
        if not isinstance(partitions, (list, tuple)):
            raise TypeError("requires list of TopicPartition")
        cdef _PartList pl = _PartList.new(len(partitions))
        cdef TopicPartition tp
        cdef rd_kafka_topic_partition_t *c
        cdef bytes md
        for p in partitions:
            if not isinstance(p, TopicPartition):
                raise TypeError("expected cimpl.TopicPartition")
            tp = <TopicPartition>p
            c = rd_kafka_topic_partition_list_add(pl.ptr, tp.topic.encode(), tp.partition)
            if with_offsets:
                c.offset = tp.offset
                if tp._leader_epoch >= 0:
                    rd_kafka_topic_partition_set_leader_epoch(c, tp._leader_epoch)
                if tp.metadata is not None:
                    md = _metadata_bytes(tp.metadata)
                    c.metadata = malloc(len(md) + 1)
                    memcpy(c.metadata, <const char *>md, len(md) + 1)
                    c.metadata_size = len(md) + 1       # the C string's NUL included
        return pl

    cdef list to_py(self):
        return _parts_to_py(self.ptr)


cdef TopicPartition _part_to_py(const rd_kafka_topic_partition_t *e):
    """A TopicPartition copied from a librdkafka one (error included)."""
    cdef TopicPartition tp = TopicPartition.__new__(TopicPartition)
    tp.topic = _cstr(e.topic)
    tp.partition = e.partition
    tp.offset = e.offset
    tp._leader_epoch = rd_kafka_topic_partition_get_leader_epoch(e)
    tp.metadata = _metadata_str(e)
    tp.error = _kafka_error(e.err)
    return tp


cdef list _parts_to_py(const rd_kafka_topic_partition_list_t *c):
    """A list of TopicPartition copied from a librdkafka list (errors included)."""
    if c == NULL:
        return []
    return [_part_to_py(&c.elems[i]) for i in range(c.cnt)]


cdef list _message_partition(object message, str action):
    """[TopicPartition at message's offset + 1] for commit()/store_offsets() (``action``:
    'commit'/'store'), with confluent-kafka's errors for a non-Message or an error event."""
    if not isinstance(message, Message):
        raise TypeError("expected confluent_kafka.cimpl.Message")
    cdef Message m = <Message>message
    if m._error is not None:
        raise KafkaException(KafkaError(
            RD_KAFKA_RESP_ERR__INVALID_ARG, "Cannot %s offsets for message with error: '%s'"
            % (action, m._error.str() if isinstance(m._error, KafkaError) else m._error)))
    tp = TopicPartition(m._topic, m._partition, m._offset + 1)
    tp._leader_epoch = m._leader_epoch
    return [tp]


@cython.binding(False)
cdef class ConsumerGroupMetadata:
    """A consumer's group metadata, for Producer.send_offsets_to_transaction()."""

    def __reduce__(self):
        return (_cgmd_from_bytes, (self._data,))


def _cgmd_from_bytes(bytes data):
    cdef ConsumerGroupMetadata m = ConsumerGroupMetadata.__new__(ConsumerGroupMetadata)
    m._data = data
    return m


# -- cluster metadata: what list_topics() and list_groups() return (re-exported by
# confluent_binding.admin as confluent-kafka's admin module has them) --

class ClusterMetadata:
    """Brokers and topics of a cluster, as returned by ``list_topics()``."""

    def __init__(self):
        self.cluster_id = None
        self.controller_id = -1
        self.brokers = {}
        self.topics = {}
        self.orig_broker_id = -1
        self.orig_broker_name = None

    def __repr__(self):
        return "ClusterMetadata({})".format(self.cluster_id)

    def __str__(self):
        return str(self.cluster_id)


class BrokerMetadata:
    """A broker in :class:`ClusterMetadata` (and the broker of a :class:`GroupMetadata`)."""

    def __init__(self):
        self.id = -1
        self.host = None
        self.port = -1

    def __repr__(self):
        return "BrokerMetadata({}, {}:{})".format(self.id, self.host, self.port)

    def __str__(self):
        return "{}:{}/{}".format(self.host, self.port, self.id)


class TopicMetadata:
    """A topic in :class:`ClusterMetadata`: its partitions and error."""

    def __init__(self):
        self.topic = None
        self.partitions = {}
        self.error = None

    def __repr__(self):
        if self.error is not None:
            return "TopicMetadata({}, {} partitions, {})".format(
                self.topic, len(self.partitions), self.error)
        return "TopicMetadata({}, {} partitions)".format(self.topic, len(self.partitions))

    def __str__(self):
        return self.topic


class PartitionMetadata:
    """A partition in :class:`TopicMetadata`: leader, replicas, in-sync replicas, error."""

    def __init__(self):
        self.id = -1
        self.leader = -1
        self.replicas = []
        self.isrs = []
        self.error = None

    def __repr__(self):
        if self.error is not None:
            return "PartitionMetadata({}, {})".format(self.id, self.error)
        return "PartitionMetadata({})".format(self.id)

    def __str__(self):
        return "{}".format(self.id)


class GroupMember:
    """A member of a group in list_groups()."""

    def __init__(self):
        self.id = None
        self.client_id = None
        self.client_host = None
        self.metadata = None
        self.assignment = None


class GroupMetadata:
    """A group as returned by list_groups()."""

    def __init__(self):
        self.broker = None
        self.id = None
        self.error = None
        self.state = None
        self.protocol_type = None
        self.protocol = None
        self.members = []

    def __repr__(self):
        if self.error is not None:
            return "GroupMetadata({}, {})".format(self.id, self.error)
        return "GroupMetadata({})".format(self.id)

    def __str__(self):
        return str(self.id)


cdef object _metadata_to_py(const rd_kafka_metadata_t *md):
    cdef int i, j
    cdef const rd_kafka_metadata_topic_t *t
    cdef const rd_kafka_metadata_partition_t *p
    cm = ClusterMetadata()
    cm.controller_id = -1
    cm.orig_broker_id = md.orig_broker_id
    cm.orig_broker_name = _cstr(md.orig_broker_name)
    for i in range(md.broker_cnt):
        b = BrokerMetadata()
        b.id, b.host, b.port = md.brokers[i].id, _cstr(md.brokers[i].host), md.brokers[i].port
        cm.brokers[b.id] = b
    for i in range(md.topic_cnt):
        t = &md.topics[i]
        tm = TopicMetadata()
        tm.topic = _cstr(t.topic)
        tm.error = _kafka_error(t.err)
        for j in range(t.partition_cnt):
            p = &t.partitions[j]
            pm = PartitionMetadata()
            pm.id, pm.leader = p.id, p.leader
            pm.replicas = [p.replicas[k] for k in range(p.replica_cnt)]
            pm.isrs = [p.isrs[k] for k in range(p.isr_cnt)]
            pm.error = _kafka_error(p.err)
            tm.partitions[pm.id] = pm
        cm.topics[tm.topic] = tm
    return cm


class ThrottleEvent:
    """A broker throttled this client: passed to ``throttle_cb``."""

    __slots__ = {"broker_name": "The throttling broker's ``host:port/id`` name.",
                 "broker_id": "The throttling broker's node id.",
                 "throttle_time": "How long the broker throttled the client, in seconds."}

    def __init__(self, broker_name, broker_id, throttle_time):
        self.broker_name = broker_name
        self.broker_id = broker_id
        self.throttle_time = throttle_time

    def __str__(self):
        return "%s/%d throttled for %d ms" % (self.broker_name, self.broker_id,
                                              int(self.throttle_time * 1000))


# -- Python -> C: what produce() hands to librdkafka --

cdef inline int _buffer(object o, Py_buffer *view, const char **p, Py_ssize_t *n,
                        const char *what) except -1:
    """Point p/n at o's bytes. Returns 1 when view holds a buffer to release."""
    if o is None:
        p[0], n[0] = NULL, 0
        return 0
    if PyBytes_CheckExact(o):
        p[0], n[0] = PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o)
        return 0
    if isinstance(o, str):
        p[0] = PyUnicode_AsUTF8AndSize(o, n)
        return 0
    try:
        PyObject_GetBuffer(o, view, PyBUF_SIMPLE)
    except TypeError:
        raise TypeError("%s must be bytes, str, a buffer or None, not %s"
                        % (what.decode(), type(o).__name__)) from None
    p[0], n[0] = <const char *>view.buf, view.len
    return 1


cdef list _header_items(object headers):
    """[(name bytes, value bytes|None)] from a list of (str, bytes|str|None) or a dict."""
    items = headers.items() if isinstance(headers, dict) else headers
    if not isinstance(items, (list, tuple)) and not isinstance(headers, dict):
        raise TypeError("headers must be a list of (str, value) tuples or a dict")
    cdef list out = []
    for item in items:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError("each header must be a (str, value) tuple, not %r" % (item,))
        k, v = item
        if not isinstance(k, str):
            raise TypeError("header names must be str, not %s" % type(k).__name__)
        if v is not None and not isinstance(v, bytes):
            if isinstance(v, str):
                v = v.encode()
            else:
                try:
                    v = bytes(memoryview(v))
                except TypeError:
                    raise TypeError("header %r: value must be bytes, str or None, not %s"
                                    % (k, type(v).__name__)) from None
        out.append((k.encode(), v))
    return out
