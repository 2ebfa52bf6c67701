"""Where a Schema Registry client's bearer token and the fields sent with it come from.

The classes have confluent-kafka's private names and constructor arguments (code and tests
written against them work): ``_StaticFieldProvider``, ``_CustomOAuthClient`` and, for the OAuth
token endpoints, ``_OAuthClient`` (client credentials) and ``_OAuthAzureIMDSClient`` (Azure's
instance metadata service), each with an asyncio twin named ``_Async...``.

This module holds what the blocking and the asyncio token clients share: the configuration
checks, the token request, how an answer is read and when a token has expired, how long to wait
before a retry.  The two drivers (the loop that fetches, sleeps and retries) live in the modules
confluent-kafka keeps them in, ``_sync.schema_registry_client`` and
``_async.schema_registry_client``, which register their classes here (:func:`register`).
"""

from __future__ import annotations

import abc
import base64
import inspect
import json
import time
import urllib.parse
from typing import Any, Callable, Dict, Optional, Tuple

from ._retry import is_success, retry_after_ms
from .error import OAuthTokenError

__all__ = ["build_field_provider", "normalize_identity_pool", "parse_bearer_conf", "register"]

BEARER_SOURCES = ("OAUTHBEARER", "OAUTHBEARER_AZURE_IMDS", "STATIC_TOKEN", "CUSTOM")
_AZURE_IMDS_ENDPOINT = "http://169.254.169.254/metadata/identity/oauth2/token"


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


def _str_conf(conf: Dict[str, Any], key: str) -> str:
    value = conf.pop(key)
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %s" % (key, type(value)))
    return value


def parse_bearer_conf(source: str, conf: Dict[str, Any]) -> Dict[str, Any]:
    """Take the ``bearer.auth.*`` settings of ``source`` out of ``conf`` (checked, with
    confluent-kafka's messages): the keyword arguments of that source's class."""
    if source == "CUSTOM":
        keys = ("bearer.auth.custom.provider.function", "bearer.auth.custom.provider.config")
        missing = [k for k in keys if k not in conf]
        if missing:
            raise ValueError(
                "Missing required custom OAuth configuration properties: {}".format(
                    ", ".join(missing))
            )
        function = conf.pop(keys[0])
        if not callable(function):
            raise TypeError(
                "bearer.auth.custom.provider.function must be a callable, not "
                + str(type(function)))
        config = conf.pop(keys[1])
        if not isinstance(config, dict):
            raise TypeError(
                "bearer.auth.custom.provider.config must be a dict, not " + str(type(config)))
        return {"custom_function": function, "custom_config": config}
    if "bearer.auth.logical.cluster" not in conf:
        raise ValueError(
            "Missing required bearer configuration properties: bearer.auth.logical.cluster")
    logical_cluster = conf.pop("bearer.auth.logical.cluster")
    if not isinstance(logical_cluster, str):
        raise TypeError("logical cluster must be a str, not " + str(type(logical_cluster)))
    settings: Dict[str, Any] = {
        "logical_cluster": logical_cluster,
        "identity_pool": normalize_identity_pool(conf.pop("bearer.auth.identity.pool.id", None)),
    }
    if source == "STATIC_TOKEN":
        if "bearer.auth.token" not in conf:
            raise ValueError("Missing bearer.auth.token")
        settings["token"] = _str_conf(conf, "bearer.auth.token")
    elif source == "OAUTHBEARER":
        oauth_keys = ("bearer.auth.client.id", "bearer.auth.client.secret", "bearer.auth.scope",
                      "bearer.auth.issuer.endpoint.url")
        missing = [k for k in oauth_keys if k not in conf]
        if missing:
            raise ValueError(
                "Missing required OAuth configuration properties: {}".format(", ".join(missing)))
        values = [_str_conf(conf, k) for k in oauth_keys]
        settings.update(zip(("client_id", "client_secret", "scope", "token_endpoint"), values))
    else:  # OAUTHBEARER_AZURE_IMDS
        overridden = "bearer.auth.issuer.endpoint.url" in conf
        endpoint = conf.pop("bearer.auth.issuer.endpoint.url", _AZURE_IMDS_ENDPOINT)
        if not isinstance(endpoint, str):
            raise TypeError(
                "bearer.auth.issuer.endpoint.url must be a str, not " + str(type(endpoint)))
        try:
            parsed = urllib.parse.urlparse(endpoint)
        except ValueError as e:
            raise ValueError("Failed to parse token endpoint URL: {}".format(e)) from e
        query = conf.pop("bearer.auth.issuer.endpoint.query", None)
        if query:
            if not isinstance(query, str):
                raise TypeError(
                    "bearer.auth.issuer.endpoint.query must be a str, not " + str(type(query)))
            endpoint = urllib.parse.urlunparse(parsed._replace(query=query, fragment=""))
        elif not overridden:
            raise ValueError(
                "bearer.auth.issuer.endpoint.query must be provided "
                "when bearer.auth.issuer.endpoint.url isn't overridden")
        settings["token_endpoint"] = endpoint
    return settings


