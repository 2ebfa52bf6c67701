"""The Schema Registry serdes' framing and encodings, side by side with confluent-kafka's.

These run without a registry: both sides get an in-memory registry (ours a small dict-backed
one below, confluent's its MockSchemaRegistryClient), each numbering schemas from 1, so the
bytes must match exactly. The serdes against a real registry are tested in
tests/integration/test_schema_registry_serdes.py.
"""

import io

import pytest

pytest.importorskip("fastavro")
pytest.importorskip("jsonschema")
pytest.importorskip("google.protobuf")
pytest.importorskip("confluent_kafka")  # the peer these tests compare with

from confluent_kafka.schema_registry import Schema as CkSchema  # noqa: E402
from confluent_kafka.schema_registry import SchemaReference as CkRef  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import json_schema as ck_json  # noqa: E402
from confluent_kafka.schema_registry import protobuf as ck_pb  # noqa: E402
from confluent_kafka.schema_registry._sync.mock_schema_registry_client import (  # noqa: E402
    MockSchemaRegistryClient,
)
from confluent_kafka.serialization import SerializationError as CkSerializationError  # noqa: E402

from confluent_binding.schema_registry import avro, json_schema, protobuf, serde  # noqa: E402
from confluent_binding.schema_registry.schema_registry_client import Schema, SchemaReference  # noqa: E402
from confluent_binding.serialization import MessageField, SerializationContext, SerializationError  # noqa: E402

from tests.support.protobuf_messages import build_messages  # noqa: E402


class Registered:
    def __init__(self, schema_id, schema, subject, version):
        self.schema_id, self.schema, self.subject, self.version, self.guid = (
            schema_id,
            schema,
            subject,
            version,
            None,
        )


class DictRegistry:
    """Just enough of a registry for the framing tests: ids from 1, versions per subject."""

    def __init__(self):
        self.by_id = {}
        self.subjects = {}
        self.calls = []

    def _key(self, schema):
        return schema.schema_str, tuple(
            (r.name, r.subject, r.version) for r in schema.references or ()
        )

    def register_schema(self, subject, schema, normalize_schemas=False):
        self.calls.append(("register", subject))
        for sid, known in self.by_id.items():
            if self._key(known) == self._key(schema):
                break
        else:
            sid = len(self.by_id) + 1
            self.by_id[sid] = schema
        versions = self.subjects.setdefault(subject, [])
        if sid not in versions:
            versions.append(sid)
        return sid

    def lookup_schema(self, subject, schema, normalize_schemas=False, deleted=False):
        self.calls.append(("lookup", subject))
        for version, sid in enumerate(self.subjects.get(subject, []), 1):
            if self._key(self.by_id[sid]) == self._key(schema):
                return Registered(sid, self.by_id[sid], subject, version)
        raise LookupError("Subject %s not found" % subject)

    def get_schema(self, schema_id, subject_name=None, fmt=None):
        if schema_id not in self.by_id:
            raise LookupError("Schema %d not found" % schema_id)
        return self.by_id[schema_id]

    def get_version(self, subject_name, version, deleted=False, fmt=None):
        sid = self.subjects[subject_name][version - 1]
        return Registered(sid, self.by_id[sid], subject_name, version)

    def get_latest_version(self, subject_name, fmt=None):
        return self.get_version(subject_name, len(self.subjects[subject_name]))

    def get_associations_by_resource_name(self, resource_name, resource_namespace,
                                          resource_type=None, association_types=None,
                                          offset=0, limit=-1):
        # the serdes' default (associated) subject name strategy asks first: none here
        return []


VALUE = SerializationContext("orders", MessageField.VALUE)
KEY = SerializationContext("orders", MessageField.KEY)

USER = """{"type": "record", "name": "User", "namespace": "example",
 "fields": [{"name": "name", "type": "string"},
            {"name": "age", "type": ["null", "int"], "default": null},
            {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []}]}"""
USER_RECORDS = [
    {"name": "ann", "age": 31, "tags": ["a", "b"]},
    {"name": "żółw", "age": None, "tags": []},
]


# -- wire format ----------------------------------------------------------------------------


