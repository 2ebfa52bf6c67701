"""HTTP transport of the Schema Registry client, on httpx.

Configuration keys, their checks and messages, the request headers, the retry and fail-over rules
and the error mapping follow confluent-kafka's client, so a config dict that works there works
here.  Like confluent-kafka 2.16, the transport is httpx2 (httpx's maintained successor) where it
is installed and httpx otherwise, so both packages share one HTTP library.  Every request of a
client, to the registry and to an OAuth token endpoint alike, goes through one ``httpx`` client:
one TLS context (``ssl.ca.location``, the client certificate and key), the ``proxy`` setting or
else the proxies of the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``,
``NO_PROXY``), one timeout, and a pool of kept-alive connections.

Retries: a retriable status (408, 429, 500, 502, 503, 504) or no answer at all is retried up to
``max.retries`` times per URL after a "full jitter" exponential backoff (``retries.wait.ms``
doubled per retry, capped by ``retries.max.wait.ms``), as confluent-kafka's; an answer with a
``Retry-After`` header (seconds or an HTTP date) is retried after that long instead, capped by
``retries.max.wait.ms`` as well (the policy is in :mod:`._retry`).

Two clients share the configuration and that policy: :class:`RestClient`, blocking, and
:class:`_AsyncRestClient`, whose requests an ``httpx.AsyncClient`` with the same settings sends on
the event loop.  The policy of a call is written once, as the steps of a generator
(``_BaseRestClient._call_steps``: build the headers, send, wait, give the result); each client
is a small driver of those steps, the one blocking, the other awaiting.  OAuth token clients are
built the same way (:mod:`._oauth`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import os
import ssl
import threading
import time
import urllib.parse
from typing import Any, Awaitable, Callable, Dict, Generator, List, Optional, Tuple, Type

from .._serdes import maybe_await
from . import _oauth
from ._oauth import normalize_identity_pool
from ._retry import full_jitter, is_retriable, is_success, retry_after_ms, retry_wait_ms
from ._steps import drive, finish
from .error import SchemaRegistryConnectionError, SchemaRegistryError

__all__ = ["RestClient", "VALID_AUTH_PROVIDERS", "full_jitter", "is_retriable", "is_success",
           "normalize_identity_pool", "retry_after_ms", "urlencode"]

#: Per-request timeout (seconds) when the config sets none.  confluent-kafka waits without limit;
#: a registry that accepts the connection and never answers must not hang a producer forever.
DEFAULT_TIMEOUT = 60.0

_ACCEPT = (
    "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json"
)
_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"

_httpx_module: Any = None


def _httpx() -> Any:
    """The httpx module: httpx2 if installed, else httpx (imported when the first client is
    made, not when the package's modules are imported)."""
    global _httpx_module
    if _httpx_module is None:
        try:
            import httpx2 as module
        except ImportError:
            try:
                import httpx as module  # type: ignore[no-redef]
            except ImportError:
                raise ImportError(
                    "The Schema Registry client needs httpx2 (Python 3.10+) or httpx: "
                    "pip install 'confluent_binding[schemaregistry]'"
                ) from None
        _httpx_module = module
    return _httpx_module


class WouldBlock(BaseException):
    """Raised instead of sending a request while :func:`cached_only` is in force: the answer
    is not cached and getting it would block.  A BaseException, so that no ``except
    Exception`` between the request and the :func:`cached_only` block turns it into an
    error."""


_no_requests = threading.local()


class cached_only:
    """``with cached_only():`` this thread sends no request (:class:`WouldBlock` instead):
    what runs inside may only use what the clients have cached.  The asyncio serdes and
    client run their blocking counterparts this way on the event loop, and in a worker thread
    only when a request is needed."""

    def __enter__(self) -> None:
        self._outer = getattr(_no_requests, "on", False)
        _no_requests.on = True

    def __exit__(self, *exc: Any) -> None:
        _no_requests.on = self._outer


def may_block() -> bool:
    """False inside :func:`cached_only`: the caller must not wait (for a request, or a lock
    a request may be holding)."""
    return not getattr(_no_requests, "on", False)


async def run_blocking(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` for a coroutine: on the event loop's thread when it needs
    nothing but cached answers (the common case, no thread hop), else again in the loop's
    default executor, so the loop never waits on the registry."""
    try:
        with cached_only():
            return func(*args, **kwargs)
    except WouldBlock:
        pass
    context = executor_context()
    return await asyncio.get_running_loop().run_in_executor(
        None, functools.partial(context.run, func, *args, **kwargs)
    )


def executor_context() -> contextvars.Context:
    """A copy of the running coroutine's context for a blocking call in an executor thread,
    knowing the event loop it came from (the asyncio client's requests are awaited there)."""
    context = contextvars.copy_context()
    context.run(_event_loop.set, asyncio.get_running_loop())
    return context


#: the event loop a blocking call made by :func:`run_blocking` was made for (in its thread)
_event_loop: contextvars.ContextVar[Optional[asyncio.AbstractEventLoop]] = (
    contextvars.ContextVar("schema_registry_event_loop", default=None))


def urlencode(value: str) -> str:
    """A path segment: every reserved character escaped (subjects may contain ``/``, ``:``)."""
    return urllib.parse.quote(value, safe="")


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _query_string(query: Optional[Dict[str, Any]]) -> str:
    if not query:
        return ""
    pairs: List[Tuple[str, str]] = []
    for key, value in query.items():
        if value is None:
            continue
        for v in value if isinstance(value, (list, tuple)) else [value]:
            pairs.append((key, _query_value(v)))
    return urllib.parse.urlencode(pairs)


def _number(conf: dict, key: str, default: Any, convert: Callable[[Any], Any] = int) -> Any:
    value = conf.pop(key, None)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number, not %s" % (key, type(value)))
    return convert(value)


#: the values of ``basic.auth.credentials.source``
VALID_AUTH_PROVIDERS = ["URL", "USER_INFO"]


class _Transport:
    """The httpx client every request of a registry client goes through: the TLS context, the
    proxy (``proxy``, else the environment's), the timeout, kept-alive connections.  ``close()``
    closes the connections; the next request opens new ones (reading the environment again)."""

    def __init__(self, verify: ssl.SSLContext, proxy: Any, timeout: float,
                 auth: Optional[Tuple[str, str]] = None):
        self._verify = verify
        self._proxy = proxy
        self._timeout = timeout
        self._auth = auth
        self._lock = threading.Lock()
        self._client: Any = None
        self._open()  # a bad ``proxy`` fails here, when the client is made

    def _options(self) -> Dict[str, Any]:
        """The httpx client's settings (the same for the asyncio transport)."""
        return dict(verify=self._verify, auth=self._auth, proxy=self._proxy,
                    timeout=self._timeout, trust_env=True, follow_redirects=False)

    def _open(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = _httpx().Client(**self._options())
            return self._client

    def request(
        self, method: str, url: str, headers: Dict[str, str], content: Optional[bytes],
        client_auth: bool = True,
    ) -> Any:
        """The answer (any status); httpx's ``TransportError`` when there is none.  The
        client's basic credentials go with every request but those with ``client_auth=False``
        (token requests, which carry their own)."""
        extra = {} if client_auth else {"auth": None}
        while True:
            client = self._open()
            try:
                # (the URL by keyword, as confluent-kafka's: tests of both read it so)
                return client.request(method, url=url, headers=headers, content=content, **extra)
            except RuntimeError:
                if not client.is_closed:
                    raise
                # close() ran on another thread since this one took the client: use a new one

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


class _AsyncTransport(_Transport):
    """:class:`_Transport` for the asyncio client: an ``httpx.AsyncClient`` with the same
    settings, used on the event loop.  ``aclose()`` closes its connections; the next request
    opens new ones.  The connections belong to the loop they were made on: once it is closed,
    a request from another loop (a client kept across ``asyncio.run`` calls) opens new ones."""

    _loop: Optional[asyncio.AbstractEventLoop] = None

    def _open(self) -> Any:
        try:
            loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        with self._lock:
            if (self._client is not None and loop is not None and self._loop is not None
                    and self._loop is not loop and self._loop.is_closed()):
                self._client = None  # (nothing to close it on: its loop is gone)
            if self._client is None:
                self._client = _httpx().AsyncClient(**self._options())
                self._loop = loop
            elif self._loop is None:
                self._loop = loop
            return self._client

    async def request(
        self, method: str, url: str, headers: Dict[str, str], content: Optional[bytes],
        client_auth: bool = True,
    ) -> Any:
        extra = {} if client_auth else {"auth": None}
        return await self._open().request(method, url=url, headers=headers, content=content,
                                          **extra)

    def close(self) -> None:
        raise TypeError("the asyncio transport is closed with: await aclose()")

    async def aclose(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            await client.aclose()


def _default_context() -> ssl.SSLContext:
    return RestClient._ssl_context({})


class _Target:
    """One registry URL and its own transport (the legacy Avro client's registry client):
    ``send(method, request_target(path), body, headers)`` gives ``(status, content)``."""

    def __init__(
        self, url: str, ssl_context: Optional[ssl.SSLContext], proxy: Optional[str],
        timeout: float,
    ):
        parsed = urllib.parse.urlsplit(url)
        self.scheme = parsed.scheme
        self.base = url.rstrip("/")
        self.display = self.base
        context = ssl_context if ssl_context is not None else _default_context()
        self._transport = _Transport(context, proxy, timeout)

    def request_target(self, path: str) -> str:
        return "%s/%s" % (self.base, path)

    def send(
        self, method: str, target: str, body: Optional[bytes], headers: Dict[str, str]
    ) -> Tuple[int, bytes]:
        response = self._transport.request(method, target, headers, body)
        return response.status_code, response.content

    def close(self) -> None:
        self._transport.close()


class _BaseRestClient:
    """What the blocking and the asyncio REST clients share: the configuration (a
    confluent-style dict, parsed and checked), the request headers and the request policy
    (:meth:`_call_steps`)."""

    #: whether the client's transport and token clients are asyncio ones
    _asynchronous = False

    def __init__(self, conf: dict):
        conf = dict(conf)
        base_url = conf.pop("url", None)
        if base_url is None:
            raise ValueError("Missing required configuration property url")
        if not isinstance(base_url, str):
            raise TypeError("url must be a str, not " + str(type(base_url)))
        base_urls = []
        for url in base_url.split(","):
            url = url.strip().rstrip("/")
            if not url.startswith("http") and not url.startswith("mock"):
                raise ValueError("Invalid url {}".format(url))
            base_urls.append(url)
        if not base_urls:
            raise ValueError("Missing required configuration property url")
        self.base_urls = base_urls

        self.ssl_context = self._ssl_context(conf)
        self.auth = self._basic_auth(conf)

        self.proxy = conf.pop("proxy", None)
        timeout = conf.pop("timeout", None)
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, (int, float))
        ):
            raise TypeError("timeout must be a number, not " + str(type(timeout)))
        self.timeout = timeout
        self.cache_capacity = _number(conf, "cache.capacity", 1000)
        self.cache_latest_ttl_sec = _number(conf, "cache.latest.ttl.sec", None, convert=lambda v: v)
        self.max_retries = _number(conf, "max.retries", 3)
        self.retries_wait_ms = _number(conf, "retries.wait.ms", 1000)
        self.retries_max_wait_ms = _number(conf, "retries.max.wait.ms", 20000)

        source = conf.pop("bearer.auth.credentials.source", None)
        bearer_settings: Optional[Dict[str, Any]] = None
        if source is not None:
            if source not in _oauth.BEARER_SOURCES:
                raise ValueError("Unrecognized bearer.auth.credentials.source")
            bearer_settings = _oauth.parse_bearer_conf(source, conf)

        if conf:
            raise ValueError("Unrecognized properties: {}".format(", ".join(conf.keys())))

        effective_timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self._urls = [_strip_userinfo(u) for u in base_urls]
        self._transport = self._new_transport(effective_timeout)
        #: where the bearer token and its fields come from (None without a credentials source);
        #: token requests go through this client's transport
        self.bearer: Any = None
        if source is not None:
            retries = (self.max_retries, self.retries_wait_ms, self.retries_max_wait_ms)
            self.bearer = _oauth.build_field_provider(
                self._asynchronous, source, bearer_settings or {}, retries, self._transport)
        from .. import __version__  # the package version, for the client-version header

        self._client_version = "python/%s" % __version__

    def _new_transport(self, timeout: float) -> _Transport:
        return _Transport(self.ssl_context, self.proxy, timeout, self.auth)

    @staticmethod
    def _ssl_context(conf: dict) -> ssl.SSLContext:
        ca = conf.pop("ssl.ca.location", None)
        key = conf.pop("ssl.key.location", None)
        key_password = conf.pop("ssl.key.password", None)
        cert = conf.pop("ssl.certificate.location", None)
        if ca is False:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        elif isinstance(ca, str):
            ctx = (
                ssl.create_default_context(capath=ca)
                if os.path.isdir(ca)
                else ssl.create_default_context(cafile=ca)
            )
        elif os.environ.get("SSL_CERT_FILE"):
            ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
        elif os.environ.get("SSL_CERT_DIR"):
            ctx = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
        else:
            ctx = ssl.create_default_context()
        if cert is not None:
            ctx.load_cert_chain(certfile=cert, keyfile=key, password=key_password)
        if (key is not None or key_password is not None) and cert is None:
            raise ValueError(
                "ssl.certificate.location required when"
                " configuring ssl.key.location or ssl.key.password"
            )
        return ctx

    def _basic_auth(self, conf: dict) -> Optional[Tuple[str, str]]:
        parsed = urllib.parse.urlsplit(self.base_urls[0])
        userinfo: Tuple[str, ...] = (
            (urllib.parse.unquote(parsed.username), urllib.parse.unquote(parsed.password or ""))
            if parsed.username is not None
            else ("", "")
        )
        # confluent-kafka 1.x's switch between the two sources, accepted for configs written then;
        # any other value is left to be reported with the unrecognized properties, as
        # confluent-kafka 2.x reports the key itself
        source = conf.get("basic.auth.credentials.source")
        if source in VALID_AUTH_PROVIDERS:
            del conf["basic.auth.credentials.source"]
        else:
            source = None
        if source == "USER_INFO" and "basic.auth.user.info" not in conf:
            raise ValueError(
                "basic.auth.credentials.source USER_INFO requires basic.auth.user.info"
            )
        if "basic.auth.user.info" in conf:
            if userinfo != ("", ""):
                raise ValueError(
                    "basic.auth.user.info configured with userinfo credentials in the URL."
                    " Remove userinfo credentials from the url or remove basic.auth.user.info"
                    " from the configuration"
                )
            userinfo = tuple(conf.pop("basic.auth.user.info", "").split(":", 1))
            if len(userinfo) != 2:
                raise ValueError(
                    "basic.auth.user.info must be in the form of {username}:{password}"
                )
        return (userinfo[0], userinfo[1]) if userinfo != ("", "") else None

    def _base_headers(self, body: Optional[bytes]) -> Dict[str, str]:
        headers = {"Accept": _ACCEPT, "Confluent-Client-Version": self._client_version}
        if body is not None:
            headers["Content-Type"] = _CONTENT_TYPE
            headers["Confluent-Accept-Unknown-Properties"] = "true"
        return headers

    @property
    def bearer_field_provider(self) -> Any:
        """Where the bearer token and the fields sent with it come from (None without
        ``bearer.auth.credentials.source``); confluent-kafka's name."""
        return self.bearer

    def _set_bearer_fields(self, headers: Dict[str, str], fields: Dict[str, str]) -> None:
        missing = [
            f for f in ("bearer.auth.token", "bearer.auth.logical.cluster") if f not in fields
        ]
        if missing:
            raise ValueError(
                "Missing required bearer auth fields, needs to be set in config or custom"
                " function: "
                + ", ".join(missing)
            )
        headers["Authorization"] = "Bearer {}".format(fields["bearer.auth.token"])
        headers["target-sr-cluster"] = fields["bearer.auth.logical.cluster"]
        if "bearer.auth.identity.pool.id" in fields:
            headers["Confluent-Identity-Pool-Id"] = fields["bearer.auth.identity.pool.id"]

    @property
    def session(self) -> Any:
        """The httpx client the requests go through (confluent-kafka's name): its ``auth`` is
        the basic credentials, if any."""
        return self._transport._open()

    def _call_steps(
        self, path: str, method: str, body: Optional[dict], query: Optional[dict]
    ) -> Generator[Tuple[Any, ...], Any, Any]:
        """The request policy of one call, as the steps a driver (blocking or asyncio) takes:
        it yields ``("headers", data)`` (send back the request headers),
        ``("send", method, url, headers, data)`` (send back the answer, or throw in httpx's
        ``TransportError`` when there is none) and ``("wait", seconds)``, and returns the
        call's result.

        Each URL in turn until one answers without a retriable error; at each, retriable
        answers and no answer are retried.  The result is the decoded JSON (``None`` for an
        empty answer); an error answer raises :class:`SchemaRegistryError` with the registry's
        code; no answer from any URL raises :class:`SchemaRegistryConnectionError`."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = yield ("headers", data)
        qs = _query_string(query)
        path = path.lstrip("/") + ("?" + qs if qs else "")
        no_answer = _httpx().TransportError
        status, content = 0, b""
        for i, base in enumerate(self._urls):
            last = i == len(self._urls) - 1
            try:
                status, content = yield from self._url_steps(
                    "%s/%s" % (base, path), method, data, headers, no_answer)
            except no_answer as e:
                if last:
                    raise _connection_error(
                        "Schema Registry unreachable at %s: %s"
                        % (", ".join(self._urls), _describe(e)), e
                    ) from e
                continue
            if is_success(status):
                if status == 204 or not content:
                    return None
                return json.loads(content)
            if not is_retriable(status) or last:
                break
        try:
            err = json.loads(content)
            raise SchemaRegistryError(status, err.get("error_code"), err.get("message"))
        except (ValueError, AttributeError):
            raise SchemaRegistryError(
                status, -1, "Unknown Schema Registry Error: " + str(content)
            ) from None

    def _url_steps(
        self,
        url: str,
        method: str,
        data: Optional[bytes],
        headers: Dict[str, str],
        no_answer: Type[BaseException],
    ) -> Generator[Tuple[Any, ...], Any, Tuple[int, bytes]]:
        """(status, content) of the last try at one URL: the first answer that is a success or
        not retriable, else the last one; ``no_answer`` raised when the last try got none."""
        attempt = 0
        while True:
            retry_after = None
            try:
                response = yield ("send", method, url, headers, data)
            except no_answer:
                if attempt >= self.max_retries:
                    raise
            else:
                status = response.status_code
                if is_success(status) or not is_retriable(status) or attempt >= self.max_retries:
                    return status, response.content
                retry_after = response.headers.get("Retry-After")
            wait_ms = retry_wait_ms(
                retry_after, self.retries_wait_ms, self.retries_max_wait_ms, attempt
            )
            yield ("wait", wait_ms / 1000)
            attempt += 1

    async def _send(
        self, path: str, method: str, body: Optional[dict], query: Optional[dict]
    ) -> Any:
        """One request, as :meth:`_call_steps` describes it, its steps taken by this client's
        transport, ``_headers`` and ``_sleep`` (the asyncio client's awaited)."""
        # (a bearer token's Authorization header wins over basic credentials)
        client_auth = self.bearer is None

        async def perform(step: Tuple[Any, ...]) -> Any:
            if step[0] == "send":
                _, method, url, headers, data = step
                result = self._transport.request(method, url, headers, data,
                                                 client_auth=client_auth)
            elif step[0] == "wait":
                result = self._sleep(step[1])
            else:
                result = self._headers(step[1])
            return await maybe_await(result)

        return await drive(self._call_steps(path, method, body, query), perform,
                           _httpx().TransportError)

    def _headers(self, body: Optional[bytes]) -> Any:
        raise NotImplementedError

    def _sleep(self, seconds: float) -> Any:
        raise NotImplementedError

class RestClient(_BaseRestClient):
    """Parses a confluent-style config dict and sends requests to the registry, blocking."""

    def _headers(self, body: Optional[bytes]) -> Dict[str, str]:
        headers = self._base_headers(body)
        if self.bearer is not None:
            self.handle_bearer_auth(headers)
        return headers

    def handle_bearer_auth(self, headers: Dict[str, str]) -> None:
        """Add the bearer token and the logical cluster (and the identity pool, if any) to
        ``headers``; ValueError when the provider gives no token or cluster."""
        if self.bearer is None:
            raise ValueError("Bearer field provider is not set")
        self._set_bearer_fields(headers, self.bearer.get_bearer_fields())

    def get(self, path: str, query: Optional[dict] = None) -> Any:
        return self.send_request(path, "GET", query=query)

    def post(self, path: str, body: Optional[dict], query: Optional[dict] = None) -> Any:
        return self.send_request(path, "POST", body=body, query=query)

    def put(self, path: str, body: Optional[dict] = None, query: Optional[dict] = None) -> Any:
        return self.send_request(path, "PUT", body=body, query=query)

    def delete(self, path: str, query: Optional[dict] = None) -> Any:
        return self.send_request(path, "DELETE", query=query)

    def send_request(
        self, path: str, method: str, body: Optional[dict] = None, query: Optional[dict] = None
    ) -> Any:
        """Send to each URL in turn until one answers without a retriable error; return the
        decoded JSON (``None`` for an empty answer).  An error answer raises
        :class:`SchemaRegistryError` with the registry's code; no answer from any URL raises
        :class:`SchemaRegistryConnectionError`."""
        if not may_block():
            raise WouldBlock()
        return finish(self._send(path, method, body, query))

    def _sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def close(self) -> None:
        """Close the kept-alive connections (a later request opens new ones)."""
        self._transport.close()


class _AsyncRestClient(_BaseRestClient):
    """The asyncio REST client: the same configuration and request policy as
    :class:`RestClient`, its requests sent by an ``httpx.AsyncClient`` on the event loop,
    its waits ``asyncio.sleep``, its OAuth tokens fetched by the asyncio token clients."""

    _asynchronous = True

    def _new_transport(self, timeout: float) -> _Transport:
        return _AsyncTransport(self.ssl_context, self.proxy, timeout, self.auth)

    async def _headers(self, body: Optional[bytes]) -> Dict[str, str]:
        headers = self._base_headers(body)
        if self.bearer is not None:
            await self.handle_bearer_auth(headers)
        return headers

    async def handle_bearer_auth(self, headers: Dict[str, str]) -> None:
        """Add the bearer token and the logical cluster (and the identity pool, if any) to
        ``headers``; ValueError when the provider gives no token or cluster."""
        if self.bearer is None:
            raise ValueError("Bearer field provider is not set")
        self._set_bearer_fields(headers, await self.bearer.get_bearer_fields())

    async def get(self, path: str, query: Optional[dict] = None) -> Any:
        return await self.send_request(path, "GET", query=query)

    async def post(self, path: str, body: Optional[dict], query: Optional[dict] = None) -> Any:
        return await self.send_request(path, "POST", body=body, query=query)

    async def put(self, path: str, body: Optional[dict] = None,
                  query: Optional[dict] = None) -> Any:
        return await self.send_request(path, "PUT", body=body, query=query)

    async def delete(self, path: str, query: Optional[dict] = None) -> Any:
        return await self.send_request(path, "DELETE", query=query)

    async def send_request(
        self, path: str, method: str, body: Optional[dict] = None, query: Optional[dict] = None
    ) -> Any:
        """:meth:`RestClient.send_request`, awaited."""
        return await self._send(path, method, body, query)

    def _sleep(self, seconds: float) -> Awaitable[None]:
        return asyncio.sleep(seconds)

    async def aclose(self) -> None:
        """Close the kept-alive connections (a later request opens new ones)."""
        await self._transport.aclose()  # type: ignore[attr-defined]

    def blocking(self) -> "_OnLoop":
        """This client's blocking face, for the blocking client inside the asyncio one."""
        return _OnLoop(self)


class _OnLoop:
    """A blocking face over an :class:`_AsyncRestClient`, for the blocking
    ``SchemaRegistryClient`` inside an ``AsyncSchemaRegistryClient``: that client runs in the
    executor thread :func:`run_blocking` hands it to, and each request is awaited on the event
    loop it came from (so every request of the asyncio client goes through its asyncio
    transport, and what replaces the asyncio client's ``get`` sees the calls).  Everything else
    (the settings) is the asyncio client's."""

    def __init__(self, rest: _AsyncRestClient):
        self._rest = rest

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rest, name)

    def _await(self, method: str, *args: Any) -> Any:
        if not may_block():
            raise WouldBlock()
        loop = _event_loop.get()
        if loop is None or loop.is_closed():
            raise RuntimeError(
                "the asyncio Schema Registry client's requests are made from its coroutines")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise RuntimeError("a blocking request on the event loop's own thread")
        coroutine = getattr(self._rest, method)(*args)
        return asyncio.run_coroutine_threadsafe(_awaited(coroutine), loop).result()

    def get(self, path: str, query: Optional[dict] = None) -> Any:
        return self._await("get", path, query)

    def post(self, path: str, body: Optional[dict], query: Optional[dict] = None) -> Any:
        return self._await("post", path, body, query)

    def put(self, path: str, body: Optional[dict] = None, query: Optional[dict] = None) -> Any:
        return self._await("put", path, body, query)

    def delete(self, path: str, query: Optional[dict] = None) -> Any:
        return self._await("delete", path, query)

    def send_request(
        self, path: str, method: str, body: Optional[dict] = None, query: Optional[dict] = None
    ) -> Any:
        return self._await("send_request", path, method, body, query)

    def close(self) -> None:
        """Nothing: the asyncio client's connections are closed by its ``aclose()``."""


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


_CONNECTION_ERRORS: Dict[type, type] = {}


def _connection_error(message: str, cause: BaseException) -> SchemaRegistryConnectionError:
    """A :class:`SchemaRegistryConnectionError` that is also an instance of the httpx error
    ``cause`` (confluent-kafka lets httpx's error through: ``except httpx.ConnectError`` works
    with both), with the same ``request``."""
    cls = _CONNECTION_ERRORS.get(type(cause))
    if cls is None:
        cls = type(SchemaRegistryConnectionError.__name__,
                   (SchemaRegistryConnectionError, type(cause)),
                   {"__module__": SchemaRegistryConnectionError.__module__,
                    "__qualname__": SchemaRegistryConnectionError.__qualname__})
        cls = _CONNECTION_ERRORS.setdefault(type(cause), cls)
    error = cls(message)
    error._request = getattr(cause, "_request", None)  # what httpx's ``request`` reads
    return error


def _strip_userinfo(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _describe(e: BaseException) -> str:
    return str(e) or type(e).__name__
