"""confluent-kafka's configuration-driven serde construction, side by side with confluent-kafka:
subject.name.strategy.type, the associated subject name strategy (on the in-memory registries),
build_serde, the serializing clients' serde helpers, and the asyncio serdes' framing.

The registry-backed checks run against the real registry in
tests/integration/test_schema_registry_async.py."""

import asyncio
import threading
import time

import pytest

pytest.importorskip("fastavro")
pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka.schema_registry as ck_sr  # noqa: E402
import confluent_kafka.schema_registry.serde as ck_serde  # noqa: E402
from confluent_kafka import deserializing_consumer as ck_dc  # noqa: E402
from confluent_kafka import serializing_producer as ck_sp  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.serialization import (  # noqa: E402
    SerializationError as CkSerializationError,
)

from confluent_binding import (  # noqa: E402
    deserializing_consumer,
    schema_registry,  # noqa: E402
    serializing_producer,
)
from confluent_binding.schema_registry import (  # noqa: E402
    AsyncSchemaRegistryClient,
    SchemaRegistryClient,
    avro,
    serde,
)
from confluent_binding.schema_registry.mock_schema_registry_client import (  # noqa: E402
    MockSchemaRegistryClient,
)
from confluent_binding.serialization import (  # noqa: E402
    MessageField,
    SerializationContext,
    SerializationError,
    SerializerBuilder,
)

from tests.support.waiting import wait_until  # noqa: E402

USER = """{"type": "record", "name": "User", "namespace": "example",
 "fields": [{"name": "name", "type": "string"}]}"""
VALUE = SerializationContext("orders", MessageField.VALUE)
KEY = SerializationContext("orders", MessageField.KEY)


def mocks():
    """(our in-memory registry, confluent-kafka's), empty; distinct URLs keep them apart."""
    url = "mock://%s" % threading.get_ident()
    return (MockSchemaRegistryClient({"url": url}),
            ck_sr.SchemaRegistryClient.new_client({"url": url + "-ck"}))


def associate(registry, topic, subject, kind="value", namespace="lkc-1", module=None):
    """Associate ``subject`` with the topic's key or value (through ``module``'s request types:
    confluent's registry takes its own)."""
    types = module or schema_registry
    registry.create_association(types.AssociationCreateOrUpdateRequest(
        resource_name=topic, resource_namespace=namespace, resource_id="id-" + topic + kind,
        resource_type="topic", associations=[types.AssociationCreateOrUpdateInfo(
            subject=subject, association_type=kind)]))


def both(conf):
    """(our AvroSerializer, confluent's) with ``conf`` over fresh in-memory registries."""
    ours_reg, ck_reg = mocks()
    return (avro.AvroSerializer(ours_reg, USER, conf=conf), ours_reg,
            ck_avro.AvroSerializer(ck_reg, USER, conf=conf), ck_reg)


# -- names and values -----------------------------------------------------------------------


def test_strategy_types_and_constants_are_confluents():
    assert [(t.name, t.value) for t in serde.SubjectNameStrategyType] == [
        (t.name, t.value) for t in ck_serde.SubjectNameStrategyType]
    assert serde.SubjectNameStrategyType("TOPIC") == "TOPIC"
    for kind, func in ck_serde.STRATEGY_TYPE_MAP.items():
        ours = serde.STRATEGY_TYPE_MAP[serde.SubjectNameStrategyType(kind.value)]
        for ctx in (KEY, VALUE):
            assert ours(ctx, "example.User") == func(ctx, "example.User")
    assert len(serde.STRATEGY_TYPE_MAP) == len(ck_serde.STRATEGY_TYPE_MAP)
    assert (serde.KAFKA_CLUSTER_ID, serde.FALLBACK_TYPE) == (
        ck_serde.KAFKA_CLUSTER_ID, ck_serde.FALLBACK_TYPE)


def test_original_key_lives_in_the_context():
    serde.set_original_key(b"k1")
    assert serde.get_original_key() == b"k1"
    seen = []
    worker = threading.Thread(target=lambda: seen.append(serde.get_original_key()))
    worker.start()
    worker.join()
    assert seen == [None]       # another thread has its own
    serde.clear_original_key()
    assert serde.get_original_key() is None