@pytest.mark.parametrize("indexes", [[0], [1], [0, 0], [2, 1, 3], [64], [1000, 0]])
def test_message_indexes_match_confluent(indexes):
    from confluent_kafka.schema_registry.serde import SchemaId as CkSchemaId

    ours = serde.SchemaId("PROTOBUF", 70000, message_indexes=indexes).id_to_bytes()
    assert ours == CkSchemaId("PROTOBUF", 70000, message_indexes=indexes).id_to_bytes()
    back = serde.SchemaId("PROTOBUF")
    rest = back.from_bytes(io.BytesIO(ours + b"tail"))
    assert (back.id, back.message_indexes, rest.read()) == (70000, indexes, b"tail")


def test_schema_id_framing():
    assert serde.SchemaId("AVRO", 258).id_to_bytes() == b"\x00\x00\x00\x01\x02"
    with pytest.raises(SerializationError, match="^Invalid magic byte$"):
        serde.SchemaId("AVRO").from_bytes(io.BytesIO(b"\x07\x00\x00\x00\x01x"))
    guid = "0f8fad5b-d9cb-469f-a165-70867728950e"
    sid = serde.SchemaId("AVRO", guid=guid)
    headers = []
    ctx = SerializationContext("t", MessageField.KEY, headers)
    assert serde.header_schema_id_serializer(b"payload", ctx, sid) == b"payload"
    assert headers == [("__key_schema_id", b"\x01" + sid.guid.bytes)]
    read = serde.SchemaId("AVRO")
    assert serde.dual_schema_id_deserializer(b"payload", ctx, read).read() == b"payload"
    assert str(read.guid) == guid


def test_subject_name_strategies_match_confluent():
    import confluent_kafka.schema_registry as ck_sr

    for name in (
        "topic_subject_name_strategy",
        "topic_record_subject_name_strategy",
        "record_subject_name_strategy",
    ):
        for ctx in (VALUE, KEY):
            for record in ("example.User", None):
                assert getattr(serde, name)(ctx, record) == getattr(ck_sr, name)(ctx, record)
    with pytest.raises(
        ValueError, match="SerializationContext is required for topic_subject_name_strategy"
    ):
        serde.topic_subject_name_strategy(None, "x")


# -- Avro ------------------------------------------------------------------------------------


def pair_avro(schema_str=USER, conf=None, to_dict=None):
    ours = avro.AvroSerializer(DictRegistry(), schema_str, to_dict=to_dict, conf=conf)
    theirs = ck_avro.AvroSerializer(
        MockSchemaRegistryClient({"url": "mock://"}), schema_str, to_dict=to_dict, conf=conf
    )
    return ours, theirs


@pytest.mark.parametrize(
    "schema_str,records",
    [
        (USER, USER_RECORDS),
        ('"string"', ["x", "ü" * 100]),
        ('{"type": "long"}', [0, -1, 2**62]),
        ('"bytes"', [b"\x00raw"]),
        ('["null", "string", "int"]', ["s", 5]),
    ],
)
def test_avro_bytes_match_confluent(schema_str, records):
    ours, theirs = pair_avro(schema_str)
    for record in records:
        got = ours(record, VALUE)
        assert got == theirs(record, VALUE)
        assert got[:5] == b"\x00\x00\x00\x00\x01"


def test_avro_round_trip_both_ways_with_hooks():
    ours_reg, ck_reg = DictRegistry(), MockSchemaRegistryClient({"url": "mock://"})

    class User:
        def __init__(self, name, age, tags):
            self.name, self.age, self.tags = name, age, tags

    def to_dict(user, ctx):
        assert ctx.field == "value"
        return vars(user)

    def from_dict(d, ctx):
        return User(**d)

    ser = avro.AvroSerializer(ours_reg, USER, to_dict=to_dict)
    ck_ser = ck_avro.AvroSerializer(ck_reg, USER)
    de = avro.AvroDeserializer(ours_reg, from_dict=from_dict)
    ck_de = ck_avro.AvroDeserializer(ck_reg)
    for record in USER_RECORDS:
        theirs = ck_ser(record, VALUE)  # registers id 1 with confluent's in-memory registry
        data = ser(User(**record), VALUE)
        assert data == theirs
        assert vars(de(data, VALUE)) == record
        assert ck_de(data, VALUE) == record
        assert vars(de(theirs, VALUE)) == record
    assert ours_reg.subjects == {"orders-value": [1]}
    assert ours_reg.calls == [("register", "orders-value")]


