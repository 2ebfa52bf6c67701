"""The futures ``await AIOProducer.produce()`` returns (DeliveryFuture) against the real broker:
asyncio's future protocol (isfuture, tasks, gather, wait, wait_for, shield, cancel), done-
callbacks in their contexts on the loop thread, exceptions in them going to the loop's
exception handler, many concurrent producing tasks, close() while tasks wait."""
import asyncio
import contextvars
import gc
import threading
import uuid
import weakref

import pytest

import confluent_binding as kafka
from confluent_binding.aio import AIOConsumer, AIOProducer, DeliveryFuture

from tests.support import unreachable

pytestmark = [pytest.mark.integration, pytest.mark.asyncio]

request_id = contextvars.ContextVar("request_id", default=None)


def consumer_conf(cluster):
    return cluster.client_config(**{"group.id": "aiofut-" + uuid.uuid4().hex,
                                    "auto.offset.reset": "earliest"})


async def read_all(cluster, topic, n, timeout=60):
    """The topic's values after n messages arrived, and whatever else came within 1 s."""
    consumer = AIOConsumer(consumer_conf(cluster))
    await consumer.subscribe([topic])
    out = []

    async def run():
        async for msg in consumer:
            out.append(msg.value())
            if len(out) == n:
                return
    try:
        await asyncio.wait_for(run(), timeout)
        out.extend(m.value() for m in await consumer.consume(100, 1.0))
    finally:
        await consumer.close()
    return out


async def test_the_future_protocol(kafka_cluster, make_topic):
    topic = make_topic(partitions=1)
    loop = asyncio.get_running_loop()
    producer = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 50}))
    fut = await producer.produce(topic, b"v0", key=b"k0")
    assert type(fut) is DeliveryFuture and not isinstance(fut, asyncio.Future)
    assert asyncio.isfuture(fut) and fut.get_loop() is loop
    assert not fut.done() and not fut.cancelled()
    with pytest.raises(asyncio.InvalidStateError):
        fut.result()
    with pytest.raises(asyncio.InvalidStateError):
        fut.exception()
    msg = await fut
    assert (msg.topic(), msg.partition(), msg.offset(), msg.key(), msg.value()) == (
        topic, 0, 0, b"k0", b"v0")
    assert fut.done() and fut.result() is msg and fut.exception() is None
    assert await fut is msg                              # awaited again: the same result
    assert not fut.cancel() and not fut.cancelled()
    with pytest.raises(asyncio.InvalidStateError):
        fut.set_result(None)
    assert repr(fut).startswith("<DeliveryFuture finished result=Message(")

    # a task awaits it, as any asyncio future
    async def deliver(value):
        return await (await producer.produce(topic, value))
    task_result = await asyncio.ensure_future(deliver(b"v1"))
    assert task_result.offset() == 1
    await producer.close()


async def test_gather_wait_wait_for_and_shield(kafka_cluster, make_topic):
    topic = make_topic(partitions=1)
    producer = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 5}))
    futs = [await producer.produce(topic, b"%d" % i) for i in range(20)]
    msgs = await asyncio.gather(*futs)
    assert [m.offset() for m in msgs] == list(range(20))
    assert [m.value() for m in msgs] == [b"%d" % i for i in range(20)]

    futs = [await producer.produce(topic, b"w%d" % i) for i in range(10)]
    done, pending = await asyncio.wait(futs, timeout=30)
    assert done == set(futs) and not pending
    first = await producer.produce(topic, b"first")
    done, pending = await asyncio.wait([first], return_when=asyncio.FIRST_COMPLETED)
    assert done == {first} and first.result().offset() == 30

    assert (await asyncio.wait_for(await producer.produce(topic, b"wf"), 30)).offset() == 31

    inner = await producer.produce(topic, b"shielded")
    outer = asyncio.shield(inner)
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert not inner.cancelled()
    assert (await inner).offset() == 32
    await producer.close()


