"""Produce messages and confirm each one with a delivery callback.

    python examples/producer.py [--bootstrap-servers HOST:PORT] [--topic NAME] [--count N]

Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092.
"""
import argparse
import os
import sys

from topics import ensure_topics

from confluent_binding import KafkaException, Producer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    parser.add_argument("--topic", default="example-events")
    parser.add_argument("--count", type=int, default=10)
    args = parser.parse_args()
    ensure_topics(args.bootstrap_servers, {args.topic: 3})   # if it does not exist yet

    delivered, failed = [], []

    def on_delivery(err, msg):
        # Runs inside poll() / flush(), on this thread, once per message.
        if err is not None:
            failed.append(err)
        else:
            delivered.append((msg.partition(), msg.offset()))

    producer = Producer({"bootstrap.servers": args.bootstrap_servers, "linger.ms": 5})
    for i in range(args.count):
        producer.produce(args.topic, value=f"event {i}".encode(), key=f"key-{i}".encode(),
                         headers=[("source", b"examples/producer.py")], on_delivery=on_delivery)
        producer.poll(0)  # serve the delivery reports that are ready
    undelivered = producer.flush(30)
    producer.close()

    if failed or undelivered:
        raise KafkaException(failed[0] if failed else f"{undelivered} messages undelivered")
    print(f"delivered {len(delivered)}/{args.count} messages to {args.topic}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
