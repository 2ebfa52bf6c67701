"""What the serdes keep between records, and where they must not keep it.

Once a serializer has resolved the schema id of a topic's key or value under a configuration
where nothing can change from one record to the next, it frames the next records with the
same bytes without asking again; a deserializer keeps what it needs per writer schema id. These
tests pin each boundary of that: a newer version registered under the subject, a newer latest
with ``use.latest.version`` (asked of the registry client on every record, as confluent-kafka's
serializers do, so the client's ``cache.latest.ttl.sec`` is what bounds its age), an associated
subject changed and its strategy's cache cleared or evicted, a new subject strategy, other
schema ids and framings in the same topic, a schema id in a header; and that the quick JSON
Schema check gives jsonschema's verdicts and errors. Side by side with confluent-kafka's serdes
where it has the same thing (each side on its own in-memory registry).
"""

import decimal
import itertools
import json
import types

import pytest

pytest.importorskip("fastavro")
pytest.importorskip("jsonschema")
pytest.importorskip("google.protobuf")
pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka.schema_registry as ck_sr  # noqa: E402
from confluent_kafka.schema_registry import Schema as CkSchema  # noqa: E402
from confluent_kafka.schema_registry import avro as ck_avro  # noqa: E402
from confluent_kafka.schema_registry import json_schema as ck_json  # noqa: E402
from confluent_kafka.schema_registry import protobuf as ck_pb  # noqa: E402
from confluent_kafka.schema_registry._sync.mock_schema_registry_client import (  # noqa: E402
    MockSchemaRegistryClient as CkMock,
)
from confluent_kafka.serialization import MessageField as CkField  # noqa: E402
from confluent_kafka.serialization import SerializationContext as CkContext  # noqa: E402
from confluent_kafka.serialization import SerializationError as CkSerializationError  # noqa: E402
from jsonschema import Draft7Validator, Draft202012Validator, ValidationError  # noqa: E402

from confluent_binding.schema_registry import avro, json_schema, protobuf, serde  # noqa: E402
from confluent_binding.schema_registry.mock_schema_registry_client import (  # noqa: E402
    MockSchemaRegistryClient,
)
from confluent_binding.schema_registry.schema_registry_client import Schema  # noqa: E402
from confluent_binding.serialization import (  # noqa: E402
    MessageField,
    SerializationContext,
    SerializationError,
)

from tests.support.protobuf_messages import build_messages  # noqa: E402


def _avro_schema(*fields):
    return json.dumps({"type": "record", "name": "User", "namespace": "t",
                       "fields": [{"name": f, "type": "string", "default": ""} for f in fields]})


USER_V1 = _avro_schema("name")
USER_V2 = _avro_schema("name", "email")
JSON_V1 = json.dumps({"type": "object", "title": "User",
                      "properties": {"name": {"type": "string"}}})
JSON_V2 = json.dumps({"type": "object", "title": "User",
                      "properties": {"name": {"type": "string"},
                                     "email": {"type": "string"}}})


class Side:
    """One library's registry, serdes and context types."""

    def __init__(self, name):
        self.name = name
        ours = name == "ours"
        self.registry = MockSchemaRegistryClient({"url": "mock://"}) if ours else CkMock(
            {"url": "mock://"})
        self.avro = avro if ours else ck_avro
        self.json = json_schema if ours else ck_json
        self.pb = protobuf if ours else ck_pb
        self.schema = Schema if ours else CkSchema
        self.error = SerializationError if ours else CkSerializationError
        self._ctx, self._field = (SerializationContext, MessageField) if ours else (
            CkContext, CkField)

    def ctx(self, topic, headers=None):
        return self._ctx(topic, self._field.VALUE, headers)

    def register(self, subject, schema_str, kind):
        return self.registry.register_schema(subject, self.schema(schema_str, kind))


SIDES = ("ours", "confluent")


def _id(framed):
    assert framed[:1] == b"\x00"
    return int.from_bytes(framed[1:5], "big")


@pytest.mark.parametrize("fmt", ["avro", "json"])
def test_auto_register_keeps_its_own_schema_id_after_a_newer_version_as_confluent(fmt):
    """A serializer's own schema is fixed: a newer version registered under its subject by
    someone else does not change the id its records are framed with."""
    seen = {}
    for name in SIDES:
        side = Side(name)
        if fmt == "avro":
            ser = side.avro.AvroSerializer(side.registry, USER_V1)
            record, newer, kind = {"name": "a"}, USER_V2, "AVRO"
        else:
            ser = side.json.JSONSerializer(JSON_V1, side.registry)
            record, newer, kind = {"name": "a"}, JSON_V2, "JSON"
        ctx = side.ctx("t1")
        first = ser(record, ctx)
        newer_id = side.register("t1-value", newer, kind)
        again = [ser(record, ctx) for _ in range(3)]
        assert newer_id != _id(first)
        assert again == [first] * 3
        assert ser._schema_id.id == _id(first)
        seen[name] = first[5:]
    assert seen["ours"] == seen["confluent"]


