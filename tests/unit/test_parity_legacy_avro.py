"""The legacy Avro clients (``confluent_kafka.avro``) side by side with confluent-kafka's."""

import importlib

import pytest

from tests.support.parity import same

SCHEMA = '{"type": "record", "name": "r", "fields": [{"name": "name", "type": "string"}]}'


def test_unreachable_registry_raises_requests_connection_error():
    """confluent-kafka's legacy client runs on requests: code catches requests' ConnectionError
    (its own tests do) when the registry cannot be reached."""
    requests = pytest.importorskip("requests")

    def scenario(m):
        avro = importlib.import_module(m.__name__ + ".avro")
        producer = avro.AvroProducer({"schema.registry.url": "http://127.0.0.1:1"},
                                     default_value_schema=avro.loads(SCHEMA))
        try:
            producer.produce(topic="t", value={"name": "x"})
        except requests.exceptions.ConnectionError:
            return "requests' ConnectionError"
        return "no error"

    same(scenario, "requests' ConnectionError")


def test_certificate_files_are_read_by_the_first_request():
    """A client is made before its certificate files exist (confluent-kafka's reads them when
    it sends its first request)."""
    conf = {"url": "https://127.0.0.1:65534", "ssl.certificate.location": "/nonexistent/cert",
            "ssl.key.location": "/nonexistent/key"}
    same(lambda m: importlib.import_module(m.__name__ + ".avro").CachedSchemaRegistryClient(
        dict(conf)).url, "https://127.0.0.1:65534")
