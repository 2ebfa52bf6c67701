"""The Schema Registry clients' bearer field providers and OAuth token clients under
confluent-kafka's private names and module paths (``_OAuthClient``, ``_AsyncOAuthClient``, ...),
and the asyncio REST client's request policy, side by side with confluent-kafka.  No server:
token fetches fail at the transport (an unsupported URL) or are replaced."""

import asyncio
import contextlib
import importlib
import threading
import time
from unittest import mock

import pytest

from confluent_binding.schema_registry._rest import _httpx

from tests.support.parity import Raises, same

# the HTTP library both clients send with (httpx2 where installed, else httpx)
httpx = _httpx()

CLUSTER = "lsrc-1"
POOL = "pool-1"
URL = "http://sr.invalid:8081"


def sub(m, path):
    return importlib.import_module("%s.%s" % (m.__name__, path))


def sync_mod(m):
    return sub(m, "schema_registry._sync.schema_registry_client")


def async_mod(m):
    return sub(m, "schema_registry._async.schema_registry_client")


@contextlib.contextmanager
def sleeps_here(name):
    """Replace the sleep function ``name`` ("time.sleep", "asyncio.sleep") for this thread only,
    and list what this thread asked to sleep: another thread of the test process (a client's,
    an executor's) sleeps as before and is not counted."""
    real, here, slept = mock.patch(name).get_original()[0], threading.get_ident(), []

    def fake(seconds, *args, **kwargs):
        if threading.get_ident() != here:
            return real(seconds, *args, **kwargs)
        slept.append(seconds)
        return real(0) if name == "asyncio.sleep" else None

    with mock.patch(name, fake):
        yield slept


def oauth_client(m, retries=2):
    return sync_mod(m)._OAuthClient("id", "secret", "scope", "not-a-url", CLUSTER, retries,
                                    1, 2, POOL)


def azure_client(m, retries=2):
    return sync_mod(m)._OAuthAzureIMDSClient("not-a-url", CLUSTER, POOL, retries, 1, 2)


def async_oauth_client(m, retries=2):
    return async_mod(m)._AsyncOAuthClient("id", "secret", "scope", "not-a-url", CLUSTER,
                                          retries, 1, 2, POOL)


def test_the_token_clients_start_without_a_token():
    def scenario(m):
        return [(c.token, c.token_object, c.token_endpoint, c.logical_cluster, c.identity_pool,
                 c.max_retries, c.retries_wait_ms, c.retries_max_wait_ms,
                 c.token_expiry_threshold)
                for c in (oauth_client(m), azure_client(m), async_oauth_client(m))]

    same(scenario, [("", {}, "not-a-url", CLUSTER, POOL, 2, 1, 2, 0.8)] * 3)


# Each case clear of the 80 % line by more than a second: Azure's expires_on is whole seconds,
# and the two clients' runs take their time.
@pytest.mark.parametrize("lifetime, elapsed, expired", [
    (100, 0, False), (100, 75, False), (100, 85, True), (10, 9, True), (3600, -10, False),
])
def test_a_token_expires_after_80_percent_of_its_lifetime(lifetime, elapsed, expired):
    def scenario(m):
        issued = time.time() - elapsed
        client, azure, aio = oauth_client(m), azure_client(m), async_oauth_client(m)
        client.token_object = aio.token_object = {"expires_at": issued + lifetime,
                                                  "expires_in": lifetime}
        azure.token_object = {"expires_on": str(int(issued + lifetime)),
                              "expires_in": str(lifetime)}
        return [c.token_expired() for c in (client, aio)], azure.token_expired()

    same(scenario, ([expired, expired], expired))


def _counting(client, tokens):
    """Replace ``client.generate_access_token`` by one that hands out ``tokens`` in turn."""
    calls = []

    def generate():
        token, expires_at = tokens[len(calls)]
        calls.append(token)
        client.token_object = {"access_token": token, "expires_at": expires_at,
                               "expires_in": 10}
        client.token = token

    return calls, generate


def test_a_token_is_fetched_when_there_is_none_or_it_expired():
    def scenario(m):
        client = oauth_client(m)
        calls, client.generate_access_token = _counting(
            client, [("t1", 0), ("t2", time.time() + 100)])
        fields = [client.get_bearer_fields() for _ in range(3)]
        return calls, fields

    def fields(token):
        return {"bearer.auth.token": token, "bearer.auth.logical.cluster": CLUSTER,
                "bearer.auth.identity.pool.id": POOL}

    # t1 has expired when asked for again: t2 is fetched, and kept
    same(scenario, (["t1", "t2"], [fields("t1"), fields("t2"), fields("t2")]))


