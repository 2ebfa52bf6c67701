"""The Schema Registry client's HTTP transport against the real registry: proxies (the ``proxy``
setting, ``HTTP_PROXY``/``HTTPS_PROXY``/``NO_PROXY`` from the environment), retries
(``Retry-After``, backoff, the error after the last retry, fail-over), and the TLS settings on
OAuth token requests.  Each scenario runs on confluent-kafka's client too, where both are meant to
behave alike."""

import asyncio
import json
import ssl
import time
import urllib.parse
import uuid

import confluent_kafka.schema_registry as theirs
import pytest
from confluent_kafka.schema_registry.error import OAuthTokenError as TheirOAuthTokenError

import confluent_binding.schema_registry as ours
from confluent_binding.schema_registry.error import OAuthTokenError
from confluent_binding.testing import make_test_certificates

from tests.support.http_gate import HttpGate
from tests.support.http_proxy import ForwardingProxy
from tests.support.oauth_token_server import (
    TOKEN_REQUEST,
    TokenServer,
    busy_once_handler,
    oauth_conf,
    token_handler,
    token_request,
    token_url,
)

pytestmark = pytest.mark.integration

SIDES = {"ours": ours, "theirs": theirs}
USER = json.dumps({"type": "record", "name": "User", "namespace": "example",
                   "fields": [{"name": "name", "type": "string"}]})
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def _unique(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:10])


@pytest.fixture
def env(monkeypatch):
    """The environment without proxy variables (either case); set them with ``env.setenv``."""
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_test_certificates(tmp_path_factory.mktemp("certs"))


def _server_context(certs, require_client_cert=False):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certs.broker_cert, certs.broker_key)
    if require_client_cert:
        ctx.load_verify_locations(certs.ca_cert)
        ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


def _register_and_read(mod, conf, subject):
    with mod.SchemaRegistryClient(conf) as c:
        sid = c.register_schema(subject, mod.Schema(USER, "AVRO"))
        assert c.get_latest_version(subject).schema_id == sid
    return sid


# -- proxies -----------------------------------------------------------------------------------


@pytest.mark.parametrize("side", sorted(SIDES))
def test_requests_go_through_the_proxy_of_the_environment(schema_registry, env, side):
    mod = SIDES[side]
    subject = _unique("proxied")
    with ForwardingProxy() as proxy:
        env.setenv("HTTP_PROXY", proxy.url)
        env.setenv("HTTPS_PROXY", proxy.url)
        _register_and_read(mod, {"url": schema_registry.url}, subject)
        assert [f.method for f in proxy.forwarded] == ["POST", "GET"]
        prefix = "%s/subjects/%s/versions" % (schema_registry.url, subject)
        assert all(f.target.startswith(prefix) for f in proxy.forwarded), proxy.forwarded

        # NO_PROXY names the registry's host: straight to it, the proxy sees nothing more.
        env.setenv("NO_PROXY", "127.0.0.1")
        _register_and_read(mod, {"url": schema_registry.url}, _unique("direct"))
        assert proxy.count() == 2


@pytest.mark.parametrize("side", sorted(SIDES))
def test_the_proxy_setting_wins_over_the_environment(schema_registry, env, side):
    mod = SIDES[side]
    with ForwardingProxy() as proxy:
        env.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
        conf = {"url": schema_registry.url, "proxy": proxy.url, "max.retries": 0}
        _register_and_read(mod, conf, _unique("setting"))
        assert [f.method for f in proxy.forwarded] == ["POST", "GET"]


@pytest.mark.parametrize("side", sorted(SIDES))
def test_https_registry_is_tunnelled_through_the_proxy(schema_registry, env, certs, side):
    mod = SIDES[side]
    with HttpGate(schema_registry.url, ssl_context=_server_context(certs)) as gate, \
            ForwardingProxy() as proxy:
        env.setenv("HTTPS_PROXY", proxy.url)
        conf = {"url": gate.url, "ssl.ca.location": str(certs.ca_cert)}
        _register_and_read(mod, conf, _unique("tunnel"))
        port = urllib.parse.urlsplit(gate.url).port
        # The proxy saw tunnels to the registry (one, while the connection is kept alive), not
        # what went through them.
        assert proxy.forwarded and set(proxy.forwarded) == {("CONNECT", "127.0.0.1:%d" % port)}
        assert [r.method for r in gate.requests] == ["POST", "GET"]


