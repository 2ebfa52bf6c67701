"""AIOConsumer never drops a message it took from librdkafka: when finishing a rebalance's
coroutine callback raises (here: the awaiting task is cancelled), the message taken in the same
serve is returned by the next call, and the callback goes on. librdkafka has already stored its
offset, so dropping it would commit a message nobody received."""
import asyncio

import pytest

from confluent_binding.aio import AIOConsumer

pytestmark = pytest.mark.asyncio


class _Msg:
    def error(self):
        return None


class _TakesOneThenRebalances:
    """Stands in for the core consumer: one serve returns a message and, in the same serve,
    starts a rebalance whose coroutine callback never finishes."""

    def __init__(self, aio, real):
        self._aio, self._real, self.msg, self.served = aio, real, _Msg(), False

    def _serve(self):
        self.served = True
        self.callback = asyncio.get_running_loop().create_future()
        self._aio._rebalancing.append((self.callback, "assign", [], False))

    def poll(self, timeout):
        self._serve()
        return self.msg

    def consume(self, num, timeout):
        self._serve()
        return [self.msg]

    def __getattr__(self, name):
        return getattr(self._real, name)


async def _cancelled_while_settling(aio, stub, call):
    task = asyncio.ensure_future(call())
    while not stub.served:      # the serve and the wait on the callback are one step of the call
        await asyncio.sleep(0)
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the callback goes on, its rebalance still to be finished by a later call
    assert not stub.callback.done() and aio._rebalancing
    stub.callback.set_result(None)


@pytest.mark.parametrize("how", ["poll", "consume", "async for"])
async def test_a_message_taken_before_a_cancelled_rebalance_is_returned_next(how):
    aio = AIOConsumer({"group.id": "keeps", "bootstrap.servers": "127.0.0.1:9"})
    real = aio._consumer
    stub = aio._consumer = _TakesOneThenRebalances(aio, real)
    try:
        if how == "poll":
            await _cancelled_while_settling(aio, stub, lambda: aio.poll(5))
            aio._consumer = real
            assert await aio.poll(0) is stub.msg
        elif how == "consume":
            await _cancelled_while_settling(aio, stub, lambda: aio.consume(3, 5))
            aio._consumer = real
            assert await aio.consume(3, 0) == [stub.msg]
        else:
            await _cancelled_while_settling(aio, stub, aio.__anext__)
            aio._consumer = real
            assert await aio.__anext__() is stub.msg
        assert await aio.poll(0) is None
        assert not aio._rebalancing
    finally:
        aio._consumer = real
        await aio.close()
