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
``retries.max.wait.ms`` as well.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import email.utils
import functools
import json
import os
import random
import ssl
import threading
import time
import types
import urllib.parse
from typing import Any, Callable, Dict, List, Optional, Tuple, Type

from .error import OAuthTokenError, SchemaRegistryConnectionError, SchemaRegistryError

__all__ = ["RestClient", "VALID_AUTH_PROVIDERS", "full_jitter", "is_retriable", "is_success",
           "normalize_identity_pool", "retry_after_ms", "urlencode"]

#: Per-request timeout (seconds) when the config sets none.  confluent-kafka waits without limit;
#: a registry that accepts the connection and never answers must not hang a producer forever.
DEFAULT_TIMEOUT = 60.0

_ACCEPT = (
    "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json"
)
_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
_BEARER_SOURCES = ("OAUTHBEARER", "OAUTHBEARER_AZURE_IMDS", "STATIC_TOKEN", "CUSTOM")
_AZURE_IMDS_ENDPOINT = "http://169.254.169.254/metadata/identity/oauth2/token"

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
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(
        None, functools.partial(context.run, func, *args, **kwargs)
    )


def is_success(status_code: int) -> bool:
    return 200 <= status_code <= 299


def is_retriable(status_code: int) -> bool:
    return status_code in (408, 429, 500, 502, 503, 504)


def full_jitter(base_delay_ms: int, max_delay_ms: int, retries_attempted: int) -> float:
    """Milliseconds to wait before retry ``retries_attempted`` + 1 ("full jitter" backoff)."""
    return random.random() * min(base_delay_ms * (2.0**retries_attempted), max_delay_ms)


