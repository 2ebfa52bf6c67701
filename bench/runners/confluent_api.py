"""The calls of confluent-kafka's API, shared by the runners of confluent_binding and
confluent-kafka: both run exactly this code, so any difference is the binding's.

P1 ``produce(topic, value, partition=0)``, ``poll(0)`` every 1000 produces, ``flush()``;
P2 the same with ``on_delivery=cb`` (counters only); C1 ``poll(1.0)``; C2 ``consume(1000, 1.0)``.
"""

from __future__ import annotations

from harness import settings

from runners.skeleton import Client


class ConfluentAPI(Client):
    def __init__(self, kafka, name: str):
        self.kafka = kafka
        self.name = name

    def versions(self) -> tuple:
        return self.kafka.__version__, self.kafka.libversion()[0]

    @staticmethod
    def producer_conf(run) -> dict:
        conf = settings.librdkafka_producer()
        conf["bootstrap.servers"] = run.args.bootstrap
        return conf

    @staticmethod
    def consumer_conf(run) -> dict:
        conf = settings.librdkafka_consumer()
        conf["bootstrap.servers"] = run.args.bootstrap
        conf["group.id"] = run.args.group
        return conf

    # -- producer --
    async def producer(self, run):
        return self.kafka.Producer(self.producer_conf(run))

    def send(self, producer):
        return producer.produce

    def serve(self, producer):
        return producer.poll

    def delivery(self, producer, deliveries):
        def on_delivery(err, msg):
            if err is None:
                deliveries.ok += 1
            else:
                deliveries.failed(err)

        return "on_delivery", on_delivery

    async def flush(self, producer, deliveries) -> int:
        left = producer.flush(120)
        return max(left, len(producer))

    # -- consumer --
    async def consumer(self, run):
        c = self.kafka.Consumer(self.consumer_conf(run))
        c.subscribe([run.args.topic])
        return c

    def poll_one(self, consumer):
        return consumer.poll

    def poll_batch(self, consumer):
        return consumer.consume

    def message_fields(self) -> tuple:
        m = self.kafka.Message
        return m.value, m.offset, m.error

    async def close_consumer(self, consumer) -> None:
        consumer.close()
