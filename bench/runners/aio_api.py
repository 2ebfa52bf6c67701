"""The calls of confluent-kafka's asyncio API (``aio.AIOProducer``/``aio.AIOConsumer``), shared
by the runners of confluent_binding.aio and confluent_kafka.aio: both run exactly this code.

P2 ``await produce(topic, value, partition=0)`` per message and ``add_done_callback`` on the
returned future (counters only), ``await flush()``; C1 ``async for`` (confluent-kafka's
AIOConsumer has no ``async for``: ``await poll(1.0)`` there).
"""

from __future__ import annotations

import asyncio
from operator import methodcaller

from harness import settings

from runners.skeleton import Client


class AIOConfluentAPI(Client):
    aio = True

    def __init__(self, kafka, aio, name: str):
        self.kafka = kafka
        self.aio_module = aio
        self.name = name

    def versions(self) -> tuple:
        return self.kafka.__version__, self.kafka.libversion()[0]

    async def producer(self, run):
        conf = settings.librdkafka_producer()
        conf["bootstrap.servers"] = run.args.bootstrap
        return self.aio_module.AIOProducer(conf)

    def send(self, producer):
        return producer.produce

    def delivery(self, producer, deliveries):
        def on_done(fut):
            if not fut.cancelled() and fut.exception() is None:
                deliveries.ok += 1
            else:
                deliveries.failed("cancelled" if fut.cancelled() else repr(fut.exception()))

        return "future", methodcaller("add_done_callback", on_done)

    async def flush(self, producer, deliveries) -> int:
        await producer.flush()
        for _ in range(1000):
            if deliveries is None or deliveries.ok + deliveries.err >= deliveries.expected:
                break
            await asyncio.sleep(0)  # the last futures' done-callbacks are scheduled: run them
        return len(producer)

    async def close_producer(self, producer) -> None:
        await producer.close()

    async def consumer(self, run):
        conf = settings.librdkafka_consumer()
        conf["bootstrap.servers"] = run.args.bootstrap
        conf["group.id"] = run.args.group
        c = self.aio_module.AIOConsumer(conf)
        await c.subscribe([run.args.topic])
        return c

    def poll_one(self, consumer):
        if hasattr(consumer, "__anext__"):
            anext = consumer.__anext__
            return lambda _timeout: anext()
        return consumer.poll

    def first_one(self, consumer):
        return consumer.poll

    def message_fields(self) -> tuple:
        m = self.kafka.Message
        return m.value, m.offset, m.error

    async def close_consumer(self, consumer) -> None:
        await consumer.close()
