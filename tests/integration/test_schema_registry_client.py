"""SchemaRegistryClient against the real registry the harness starts (Apicurio Registry speaking
Confluent's REST API), and side by side with confluent-kafka's client on the same server."""

import asyncio
import json
import ssl
import time
import uuid

import confluent_kafka.schema_registry as theirs
import pytest

import confluent_binding.schema_registry as ours
from confluent_binding.schema_registry import (
    AsyncSchemaRegistryClient,
    ConfigCompatibilityLevel,
    RegisteredSchema,
    Schema,
    SchemaReference,
    SchemaRegistryClient,
    SchemaRegistryError,
    ServerConfig,
)
from confluent_binding.schema_registry.error import SchemaRegistryConnectionError
from confluent_binding.testing import make_test_certificates

from tests.support.http_gate import HttpGate

pytestmark = pytest.mark.integration


def _avro(name, fields, namespace="example"):
    return json.dumps({"type": "record", "name": name, "namespace": namespace, "fields": fields})


USER_V1 = _avro("User", [{"name": "name", "type": "string"}])
# BACKWARD-compatible: a new field with a default.
USER_V2 = _avro(
    "User", [{"name": "name", "type": "string"}, {"name": "age", "type": "int", "default": 0}]
)
# Not BACKWARD-compatible with V1/V2: "name" removed, "age" without default.
USER_BAD = _avro("User", [{"name": "age", "type": "int"}])
JSON_V1 = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})
PROTO_V1 = 'syntax = "proto3";\npackage example;\n\nmessage Click {\n  string url = 1;\n}\n'


def _unique(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:10])


@pytest.fixture
def client(schema_registry):
    with SchemaRegistryClient(schema_registry.client_config()) as c:
        yield c


# -- subject name strategies -------------------------------------------------------------------

# The subject each of confluent's strategies derives for a value of record example.User on topic
# `topic`: TopicNameStrategy, TopicRecordNameStrategy, RecordNameStrategy.
_STRATEGIES = {
    "topic": lambda topic: "%s-value" % topic,
    "topic_record": lambda topic: "%s-example.User" % topic,
    "record": lambda topic: "example.User",
}


@pytest.mark.parametrize("strategy", sorted(_STRATEGIES))
def test_register_lookup_evolve_per_subject_name_strategy(schema_registry, strategy):
    topic = _unique("orders")
    subject = _STRATEGIES[strategy](topic)
    if strategy == "record":  # one subject per record across topics: keep tests apart
        subject = "%s.%s" % (topic, subject)
    with SchemaRegistryClient(schema_registry.client_config()) as c:
        c.set_compatibility(subject, "BACKWARD")
        v1 = c.register_schema_full_response(subject, Schema(USER_V1, "AVRO"))
        assert isinstance(v1.schema_id, int) and v1.subject == subject
        found = c.lookup_schema(subject, Schema(USER_V1, "AVRO"))
        assert (found.schema_id, found.subject, found.version) == (v1.schema_id, subject, 1)

        v2_id = c.register_schema(subject, Schema(USER_V2, "AVRO"))
        assert v2_id != v1.schema_id
        latest = c.get_latest_version(subject)
        assert (latest.version, latest.schema_id) == (2, v2_id)
        assert json.loads(latest.schema.schema_str) == json.loads(USER_V2)
        assert latest.schema.schema_type == "AVRO"
        assert c.get_versions(subject) == [1, 2]
        assert c.get_version(subject, 1).schema_id == v1.schema_id
        # Registering an already registered schema gives back its id, no new version.
        with SchemaRegistryClient(schema_registry.client_config()) as fresh:
            assert fresh.register_schema(subject, Schema(USER_V1, "AVRO")) == v1.schema_id
            assert fresh.get_versions(subject) == [1, 2]


def test_schema_types_and_references(client):
    subject = _unique("types")
    json_id = client.register_schema(subject + "-json", Schema(JSON_V1, "JSON"))
    proto_id = client.register_schema(subject + "-proto", Schema(PROTO_V1, "PROTOBUF"))
    assert client.get_schema(json_id).schema_type == "JSON"
    assert client.get_schema(proto_id).schema_type == "PROTOBUF"
    assert json.loads(client.get_schema(json_id).schema_str) == json.loads(JSON_V1)
    assert set(client.get_schema_types()) >= {"AVRO", "JSON", "PROTOBUF"}

    # An Avro record that uses a named type registered under another subject.
    address = _avro("Address", [{"name": "city", "type": "string"}])
    client.register_schema(subject + "-address", Schema(address, "AVRO"))
    ref = SchemaReference("example.Address", subject + "-address", 1)
    customer = _avro("Customer", [{"name": "home", "type": "example.Address"}])
    cid = client.register_schema(subject + "-customer", Schema(customer, "AVRO", [ref]))
    fetched = client.get_version(subject + "-customer", 1)
    assert fetched.schema_id == cid
    assert fetched.schema.references == [ref]
    assert cid in client.get_referenced_by(subject + "-address", 1)


