"""What confluent-kafka's own Schema Registry tests (``make conformance``) rely on beyond the
public API, side by side with confluent-kafka: its private module paths (``schema_registry._sync``
and ``._async``), the REST client's ``session`` and the errors it lets through, the process-wide
rule registry, the JSON codec, the Protobuf index helpers, the asyncio serdes' settings and
configuration messages. No server: requests go to a mock of the httpx client's ``request``."""

import asyncio
import importlib
import io
import subprocess
import sys
import textwrap
from unittest import mock

import pytest

import confluent_binding
from confluent_binding.schema_registry import _rest

from tests.support.parity import Raises, peer, same

URL = "http://sr.invalid:8081"
SUBJECTS = ["subject1", "subject2"]


def sub(m, path):
    """``m``'s module at ``path`` (``schema_registry._sync.serde``)."""
    return importlib.import_module("%s.%s" % (m.__name__, path))


def httpx_of(m):
    """The httpx module ``m``'s Schema Registry transport selected."""
    if m is confluent_binding:
        return _rest._httpx()
    return sub(m, "schema_registry.common._httpx_compat").httpx


def test_both_transports_select_the_same_http_library():
    same(lambda m: httpx_of(m).__name__, httpx_of(peer).__name__)


def test_without_httpx2_both_transports_select_httpx():
    # how `make conformance` runs confluent-kafka's respx-mocked tests
    code = textwrap.dedent("""
        import sys
        sys.modules["httpx2"] = None
        from confluent_kafka.schema_registry.common import _httpx_compat
        from confluent_binding.schema_registry import _rest
        print(_httpx_compat.httpx.__name__, _rest._httpx().__name__)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == ["httpx", "httpx"]


@pytest.mark.parametrize("path, names", [
    ("schema_registry._sync.serde", ["FALLBACK_TYPE", "KAFKA_CLUSTER_ID"]),
    ("schema_registry._async.serde", ["FALLBACK_TYPE", "KAFKA_CLUSTER_ID"]),
    ("schema_registry._sync.schema_registry_client", ["SchemaRegistryClient"]),
    ("schema_registry._async.schema_registry_client", ["AsyncSchemaRegistryClient"]),
    ("schema_registry._sync.protobuf", ["ProtobufSerializer", "ProtobufDeserializer"]),
    ("schema_registry._async.protobuf", ["AsyncProtobufSerializer"]),
    ("schema_registry._sync.avro", ["AvroSerializer"]),
    ("schema_registry._async.json_schema", ["AsyncJSONSerializer"]),
])
def test_private_module_paths_offer_the_same_names(path, names):
    same(lambda m: [getattr(sub(m, path), n).__name__ if isinstance(getattr(sub(m, path), n), type)
                    else getattr(sub(m, path), n) for n in names],
         [getattr(sub(peer, path), n).__name__ if isinstance(getattr(sub(peer, path), n), type)
          else getattr(sub(peer, path), n) for n in names])


def test_the_private_modules_hold_the_public_objects():
    sync = sub(confluent_binding, "schema_registry._sync.schema_registry_client")
    assert sync.SchemaRegistryClient is confluent_binding.schema_registry.SchemaRegistryClient
    assert sync._RestClient is _rest.RestClient


def test_the_global_rule_registry_under_its_module_name():
    def scenario(m):
        rule_registry = sub(m, "schema_registry.rule_registry")
        return rule_registry._global_instance is rule_registry.RuleRegistry.get_global_instance()

    same(scenario, True)


@pytest.mark.parametrize("value", [
    {"b": 1, "a": "é", "n": None, "f": 1.5, "t": True, "list": [1, "x", None]},
    ["🙂", 2 ** 40, -0.25],
])
def test_the_json_codec(value):
    def scenario(m):
        codec = sub(m, "schema_registry.common.json_schema")
        text = codec._json_dumps(value)
        return codec._HAS_ORJSON, text, codec._json_loads(text.encode()) == value

    same(scenario, (True, peer.schema_registry.common.json_schema._json_dumps(value), True))


def test_the_json_codec_without_orjson():
    code = textwrap.dedent("""
        import sys
        sys.modules["orjson"] = None
        from confluent_kafka.schema_registry.common import json_schema as theirs
        from confluent_binding.schema_registry.common import json_schema as ours
        value = {"k": "é", "a": [1, 2.5, None]}
        same = theirs._json_dumps(value) == ours._json_dumps(value)
        print(theirs._HAS_ORJSON, ours._HAS_ORJSON, same)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == ["False", "False", "True"]


def test_the_hcvault_client_module_offers_hvac():
    """``hcvault_client.hvac`` is the SDK module, as in confluent-kafka's module. Without hvac
    installed (the test environment's usual case), ours still loads and names what to install
    when the SDK is asked for; confluent-kafka's module cannot be imported at all."""
    path = "schema_registry.rules.encryption.hcvault.hcvault_client"
    try:
        import hvac
    except ImportError:
        from tink import TinkError
        ours = sub(confluent_binding, path)
        with pytest.raises(TinkError, match=r"pip install confluent-binding\[encryption-hcvault\]"):
            ours.hvac
        with pytest.raises(ImportError):
            sub(peer, path)
    else:
        same(lambda m: sub(m, path).hvac is hvac, True)


@pytest.mark.parametrize("conf, expect", [
    ({"url": "http://u:p@sr.invalid:8081", "basic.auth.credentials.source": "user_info",
      "basic.auth.user.info": "u:p"},
     Raises(ValueError, "basic.auth.user.info configured with userinfo credentials in the URL. "
                        "Remove userinfo credentials from the url or remove basic.auth.user.info "
                        "from the configuration")),
    ({"url": URL, "basic.auth.credentials.source": "SASL_INHERIT", "sasl.username": "a"},
     Raises(ValueError, "Unrecognized properties: basic.auth.credentials.source, sasl.username")),
])
def test_basic_auth_configuration_errors(conf, expect):
    same(lambda m: m.schema_registry.SchemaRegistryClient(conf), expect)


@pytest.mark.parametrize("url", ["http://u:p@sr.invalid:8081", URL])
def test_the_session_carries_the_basic_credentials(url):
    def scenario(m):
        conf = {"url": url}
        if "@" not in url:
            conf["basic.auth.user.info"] = "u:p"
        client = m.schema_registry.SchemaRegistryClient(conf)
        return client._rest_client.session.auth._auth_header

    same(scenario, httpx_of(peer).BasicAuth("u", "p")._auth_header)


def test_requests_go_through_the_session():
    def scenario(m):
        httpx = httpx_of(m)
        client = m.schema_registry.SchemaRegistryClient({"url": URL + "/"})
        request = mock.Mock(return_value=httpx.Response(200, json=SUBJECTS))
        client._rest_client.session.request = request
        answer = client._rest_client.send_request("/subjects", method="GET")
        return answer, request.call_args.args[0], request.call_args.kwargs["url"]

    same(scenario, (SUBJECTS, "GET", URL + "/subjects"))


def _rest_client(m, **conf):
    module = sub(m, "schema_registry._sync.schema_registry_client")
    return module._RestClient({"url": URL, "retries.wait.ms": 1, "retries.max.wait.ms": 2,
                               **conf})


def test_network_errors_are_retried():
    def scenario(m):
        httpx = httpx_of(m)
        rest = _rest_client(m, **{"max.retries": 3})
        req = httpx.Request("GET", URL + "/subjects")
        refused = httpx.ConnectError("connection refused", request=req)
        rest.session.request = mock.Mock(side_effect=[
            refused, refused, httpx.Response(200, json=SUBJECTS, request=req)])
        return rest.send_request("subjects", method="GET"), rest.session.request.call_count

    same(scenario, (SUBJECTS, 3))


def test_the_last_network_error_comes_out_as_the_transports():
    def scenario(m):
        httpx = httpx_of(m)
        rest = _rest_client(m, **{"max.retries": 2})
        req = httpx.Request("GET", URL + "/subjects")
        rest.session.request = mock.Mock(
            side_effect=httpx.ConnectError("connection refused", request=req))
        try:
            rest.send_request("subjects", method="GET")
        except httpx.ConnectError as e:
            return "ConnectError", e.request is req, rest.session.request.call_count
        return "no error"

    same(scenario, ("ConnectError", True, 3))


def test_the_network_error_is_also_ours():
    httpx = _rest._httpx()
    rest = _rest_client(confluent_binding, **{"max.retries": 0})
    rest.session.request = mock.Mock(side_effect=httpx.ConnectTimeout("slow"))
    error = confluent_binding.schema_registry.error.SchemaRegistryConnectionError
    with pytest.raises(error) as info:
        rest.send_request("subjects", method="GET")
    assert isinstance(info.value, httpx.ConnectTimeout)
    assert isinstance(info.value.__cause__, httpx.ConnectTimeout)
    assert info.value.http_status_code == -1 and "slow" in str(info.value)


def test_protobuf_index_helpers():
    from google.protobuf import descriptor_pb2

    def scenario(m):
        protobuf = sub(m, "schema_registry.protobuf")
        serde = sub(m, "schema_registry.serde")
        descriptor = descriptor_pb2.DescriptorProto.ExtensionRange.DESCRIPTOR
        indexes = protobuf._create_index_array(descriptor)
        encoded = []
        for zigzag in (True, False):
            buf = io.BytesIO()
            protobuf.ProtobufSerializer._encode_varints(buf, indexes, zigzag=zigzag)
            protobuf.AsyncProtobufSerializer._encode_varints(buf, [127, 8, 9], zigzag=zigzag)
            buf.seek(0)
            encoded.append((buf.getvalue().hex(), serde.SchemaId._read_index_array(buf, zigzag),
                            serde.SchemaId._read_index_array(buf, zigzag)))
        return indexes, encoded, protobuf._schema_to_str(descriptor.file)[:24]

    same(scenario, scenario(peer))


@pytest.mark.parametrize("schema, expect", [
    (None, Raises(ValueError, 'schema_registry_client must be provided if "schema_str" is not '
                              'provided')),
    ("ref", Raises(ValueError, 'schema_registry_client must be provided if "schema_str" is a '
                               'Schema instance with references')),
])
def test_json_deserializer_without_a_client(schema, expect):
    def scenario(m):
        sr = sub(m, "schema_registry")
        s = schema
        if schema == "ref":
            s = sr.Schema('{"$ref": "other.json"}', "JSON",
                          [sr.SchemaReference("other.json", "other", 1)])
        json_schema = sub(m, "schema_registry.json_schema")
        return json_schema.JSONDeserializer(s, schema_registry_client=None)

    same(scenario, expect)


def test_asyncio_serdes_show_their_settings():
    async def make(m):
        sr = sub(m, "schema_registry")
        client = sr.AsyncSchemaRegistryClient({"url": URL})
        ser = await sub(m, "schema_registry.avro").AsyncAvroSerializer(
            client, '"string"', conf={"auto.register.schemas": False, "normalize.schemas": True})
        return (ser._auto_register, ser._normalize_schemas, ser._use_latest_version,
                client._rest_client.base_urls)

    same(lambda m: asyncio.run(make(m)), (False, True, False, [URL]))


def test_asyncio_serdes_take_any_asyncio_client():
    schema_str = '{"type": "object", "properties": {"name": {"type": "string"}}}'

    async def serialize(m):
        sr = sub(m, "schema_registry")
        client = mock.Mock(spec=sr.AsyncSchemaRegistryClient)
        client.register_schema_full_response.return_value = sr.RegisteredSchema(
            schema_id=7, guid=None, schema=sr.Schema(schema_str, "JSON"),
            subject="t-value", version=1)
        client.get_associations_by_resource_name.return_value = []
        ser = await sub(m, "schema_registry.json_schema").AsyncJSONSerializer(
            schema_str, client,
            rule_registry=sub(m, "schema_registry.rule_registry").RuleRegistry())
        serialization = sub(m, "serialization")
        data = await ser({"name": "é"}, serialization.SerializationContext(
            "t", serialization.MessageField.VALUE))
        return data, client.register_schema_full_response.await_count

    same(lambda m: asyncio.run(serialize(m)),
         (b"\x00\x00\x00\x00\x07" + '{"name":"é"}'.encode(), 1))


@pytest.mark.parametrize("conf, shown", [
    ({"bearer.auth.credentials.source": "OAUTHBEARER", "bearer.auth.logical.cluster": "lsrc",
      "bearer.auth.identity.pool.id": "pool", "bearer.auth.client.id": "id",
      "bearer.auth.client.secret": "secret", "bearer.auth.scope": "scope",
      "bearer.auth.issuer.endpoint.url": "http://idp.invalid/token"},
     lambda p: (p.client.client_id, p.client.client_secret, p.client.scope, p.token_endpoint)),
    ({"bearer.auth.credentials.source": "OAUTHBEARER_AZURE_IMDS",
      "bearer.auth.logical.cluster": "lsrc", "bearer.auth.identity.pool.id": "pool",
      "bearer.auth.issuer.endpoint.query": "resource=api://x&api-version=2018-02-01"},
     lambda p: p.token_endpoint),
    ({"bearer.auth.credentials.source": "CUSTOM",
      "bearer.auth.custom.provider.function": len, "bearer.auth.custom.provider.config": {}},
     lambda p: (p.custom_function, p.custom_config)),
])
def test_the_bearer_field_provider_shows_its_settings(conf, shown):
    same(lambda m: shown(m.schema_registry.SchemaRegistryClient(
        dict(conf, url=URL))._rest_client.bearer_field_provider),
         shown(peer.schema_registry.SchemaRegistryClient(
             dict(conf, url=URL))._rest_client.bearer_field_provider))


def test_an_unparsable_token_endpoint():
    same(lambda m: m.schema_registry.SchemaRegistryClient({
        "url": URL, "bearer.auth.credentials.source": "OAUTHBEARER_AZURE_IMDS",
        "bearer.auth.logical.cluster": "lsrc", "bearer.auth.identity.pool.id": "pool",
        "bearer.auth.issuer.endpoint.url": "http://[wrong_url"}),
         Raises(ValueError, "Failed to parse token endpoint URL: Invalid IPv6 URL"))


@pytest.mark.parametrize("fields", [
    {"bearer.auth.token": "t", "bearer.auth.logical.cluster": "lsrc",
     "bearer.auth.identity.pool.id": "p1,p2"},
    {"bearer.auth.token": "t", "bearer.auth.logical.cluster": "lsrc"},
    {"bearer.auth.token": "t"},
])
def test_bearer_headers(fields):
    def scenario(m):
        client = m.schema_registry.SchemaRegistryClient({
            "url": URL, "bearer.auth.credentials.source": "CUSTOM",
            "bearer.auth.custom.provider.function": lambda conf: dict(conf),
            "bearer.auth.custom.provider.config": fields})
        headers = {"Accept": "application/json"}
        client._rest_client.handle_bearer_auth(headers)
        return headers

    expect = {"Accept": "application/json", "Authorization": "Bearer t",
              "target-sr-cluster": "lsrc"}
    if "bearer.auth.identity.pool.id" in fields:
        expect["Confluent-Identity-Pool-Id"] = "p1,p2"
    if "bearer.auth.logical.cluster" not in fields:
        expect = Raises(ValueError, "Missing required bearer auth fields, needs to be set in "
                                    "config or custom function: bearer.auth.logical.cluster")
    same(scenario, expect)


def test_the_legacy_client_shows_its_session_settings():
    def scenario(m):
        client = sub(m, "avro").CachedSchemaRegistryClient({
            "url": "https://u:p@sr.invalid:8081", "ssl.certificate.location": "c.pem",
            "ssl.key.location": "k.pem"})
        return client._session.auth, client._session.cert

    same(scenario, (("u", "p"), ("c.pem", "k.pem")))


def test_the_legacy_serializer_makes_a_writer_once_per_schema():
    def scenario(m):
        avro = sub(m, "avro")
        schema = avro.loads('{"type": "record", "name": "R", "fields": [{"name": "a", '
                            '"type": "int"}]}')
        client = avro.CachedSchemaRegistryClient({"url": URL})
        client.register = mock.Mock(return_value=5)
        serializer = sub(m, "avro.serializer.message_serializer").MessageSerializer(client)
        with mock.patch.object(serializer, "_get_encoder_func",
                               wraps=serializer._get_encoder_func) as make_writer:
            data = [serializer.encode_record_with_schema("t", schema, {"a": i}) for i in (1, 2)]
        return data, make_writer.call_count

    same(scenario, ([b"\x00\x00\x00\x00\x05\x02", b"\x00\x00\x00\x00\x05\x04"], 1))


def _upper_rules(m):
    """A RuleRegistry with a field rule executor UPPER (strings upper-cased), and a WRITE rule
    of it for the fields tagged PII."""
    serde = sub(m, "schema_registry.serde")
    types = sub(m, "schema_registry.schema_registry_client")

    class Upper(serde.FieldRuleExecutor):
        def type(self):
            return "UPPER"

        def configure(self, client_conf, rule_conf):
            pass

        def close(self):
            pass

        def new_transform(self, ctx):
            return lambda ctx, field, value: value.upper() if isinstance(value, str) else value

    registry = sub(m, "schema_registry.rule_registry").RuleRegistry()
    registry.register_executor(Upper())
    rule = types.Rule("upper", "", types.RuleKind.TRANSFORM, types.RuleMode.WRITE, "UPPER",
                      ["PII"], None, None, None, "NONE", False)
    return registry, types.RuleSet(None, [rule])


JSON_WITH_DEFS = {
    "type": "object",
    "properties": {"v": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}},
    "$defs": {"S": {"type": "object",
                    "properties": {"name": {"type": "string", "confluent:tags": ["PII"]}}}},
}


