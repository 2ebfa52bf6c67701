"""A DEK Registry (Confluent's ``/dek-registry/v1`` REST API) in the test process, for
:class:`~tests.support.http_gate.HttpGate`: the Apicurio registry the tests run has none, so
the gate answers DEK Registry requests with this and forwards the rest, and a client
configured with the gate's URL sees one registry with both APIs.

KEKs and DEKs are kept as the registry keeps them: registered once (409 when they exist), a
DEK's versions by (KEK, subject, algorithm), version -1 the latest, each stamped with the
registration time (``ts``, milliseconds). For a ``shared`` KEK the registry makes the DEK
itself: ``make_shared_dek(kek, algorithm)`` gives its (key material, wrapped key material),
both base64, and the registry returns both.
"""

import json
import threading
import time
import urllib.parse
from typing import Callable, Dict, Optional, Tuple

_PREFIX = "/dek-registry/v1/keks"


def _error(status: int, code: int, message: str) -> Tuple[int, bytes]:
    return status, json.dumps({"error_code": code, "message": message}).encode()


def _ok(value: dict) -> Tuple[int, bytes]:
    return 200, json.dumps(value).encode()


class DekRegistry:
    def __init__(self, make_shared_dek: Optional[Callable[[dict, str], Tuple[str, str]]] = None,
                 legacy: bool = False):
        #: answer as a registry from before subjects were in DEK paths (405 there)
        self.legacy = legacy
        #: added to the registry's clock (ms): the registration times it stamps
        self.clock_offset_ms = 0
        self.keks: Dict[str, dict] = {}
        self.deks: Dict[Tuple[str, str, str], Dict[int, dict]] = {}
        self._make_shared_dek = make_shared_dek
        self._lock = threading.Lock()

    def __call__(self, method: str, path: str, body: Optional[bytes]):
        """The gate's local handler: an answer for a DEK Registry path, else None."""
        url = urllib.parse.urlsplit(path)
        at = url.path.find(_PREFIX)
        if at < 0:
            return None
        parts = [urllib.parse.unquote(p) for p in url.path[at + len(_PREFIX):].split("/") if p]
        query = dict(urllib.parse.parse_qsl(url.query))
        request = json.loads(body) if body else {}
        with self._lock:
            if method == "POST" and not parts:
                return self._register_kek(request)
            if method == "GET" and len(parts) == 1:
                return self._get_kek(parts[0])
            if method == "POST" and len(parts) == 3 and self.legacy:
                return _error(405, 405, "HTTP 405 Method Not Allowed")
            if method == "POST" and len(parts) in (2, 3) and parts[1] == "deks":
                return self._register_dek(parts[0], request)
            if method == "GET" and len(parts) == 5 and parts[1] == "deks" \
                    and parts[3] == "versions":
                return self._get_dek(parts[0], parts[2], int(parts[4]),
                                     query.get("algorithm", "AES256_GCM"))
        return _error(404, 404, "HTTP 404 Not Found")

    def _now(self) -> int:
        return int(time.time() * 1000) + self.clock_offset_ms

    def _register_kek(self, request: dict):
        name = request["name"]
        if name in self.keks:
            return _error(409, 40972, "Key {} already exists".format(name))
        kek = dict(request, ts=self._now(), deleted=False)
        kek.setdefault("shared", False)
        self.keks[name] = kek
        return _ok(kek)

    def _get_kek(self, name: str):
        if name not in self.keks:
            return _error(404, 40470, "Key {} not found".format(name))
        return _ok(self.keks[name])

    def _register_dek(self, kek_name: str, request: dict):
        kek = self.keks.get(kek_name)
        if kek is None:
            return _error(404, 40470, "Key {} not found".format(kek_name))
        algorithm = request.get("algorithm", "AES256_GCM")
        versions = self.deks.setdefault((kek_name, request["subject"], algorithm), {})
        version = request.get("version", 1)
        if version in versions:
            return _error(409, 40972, "Key {} already exists".format(request["subject"]))
        dek = {"kekName": kek_name, "subject": request["subject"], "version": version,
               "algorithm": algorithm, "ts": self._now(), "deleted": False}
        if request.get("encryptedKeyMaterial"):
            dek["encryptedKeyMaterial"] = request["encryptedKeyMaterial"]
        elif kek.get("shared") and self._make_shared_dek is not None:
            dek["keyMaterial"], dek["encryptedKeyMaterial"] = self._make_shared_dek(
                kek, algorithm)
        else:
            return _error(422, 42271, "Invalid key: no encrypted key material")
        versions[version] = dek
        return _ok(dek)

    def _get_dek(self, kek_name: str, subject: str, version: int, algorithm: str):
        versions = self.deks.get((kek_name, subject, algorithm), {})
        if version == -1 and versions:
            version = max(versions)
        if version not in versions:
            return _error(404, 40470, "Key {} not found".format(subject))
        return _ok(versions[version])