def test_the_asyncio_client_fetches_a_token_the_same_way():
    def scenario(m):
        client = async_oauth_client(m)
        calls, generate = _counting(client, [("t1", 0), ("t2", time.time() + 100)])

        async def agenerate():
            generate()

        client.generate_access_token = agenerate

        async def main():
            return [await client.get_access_token() for _ in range(3)]

        return calls, asyncio.run(main())

    same(scenario, (["t1", "t2"], ["t1", "t2", "t2"]))


def test_a_failing_token_endpoint_is_retried_then_raises():
    def scenario(m):
        with sleeps_here("time.sleep") as slept:
            try:
                oauth_client(m, retries=3).get_access_token()
            except m.schema_registry.error.OAuthTokenError as e:
                return str(e).split(" due to")[0], len(slept)

    same(scenario, ("Failed to retrieve token after 3 attempts", 3))


def test_a_failing_token_endpoint_is_retried_then_raises_asyncio():
    def scenario(m):
        async def main():
            with sleeps_here("asyncio.sleep") as slept:
                try:
                    await async_oauth_client(m, retries=2).get_access_token()
                except m.schema_registry.error.OAuthTokenError as e:
                    return str(e).split(" due to")[0], len(slept)

        return asyncio.run(main())

    same(scenario, ("Failed to retrieve token after 2 attempts", 2))


def test_static_and_custom_providers():
    config = {"bearer.auth.token": "tok", "bearer.auth.logical.cluster": CLUSTER}

    async def custom(conf):
        return dict(conf)

    def scenario(m):
        common = sub(m, "schema_registry.common.schema_registry_client")
        static = sub(m, "schema_registry.common._oauthbearer")._StaticFieldProvider(
            "tok", CLUSTER)

        async def main():
            return (await common._AsyncStaticFieldProvider("tok", CLUSTER, POOL)
                    .get_bearer_fields(),
                    await async_mod(m)._AsyncCustomOAuthClient(custom, config)
                    .get_bearer_fields())

        return (static.get_bearer_fields(),
                sync_mod(m)._CustomOAuthClient(dict, config).get_bearer_fields(),
                asyncio.run(main()))

    same(scenario, (config, config, (dict(config, **{"bearer.auth.identity.pool.id": POOL}),
                                     config)))


@pytest.mark.parametrize("conf, expect", [
    ({"bearer.auth.credentials.source": "STATIC_TOKEN", "bearer.auth.token": "tok",
      "bearer.auth.logical.cluster": CLUSTER, "bearer.auth.identity.pool.id": "a,b"},
     {"Authorization": "Bearer tok", "target-sr-cluster": CLUSTER,
      "Confluent-Identity-Pool-Id": "a,b"}),
    ({"bearer.auth.credentials.source": "CUSTOM",
      "bearer.auth.custom.provider.function": lambda c: {},
      "bearer.auth.custom.provider.config": {}},
     Raises(ValueError, "Missing required bearer auth fields")),
])
def test_the_asyncio_rest_client_adds_the_bearer_headers(conf, expect):
    def scenario(m):
        async def main():
            conf_ = dict(conf, url=URL)
            if conf_.get("bearer.auth.custom.provider.function"):
                async def empty(c):
                    return {}
                conf_["bearer.auth.custom.provider.function"] = empty
            client = m.schema_registry.AsyncSchemaRegistryClient(conf_)
            headers = {}
            await client._rest_client.handle_bearer_auth(headers)
            return headers

        return asyncio.run(main())

    same(scenario, expect)


def _response(status, body=b"[]", headers=None):
    return httpx.Response(status, content=body, headers=headers or {},
                          request=httpx.Request("GET", URL + "/subjects"))


@pytest.mark.parametrize("answers, expect", [
    ([503, 200], (["a"], 2)),
    ([httpx.ConnectError("refused"), 200], (["a"], 2)),
    ([503, 503, 503], Raises("SchemaRegistryError", "busy")),
    ([404], Raises("SchemaRegistryError", "busy")),
])
def test_the_asyncio_rest_client_retries_as_the_blocking_one(answers, expect):
    def scenario(m):
        rest = async_mod(m)._AsyncRestClient(
            {"url": URL, "max.retries": 2, "retries.wait.ms": 1, "retries.max.wait.ms": 2})
        replies = [a if isinstance(a, Exception) else
                   _response(a, b'["a"]' if a == 200 else
                             b'{"error_code": 50301, "message": "busy"}')
                   for a in answers]
        rest.session.request = mock.AsyncMock(side_effect=replies)

        async def main():
            result = await rest.send_request("subjects", method="GET")
            return result, rest.session.request.call_count

        return asyncio.run(main())

    same(scenario, expect)