@pytest.mark.parametrize("fmt", ["avro", "json"])
def test_use_latest_version_asks_the_client_for_the_latest_on_every_record_as_confluent(fmt):
    """With use.latest.version the serializer keeps nothing of its own: each record asks the
    registry client (whose cache.latest.ttl.sec bounds the latest's age), so a newer latest
    frames the next record, as confluent-kafka's does."""
    counts, framed_ids = {}, {}
    for name in SIDES:
        side = Side(name)
        calls = []
        get_latest = side.registry.get_latest_version

        def counting(subject, fmt=None, _get=get_latest, _calls=calls):
            _calls.append(subject)
            return _get(subject, fmt)

        side.registry.get_latest_version = counting
        conf = {"use.latest.version": True, "auto.register.schemas": False}
        if fmt == "avro":
            first_id = side.register("t1-value", USER_V1, "AVRO")
            ser = side.avro.AvroSerializer(side.registry, USER_V1, conf=conf)
            record, newer, kind = {"name": "a"}, USER_V2, "AVRO"
        else:
            first_id = side.register("t1-value", JSON_V1, "JSON")
            ser = side.json.JSONSerializer(JSON_V1, side.registry, conf=conf)
            record, newer, kind = {"name": "a"}, JSON_V2, "JSON"
        ctx = side.ctx("t1")
        before = [_id(ser(record, ctx)) for _ in range(3)]
        newer_id = side.register("t1-value", newer, kind)
        after = [_id(ser(record, ctx)) for _ in range(2)]
        assert before == [first_id] * 3 and after == [newer_id] * 2 != before[:2]
        counts[name] = len(calls)
        framed_ids[name] = (before, after)
    assert counts["ours"] == counts["confluent"] == 5


class AssociatingRegistry(MockSchemaRegistryClient):
    """Our in-memory registry whose topic associations the test sets."""

    def __init__(self):
        super().__init__({"url": "mock://"})
        self.associated = {}
        self.lookups = 0

    def get_associations_by_resource_name(self, resource_name, resource_namespace,
                                          resource_type=None, association_types=None,
                                          offset=0, limit=-1):
        self.lookups += 1
        subject = self.associated.get(resource_name)
        return [] if subject is None else [types.SimpleNamespace(subject=subject)]


def test_associated_subject_is_followed_when_the_strategy_forgets_it():
    """Under the associated strategy the serializer frames with the subject the strategy
    answers: kept as long as the strategy keeps its answer, looked up again when its cache
    is cleared or the answer evicted."""
    registry = AssociatingRegistry()
    other = registry.register_schema("other", Schema(USER_V2, "AVRO"))
    strategy = serde.AssociatedNameStrategy(cache_capacity=1)
    ser = avro.AvroSerializer(registry, USER_V1, conf={"subject.name.strategy": strategy})
    ctx1, ctx2 = SerializationContext("t1", MessageField.VALUE), SerializationContext(
        "t2", MessageField.VALUE)
    registry.associated["t1"] = "subject-a"
    a = ser({"name": "x"}, ctx1)
    assert registry.get_latest_version("subject-a").schema_id == _id(a) != other
    registry.associated["t1"] = "other"
    assert ser({"name": "x"}, ctx1) == a  # the strategy still answers subject-a
    assert strategy(ctx1, "t.User", registry) == "subject-a"
    strategy.clear_cache()
    ser({"name": "x"}, ctx1)
    assert [v for v in registry.get_versions("other")] == [1, 2]  # registered under it now
    # eviction: one entry only, so t2 pushes t1's answer out
    registry.associated["t2"] = "subject-b"
    ser({"name": "x"}, ctx2)
    registry.associated["t1"] = "subject-c"
    lookups = registry.lookups
    ser({"name": "x"}, ctx1)
    assert registry.lookups == lookups + 1
    assert registry.get_versions("subject-c") == [1]
    # kept while kept: no look-up for the next records of t1
    ser({"name": "x"}, ctx1)
    assert registry.lookups == lookups + 1


def test_a_new_subject_strategy_takes_effect_on_the_next_record():
    registry = MockSchemaRegistryClient({"url": "mock://"})
    ser = avro.AvroSerializer(registry, USER_V1, conf={"subject.name.strategy.type": "TOPIC"})
    ctx = SerializationContext("t1", MessageField.VALUE)
    ser({"name": "x"}, ctx)
    ser.configure_subject_name_strategy("RECORD")
    ser({"name": "x"}, ctx)
    assert sorted(registry.get_subjects()) == ["t.User", "t1-value"]


