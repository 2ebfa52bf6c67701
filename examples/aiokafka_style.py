"""The same round trip with aiokafka's API (``confluent_binding.aiokafka``).

Code written for aiokafka runs unchanged with ``import confluent_binding.aiokafka as aiokafka``,
or with the import alias (``confluent_binding.install_as_aiokafka()``).

    python examples/aiokafka_style.py [--bootstrap-servers HOST:PORT] [--topic NAME] [--count N]

Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092.
"""
import argparse
import asyncio
import os
import sys
import uuid

from topics import ensure_topics

from confluent_binding.aiokafka import AIOKafkaConsumer, AIOKafkaProducer


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--topic", default="example-aiokafka")
    parser.add_argument("--count", type=int, default=10)
    args = parser.parse_args()
    ensure_topics(args.bootstrap_servers, {args.topic: 1})   # if it does not exist yet

    async with AIOKafkaProducer(bootstrap_servers=args.bootstrap_servers,
                                linger_ms=5) as producer:
        for i in range(args.count):
            metadata = await producer.send_and_wait(args.topic, f"event {i}".encode(),
                                                    key=b"k%d" % i)
    print(f"sent {args.count} records, last to partition {metadata.partition} "
          f"at offset {metadata.offset}")

    consumer = AIOKafkaConsumer(args.topic, bootstrap_servers=args.bootstrap_servers,
                                group_id=f"example-{uuid.uuid4().hex[:6]}",
                                auto_offset_reset="earliest")
    await consumer.start()
    received = 0
    try:
        for _ in range(60):                 # up to about a minute
            if received >= args.count:
                break
            batches = await consumer.getmany(timeout_ms=1000)
            for records in batches.values():
                received += len(records)
    finally:
        await consumer.stop()
    print(f"received {received} records")
    return 0 if received >= args.count else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
