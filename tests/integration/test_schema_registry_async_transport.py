"""The asyncio Schema Registry client's own transport (``httpx.AsyncClient`` on the event loop)
against the real registry: the same retries, ``Retry-After``, error mapping, fail-over, TLS
settings, proxies and OAuth token requests as the blocking client, side by side with
confluent-kafka's asyncio client where both are meant to behave alike."""

import asyncio
import time
import urllib.parse

import pytest

import confluent_binding.schema_registry as ours
from confluent_binding.schema_registry.error import OAuthTokenError, SchemaRegistryConnectionError

from tests.integration.test_schema_registry_transport import (
    _SLOW_DOWN,
    SIDES,
    USER,
    _answer_first,
    _error,
    _server_context,
    _unique,
)
from tests.integration.test_schema_registry_transport import certs as _certs
from tests.integration.test_schema_registry_transport import env as _env
from tests.support.http_gate import HttpGate
from tests.support.http_proxy import ForwardingProxy
from tests.support.oauth_token_server import TOKEN_REQUEST, TokenServer, busy_once_handler

pytestmark = pytest.mark.integration

# the blocking transport's fixtures, under their names here
env = _env
certs = _certs


def _run(mod, conf, work):
    """``await work(client)`` with ``mod``'s asyncio client for ``conf``, in a new loop."""

    async def main():
        async with mod.AsyncSchemaRegistryClient(conf) as client:
            return await work(client)

    return asyncio.run(main())


async def _subjects(client):
    return await client.get_subjects()


def test_the_asyncio_client_sends_on_the_loop_with_an_async_http_client(schema_registry):
    """Every request of the asyncio client goes through its ``httpx.AsyncClient``: what is
    sent there is all the registry sees."""
    subject = _unique("async-session")
    sent = []

    async def work(client):
        session = client._rest_client.session
        assert type(session).__name__ == "AsyncClient"
        send = session.request

        async def recording(method, url, **kwargs):
            sent.append((method, urllib.parse.urlsplit(url).path))
            return await send(method, url=url, **kwargs)

        session.request = recording
        sid = await client.register_schema(subject, ours.Schema(USER, "AVRO"))
        return sid, (await client.get_latest_version(subject)).schema_id

    with HttpGate(schema_registry.url) as gate:
        sid, latest = _run(ours, {"url": gate.url}, work)
        assert sid == latest
        assert sent == [(r.method, r.path.split("?")[0]) for r in gate.requests]
        assert [m for m, _ in sent] == ["POST", "GET"]


@pytest.mark.parametrize("side", sorted(SIDES))
def test_429_with_retry_after_is_retried(schema_registry, side):
    mod = SIDES[side]
    local = _answer_first(1, 429, _SLOW_DOWN, {"Retry-After": "1"})
    with HttpGate(schema_registry.url, local=local) as gate:
        assert isinstance(_run(mod, {"url": gate.url, "retries.wait.ms": 10}, _subjects), list)
        first, second = gate.requests
    assert (first.method, first.path) == (second.method, second.path)
    if side == "ours":
        # Retry-After is honoured (confluent-kafka's client waits its backoff instead)
        assert second.at - first.at >= 0.95


def test_the_loop_keeps_running_during_a_retry_wait(schema_registry):
    local = _answer_first(1, 503, b'{"error_code": 50301, "message": "busy"}',
                          {"Retry-After": "1"})
    ticks = []

    async def work(client):
        async def tick():
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(0.05)

        ticker = asyncio.ensure_future(tick())
        try:
            return await client.get_subjects()
        finally:
            ticker.cancel()

    with HttpGate(schema_registry.url, local=local) as gate:
        assert isinstance(_run(ours, {"url": gate.url}, work), list)
        first, second = gate.requests
    during = [t for t in ticks if first.at < t < second.at]
    assert second.at - first.at >= 0.95 and len(during) >= 5, (len(during), ticks)


@pytest.mark.parametrize("status, payload", [
    (503, b'{"error_code": 50301, "message": "Registry busy"}'),
    (500, b"upstream exploded"),
])
def test_5xx_is_retried_then_surfaces_as_confluents_error(schema_registry, status, payload):
    got = {}
    for side, mod in sorted(SIDES.items()):
        with HttpGate(schema_registry.url, local=_answer_first(99, status, payload)) as gate:
            conf = {"url": gate.url, "max.retries": 2, "retries.wait.ms": 50,
                    "retries.max.wait.ms": 100}
            with pytest.raises(mod.SchemaRegistryError) as info:
                _run(mod, conf, _subjects)
            got[side] = (_error(info.value), gate.request_count())
    assert got["ours"] == got["theirs"]
    assert got["ours"][0][1] == status and got["ours"][1] == 3  # first try + max.retries


