"""The asyncio clients' end when the application never closes them: the event loop's shutdown
frees them with a ResourceWarning (as asyncio does for an unclosed transport), against the real
broker. These tests run their own loops (asyncio.run), so they are plain functions."""
import asyncio
import gc
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
    kept = {}

    async def main():
        # held from outside the loop: garbage collection never frees these two
        p = kept["producer"] = AIOProducer(kafka_cluster.client_config(**{"linger.ms": 60_000}))
        delivered = await (await p.produce(topic, value=b"first", partition=0))
        kept["first"] = delivered
        await p.flush()
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
