"""A typed program using the asyncio clients (type-checked, never run)."""
import asyncio
from typing import List, Optional

from confluent_binding import Message
from confluent_binding.aio import AIOConsumer, AIOProducer


async def produce() -> int:
    producer = AIOProducer({"bootstrap.servers": "localhost:9092"})
    try:
        delivered: Message = await (await producer.produce("events", b"value", key=b"key"))
        offset: Optional[int] = delivered.offset()
        print(offset)
        return await producer.flush(5.0)
    finally:
        await producer.close()


async def consume() -> List[bytes]:
    consumer = AIOConsumer({"bootstrap.servers": "localhost:9092", "group.id": "g"})
    await consumer.subscribe(["events"])
    values: List[bytes] = []
    try:
        for msg in await consumer.consume(10, 1.0):
            value: Optional[bytes] = msg.value()
            if value is not None:
                values.append(value)
    finally:
        await consumer.close()
    return values


if __name__ == "__main__":
    asyncio.run(produce())
