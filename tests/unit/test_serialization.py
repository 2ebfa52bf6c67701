"""confluent_binding.serialization and the serializing clients, side by side with
confluent-kafka's."""
import math

import pytest

pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka as ck  # noqa: E402
import confluent_kafka.error as ck_error  # noqa: E402
import confluent_kafka.serialization as ck_ser  # noqa: E402

import confluent_binding as cb  # noqa: E402
import confluent_binding.error as cb_error  # noqa: E402
import confluent_binding.serialization as cb_ser  # noqa: E402

from tests.support import mock, unreachable  # noqa: E402

SERIALIZER_CASES = [
    ("IntegerSerializer", (),
     [0, 1, -1, 2**31 - 1, -2**31, 2**31, -2**31 - 1, 1.5, "1", b"1", True, None]),
    ("DoubleSerializer", (), [0.0, -0.0, 1.5, -1e308, math.inf, -math.inf, 3, 2**1024, "x", None]),
    ("StringSerializer", (), ["", "abc", "żółw ✓ 😀", "\ud800", 5, b"x", None]),
    ("StringSerializer", ("latin_1",), ["café", "żółw", None]),
    ("StringSerializer", ("utf_16",), ["abc", "😀"]),
    ("StringSerializer", ("ascii",), ["abc", "é"]),
]

DESERIALIZER_CASES = [
    ("IntegerDeserializer", (), [b"\x00\x00\x00\x01", b"\xff\xff\xff\xff", b"\x80\x00\x00\x00", b"",
                                 b"\x00\x00\x01", b"\x00\x00\x00\x00\x01", None]),
    ("DoubleDeserializer", (), [b"\x3f\xf8\x00\x00\x00\x00\x00\x00", b"\x7f\xf0" + b"\x00" * 6,
                                b"\x7f\xf8" + b"\x00" * 6, b"\x00" * 7, None]),
    ("StringDeserializer", (), [b"abc", "żółw".encode(), b"\xff\xfe", b"", None]),
    ("StringDeserializer", ("latin_1",), [b"caf\xe9", b"\xff"]),
    ("StringDeserializer", ("ascii",), [b"abc", b"\xc3\xa9"]),
]


def outcome(fn, *args):
    """What calling fn gives: ('ok', result) or ('raise', exception type name, message)."""
    try:
        return ("ok", fn(*args))
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return ("raise", type(e).__name__, str(e))


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b and type(a) is type(b)


@pytest.mark.parametrize("name,args,inputs", SERIALIZER_CASES + DESERIALIZER_CASES)
def test_builtin_serdes_match_confluent(name, args, inputs):
    ours, theirs = getattr(cb_ser, name)(*args), getattr(ck_ser, name)(*args)
    ctx = cb_ser.SerializationContext("t", cb_ser.MessageField.VALUE)
    for value in inputs:
        got, want = outcome(ours, value, ctx), outcome(theirs, value, None)
        assert got[0] == want[0], (value, got, want)
        assert all(same(g, w) for g, w in zip(got[1:], want[1:])), (value, got, want)


def test_encodings_are_the_java_clients():
    assert cb_ser.IntegerSerializer()(-2) == b"\xff\xff\xff\xfe"
    assert cb_ser.DoubleSerializer()(1.0) == b"\x3f\xf0\x00\x00\x00\x00\x00\x00"
    assert cb_ser.StringSerializer()("é") == b"\xc3\xa9"
    assert cb_ser.StringSerializer("utf_16_be")("é") == b"\x00\xe9"
    assert cb_ser.IntegerDeserializer()(b"\x7f\xff\xff\xff") == 2**31 - 1


def test_serde_failures_are_serialization_errors():
    with pytest.raises(cb_ser.SerializationError, match="format requires"):
        cb_ser.IntegerSerializer()(2**31)
    with pytest.raises(cb_ser.SerializationError, match="can't decode byte 0xff"):
        cb_ser.StringDeserializer()(b"\xff")
    assert issubclass(cb_ser.SerializationError, cb.KafkaException)


def test_message_field_and_context():
    for name in ("NONE", "KEY", "VALUE"):
        ours, theirs = getattr(cb_ser.MessageField, name), getattr(ck_ser.MessageField, name)
        assert (str(ours), ours.value, ours == theirs.value) == (str(theirs), theirs.value, True)
    assert cb_ser.MessageField.KEY == "key" and "t-" + cb_ser.MessageField.VALUE == "t-value"
    ctx = cb_ser.SerializationContext("topic", cb_ser.MessageField.KEY, [("h", b"v")])
    assert (ctx.topic, ctx.field, ctx.headers) == ("topic", "key", [("h", b"v")])
    assert cb_ser.SerializationContext("t", cb_ser.MessageField.KEY).headers is None


