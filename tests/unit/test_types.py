"""Value types: KafkaError, KafkaException, TopicPartition, Message."""

import copy
import pickle

import pytest

from confluent_binding import (
    OFFSET_INVALID,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_NOT_AVAILABLE,
    KafkaError,
    KafkaException,
    Message,
    TopicPartition,
)

# -- KafkaError --


def test_kafka_error_from_code():
    e = KafkaError(KafkaError._MSG_TIMED_OUT)
    assert e.code() == KafkaError._MSG_TIMED_OUT == -192
    assert e.name() == "_MSG_TIMED_OUT"
    assert e.str() == "Local: Message timed out"
    assert "Message timed out" in str(e)
    assert (e.fatal(), e.retriable(), e.txn_requires_abort()) == (False, False, False)


def test_kafka_error_broker_code():
    e = KafkaError(KafkaError.UNKNOWN_TOPIC_OR_PART)
    assert e.code() == 3
    assert e.name() == "UNKNOWN_TOPIC_OR_PART"
    assert e.str().startswith("Broker: Unknown topic or partition")


def test_kafka_error_with_reason_and_flags():
    e = KafkaError(KafkaError._STATE, "my reason", fatal=True, retriable=True,
                   txn_requires_abort=True)
    assert e.str() == "my reason"
    assert e.name() == "_STATE"
    assert (e.fatal(), e.retriable(), e.txn_requires_abort()) == (True, True, True)
    assert "my reason" in repr(e)


def test_kafka_error_flags_positional():
    e = KafkaError(KafkaError._FATAL, "r", True, False, True)
    assert (e.fatal(), e.retriable(), e.txn_requires_abort()) == (True, False, True)


def test_kafka_error_without_reason_has_librdkafka_text():
    assert KafkaError(KafkaError._TRANSPORT).str() == "Local: Broker transport failure"
    assert KafkaError(KafkaError._TRANSPORT, None).str() == "Local: Broker transport failure"


def test_kafka_error_unknown_code():
    e = KafkaError(123456)
    assert e.code() == 123456
    assert isinstance(e.name(), str) and isinstance(e.str(), str)


def test_kafka_error_repr():
    assert repr(KafkaError(KafkaError._MSG_TIMED_OUT)) == \
        'KafkaError{code=_MSG_TIMED_OUT,val=-192,str="Local: Message timed out"}'


def test_kafka_error_equality():
    a = KafkaError(KafkaError._MSG_TIMED_OUT)
    b = KafkaError(KafkaError._MSG_TIMED_OUT, "other reason")
    c = KafkaError(KafkaError._TRANSPORT)
    assert a == b and not a != b
    assert a != c and not a == c
    assert a == KafkaError._MSG_TIMED_OUT and KafkaError._MSG_TIMED_OUT == a
    assert a != KafkaError._TRANSPORT
    assert a != "x" and not a == "x" and a != None  # noqa: E711
    assert a in [c, b]


def test_kafka_error_hash():
    a = KafkaError(KafkaError._MSG_TIMED_OUT)
    assert hash(a) == hash(KafkaError(KafkaError._MSG_TIMED_OUT, "r")) == hash(-192)
    assert len({a, KafkaError(-192), KafkaError(KafkaError._TRANSPORT)}) == 2
    assert {a: 1}[-192] == 1


def test_kafka_error_ordering():
    low, high = KafkaError(-192), KafkaError(3)
    assert low < high and low <= high and high > low and high >= low
    assert low <= KafkaError(-192) and low >= -192
    assert low < 0 and high > 0
    assert sorted([high, low, KafkaError(0)]) == [-192, 0, 3]
    with pytest.raises(TypeError):
        low < "x"  # noqa: B015


def test_kafka_error_truth_like_the_peer():
    # confluent-kafka's KafkaError has no __bool__: every instance is true, NO_ERROR included
    assert bool(KafkaError(KafkaError.NO_ERROR)) is True
    assert bool(KafkaError(KafkaError._MSG_TIMED_OUT)) is True
    peer = pytest.importorskip("confluent_kafka")
    for code in (0, -192, 1):
        assert bool(KafkaError(code)) == bool(peer.KafkaError(code))