def test_avro_record_strategies_and_lookup():
    reg = DictRegistry()
    ser = avro.AvroSerializer(
        reg, USER, conf={"subject.name.strategy": serde.record_subject_name_strategy}
    )
    ser(USER_RECORDS[0], VALUE)
    assert list(reg.subjects) == ["example.User"]
    ser2 = avro.AvroSerializer(
        reg,
        USER,
        conf={
            "auto.register.schemas": False,
            "subject.name.strategy": serde.topic_record_subject_name_strategy,
        },
    )
    with pytest.raises(LookupError, match="orders-example.User"):
        ser2(USER_RECORDS[0], VALUE)
    reg.register_schema("orders-example.User", avro._schema_loads(USER))
    assert ser2(USER_RECORDS[0], VALUE)[:5] == b"\x00\x00\x00\x00\x01"


def test_avro_use_latest_version_writes_with_registered_schema():
    reg = DictRegistry()
    v1 = '{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}'
    v2 = (
        '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},'
        '{"name":"b","type":"int","default":7}]}'
    )
    reg.register_schema("orders-value", Schema(v1, "AVRO"))
    reg.register_schema("orders-value", Schema(v2, "AVRO"))
    ser = avro.AvroSerializer(
        reg, v1, conf={"auto.register.schemas": False, "use.latest.version": True}
    )
    data = ser({"a": 1, "b": 2}, VALUE)
    assert data == b"\x00\x00\x00\x00\x02" + b"\x02\x04"
    assert avro.AvroDeserializer(reg, v1)(data, VALUE) == {"a": 1}


def test_avro_named_type_references():
    reg, ck_reg = DictRegistry(), MockSchemaRegistryClient({"url": "mock://"})
    address = (
        '{"type":"record","name":"Address","namespace":"example",'
        '"fields":[{"name":"city","type":"string"}]}'
    )
    person = (
        '{"type":"record","name":"Person","namespace":"example","fields":[{"name":"home",'
        '"type":"example.Address"},{"name":"work","type":["null","example.Address"]}]}'
    )
    reg.register_schema("address", Schema(address, "AVRO"))
    ck_reg.register_schema("address", CkSchema(address, "AVRO"))
    ours = avro.AvroSerializer(
        reg, Schema(person, "AVRO", [SchemaReference("example.Address", "address", 1)])
    )
    theirs = ck_avro.AvroSerializer(
        ck_reg, CkSchema(person, "AVRO", [CkRef("example.Address", "address", 1)])
    )
    record = {"home": {"city": "Oslo"}, "work": {"city": "Bergen"}}
    assert ours(record, VALUE) == theirs(record, VALUE)
    assert avro.AvroDeserializer(reg)(ours(record, VALUE), VALUE) == record


def test_avro_bad_input():
    reg = DictRegistry()
    ours, theirs = pair_avro()
    for bad in ({"name": 5}, {"age": 3}, "not a record"):
        with pytest.raises(Exception) as mine:
            ours(bad, VALUE)
        with pytest.raises(Exception) as ck:
            theirs(bad, VALUE)
        assert (type(mine.value), str(mine.value)) == (type(ck.value), str(ck.value))
    de = avro.AvroDeserializer(reg)
    ck_de = ck_avro.AvroDeserializer(MockSchemaRegistryClient({"url": "mock://"}))
    for data, error in (
        (b"\x00\x00\x00", "SerializationError"),
        (b"\x05" * 8, "SerializationError"),
        (b"\x01\x00\x00\x00\x01\x02", "ValueError"),
    ):  # magic 1: a 16-byte GUID
        with pytest.raises(Exception) as mine:
            de(data, VALUE)
        with pytest.raises(Exception) as ck:
            ck_de(data, VALUE)
        assert (type(mine.value).__name__, str(mine.value)) == (error, str(ck.value))
        assert type(ck.value).__name__ == error
    with pytest.raises(LookupError, match="Schema 9 not found"):
        de(b"\x00\x00\x00\x00\x09\x02", VALUE)


def test_avro_conf_errors_match_confluent():
    for conf in (
        {"auto.register.schemas": "yes"},
        {"use.latest.version": True},
        {"subject.name.strategy": 5},
        {"no.such": 1},
        {"use.schema.id": "1"},
    ):
        with pytest.raises(ValueError) as mine:
            avro.AvroSerializer(DictRegistry(), USER, conf=conf)
        with pytest.raises(ValueError) as ck:
            ck_avro.AvroSerializer(MockSchemaRegistryClient({"url": "mock://"}), USER, conf=conf)
        assert str(mine.value) == str(ck.value)