def test_topics_and_fields_are_framed_each_with_their_own_subjects_id():
    registry = MockSchemaRegistryClient({"url": "mock://"})
    ours = {"t1-value": registry.register_schema("t1-value", Schema(USER_V2, "AVRO"))}
    ser = avro.AvroSerializer(registry, USER_V1, conf={"auto.register.schemas": False})
    registry.register_schema("t1-value", Schema(USER_V1, "AVRO"))
    registry.register_schema("t2-key", Schema(USER_V1, "AVRO"))
    got = []
    for topic, field in itertools.product(("t1", "t2"), (MessageField.VALUE, MessageField.KEY)):
        ctx = SerializationContext(topic, field)
        subject = topic + ("-value" if field == MessageField.VALUE else "-key")
        try:
            got.append((subject, _id(ser({"name": "x"}, ctx))))
        except Exception as e:  # not registered under that subject
            got.append((subject, type(e).__name__))
        if subject in ("t1-value", "t2-key"):
            assert got[-1][1] == registry.lookup_schema(subject, Schema(USER_V1, "AVRO")).schema_id
    assert ours["t1-value"] not in [g[1] for g in got]
    assert [g[1] for g in got if g[0] in ("t1-key", "t2-value")] == ["SchemaRegistryError"] * 2


def test_avro_deserializer_reads_each_records_writer_schema_as_confluent():
    """Records of two schema ids interleaved in one topic, then one whose id is in a header:
    each is read with its own writer's schema, on both sides."""
    results = {}
    for name in SIDES:
        side = Side(name)
        ctx = side.ctx("t1")
        v1 = side.avro.AvroSerializer(side.registry, USER_V1)
        v2 = side.avro.AvroSerializer(side.registry, USER_V2,
                                      conf={"auto.register.schemas": True})
        de = side.avro.AvroDeserializer(side.registry)
        framed = [v1({"name": "a"}, ctx), v2({"name": "b", "email": "e"}, ctx),
                  v1({"name": "c"}, ctx), v2({"name": "d", "email": "f"}, ctx)]
        read = [de(b, side.ctx("t1")) for b in framed]
        headers = []
        in_header = (serde if name == "ours" else ck_sr).header_schema_id_serializer
        by_header = side.avro.AvroSerializer(side.registry, USER_V2,
                                             conf={"schema.id.serializer": in_header})
        payload = by_header({"name": "gggggg", "email": "hhhhhh"}, side.ctx("t1", headers))
        read.append(de(payload, side.ctx("t1", headers)))
        with pytest.raises(side.error):
            de(framed[0][:5], side.ctx("t1"))  # the framing alone
        results[name] = read
    assert results["ours"] == results["confluent"] == [
        {"name": "a"}, {"name": "b", "email": "e"}, {"name": "c"},
        {"name": "d", "email": "f"}, {"name": "gggggg", "email": "hhhhhh"}]


def test_protobuf_deserializer_reads_other_message_indexes_of_a_schema_id_as_confluent():
    """Records of one schema id but other message indexes (the framing read before is a
    prefix that no longer matches) and a truncated record, after records it keeps."""
    first_cls, _, _ = build_messages()
    body = first_cls(id=42).SerializeToString()
    frames = [b"\x00\x00\x00\x00\x01\x00" + body, b"\x00\x00\x00\x00\x01\x02\x02" + body,
              b"\x00\x00\x00\x00\x02\x00" + body, b"\x00\x00\x00\x00\x01\x00" + body]
    seen = {}
    for name in SIDES:
        side = Side(name)
        de = side.pb.ProtobufDeserializer(first_cls, {"use.deprecated.format": False})
        out = [de(f, side.ctx("t1")).id for f in frames * 2]
        with pytest.raises(side.error) as info:
            de(frames[0][:-1] + b"\xff", side.ctx("t1"))
        seen[name] = (out, type(info.value).__name__)
    assert seen["ours"][0] == seen["confluent"][0] == [42] * 8


def test_json_deserializer_validates_every_record_against_the_kept_schema_as_confluent():
    results = {}
    for name in SIDES:
        side = Side(name)
        ser = side.json.JSONSerializer(JSON_V1, side.registry)
        de = side.json.JSONDeserializer(JSON_V1, schema_registry_client=side.registry)
        good = ser({"name": "a"}, side.ctx("t1"))
        bad = good[:5] + b'{"name":1}'
        out = [de(good, side.ctx("t1")), de(good, side.ctx("t1"))]
        with pytest.raises(side.error) as info:
            de(bad, side.ctx("t1"))
        with pytest.raises(side.error) as ser_info:
            ser({"name": 2}, side.ctx("t1"))
        results[name] = (out, str(info.value), str(ser_info.value))
    assert results["ours"] == results["confluent"]
    assert results["ours"][1] == "1 is not of type 'string'"


