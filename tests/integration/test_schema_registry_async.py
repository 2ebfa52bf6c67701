"""The asyncio Schema Registry serdes and the configuration-driven subject names against the real
registry and the real broker.

Every format round-trips through AsyncSerializingProducer/AsyncDeserializingConsumer with the
asyncio serdes, and the bytes match confluent-kafka's asyncio serdes (talking to the same
registry) both ways; the builders make their own registry client; the event loop keeps running
while a serde waits on the registry; the associated subject name strategy (the default, as in
confluent-kafka 2.16) asks the registry under the producer's cluster id and falls back to the
topic, as confluent-kafka's does.
"""
import asyncio
import time
import uuid

import pytest

pytest.importorskip("fastavro")
pytest.importorskip("jsonschema")
pytest.importorskip("google.protobuf")

import confluent_kafka as ck  # noqa: E402
import confluent_kafka.schema_registry as ck_sr  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import json_schema as ck_json  # noqa: E402
from confluent_kafka.schema_registry import protobuf as ck_pb  # noqa: E402

import confluent_binding as cb  # noqa: E402
from confluent_binding.aio import AsyncDeserializingConsumer, AsyncSerializingProducer  # noqa: E402
from confluent_binding.error import ValueSerializationError  # noqa: E402
from confluent_binding.schema_registry import (  # noqa: E402
    AsyncSchemaRegistryClient,
    SchemaRegistryClient,
    SchemaRegistryError,
    avro,
    json_schema,
    protobuf,
    serde,
)
from confluent_binding.serialization import (  # noqa: E402
    MessageField,
    SerializationContext,
    StringDeserializer,
    StringSerializer,
)

from tests.integration.test_schema_registry_serdes import (  # noqa: E402
    AVRO_USER,
    DICTS,
    JSON_USER,
    ORDER,
    records_for,
)
from tests.support.http_gate import HttpGate  # noqa: E402

pytestmark = pytest.mark.integration

PB_DE_CONF = {"use.deprecated.format": False}


async def async_serdes(side, fmt, url):
    """(value serializer, value deserializer, registry client): ours or confluent-kafka's
    asyncio serdes, each side with its own asyncio registry client (the caller closes it)."""
    if side == "ours":
        client, av, js, pb = AsyncSchemaRegistryClient({"url": url}), avro, json_schema, protobuf
    else:
        client, av, js, pb = ck_sr.AsyncSchemaRegistryClient({"url": url}), ck_avro, ck_json, ck_pb
    if fmt == "avro":
        return (await av.AsyncAvroSerializer(client, AVRO_USER),
                await av.AsyncAvroDeserializer(client), client)
    if fmt == "json":
        return (await js.AsyncJSONSerializer(JSON_USER, client),
                await js.AsyncJSONDeserializer(JSON_USER, schema_registry_client=client), client)
    return (await pb.AsyncProtobufSerializer(ORDER, client),
            await pb.AsyncProtobufDeserializer(ORDER, PB_DE_CONF, client), client)


async def take(consumer, count, timeout=60):
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < count:
        assert time.monotonic() < deadline, "consumed %d of %d" % (len(got), count)
        msg = await consumer.poll(1.0)
        if msg is not None:
            got.append(msg)
    return got


def consumer_conf(kafka_cluster, **extra):
    return dict(kafka_cluster.client_config(), **{
        "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest"}, **extra)


@pytest.mark.asyncio
@pytest.mark.parametrize("fmt", ["avro", "json", "protobuf"])
async def test_async_round_trip_and_the_same_bytes_as_confluent(kafka_cluster, schema_registry,
                                                                make_topic, fmt):
    url, topic, records = schema_registry.url, make_topic(), records_for(fmt)
    ser, de, client = await async_serdes("ours", fmt, url)
    ck_ser, ck_de, ck_client = await async_serdes("confluent", fmt, url)
    try:
        await _round_trip_and_compare(kafka_cluster, url, topic, records, fmt, ser, de,
                                      ck_ser, ck_de)
    finally:
        await client.aclose()
        await ck_client.aclose()