# -- JSON Schema ------------------------------------------------------------------------------

JSON_USER = """{"$schema": "http://json-schema.org/draft-07/schema#", "title": "User",
 "type": "object",
 "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
 "required": ["name"]}"""


def test_json_bytes_and_round_trips_match_confluent():
    reg, ck_reg = DictRegistry(), MockSchemaRegistryClient({"url": "mock://"})
    ours = json_schema.JSONSerializer(JSON_USER, reg)
    theirs = ck_json.JSONSerializer(JSON_USER, ck_reg)
    for record in ({"name": "ann", "age": 3}, {"name": "żółw ✓"}):
        data = ours(record, VALUE)
        assert data == theirs(record, VALUE)
        assert json_schema.JSONDeserializer(None, schema_registry_client=reg)(data, VALUE) == record
        assert json_schema.JSONDeserializer(JSON_USER)(data, VALUE) == record
        assert ck_json.JSONDeserializer(JSON_USER)(data, VALUE) == record
    assert data == b'\x00\x00\x00\x00\x01{"name":"\xc5\xbc\xc3\xb3\xc5\x82w \xe2\x9c\x93"}'


def test_json_validation_errors_match_confluent():
    ours = json_schema.JSONSerializer(JSON_USER, DictRegistry())
    theirs = ck_json.JSONSerializer(JSON_USER, MockSchemaRegistryClient({"url": "mock://"}))
    for bad in ({"age": 1}, {"name": "x", "age": -1}, {"name": 7}):
        with pytest.raises(SerializationError) as mine:
            ours(bad, VALUE)
        with pytest.raises(CkSerializationError) as ck:
            theirs(bad, VALUE)
        assert str(mine.value) == str(ck.value)
    de = json_schema.JSONDeserializer(JSON_USER)
    with pytest.raises(SerializationError, match="'name' is a required property"):
        de(b"\x00\x00\x00\x00\x01{}", VALUE)
    with pytest.raises(SerializationError, match="^Invalid magic byte$"):
        de(b'{"name": "x"}', VALUE)


def test_json_refs():
    reg, ck_reg = DictRegistry(), MockSchemaRegistryClient({"url": "mock://"})
    address = '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}'
    order = (
        '{"title":"Order","type":"object","properties":{"ship_to":{"$ref":"address.json"}},'
        '"required":["ship_to"]}'
    )
    reg.register_schema("address", Schema(address, "JSON"))
    ck_reg.register_schema("address", CkSchema(address, "JSON"))
    ours = json_schema.JSONSerializer(
        Schema(order, "JSON", [SchemaReference("address.json", "address", 1)]), reg
    )
    theirs = ck_json.JSONSerializer(
        CkSchema(order, "JSON", [CkRef("address.json", "address", 1)]), ck_reg
    )
    record = {"ship_to": {"city": "Oslo"}}
    assert ours(record, VALUE) == theirs(record, VALUE)
    with pytest.raises(SerializationError, match="'city' is a required property"):
        ours({"ship_to": {}}, VALUE)


# -- Protobuf ---------------------------------------------------------------------------------


def test_protobuf_bytes_and_indexes_match_confluent():
    First, Order, Line = build_messages()
    for cls, msg, indexes in (
        (First, First(id=5), b"\x00"),
        (Order, Order(id=7, note="ü", ship_to={"city": "Oslo"}), b"\x02\x02"),
        (Line, Line(sku="x"), b"\x04\x02\x00"),
    ):
        reg, ck_reg = DictRegistry(), MockSchemaRegistryClient({"url": "mock://"})
        ours = protobuf.ProtobufSerializer(cls, reg)
        theirs = ck_pb.ProtobufSerializer(cls, ck_reg)
        data = ours(msg, VALUE)
        assert data == theirs(msg, VALUE)
        assert data[: 5 + len(indexes)] == b"\x00\x00\x00\x00\x02" + indexes
        assert data[5 + len(indexes) :] == msg.SerializeToString()
        assert (
            protobuf.ProtobufDeserializer(cls, {"use.deprecated.format": False})(data, VALUE) == msg
        )
        assert ck_pb.ProtobufDeserializer(cls, {"use.deprecated.format": False})(data, VALUE) == msg
        # the imported file went first, under its own name, and is referenced by the message's
        assert reg.subjects["common/address.proto"] == [1]
        refs = reg.by_id[2].references
        assert [(r.name, r.subject, r.version) for r in refs] == [
            ("common/address.proto", "common/address.proto", 1)
        ]