def test_parsed_schema_cache():
    cache = serde.ParsedSchemaCache()
    schema = ck_sr.Schema(USER, "AVRO")
    ours_schema = avro.Schema(USER, "AVRO")
    assert cache.get_parsed_schema(ours_schema) is None
    cache.set(ours_schema, {"parsed": 1})
    assert cache.get_parsed_schema(avro.Schema(USER, "AVRO")) == {"parsed": 1}
    cache.clear()
    assert cache.get_parsed_schema(ours_schema) is None
    assert schema.schema_str == ours_schema.schema_str


# -- subject.name.strategy.type -------------------------------------------------------------


@pytest.mark.parametrize("kind,subject", [("TOPIC", "orders-value"), ("record", "example.User"),
                                          ("TOPIC_RECORD", "orders-example.User"),
                                          (serde.SubjectNameStrategyType.RECORD, "example.User")])
def test_strategy_type_names_the_subject_as_confluent(kind, subject):
    conf = {"subject.name.strategy.type": kind}
    ck_conf = {"subject.name.strategy.type": getattr(kind, "value", kind)}
    ours, ours_reg, _, _ = both(conf)
    _, _, theirs, ck_reg = both(ck_conf)
    record = {"name": "ann"}
    assert ours(record, VALUE) == theirs(record, VALUE)
    assert ours_reg.get_subjects() == ck_reg.get_subjects() == [subject]


@pytest.mark.parametrize("conf", [
    {"subject.name.strategy.type": "NOPE"},
    {"subject.name.strategy.type": "NONE"},
    {"subject.name.strategy": "not callable"},
])
def test_bad_strategy_configuration_fails_as_confluent(conf):
    ours_reg, ck_reg = mocks()
    with pytest.raises(ValueError) as theirs:
        ck_avro.AvroSerializer(ck_reg, USER, conf=conf)
    with pytest.raises(ValueError) as ours:
        avro.AvroSerializer(ours_reg, USER, conf=conf)
    assert str(ours.value) == str(theirs.value)


def test_a_strategy_callable_wins_over_the_type():
    ours_reg, _ = mocks()
    ser = avro.AvroSerializer(ours_reg, USER, conf={
        "subject.name.strategy": lambda ctx, name: "chosen",
        "subject.name.strategy.type": "RECORD"})
    ser({"name": "x"}, VALUE)
    assert ours_reg.get_subjects() == ["chosen"]


# -- the associated strategy (the default) --------------------------------------------------


def test_default_strategy_is_the_association_falling_back_to_the_topic():
    ours, ours_reg, theirs, ck_reg = both(None)
    assert ours({"name": "a"}, VALUE) == theirs({"name": "a"}, VALUE)
    assert ours_reg.get_subjects() == ck_reg.get_subjects() == ["orders-value"]


@pytest.mark.parametrize("kind", ["value", "key"])
def test_associated_subject_is_used_as_by_confluent(kind):
    conf = {"subject.name.strategy.type": "ASSOCIATED",
            "subject.name.strategy.conf": {serde.KAFKA_CLUSTER_ID: "lkc-1"}}
    ours, ours_reg, theirs, ck_reg = both(conf)
    associate(ours_reg, "orders", "orders-contract", kind)
    associate(ck_reg, "orders", "orders-contract", kind, module=ck_sr)
    ctx = KEY if kind == "key" else VALUE
    assert ours({"name": "a"}, ctx) == theirs({"name": "a"}, ctx)
    assert ours_reg.get_subjects() == ck_reg.get_subjects() == ["orders-contract"]
    # the other field of the topic has no association: the topic strategy
    other = VALUE if kind == "key" else KEY
    ours({"name": "a"}, other)
    theirs({"name": "a"}, other)
    assert sorted(ours_reg.get_subjects()) == sorted(ck_reg.get_subjects())


