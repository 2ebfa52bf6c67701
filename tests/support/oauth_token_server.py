"""An OAuth token endpoint for the Schema Registry clients' OAUTHBEARER tests, next to the real
registry: ``with TokenServer(registry_url) as server:`` starts two :class:`HttpGate` s, ``tokens``
(answering token requests itself) and ``registry`` (forwarding to the registry), and
``server.conf()`` is a client configuration that fetches its token from the first and sends
the registry requests through the second.

What every client sends for the client credentials below is :data:`TOKEN_REQUEST` (compare with
``server.token_requests()``)."""

import base64
import contextlib
import json
import time
import urllib.parse
from typing import Any, Dict, List, Optional

from tests.support.http_gate import HttpGate, LocalHandler, Recorded

#: the token request of the credentials in :func:`oauth_conf`, as :func:`token_request` reads it
TOKEN_REQUEST = ("POST", "/oauth2/token",
                 "Basic " + base64.b64encode(b"client-1:s3cret").decode(),
                 {"grant_type": ["client_credentials"], "scope": ["registry"]})


def unsecured_jwt(subject, exp, iat=None):
    """A JWT with ``alg: none`` (header.payload. and no signature), as Kafka's unsecured
    OAUTHBEARER validator accepts."""
    def part(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    iat = time.time() if iat is None else iat
    return "%s.%s." % (part({"alg": "none"}),
                       part({"sub": subject, "iat": int(iat), "exp": int(exp)}))


def token_handler(token: str = "tok-1") -> LocalHandler:
    """A token endpoint that hands out ``token`` (valid for an hour) to every request."""
    answer = json.dumps({"access_token": token, "token_type": "Bearer", "expires_in": 3600})
    return lambda method, path, body: (200, answer.encode())


def busy_once_handler(seen: List[float], token: str) -> LocalHandler:
    """A token endpoint that answers its first request 503 with ``Retry-After: 1`` and the
    later ones with ``token``; ``seen`` gets the time.monotonic() of each request."""
    ok = token_handler(token)

    def local(method, path, body):
        seen.append(time.monotonic())
        if len(seen) == 1:
            return (503, b'{"error": "temporarily_unavailable"}', {"Retry-After": "1"})
        return ok(method, path, body)

    return local


def oauth_conf(registry_url: str, token_url: str, **more: Any) -> Dict[str, Any]:
    """A Schema Registry client configuration with OAUTHBEARER client credentials fetched from
    ``token_url`` (logical cluster ``lsrc-1``, no retries unless ``more`` says so)."""
    conf = {
        "url": registry_url,
        "bearer.auth.credentials.source": "OAUTHBEARER",
        "bearer.auth.client.id": "client-1",
        "bearer.auth.client.secret": "s3cret",
        "bearer.auth.scope": "registry",
        "bearer.auth.issuer.endpoint.url": token_url,
        "bearer.auth.logical.cluster": "lsrc-1",
        "max.retries": 0,
    }
    conf.update(more)
    return conf


def token_url(gate: HttpGate) -> str:
    """The token endpoint's URL on ``gate`` (http or https as the gate serves)."""
    parts = urllib.parse.urlsplit(gate.url)
    return "%s://127.0.0.1:%d/oauth2/token" % (parts.scheme, parts.port)


def token_request(recorded: Recorded) -> tuple:
    """What a token request asked for, comparable across clients."""
    return (recorded.method, recorded.path, recorded.headers.get("Authorization"),
            urllib.parse.parse_qs((recorded.body or b"").decode()))


class TokenServer:
    """A token endpoint (``tokens``, answering with ``handler``, by default :func:`token_handler`;
    TLS with ``ssl_context``) and a gate in front of the registry (``registry``), while used as
    a context manager."""

    def __init__(self, registry_url: str, handler: Optional[LocalHandler] = None,
                 ssl_context: Any = None):
        self._registry_url = registry_url
        self._handler = handler or token_handler()
        self._ssl_context = ssl_context
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> "TokenServer":
        with contextlib.ExitStack() as stack:
            self.tokens = stack.enter_context(HttpGate(
                self._registry_url, ssl_context=self._ssl_context, local=self._handler))
            self.registry = stack.enter_context(HttpGate(self._registry_url))
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def conf(self, **more: Any) -> Dict[str, Any]:
        """:func:`oauth_conf` for the registry gate and this token endpoint."""
        return oauth_conf(self.registry.url, token_url(self.tokens), **more)

    def token_requests(self) -> List[tuple]:
        """Every token request so far, as :func:`token_request` reads it."""
        return [token_request(r) for r in self.tokens.requests]

    def sent(self) -> List[tuple]:
        """(Authorization, target-sr-cluster) of each request the registry gate got."""
        return [(r.headers["Authorization"], r.headers["target-sr-cluster"])
                for r in self.registry.requests]