def test_public_names_match_confluent():
    assert sorted(cb_ser.__all__) == sorted(ck_ser.__all__)
    for name in ck_ser.__all__:
        assert hasattr(cb_ser, name)
    for name in ("ConsumeError", "ProduceError", "KeySerializationError", "ValueSerializationError",
                 "KeyDeserializationError", "ValueDeserializationError", "KafkaException"):
        assert hasattr(cb_error, name)
    for name in ("SerializingProducer", "DeserializingConsumer"):
        assert hasattr(cb, name) and hasattr(ck, name)


def mro_names(cls):
    return [c.__name__ for c in cls.__mro__]


@pytest.mark.parametrize("name,code", [
    ("KeySerializationError", "_KEY_SERIALIZATION"),
    ("ValueSerializationError", "_VALUE_SERIALIZATION"),
    ("KeyDeserializationError", "_KEY_DESERIALIZATION"),
    ("ValueDeserializationError", "_VALUE_DESERIALIZATION"),
])
def test_serde_error_classes_match_confluent(name, code):
    ours_cls, theirs_cls = getattr(cb_error, name), getattr(ck_error, name)
    assert mro_names(ours_cls) == mro_names(theirs_cls)
    cause = ValueError("bad thing")
    ours, theirs = ours_cls(cause), theirs_cls(cause)
    assert ((ours.code, ours.name, str(ours), repr(ours))
            == (theirs.code, theirs.name, str(theirs), repr(theirs)))
    assert ours.code == getattr(cb.KafkaError, code) and ours.exception is cause
    assert ours.kafka_message is None
    assert isinstance(ours, cb_ser.SerializationError) and isinstance(ours, cb.KafkaException)


def test_consume_and_produce_error_match_confluent():
    for name in ("ConsumeError", "ProduceError"):
        assert mro_names(getattr(cb_error, name)) == mro_names(getattr(ck_error, name))
    err = cb_error.ConsumeError(cb.KafkaError(cb.KafkaError._PARTITION_EOF), kafka_message="m")
    assert (err.code, err.name, err.kafka_message, err.exception) == (
        cb.KafkaError._PARTITION_EOF, "_PARTITION_EOF", "m", None)
    with pytest.raises(TypeError):
        cb_error.ProduceError(cb.KafkaError(1), None, "no message argument")


class Fails(cb_ser.Serializer):
    def __init__(self):
        self.calls = 0

    def __call__(self, obj, ctx=None):
        self.calls += 1
        raise ValueError("cannot encode %r" % (obj,))


@pytest.mark.parametrize("module", [cb, ck], ids=["ours", "confluent"])
@pytest.mark.parametrize("field", ["key", "value"])
def test_serializing_producer_failure_produces_nothing(module, field):
    # on a mock cluster the next good message lands at offset 0: nothing went before it
    # (len(producer) is no witness: librdkafka counts its own events in it too)
    class RefusesBad(module.serialization.Serializer):
        def __call__(self, obj, ctx=None):
            if obj == "bad":
                raise ValueError("cannot encode %r" % (obj,))
            return obj.encode()

    producer = module.SerializingProducer(mock(**{"key.serializer": RefusesBad(),
                                                  "value.serializer": RefusesBad()}))
    err_cls = getattr(module.error if module is ck else cb_error,
                      "KeySerializationError" if field == "key" else "ValueSerializationError")
    with pytest.raises(err_cls) as info:
        producer.produce("topic", partition=0, **dict({"key": "k", "value": "v"}, **{field: "bad"}))
    assert str(info.value.args[0].str()) == "cannot encode 'bad'"
    assert isinstance(info.value.exception, ValueError)
    reports = []
    producer.produce("topic", key="k", value="v", partition=0,
                     on_delivery=lambda err, msg: reports.append((err, msg.offset())))
    assert producer.flush(10) == 0
    assert reports == [(None, 0)]


def test_serializing_producer_passes_context_and_bytes():
    seen = []

    class Recording(cb_ser.Serializer):
        def __call__(self, obj, ctx=None):
            seen.append((obj, ctx.topic, str(ctx.field), ctx.headers))
            return None if obj is None else obj.encode()

    headers = [("h", b"1")]
    producer = cb.SerializingProducer(mock(**{"key.serializer": Recording(),
                                              "value.serializer": Recording()}))
    producer.produce("t1", key="k", value="v", headers=headers)
    producer.produce("t1", value=None)
    assert seen == [("k", "t1", "key", headers), ("v", "t1", "value", headers),
                    (None, "t1", "key", None), (None, "t1", "value", None)]
    producer.purge()


