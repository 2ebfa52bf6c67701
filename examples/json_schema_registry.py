"""JSON records checked against a JSON Schema through the Schema Registry: a SerializingProducer
validates and writes them (registering the schema), a record that breaks the schema is refused
before it is sent, and a DeserializingConsumer reads the others back as dicts.

    python examples/json_schema_registry.py [--bootstrap-servers HOST:PORT]
                                            [--schema-registry URL] [--topic NAME]

Needs the [jsonschema] extra. Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else
localhost:9092; the registry URL to $SCHEMA_REGISTRY_URL, else http://localhost:8081.
"""
import argparse
import json
import os
import sys
import uuid

from topics import ensure_topics

from confluent_binding import DeserializingConsumer, SerializingProducer
from confluent_binding.schema_registry import SchemaRegistryClient
from confluent_binding.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_binding.serialization import (
    SerializationError,
    StringDeserializer,
    StringSerializer,
)

SCHEMA = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Order",
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "amount": {"type": "number", "minimum": 0},
        "items": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "amount"],
})

ORDERS = {"o1": {"id": "o1", "amount": 12.5, "items": ["tea"]},
          "o2": {"id": "o2", "amount": 3, "items": []}}
BAD = {"id": "o3", "amount": -1}        # below the schema's minimum


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--schema-registry",
                        default=os.environ.get("SCHEMA_REGISTRY_URL", "http://localhost:8081"))
    parser.add_argument("--topic", default=f"example-orders-{uuid.uuid4().hex[:6]}")
    args = parser.parse_args()
    ensure_topics(args.bootstrap_servers, {args.topic: 1})   # if it does not exist yet

    registry = SchemaRegistryClient({"url": args.schema_registry})
    producer = SerializingProducer({
        "bootstrap.servers": args.bootstrap_servers,
        "key.serializer": StringSerializer(),
        # validates each record, registers the schema as <topic>-value on first use
        "value.serializer": JSONSerializer(SCHEMA, registry),
    })
    for key, order in ORDERS.items():
        producer.produce(args.topic, key=key, value=order)
    try:
        producer.produce(args.topic, key="o3", value=BAD)
    except SerializationError as e:
        # the message is refused before anything is sent
        print(f"refused o3: {str(e).splitlines()[0]}")
    assert producer.flush(30) == 0, "not delivered"
    print(f"schema id {registry.get_latest_version(args.topic + '-value').schema_id} "
          f"registered for {args.topic}-value")

    consumer = DeserializingConsumer({
        "bootstrap.servers": args.bootstrap_servers,
        "group.id": f"example-{uuid.uuid4().hex[:6]}",
        "auto.offset.reset": "earliest",
        "key.deserializer": StringDeserializer(),
        "value.deserializer": JSONDeserializer(None, schema_registry_client=registry),
    })
    consumer.subscribe([args.topic])
    received = {}
    for _ in range(60):
        if len(received) == len(ORDERS):
            break
        msg = consumer.poll(1.0)
        if msg is not None and not msg.error():
            received[msg.key()] = msg.value()
            print(f"{msg.key()}: {msg.value()}")
    consumer.close()
    return 0 if received == ORDERS else 1


if __name__ == "__main__":
    sys.exit(main())