def test_async_client_goes_through_the_proxy_of_the_environment(schema_registry, env):
    subject = _unique("async-proxied")

    async def main(mod):
        async with mod.AsyncSchemaRegistryClient({"url": schema_registry.url}) as c:
            sid = await c.register_schema(subject, mod.Schema(USER, "AVRO"))
            return (await c.get_latest_version(subject)).schema_id == sid

    with ForwardingProxy() as proxy:
        env.setenv("HTTP_PROXY", proxy.url)
        assert asyncio.run(main(ours))
        assert [f.method for f in proxy.forwarded] == ["POST", "GET"]
        assert asyncio.run(main(theirs))  # confluent-kafka's asyncio client does the same
        assert [f.method for f in proxy.forwarded] == ["POST", "GET"] * 2


# -- retries -----------------------------------------------------------------------------------


def _answer_first(count, status, payload, headers=None):
    """A gate's local handler: the first ``count`` requests get this answer, the rest go on to
    the registry."""
    seen = []

    def local(method, path, body):
        seen.append(path)
        if len(seen) <= count:
            return (status, payload, headers or {})
        return None

    return local


_SLOW_DOWN = b'{"error_code": 42901, "message": "Too many requests"}'


@pytest.mark.parametrize("side", sorted(SIDES))
def test_429_with_retry_after_is_retried(schema_registry, side):
    mod = SIDES[side]
    local = _answer_first(1, 429, _SLOW_DOWN, {"Retry-After": "1"})
    with HttpGate(schema_registry.url, local=local) as gate:
        # the backoff alone would wait at most 10 ms
        with mod.SchemaRegistryClient({"url": gate.url, "retries.wait.ms": 10}) as c:
            assert isinstance(c.get_subjects(), list)
        first, second = gate.requests
    assert (first.method, first.path) == (second.method, second.path)
    if side == "ours":
        # Retry-After is honoured (confluent-kafka's client waits its backoff instead)
        assert second.at - first.at >= 0.95


def test_retry_after_is_capped_by_the_maximum_wait(schema_registry):
    local = _answer_first(1, 503, b'{"error_code": 50301, "message": "busy"}',
                          {"Retry-After": "30"})
    with HttpGate(schema_registry.url, local=local) as gate:
        conf = {"url": gate.url, "retries.wait.ms": 10, "retries.max.wait.ms": 300}
        with ours.SchemaRegistryClient(conf) as c:
            t0 = time.monotonic()
            assert isinstance(c.get_subjects(), list)
            took = time.monotonic() - t0
        first, second = gate.requests
    assert second.at - first.at >= 0.28
    assert took < 20  # not the 30 s asked for


def _error(e):
    return (type(e).__name__, e.http_status_code, e.error_code, e.error_message, str(e))


@pytest.mark.parametrize("status, payload, expected", [
    (503, b'{"error_code": 50301, "message": "Registry busy"}',
     ("SchemaRegistryError", 503, 50301, "Registry busy",
      "Registry busy (HTTP status code 503, SR code 50301)")),
    (500, b"upstream exploded",
     ("SchemaRegistryError", 500, -1, "Unknown Schema Registry Error: b'upstream exploded'",
      "Unknown Schema Registry Error: b'upstream exploded' (HTTP status code 500, SR code -1)")),
])
def test_5xx_is_retried_then_surfaces_as_confluents_error(schema_registry, status, payload,
                                                          expected):
    got = {}
    for side, mod in sorted(SIDES.items()):
        with HttpGate(schema_registry.url, local=_answer_first(99, status, payload)) as gate:
            conf = {"url": gate.url, "max.retries": 2, "retries.wait.ms": 50,
                    "retries.max.wait.ms": 100}
            with mod.SchemaRegistryClient(conf) as c:
                with pytest.raises(mod.SchemaRegistryError) as info:
                    c.get_subjects()
            got[side] = (_error(info.value), gate.request_count())
    assert got["ours"] == got["theirs"] == (expected, 3)  # the first try and max.retries more


@pytest.mark.parametrize("side", sorted(SIDES))
def test_non_retriable_errors_are_not_retried(schema_registry, side):
    mod = SIDES[side]
    local = _answer_first(99, 400, b'{"error_code": 400, "message": "Bad request"}')
    with HttpGate(schema_registry.url, local=local) as gate:
        with mod.SchemaRegistryClient({"url": gate.url, "retries.wait.ms": 10}) as c:
            with pytest.raises(mod.SchemaRegistryError) as info:
                c.get_subjects()
        assert gate.request_count() == 1
    assert (info.value.http_status_code, info.value.error_code) == (400, 400)


