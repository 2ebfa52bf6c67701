# aiokafka's face over the asyncio consumer (confluent_binding.aiokafka): its ConsumerRecords
# made straight from the consumed Messages' fields, one compiled call per record (getone) or per
# batch (getmany, which also groups them by partition). The record class is the caller's (the
# core imports no module of the package): a dataclass, its instance's attributes set as its
# own __init__ sets them, without the Python frame.


from cpython.object cimport PyObject, PyTypeObject

cdef tuple _NO_ARGS = ()


cdef object _consumer_record(object cls, Message m, object kd, object vd):
    """``cls(topic, partition, offset, timestamp, timestamp_type, key, value, None, key size,
    value size, headers)`` for the consumed message ``m``; ``kd``/``vd`` deserialize the key and
    the value (None: kept as bytes). The attributes are set in the order of the fields, as the
    dataclass's __init__ sets them (so the instances share its attribute layout)."""
    key, value, headers = m._key, m._value, m._headers
    # object.__new__(cls), without the call through its Python method
    rec = (<PyTypeObject *>object).tp_new(<type>cls, <PyObject *>_NO_ARGS, NULL)
    rec.topic = m._topic
    rec.partition = None if m._partition < 0 else m._partition
    rec.offset = None if m._offset < 0 else m._offset
    rec.timestamp = m._timestamp
    rec.timestamp_type = m._tstype - 1 if m._tstype > 1 else 0
    rec.key = key if kd is None else kd(key)
    rec.value = value if vd is None else vd(value)
    rec.checksum = None
    rec.serialized_key_size = -1 if key is None else len(key)
    rec.serialized_value_size = -1 if value is None else len(value)
    rec.headers = () if headers is None else tuple(headers)
    return rec


def _aiokafka_record(Message msg not None, cls, kd, vd):
    """The record of one consumed message without an error (see _consumer_record)."""
    return _consumer_record(cls, msg, kd, vd)


def _aiokafka_batch(list msgs not None, cls, kd, vd, dict groups not None):
    """The records of ``msgs`` appended to ``groups`` ({(topic, partition): [records]}, in the
    order the messages came); returns the messages that carry an error (an event, not a
    record), in order."""
    cdef Message m
    cdef list errors = []
    cdef list last = None
    cdef object last_topic = None
    cdef int32_t last_partition = -1
    for obj in msgs:
        m = <Message?>obj
        if m._error is not None:
            errors.append(m)
            continue
        rec = _consumer_record(cls, m, kd, vd)
        if last is None or m._partition != last_partition or m._topic is not last_topic:
            last_topic, last_partition = m._topic, m._partition
            where = (m._topic, None if m._partition < 0 else m._partition)
            last = groups.get(where)
            if last is None:
                last = groups[where] = []
        last.append(rec)
    return errors
