"""A gate in front of the real Schema Registry: forwards every request to it and records what came
in, optionally behind HTTP basic auth and/or TLS (with client certificates required).

The registry the tests start answers everything; the gate adds what Apicurio cannot be set up to
check here (basic auth needs an OIDC server there) and lets tests see what went over the wire
(how many requests, which headers, when each came in). A ``local`` handler answers in the
registry's place where a test needs another server (a DEK Registry, an OAuth token endpoint) or
a registry that fails (a 429 with ``Retry-After``, a 503).
"""

from __future__ import annotations

import base64
import http.client
import ssl
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, List, NamedTuple, Optional, Tuple


def relay(handler, host, port, path, headers, body):
    """Send the request ``handler`` is serving (its method, ``path``, ``headers``, ``body``) to
    host:port over plain HTTP and write the answer back through ``handler``."""
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request(handler.command, path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
    finally:
        conn.close()
    handler.send_response(resp.status)
    for k, v in resp.getheaders():
        if k.lower() not in ("content-length", "transfer-encoding", "connection"):
            handler.send_header(k, v)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class LoopbackServer:
    """An HTTP server on 127.0.0.1 that serves from a daemon thread while the object is used as
    a context manager."""

    def _serve(self, handler, name, ssl_context=None) -> int:
        """Bind ``handler``'s server (TLS with ``ssl_context``); returns its port."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        if ssl_context is not None:
            self._server.socket = ssl_context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, name=name, daemon=True)
        return self._server.server_address[1]

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

class Recorded(NamedTuple):
    method: str
    path: str
    headers: dict
    body: Optional[bytes] = None
    #: time.monotonic() when the request came in
    at: float = 0.0


#: ``(method, path, body) -> (status, JSON body) or (status, JSON body, {header: value}) or
#: None``: answers a request in the gate itself (None: forward it)
LocalHandler = Callable[[str, str, Optional[bytes]], Optional[Tuple[Any, ...]]]


class HttpGate(LoopbackServer):
    """``with HttpGate(upstream_url) as gate: gate.url`` (same path as the upstream's)."""

    def __init__(
        self,
        upstream_url: str,
        basic_auth: Optional[Tuple[str, str]] = None,
        ssl_context: Optional[ssl.SSLContext] = None,
        local: Optional[LocalHandler] = None,
    ):
        up = urllib.parse.urlsplit(upstream_url)
        self._up_host, self._up_port, self._up_path = up.hostname, up.port, up.path.rstrip("/")
        self.requests: List[Recorded] = []
        self._lock = threading.Lock()
        #: set by :meth:`hold`: requests wait for it to be set before they are forwarded
        self.release: Optional[threading.Event] = None
        #: set when a request arrives while held
        self.arrived = threading.Event()
        expected = None
        if basic_auth is not None:
            expected = "Basic " + base64.b64encode(("%s:%s" % basic_auth).encode()).decode()
        gate = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, status, payload, headers=None):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                with gate._lock:
                    gate.requests.append(
                        Recorded(self.command, self.path, dict(self.headers.items()), body,
                                 time.monotonic())
                    )
                release = gate.release
                if release is not None:
                    gate.arrived.set()
                    release.wait(60)
                if expected is not None and self.headers.get("Authorization") != expected:
                    self._send(401, b'{"error_code":401,"message":"Unauthorized"}')
                    return
                answer = None if local is None else local(self.command, self.path, body)
                if answer is not None:
                    self._send(*answer)
                    return
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "authorization")
                }
                relay(self, gate._up_host, gate._up_port, self.path, headers, body)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        port = self._serve(Handler, "http-gate", ssl_context)
        scheme = "https" if ssl_context is not None else "http"
        self.url = "%s://127.0.0.1:%d%s" % (scheme, port, self._up_path)

    def hold(self) -> threading.Event:
        """Hold the requests that come in from now on until the returned event is set."""
        self.arrived.clear()
        self.release = threading.Event()
        return self.release

    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

