"""Exactly-once consume-transform-produce: read an input topic, write upper-cased copies to an
output topic, and commit the input offsets in the same transaction.

    python examples/transactions.py [--bootstrap-servers HOST:PORT]
                                    [--input NAME] [--output NAME] [--count N]

It first writes N input messages, then transforms them, then reads the output topic with
``isolation.level=read_committed`` and checks that each input arrived exactly once.
Bootstrap servers default to $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092.
"""
import argparse
import os
import sys
import time
import uuid

from topics import ensure_topics

from confluent_binding import Consumer, KafkaException, Producer


def transform(bootstrap, source, sink, count):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"eos-{source}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                         "isolation.level": "read_committed"})
    producer = Producer({"bootstrap.servers": bootstrap,
                         "transactional.id": f"eos-{uuid.uuid4().hex[:8]}"})
    producer.init_transactions(30)
    consumer.subscribe([source])
    done, deadline = 0, time.monotonic() + 60
    while done < count and time.monotonic() < deadline:
        batch = consumer.consume(100, 1.0)
        if not batch:
            continue
        producer.begin_transaction()
        try:
            for msg in batch:
                if msg.error():
                    raise KafkaException(msg.error())
                producer.produce(sink, msg.value().upper(), msg.key())
            # The consumer's position goes into the transaction: committed with the output,
            # or not at all.
            producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                                 consumer.consumer_group_metadata(), 30)
            producer.commit_transaction(30)
            done += len(batch)
        except KafkaException as e:
            if e.args[0].txn_requires_abort():
                producer.abort_transaction(30)   # nothing of this batch becomes visible
            raise
    consumer.close()
    producer.close()
    print(f"transformed {done} messages in transactions")
    return done


def read_committed(bootstrap, topic, count):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex}",
                         "auto.offset.reset": "earliest", "isolation.level": "read_committed"})
    consumer.subscribe([topic])
    values, deadline = [], time.monotonic() + 60
    while len(values) < count and time.monotonic() < deadline:
        values += [m.value() for m in consumer.consume(100, 1.0) if not m.error()]
    consumer.close()
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers",
                        default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092"))
    suffix = uuid.uuid4().hex[:6]
    parser.add_argument("--input", default=f"example-in-{suffix}")
    parser.add_argument("--output", default=f"example-out-{suffix}")
    parser.add_argument("--count", type=int, default=20)
    args = parser.parse_args()
    ensure_topics(args.bootstrap_servers, {args.input: 2, args.output: 2})

    producer = Producer({"bootstrap.servers": args.bootstrap_servers})
    for i in range(args.count):
        producer.produce(args.input, b"order %d" % i, b"k%d" % i)
    assert producer.flush(30) == 0, "input not delivered"
    producer.close()

    transform(args.bootstrap_servers, args.input, args.output, args.count)
    values = read_committed(args.bootstrap_servers, args.output, args.count)
    expected = {b"ORDER %d" % i for i in range(args.count)}
    ok = len(values) == args.count and set(values) == expected
    print(f"read back {len(values)} committed messages: "
          + ("each input exactly once" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