# -- server-side rules and errors --------------------------------------------------------------


def test_incompatible_schema_is_refused_by_the_server(client):
    subject = _unique("compat")
    client.register_schema(subject, Schema(USER_V1, "AVRO"))
    assert client.set_compatibility(subject, "backward") == {"compatibility": "BACKWARD"}
    assert client.get_compatibility(subject) == "BACKWARD"
    assert client.test_compatibility(subject, Schema(USER_V2, "AVRO")) is True
    assert client.test_compatibility(subject, Schema(USER_BAD, "AVRO")) is False
    assert client.test_compatibility_all_versions(subject, Schema(USER_BAD, "AVRO")) is False
    with pytest.raises(SchemaRegistryError) as info:
        client.register_schema(subject, Schema(USER_BAD, "AVRO"))
    assert info.value.http_status_code == 409
    assert "ncompatible" in info.value.error_message
    assert client.get_versions(subject) == [1]  # nothing registered

    # NONE lets the same schema in.
    client.set_compatibility(subject, "NONE")
    client.register_schema(subject, Schema(USER_BAD, "AVRO"))
    assert client.get_versions(subject) == [1, 2]


def test_not_found_and_invalid_errors_carry_the_registry_codes(client):
    subject = _unique("missing")
    with pytest.raises(SchemaRegistryError) as info:
        client.get_versions(subject)
    assert (info.value.http_status_code, info.value.error_code) == (404, 40401)
    with pytest.raises(SchemaRegistryError) as info:
        client.get_schema(987654321)
    assert (info.value.http_status_code, info.value.error_code) == (404, 40403)
    client.register_schema(subject, Schema(USER_V1, "AVRO"))
    with pytest.raises(SchemaRegistryError) as info:
        client.get_version(subject, 7)
    assert (info.value.http_status_code, info.value.error_code) == (404, 40402)
    with pytest.raises(SchemaRegistryError) as info:
        client.register_schema(subject, Schema("{not a schema", "AVRO"))
    assert (info.value.http_status_code, info.value.error_code) == (422, 42201)
    assert str(info.value).endswith("(HTTP status code 422, SR code 42201)")


# -- versions, subjects, deletes, config -------------------------------------------------------


def test_subjects_versions_and_deletes(client):
    subject = _unique("lifecycle")
    client.register_schema(subject, Schema(USER_V1, "AVRO"))
    client.register_schema(subject, Schema(USER_V2, "AVRO"))
    assert subject in client.get_subjects()
    assert client.get_versions(subject) == [1, 2]

    assert client.delete_version(subject, 2) == 2
    assert client.get_latest_version(subject).version == 1
    # Apicurio keeps listing (and serving) a soft-deleted version; a hard delete removes it.
    assert client.delete_version(subject, 2, permanent=True) == 2
    assert client.get_versions(subject) == [1]
    with pytest.raises(SchemaRegistryError) as info:
        client.get_version(subject, 2)  # gone, and not served from the client's cache
    assert (info.value.http_status_code, info.value.error_code) == (404, 40402)

    other = _unique("lifecycle")
    client.register_schema(other, Schema(USER_V1, "AVRO"))
    assert client.delete_subject(other) == [1]
    assert other not in client.get_subjects()
    assert other in client.get_subjects(deleted=True)
    assert client.delete_subject(other, permanent=True) == [1]
    assert other not in client.get_subjects(deleted=True)


def test_config_and_compatibility_levels(client):
    subject = _unique("config")
    client.register_schema(subject, Schema(USER_V1, "AVRO"))
    global_level = client.get_compatibility()
    assert global_level in {level.value for level in ConfigCompatibilityLevel}
    assert client.set_config(
        subject, ServerConfig(compatibility=ConfigCompatibilityLevel.FULL)
    ) == {"compatibility": "FULL"}
    assert client.get_config(subject).compatibility_level is ConfigCompatibilityLevel.FULL
    assert client.get_compatibility(subject) == "FULL"
    old = client.delete_config(subject)
    assert old.compatibility_level is ConfigCompatibilityLevel.FULL
    assert client.get_compatibility() == global_level
    with pytest.raises(ValueError, match="level must be set"):
        client.set_compatibility(subject)
    with pytest.raises(ValueError, match="config must be set"):
        client.set_config(subject)