def test_associated_strategy_failures_match_confluent():
    messages = []
    for reg, module, factory in ((mocks()[0], None, serde.AssociatedNameStrategy),
                                 (mocks()[1], ck_sr, ck_serde.AssociatedNameStrategy)):
        strategy = factory()
        associate(reg, "two", "s1", module=module)
        associate(reg, "two", "s2", module=module)
        with pytest.raises((SerializationError, CkSerializationError),
                           match="^Multiple associated subjects found for topic two$"):
            strategy(SerializationContext("two", MessageField.VALUE), None, reg, None)
        with pytest.raises((SerializationError, CkSerializationError),
                           match="^No associated subject found for topic none$"):
            strategy(SerializationContext("none", MessageField.VALUE), None, reg,
                     {serde.FALLBACK_TYPE: "NONE"})
        assert strategy(SerializationContext("none", MessageField.VALUE), "example.User", reg,
                        {serde.FALLBACK_TYPE: "TOPIC_RECORD"}) == "none-example.User"
        with pytest.raises(ValueError) as bad:
            strategy(SerializationContext("bad", MessageField.VALUE), None, reg,
                     {serde.FALLBACK_TYPE: "ASSOCIATED"})
        with pytest.raises(ValueError) as bogus:
            strategy(SerializationContext("bad", MessageField.VALUE), None, reg,
                     {serde.FALLBACK_TYPE: "BOGUS"})
        messages.append((str(bad.value), str(bogus.value)))
        with pytest.raises(ValueError, match="SerializationContext is required"):
            strategy(None, None, reg, None)
        assert strategy(SerializationContext(None, MessageField.VALUE), None, reg) is None
    assert messages[0] == messages[1]


def test_associated_strategy_resolves_the_cluster_id_lazily_and_caches_subjects():
    reg, _ = mocks()
    associate(reg, "orders", "in-lkc-1", namespace="lkc-1")
    associate(reg, "orders", "in-lkc-2", namespace="lkc-2")
    strategy = serde.AssociatedNameStrategy()
    calls = []
    strategy.set_cluster_id_resolver(lambda: calls.append(1) or "lkc-2")
    assert calls == []
    assert strategy(VALUE, None, reg) == "in-lkc-2"
    assert strategy(VALUE, None, reg) == "in-lkc-2"
    assert calls == [1]                     # the second answer came from the cache
    assert strategy(VALUE, None, reg, {serde.KAFKA_CLUSTER_ID: "lkc-1"}) == "in-lkc-2"
    strategy.clear_cache()
    assert strategy(VALUE, None, reg, {serde.KAFKA_CLUSTER_ID: "lkc-1"}) == "in-lkc-1"
    assert calls == [1]                     # a configured id: the resolver is not asked

    failing = serde.AssociatedNameStrategy()
    failing.set_cluster_id_resolver(lambda: (_ for _ in ()).throw(RuntimeError("no broker")))
    with pytest.raises(SerializationError, match="could not resolve the Kafka cluster id.*"
                                                 "no broker"):
        failing(VALUE, None, reg)
    empty = serde.AssociatedNameStrategy()
    empty.set_cluster_id_resolver(lambda: "")
    with pytest.raises(SerializationError, match="resolved to an empty string"):
        empty(VALUE, None, reg)


def test_a_serializer_hands_the_resolver_to_its_associated_strategy():
    reg, _ = mocks()
    associate(reg, "orders", "from-resolver", namespace="lkc-9")
    ser = avro.AvroSerializer(reg, USER)
    ser.set_cluster_id_resolver(lambda: "lkc-9")
    ser({"name": "a"}, VALUE)
    assert reg.get_subjects() == ["from-resolver"]
    topic_only = avro.AvroSerializer(reg, USER, conf={"subject.name.strategy.type": "TOPIC"})
    topic_only.set_cluster_id_resolver(lambda: pytest.fail("not needed"))
    topic_only({"name": "a"}, VALUE)


# -- build_serde ----------------------------------------------------------------------------


class Closing:
    def __init__(self):
        self.closed = 0

    def close(self):
        self.closed += 1


def test_build_serde_owns_the_client_it_made():
    made = serde.build_serde(None, {"url": "mock://build"},
                             lambda client: avro.AvroSerializer(client, USER))
    assert isinstance(made._registry, MockSchemaRegistryClient)
    given = SchemaRegistryClient({"url": "http://localhost:1"})
    kept = serde.build_serde(given, None, lambda client: avro.AvroSerializer(client, USER))
    assert kept._registry is given and not getattr(kept, "_owns_registry", False)
    assert made._owns_registry
    made.close()
    assert not made._owns_registry
    with pytest.raises(ValueError, match="^Cannot specify both a Schema Registry client and a "
                                         "configuration; use one or the other$"):
        serde.build_serde(given, {"url": "mock://x"}, lambda client: None)


