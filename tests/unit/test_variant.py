"""The Variant binary format (schema_registry.confluent.type.variant_utils) and its Protobuf
message, side by side with confluent-kafka's: the same bytes from the same JSON or builder
calls, the same answers from every getter, the same JSON text and the same errors."""

import decimal
import json
import random
import uuid

import pytest

pytest.importorskip("google.protobuf")
pytest.importorskip("confluent_kafka")  # the peer these tests compare with

from confluent_kafka.schema_registry import protobuf as ck_protobuf  # noqa: E402
from confluent_kafka.schema_registry.confluent.type import (  # noqa: E402
    variant_utils as theirs,
)

from confluent_binding.schema_registry import protobuf  # noqa: E402
from confluent_binding.schema_registry.confluent.type import variant_utils as ours  # noqa: E402

SIDES = (ours, theirs)


def outcome(call):
    try:
        result = call()
    except Exception as e:  # the exception's kind and message are part of the comparison
        return type(e).__name__, str(e)
    if isinstance(result, (ours.Variant, theirs.Variant)):
        return "variant", result.value, result.metadata, result.pos
    if isinstance(result, (ours.VariantType, theirs.VariantType)):
        return "type", result.value
    if isinstance(result, float) and result != result:
        return "ok", "NaN"
    return "ok", result


def random_document(rnd, depth=0):
    pick = rnd.random()
    if depth > 3 or pick < 0.4:
        return rnd.choice([None, True, False, rnd.randint(-2**70, 2**70), rnd.randint(-300, 300),
                           rnd.random() * 1e6, "s" * rnd.randint(0, 80), "ключ", -0.0])
    if pick < 0.7:
        return {rnd.choice("abcdefghij") * rnd.randint(1, 3): random_document(rnd, depth + 1)
                for _ in range(rnd.randint(0, 8))}
    return [random_document(rnd, depth + 1) for _ in range(rnd.randint(0, 8))]


DOCUMENTS = ["null", "true", "1", "-129", "70000", "-3000000000",
             "123456789012345678901234567890", "1.5", '"x"', '"' + "y" * 70 + '"',
             '{"b": 1, "a": [1, 2, {"c": null}], "é": "ü"}', "[]", "{}",
             "[1.0, -0.0, 1e300, 3.14, 100.0]",
             json.dumps({"k%03d" % i: i for i in range(300)}), json.dumps(list(range(300))),
             json.dumps({"z": {"y": [1, "two", 3.5, None, True]}, "a": "b" * 300}),
             "12345678901234567890123456789012345678901234567890", '{"a": 1, "a": 2}']
DOCUMENTS += [json.dumps(random_document(random.Random(seed))) for seed in range(200)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda d: d[:40])
def test_parse_json_writes_confluents_bytes(document):
    mine, its = (outcome(lambda: side.parse_json(document)) for side in SIDES)
    assert mine == its
    if mine[0] == "variant":
        assert ours.parse_json(document).to_json() == theirs.parse_json(document).to_json()


def build(side):
    b = side.VariantBuilder()
    b.start_object()
    for key, append in [
        ("f", lambda: b.append_float(0.1)),
        ("d", lambda: b.append_decimal(decimal.Decimal("-12.340"))),
        ("d2", lambda: b.append_decimal(b"\x01\x00", 3)),
        ("big", lambda: b.append_decimal(10**30, 2)),
        ("u", lambda: b.append_uuid(uuid.UUID(int=12345))),
        ("bin", lambda: b.append_binary(b"\x00\xff")),
        ("date", lambda: b.append_date(-1)),
        ("t", lambda: b.append_time(3723000001)),
        ("ts", lambda: b.append_timestamp_tz(-1)),
        ("tsn", lambda: b.append_timestamp_ntz(1_700_000_000_123_000)),
        ("n1", lambda: b.append_timestamp_nanos_tz(1_700_000_000_123_456_789)),
        ("n2", lambda: b.append_timestamp_nanos_ntz(5)),
        ("s", lambda: b.append_string("z" * 64)),
    ]:
        b.append_key(key)
        append()
    b.append_key("arr")
    b.start_array()
    for append in (lambda: b.append_byte(-1), lambda: b.append_short(300),
                   lambda: b.append_int(-5), lambda: b.append_long(2**40), b.append_null,
                   lambda: b.append_boolean(False), lambda: b.append_string("s"),
                   lambda: b.append_double(float("nan"))):
        append()
    b.end_array()
    b.end_object()
    return b.build()


GETTERS = ["get_type", "get_boolean", "get_byte", "get_short", "get_int", "get_long",
           "get_float", "get_double", "get_decimal", "get_binary", "get_uuid", "get_string",
           "num_object_fields", "num_array_elements", "to_json", "standalone_value_bytes"]


def test_builder_writes_confluents_bytes_and_every_getter_answers_the_same():
    mine, its = build(ours), build(theirs)
    assert (mine.value, mine.metadata) == (its.value, its.metadata)
    assert mine.to_json() == its.to_json()
    assert json.loads(mine.to_json())["t"] == "01:02:03.000001"
    keys = [mine.get_field_at_index(i)[0] for i in range(mine.num_object_fields())]
    assert keys == sorted(keys) == [its.get_field_at_index(i)[0] for i in range(len(keys))]
    elements = [(mine.get_field_by_key("arr").get_element_at_index(i),
                 its.get_field_by_key("arr").get_element_at_index(i)) for i in range(9)]
    for x, y in [(mine.get_field_by_key(k), its.get_field_by_key(k)) for k in keys] + elements:
        assert (x is None) == (y is None)
        for getter in GETTERS if x is not None else ():
            assert outcome(getattr(x, getter)) == outcome(getattr(y, getter)), getter
    assert mine.get_field_by_key("missing") is None