def test_kafka_error_str_like_the_peer():
    peer = pytest.importorskip("confluent_kafka")
    for code in (KafkaError._MSG_TIMED_OUT, KafkaError.UNKNOWN_TOPIC_OR_PART, 0):
        assert str(KafkaError(code)) == str(peer.KafkaError(code))
        assert repr(KafkaError(code)) == repr(peer.KafkaError(code))
    assert str(KafkaError(1, "why")) == str(peer.KafkaError(1, "why"))


@pytest.mark.parametrize("args", [("x",), (1.5,), (None,), (1, 5)])
def test_kafka_error_bad_args(args):
    with pytest.raises(TypeError):
        KafkaError(*args)


def test_kafka_error_constants_are_ints():
    assert isinstance(KafkaError._PARTITION_EOF, int)
    assert KafkaError(KafkaError._PARTITION_EOF).name() == "_PARTITION_EOF"


# -- KafkaException --


def test_kafka_exception_args():
    err = KafkaError(KafkaError._INVALID_ARG, "bad")
    exc = KafkaException(err)
    assert exc.args[0] is err
    assert "bad" in str(exc)
    with pytest.raises(KafkaException) as ei:
        raise exc
    assert ei.value.args[0].code() == KafkaError._INVALID_ARG


def test_kafka_exception_catchable_as_exception():
    with pytest.raises(Exception):
        raise KafkaException(KafkaError(1))


# -- TopicPartition --


def test_topic_partition_defaults():
    tp = TopicPartition("t")
    assert tp.topic == "t"
    assert tp.partition == -1
    assert tp.offset == OFFSET_INVALID == -1001
    assert tp.metadata is None
    assert tp.leader_epoch is None
    assert tp.error is None


def test_topic_partition_full():
    tp = TopicPartition("t", 2, 42, "md", 7)
    assert (tp.topic, tp.partition, tp.offset, tp.metadata, tp.leader_epoch) == \
        ("t", 2, 42, "md", 7)
    tp2 = TopicPartition(topic="t", partition=2, offset=42, metadata="md", leader_epoch=7)
    assert (tp2.metadata, tp2.leader_epoch, tp2.offset) == ("md", 7, 42)


def test_topic_partition_leader_epoch():
    assert TopicPartition("t", 0, 0, None, None).leader_epoch is None
    assert TopicPartition("t", 0, 0, None, -1).leader_epoch is None
    assert TopicPartition("t", 0, 0, None, 0).leader_epoch == 0
    tp = TopicPartition("t")
    tp.leader_epoch = 5
    assert tp.leader_epoch == 5
    tp.leader_epoch = None
    assert tp.leader_epoch is None


def test_topic_partition_mutable_fields():
    tp = TopicPartition("t", 0)
    tp.offset = 10
    tp.partition = 3
    tp.metadata = "m"
    tp.error = KafkaError(1)
    assert (tp.offset, tp.partition, tp.metadata, tp.error.code()) == (10, 3, "m", 1)


def test_topic_partition_equality_and_hash_ignore_offset():
    a, b = TopicPartition("t", 1, 5), TopicPartition("t", 1, 99, "m", 3)
    assert a == b and not a != b
    assert hash(a) == hash(b)
    assert TopicPartition("t", 1) != TopicPartition("t", 2)
    assert TopicPartition("t", 1) != TopicPartition("u", 1)
    assert TopicPartition("t", 1) != ("t", 1)
    assert len({a, b, TopicPartition("t", 2)}) == 2


def test_topic_partition_ordering():
    tps = [TopicPartition("b", 0), TopicPartition("a", 2), TopicPartition("a", 1)]
    assert [(t.topic, t.partition) for t in sorted(tps)] == [("a", 1), ("a", 2), ("b", 0)]
    assert TopicPartition("a", 1) < TopicPartition("a", 2) <= TopicPartition("a", 2)
    assert TopicPartition("b", 0) > TopicPartition("a", 9) >= TopicPartition("a", 9)
    with pytest.raises(TypeError):
        TopicPartition("a") < 1  # noqa: B015


def test_topic_partition_repr():
    r = repr(TopicPartition("t", 1, 5))
    assert r == "TopicPartition{topic=t,partition=1,offset=5,leader_epoch=None,error=None}"
    assert str(TopicPartition("t", 1, 5, None, 2)) == \
        "TopicPartition{topic=t,partition=1,offset=5,leader_epoch=2,error=None}"


