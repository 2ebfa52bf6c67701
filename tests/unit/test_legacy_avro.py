"""confluent_binding.avro (the legacy AvroProducer/AvroConsumer and their registry client):
configuration errors, schema parsing, errors and deprecation warnings, side by side with
confluent-kafka's. What needs a registry or a broker is in tests/integration/test_legacy_avro.py.
"""

import warnings

import pytest

pytest.importorskip("avro")
pytest.importorskip("requests")  # confluent-kafka's legacy client needs it
pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka.avro as ck_avro  # noqa: E402
from confluent_kafka.avro import cached_schema_registry_client as ck_client  # noqa: E402
from confluent_kafka.avro.serializer import message_serializer as ck_ms  # noqa: E402

import confluent_binding.avro as cb_avro  # noqa: E402
from confluent_binding.avro import cached_schema_registry_client as cb_client  # noqa: E402
from confluent_binding.avro.serializer import message_serializer as cb_ms  # noqa: E402

SIDES = [ck_avro, cb_avro]
USER = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'


def outcome(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", type(call()).__name__)
        except Exception as e:
            result = (type(e).__name__, str(e))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("conf", [
    {"url": "localhost:8081"},
    {"url": 8081},
    {},
    {"url": "http://h:1", "no.such": 1},
    {"url": "http://h:1", "basic.auth.credentials.source": "SASL_OTHER"},
    {"url": "http://h:1", "basic.auth.credentials.source": "SASL_INHERIT",
     "sasl.mechanism": "GSSAPI"},
    {"url": "http://h:1", "ssl.certificate.location": "/c.pem"},
    {"url": "http://h:1", "ssl.key.location": "/k.pem"},
    {"url": "http://h:1", "basic.auth.credentials.source": "USER_INFO",
     "basic.auth.user.info": "u:p", "auto.register.schemas": False},
    {"url": "http://u:p@h:1/base/"},
], ids=str)
def test_registry_client_configuration_as_confluents(conf):
    ours = outcome(lambda: cb_avro.CachedSchemaRegistryClient(dict(conf)))
    theirs = outcome(lambda: ck_avro.CachedSchemaRegistryClient(dict(conf)))
    assert ours == theirs


def test_registry_client_url_form_is_deprecated_and_urls_lose_credentials():
    ours = outcome(lambda: cb_avro.CachedSchemaRegistryClient("http://u:p@h:1/x/#frag"))
    theirs = outcome(lambda: ck_avro.CachedSchemaRegistryClient("http://u:p@h:1/x/#frag"))
    assert ours == theirs
    assert ours[1][0][0] == "DeprecationWarning"
    for side in SIDES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c = side.CachedSchemaRegistryClient({"url": "http://u:p@h:1/x/"})
        assert c.url == "http://h:1/x"
        assert c.auto_register_schemas is True


def test_constants_as_confluents():
    for name in ("VALID_LEVELS", "VALID_METHODS", "VALID_AUTH_PROVIDERS", "ACCEPT_HDR"):
        assert getattr(cb_client, name) == getattr(ck_client, name)
    assert cb_ms.MAGIC_BYTE == ck_ms.MAGIC_BYTE == 0
    assert cb_ms.HAS_FAST is ck_ms.HAS_FAST is True


def test_loads_and_load(tmp_path):
    path = tmp_path / "user.avsc"
    path.write_text(USER)
    for side in SIDES:
        schema = side.loads(USER)
        assert type(schema).__name__ == "RecordSchema"
        assert str(side.load(str(path))) == str(schema)
    ours = outcome(lambda: cb_avro.loads('{"type": "recordd"}'))
    theirs = outcome(lambda: ck_avro.loads('{"type": "recordd"}'))
    assert ours == theirs
    assert ours[0][0] == "ClientError" and ours[0][1].startswith("Schema parse failed: ")


def test_errors_as_confluents():
    for name in ("ClientError", "SerializerError", "KeySerializerError",
                 "ValueSerializerError"):
        ours, theirs = getattr(cb_avro, name), getattr(ck_avro, name)
        assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]
        for e in (ours("went wrong"), theirs("went wrong")):
            assert (str(e), e.message) == ("went wrong", "went wrong")
        assert repr(ours("x")) == repr(theirs("x"))
    assert cb_avro.ClientError("x", http_code=404).http_code == 404


def test_deprecated_clients_warn_as_confluents_and_check_their_arguments():
    registry = {"schema.registry.url": "http://127.0.0.1:1"}
    for cls in ("AvroProducer", "AvroConsumer"):
        conf = dict(registry, **{"bootstrap.servers": "127.0.0.1:1", "group.id": "g"})
        if cls == "AvroProducer":
            del conf["group.id"]
        ours = outcome(lambda: getattr(cb_avro, cls)(dict(conf)))
        theirs = outcome(lambda: getattr(ck_avro, cls)(dict(conf)))
        assert ours[1] == theirs[1] == [(
            "DeprecationWarning", "%s has been deprecated. Use %s instead." % (
                cls, "AvroSerializer" if cls == "AvroProducer" else "AvroDeserializer"))]
        assert ours[0] == ("ok", cls)
        # a client and a URL at once
        both = lambda side: getattr(side, cls)(  # noqa: E731
            dict(conf), schema_registry=side.CachedSchemaRegistryClient(
                {"url": "http://127.0.0.1:1"}))
        assert outcome(lambda: both(cb_avro))[0] == outcome(lambda: both(ck_avro))[0] == (
            "ValueError", "Cannot pass schema_registry along with schema.registry.url config")


@pytest.mark.parametrize("kwargs", [
    {"value": {"name": "x"}},
    {"topic": "t", "value": {"name": "x"}},
    {"topic": "t", "key": {"name": "x"}},
], ids=str)
def test_producer_argument_errors_as_confluents(kwargs):
    def produce(side):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = side.AvroProducer({"bootstrap.servers": "127.0.0.1:1",
                                   "schema.registry.url": "http://127.0.0.1:1"})
        return p.produce(**kwargs)

    ours, theirs = outcome(lambda: produce(cb_avro)), outcome(lambda: produce(ck_avro))
    assert ours == theirs
    assert ours[0][0] in ("ClientError", "ValueSerializerError", "KeySerializerError")


def test_decode_errors_as_confluents():
    for payload in (b"\x00\x00\x00\x00", b"\x01\x00\x00\x00\x01\x02", None):
        ours = outcome(lambda: cb_ms.MessageSerializer(None).decode_message(payload))
        theirs = outcome(lambda: ck_ms.MessageSerializer(None).decode_message(payload))
        assert ours == theirs
