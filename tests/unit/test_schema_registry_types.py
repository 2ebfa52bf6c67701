"""Schema Registry client pieces that need no registry: config checks and value types, compared
with confluent-kafka's."""

import json

import confluent_kafka.schema_registry as theirs
import pytest

import confluent_binding.schema_registry as ours
from confluent_binding.schema_registry import (
    RegisteredSchema,
    Schema,
    SchemaReference,
    SchemaRegistryError,
    ServerConfig,
)

USER_V1 = json.dumps(
    {"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}
)


def test_config_errors_match_confluent():
    cases = [
        {},
        {"url": 5},
        {"url": "ftp://x"},
        {"url": "http://x", "bogus.key": 1},
        {"url": "http://x", "cache.capacity": "big"},
        {"url": "http://x", "bearer.auth.credentials.source": "NOPE"},
        {"url": "http://x", "bearer.auth.credentials.source": "STATIC_TOKEN"},
        {
            "url": "http://x",
            "bearer.auth.credentials.source": "STATIC_TOKEN",
            "bearer.auth.logical.cluster": "c",
        },
    ]
    for conf in cases:
        with pytest.raises(Exception) as mine:
            ours.SchemaRegistryClient(dict(conf))
        with pytest.raises(Exception) as theirs_exc:
            theirs.SchemaRegistryClient(dict(conf))
        assert (type(mine.value), str(mine.value)) == (
            type(theirs_exc.value),
            str(theirs_exc.value),
        ), conf


def test_same_values_as_confluent_kafka_types():
    ref = SchemaReference("n", "s", 3)
    schema = Schema(USER_V1, "AVRO", [ref])
    their_schema = theirs.Schema(USER_V1, "AVRO", [theirs.SchemaReference("n", "s", 3)])
    assert schema.to_dict() == their_schema.to_dict()
    assert repr(schema).replace("confluent_binding", "") == repr(their_schema).replace(
        "confluent_kafka", ""
    )
    assert hash(schema) == hash(Schema(USER_V1, "AVRO", [])) and schema != Schema(
        USER_V1, "AVRO", []
    )
    wire = {"id": 7, "subject": "s", "version": 2, "schema": USER_V1, "references": [ref.to_dict()]}
    assert (
        RegisteredSchema.from_dict(wire).to_dict()
        == theirs.RegisteredSchema.from_dict(wire).to_dict()
    )
    assert repr(ServerConfig.from_dict({"compatibilityLevel": "FULL"})) == repr(
        theirs.ServerConfig.from_dict({"compatibilityLevel": "FULL"})
    )
    err = SchemaRegistryError(404, 40401, "Subject not found")
    assert str(err) == str(theirs.SchemaRegistryError(404, 40401, "Subject not found"))
    # Every name ours exports is confluent's; confluent's others are the subject name strategies
    # and schema id helpers (confluent_binding.schema_registry.serde).
    assert set(ours.__all__) <= set(theirs.__all__)
    missing = set(theirs.__all__) - set(ours.__all__)
    assert all(n.endswith(("_strategy", "_serializer", "_deserializer")) for n in missing), missing
