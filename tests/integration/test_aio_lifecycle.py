"""The asyncio clients' end when the application never closes them: the event loop's shutdown
frees them with a ResourceWarning (as asyncio does for an unclosed transport), against the real
broker. These tests run their own loops (asyncio.run), so they are plain functions."""
import asyncio
import collections
import gc
import threading
import uuid
import warnings

import pytest

import confluent_binding as kafka
from confluent_binding.aio import AIOConsumer, AIOProducer

pytestmark = pytest.mark.integration


def _resource_warnings(record):
    return sorted(str(w.message) for w in record if issubclass(w.category, ResourceWarning))


def test_loop_shutdown_frees_live_clients_with_a_resource_warning(kafka_cluster, make_topic):
    topic = make_topic(partitions=1)
    gc.collect()    # earlier tests' garbage (their unclosed sockets) warns now, not below
    kept = {}

    async def main():
        # held from outside the loop: garbage collection never frees these two
        p = kept["producer"] = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 60_000}))
        first = await p.produce(topic, value=b"first", partition=0)
        await p.flush()         # sends at once, whatever linger.ms says
        kept["first"] = first.result()
        p._producer.purge()     # nothing queued now; the next messages wait out the linger
        kept["queued"] = [await p.produce(topic, value=b"q%d" % i, partition=0)
                          for i in range(3)]
        c = kept["consumer"] = AIOConsumer(kafka_cluster.client_config(**{
            "group.id": "aio-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))
        await c.subscribe([topic])
        kept["message"] = await c.poll(30)

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        asyncio.run(main())
        got = _resource_warnings(record)

    p, c = kept["producer"], kept["consumer"]
    assert kept["first"].error() is None and kept["first"].offset() == 0
    assert kept["message"].value() == b"first"
    assert got == sorted(["unclosed %r: freed because its event loop shut down" % c,
                          "unclosed %r: freed because its event loop shut down" % p])
    # freed: the compiled clients are closed, the wake-up pipes closed, the loop no longer needed
    with pytest.raises(RuntimeError, match="Producer has been closed"):
        p._producer.poll(0)
    with pytest.raises(RuntimeError):
        c._consumer.poll(0)
    assert p._wakeup.closed and c._wakeup.closed
    # the messages still waiting for their linger were purged: each future failed, once
    for fut in kept["queued"]:
        assert fut.done()
        err = fut.exception()
        assert isinstance(err, kafka.KafkaException)
        assert err.args[0].code() == kafka.KafkaError._PURGE_QUEUE
    # closing again is a no-op; nothing else is warned about later
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        del p, c
        kept.clear()
        gc.collect()
    assert _resource_warnings(record) == []


def test_closed_clients_and_garbage_collected_ones(kafka_cluster, make_topic):
    """A client closed properly gives no warning at the loop's shutdown. A loop closed by hand
    (no shutdown_asyncgens) cannot free its clients: the garbage collector does, with the
    warning."""
    topic = make_topic(partitions=1)
    kept = {}

    async def main():
        p = kept["closed"] = AIOProducer(kafka_cluster.client_config())
        await (await p.produce(topic, value=b"x"))
        await p.close()

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        asyncio.run(main())
        assert _resource_warnings(record) == []

    async def make():
        p = AIOProducer(kafka_cluster.client_config())
        await (await p.produce(topic, value=b"y"))
        return p

    loop = asyncio.new_event_loop()
    p = loop.run_until_complete(make())
    loop.close()
    handle, text = p._producer, repr(p)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        del p
        gc.collect()
        assert _resource_warnings(record) == [
            "unclosed %s: freed because it was garbage collected" % text]
    with pytest.raises(RuntimeError, match="Producer has been closed"):
        handle.poll(0)


def _drop_on_another_thread(holder):
    """Drop the last reference (in ``holder``) on a thread of its own; collect there too."""
    def drop():
        holder.clear()
        gc.collect()
    t = threading.Thread(target=drop)
    t.start()
    t.join()
    return t.ident


def test_producer_dropped_on_another_thread_while_tasks_await_deliveries(kafka_cluster,
                                                                          make_topic,
                                                                          monkeypatch):
    """The last reference to a producer goes on another thread while tasks await its
    deliveries: every awaiter is woken exactly once, on the loop thread, with its delivered
    message, and the producer is freed on the loop thread with the warning (today the loop's
    wake-up reader holds it until the loop shuts down; a finaliser run on the other thread
    would hand the freeing to the loop thread)."""
    topic = make_topic(partitions=1)
    n = 100
    woken, done_calls, freed_on = [], collections.Counter(), []
    kept = {}

    async def main():
        loop_thread = threading.get_ident()
        # the messages wait out the linger: the reference goes while every task still awaits
        holder = [AIOProducer(kafka_cluster.client_config(**{"linger.ms": 3000}))]
        release, target = AIOProducer._release, id(holder[0])

        def release_recorded(producer):     # also re-entered, as a no-op, while it frees
            freed = release(producer)
            if id(producer) == target:
                freed_on.append((threading.get_ident(), freed))
            return freed

        monkeypatch.setattr(AIOProducer, "_release", release_recorded)
        futs = [await holder[0].produce(topic, value=b"m%d" % i, partition=0) for i in range(n)]
        started = asyncio.Event()
        waiting = 0

        async def waiter(i, fut):
            nonlocal waiting
            waiting += 1
            if waiting == n:
                started.set()
            msg = await fut
            woken.append((i, threading.get_ident(), msg.value(), msg.offset()))

        for i, fut in enumerate(futs):
            fut.add_done_callback(lambda _f, i=i: done_calls.update([(i, threading.get_ident())]))
        tasks = [asyncio.create_task(waiter(i, f)) for i, f in enumerate(futs)]
        await started.wait()
        kept["pending_at_drop"] = sum(not f.done() for f in futs)
        kept["dropper"] = _drop_on_another_thread(holder)
        await asyncio.gather(*tasks)
        return loop_thread

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        loop_thread = asyncio.run(main())
        got = _resource_warnings(record)

    assert kept["pending_at_drop"] == n
    assert kept["dropper"] != loop_thread
    assert sorted(woken) == [(i, loop_thread, b"m%d" % i, i) for i in range(n)]
    assert done_calls == collections.Counter({(i, loop_thread): 1 for i in range(n)})
    assert {t for t, _ in freed_on} == {loop_thread}
    assert [t for t, done in freed_on if done] == [loop_thread]
    assert len(got) == 1 and got[0].startswith("unclosed <confluent_binding.aio")


def test_consumer_dropped_on_another_thread_is_freed_on_the_loop_thread(kafka_cluster,
                                                                        make_topic,
                                                                        monkeypatch):
    """A consumer whose last reference goes on another thread while its loop runs is freed by
    the loop thread (its wake-up reader and waiters belong to the loop), with the warning."""
    topic = make_topic(partitions=1)
    freed_on = []

    async def main():
        loop = asyncio.get_running_loop()
        freed = asyncio.Event()
        holder = [AIOConsumer(kafka_cluster.client_config(**{
            "group.id": "aio-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"}))]
        await holder[0].subscribe([topic])
        release, target = AIOConsumer._release, id(holder[0])

        def release_recorded(consumer):     # also re-entered, as a no-op, while it frees
            done = release(consumer)
            if id(consumer) == target:
                freed_on.append((threading.get_ident(), done))
                loop.call_soon_threadsafe(freed.set)
            return done

        monkeypatch.setattr(AIOConsumer, "_release", release_recorded)
        dropper = _drop_on_another_thread(holder)
        await asyncio.wait_for(freed.wait(), 60)
        return threading.get_ident(), dropper

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        loop_thread, dropper = asyncio.run(main())
        got = _resource_warnings(record)

    assert dropper != loop_thread
    assert {t for t, _ in freed_on} == {loop_thread}
    assert [t for t, done in freed_on if done] == [loop_thread]
    assert len(got) == 1 and got[0].startswith("unclosed <confluent_binding.aio")
    assert got[0].endswith("freed because it was garbage collected")