# ``asynchronous`` -> credentials source -> class
_CLASSES: Dict[bool, Dict[str, Callable[..., Any]]] = {False: {}, True: {}}


def register(asynchronous: bool, **classes: Callable[..., Any]) -> None:
    """Name the classes that serve each credentials source for the blocking (False) or the
    asyncio (True) client."""
    _CLASSES[asynchronous].update(classes)


def build_field_provider(
    asynchronous: bool, source: str, settings: Dict[str, Any],
    retries: Tuple[int, int, int], transport: Any,
) -> Any:
    """The field provider of ``source`` (settings from :func:`parse_bearer_conf`); token
    clients retry with ``retries`` = (max retries, wait ms, max wait ms) and send through
    ``transport``."""
    cls = _CLASSES[asynchronous][source]
    if source in ("OAUTHBEARER", "OAUTHBEARER_AZURE_IMDS"):
        max_retries, wait_ms, max_wait_ms = retries
        return cls(max_retries=max_retries, retries_wait_ms=wait_ms,
                   retries_max_wait_ms=max_wait_ms, transport=transport, **settings)
    return cls(**settings)


def _bearer_fields(token: str, logical_cluster: str,
                   identity_pool: Optional[str]) -> Dict[str, Any]:
    fields = {"bearer.auth.token": token, "bearer.auth.logical.cluster": logical_cluster}
    if identity_pool is not None:
        fields["bearer.auth.identity.pool.id"] = identity_pool
    return fields


class _BearerFieldProvider(metaclass=abc.ABCMeta):
    """Gives the bearer fields of the blocking client's requests."""

    @abc.abstractmethod
    def get_bearer_fields(self) -> Dict[str, Any]:
        raise NotImplementedError


class _AsyncBearerFieldProvider(metaclass=abc.ABCMeta):
    """Gives the bearer fields of the asyncio client's requests."""

    @abc.abstractmethod
    async def get_bearer_fields(self) -> Dict[str, Any]:
        raise NotImplementedError


class _StaticFieldProvider(_BearerFieldProvider):
    """``STATIC_TOKEN``: the configured token."""

    def __init__(self, token: str, logical_cluster: str, identity_pool: Optional[str] = None):
        self.token = token
        self.logical_cluster = logical_cluster
        self.identity_pool = identity_pool

    def get_bearer_fields(self) -> Dict[str, Any]:
        return _bearer_fields(self.token, self.logical_cluster, self.identity_pool)


class _AsyncStaticFieldProvider(_AsyncBearerFieldProvider):
    """``STATIC_TOKEN`` for the asyncio client."""

    def __init__(self, token: str, logical_cluster: str, identity_pool: Optional[str] = None):
        self.token = token
        self.logical_cluster = logical_cluster
        self.identity_pool = identity_pool

    async def get_bearer_fields(self) -> Dict[str, Any]:
        return _bearer_fields(self.token, self.logical_cluster, self.identity_pool)