async def _round_trip_and_compare(kafka_cluster, url, topic, records, fmt, ser, de, ck_ser,
                                  ck_de):
    producer = await AsyncSerializingProducer(dict(kafka_cluster.client_config(), **{
        "key.serializer": StringSerializer(), "value.serializer": ser}))
    futures = [await producer.produce(topic, key="k%d" % i, value=r)
               for i, r in enumerate(records)]
    delivered = [await f for f in futures]
    await producer.close()
    ours_bytes = [m.value() for m in delivered]
    assert all(b[:1] == b"\x00" for b in ours_bytes)

    consumer = await AsyncDeserializingConsumer(consumer_conf(kafka_cluster, **{
        "key.deserializer": StringDeserializer(), "value.deserializer": de}))
    await consumer.subscribe([topic])
    got = await take(consumer, len(records))
    await consumer.close()
    assert [(m.key(), m.value()) for m in got] == [("k%d" % i, r) for i, r in enumerate(records)]

    ctx = SerializationContext(topic, MessageField.VALUE)
    ck_bytes = [await ck_ser(r, ctx) for r in records]
    assert ck_bytes == ours_bytes                       # the same id, the same encoding
    assert [await ck_de(b, ctx) for b in ours_bytes] == records
    assert [await de(b, ctx) for b in ck_bytes] == records
    # and the blocking serdes read and write the same
    with SchemaRegistryClient({"url": url}) as blocking:
        if fmt == "avro":
            assert ([avro.AvroSerializer(blocking, AVRO_USER)(r, ctx) for r in records]
                    == ours_bytes)
        registered = blocking.get_latest_version(topic + "-value")
    assert int.from_bytes(ours_bytes[0][1:5], "big") == registered.schema_id


@pytest.mark.asyncio
@pytest.mark.parametrize("fmt", ["avro", "json", "protobuf"])
async def test_async_serializer_keeps_the_schema_id_it_framed_with_as_confluent(schema_registry,
                                                                                fmt):
    """confluent-kafka's asyncio Protobuf reference test reads ``serializer._schema_id`` after
    serializing: each side's asyncio serializer keeps the id (and Protobuf's message indexes)
    its record was framed with, the one the registry gives the subject."""
    seen = {}
    for side in ("ours", "confluent"):
        ser, _, client = await async_serdes(side, fmt, schema_registry.url)
        try:
            before = ser._schema_id
            topic = "sid-%s-%s" % (side, uuid.uuid4().hex[:10])
            framed = await ser(records_for(fmt)[0], SerializationContext(topic,
                                                                         MessageField.VALUE))
            sid = ser._schema_id
            registered = await client.get_latest_version(topic + "-value")
            assert (sid.id, int.from_bytes(framed[1:5], "big")) == (registered.schema_id,) * 2
            refs = [(r.name, r.subject) for r in (await client.get_schema(sid.id)).references]
            seen[side] = (before, type(sid).__name__, sid.message_indexes, refs)
        finally:
            await client.aclose()
    expected_refs = [("common/address.proto", "common/address.proto")] if fmt == "protobuf" \
        else []
    assert seen["ours"] == seen["confluent"] == (
        None, "SchemaId", [1] if fmt == "protobuf" else None, expected_refs)


def builders(fmt, url):
    """(serializer builder, deserializer builder) of ``fmt``, each making its own client."""
    conf = {"url": url}
    if fmt == "avro":
        return (avro.AsyncAvroSerializerBuilder().set_schema_registry_config(conf)
                .set_schema(AVRO_USER), avro.AsyncAvroDeserializerBuilder(conf, None, AVRO_USER))
    if fmt == "json":
        return (json_schema.AsyncJSONSerializerBuilder().set_schema_registry_config(conf)
                .set_schema(JSON_USER),
                json_schema.AsyncJSONDeserializerBuilder().set_schema_registry_config(conf)
                .set_schema(JSON_USER))
    return (protobuf.AsyncProtobufSerializerBuilder().set_schema_registry_config(conf)
            .set_message_type(ORDER),
            protobuf.AsyncProtobufDeserializerBuilder().set_schema_registry_config(conf)
            .set_message_type(ORDER).set_deserializer_config(PB_DE_CONF))


