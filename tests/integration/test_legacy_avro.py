"""The legacy Avro clients (confluent_binding.avro) against the real Schema Registry and broker:
the registry client answers as confluent-kafka's does, method by method; AvroProducer and
AvroConsumer round-trip; the bytes are confluent-kafka's, read across both ways."""

import time
import uuid
import warnings

import pytest

pytest.importorskip("avro")
pytest.importorskip("requests")  # confluent-kafka's legacy client needs it

import confluent_kafka.avro as ck_avro  # noqa: E402

import confluent_binding as cb  # noqa: E402
import confluent_binding.avro as cb_avro  # noqa: E402

pytestmark = [pytest.mark.integration,
              pytest.mark.filterwarnings("ignore:Avro(Producer|Consumer) has been deprecated")]

USER = """{"type": "record", "name": "User", "namespace": "example",
 "fields": [{"name": "name", "type": "string"},
            {"name": "age", "type": ["null", "int"], "default": null},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "score", "type": "double"}]}"""
# what a reader that knows one field more (with its default) and one less sees
USER_READER = """{"type": "record", "name": "User", "namespace": "example",
 "fields": [{"name": "name", "type": "string"},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "score", "type": "double"},
            {"name": "country", "type": "string", "default": "NO"}]}"""
# USER and a field with a default: a fully compatible next version
USER_V2 = USER[:-2] + ',\n            {"name": "country", "type": "string", "default": "NO"}]}'
KEY = '{"type": "record", "name": "Key", "fields": [{"name": "id", "type": "long"}]}'
INCOMPATIBLE = ('{"type": "record", "name": "User", "namespace": "example", '
                '"fields": [{"name": "name", "type": "int"}]}')
NAME_ONLY = ('{"type": "record", "name": "User", "namespace": "example", '
             '"fields": [{"name": "name", "type": "string"}]}')
RECORDS = [({"id": 1}, {"name": "ann", "age": 31, "tags": ["a", "b"], "score": 0.5}),
           ({"id": -2**40}, {"name": "żółw", "age": None, "tags": [], "score": -1e300}),
           ({"id": 3}, {"name": "", "age": -5, "tags": ["ü"], "score": 2.0})]


def registry_scenario(side, url):
    """Every method of the registry client, in the order an application meets them; what each
    answers (or raises), with the run's subject names masked."""
    client = side.CachedSchemaRegistryClient({"url": url})
    subject = "legacy-" + uuid.uuid4().hex
    schema = side.loads(USER)
    out = []

    def call(f):
        try:
            out.append(f())
        except side.ClientError as e:
            out.append(("ClientError", str(e).replace(subject, "<subject>")[:60]))

    call(lambda: client.check_registration(subject, schema))
    call(lambda: client.get_version(subject, schema))
    schema_id = client.register(subject, schema)
    assert client.register(subject, schema) == schema_id  # from the cache
    fresh = side.CachedSchemaRegistryClient({"url": url})
    call(lambda: fresh.check_registration(subject, schema) == schema_id)
    call(lambda: fresh.get_version(subject, schema))
    call(lambda: str(fresh.get_by_id(schema_id)) == str(schema))
    call(lambda: fresh.get_by_id(2**31 - 1))
    call(lambda: fresh.get_latest_schema(subject)[::2] == (schema_id, 1))
    call(lambda: str(fresh.get_by_version(subject, 1)[1]) == str(schema))
    call(lambda: fresh.get_by_version(subject, 7))
    call(lambda: fresh.get_latest_schema("missing-" + subject))
    call(lambda: fresh.test_compatibility(subject, side.loads(NAME_ONLY)))
    call(lambda: fresh.test_compatibility("missing-" + subject, side.loads(NAME_ONLY)))
    call(lambda: fresh.update_compatibility("FULL", subject))
    call(lambda: fresh.get_compatibility(subject))
    call(lambda: fresh.update_compatibility("SOME", subject))
    call(lambda: fresh.register(subject, side.loads(INCOMPATIBLE)))
    call(lambda: fresh.register(subject, side.loads(USER_V2)) > schema_id)
    call(lambda: fresh.get_latest_schema(subject)[2])
    call(lambda: fresh.delete_subject(subject))
    call(lambda: fresh.get_latest_schema(subject)[::2])  # what a registry keeps varies
    client.close()
    fresh.close()
    return out


def test_registry_client_answers_as_confluents(schema_registry):
    ours = registry_scenario(cb_avro, schema_registry.url)
    theirs = registry_scenario(ck_avro, schema_registry.url)
    assert ours == theirs
    # and the answers are the registry's, not a client's failure to ask
    assert ours[0] == ("ClientError", "Schema or subject not found:404")
    assert ours[2:5] == [True, 1, True]
    assert ours[-3:-1] == [2, [1, 2]]


def produce(side, conf, url, topic, records, **schemas):
    producer = side.AvroProducer(dict(conf, **{"schema.registry.url": url}), **schemas)
    for key, value in records:
        producer.produce(topic=topic, key=key, value=value)
    assert producer.flush(30) == 0


def consume(side, conf, url, topic, count, **readers):
    consumer = side.AvroConsumer(dict(conf, **{
        "schema.registry.url": url, "group.id": uuid.uuid4().hex,
        "auto.offset.reset": "earliest"}), **readers)
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    while len(got) < count and time.monotonic() < deadline:
        msg = consumer.poll(1)
        if msg is not None:
            assert msg.error() is None
            got.append((msg.key(), msg.value()))
    consumer.close()
    return got


