"""Produce N messages with delivery reports, consume them back, and check every one.

Uses the cluster in $KAFKA_BOOTSTRAP_SERVERS, or starts a local Apache Kafka broker (KRaft)
for the duration of the run.

    python examples/quickstart.py [N]
"""
import contextlib
import os
import sys
import time
import uuid

import confluent_binding as kafka
from confluent_binding.testing import ExternalKafkaCluster, KafkaCluster


@contextlib.contextmanager
def cluster():
    if os.environ.get("KAFKA_BOOTSTRAP_SERVERS"):
        yield ExternalKafkaCluster(os.environ["KAFKA_BOOTSTRAP_SERVERS"])
        return
    t0 = time.perf_counter()
    with KafkaCluster() as c:
        print(f"started Apache Kafka {c.version} at {c.bootstrap_servers} "
              f"in {time.perf_counter() - t0:.1f} s")
        yield c


def main(n):
    with cluster() as c:
        topic = f"quickstart-{uuid.uuid4().hex[:8]}"
        c.create_topic(topic, partitions=3)
        payload = {f"key-{i}".encode(): f"value-{i}".encode() * 4 for i in range(n)}

        delivered = {}

        def on_delivery(err, msg):
            if err is not None:
                raise kafka.KafkaException(err)
            delivered[msg.key()] = (msg.partition(), msg.offset())

        producer = kafka.Producer(c.client_config(**{"linger.ms": 5}))
        t0 = time.perf_counter()
        for key, value in payload.items():
            while True:
                try:
                    producer.produce(topic, value, key, on_delivery=on_delivery)
                    break
                except BufferError:
                    producer.poll(0.1)
            producer.poll(0)
        left = producer.flush(60)
        produce_s = time.perf_counter() - t0
        producer.close()
        print(f"produced {len(delivered)}/{n} with delivery reports in {produce_s:.2f} s: "
              f"{n / produce_s:,.0f} msgs/s" + (f" ({left} undelivered)" if left else ""))

        consumer = kafka.Consumer(c.client_config(**{
            "group.id": f"quickstart-{uuid.uuid4().hex[:8]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }))
        consumer.subscribe([topic])
        received, ok = 0, 0
        deadline = time.monotonic() + 60
        t0 = None
        while received < n and time.monotonic() < deadline:
            for msg in consumer.consume(1000, 1.0):
                if msg.error():
                    raise kafka.KafkaException(msg.error())
                t0 = t0 or time.perf_counter()
                received += 1
                ok += (payload.get(msg.key()) == msg.value()
                       and delivered.get(msg.key()) == (msg.partition(), msg.offset()))
        consume_s = time.perf_counter() - (t0 or time.perf_counter())
        consumer.close()
        print(f"consumed {received}/{n} in {consume_s:.2f} s: "
              f"{received / consume_s if consume_s else 0:,.0f} msgs/s")
        print(f"{ok}/{n} messages round-tripped")
        return 0 if ok == n else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000))