@pytest.mark.parametrize("asyncio_serde", [False, True])
def test_field_rules_reach_local_refs_and_change_the_record_given(asyncio_serde):
    import json

    async def scenario_async(m):
        sr = sub(m, "schema_registry")
        registry, rule_set = _upper_rules(m)
        client = sr.AsyncSchemaRegistryClient.new_client({"url": "mock://conformance-json"})
        await client.register_schema("t-value", sr.Schema(json.dumps(JSON_WITH_DEFS), "JSON", [],
                                                          None, rule_set))
        ser = await sub(m, "schema_registry.json_schema").AsyncJSONSerializer(
            None, client, conf={"auto.register.schemas": False, "use.latest.version": True},
            rule_registry=registry)
        record = {"v": {"name": "ann"}}
        data = await ser(record, m.serialization.SerializationContext(
            "t", m.serialization.MessageField.VALUE))
        return data[5:], record

    def scenario(m):
        if asyncio_serde:
            return asyncio.run(scenario_async(m))
        sr = sub(m, "schema_registry")
        registry, rule_set = _upper_rules(m)
        client = sr.SchemaRegistryClient.new_client({"url": "mock://conformance-json"})
        client.register_schema("t-value", sr.Schema(json.dumps(JSON_WITH_DEFS), "JSON", [], None,
                                                    rule_set))
        ser = sub(m, "schema_registry.json_schema").JSONSerializer(
            None, client, conf={"auto.register.schemas": False, "use.latest.version": True},
            rule_registry=registry)
        record = {"v": {"name": "ann"}}
        data = ser(record, m.serialization.SerializationContext(
            "t", m.serialization.MessageField.VALUE))
        return data[5:], record

    same(scenario, (b'{"v":{"name":"ANN"}}', {"v": {"name": "ANN"}}))


