"""Read a topic in a consumer group, committing offsets by hand after processing.

    python examples/consumer.py [--bootstrap-servers HOST:PORT] [--topic NAME]
                                [--group ID] [--count N] [--timeout SECONDS]

Stops after N messages (or when no message arrived for the timeout) and commits what it
processed. Run it again with the same group: it goes on after the last committed offset.
Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092.
"""
import argparse
import os
import sys
import time

from topics import ensure_topics

from confluent_binding import Consumer, KafkaException


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--topic", default="example-events")
    parser.add_argument("--group", default="example-group")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()
    ensure_topics(args.bootstrap_servers, {args.topic: 3})   # if it does not exist yet

    consumer = Consumer({
        "bootstrap.servers": args.bootstrap_servers,
        "group.id": args.group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,        # commit only what was processed
    })
    consumer.subscribe([args.topic],
                       on_assign=lambda c, parts: print(f"assigned {len(parts)} partitions"))
    processed = 0
    last_arrival = time.monotonic()
    try:
        while processed < args.count:
            # consume() returns once it has num_messages or its timeout passed: ask for no more
            # than is left, and wait a second at a time
            batch = consumer.consume(num_messages=min(100, args.count - processed), timeout=1.0)
            if not batch:
                if time.monotonic() - last_arrival > args.timeout:
                    break                   # nothing arrived for the timeout
                continue
            last_arrival = time.monotonic()
            for msg in batch:
                if msg.error():
                    raise KafkaException(msg.error())
                processed += 1              # ... process msg.key(), msg.value() here ...
            # Synchronous commit of the offsets after the last message of this batch.
            committed = consumer.commit(asynchronous=False)
            print("committed " + ", ".join(
                f"{tp.topic}[{tp.partition}]@{tp.offset}" for tp in committed))
    finally:
        consumer.close()
    print(f"processed {processed} messages")
    return 0 if processed >= args.count else 1


if __name__ == "__main__":
    sys.exit(main())