# -- the quick JSON Schema check --------------------------------------------------------------

SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "number"},
                                      "c": {"type": ["string", "null"]}},
     "required": ["a"], "additionalProperties": False},
    {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 3},
     "minItems": 1, "maxItems": 2},
    {"type": "number", "minimum": 0, "exclusiveMaximum": 10},
    {"type": "integer", "exclusiveMinimum": 0, "maximum": 5},
    {"type": "string", "pattern": "^a+$"},
    {"enum": ["x", "y", 1, True]},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"allOf": [{"type": "object", "required": ["a"]},
               {"properties": {"a": {"type": "boolean"}}}]},
    {"type": "object", "additionalProperties": {"type": "integer"},
     "properties": {"s": {"type": "string"}}, "title": "T", "confluent:tags": ["PII"]},
    {"type": "object", "properties": {"n": {"type": "null"}, "f": {"format": "email"}}},
    {"type": "boolean"},
    True,
    False,
    {"oneOf": [{"type": "string"}, {"type": "integer"}]},  # no quick check: jsonschema only
    {"$ref": "#/definitions/x", "definitions": {"x": {"type": "string"}}},
]

VALUES = [None, True, False, 0, 1, -1, 5, 10, 1.0, 1.5, float("nan"), float("inf"),
          decimal.Decimal("1"), "", "a", "aaa", "aaaa", "b", "x", "y", "@", [], ["a"],
          ["a", "bb"], ["a", "b", "c"], [""], [1], {}, {"a": 1}, {"a": 1.0}, {"a": True},
          {"a": 1, "b": 2.5, "c": None}, {"a": 1, "c": 3}, {"a": 1, "d": 0}, {"s": "x"},
          {"s": 1}, {"s": "x", "k": 2}, {"s": "x", "k": "2"}, {"n": None}, {"n": 0},
          {"f": "not-an-email"}, (1, 2), {"a": decimal.Decimal("2")}]


def _expected(validator_cls, schema, value):
    try:
        validator_cls(schema).validate(value)
    except ValidationError as e:
        return e.message
    return None


@pytest.mark.parametrize("draft", [Draft7Validator, Draft202012Validator])
def test_quick_json_check_gives_jsonschemas_verdicts_and_messages(draft):
    """Every schema × value: the serializer's check passes exactly where jsonschema does and
    fails with jsonschema's message; the quick predicate never accepts what jsonschema
    rejects."""
    quick_used = 0
    for schema in SCHEMAS:
        if isinstance(schema, dict):
            schema = dict(schema, **{"$schema": draft.META_SCHEMA["$schema"]})
        registry = MockSchemaRegistryClient({"url": "mock://"})
        schemas = json_schema._JsonSchemas(registry)
        check = schemas.checker(Schema(json.dumps(schema), "JSON"))
        quick = json_schema._fast_validity(draft, schema)
        for value in VALUES:
            expected = _expected(draft, schema, value)
            try:
                check(value)
                got = None
            except SerializationError as e:
                got = str(e)
            assert got == expected, (schema, value)
            if quick is not None:
                quick_used += 1
                if quick(value):
                    assert expected is None, (schema, value)
    assert quick_used > 0


def test_quick_json_check_covers_the_common_shapes_and_leaves_the_rest():
    assert json_schema._fast_validity(Draft7Validator, SCHEMAS[0]) is not None
    assert json_schema._fast_validity(Draft7Validator, SCHEMAS[8]) is not None
    for schema in SCHEMAS[-2:]:
        assert json_schema._fast_validity(Draft7Validator, schema) is None
    assert json_schema._fast_validity(Draft7Validator, {"pattern": "("}) is None
    from jsonschema import Draft4Validator

    assert json_schema._fast_validity(Draft4Validator, {"type": "integer"}) is None


def test_avro_plain_bytes_and_strict_writing_keep_confluents_results():
    seen = {}
    for name in SIDES:
        side = Side(name)
        raw = side.avro.AvroSerializer(side.registry, '"bytes"')
        strict = side.avro.AvroSerializer(side.registry, USER_V2,
                                          conf={"validate.strict": True})
        ctx = side.ctx("t1")
        out = [raw(b"abc", ctx)[5:], raw(b"de", ctx)[5:],
               strict({"name": "a", "email": "b"}, ctx)[5:]]
        with pytest.raises(Exception) as info:
            strict({"name": "a"}, ctx)
        with pytest.raises(Exception) as again:
            strict({"name": "a"}, ctx)
        seen[name] = (out, type(info.value).__name__, str(info.value), str(again.value))
    assert seen["ours"] == seen["confluent"]
