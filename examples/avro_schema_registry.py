"""Avro records through the Schema Registry: a SerializingProducer writes them (registering the
schema), a DeserializingConsumer reads them back (fetching the writer's schema by id).

    python examples/avro_schema_registry.py [--bootstrap-servers HOST:PORT]
                                            [--schema-registry URL] [--topic NAME]

Needs the [avro] extra (fastavro). Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else
localhost:9092; the registry URL to $SCHEMA_REGISTRY_URL, else http://localhost:8081.
"""
import argparse
import os
import sys
import uuid

from topics import ensure_topics

from confluent_binding import DeserializingConsumer, SerializingProducer
from confluent_binding.schema_registry import SchemaRegistryClient
from confluent_binding.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_binding.serialization import StringDeserializer, StringSerializer

SCHEMA = """{"type": "record", "name": "User", "namespace": "example",
             "fields": [{"name": "name", "type": "string"},
                        {"name": "age", "type": "int"}]}"""

USERS = {"u1": {"name": "Ann", "age": 31}, "u2": {"name": "Bob", "age": 42}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--schema-registry",
                        default=os.environ.get("SCHEMA_REGISTRY_URL", "http://localhost:8081"))
    parser.add_argument("--topic", default=f"example-users-{uuid.uuid4().hex[:6]}")
    args = parser.parse_args()
    ensure_topics(args.bootstrap_servers, {args.topic: 1})   # if it does not exist yet

    registry = SchemaRegistryClient({"url": args.schema_registry})
    producer = SerializingProducer({
        "bootstrap.servers": args.bootstrap_servers,
        "key.serializer": StringSerializer(),
        "value.serializer": AvroSerializer(registry, SCHEMA),   # registers it as <topic>-value
    })
    for key, user in USERS.items():
        producer.produce(args.topic, key=key, value=user)
    assert producer.flush(30) == 0, "not delivered"
    print(f"schema id {registry.get_latest_version(args.topic + '-value').schema_id} "
          f"registered for {args.topic}-value")

    consumer = DeserializingConsumer({
        "bootstrap.servers": args.bootstrap_servers,
        "group.id": f"example-{uuid.uuid4().hex[:6]}",
        "auto.offset.reset": "earliest",
        "key.deserializer": StringDeserializer(),
        "value.deserializer": AvroDeserializer(registry),        # the writer's schema, by id
    })
    consumer.subscribe([args.topic])
    received = {}
    for _ in range(60):
        if len(received) == len(USERS):
            break
        msg = consumer.poll(1.0)
        if msg is not None and not msg.error():
            received[msg.key()] = msg.value()
            print(f"{msg.key()}: {msg.value()}")
    consumer.close()
    return 0 if received == USERS else 1


if __name__ == "__main__":
    sys.exit(main())
