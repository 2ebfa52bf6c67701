"""A typed program using the blocking producer and consumer (type-checked, never run).

Message[bytes, bytes] is for type checkers only (the compiled class, as confluent-kafka's, is not
subscriptable at run time): annotations stay unevaluated."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from confluent_binding import (
    Consumer,
    KafkaError,
    KafkaException,
    Message,
    Producer,
    TopicPartition,
)


def on_delivery(err: Optional[KafkaError], msg: Message) -> None:
    if err is not None:
        print("failed:", err.name(), err.retriable(), err.fatal())
        return
    offset: Optional[int] = msg.offset()
    print(msg.topic(), msg.partition(), offset)


def produce(conf: Dict[str, str]) -> int:
    producer = Producer(conf)
    producer.produce("events", b"value", key=b"key", headers=[("trace", b"42")],
                     on_delivery=on_delivery)
    producer.poll(0)
    return producer.flush(10.0)


def value_of(msg: Message[bytes, bytes]) -> bytes:
    value: Optional[bytes] = msg.value()
    key: Optional[bytes] = msg.key()
    return (key or b"") + (value or b"")


def headers_of(msg: Message) -> List[Tuple[str, Optional[bytes]]]:
    return msg.headers() or []


def consume(conf: Dict[str, str]) -> List[bytes]:
    consumer = Consumer(conf)
    consumer.subscribe(["events"])
    values: List[bytes] = []
    try:
        while len(values) < 10:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            error = msg.error()
            if error is not None:
                raise KafkaException(error)
            values.append(value_of(msg))
            consumer.commit(message=msg, asynchronous=False)
        positions: List[TopicPartition] = consumer.position(consumer.assignment())
        print([p.offset for p in positions])
    finally:
        consumer.close()
    return values