async def test_cancelled_futures_messages_still_delivered_once(kafka_cluster, make_topic):
    """wait_for's timeout and cancel() give up on the future, never on the message: each is
    delivered once; gather reports the cancellations."""
    topic = make_topic(partitions=1)
    producer = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 500}))
    timed_out = await producer.produce(topic, b"timed-out")
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(timed_out, 0.05)
    assert timed_out.cancelled()
    futs = [await producer.produce(topic, b"%d" % i) for i in range(10)]
    waiter = asyncio.ensure_future(futs[0])                 # a task awaiting a future
    await asyncio.sleep(0)
    assert futs[1].cancel("no longer needed")
    assert waiter.cancel()
    results = await asyncio.gather(*futs, return_exceptions=True)
    assert futs[0].cancelled() and futs[1].cancelled()
    assert isinstance(results[0], asyncio.CancelledError)
    assert isinstance(results[1], asyncio.CancelledError)
    assert str(results[1]) == "no longer needed"
    with pytest.raises(asyncio.CancelledError):
        await waiter
    with pytest.raises(asyncio.CancelledError, match="no longer needed"):
        futs[1].result()
    assert [r.offset() for r in results[2:]] == list(range(3, 11))
    assert await producer.flush(30) == 0
    await producer.close()
    got = await read_all(kafka_cluster, topic, 11)
    assert sorted(got) == sorted([b"timed-out"] + [b"%d" % i for i in range(10)])


async def test_done_callbacks_run_on_the_loop_in_their_contexts(kafka_cluster, make_topic):
    topic = make_topic(partitions=1)
    producer = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 5}))
    seen = []
    in_produce = False

    def record(fut):
        assert not in_produce
        seen.append((request_id.get(), threading.get_ident(), fut.result().offset()))

    futs = []
    for i in range(50):
        request_id.set("r%d" % i)
        in_produce = True
        fut = await producer.produce(topic, b"%d" % i)
        in_produce = False
        fut.add_done_callback(record)
        futs.append(fut)
    explicit = contextvars.Context()
    explicit.run(request_id.set, "explicit")
    futs[0].add_done_callback(record, context=explicit)
    removed = []
    futs[1].add_done_callback(removed.append)
    futs[1].add_done_callback(removed.append)
    assert futs[1].remove_done_callback(removed.append) == 2
    request_id.set("after")
    await asyncio.gather(*futs)
    await asyncio.sleep(0)                  # the batch's callbacks run from one loop callback
    assert removed == []
    loop_thread = threading.get_ident()
    assert sorted(s[0] for s in seen) == sorted(["explicit"] + ["r%d" % i for i in range(50)])
    assert all(s[1] == loop_thread for s in seen)
    assert {s[0]: s[2] for s in seen if s[0] != "explicit"} == {"r%d" % i: i for i in range(50)}
    # a callback added to a done future is not called at once either: on the next loop turn
    late = []
    futs[2].add_done_callback(late.append)
    assert late == []
    await asyncio.sleep(0)
    assert late == [futs[2]]
    await producer.close()


async def test_an_exception_in_a_done_callback_goes_to_the_loop_handler(kafka_cluster,
                                                                      make_topic):
    topic = make_topic(partitions=1)
    loop = asyncio.get_running_loop()
    handled = []
    loop.set_exception_handler(lambda _loop, context: handled.append(context))
    try:
        producer = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 5}))
        futs = [await producer.produce(topic, b"%d" % i) for i in range(5)]
        calls = []

        def boom(fut):
            calls.append("boom")
            raise ValueError("bad callback")

        futs[2].add_done_callback(boom)
        futs[2].add_done_callback(lambda f: calls.append("after"))
        for f in futs:
            f.add_done_callback(lambda f: calls.append(f.result().offset()))
        await asyncio.gather(*futs)
        await asyncio.sleep(0)
        # the raising callback did not stop the others, of its future or the next ones
        assert sorted(c for c in calls if isinstance(c, int)) == list(range(5))
        assert calls.count("boom") == 1 and calls.count("after") == 1
        assert len(handled) == 1
        ctx = handled[0]
        assert ctx["message"].startswith("Exception in callback")
        assert isinstance(ctx["exception"], ValueError) and ctx["future"] is futs[2]
        await producer.close()
    finally:
        loop.set_exception_handler(None)


async def test_10k_concurrent_tasks_on_the_compiled_path(kafka_cluster, make_topic):
    """No callbacks of the caller's (the compiled path), a small local queue: tasks wait for
    room, every message is delivered once, in offset order per partition."""
    topic = make_topic(partitions=3)
    producer = AIOProducer(kafka_cluster.client_config(**{
        "linger.ms": 5, "queue.buffering.max.messages": 500}))

    async def one(i):
        return await (await producer.produce(topic, value=b"%d" % i))

    msgs = await asyncio.gather(*(one(i) for i in range(10_000)))
    assert sorted(m.value() for m in msgs) == sorted(b"%d" % i for i in range(10_000))
    for p in range(3):
        offsets = sorted(m.offset() for m in msgs if m.partition() == p)
        assert offsets == list(range(len(offsets)))
    assert len(producer) == 0
    await producer.close()


