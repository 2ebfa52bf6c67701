# Value types (Message, TopicPartition) and their conversions from and to librdkafka structs.

TIMESTAMP_NOT_AVAILABLE = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
TIMESTAMP_CREATE_TIME = RD_KAFKA_TIMESTAMP_CREATE_TIME
TIMESTAMP_LOG_APPEND_TIME = RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME
OFFSET_BEGINNING = RD_KAFKA_OFFSET_BEGINNING
OFFSET_END = RD_KAFKA_OFFSET_END
OFFSET_STORED = RD_KAFKA_OFFSET_STORED
OFFSET_INVALID = RD_KAFKA_OFFSET_INVALID

cdef int32_t _NO_EPOCH = -1


@cython.freelist(64)
@cython.final
cdef class Message:
    """A Kafka message: what a consumer receives and what a delivery report describes.

    Holds copies of the topic, key, value and headers; it owns no librdkafka memory.
    """
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

    def __init__(self, topic=None, partition=None, offset=None, key=None, value=None,
                 headers=None, error=None, timestamp=None, latency=None, leader_epoch=None):
        self._topic = topic
        self._partition = RD_KAFKA_PARTITION_UA if partition is None else partition
        self._offset = RD_KAFKA_OFFSET_INVALID if offset is None else offset
        self._key = key
        self._value = value
        self._headers = headers
        self._error = error
        if timestamp is None:
            self._tstype, self._timestamp = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE, 0
        else:
            self._tstype, self._timestamp = timestamp
        self._latency_us = -1 if latency is None else <int64_t>(latency * 1e6)
        self._leader_epoch = _NO_EPOCH if leader_epoch is None else leader_epoch

    def error(self):
        """None, or the KafkaError of a failed delivery or of a consumer event."""
        return self._error

    def topic(self):
        return self._topic

    def partition(self):
        return None if self._partition == RD_KAFKA_PARTITION_UA else self._partition

    def offset(self):
        return None if self._offset < 0 else self._offset

    def key(self):
        return self._key

    def value(self):
        return self._value

    def headers(self):
        """A list of (str, bytes|None) tuples, or None when the message has no headers."""
        return self._headers

    def timestamp(self):
        """(timestamp type, milliseconds since the epoch): one of the TIMESTAMP_* constants."""
        return (self._tstype, self._timestamp)

    def latency(self):
        """Producer: seconds from produce() to the delivery report; None otherwise."""
        return None if self._latency_us < 0 else self._latency_us / 1e6

    def leader_epoch(self):
        return None if self._leader_epoch < 0 else self._leader_epoch

    def set_headers(self, headers):
        self._headers = headers

    def set_key(self, key):
        self._key = key

    def set_value(self, value):
        self._value = value

    def set_topic(self, topic):
        self._topic = topic

    def set_error(self, error):
        self._error = error

    def __len__(self):
        return 0 if self._value is None else len(self._value)

    def __repr__(self):
        return "Message(topic=%r, partition=%r, offset=%r, key=%r, error=%r)" % (
            self._topic, self.partition(), self.offset(), self._key, self._error)


cdef class _TopicNames:
    """Caches the topic str per topic name seen in librdkafka messages."""
    cdef bytes _last_c
    cdef str _last
    cdef dict _names

    def __cinit__(self):
        self._last_c = b""
        self._last = ""
        self._names = {}

    cdef inline str get(self, rd_kafka_topic_t *rkt):
        cdef const char *name = rd_kafka_topic_name(rkt)
        if strcmp(name, <const char *>self._last_c) == 0:
            return self._last
        cdef bytes b = name
        cdef str s = self._names.get(b)
        if s is None:
            s = b.decode("utf-8", "replace")
            if len(self._names) < 10000:
                self._names[b] = s
        self._last_c, self._last = b, s
        return s


