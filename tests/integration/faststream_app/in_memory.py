"""FastStream's in-memory test broker (``TestKafkaBroker``), the way FastStream users test their
apps without Kafka, run by test_faststream.py in a child process through the import alias. For
``faststream.confluent`` it delivers its own subclass of ``confluent_kafka.Message``
(``MockConfluentMessage``, whose ``__init__`` never calls the base class's), so this is where the
binding's ``Message`` must be subclassable as confluent-kafka's is.

    python in_memory.py FLAVOR

Prints one JSON line: what the subscriber saw of the record it was handed, and what the publisher
answered.
"""

import asyncio
import importlib
import json
import sys


def field(raw, name):
    """confluent_kafka's Message has methods, aiokafka's ConsumerRecord attributes."""
    value = getattr(raw, name)
    return value() if callable(value) else value


async def main(flavor):
    broker_module = importlib.import_module("faststream." + flavor)
    library = importlib.import_module("confluent_kafka" if flavor == "confluent" else "aiokafka")
    broker = broker_module.KafkaBroker()
    seen = {}

    @broker.subscriber("in-topic")
    @broker.publisher("out-topic")
    async def handle(msg: broker_module.KafkaMessage):
        raw = msg.raw_message
        seen.update({
            "mro": [c.__module__ + "." + c.__qualname__ for c in type(raw).__mro__],
            "is_message": isinstance(raw, getattr(library, "Message", type(None))),
            "key": field(raw, "key").decode(), "value": field(raw, "value").decode(),
            "topic": field(raw, "topic"), "partition": field(raw, "partition"),
            "header": msg.headers.get("app-note"),
        })
        return b"echo:" + msg.body

    @broker.subscriber("out-topic")
    async def answer(body: bytes):
        seen["answer"] = body.decode()

    async with broker_module.TestKafkaBroker(broker) as test_broker:
        await test_broker.publish(b"hello", "in-topic", key=b"k-1",
                                  headers={"app-note": "memory"})
    print(json.dumps({"library": library.__name__, "seen": seen}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