@pytest.mark.asyncio
@pytest.mark.parametrize("fmt", ["avro", "json", "protobuf"])
async def test_builders_make_their_own_registry_client(kafka_cluster, schema_registry,
                                                       make_topic, fmt):
    topic, records = make_topic(), records_for(fmt)
    ser_builder, de_builder = builders(fmt, schema_registry.url)
    inits = []

    async def init(serializer):
        inits.append(serializer)

    ser_builder.set_serializer_init(init)
    producer = await AsyncSerializingProducer(dict(kafka_cluster.client_config(), **{
        "value.serializer.builder": ser_builder}))
    assert inits[0]._owns_registry
    futures = [await producer.produce(topic, key=b"k%d" % i, value=r)
               for i, r in enumerate(records)]
    assert [(await f).offset() for f in futures] == list(range(len(records)))
    await producer.close()
    assert not inits[0]._owns_registry                  # closed with the producer

    consumer = await AsyncDeserializingConsumer(consumer_conf(kafka_cluster, **{
        "value.deserializer.builder": de_builder}))
    await consumer.subscribe([topic])
    got = await take(consumer, 1)
    deadline = time.monotonic() + 60
    while len(got) < len(records) and time.monotonic() < deadline:
        got += await consumer.consume(len(records), 1.0)   # consume() deserializes too
    await consumer.close()
    assert [(m.key(), m.value()) for m in got] == [(b"k%d" % i, r) for i, r in enumerate(records)]


@pytest.mark.asyncio
async def test_the_loop_keeps_running_while_a_serde_waits_on_the_registry(schema_registry,
                                                                          make_topic):
    topic = make_topic()
    ctx = SerializationContext(topic, MessageField.VALUE)
    loop = asyncio.get_running_loop()
    with HttpGate(schema_registry.url) as gate:
        client = AsyncSchemaRegistryClient({"url": gate.url})
        ser = await avro.AsyncAvroSerializer(client, AVRO_USER,
                                             conf={"subject.name.strategy.type": "TOPIC"})
        assert gate.request_count() == 0
        release = gate.hold()
        pending = asyncio.ensure_future(ser(DICTS[0], ctx))
        # the registration is held at the gate: this await is served by the loop meanwhile
        assert await loop.run_in_executor(None, gate.arrived.wait, 30)
        assert not pending.done()
        release.set()
        data = await pending
        gate.release = None
        requests = gate.request_count()
        # the subject is known now: later calls need no request and stay on the loop
        again = ser(DICTS[0], ctx)
        assert await again == data
        assert gate.request_count() == requests
        de = await avro.AsyncAvroDeserializer(client)
        assert await de(data, ctx) == DICTS[0]         # the writer's schema id was cached


def associations_requested(gate):
    return [r.path for r in gate.requests if "/associations/" in r.path]


@pytest.mark.asyncio
async def test_default_subjects_ask_for_the_topics_association_under_the_cluster_id(
        kafka_cluster, schema_registry, make_topic):
    # Apicurio has no associations API: it answers 404, which means "no association"
    with pytest.raises(SchemaRegistryError) as no_api:
        SchemaRegistryClient({"url": schema_registry.url}).get_associations_by_resource_name(
            "t", "-")
    assert no_api.value.http_status_code == 404

    topic = make_topic()
    paths = {}
    for side in ("ours", "confluent"):
        with HttpGate(schema_registry.url) as gate:
            if side == "ours":
                producer = await AsyncSerializingProducer(dict(kafka_cluster.client_config(), **{
                    "value.serializer": await avro.AsyncAvroSerializer(
                        AsyncSchemaRegistryClient({"url": gate.url}), AVRO_USER)}))
                await (await producer.produce(topic, value=DICTS[0]))
                cluster_id = await producer.cluster_id(10)
                await producer.close()
            else:
                from confluent_kafka.aio import AsyncSerializingProducer as CkProducer

                producer = await CkProducer(dict(kafka_cluster.client_config(), **{
                    "value.serializer": await ck_avro.AsyncAvroSerializer(
                        ck_sr.AsyncSchemaRegistryClient({"url": gate.url}), AVRO_USER)}))
                await (await producer.produce(topic, value=DICTS[0]))
                await producer.close()
            paths[side] = associations_requested(gate)
    assert cluster_id
    assert len(paths["ours"]) == 1
    assert paths["ours"][0].split("?")[0].endswith(
        "/associations/resources/%s/%s" % (cluster_id, topic))
    assert "resourceType=topic" in paths["ours"][0]
    assert "associationType=value" in paths["ours"][0]
    assert [p.split("?")[0] for p in paths["ours"]] == [p.split("?")[0] for p in paths["confluent"]]
    assert SchemaRegistryClient({"url": schema_registry.url}).get_subjects().count(
        topic + "-value") == 1