cdef list _headers_from_c(const rd_kafka_message_t *rkm):
    cdef rd_kafka_headers_t *hdrs
    cdef size_t i = 0
    cdef const char *name
    cdef const void *val
    cdef size_t size
    if (not cb_message_may_have_headers(rkm)
            or rd_kafka_message_headers(rkm, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR):
        return None
    out = []
    while rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR:
        out.append((_cstr(name), None if val == NULL else PyBytes_FromStringAndSize(<const char *>val, size)))
        i += 1
    return out


cdef Message _message_from_c(const rd_kafka_message_t *rkm, _TopicNames names, bint producer):
    """Copy a librdkafka message into a new Message (the caller still owns rkm)."""
    cdef Message m = Message.__new__(Message)
    cdef rd_kafka_timestamp_type_t tstype
    m._topic = names.get(rkm.rkt) if rkm.rkt != NULL else None
    m._partition = rkm.partition
    m._offset = rkm.offset
    if rkm.err and not producer:
        # A consumer event: payload holds the error string, not data.
        m._error = KafkaError(<int>rkm.err, _cstr(rd_kafka_message_errstr(rkm)))
        m._tstype, m._timestamp, m._latency_us, m._leader_epoch = 0, 0, -1, _NO_EPOCH
        return m
    if rkm.err:
        m._error = _kafka_error(rkm.err)
    if rkm.payload != NULL:
        m._value = PyBytes_FromStringAndSize(<const char *>rkm.payload, rkm.len)
    if rkm.key != NULL:
        m._key = PyBytes_FromStringAndSize(<const char *>rkm.key, rkm.key_len)
    m._timestamp = rd_kafka_message_timestamp(rkm, &tstype)
    m._tstype = tstype
    m._latency_us = rd_kafka_message_latency(rkm) if producer else -1
    m._leader_epoch = rd_kafka_message_leader_epoch(rkm)
    m._headers = _headers_from_c(rkm)
    return m


@cython.final
cdef class TopicPartition:
    """A topic partition, optionally with an offset, commit metadata and leader epoch."""
    cdef public str topic
    cdef public int32_t partition
    cdef public int64_t offset
    cdef public object metadata
    cdef int32_t _leader_epoch
    cdef public object error

    def __init__(self, str topic not None, int32_t partition=-1, int64_t offset=RD_KAFKA_OFFSET_INVALID,
                 metadata=None, leader_epoch=None):
        if metadata is not None and not isinstance(metadata, str):
            raise TypeError("metadata must be a str or None")
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.metadata = metadata
        self._leader_epoch = _NO_EPOCH if leader_epoch is None or leader_epoch < 0 else leader_epoch
        self.error = None

    @property
    def leader_epoch(self):
        return None if self._leader_epoch < 0 else self._leader_epoch

    @leader_epoch.setter
    def leader_epoch(self, value):
        self._leader_epoch = _NO_EPOCH if value is None or value < 0 else value

    def _key(self):
        return (self.topic, self.partition)

    def __hash__(self):
        return hash((self.topic, self.partition))

    def __richcmp__(self, other, int op):
        if not isinstance(other, TopicPartition):
            return NotImplemented
        a, b = (self.topic, self.partition), ((<TopicPartition>other).topic, (<TopicPartition>other).partition)
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


@cython.final
cdef class _PartList:
    """Owns one rd_kafka_topic_partition_list_t."""
    cdef rd_kafka_topic_partition_list_t *ptr

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
            raise TypeError("expected a list of TopicPartition, not %s" % type(partitions).__name__)
        cdef _PartList pl = _PartList.new(len(partitions))
        cdef TopicPartition tp
        cdef rd_kafka_topic_partition_t *c
        cdef bytes md
        for p in partitions:
            if not isinstance(p, TopicPartition):
                raise TypeError("expected a list of TopicPartition, found %s" % type(p).__name__)
            tp = <TopicPartition>p
            c = rd_kafka_topic_partition_list_add(pl.ptr, tp.topic.encode(), tp.partition)
            if with_offsets:
                c.offset = tp.offset
                if tp._leader_epoch >= 0:
                    rd_kafka_topic_partition_set_leader_epoch(c, tp._leader_epoch)
                if tp.metadata is not None:
                    md = tp.metadata.encode()
                    c.metadata = malloc(len(md) + 1)
                    memcpy(c.metadata, <const char *>md, len(md) + 1)
                    c.metadata_size = len(md)
        return pl

    cdef list to_py(self):
        return _parts_to_py(self.ptr)


cdef list _parts_to_py(const rd_kafka_topic_partition_list_t *c):
    """A list of TopicPartition copied from a librdkafka list (errors included)."""
    cdef list out = []
    cdef int i
    cdef const rd_kafka_topic_partition_t *e
    cdef TopicPartition tp
    if c == NULL:
        return out
    for i in range(c.cnt):
        e = &c.elems[i]
        tp = TopicPartition.__new__(TopicPartition)
        tp.topic = _cstr(e.topic)
        tp.partition = e.partition
        tp.offset = e.offset
        tp._leader_epoch = rd_kafka_topic_partition_get_leader_epoch(e)
        tp.metadata = (PyBytes_FromStringAndSize(<const char *>e.metadata, e.metadata_size)
                       .decode("utf-8", "replace") if e.metadata != NULL else None)
        tp.error = _kafka_error(e.err)
        out.append(tp)
    return out
