"""A forwarding HTTP proxy on loopback, for tests of clients that honour ``HTTP_PROXY``,
``HTTPS_PROXY`` and a ``proxy`` setting.

It forwards absolute-form requests (``GET http://host:port/path``, what a client sends to a
proxy for an ``http://`` URL) and tunnels ``CONNECT host:port`` (what it sends for an
``https://`` URL), and records each one it forwarded, so a test can tell that a request went
through it and where to. It forwards only to loopback addresses.
"""

from __future__ import annotations

import select
import socket
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler
from typing import List, NamedTuple

from tests.support.http_gate import LoopbackServer, relay

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class Forwarded(NamedTuple):
    method: str
    #: the absolute URL of a forwarded request, ``host:port`` of a tunnel
    target: str


class ForwardingProxy(LoopbackServer):
    """``with ForwardingProxy() as proxy: proxy.url`` (``http://127.0.0.1:PORT``)."""

    def __init__(self) -> None:
        self.forwarded: List[Forwarded] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def _refuse(self, status: int, why: str) -> None:
                payload = why.encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)
                self.close_connection = True

            def _forward(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                if url.scheme != "http" or url.hostname not in _LOOPBACK:
                    self._refuse(502, "this proxy forwards to http://127.0.0.1 only")
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                proxy._record(self.command, self.path)
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("proxy-connection", "proxy-authorization", "connection")
                }
                target = url.path + ("?" + url.query if url.query else "")
                relay(self, url.hostname, url.port or 80, target or "/", headers, body)

            do_GET = do_POST = do_PUT = do_DELETE = _forward

            def do_CONNECT(self) -> None:
                host, _, port = self.path.rpartition(":")
                if host.strip("[]") not in _LOOPBACK or not port.isdigit():
                    self._refuse(502, "this proxy tunnels to 127.0.0.1 only")
                    return
                try:
                    upstream = socket.create_connection((host.strip("[]"), int(port)), 10)
                except OSError as e:
                    self._refuse(502, str(e))
                    return
                proxy._record("CONNECT", self.path)
                self.send_response(200, "Connection established")
                self.end_headers()
                self.close_connection = True
                _pipe(self.connection, upstream)

        self.url = "http://127.0.0.1:%d" % self._serve(Handler, "http-proxy")

    def _record(self, method: str, target: str) -> None:
        with self._lock:
            self.forwarded.append(Forwarded(method, target))

    def count(self) -> int:
        with self._lock:
            return len(self.forwarded)



def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side closes."""
    try:
        while True:
            readable, _, _ = select.select([a, b], [], [], 60)
            if not readable:
                return
            for src in readable:
                data = src.recv(65536)
                if not data:
                    return
                (b if src is a else a).sendall(data)
    except OSError:
        return
    finally:
        b.close()