def raw(conf, topic, count):
    consumer = cb.Consumer(dict(conf, **{"group.id": uuid.uuid4().hex,
                                         "auto.offset.reset": "earliest"}))
    consumer.subscribe([topic])
    got = []
    deadline = time.monotonic() + 60
    while len(got) < count and time.monotonic() < deadline:
        msg = consumer.poll(1)
        if msg is not None and msg.error() is None:
            got.append((msg.key(), msg.value()))
    consumer.close()
    return got


@pytest.mark.parametrize("writer,reader", [(cb_avro, cb_avro), (cb_avro, ck_avro),
                                           (ck_avro, cb_avro)],
                         ids=["ours-ours", "ours-confluent", "confluent-ours"])
def test_round_trip_and_across(kafka_cluster, make_topic, schema_registry, writer, reader):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    produce(writer, conf, schema_registry.url, topic, RECORDS,
            default_key_schema=writer.loads(KEY), default_value_schema=writer.loads(USER))
    assert consume(reader, conf, schema_registry.url, topic, 3) == RECORDS


def test_the_bytes_are_confluents(kafka_cluster, make_topic, schema_registry):
    # the same records written by both, under the same subjects: byte for byte the same
    # messages (magic byte, the registry's id, the Avro binary encoding)
    conf = kafka_cluster.client_config()
    topic = make_topic()
    for side in (cb_avro, ck_avro):
        produce(side, conf, schema_registry.url, topic, RECORDS,
                default_key_schema=side.loads(KEY), default_value_schema=side.loads(USER))
    messages = raw(conf, topic, 6)
    assert messages[:3] == messages[3:]
    key_id = cb_avro.CachedSchemaRegistryClient({"url": schema_registry.url}).register(
        topic + "-key", cb_avro.loads(KEY))
    for key, value in messages:
        assert key[:5] == b"\x00" + key_id.to_bytes(4, "big")
        assert value[0] == 0 and value[1:5] != key[1:5]
    assert messages[0][0][5:] == b"\x02"  # zig-zag long 1


def test_reader_schema_resolves_what_was_written(kafka_cluster, make_topic, schema_registry):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    produce(cb_avro, conf, schema_registry.url, topic, RECORDS,
            default_key_schema=cb_avro.loads(KEY), default_value_schema=cb_avro.loads(USER))
    expected = [(k, {"name": v["name"], "tags": v["tags"], "score": v["score"],
                     "country": "NO"}) for k, v in RECORDS]
    for side in (cb_avro, ck_avro):
        assert consume(side, conf, schema_registry.url, topic, 3,
                       reader_value_schema=side.loads(USER_READER)) == expected


def test_schemas_per_produce_and_registration_off(kafka_cluster, make_topic, schema_registry):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    url = schema_registry.url
    # a value-only message with its schema given to produce(), and a keyless one
    producer = cb_avro.AvroProducer(dict(conf, **{"schema.registry.url": url}))
    producer.produce(topic=topic, value=RECORDS[0][1], value_schema=cb_avro.loads(USER),
                     headers=[("h", b"1")])
    assert producer.flush(30) == 0
    # with auto.register.schemas off an unregistered key schema is an error, the registered
    # value schema is found
    strict = cb_avro.AvroProducer(dict(conf, **{
        "schema.registry.url": url, "schema.registry.auto.register.schemas": False}),
        default_key_schema=cb_avro.loads(KEY), default_value_schema=cb_avro.loads(USER))
    with pytest.raises(cb_avro.ClientError, match="Schema or subject not found:404"):
        strict.produce(topic=topic, key={"id": 1}, value=RECORDS[0][1])
    strict.produce(topic=topic, value=RECORDS[1][1])
    assert strict.flush(30) == 0
    assert consume(ck_avro, conf, url, topic, 2) == [(None, RECORDS[0][1]),
                                                     (None, RECORDS[1][1])]


def test_undecodable_message_names_where_it_is(kafka_cluster, make_topic, schema_registry):
    topic = make_topic()
    conf = kafka_cluster.client_config()
    p = cb.Producer(conf)
    p.produce(topic, value=b"\x01not avro")
    p.produce(topic, value=b"\x00\x7f\xff\xff\xf0\x02")  # an id the registry does not have
    assert p.flush(30) == 0
    errors = {}
    for side in (cb_avro, ck_avro):
        consumer = side.AvroConsumer(dict(conf, **{
            "schema.registry.url": schema_registry.url, "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest"}))
        consumer.subscribe([topic])
        seen = []
        deadline = time.monotonic() + 60
        while len(seen) < 2 and time.monotonic() < deadline:
            try:
                consumer.poll(1)
            except side.SerializerError as e:
                seen.append(str(e))
        consumer.close()
        errors[side] = seen
    assert errors[cb_avro] == errors[ck_avro] == [
        "Message deserialization failed for message at %s [0] offset 0: message does not "
        "start with magic byte" % topic,
        "Message deserialization failed for message at %s [0] offset 1: unable to fetch "
        "schema with id 2147483632" % topic]


def test_deprecation_warnings_point_at_the_caller(kafka_cluster, schema_registry):
    conf = kafka_cluster.client_config({"schema.registry.url": schema_registry.url})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cb_avro.AvroProducer(dict(conf))
        cb_avro.AvroConsumer(dict(conf, **{"group.id": "g"}))
    assert [(w.category, str(w.message), w.filename) for w in caught] == [
        (DeprecationWarning, "AvroProducer has been deprecated. Use AvroSerializer instead.",
         __file__),
        (DeprecationWarning, "AvroConsumer has been deprecated. Use AvroDeserializer instead.",
         __file__)]