# -- caching, auth, TLS, failures --------------------------------------------------------------


def test_cached_answers_send_no_request(schema_registry):
    subject = _unique("cache")
    with HttpGate(schema_registry.url) as gate:
        with SchemaRegistryClient({"url": gate.url}) as c:
            schema = Schema(USER_V1, "AVRO")
            sid = c.register_schema(subject, schema)
            assert gate.request_count() == 1
            assert c.register_schema(subject, schema) == sid  # cached
            found = c.lookup_schema(subject, schema)
            n = gate.request_count()
            assert c.lookup_schema(subject, schema) == found  # cached
            assert c.get_schema(sid) == c.get_schema(sid)
            latest = c.get_latest_version(subject)
            assert c.get_latest_version(subject) is latest
            assert c.get_version(subject, 1) == found  # lookup_schema cached version 1 too
            assert gate.request_count() == n + 2  # one each for get_schema and the latest version
            c.clear_latest_caches()
            c.get_latest_version(subject)
            assert gate.request_count() == n + 3
            c.clear_caches()
            c.lookup_schema(subject, schema)
            assert gate.request_count() == n + 4
        with SchemaRegistryClient({"url": gate.url, "cache.latest.ttl.sec": 0.2}) as c:
            c.get_latest_version(subject)
            c.get_latest_version(subject)
            before = gate.request_count()
            time.sleep(0.3)  # the TTL is what is under test
            c.get_latest_version(subject)
            assert gate.request_count() == before + 1


@pytest.mark.parametrize("how", ["user_info", "url"])
def test_basic_auth_header_is_sent(schema_registry, how):
    user, password = "sr-user", "p@ss:word"
    with HttpGate(schema_registry.url, basic_auth=(user, password)) as gate:
        if how == "user_info":
            conf = {"url": gate.url, "basic.auth.user.info": "%s:%s" % (user, password)}
        else:
            conf = {"url": gate.url.replace("http://", "http://sr-user:p%40ss%3Aword@")}
        with SchemaRegistryClient(conf) as c:
            assert isinstance(c.get_subjects(), list)
        sent = gate.requests[-1].headers["Authorization"]
        assert sent == "Basic c3ItdXNlcjpwQHNzOndvcmQ="  # base64 of sr-user:p@ss:word
        with SchemaRegistryClient({"url": gate.url, "basic.auth.user.info": "sr-user:wrong"}) as c:
            with pytest.raises(SchemaRegistryError) as info:
                c.get_subjects()
        assert (info.value.http_status_code, info.value.error_code) == (401, 401)
    with pytest.raises(ValueError, match="userinfo credentials in the URL"):
        SchemaRegistryClient({"url": "http://a:b@127.0.0.1:1", "basic.auth.user.info": "a:b"})
    with pytest.raises(ValueError, match=r"form of \{username\}:\{password\}"):
        SchemaRegistryClient({"url": "http://127.0.0.1:1", "basic.auth.user.info": "nocolon"})