@pytest.mark.parametrize("side", sorted(SIDES))
def test_a_url_that_stays_unavailable_is_left_for_the_next(schema_registry, side):
    mod = SIDES[side]
    local = _answer_first(99, 503, b'{"error_code": 50301, "message": "busy"}')
    subject = _unique("failover")
    with HttpGate(schema_registry.url, local=local) as gate:
        conf = {"url": "%s,%s" % (gate.url, schema_registry.url), "max.retries": 1,
                "retries.wait.ms": 10}
        with mod.SchemaRegistryClient(conf) as c:
            sid = c.register_schema(subject, mod.Schema(USER, "AVRO"))
            assert gate.request_count() == 2  # the first try and one retry
            assert c.get_latest_version(subject).schema_id == sid


# -- OAuth token requests ----------------------------------------------------------------------


def test_oauth_token_requests_are_the_same_as_confluents(schema_registry):
    seen = {}
    for side, mod in sorted(SIDES.items()):
        with TokenServer(schema_registry.url) as server:
            with mod.SchemaRegistryClient(server.conf()) as c:
                c.get_subjects()
                c.get_subjects()
            seen[side] = (server.token_requests(), server.sent())
    # one token request, its token on every registry request
    expected = ([TOKEN_REQUEST], [("Bearer tok-1", "lsrc-1")] * 2)
    assert seen["ours"] == seen["theirs"] == expected


def test_oauth_token_is_fetched_with_the_configured_ca_and_client_certificate(schema_registry,
                                                                              certs):
    tls = {"ssl.ca.location": str(certs.ca_cert),
           "ssl.certificate.location": str(certs.client_cert),
           "ssl.key.location": str(certs.client_key)}
    token_server = _server_context(certs, require_client_cert=True)
    with TokenServer(schema_registry.url, ssl_context=token_server) as server:
        tokens, registry = server.tokens, server.registry
        conf = server.conf(**tls)
        with ours.SchemaRegistryClient(conf) as c:
            assert isinstance(c.get_subjects(), list)
        assert server.token_requests() == [TOKEN_REQUEST]
        assert registry.requests[-1].headers["Authorization"] == "Bearer tok-1"

        # Without the CA, the token endpoint's certificate is refused ...
        no_ca = server.conf(**{k: v for k, v in tls.items() if k != "ssl.ca.location"})
        with ours.SchemaRegistryClient(no_ca) as c:
            with pytest.raises(OAuthTokenError, match="CERTIFICATE_VERIFY_FAILED"):
                c.get_subjects()
        # ... and without the client certificate, the token endpoint refuses the client.
        no_cert = server.conf(**{"ssl.ca.location": str(certs.ca_cert)})
        with ours.SchemaRegistryClient(no_cert) as c:
            with pytest.raises(OAuthTokenError, match="Failed to retrieve token after 0 attempts"):
                c.get_subjects()
        # confluent-kafka's token client takes none of these settings: it verifies the endpoint
        # against its default trust store only (a deliberate difference).
        with theirs.SchemaRegistryClient(conf) as c:
            with pytest.raises(TheirOAuthTokenError, match="CERTIFICATE_VERIFY_FAILED"):
                c.get_subjects()
        assert len(tokens.requests) == 1  # none of the refused handshakes got a request in
        assert len(registry.requests) == 1


def test_oauth_token_requests_go_through_the_proxy_too(schema_registry, env, certs):
    with HttpGate(schema_registry.url, ssl_context=_server_context(certs),
                  local=token_handler()) as tokens, ForwardingProxy() as proxy:
        env.setenv("HTTP_PROXY", proxy.url)
        env.setenv("HTTPS_PROXY", proxy.url)
        conf = oauth_conf(schema_registry.url, token_url(tokens),
                          **{"ssl.ca.location": str(certs.ca_cert)})
        with ours.SchemaRegistryClient(conf) as c:
            assert isinstance(c.get_subjects(), list)
        port = urllib.parse.urlsplit(tokens.url).port
        assert proxy.forwarded[0] == ("CONNECT", "127.0.0.1:%d" % port)
        [(method, target)] = proxy.forwarded[1:]  # the registry request, after the token
        assert method == "GET" and target.startswith(schema_registry.url + "/subjects?")
        assert [token_request(r) for r in tokens.requests] == [TOKEN_REQUEST]


def test_oauth_token_endpoint_retry_after_is_honoured(schema_registry):
    tokens_seen = []
    with TokenServer(schema_registry.url, busy_once_handler(tokens_seen, "tok-2")) as server:
        with ours.SchemaRegistryClient(server.conf(**{"max.retries": 1,
                                                      "retries.wait.ms": 10})) as c:
            c.get_subjects()
        assert server.registry.requests[-1].headers["Authorization"] == "Bearer tok-2"
    assert len(tokens_seen) == 2 and tokens_seen[1] - tokens_seen[0] >= 0.95
