"""Runner: kafka-python (pure Python).

P1 ``send(topic, value, partition=0)`` per message, ``flush()`` at the end; P2 the same plus
``add_callback`` / ``add_errback`` on each future (counters only); C1 the consumer iterator (one
record per ``next()``); C2 ``poll(max_records=1000)``.
"""

import logging
import sys

import kafka
from harness import settings
from kafka import KafkaConsumer, KafkaProducer

from runners.skeleton import Client, main

logging.basicConfig(level=logging.ERROR)


class KafkaPython(Client):
    name = "kafka_python"

    def versions(self) -> tuple:
        return kafka.__version__, ""

    async def producer(self, run):
        p = KafkaProducer(bootstrap_servers=run.args.bootstrap, **settings.kafka_python_producer())
        p.partitions_for(run.args.topic)  # metadata before the clock starts: send() would wait
        return p

    def send(self, producer):
        return producer.send

    def delivery(self, producer, deliveries):
        def on_ok(_metadata):
            deliveries.ok += 1

        def track(future):
            future.add_callback(on_ok).add_errback(deliveries.failed)

        return "future", track

    async def flush(self, producer, deliveries) -> int:
        producer.flush(timeout=300)
        return 0

    async def close_producer(self, producer) -> None:
        producer.close(timeout=30)

    async def consumer(self, run):
        return KafkaConsumer(
            run.args.topic,
            bootstrap_servers=run.args.bootstrap,
            group_id=run.args.group,
            consumer_timeout_ms=1000,
            **settings.python_peer_consumer(),
        )

    def poll_one(self, consumer):
        nxt = consumer.__next__

        def fetch(_timeout):  # the iterator stops after consumer_timeout_ms without a record
            try:
                return nxt()
            except StopIteration:
                return None

        return fetch

    def poll_batch(self, consumer):
        poll = consumer.poll
        return lambda k, timeout: poll(timeout_ms=int(timeout * 1000), max_records=k)

    def partitions(self, batch):
        return batch.values()

    async def close_consumer(self, consumer) -> None:
        consumer.close()


if __name__ == "__main__":
    sys.exit(main(KafkaPython()))