def test_tls_with_client_certificate(schema_registry, tmp_path):
    certs = make_test_certificates(tmp_path / "certs")
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(certs.broker_cert, certs.broker_key)
    server_ctx.load_verify_locations(certs.ca_cert)
    server_ctx.verify_mode = ssl.CERT_REQUIRED
    with HttpGate(schema_registry.url, ssl_context=server_ctx) as gate:
        conf = {
            "url": gate.url,
            "ssl.ca.location": str(certs.ca_cert),
            "ssl.certificate.location": str(certs.client_cert),
            "ssl.key.location": str(certs.client_key),
        }
        subject = _unique("tls")
        with SchemaRegistryClient(conf) as c:
            sid = c.register_schema(subject, Schema(USER_V1, "AVRO"))
            assert c.get_latest_version(subject).schema_id == sid
        assert gate.request_count() == 2
        # Without a client certificate the handshake is refused: no answer from the registry.
        no_cert = {"url": gate.url, "ssl.ca.location": str(certs.ca_cert), "max.retries": 0}
        with SchemaRegistryClient(no_cert) as c:
            with pytest.raises(SchemaRegistryConnectionError):
                c.get_subjects()
        # A registry certificate from an unknown CA is refused.
        with SchemaRegistryClient({"url": gate.url, "max.retries": 0}) as c:
            with pytest.raises(SchemaRegistryConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
                c.get_subjects()
    with pytest.raises(ValueError, match="ssl.certificate.location required"):
        SchemaRegistryClient(
            {"url": "https://127.0.0.1:1", "ssl.key.location": str(certs.client_key)}
        )


def test_unreachable_registry_is_a_clear_error(schema_registry):
    dead = "http://127.0.0.1:9"  # discard port: nothing listens on loopback
    c = SchemaRegistryClient({"url": dead, "max.retries": 2, "retries.wait.ms": 10})
    t0 = time.monotonic()
    with pytest.raises(SchemaRegistryConnectionError) as info:
        c.register_schema("s", Schema(USER_V1, "AVRO"))
    assert time.monotonic() - t0 < 10
    err = info.value
    assert isinstance(err, SchemaRegistryError) and isinstance(err, ConnectionError)
    assert (err.http_status_code, err.error_code) == (-1, -1)
    assert "Schema Registry unreachable at http://127.0.0.1:9" in str(err)
    assert "Connection refused" in str(err)
    # With several URLs, a dead one is skipped.
    subject = _unique("failover")
    with SchemaRegistryClient(
        {"url": "%s,%s" % (dead, schema_registry.url), "max.retries": 0}
    ) as c:
        sid = c.register_schema(subject, Schema(USER_V1, "AVRO"))
        assert c.get_latest_version(subject).schema_id == sid


def test_bearer_static_token_headers(schema_registry):
    with HttpGate(schema_registry.url) as gate:
        conf = {
            "url": gate.url,
            "bearer.auth.credentials.source": "STATIC_TOKEN",
            "bearer.auth.token": "tok",
            "bearer.auth.logical.cluster": "lsrc-1",
            "bearer.auth.identity.pool.id": ["pool-a", "pool-b"],
        }
        with SchemaRegistryClient(conf) as c:
            c.get_subjects()
        headers = gate.requests[-1].headers
    assert headers["Authorization"] == "Bearer tok"
    assert headers["target-sr-cluster"] == "lsrc-1"
    assert headers["Confluent-Identity-Pool-Id"] == "pool-a,pool-b"


def test_async_client(schema_registry):
    subject = _unique("async")

    async def main():
        async with AsyncSchemaRegistryClient(schema_registry.client_config()) as c:
            sid = await c.register_schema(subject, Schema(USER_V1, "AVRO"))
            latest, versions = await asyncio.gather(
                c.get_latest_version(subject), c.get_versions(subject)
            )
            with pytest.raises(SchemaRegistryError) as info:
                await c.get_versions(subject + "-nope")
            return sid, latest, versions, info.value.error_code

    sid, latest, versions, code = asyncio.run(main())
    assert isinstance(latest, RegisteredSchema) and latest.schema_id == sid
    assert versions == [1] and code == 40401


# -- side by side with confluent-kafka's client ------------------------------------------------


def _scenario(mod, url, subject):
    """The same calls through one client library; results as comparable plain values."""
    out = []
    with mod.SchemaRegistryClient({"url": url}) as c:

        def step(name, call):
            try:
                value = call()
                if hasattr(value, "to_dict"):
                    value = ("%s" % type(value).__name__, value.to_dict())
                elif isinstance(value, list) and value and hasattr(value[0], "subject"):
                    value = sorted((v.subject, v.version) for v in value)
            except Exception as e:
                value = (
                    "raises",
                    type(e).__name__,
                    getattr(e, "http_status_code", None),
                    getattr(e, "error_code", None),
                    getattr(e, "error_message", str(e)),
                )
            out.append(
                (name, json.loads(json.dumps(value, default=str).replace(subject, "<subject>")))
            )

        S = mod.Schema
        step("register v1", lambda: c.register_schema(subject, S(USER_V1, "AVRO")))
        step("register full", lambda: c.register_schema_full_response(subject, S(USER_V1, "AVRO")))
        step("lookup", lambda: c.lookup_schema(subject, S(USER_V1, "AVRO")))
        step("lookup unknown schema", lambda: c.lookup_schema(subject, S(USER_BAD, "AVRO")))
        step("lookup unknown subject", lambda: c.lookup_schema(subject + "-x", S(USER_V1, "AVRO")))
        step("set compatibility", lambda: c.set_compatibility(subject, "BACKWARD"))
        step("get compatibility", lambda: c.get_compatibility(subject))
        step("test compat ok", lambda: c.test_compatibility(subject, S(USER_V2, "AVRO")))
        step("test compat bad", lambda: c.test_compatibility(subject, S(USER_BAD, "AVRO")))
        step("register incompatible", lambda: c.register_schema(subject, S(USER_BAD, "AVRO")))
        step("register v2", lambda: c.register_schema(subject, S(USER_V2, "AVRO")))
        step("latest", lambda: c.get_latest_version(subject))
        step("version 1", lambda: c.get_version(subject, 1))
        step("version 9", lambda: c.get_version(subject, 9))
        step("versions", lambda: c.get_versions(subject))
        step("schema by id", lambda: c.get_schema(c.get_version(subject, 2).schema_id))
        step("unknown id", lambda: c.get_schema(987654321))
        step("invalid schema", lambda: c.register_schema(subject, S("{nope", "AVRO")))
        step("json schema", lambda: c.register_schema(subject + "-json", S(JSON_V1, "JSON")))
        step(
            "protobuf schema",
            lambda: c.register_schema(subject + "-proto", S(PROTO_V1, "PROTOBUF")),
        )
        step("config", lambda: c.get_config(subject))
        step("delete config", lambda: c.delete_config(subject))
        step("global mode", lambda: c.get_global_mode())
        step("schema types", lambda: sorted(c.get_schema_types()))
        step("delete version", lambda: c.delete_version(subject, 2))
        step("latest after delete", lambda: c.get_latest_version(subject).version)
        step("delete version hard", lambda: c.delete_version(subject, 2, permanent=True))
        step("versions after delete", lambda: c.get_versions(subject))
        step("deleted version", lambda: c.get_version(subject, 2))
        step("delete subject", lambda: c.delete_subject(subject + "-json"))
        step("delete subject hard", lambda: c.delete_subject(subject + "-json", permanent=True))
        step("subject gone", lambda: subject + "-json" in c.get_subjects(deleted=True))
    return out


def test_same_results_and_errors_as_confluent_kafka(schema_registry):
    # Each library works on its own subjects of the same server; schema ids are content ids, so the
    # second library gets the ids the first one's schemas were given.
    base = _unique("parity")
    mine = _scenario(ours, schema_registry.url, base + "-a")
    reference = _scenario(theirs, schema_registry.url, base + "-b")
    assert [name for name, _ in mine] == [name for name, _ in reference]
    for (name, got), (_, expected) in zip(mine, reference):
        assert got == expected, name
    # The scenario exercised both answers and errors.
    kinds = {value[0] if isinstance(value, list) and value else None for _, value in mine}
    assert "raises" in kinds and "RegisteredSchema" in kinds


def test_soft_then_hard_delete_clears_the_cache_as_confluent_kafka(schema_registry):
    """confluent-kafka's own test of a version deleted softly then for good, which reads the
    clients' schema cache (``_cache``), run on both libraries' blocking and asyncio clients:
    a looked-up version is cached, a soft delete forgets it, the hard delete then succeeds."""

    def blocking(lib, subject):
        with lib.SchemaRegistryClient({"url": schema_registry.url}) as sr:
            schema = lib.Schema(USER_V1, schema_type="AVRO")
            sr.register_schema(subject, schema)
            version = sr.lookup_schema(subject, schema).version
            cached = sr._cache.get_registered_by_subject_version(subject, version)
            soft = sr.delete_version(subject, version, permanent=False)
            after = sr._cache.get_registered_by_subject_version(subject, version)
            hard = sr.delete_version(subject, version, permanent=True)
            return (cached.subject, cached.version), soft, after, hard, subject in sr.get_subjects()

    async def asynchronous(lib, subject):
        sr = lib.AsyncSchemaRegistryClient({"url": schema_registry.url})
        try:
            schema = lib.Schema(USER_V1, schema_type="AVRO")
            await sr.register_schema(subject, schema)
            version = (await sr.lookup_schema(subject, schema)).version
            cached = sr._cache.get_registered_by_subject_version(subject, version)
            soft = await sr.delete_version(subject, version, permanent=False)
            after = sr._cache.get_registered_by_subject_version(subject, version)
            hard = await sr.delete_version(subject, version, permanent=True)
            return ((cached.subject, cached.version), soft, after, hard,
                    subject in await sr.get_subjects())
        finally:
            await sr.aclose()

    results = {}
    for name, lib in (("ours", ours), ("confluent-kafka", theirs)):
        subject = _unique("soft-hard-" + name)
        results[name, "blocking"] = blocking(lib, subject)
        subject = _unique("soft-hard-async-" + name)
        results[name, "asyncio"] = asyncio.run(asynchronous(lib, subject))
    for (name, kind), (cached, soft, after, hard, listed) in results.items():
        assert (cached[1], soft, after, hard, listed) == (1, 1, None, 1, False), (name, kind)
    assert results["ours", "blocking"][1:] == results["confluent-kafka", "blocking"][1:]
    assert results["ours", "asyncio"][1:] == results["confluent-kafka", "asyncio"][1:]