def test_protobuf_bad_input():
    First, Order, _ = build_messages()
    ours = protobuf.ProtobufSerializer(First, DictRegistry())
    theirs = ck_pb.ProtobufSerializer(First, MockSchemaRegistryClient({"url": "mock://"}))
    with pytest.raises(ValueError) as mine:
        ours(Order(), VALUE)
    with pytest.raises(ValueError) as ck:
        theirs(Order(), VALUE)
    assert str(mine.value) == str(ck.value)
    de = protobuf.ProtobufDeserializer(First, {"use.deprecated.format": False})
    with pytest.raises(SerializationError, match="^Invalid magic byte$"):
        de(b"\x08\x05", VALUE)
    with pytest.raises(SerializationError):
        de(b"\x00\x00\x00\x00\x01\x00\xff\xff\xff", VALUE)
    with pytest.raises(ValueError, match="^use.deprecated.format is no longer supported$"):
        protobuf.ProtobufDeserializer(First, {"use.deprecated.format": True})


# -- builders ---------------------------------------------------------------------------------


def test_builders_through_the_serializing_clients():
    import confluent_binding as cb

    from tests.support import mock

    reg = DictRegistry()
    inits = []
    builder = (
        avro.AvroSerializerBuilder(schema_registry_client=reg)
        .set_schema(USER)
        .set_serializer_init(inits.append)
    )
    assert builder.set_to_dict(None) is builder
    producer = cb.SerializingProducer(mock(**{"value.serializer.builder": builder}))
    (serializer,) = inits
    assert isinstance(serializer, avro.AvroSerializer)
    reports = []
    producer.produce(
        "users", value=USER_RECORDS[0], on_delivery=lambda err, msg: reports.append(msg.value())
    )
    assert producer.flush(10) == 0
    broker = producer.list_topics(timeout=10).brokers[1]
    assert reports == [b"\x00\x00\x00\x00\x01" + b"\x06ann\x02\x3e\x04\x02a\x02b\x00"]

    consumer = cb.DeserializingConsumer(
        {
            "bootstrap.servers": "%s:%d" % (broker.host, broker.port),
            "group.id": "b",
            "auto.offset.reset": "earliest",
            "value.deserializer.builder": avro.AvroDeserializerBuilder(None, reg),
        }
    )
    consumer.subscribe(["users"])
    msg = consumer.poll(10)
    assert msg.value() == USER_RECORDS[0]
    consumer.close()
    producer.close()


def test_builder_arguments():
    with pytest.raises(
        ValueError, match="Cannot specify both a Schema Registry client and a configuration"
    ):
        json_schema.JSONSerializerBuilder({"url": "http://x"}, DictRegistry()).build({}, False)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        protobuf.ProtobufSerializerBuilder(nope=1)
    First, _, _ = build_messages()
    ser, conf = protobuf.ProtobufSerializerBuilder(
        schema_registry_client=DictRegistry(), message_type=First
    ).build({"a": 1}, True)
    assert isinstance(ser, protobuf.ProtobufSerializer) and conf == {"a": 1}


def test_no_subject_means_no_schema_id():
    ser = avro.AvroSerializer(
        DictRegistry(), USER, conf={"subject.name.strategy": lambda ctx, name: None}
    )
    with pytest.raises(SerializationError, match="^Schema ID is not set$"):
        ser(USER_RECORDS[0], VALUE)


def test_package_exports_match_confluent():
    import confluent_kafka.schema_registry as ck_sr

    import confluent_binding.schema_registry as sr

    assert sorted(sr.__all__) == sorted(ck_sr.__all__)
    for name in list(ck_sr.__all__) + ["reference_subject_name_strategy"]:
        assert hasattr(sr, name), name
    for module, theirs in ((avro, ck_avro), (json_schema, ck_json), (protobuf, ck_pb)):
        for name in module.__all__:
            assert hasattr(theirs, name), name
