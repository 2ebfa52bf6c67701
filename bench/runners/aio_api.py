"""The calls of confluent-kafka's asyncio API (``aio.AIOProducer``/``aio.AIOConsumer``), shared
by the runners of confluent_binding.aio and confluent_kafka.aio: both run exactly this code.

P2 ``await produce(topic, value, partition=0)`` per message and ``add_done_callback`` on the
returned future (counters only), ``await flush()``; AP2 each delivery awaited, batches of futures
in flight (``skeleton.produce_awaited``); AT2 a task per message awaiting its delivery
(``skeleton.produce_tasks``); C1 ``async for`` (confluent-kafka's AIOConsumer has no
``async for``: ``await poll(1.0)`` there).
"""

from __future__ import annotations

from runners.confluent_api import ConfluentAPI
from runners.skeleton import track_futures, until_reported


class AIOConfluentAPI(ConfluentAPI):
    aio = True

    def __init__(self, kafka, aio, name: str):
        super().__init__(kafka, name)
        self.aio_module = aio

    async def producer(self, run):
        return self.aio_module.AIOProducer(self.producer_conf(run))

    def serve(self, producer):
        return None  # the client serves its delivery reports itself

    def delivery(self, producer, deliveries):
        return track_futures(deliveries)

    async def flush(self, producer, deliveries) -> int:
        await producer.flush()
        await until_reported(deliveries)
        return len(producer)

    async def close_producer(self, producer) -> None:
        await producer.close()

    async def consumer(self, run):
        c = self.aio_module.AIOConsumer(self.consumer_conf(run))
        await c.subscribe([run.args.topic])
        return c

    def poll_one(self, consumer):
        if hasattr(consumer, "__anext__"):
            anext = consumer.__anext__
            return lambda _timeout: anext()
        return consumer.poll

    def first_one(self, consumer):
        return consumer.poll

    def poll_batch(self, consumer):
        raise NotImplementedError("no C2 for the asyncio clients")

    async def close_consumer(self, consumer) -> None:
        await consumer.close()