async def test_close_while_tasks_await_delivery_or_room():
    """close() that does not finish (here: cut short by a timeout) frees the producer: tasks
    awaiting delivery get a KafkaException (_PURGE_QUEUE), tasks waiting for room in the local
    queue a RuntimeError; nothing waits forever. (Its broker refuses connections, so that
    close() cannot deliver them.)"""
    topic = "unreachable-" + uuid.uuid4().hex[:8]
    producer = AIOProducer(unreachable(**{"queue.buffering.max.messages": 5}))

    async def deliver(i):
        return await (await producer.produce(topic, b"%d" % i))

    awaiting = [asyncio.ensure_future(deliver(i)) for i in range(5)]
    while len(producer) < 5:
        await asyncio.sleep(0.01)
    for_room = asyncio.ensure_future(deliver(5))
    await asyncio.sleep(0.05)
    assert not for_room.done() and not any(t.done() for t in awaiting)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(producer.close(), 0.5)
    results = await asyncio.wait_for(asyncio.gather(*awaiting, return_exceptions=True), 10)
    assert all(isinstance(r, kafka.KafkaException)
               and r.args[0].code() == kafka.KafkaError._PURGE_QUEUE for r in results)
    with pytest.raises(RuntimeError, match="Producer has been closed"):
        await asyncio.wait_for(for_room, 10)
    with pytest.raises(RuntimeError, match="Producer has been closed"):
        await producer.produce(topic, b"late")


async def test_futures_and_messages_stay_collectable(kafka_cluster, make_topic):
    """The compiled path keeps pending futures and delivered Messages out of the cycle
    collector while they cannot be part of a cycle; once they can, they are back under it and
    a cycle through them is freed."""
    topic = make_topic(partitions=1)
    producer = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 5}))
    fut = await producer.produce(topic, b"v")
    assert not gc.is_tracked(fut)
    msg = await fut
    assert not gc.is_tracked(msg)
    msg.set_value(msg)                      # a cycle: the collector must see it now
    assert gc.is_tracked(msg)
    await producer.close()

    # a failed delivery: the exception's traceback leads back to the future
    producer = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 60_000}))
    fut = await producer.produce(topic, b"x")
    await producer.purge()
    assert await producer.flush(10) == 0    # the purge's reports are served
    assert isinstance(fut.exception(), kafka.KafkaException) and gc.is_tracked(fut)

    def hold(f):
        try:
            f.result()
        except kafka.KafkaException as e:
            err = e
        return err
    hold(fut)
    ref = weakref.ref(fut)
    del fut
    gc.collect()
    assert ref() is None
    await producer.close()


async def test_values_read_in_place_arrive_intact(kafka_cluster, make_topic):
    """Values librdkafka reads in place (exact bytes; the future holds them until their
    report) arrive byte for byte, though nothing else refers to them while they are sent:
    large ones, which librdkafka does not copy into its request either, small ones, and some
    whose futures were cancelled or dropped at once. A compressed topic reads them twice."""
    topic = make_topic(partitions=2)
    producer = AIOProducer(kafka_cluster.client_config(**{
        "linger.ms": 20, "compression.type": "lz4", "message.max.bytes": 4_000_000}))
    sizes = [300_000, 70_000, 100, 0, 5] * 12
    want, futs = [], []
    for i, size in enumerate(sizes):
        fill = uuid.uuid4().bytes
        value = (fill * (size // 16 + 1))[:size]
        want.append(value)
        fut = await producer.produce(topic, bytes(bytearray(value)), key=b"%d" % i)
        if i % 5 == 1:
            fut.cancel()
        elif i % 7 != 3:        # the others are dropped: only librdkafka's reference is left
            futs.append((i, fut))
        del value, fut
    gc.collect()
    for i, fut in futs:
        msg = await fut
        assert msg.value() == want[i] and msg.key() == b"%d" % i
    assert await producer.flush(30) == 0
    await producer.close()
    got = await read_all(kafka_cluster, topic, len(sizes))
    assert sorted(got) == sorted(want)