class _CustomOAuthClient(_BearerFieldProvider):
    """``CUSTOM``: ``custom_function(custom_config)`` gives the fields."""

    def __init__(self, custom_function: Callable[[Dict], Dict], custom_config: Dict[str, Any]):
        self.custom_function = custom_function
        self.custom_config = custom_config

    def get_bearer_fields(self) -> Dict[str, Any]:
        return self.custom_function(self.custom_config)


class _AsyncCustomOAuthClient(_AsyncBearerFieldProvider):
    """``CUSTOM`` for the asyncio client: the function may be a coroutine function (as
    confluent-kafka's asyncio client requires) or a plain one."""

    def __init__(self, custom_function: Callable[[Dict], Any], custom_config: Dict[str, Any]):
        self.custom_function = custom_function
        self.custom_config = custom_config

    async def get_bearer_fields(self) -> Dict[str, Any]:
        fields = self.custom_function(self.custom_config)
        if inspect.isawaitable(fields):
            fields = await fields
        return fields


class _TokenAnswer(Exception):
    """The token endpoint answered with an error status."""

    def __init__(self, status_code: int, content: bytes, retry_after: Optional[str]) -> None:
        self.retry_after = retry_after
        text = content[:500].decode("utf-8", "replace")
        super().__init__("token endpoint answered HTTP %d: %s" % (status_code, text))


class _TokenSource:
    """What a blocking and an asyncio token client share: the settings, the current token
    (``token``; ``token_object`` is the endpoint's answer), the request, reading the answer,
    the expiry rule (a token is renewed once 80% of its lifetime has passed) and the wait
    before a retry.  A driver adds ``fetch_token`` / ``generate_access_token`` /
    ``get_access_token``."""

    #: the share of a token's lifetime after which it is renewed
    token_expiry_threshold = 0.8

    def _init_source(
        self, token_endpoint: str, logical_cluster: str, identity_pool: Optional[str],
        max_retries: int, retries_wait_ms: int, retries_max_wait_ms: int,
    ) -> None:
        self.token_endpoint = token_endpoint
        self.logical_cluster = logical_cluster
        self.identity_pool = identity_pool
        self.max_retries = max_retries
        self.retries_wait_ms = retries_wait_ms
        self.retries_max_wait_ms = retries_max_wait_ms
        self.token = ""
        self.token_object: Dict[str, Any] = {}

    def bearer_fields(self, token: str) -> Dict[str, Any]:
        return _bearer_fields(token, self.logical_cluster, self.identity_pool)

    def token_request(self) -> Tuple[str, str, Dict[str, str], Optional[bytes]]:
        """(method, url, headers, body) of one token request."""
        raise NotImplementedError

    def token_expired(self) -> bool:
        raise NotImplementedError

    def accept_token(self, status_code: int, content: bytes, retry_after: Optional[str]) -> str:
        """Read the endpoint's answer into ``token_object``; the access token
        (:class:`_TokenAnswer` for an error status, ValueError/KeyError for an unreadable
        answer)."""
        if not is_success(status_code):
            raise _TokenAnswer(status_code, content, retry_after)
        token_object = json.loads(content)
        access_token = token_object["access_token"]
        self.token_object = self._with_expiry(token_object)
        return access_token

    def _with_expiry(self, token_object: Dict[str, Any]) -> Dict[str, Any]:
        return token_object

    def retry_wait_ms(self, error: BaseException, attempt: int,
                      jitter: Callable[[int, int, int], float]) -> float:
        """How long to wait after failed try ``attempt`` (from 0): what the endpoint's
        ``Retry-After`` asks (capped by ``retries_max_wait_ms``), else ``jitter``'s backoff."""
        asked = retry_after_ms(getattr(error, "retry_after", None))
        if asked is not None:
            return min(asked, float(self.retries_max_wait_ms))
        return jitter(self.retries_wait_ms, self.retries_max_wait_ms, attempt)

    def give_up(self, error: BaseException) -> OAuthTokenError:
        return OAuthTokenError(
            "Failed to retrieve token after {} attempts due to error: {}".format(
                self.max_retries, error))


