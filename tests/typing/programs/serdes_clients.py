"""A typed program using the Schema Registry serdes (type-checked, never run)."""
from typing import Any, Dict, Optional

from confluent_binding.schema_registry import SchemaRegistryClient
from confluent_binding.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_binding.schema_registry.json_schema import JSONSerializer
from confluent_binding.serialization import MessageField, SerializationContext

SCHEMA = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'


def to_dict(user: Dict[str, Any], ctx: Optional[SerializationContext]) -> Dict[str, Any]:
    return dict(user)


def round_trip(url: str) -> Optional[Dict[str, Any]]:
    client = SchemaRegistryClient({"url": url})
    ctx = SerializationContext("users", MessageField.VALUE)
    serializer = AvroSerializer(client, SCHEMA, to_dict, conf={"auto.register.schemas": True})
    data: Optional[bytes] = serializer({"name": "ada"}, ctx)
    deserializer = AvroDeserializer(client, SCHEMA)
    record: Optional[Dict[str, Any]] = deserializer(data, ctx)
    json_serializer = JSONSerializer('{"type": "object"}', client)
    encoded: Optional[bytes] = json_serializer({"a": 1}, ctx)
    print(encoded)
    latest = client.get_latest_version("users-value")
    print(latest.schema_id, latest.version, latest.schema.schema_str)
    return record
