"""Produce and consume with the asyncio clients (confluent-kafka's ``confluent_kafka.aio`` API).

    python examples/asyncio_clients.py [--bootstrap-servers HOST:PORT] [--topic NAME] [--count N]

Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092.
"""
import argparse
import asyncio
import os
import sys
import uuid

from topics import ensure_topics

from confluent_binding.aio import AIOConsumer, AIOProducer


async def produce(bootstrap, topic, count):
    producer = AIOProducer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    try:
        # await produce() enqueues and returns a future; awaiting that gives the delivered Message.
        futures = [await producer.produce(topic, f"event {i}".encode(), key=b"k%d" % i)
                   for i in range(count)]
        delivered = await asyncio.gather(*futures)
    finally:
        await producer.close()
    print(f"delivered {len(delivered)} messages, last at offset {delivered[-1].offset()}")


async def consume(bootstrap, topic, count):
    consumer = AIOConsumer({"bootstrap.servers": bootstrap,
                            "group.id": f"example-{uuid.uuid4().hex[:6]}",
                            "auto.offset.reset": "earliest"})
    received = []
    try:
        await consumer.subscribe([topic])
        async for msg in consumer:          # raises KafkaException on a consumer error
            received.append(msg.value())
            if len(received) == count:
                break
    finally:
        await consumer.close()
    print(f"consumed {len(received)} messages, first {received[0].decode()!r}")


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--topic", default="example-aio")
    parser.add_argument("--count", type=int, default=10)
    args = parser.parse_args()
    ensure_topics(args.bootstrap_servers, {args.topic: 1})   # if it does not exist yet
    await produce(args.bootstrap_servers, args.topic, args.count)
    await asyncio.wait_for(consume(args.bootstrap_servers, args.topic, args.count), 60)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
