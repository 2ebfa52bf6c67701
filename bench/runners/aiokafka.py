"""Runner: aiokafka (asyncio; the default event loop).

P1 ``await send(topic, value, partition=0)`` per message (the returned future is not awaited),
``flush()`` at the end; P2 the same plus ``add_done_callback`` on each future (counters only);
C1 ``getone()``; C2 ``getmany(max_records=1000)``. The same calls measure
``confluent_binding.aiokafka`` (runners/confluent_binding_aiokafka.py).
"""

import asyncio
import logging
import sys

from harness import settings

from runners.protocol import FIRST_MESSAGE_TIMEOUT
from runners.skeleton import Client, main, track_futures, until_reported

logging.basicConfig(level=logging.ERROR)


class AIOKafka(Client):
    """aiokafka's API, from ``module`` (aiokafka itself unless told)."""

    aio = True

    def __init__(self, module=None, name="aiokafka", version=None):
        if module is None:
            import aiokafka as module
        self.m, self.name = module, name
        self._version = version or module.__version__

    def versions(self) -> tuple:
        return self._version, ""

    async def producer(self, run):
        p = self.m.AIOKafkaProducer(bootstrap_servers=run.args.bootstrap,
                                    **settings.aiokafka_producer())
        await p.start()
        try:
            await p.partitions_for(run.args.topic)  # topic metadata before the clock starts
        except BaseException:
            await p.stop()
            raise
        return p

    def send(self, producer):
        return producer.send

    def delivery(self, producer, deliveries):
        return track_futures(deliveries)

    async def flush(self, producer, deliveries) -> int:
        await producer.flush()
        await until_reported(deliveries)
        return 0

    async def close_producer(self, producer) -> None:
        await producer.stop()

    async def consumer(self, run):
        c = self.m.AIOKafkaConsumer(
            run.args.topic,
            bootstrap_servers=run.args.bootstrap,
            group_id=run.args.group,
            **settings.python_peer_consumer(),
        )
        await c.start()
        return c

    def poll_one(self, consumer):
        # getone() waits without a timeout: the orchestrator's per-run timeout bounds a stall.
        getone = consumer.getone
        return lambda _timeout: getone()

    def first_one(self, consumer):
        async def first(_timeout):
            try:
                return await asyncio.wait_for(consumer.getone(), FIRST_MESSAGE_TIMEOUT)
            except asyncio.TimeoutError:
                return None

        return first

    def poll_batch(self, consumer):
        getmany = consumer.getmany
        return lambda k, timeout: getmany(timeout_ms=int(timeout * 1000), max_records=k)

    def partitions(self, batch):
        return batch.values()

    async def close_consumer(self, consumer) -> None:
        await consumer.stop()


if __name__ == "__main__":
    sys.exit(main(AIOKafka()))