def test_avro_unions_of_referenced_records():
    import json

    def scenario(m):
        sr = sub(m, "schema_registry")
        registry, rule_set = _upper_rules(m)
        client = sr.SchemaRegistryClient.new_client({"url": "mock://conformance-avro"})
        inner = {"type": "record", "name": "Inner", "namespace": "n",
                 "fields": [{"name": "s", "type": "string", "confluent:tags": ["PII"]}]}
        a = {"type": "record", "name": "A", "namespace": "n",
             "fields": [{"name": "x", "type": "n.Inner"}]}
        b = {"type": "record", "name": "B", "namespace": "n",
             "fields": [{"name": "y", "type": "n.Inner"}, {"name": "z", "type": "int"}]}
        client.register_schema("inner", sr.Schema(json.dumps(inner)))
        ref = sr.SchemaReference("n.Inner", "inner", 1)
        client.register_schema("a", sr.Schema(json.dumps(a), "AVRO", [ref]))
        client.register_schema("b", sr.Schema(json.dumps(b), "AVRO", [ref]))
        client.register_schema("t-value", sr.Schema(
            json.dumps(["n.A", "n.B"]), "AVRO",
            [sr.SchemaReference("n.A", "a", 1), sr.SchemaReference("n.B", "b", 1)], None,
            rule_set))
        avro = sub(m, "schema_registry.avro")
        conf = {"auto.register.schemas": False, "use.latest.version": True}
        ser = avro.AvroSerializer(client, None, conf=conf, rule_registry=registry)
        ctx = m.serialization.SerializationContext("t", m.serialization.MessageField.VALUE)
        record = {"y": {"s": "ann"}, "z": 3}
        data = ser(record, ctx)
        return data[5:], avro.AvroDeserializer(client)(data, ctx)

    same(scenario, (b"\x02\x06ANN\x06", {"y": {"s": "ANN"}, "z": 3}))