@pytest.mark.parametrize("proto", range(pickle.HIGHEST_PROTOCOL + 1))
def test_topic_partition_pickle(proto):
    tp = TopicPartition("t", 3, 17, "meta", 4)
    tp2 = pickle.loads(pickle.dumps(tp, proto))
    assert tp2 == tp
    assert (tp2.topic, tp2.partition, tp2.offset, tp2.metadata, tp2.leader_epoch) == \
        ("t", 3, 17, "meta", 4)
    tp3 = pickle.loads(pickle.dumps(TopicPartition("x"), proto))
    assert (tp3.partition, tp3.offset, tp3.leader_epoch) == (-1, OFFSET_INVALID, None)


def test_topic_partition_copy():
    tp = TopicPartition("t", 3, 17, "meta")
    for c in (copy.copy(tp), copy.deepcopy(tp)):
        assert c is not tp and c == tp and c.offset == 17 and c.metadata == "meta"


@pytest.mark.parametrize("args", [
    (), (None,), (1,), (b"t",), ("t", "x"), ("t", None), ("t", 1, "x"), ("t", 1, 1, 5),
    ("t", 2 ** 40),
])
def test_topic_partition_bad_args(args):
    with pytest.raises((TypeError, OverflowError)):
        TopicPartition(*args)


# -- Message --


def test_message_kwargs_and_accessors():
    err = KafkaError(KafkaError._MSG_TIMED_OUT)
    m = Message(topic="t", partition=2, offset=10, key=b"k", value=b"value",
                headers=[("h", b"1"), ("n", None)], error=err,
                timestamp=(TIMESTAMP_CREATE_TIME, 1700000000000), latency=0.25, leader_epoch=4)
    assert m.topic() == "t"
    assert m.partition() == 2
    assert m.offset() == 10
    assert m.key() == b"k"
    assert m.value() == b"value"
    assert m.headers() == [("h", b"1"), ("n", None)]
    assert m.error() is err
    assert m.timestamp() == (TIMESTAMP_CREATE_TIME, 1700000000000)
    assert m.latency() == pytest.approx(0.25)
    assert m.leader_epoch() == 4
    assert len(m) == 5


def test_message_positional_order():
    m = Message("t", 1, 2, b"k", b"v", None, None, (TIMESTAMP_CREATE_TIME, 5), 1.0, 3)
    assert (m.topic(), m.partition(), m.offset(), m.key(), m.value(), m.headers(),
            m.error(), m.timestamp(), m.latency(), m.leader_epoch()) == \
        ("t", 1, 2, b"k", b"v", None, None, (TIMESTAMP_CREATE_TIME, 5), 1.0, 3)


def test_message_defaults():
    m = Message()
    assert m.topic() is None
    assert m.partition() is None
    assert m.offset() is None
    assert m.key() is None
    assert m.value() is None
    assert m.headers() is None
    assert m.error() is None
    assert m.timestamp() == (TIMESTAMP_NOT_AVAILABLE, 0)
    assert m.latency() is None
    assert m.leader_epoch() is None
    assert len(m) == 0


def test_message_setters():
    m = Message()
    m.set_topic("t2")
    m.set_key(b"key")
    m.set_value(b"abc")
    m.set_headers([("a", b"b")])
    assert (m.topic(), m.key(), m.value(), m.headers()) == ("t2", b"key", b"abc", [("a", b"b")])
    assert len(m) == 3
    m.set_value(None)
    assert m.value() is None and len(m) == 0
    m.set_key(None)
    m.set_headers(None)
    assert m.key() is None and m.headers() is None


def test_message_str_value_and_objects():
    # constructed messages hold whatever they were given (as serializers expect)
    m = Message(value="héllo", key={"k": 1})
    assert m.value() == "héllo" and len(m) == 5
    assert m.key() == {"k": 1}


def test_message_repr_mentions_topic():
    assert "mytopic" in repr(Message(topic="mytopic", partition=0, offset=1))


@pytest.mark.parametrize("kwargs", [
    {"partition": "x"}, {"offset": "x"}, {"timestamp": 5}, {"timestamp": (1, 2, 3)},
])
def test_message_bad_args(kwargs):
    with pytest.raises((TypeError, ValueError)):
        Message(**kwargs)