@pytest.mark.parametrize("module", [cb, ck], ids=["ours", "confluent"])
def test_serializing_producer_checks_before_serializing(module):
    ser = Fails()
    producer = module.SerializingProducer(unreachable(**{"value.serializer": ser}))
    with pytest.raises(TypeError, match="^topic must be a str, not int$"):
        producer.produce(5, value="v")
    producer.close()
    with pytest.raises(RuntimeError, match="^Producer has been closed$"):
        producer.produce("t", value="v")
    assert ser.calls == 0


@pytest.mark.parametrize("module", [cb, ck], ids=["ours", "confluent"])
def test_both_serializer_and_builder_is_an_error(module):
    with pytest.raises(ValueError, match="^Cannot configure both value.serializer and "
                                         "value.serializer.builder; use one or the other$"):
        module.SerializingProducer({"value.serializer": Fails(),
                                    "value.serializer.builder": object()})


class Built(cb_ser.Serializer):
    def __init__(self, prefix):
        self.prefix = prefix
        self.closed = 0
        self.resolver = None

    def __call__(self, obj, ctx=None):
        return self.prefix + obj.encode()

    def set_cluster_id_resolver(self, resolver):
        self.resolver = resolver

    def close(self):
        self.closed += 1


class Builder(cb_ser.SerializerBuilder):
    """Consumes 'my.prefix' from the configuration; anything else is passed on."""

    def __init__(self):
        self.built = []
        self.seen = []

    def build(self, conf, is_key):
        self.seen.append((dict(conf), is_key))
        conf = dict(conf)
        serde = Built(conf.pop("my.prefix").encode())
        self.built.append(serde)
        return serde, conf


def test_builders_own_what_they_build():
    builder = Builder()
    ready = Built(b"r:")
    producer = cb.SerializingProducer(mock(**{"key.serializer.builder": builder,
                                              "value.serializer": ready, "my.prefix": "p:"}))
    (conf, is_key), = builder.seen
    assert is_key is True and conf["my.prefix"] == "p:" and "value.serializer" not in conf
    built, = builder.built
    assert callable(built.resolver) and callable(ready.resolver)
    producer.produce("t", key="k", value="v")
    assert producer.flush(10) == 0
    producer.close()
    assert (built.closed, ready.closed) == (1, 0)
    producer.close()
    assert built.closed == 1


def test_builder_result_is_checked():
    class Bad:
        def build(self, conf, is_key):
            return conf

    for module in (cb, ck):
        with pytest.raises(ValueError, match="^value.serializer.builder returned str as the "
                                             "leftover configuration from build"):
            module.SerializingProducer({"value.serializer.builder": type(
                "B", (), {"build": lambda self, c, k: (Built(b""), "x")})()})
        with pytest.raises(ValueError,
                           match="must return a .serde, configuration. tuple from build"):
            module.SerializingProducer({"value.serializer.builder": Bad(),
                                        "bootstrap.servers": "x"})


def test_cluster_id_resolver_reads_the_mock_clusters_id():
    ser = Built(b"")
    producer = cb.SerializingProducer(mock(**{"value.serializer": ser}))
    assert isinstance(ser.resolver(), str) and ser.resolver()
    producer.close()


def test_deserializing_consumer_over_mock_cluster():
    # the mock cluster lives as long as the producer that created it
    producer = cb.Producer(mock())
    for key, value in ((b"\x00\x00\x00\x07", "ok"), (b"\x00\x01", "short key"),
                       (b"\x00\x00\x00\x08", b"\xff")):
        producer.produce("serde-unit", value=value, key=key, partition=0)
    assert producer.flush(10) == 0
    broker = producer.list_topics(timeout=10).brokers[1]
    bootstrap = "%s:%d" % (broker.host, broker.port)
    consumer = cb.DeserializingConsumer({"bootstrap.servers": bootstrap, "group.id": "g",
                                         "auto.offset.reset": "earliest",
                                         "key.deserializer": cb_ser.IntegerDeserializer(),
                                         "value.deserializer": cb_ser.StringDeserializer()})
    consumer.subscribe(["serde-unit"])
    outcomes = []
    while len(outcomes) < 3:
        try:
            msg = consumer.poll(10)
        except cb_ser.SerializationError as e:
            outcomes.append((type(e).__name__, e.kafka_message.key(), e.kafka_message.value()))
            continue
        assert msg is not None
        outcomes.append((msg.key(), msg.value()))
    with pytest.raises(NotImplementedError):
        consumer.consume(1, 0)
    consumer.close()
    producer.close()
    assert outcomes == [(7, "ok"), ("KeyDeserializationError", b"\x00\x01", b"short key"),
                        ("ValueDeserializationError", b"\x00\x00\x00\x08", b"\xff")]