class _ClientCredentials(_TokenSource):
    """``OAUTHBEARER``: the client-credentials grant, the client's id and secret as basic
    credentials."""

    def __init__(
        self, client_id: str, client_secret: str, scope: str, token_endpoint: str,
        logical_cluster: str, max_retries: int, retries_wait_ms: int,
        retries_max_wait_ms: int, identity_pool: Optional[str] = None,
    ):
        self._init_source(token_endpoint, logical_cluster, identity_pool, max_retries,
                          retries_wait_ms, retries_max_wait_ms)
        #: the OAuth client's settings, under the names confluent-kafka's client shows
        self.client = _ClientSettings(client_id, client_secret, scope)

    def token_request(self) -> Tuple[str, str, Dict[str, str], Optional[bytes]]:
        body = urllib.parse.urlencode(
            {"grant_type": "client_credentials", "scope": self.client.scope}).encode()
        creds = base64.b64encode(
            ("%s:%s" % (self.client.client_id, self.client.client_secret)).encode()).decode()
        headers = {
            "Authorization": "Basic " + creds,
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
        }
        return "POST", self.token_endpoint, headers, body

    def _with_expiry(self, token_object: Dict[str, Any]) -> Dict[str, Any]:
        token_object.setdefault("expires_in", 3600)
        if "expires_at" not in token_object:
            token_object["expires_at"] = time.time() + float(token_object["expires_in"])
        return token_object

    def token_expired(self) -> bool:
        window = float(self.token_object["expires_in"]) * (1 - self.token_expiry_threshold)
        return float(self.token_object["expires_at"]) < time.time() + window


class _AzureIMDS(_TokenSource):
    """``OAUTHBEARER_AZURE_IMDS``: a GET of Azure's instance metadata endpoint, whose answer
    gives the expiry as ``expires_on`` (epoch seconds)."""

    def __init__(
        self, token_endpoint: str, logical_cluster: str, identity_pool: Optional[str],
        max_retries: int, retries_wait_ms: int, retries_max_wait_ms: int,
    ):
        self._init_source(token_endpoint, logical_cluster, identity_pool, max_retries,
                          retries_wait_ms, retries_max_wait_ms)

    def token_request(self) -> Tuple[str, str, Dict[str, str], Optional[bytes]]:
        return "GET", self.token_endpoint, {"Metadata": "true"}, None

    def _with_expiry(self, token_object: Dict[str, Any]) -> Dict[str, Any]:
        token_object.setdefault("expires_in", 3600)
        if "expires_on" not in token_object:
            token_object["expires_on"] = time.time() + float(token_object["expires_in"])
        return token_object

    def token_expired(self) -> bool:
        window = int(self.token_object["expires_in"]) * (1 - self.token_expiry_threshold)
        return int(float(self.token_object["expires_on"])) < time.time() + window


class _ClientSettings:
    """The client id, secret and scope an ``OAUTHBEARER`` client sends."""

    def __init__(self, client_id: str, client_secret: str, scope: str):
        self.client_id = client_id
        self.client_secret = client_secret
        self.scope = scope

    def __repr__(self) -> str:
        return "<OAuth client %r, scope %r>" % (self.client_id, self.scope)


register(False, STATIC_TOKEN=_StaticFieldProvider, CUSTOM=_CustomOAuthClient)
register(True, STATIC_TOKEN=_AsyncStaticFieldProvider, CUSTOM=_AsyncCustomOAuthClient)