def test_build_serde_closes_what_it_made_when_building_fails(monkeypatch):
    client = Closing()
    monkeypatch.setattr(SchemaRegistryClient, "new_client", staticmethod(lambda conf: client))
    with pytest.raises(KeyError):
        serde.build_serde(None, {"url": "http://x"}, lambda c: {}["boom"])
    assert client.closed == 1
    built = Closing()
    built.own_schema_registry_client = lambda: None

    def init(s):
        raise RuntimeError("init failed")

    with pytest.raises(RuntimeError, match="init failed"):
        serde.build_serde(None, {"url": "http://x"}, lambda c: built, init)
    assert built.closed == 1


# -- the serializing clients' helpers --------------------------------------------------------


def test_pop_serde_props_as_confluent():
    conf = {"bootstrap.servers": "b", "key.serializer": str, "value.serializer.builder": 1}
    specs, rest = serializing_producer.pop_serde_props(conf, "key.serializer",
                                                       "value.serializer")
    ck_specs, ck_rest = ck_sp.pop_serde_props(conf, "key.serializer", "value.serializer")
    assert [tuple(s) for s in specs] == [tuple(s) for s in ck_specs]
    assert rest == ck_rest == {"bootstrap.servers": "b"}
    assert "key.serializer" in conf          # not modified
    bad = {"key.serializer": str, "key.serializer.builder": 1}
    with pytest.raises(ValueError) as theirs:
        ck_sp.pop_serde_props(bad, "key.serializer", "value.serializer")
    with pytest.raises(ValueError, match="^%s$" % str(theirs.value).replace(".", r"\.")):
        serializing_producer.pop_serde_props(bad, "key.serializer", "value.serializer")


class Builder(SerializerBuilder):
    def __init__(self, consumes, fail=False):
        self.consumes = consumes
        self.fail = fail
        self.seen = None

    def build(self, conf, is_key):
        self.seen = dict(conf)
        if self.fail:
            raise RuntimeError("cannot build")
        return Closing(), {k: v for k, v in conf.items() if k != self.consumes}


@pytest.mark.parametrize("module", [serializing_producer, deserializing_consumer])
def test_build_serdes_as_confluent(module):
    conf = {"a": 1, "b": 2, "c": 3}
    specs, rest = module.pop_serde_props(
        dict(conf, **{"key.serializer.builder": Builder("a"),
                      "value.serializer.builder": Builder("b")}),
        "key.serializer", "value.serializer")
    serdes, owned, client_conf = module.build_serdes(specs, rest)
    assert client_conf == {"c": 3} and serdes == owned and len(owned) == 2
    assert specs[0].builder.seen == specs[1].builder.seen == conf   # both see the whole conf
    ck_specs, ck_rest = ck_dc.pop_serde_props(
        dict(conf, **{"key.serializer.builder": Builder("a"),
                      "value.serializer.builder": Builder("b")}),
        "key.serializer", "value.serializer")
    assert ck_dc.build_serdes(ck_specs, ck_rest)[2] == client_conf

    first = Builder("a")
    specs, rest = module.pop_serde_props({"key.serializer.builder": first,
                                          "value.serializer.builder": Builder("b", fail=True)},
                                         "key.serializer", "value.serializer")
    with pytest.raises(RuntimeError, match="cannot build"):
        module.build_serdes(specs, rest)

    class Bad(SerializerBuilder):
        def build(self, conf, is_key):
            return "nope"

    for helpers in (module, ck_sp):
        specs, rest = helpers.pop_serde_props({"value.serializer.builder": Bad()},
                                              "key.serializer", "value.serializer")
        with pytest.raises(ValueError) as err:
            helpers.build_serdes(specs, rest)
        if helpers is module:
            ours = str(err.value)
    assert ours == str(err.value)


def test_close_serdes_tries_all_and_raises_the_first():
    class Failing:
        def __init__(self, n):
            self.n = n

        def close(self):
            raise RuntimeError("close %d" % self.n)

    ok = Closing()
    with pytest.raises(RuntimeError, match="^close 1$"):
        serializing_producer.close_serdes([Failing(1), ok, Failing(2), str, None])
    assert ok.closed == 1