def test_no_answer_is_retried_then_surfaces_as_a_connection_error(schema_registry):
    with HttpGate(schema_registry.url) as gate:
        url = gate.url
    # the gate is closed: nothing listens at its port any more
    conf = {"url": url, "max.retries": 1, "retries.wait.ms": 10}
    with pytest.raises(SchemaRegistryConnectionError, match="unreachable"):
        _run(ours, conf, _subjects)


@pytest.mark.parametrize("side", sorted(SIDES))
def test_a_url_that_stays_unavailable_is_left_for_the_next(schema_registry, side):
    mod = SIDES[side]
    local = _answer_first(99, 503, b'{"error_code": 50301, "message": "busy"}')
    subject = _unique("async-failover")

    async def work(client):
        sid = await client.register_schema(subject, mod.Schema(USER, "AVRO"))
        assert gate.request_count() == 2  # the first try and one retry
        return sid == (await client.get_latest_version(subject)).schema_id

    with HttpGate(schema_registry.url, local=local) as gate:
        conf = {"url": "%s,%s" % (gate.url, schema_registry.url), "max.retries": 1,
                "retries.wait.ms": 10}
        assert _run(mod, conf, work)


def test_https_registry_through_the_proxy_of_the_environment(schema_registry, env, certs):
    with HttpGate(schema_registry.url, ssl_context=_server_context(certs)) as gate, \
            ForwardingProxy() as proxy:
        env.setenv("HTTPS_PROXY", proxy.url)
        conf = {"url": gate.url, "ssl.ca.location": str(certs.ca_cert)}
        assert isinstance(_run(ours, conf, _subjects), list)
        port = urllib.parse.urlsplit(gate.url).port
        assert proxy.forwarded and set(proxy.forwarded) == {("CONNECT", "127.0.0.1:%d" % port)}
        assert [r.method for r in gate.requests] == ["GET"]


def test_oauth_token_requests_are_the_same_as_confluents(schema_registry):
    seen = {}

    async def twice(client):
        await client.get_subjects()
        await client.get_subjects()

    for side, mod in sorted(SIDES.items()):
        with TokenServer(schema_registry.url) as server:
            _run(mod, server.conf(), twice)
            seen[side] = (server.token_requests(), server.sent())
    expected = ([TOKEN_REQUEST], [("Bearer tok-1", "lsrc-1")] * 2)
    assert seen["ours"] == seen["theirs"] == expected


def test_oauth_token_with_the_configured_ca_and_client_certificate(schema_registry, certs):
    tls = {"ssl.ca.location": str(certs.ca_cert),
           "ssl.certificate.location": str(certs.client_cert),
           "ssl.key.location": str(certs.client_key)}
    token_server = _server_context(certs, require_client_cert=True)
    with TokenServer(schema_registry.url, ssl_context=token_server) as server:
        assert isinstance(_run(ours, server.conf(**tls), _subjects), list)
        assert server.token_requests() == [TOKEN_REQUEST]
        assert server.registry.requests[-1].headers["Authorization"] == "Bearer tok-1"

        no_ca = server.conf(**{k: v for k, v in tls.items() if k != "ssl.ca.location"})
        with pytest.raises(OAuthTokenError, match="CERTIFICATE_VERIFY_FAILED"):
            _run(ours, no_ca, _subjects)
        assert len(server.tokens.requests) == 1 and len(server.registry.requests) == 1


def test_oauth_token_endpoint_retry_after_is_honoured(schema_registry):
    tokens_seen = []
    with TokenServer(schema_registry.url, busy_once_handler(tokens_seen, "tok-2")) as server:
        _run(ours, server.conf(**{"max.retries": 1, "retries.wait.ms": 10}), _subjects)
        assert server.registry.requests[-1].headers["Authorization"] == "Bearer tok-2"
    assert len(tokens_seen) == 2 and tokens_seen[1] - tokens_seen[0] >= 0.95


def test_one_client_serves_one_event_loop_after_another(schema_registry):
    """A client kept across ``asyncio.run`` calls (a module-level client, a test fixture):
    the connections of a closed loop are not reused on the next one."""
    client = ours.AsyncSchemaRegistryClient({"url": schema_registry.url})
    subject = _unique("loops")

    async def register():
        return await client.register_schema(subject, ours.Schema(USER, "AVRO"))

    async def latest():
        await client.clear_caches()  # the next call must ask the registry
        return (await client.get_latest_version(subject)).schema_id

    sid = asyncio.run(register())
    assert asyncio.run(latest()) == sid
    assert asyncio.run(latest()) == sid
