"""The aiokafka face's records as the core makes them (src/aio_records.pyx, the producer's
RecordMetadata in src/aio_future.pyx): the same objects aiokafka's own constructors make."""

import dataclasses
import gc

import pytest

from confluent_binding import KafkaError, Message, _core
from confluent_binding.aiokafka.consumer import consumer as consumer_module
from confluent_binding.aiokafka.producer import producer as producer_module
from confluent_binding.aiokafka.structs import ConsumerRecord, RecordMetadata, TopicPartition

CREATE, LOG_APPEND = 1, 2       # librdkafka's timestamp types


def _expected(msg, kd=None, vd=None):
    tstype, ts = msg.timestamp()
    key, value = msg.key(), msg.value()
    return ConsumerRecord(msg.topic(), msg.partition(), msg.offset(), ts, max(tstype - 1, 0),
                          kd(key) if kd else key, vd(value) if vd else value, None,
                          -1 if key is None else len(key), -1 if value is None else len(value),
                          tuple(msg.headers() or ()))


MESSAGES = [
    Message("t", 0, 5, b"k", b"value", None, None, (CREATE, 1700000000123)),
    Message("t", 0, 6, None, b"", [("h", b"1"), ("n", None)], None, (LOG_APPEND, 17)),
    Message("t", 1, 0, b"", None, [], None, None),
    Message("u", 0, 9, b"key", b"v" * 300, None, None, (CREATE, 0)),
]


@pytest.mark.parametrize("msg", MESSAGES)
def test_a_record_is_the_dataclass_its_constructor_makes(msg):
    rec = _core._aiokafka_record(msg, ConsumerRecord, None, None)
    want = _expected(msg)
    assert type(rec) is ConsumerRecord
    assert rec == want and repr(rec) == repr(want)
    assert dataclasses.astuple(rec) == dataclasses.astuple(want)
    assert list(vars(rec)) == [f.name for f in dataclasses.fields(ConsumerRecord)]
    assert dataclasses.replace(rec, offset=1).offset == 1
    rec.value = b"changed"      # a plain, mutable dataclass instance
    assert rec.value == b"changed"


def test_records_are_deserialized_sized_before_and_grouped_by_partition():
    def kd(b):
        return None if b is None else b.decode()

    def vd(b):
        return None if b is None else len(b)

    event = Message("t", 0, None, None, None, None, KafkaError(KafkaError._PARTITION_EOF), None)
    held = _expected(MESSAGES[0])
    groups = {("t", 0): [held]}
    events = _core._aiokafka_batch(MESSAGES + [event], ConsumerRecord, kd, vd, groups)
    assert events == [event]
    assert list(groups) == [("t", 0), ("t", 1), ("u", 0)]
    assert groups[("t", 0)] == [held, _expected(MESSAGES[0], kd, vd),
                                _expected(MESSAGES[1], kd, vd)]
    assert groups[("t", 1)] == [_expected(MESSAGES[2], kd, vd)]
    assert groups[("u", 0)][0].serialized_value_size == 300
    assert groups[("u", 0)][0].value == 300


def test_a_deserializer_error_propagates():
    def vd(b):
        raise ValueError("bad value")

    with pytest.raises(ValueError, match="bad value"):
        _core._aiokafka_batch(MESSAGES, ConsumerRecord, None, vd, {})


def test_the_face_uses_the_core_makers():
    assert consumer_module._batch_of is _core._aiokafka_batch
    assert consumer_module._record_of is _core._aiokafka_record


@pytest.mark.parametrize("msg, timestamp, tstype", [
    (Message("t", 2, 40, None, b"v", None, None, (CREATE, 1234)), 1234, 0),
    (Message("t", 0, 41, None, b"v", None, None, (LOG_APPEND, 99)), 99, 1),
    (Message("t", 0, None, None, b"v", None, None, None), None, 0),     # acks=0: no offset
])
def test_record_metadata_of_a_delivered_message(msg, timestamp, tstype):
    md = producer_module._metadata(msg)
    tp = TopicPartition(msg.topic(), msg.partition())
    want = RecordMetadata(msg.topic(), msg.partition(), tp, msg.offset(), timestamp, tstype,
                          None)
    assert type(md) is RecordMetadata and type(md.topic_partition) is TopicPartition
    assert md == want and repr(md) == repr(want) and md._asdict() == want._asdict()
    # immutable, items atomic: made outside the cycle collector (no cycle can go through them)
    assert not gc.is_tracked(md) and not gc.is_tracked(md.topic_partition)
    assert md.topic_partition == (msg.topic(), msg.partition())


@pytest.mark.parametrize("types", [(dict, TopicPartition), (RecordMetadata, list),
                                   (RecordMetadata, ConsumerRecord)])
def test_record_metadata_maker_takes_named_tuple_classes_only(types):
    with pytest.raises(TypeError):
        getattr(_core, "_RecordMetadataOf")(*types)