def test_shared_cluster_id_resolver_shares_one_call_in_flight():
    started, release = threading.Event(), threading.Event()
    calls = []

    def cluster_id(timeout):
        calls.append(timeout)
        started.set()
        release.wait(10)
        return "lkc-%d" % len(calls)

    resolver = serializing_producer.SharedClusterIdResolver(cluster_id, timeout=7)
    results = []
    first = threading.Thread(target=lambda: results.append(resolver()))
    first.start()
    assert started.wait(10)
    joined = [threading.Thread(target=lambda: results.append(resolver())) for _ in range(3)]
    for t in joined:
        t.start()
    # the first call finishes once the three others wait for its outcome
    pending = resolver._pending
    assert wait_until(lambda: len(pending._condition._waiters) == 3, lambda: time.sleep(0.001))
    release.set()
    for t in [first] + joined:
        t.join(10)
    assert calls == [7]
    assert results == ["lkc-1"] * 4
    assert resolver() == "lkc-2"             # nothing kept: a later caller calls again

    def failing(timeout):
        raise RuntimeError("down")

    with pytest.raises(RuntimeError, match="down"):
        serializing_producer.SharedClusterIdResolver(failing)()


def test_propagate_cluster_id_resolver_offers_it_to_serdes_that_take_it():
    got = []

    class Takes:
        def set_cluster_id_resolver(self, resolver):
            got.append(resolver)

    resolver = object()
    deserializing_consumer.propagate_cluster_id_resolver(resolver, [None, str, Takes(), Takes()])
    assert got == [resolver, resolver]


# -- the asyncio serdes over the in-memory registries ---------------------------------------


def test_async_serdes_are_awaited_and_frame_as_the_blocking_ones():
    async def main():
        client = AsyncSchemaRegistryClient.new_client({"url": "mock://async-unit"})
        pending = avro.AsyncAvroSerializer(client, USER)
        assert asyncio.iscoroutine(pending)
        ser = await pending
        de = await avro.AsyncAvroDeserializer(client)
        data = await ser({"name": "ann"}, VALUE)
        blocking = avro.AvroSerializer(client._client, USER)({"name": "ann"}, VALUE)
        assert data == blocking
        assert await de(data, VALUE) == {"name": "ann"}
        assert await ser(None, VALUE) is None
        # any asyncio client will do, as with confluent-kafka's serdes: here confluent-kafka's own
        theirs = ck_sr.AsyncSchemaRegistryClient.new_client({"url": "mock://ck-async"})
        framed = await (await avro.AsyncAvroSerializer(theirs, USER))({"name": "ann"}, VALUE)
        assert framed[:1] == b"\x00" and framed[5:] == data[5:]
        assert await theirs.get_subjects() == ["orders-value"]

    asyncio.run(main())


def test_async_builder_owns_the_client_it_made():
    async def main():
        closed = []
        init_seen = []

        async def init(s):
            init_seen.append(s)

        builder = avro.AsyncAvroSerializerBuilder().set_schema_registry_config(
            {"url": "mock://async-builder"}).set_schema(USER).set_serializer_init(init)
        pending = builder.build({"linger.ms": 5}, False)
        assert asyncio.iscoroutine(pending)
        ser, rest = await pending
        assert rest == {"linger.ms": 5} and init_seen == [ser]
        assert isinstance(ser, avro.AsyncAvroSerializer)
        ser._registry.aclose = lambda: closed.append(1) or asyncio.sleep(0)
        await ser.aclose()
        await ser.aclose()
        assert closed == [1]

    asyncio.run(main())


def test_serializing_clients_take_key_and_value_types_as_confluent():
    import confluent_kafka as ck
    from confluent_kafka import aio as ck_aio

    import confluent_binding as cb
    from confluent_binding import aio

    for ours, theirs in ((cb.SerializingProducer, ck.SerializingProducer),
                         (cb.DeserializingConsumer, ck.DeserializingConsumer),
                         (aio.AsyncSerializingProducer, ck_aio.AsyncSerializingProducer),
                         (aio.AsyncDeserializingConsumer, ck_aio.AsyncDeserializingConsumer)):
        assert ours[str, dict].__origin__ is ours
        assert theirs[str, dict].__args__ == ours[str, dict].__args__
    producer = cb.SerializingProducer[str, dict]({"key.serializer": str})
    assert type(producer) is cb.SerializingProducer
    producer.close()