def test_a_large_object_is_searched_by_key():
    document = json.dumps({"k%03d" % i: i for i in range(300)})
    variant = ours.parse_json(document)
    assert [variant.get_field_by_key("k%03d" % i).get_long() for i in (0, 150, 299)] == [
        0, 150, 299]
    assert variant.get_field_by_key("k999") is None


BUILDER_MISUSE = [
    lambda m, b: b.build(), lambda m, b: (b.append_null(), b.append_null()),
    lambda m, b: b.append_key("x"), lambda m, b: b.end_object(), lambda m, b: b.end_array(),
    lambda m, b: (b.start_object(), b.append_null()),
    lambda m, b: (b.start_object(), b.append_key("a"), b.append_key("b")),
    lambda m, b: (b.start_object(), b.append_key("a"), b.end_object()),
    lambda m, b: b.append_byte(300), lambda m, b: b.append_decimal(1),
    lambda m, b: b.append_decimal(b"\x01"),
    lambda m, b: b.append_decimal(decimal.Decimal(1), 2),
    lambda m, b: b.append_decimal(1.5, 1), lambda m, b: b.append_decimal(1, -1),
    lambda m, b: b.append_decimal(10**40, 0),
    lambda m, b: b.append_decimal(decimal.Decimal("NaN")),
    lambda m, b: b.append_uuid(b"123"), lambda m, b: (b.start_array(), b.build()),
    lambda m, b: m.VariantBuilder(3).append_string("abcdef"),
]


@pytest.mark.parametrize("misuse", range(len(BUILDER_MISUSE)))
def test_builder_misuse_raises_as_confluents(misuse):
    mine, its = (outcome(lambda: BUILDER_MISUSE[misuse](side, side.VariantBuilder()))
                 for side in SIDES)
    assert mine == its
    assert mine[0] == "VariantError"


@pytest.mark.parametrize("value,metadata", [
    (b"\x00", b"\x02"), (bytes([5 << 2, 0x01]), b"\x01\x00\x00"), (b"", b"\x01\x00\x00"),
    (bytes([8 << 2, 20, 0, 0, 0, 0]), b"\x01\x00\x00"), (bytes([21 << 2]), b"\x01\x00\x00"),
    (bytes([0x02, 0x01, 0x05, 0x00, 0x01]), b"\x01\x00\x00"),
])
def test_malformed_variants_raise_as_confluents(value, metadata):
    mine, its = (outcome(lambda: side.Variant(value, metadata).to_json()) for side in SIDES)
    assert mine == its
    assert mine[0] == "VariantError"


@pytest.mark.parametrize("append,value", [("append_date", 3000000), ("append_date", -800000),
                                          ("append_time", -1), ("append_time", 86_400_000_000)])
def test_values_json_cannot_write_raise_as_confluents(append, value):
    def json_of(side):
        b = side.VariantBuilder()
        getattr(b, append)(value)
        return b.build().to_json()

    assert outcome(lambda: json_of(ours)) == outcome(lambda: json_of(theirs))


@pytest.mark.parametrize("number", [0.1, 1.0, -0.0, 1e16, 1e-7, 3.4028234663852886e38,
                                    123456.789, float("inf"), -1.5e-45, 16777217.0, 2.5e-3])
def test_numbers_as_json_as_confluents(number):
    for append in ("append_float", "append_double"):
        texts = []
        for side in SIDES:
            b = side.VariantBuilder()
            getattr(b, append)(number)
            texts.append(b.build().to_json())
        assert texts[0] == texts[1]


def test_variant_protobuf_messages_as_confluents():
    document = '{"a": {"b": [1, "two"]}, "secret": "x"}'
    for side, module in ((ours, protobuf), (theirs, ck_protobuf)):
        inner = side.parse_json(document).get_field_by_key("a")
        message = module.variant_to_protobuf(inner)
        assert module.protobuf_to_variant(message).to_json() == '{"b":[1,"two"]}'
    mine = protobuf.variant_to_protobuf(ours.parse_json(document).get_field_by_key("a"))
    its = ck_protobuf.variant_to_protobuf(theirs.parse_json(document).get_field_by_key("a"))
    assert mine.SerializeToString() == its.SerializeToString()
    assert protobuf.protobuf_to_variant(its) == ours.Variant(its.value, its.metadata)


def test_equality_is_over_the_encoding():
    a = ours.parse_json('{"x": [1, 2]}')
    b = ours.parse_json('{"x": [1, 2]}')
    assert a == b and hash(a) == hash(b)
    assert a.get_field_by_key("x") == ours.parse_json('{"x": [1, 2]}').get_field_by_key("x")
    assert a != ours.parse_json('{"x": [1, 3]}')
    assert ours.from_bytes(a.value, a.metadata) == a
    assert ours.to_json_string(a) == '{"x":[1,2]}'
    for name in theirs.__all__ if hasattr(theirs, "__all__") else ():
        assert hasattr(ours, name)
    assert ours.MAX_DECIMAL16_VALUE == theirs.MAX_DECIMAL16_VALUE
