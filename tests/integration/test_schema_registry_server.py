"""The test harness's Schema Registry (Apicurio Registry speaking Confluent's REST API)."""

import json
import urllib.error
import urllib.request

import pytest

from tests.support.schema_registry import (
    CCOMPAT_PATH,
    SchemaRegistryServer,
    SchemaRegistryServerError,
)

pytestmark = pytest.mark.integration

_CT = "application/vnd.schemaregistry.v1+json"


def _call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": _CT})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def test_fixture_serves_confluent_api(schema_registry):
    assert schema_registry.url.endswith(CCOMPAT_PATH) or not isinstance(
        schema_registry, SchemaRegistryServer
    )
    assert schema_registry.client_config()["url"] == schema_registry.url
    subject = "harness-check-value"
    schema = {"type": "record", "name": "HarnessCheck", "fields": [{"name": "a", "type": "int"}]}
    status, body = _call(
        "POST",
        schema_registry.url + "/subjects/%s/versions" % subject,
        {"schema": json.dumps(schema)},
    )
    assert status == 200 and isinstance(body["id"], int)
    status, latest = _call("GET", schema_registry.url + "/subjects/%s/versions/latest" % subject)
    assert status == 200
    assert (latest["subject"], latest["version"], latest["id"]) == (subject, 1, body["id"])
    assert json.loads(latest["schema"]) == schema
    status, err = _call("GET", schema_registry.url + "/subjects/no-such-subject-anywhere/versions")
    assert status == 404 and err["error_code"] == 40401


def test_start_stop_on_a_fresh_port(tmp_path):
    server = SchemaRegistryServer(workdir=tmp_path)
    server.start(timeout=180)
    try:
        assert server.is_running
        assert server.url == "http://127.0.0.1:%d%s" % (server.port, CCOMPAT_PATH)
        assert _call("GET", server.url + "/subjects") == (200, [])  # in-memory: starts empty
        assert server.timings["ready"] > 0
        with pytest.raises(SchemaRegistryServerError, match="already running"):
            server.start()
    finally:
        rc = server.stop()
    assert not server.is_running
    assert rc in (0, 143)  # exit after SIGTERM
    with pytest.raises(OSError):
        urllib.request.urlopen(server.url + "/subjects", timeout=5)