def retry_after_ms(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Milliseconds a ``Retry-After`` header value asks to wait: delay-seconds or an HTTP date
    (a date in the past: 0); None for no value or one that is neither."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds * 1000.0 if seconds >= 0 and seconds == seconds else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        return None  # an HTTP date is always in GMT; without a zone it is not one
    return max(0.0, (when.timestamp() - (time.time() if now is None else now)) * 1000.0)


def _retry_wait_ms(
    retry_after: Optional[str], base_ms: int, max_ms: int, retries_attempted: int
) -> float:
    """How long to wait before the next try: what ``Retry-After`` asks for, else the full-jitter
    backoff; never more than ``max_ms``."""
    asked = retry_after_ms(retry_after)
    if asked is not None:
        return min(asked, float(max_ms))
    return full_jitter(base_ms, max_ms, retries_attempted)


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


def _str_conf(conf: dict, key: str) -> str:
    value = conf.pop(key)
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %s" % (key, type(value)))
    return value


#: the values of ``basic.auth.credentials.source``
VALID_AUTH_PROVIDERS = ["URL", "USER_INFO"]


def normalize_identity_pool(raw: Any) -> Optional[str]:
    """``bearer.auth.identity.pool.id`` as the header carries it: a str as it is, a list of
    str joined with commas, None for none (TypeError for anything else)."""
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        if not all(isinstance(item, str) for item in raw):
            raise TypeError("All items in identity pool list must be strings")
        return ",".join(raw)
    raise TypeError("identity pool id must be a str or list, not " + str(type(raw)))


class _BearerFields:
    """Produces the bearer token headers: a static token, a user function, or OAuth tokens
    fetched (and refreshed at 80% of their lifetime) from an issuer endpoint."""

    def __init__(self, source: str, conf: dict, retries: Tuple[int, int, int]):
        self.source = source
        self._retries = retries
        self._token: Optional[str] = None
        self._expires_at = 0.0
        self._lock = threading.Lock()
        #: the registry client's transport, set by RestClient (token requests go through it)
        self.transport: Any = None
        if source == "CUSTOM":
            missing = [
                k
                for k in (
                    "bearer.auth.custom.provider.function",
                    "bearer.auth.custom.provider.config",
                )
                if k not in conf
            ]
            if missing:
                raise ValueError(
                    "Missing required custom OAuth configuration properties: {}".format(
                        ", ".join(missing)
                    )
                )
            self._function = conf.pop("bearer.auth.custom.provider.function")
            if not callable(self._function):
                raise TypeError(
                    "bearer.auth.custom.provider.function must be a callable, not "
                    + str(type(self._function))
                )
            self._function_config = conf.pop("bearer.auth.custom.provider.config")
            if not isinstance(self._function_config, dict):
                raise TypeError(
                    "bearer.auth.custom.provider.config must be a dict, not "
                    + str(type(self._function_config))
                )
            return
        if "bearer.auth.logical.cluster" not in conf:
            raise ValueError(
                "Missing required bearer configuration properties: bearer.auth.logical.cluster"
            )
        self.logical_cluster = conf.pop("bearer.auth.logical.cluster")
        if not isinstance(self.logical_cluster, str):
            raise TypeError("logical cluster must be a str, not " + str(type(self.logical_cluster)))
        self.identity_pool = normalize_identity_pool(
            conf.pop("bearer.auth.identity.pool.id", None))
        if source == "STATIC_TOKEN":
            if "bearer.auth.token" not in conf:
                raise ValueError("Missing bearer.auth.token")
            self._token = _str_conf(conf, "bearer.auth.token")
            self._expires_at = float("inf")
        elif source == "OAUTHBEARER":
            keys = (
                "bearer.auth.client.id",
                "bearer.auth.client.secret",
                "bearer.auth.scope",
                "bearer.auth.issuer.endpoint.url",
            )
            missing = [k for k in keys if k not in conf]
            if missing:
                raise ValueError(
                    "Missing required OAuth configuration properties: {}".format(", ".join(missing))
                )
            self._client_id, self._client_secret, self._scope, self._endpoint = (
                _str_conf(conf, k) for k in keys
            )
        else:  # OAUTHBEARER_AZURE_IMDS
            overridden = "bearer.auth.issuer.endpoint.url" in conf
            endpoint = conf.pop("bearer.auth.issuer.endpoint.url", _AZURE_IMDS_ENDPOINT)
            if not isinstance(endpoint, str):
                raise TypeError(
                    "bearer.auth.issuer.endpoint.url must be a str, not " + str(type(endpoint))
                )
            try:
                parsed = urllib.parse.urlparse(endpoint)
            except ValueError as e:
                raise ValueError("Failed to parse token endpoint URL: {}".format(e)) from e
            query = conf.pop("bearer.auth.issuer.endpoint.query", None)
            if query:
                if not isinstance(query, str):
                    raise TypeError(
                        "bearer.auth.issuer.endpoint.query must be a str, not " + str(type(query))
                    )
                endpoint = urllib.parse.urlunparse(parsed._replace(query=query, fragment=""))
            elif not overridden:
                raise ValueError(
                    "bearer.auth.issuer.endpoint.query must be provided "
                    "when bearer.auth.issuer.endpoint.url isn't overridden"
                )
            self._endpoint = endpoint

    # what confluent-kafka's field providers show, under its names
    @property
    def custom_function(self) -> Any:
        return self._function

    @property
    def custom_config(self) -> Any:
        return self._function_config

    @property
    def token_endpoint(self) -> Optional[str]:
        return getattr(self, "_endpoint", None)

    @property
    def client(self) -> Any:
        """The OAuth client's settings (``client_id``, ``client_secret``, ``scope``)."""
        return types.SimpleNamespace(client_id=self._client_id,
                                     client_secret=self._client_secret, scope=self._scope)

    def get_bearer_fields(self) -> Dict[str, str]:
        return self.fields()

    def fields(self) -> Dict[str, str]:
        if self.source == "CUSTOM":
            return self._function(self._function_config)
        with self._lock:
            if self._token is None or time.time() >= self._expires_at:
                self._refresh()
            fields = {
                "bearer.auth.token": self._token,
                "bearer.auth.logical.cluster": self.logical_cluster,
            }
        if self.identity_pool is not None:
            fields["bearer.auth.identity.pool.id"] = self.identity_pool
        return fields

    def _refresh(self) -> None:
        max_retries, wait_ms, max_wait_ms = self._retries
        for attempt in range(max_retries + 1):
            retry_after = None
            try:
                token = self._fetch()
                lifetime = float(token.get("expires_in", 3600))
                access_token = token["access_token"]
            except Exception as e:
                if attempt >= max_retries:
                    raise OAuthTokenError(
                        "Failed to retrieve token after {} attempts due to error: {}".format(
                            max_retries, e
                        )
                    ) from e
                if isinstance(e, _TokenAnswer):
                    retry_after = e.retry_after
                time.sleep(_retry_wait_ms(retry_after, wait_ms, max_wait_ms, attempt) / 1000)
                continue
            self._token = access_token
            self._expires_at = time.time() + 0.8 * lifetime
            return

    def _fetch(self) -> Dict[str, Any]:
        """One token request, through the client's transport (its TLS settings and proxy)."""
        if self.source == "OAUTHBEARER":
            body: Optional[bytes] = urllib.parse.urlencode(
                {"grant_type": "client_credentials", "scope": self._scope}
            ).encode()
            creds = base64.b64encode(
                ("%s:%s" % (self._client_id, self._client_secret)).encode()
            ).decode()
            method = "POST"
            headers = {
                "Authorization": "Basic " + creds,
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            }
        else:
            method, body, headers = "GET", None, {"Metadata": "true"}
        response = self.transport.request(method, self._endpoint, headers, body,
                                          client_auth=False)
        if not is_success(response.status_code):
            raise _TokenAnswer(response)
        return json.loads(response.content)


class _TokenAnswer(Exception):
    """The token endpoint answered with an error status."""

    def __init__(self, response: Any) -> None:
        self.retry_after: Optional[str] = response.headers.get("Retry-After")
        text = response.content[:500].decode("utf-8", "replace")
        super().__init__("token endpoint answered HTTP %d: %s" % (response.status_code, text))


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

    def _open(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = _httpx().Client(
                    verify=self._verify,
                    auth=self._auth,
                    proxy=self._proxy,
                    timeout=self._timeout,
                    trust_env=True,
                    follow_redirects=False,
                )
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


class RestClient:
    """Parses a confluent-style config dict and sends requests to the registry."""

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
        self.bearer: Optional[_BearerFields] = None
        if source is not None:
            if source not in _BEARER_SOURCES:
                raise ValueError("Unrecognized bearer.auth.credentials.source")
            retries = (self.max_retries, self.retries_wait_ms, self.retries_max_wait_ms)
            self.bearer = _BearerFields(source, conf, retries)

        if conf:
            raise ValueError("Unrecognized properties: {}".format(", ".join(conf.keys())))

        effective_timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self._urls = [_strip_userinfo(u) for u in base_urls]
        self._transport = _Transport(self.ssl_context, self.proxy, effective_timeout, self.auth)
        if self.bearer is not None:
            self.bearer.transport = self._transport
        from .. import __version__  # the package version, for the client-version header

        self._client_version = "python/%s" % __version__

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

    def _headers(self, body: Optional[bytes]) -> Dict[str, str]:
        headers = {"Accept": _ACCEPT, "Confluent-Client-Version": self._client_version}
        if body is not None:
            headers["Content-Type"] = _CONTENT_TYPE
            headers["Confluent-Accept-Unknown-Properties"] = "true"
        if self.bearer is not None:
            self.handle_bearer_auth(headers)
        return headers

    @property
    def bearer_field_provider(self) -> Optional[_BearerFields]:
        """Where the bearer token and the fields sent with it come from (None without
        ``bearer.auth.credentials.source``); confluent-kafka's name."""
        return self.bearer

    def handle_bearer_auth(self, headers: Dict[str, str]) -> None:
        """Add the bearer token and the logical cluster (and the identity pool, if any) to
        ``headers``; ValueError when the provider gives no token or cluster."""
        if self.bearer is None:
            raise ValueError("Bearer field provider is not set")
        fields = self.bearer.fields()
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
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = self._headers(data)
        qs = _query_string(query)
        path = path.lstrip("/") + ("?" + qs if qs else "")
        no_answer = _httpx().TransportError
        status, content = 0, b""
        for i, base in enumerate(self._urls):
            last = i == len(self._urls) - 1
            try:
                status, content = self._send_with_retries(
                    "%s/%s" % (base, path), method, data, headers, no_answer
                )
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

    def _send_with_retries(
        self,
        url: str,
        method: str,
        data: Optional[bytes],
        headers: Dict[str, str],
        no_answer: Type[BaseException],
    ) -> Tuple[int, bytes]:
        """(status, content) of the last try at one URL: the first answer that is a success or
        not retriable, else the last one; ``no_answer`` raised when the last try got none."""
        attempt = 0
        while True:
            retry_after = None
            try:
                # (a bearer token's Authorization header wins over basic credentials)
                response = self._transport.request(method, url, headers, data,
                                                   client_auth=self.bearer is None)
            except no_answer:
                if attempt >= self.max_retries:
                    raise
            else:
                status = response.status_code
                if is_success(status) or not is_retriable(status) or attempt >= self.max_retries:
                    return status, response.content
                retry_after = response.headers.get("Retry-After")
            wait_ms = _retry_wait_ms(
                retry_after, self.retries_wait_ms, self.retries_max_wait_ms, attempt
            )
            time.sleep(wait_ms / 1000)
            attempt += 1

    def close(self) -> None:
        """Close the kept-alive connections (a later request opens new ones)."""
        self._transport.close()


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
