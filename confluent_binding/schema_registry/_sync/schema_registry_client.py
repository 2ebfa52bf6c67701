"""confluent-kafka's ``schema_registry._sync.schema_registry_client``: the names of
:mod:`confluent_binding.schema_registry.schema_registry_client`, its REST client under
confluent-kafka's private name, and the blocking OAuth token clients (``_OAuthClient``,
``_OAuthAzureIMDSClient``), whose fetch-and-retry loop is defined here."""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, Optional

from .. import _oauth
from .. import schema_registry_client as _target
from .._oauth import (  # noqa: F401  (confluent-kafka's names, importable from here)
    _BearerFieldProvider,
    _CustomOAuthClient,
    _StaticFieldProvider,
)
from .._rest import DEFAULT_TIMEOUT, _default_context, _Transport
from .._rest import RestClient as _RestClient  # noqa: F401
from .._retry import full_jitter
from ..common._mirroring import _mirror


class _AbstractOAuthClient(_oauth._TokenSource, _BearerFieldProvider):
    """The blocking driver of a token client: fetches a token through the registry client's
    transport (its TLS settings and proxy) when there is none or it has expired, retrying
    ``max_retries`` times with the shared backoff."""

    _transport: Any = None
    _lock: Optional[threading.Lock] = None

    def _driver_init(self, transport: Any) -> None:
        self._transport = transport
        self._lock = threading.Lock()

    @property
    def transport(self) -> Any:
        """The transport token requests go through (a client's own one when made alone)."""
        if self._transport is None:
            self._transport = _Transport(_default_context(), None, DEFAULT_TIMEOUT)
        return self._transport

    def get_bearer_fields(self) -> Dict[str, Any]:
        return self.bearer_fields(self.get_access_token())

    def get_access_token(self) -> str:
        assert self._lock is not None
        with self._lock:
            if not self.token or self.token_expired():
                self.generate_access_token()
            return self.token

    def fetch_token(self) -> str:
        method, url, headers, body = self.token_request()
        response = self.transport.request(method, url, headers, body, client_auth=False)
        return self.accept_token(
            response.status_code, response.content, response.headers.get("Retry-After"))

    def generate_access_token(self) -> None:
        for attempt in range(self.max_retries + 1):
            try:
                self.token = self.fetch_token()
                return
            except Exception as e:
                if attempt >= self.max_retries:
                    raise self.give_up(e) from e
                wait_ms = self.retry_wait_ms(e, attempt, full_jitter)
                time.sleep(wait_ms / 1000)


class _OAuthClient(_oauth._ClientCredentials, _AbstractOAuthClient):
    """``OAUTHBEARER``: tokens from an OAuth issuer by the client-credentials grant."""

    def __init__(self, *args: Any, transport: Any = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._driver_init(transport)


class _OAuthAzureIMDSClient(_oauth._AzureIMDS, _AbstractOAuthClient):
    """``OAUTHBEARER_AZURE_IMDS``: tokens from Azure's instance metadata service."""

    def __init__(self, *args: Any, transport: Any = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._driver_init(transport)


_oauth.register(False, OAUTHBEARER=_OAuthClient, OAUTHBEARER_AZURE_IMDS=_OAuthAzureIMDSClient)

_mirror(globals(), _target)