def test_blocking_serializing_producer_resolves_the_cluster_id_as_confluent(
        kafka_cluster, schema_registry, make_topic):
    topic = make_topic()
    paths = {}
    for side, module, sr, av in (("ours", cb, SchemaRegistryClient, avro),
                                 ("confluent", ck, ck_sr.SchemaRegistryClient, ck_avro)):
        with HttpGate(schema_registry.url) as gate:
            producer = module.SerializingProducer(dict(kafka_cluster.client_config(), **{
                "value.serializer": av.AvroSerializer(sr({"url": gate.url}), AVRO_USER)}))
            producer.produce(topic, value=DICTS[0])
            assert producer.flush(30) == 0
            cluster_id = producer.list_topics(timeout=10).cluster_id
            producer.close()
            paths[side] = [p.split("?")[0] for p in associations_requested(gate)]
    assert paths["ours"] == paths["confluent"]
    assert len(paths["ours"]) == 1
    assert paths["ours"][0].endswith("/associations/resources/%s/%s" % (cluster_id, topic))


@pytest.mark.parametrize("side", ["ours", "confluent"])
def test_no_association_with_fallback_none_fails_as_confluent(kafka_cluster, schema_registry,
                                                              make_topic, side):
    topic = make_topic()
    module, sr, av = ((cb, SchemaRegistryClient, avro) if side == "ours"
                      else (ck, ck_sr.SchemaRegistryClient, ck_avro))
    ser = av.AvroSerializer(sr({"url": schema_registry.url}), AVRO_USER, conf={
        "subject.name.strategy.type": "ASSOCIATED",
        "subject.name.strategy.conf": {serde.FALLBACK_TYPE: "NONE",
                                       serde.KAFKA_CLUSTER_ID: "lkc-test"}})
    producer = module.SerializingProducer(dict(kafka_cluster.client_config(), **{
        "value.serializer": ser}))
    errors = (ValueSerializationError, ck.error.ValueSerializationError)
    with pytest.raises(errors) as err:
        producer.produce(topic, value=DICTS[0])
    producer.close()
    error = err.value.args[0]
    assert error.code() == cb.KafkaError._VALUE_SERIALIZATION
    assert error.str() == "No associated subject found for topic %s" % topic


@pytest.mark.asyncio
async def test_async_deserializing_consumer_raises_for_bad_payloads(kafka_cluster,
                                                                   schema_registry, make_topic):
    topic = make_topic()
    plain = cb.Producer(kafka_cluster.client_config())
    plain.produce(topic, b"\x07not framed")
    assert plain.flush(30) == 0
    plain.close()
    de = await avro.AsyncAvroDeserializer(AsyncSchemaRegistryClient({"url": schema_registry.url}))
    consumer = await AsyncDeserializingConsumer(consumer_conf(kafka_cluster, **{
        "value.deserializer": de}))
    await consumer.subscribe([topic])
    deadline = time.monotonic() + 60
    with pytest.raises(cb.error.ValueDeserializationError) as err:
        while time.monotonic() < deadline:
            await consumer.poll(1.0)
    await consumer.close()
    assert err.value.kafka_message.value() == b"\x07not framed"
    assert "Invalid magic byte" in str(err.value)


@pytest.mark.asyncio
async def test_many_first_serializations_at_once_share_the_cluster_id(kafka_cluster,
                                                                      schema_registry,
                                                                      make_topic):
    # more subjects looked up at once than the loop's default executor has workers: each
    # look-up waits in a worker for the cluster id, which must not need a worker itself
    topics = [make_topic() for _ in range(10)]
    with HttpGate(schema_registry.url) as gate:
        producer = await AsyncSerializingProducer(dict(kafka_cluster.client_config(), **{
            "value.serializer": await avro.AsyncAvroSerializer(
                AsyncSchemaRegistryClient({"url": gate.url}), AVRO_USER)}))
        futures = await asyncio.wait_for(asyncio.gather(
            *(producer.produce(t, value=DICTS[0]) for t in topics)), 120)
        delivered = [await f for f in futures]
        cluster_id = await producer.cluster_id(10)
        await producer.close()
        looked_up = sorted(p.split("?")[0].rsplit("/", 2)[1:] for p in associations_requested(gate))
    assert sorted(m.topic() for m in delivered) == sorted(topics)
    assert looked_up == sorted([cluster_id, t] for t in topics)
    subjects = SchemaRegistryClient({"url": schema_registry.url}).get_subjects()
    assert all(t + "-value" in subjects for t in topics)
