"""confluent-kafka's ``schema_registry._async.schema_registry_client``: the names of
:mod:`confluent_binding.schema_registry.schema_registry_client`, the asyncio REST client under
confluent-kafka's private name, and the asyncio OAuth token clients
(``_AsyncOAuthClient``, ``_AsyncOAuthAzureIMDSClient``), whose fetch-and-retry loop is defined
here."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Optional

from .. import _oauth
from .. import schema_registry_client as _target
from .._oauth import (  # noqa: F401  (confluent-kafka's names, importable from here)
    _AsyncBearerFieldProvider,
    _AsyncCustomOAuthClient,
    _AsyncStaticFieldProvider,
)
from .._rest import DEFAULT_TIMEOUT, _AsyncTransport, _default_context
from .._rest import _AsyncRestClient as _AsyncRestClient  # noqa: F401
from .._retry import full_jitter
from ..common._mirroring import _mirror


class _AsyncAbstractOAuthClient(_oauth._TokenSource, _AsyncBearerFieldProvider):
    """The asyncio driver of a token client: fetches a token through the registry client's
    asyncio transport (its TLS settings and proxy) when there is none or it has expired,
    retrying ``max_retries`` times with the shared backoff, waiting with ``asyncio.sleep``."""

    _transport: Any = None
    _lock: Optional[asyncio.Lock] = None

    def _driver_init(self, transport: Any) -> None:
        self._transport = transport

    @property
    def transport(self) -> Any:
        """The transport token requests go through (a client's own one when made alone)."""
        if self._transport is None:
            self._transport = _AsyncTransport(_default_context(), None, DEFAULT_TIMEOUT)
        return self._transport

    async def get_bearer_fields(self) -> Dict[str, Any]:
        return self.bearer_fields(await self.get_access_token())

    async def get_access_token(self) -> str:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not self.token or self.token_expired():
                await self.generate_access_token()
            return self.token

    async def fetch_token(self) -> str:
        method, url, headers, body = self.token_request()
        response = await self.transport.request(method, url, headers, body, client_auth=False)
        return self.accept_token(
            response.status_code, response.content, response.headers.get("Retry-After"))

    async def generate_access_token(self) -> None:
        for attempt in range(self.max_retries + 1):
            try:
                self.token = await self.fetch_token()
                return
            except Exception as e:
                if attempt >= self.max_retries:
                    raise self.give_up(e) from e
                await asyncio.sleep(self.retry_wait_ms(e, attempt, full_jitter) / 1000)


class _AsyncOAuthClient(_oauth._ClientCredentials, _AsyncAbstractOAuthClient):
    """``OAUTHBEARER``: tokens from an OAuth issuer by the client-credentials grant."""

    def __init__(self, *args: Any, transport: Any = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._driver_init(transport)


class _AsyncOAuthAzureIMDSClient(_oauth._AzureIMDS, _AsyncAbstractOAuthClient):
    """``OAUTHBEARER_AZURE_IMDS``: tokens from Azure's instance metadata service."""

    def __init__(self, *args: Any, transport: Any = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._driver_init(transport)


_oauth.register(True, OAUTHBEARER=_AsyncOAuthClient,
                OAUTHBEARER_AZURE_IMDS=_AsyncOAuthAzureIMDSClient)

_mirror(globals(), _target)
