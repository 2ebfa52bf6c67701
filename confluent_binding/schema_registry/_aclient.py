"""The asyncio Schema Registry client, :class:`AsyncSchemaRegistryClient`: the blocking client's
methods as coroutines (offered by :mod:`.schema_registry_client`, as confluent-kafka's)."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Dict, Optional

from ._client import SchemaRegistryClient
from ._rest import _AsyncRestClient, run_blocking

# The client's request methods, which the async client offers as coroutines.
_ASYNC_METHODS = [
    name
    for name, value in vars(SchemaRegistryClient).items()
    if callable(value)
    and not name.startswith("_")
    and name not in ("close", "config", "new_client")
]


class AsyncSchemaRegistryClient:
    """:class:`SchemaRegistryClient`'s methods as coroutines, for asyncio applications.

    A call answered from the caches returns at once, on the loop.  One that needs the registry
    runs :class:`SchemaRegistryClient`'s logic (one description of what each method asks and
    caches) in the event loop's default executor, and its requests are sent on the loop by the
    asyncio REST client (``httpx.AsyncClient``; the same configuration, retries, proxies, TLS
    settings and OAuth token fetches as the blocking client's).  The caches are shared by all
    calls.
    """

    _async_rest: Optional[_AsyncRestClient] = None

    def __init__(self, conf: Dict[str, Any]):
        self._async_rest = _AsyncRestClient(conf)
        self._client = SchemaRegistryClient._with_rest_client(conf, self._async_rest.blocking())

    @classmethod
    def _over(cls, client: SchemaRegistryClient) -> "AsyncSchemaRegistryClient":
        self = cls.__new__(cls)
        self._client = client
        return self

    @property
    def _rest_client(self) -> Any:
        # the asyncio REST client (its settings, its httpx ``session``), under confluent-kafka's
        # name; over a blocking client (``_over``), that client's
        if self._async_rest is not None:
            return self._async_rest
        return self._client._rest_client

    @property
    def _cache(self) -> Any:
        # the schema cache, under confluent-kafka's name (its tests read it): the blocking
        # client's, which this client's calls fill and clear; its methods are plain calls
        return self._client._cache

    async def __aenter__(self) -> "AsyncSchemaRegistryClient":
        return self

    async def __aexit__(self, *args: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the kept-alive connections."""
        self._client.close()
        if self._async_rest is not None:
            await self._async_rest.aclose()

    def config(self) -> Dict[str, Any]:
        """The configuration dict the client was created with (as confluent-kafka's)."""
        return self._client.config()

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return await run_blocking(getattr(self._client, name), *args, **kwargs)

    async def clear_latest_caches(self) -> None:
        """Forget the cached latest versions (the next lookup asks the registry)."""
        self._client.clear_latest_caches()

    async def clear_caches(self) -> None:
        """Forget everything cached: schemas, ids, versions and latest versions."""
        self._client.clear_caches()

    @staticmethod
    def new_client(conf: Dict[str, Any]) -> "AsyncSchemaRegistryClient":
        """A client for ``conf``; over the in-memory mock for a ``mock://`` URL."""
        return AsyncSchemaRegistryClient._over(SchemaRegistryClient.new_client(conf))


def _async_method(name: str) -> Any:
    sync = getattr(SchemaRegistryClient, name)

    @functools.wraps(sync)
    async def method(self: AsyncSchemaRegistryClient, *args: Any, **kwargs: Any) -> Any:
        return await self._call(name, *args, **kwargs)

    # the blocking method's signature, but not the blocking method itself as __wrapped__:
    # what unwraps the coroutine function (unittest.mock's spec from Python 3.13) would find
    # a plain function there
    method.__signature__ = inspect.signature(sync)  # type: ignore[attr-defined]
    del method.__wrapped__
    return method


for _name in _ASYNC_METHODS:
    if _name not in vars(AsyncSchemaRegistryClient):
        setattr(AsyncSchemaRegistryClient, _name, _async_method(_name))
del _name
