"""DeliveryFuture (the asyncio producer's future) side by side with asyncio.Future: the same
calls give the same results, exceptions and callback behaviour; done-callbacks never run inside
the call that resolves the future, and those of one served batch run from one loop callback.
(The broker-backed behaviour is in tests/integration/test_aio_futures.py.)"""
import asyncio
import contextvars
import gc
import inspect
import sys
import uuid
import weakref

import pytest

from confluent_binding import KafkaError, KafkaException, Producer
from confluent_binding.aio import DeliveryFuture

var = contextvars.ContextVar("var", default="unset")


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def turn(loop):
    """Let the loop run what is ready now (one turn and the callbacks it scheduled)."""
    loop.run_until_complete(asyncio.sleep(0))


@pytest.mark.parametrize("kind", ["asyncio", "delivery"])
def test_same_behaviour_as_asyncio_future(loop, kind):
    make = (lambda: loop.create_future()) if kind == "asyncio" else (
        lambda: DeliveryFuture(loop=loop))
    fut = make()
    assert asyncio.isfuture(fut) and fut.get_loop() is loop
    with pytest.raises(asyncio.InvalidStateError, match="Result is not set."):
        fut.result()
    with pytest.raises(asyncio.InvalidStateError, match="Exception is not set."):
        fut.exception()
    calls = []
    var.set("at-add")
    fut.add_done_callback(lambda f: calls.append(("first", var.get(), f is fut)))
    fut.add_done_callback(calls.append)
    fut.add_done_callback(lambda f: calls.append("third"))
    assert fut.remove_done_callback(calls.append) == 1
    assert fut.remove_done_callback(calls.append) == 0
    var.set("later")
    fut.set_result(42)
    assert calls == []                                 # never inside set_result
    with pytest.raises(asyncio.InvalidStateError):
        fut.set_result(43)
    turn(loop)
    assert calls == [("first", "at-add", True), "third"]
    assert (fut.done(), fut.cancelled(), fut.result(), fut.exception()) == (True, False, 42, None)
    assert not fut.cancel()

    failed = make()
    failed.set_exception(ValueError)                   # a class is instantiated
    with pytest.raises(ValueError):
        failed.result()
    assert isinstance(failed.exception(), ValueError)
    if sys.version_info < (3, 13):
        with pytest.raises(TypeError, match="StopIteration"):
            make().set_exception(StopIteration())
    else:                                              # stored as the RuntimeError it causes
        stopped = make()
        stopped.set_exception(StopIteration(1))
        exc = stopped.exception()
        assert type(exc) is RuntimeError and "StopIteration" in str(exc)
        assert type(exc.__cause__) is StopIteration and exc.__cause__.args == (1,)

    cancelled = make()
    seen = []
    cancelled.add_done_callback(seen.append)
    assert cancelled.cancel("why")
    assert cancelled.cancelled() and not cancelled.cancel()
    with pytest.raises(asyncio.CancelledError, match="why"):
        cancelled.result()
    with pytest.raises(asyncio.CancelledError):
        cancelled.exception()
    assert seen == []
    turn(loop)
    assert seen == [cancelled]

    async def awaiting(f):
        return await f
    pending = make()
    task = loop.create_task(awaiting(pending))
    turn(loop)
    loop.call_soon(pending.set_result, "done")
    assert loop.run_until_complete(task) == "done"
    pending = make()
    task = loop.create_task(awaiting(pending))
    turn(loop)
    task.cancel()                                      # cancels the future it waits on
    with pytest.raises(asyncio.CancelledError):
        loop.run_until_complete(task)
    assert pending.cancelled()


def test_exceptions_in_callbacks_go_to_the_exception_handler(loop):
    handled = []
    loop.set_exception_handler(lambda _l, ctx: handled.append(ctx))
    futs = [DeliveryFuture(loop=loop) for _ in range(3)]
    calls = []

    def boom(f):
        raise ValueError("boom")
    futs[0].add_done_callback(boom)
    futs[0].add_done_callback(lambda f: calls.append(0))
    futs[1].add_done_callback(lambda f: calls.append(1))
    for i, f in enumerate(futs):
        f.set_result(i)
    turn(loop)
    assert calls == [0, 1]
    assert len(handled) == 1
    assert handled[0]["message"].startswith("Exception in callback")
    assert isinstance(handled[0]["exception"], ValueError) and handled[0]["future"] is futs[0]


def test_keyboard_interrupt_in_a_callback_leaves_the_rest_scheduled(loop):
    fut = DeliveryFuture(loop=loop)
    calls = []

    def stop(f):
        raise KeyboardInterrupt
    fut.add_done_callback(stop)
    fut.add_done_callback(lambda f: calls.append("after"))
    fut.set_result(None)
    with pytest.raises(KeyboardInterrupt):
        turn(loop)
    turn(loop)
    assert calls == ["after"]


def test_a_served_batch_runs_its_callbacks_from_one_loop_callback(loop):
    """Delivery reports resolve their futures inside the serving call (a plain Producer with
    librdkafka's mock cluster here); their done-callbacks run afterwards on the loop, all from
    one loop callback, each in its own context; a cancelled future's report is still served."""
    # one batch, sent by flush(): with a short linger a slow run sent part of it earlier, and
    # two served batches are two loop callbacks
    p = Producer({"test.mock.num.brokers": 1, "linger.ms": 60000})
    futs = []
    calls = []
    for i in range(100):
        var.set(i)
        f = p._produce_delivery("batch", b"%d" % i, None, 0, 0, None, loop)
        f.add_done_callback(lambda f: calls.append(
            (var.get(), None if f.cancelled() else f.result().offset())))
        futs.append(f)
    assert not gc.is_tracked(futs[0])
    futs[5].cancel()
    turn(loop)                                         # the cancellation's callback
    assert calls == [(5, None)]
    calls.clear()
    assert p.flush(10) == 0
    assert all(f.done() for f in futs) and calls == []  # resolved; no callback ran inside
    scheduled = len(loop._ready)
    assert scheduled == 1
    turn(loop)
    assert sorted(calls) == [(i, i) for i in range(100) if i != 5]
    assert futs[5].cancelled()
    p.close()


def test_a_delivered_message_is_the_same_as_a_delivery_callbacks(loop):
    """The future's Message (made when its result is first read) describes the delivery as the
    synchronous on_delivery callback's Message does; every read returns that one object."""
    p = Producer({"test.mock.num.brokers": 1, "linger.ms": 60000})
    reported = []
    p.produce("same", b"v1", key=b"k1", partition=0, timestamp=1700000000123,
              on_delivery=lambda err, m: reported.append(m))
    f = p._produce_delivery("same", b"v1", b"k1", 0, 1700000000123, None, loop)
    g = p._produce_delivery("same", None, None, 0, 0, None, loop)
    assert p.flush(10) == 0
    (want,) = reported
    got = f.result()
    assert got is f.result() and got is f._result and "result=%r" % (got,) in repr(f)
    assert not gc.is_tracked(got)

    def fields(m):
        return (m.topic(), m.partition(), m.key(), m.value(), m.headers(), m.error(),
                m.timestamp(), m.leader_epoch(), len(m))
    assert fields(got) == fields(want)
    assert (want.offset(), got.offset()) == (0, 1)
    assert got.latency() >= 0 and want.latency() >= 0
    empty = g.result()
    assert (empty.value(), empty.key(), empty.offset()) == (None, None, 2)
    assert empty.timestamp()[1] > 0
    p.close()


def test_a_bytes_value_is_read_in_place_and_held_until_its_report(loop):
    """An exact bytes value is not copied: the future holds it while librdkafka reads it, and
    the delivered Message's value is that object. Other values are copied when produced (a
    bytearray changed afterwards is delivered as it was). A failed, cancelled or hand-resolved
    future lets go of the value when its report is served."""
    p = Producer({"test.mock.num.brokers": 1, "linger.ms": 60000})
    value = b"in place " + uuid.uuid4().hex.encode()     # a new object, referred to only here
    mutable = bytearray(b"copied")
    held = sys.getrefcount(value)
    f = p._produce_delivery("inplace", value, b"k", 0, 0, None, loop)
    g = p._produce_delivery("inplace", mutable, None, 0, 0, [("h", b"1")], loop)
    assert sys.getrefcount(value) == held + 1
    mutable[:] = b"CHANGED"
    assert p.flush(10) == 0
    assert f.result().value() is value and f.result().key() == b"k"
    assert g.result().value() == b"copied"
    del f
    assert sys.getrefcount(value) == held

    for end in ("purged", "cancelled", "set by hand"):
        f = p._produce_delivery("inplace", value, None, 0, 0, None, loop)
        if end == "cancelled":
            assert f.cancel()
        elif end == "set by hand":
            f.set_result("mine")
        else:
            p.purge()
        assert sys.getrefcount(value) == held + 1     # librdkafka still reads it
        assert p.flush(10) == 0
        assert sys.getrefcount(value) == held, end
        if end == "purged":
            assert f.exception().args[0].code() == KafkaError._PURGE_QUEUE
        elif end == "set by hand":
            assert f.result() == "mine"
    p.close()


def test_a_failed_delivery_and_its_exception(loop):
    p = Producer({"test.mock.num.brokers": 1, "linger.ms": 60000})
    f = p._produce_delivery("failed", b"x", None, 0, 0, None, loop)
    p.purge()
    assert p.flush(10) == 0
    exc = f.exception()
    assert isinstance(exc, KafkaException) and exc.args[0].code() == KafkaError._PURGE_QUEUE
    assert gc.is_tracked(f)
    with pytest.raises(KafkaException):
        f.result()
    p.close()


@pytest.mark.parametrize("kind", ["asyncio", "delivery", "failed delivery"])
def test_an_exception_nobody_retrieved_is_reported_when_the_future_is_freed(loop, kind):
    """As asyncio's Future: a future whose exception was never retrieved reports it to the
    loop's exception handler when it is freed (for ours, by the cycle collector); one whose
    exception was retrieved, by result() or exception(), reports nothing."""
    handled = []
    loop.set_exception_handler(lambda _l, ctx: handled.append(ctx))
    p = Producer({"test.mock.num.brokers": 1, "linger.ms": 60000})

    def failed():
        if kind == "failed delivery":
            f = p._produce_delivery("failed", b"x", None, 0, 0, None, loop)
            p.purge()
            assert p.flush(10) == 0
            return f, f._exception                # read without retrieving it
        f = loop.create_future() if kind == "asyncio" else DeliveryFuture(loop=loop)
        exc = KafkaException(KafkaError(KafkaError._PURGE_QUEUE))
        f.set_exception(exc)
        return f, exc

    for retrieve in (lambda f: f.exception(), lambda f: pytest.raises(KafkaException, f.result)):
        f, exc = failed()
        assert f._log_traceback
        retrieve(f)
        assert not f._log_traceback
        ref = weakref.ref(f)
        del f, exc
        gc.collect()
        assert ref() is None
    turn(loop)
    assert handled == []

    f, exc = failed()
    ident, expected = id(f), repr(f)
    del f
    gc.collect()
    assert len(handled) == 1
    ctx = handled.pop()
    assert ctx["message"].endswith("exception was never retrieved")
    assert ctx["exception"] is exc
    assert id(ctx["future"]) == ident and repr(ctx["future"]) == expected
    del ctx
    gc.collect()
    assert handled == []
    p.close()


class _FaceError(Exception):
    pass


def test_an_api_face_maps_results_and_errors(loop):
    """_map(): an API face over the asyncio producer (aiokafka's) gets the future itself back,
    its result converted when first read, its failures as the face's exceptions, and failures
    with a quiet code left unreported to the loop."""
    handled = []
    loop.set_exception_handler(lambda _l, ctx: handled.append(ctx))
    p = Producer({"test.mock.num.brokers": 1, "linger.ms": 60000})
    converted = []

    def result(msg):
        converted.append(msg.offset())
        return ("meta", msg.topic(), msg.offset())

    def error(exc):
        return _FaceError(exc.args[0].code())

    f = p._produce_delivery("face", b"v", None, 0, 0, None, loop)
    assert f._map(result, error, (KafkaError._PURGE_QUEUE,)) is f
    with pytest.raises(RuntimeError, match="pending"):
        _done(loop)._map(result, error)
    assert p.flush(10) == 0
    assert converted == []                              # made when first read
    assert f.result() == ("meta", "face", 0) and f.result() is f.result()
    assert converted == [0]

    # a future of the slower path (resolved by hand, as the producer's callback path does)
    g = DeliveryFuture(loop=loop)._map(lambda m: ("meta", m), error)
    g.set_result("message")
    assert g.result() == ("meta", "message")

    # failures: the face's exception; a quiet code is not reported when nobody retrieves it
    for quiet, reported in (((KafkaError._PURGE_QUEUE,), 0), ((), 1)):
        f = p._produce_delivery("face", b"x", None, 0, 0, None, loop)._map(result, error, quiet)
        p.purge()
        assert p.flush(10) == 0
        assert isinstance(f._exception, _FaceError)
        assert f._exception.args == (KafkaError._PURGE_QUEUE,)
        del f
        gc.collect()
        assert len(handled) == reported
    assert isinstance(handled[0]["exception"], _FaceError)
    h = DeliveryFuture(loop=loop)._map(result, error)
    h.set_exception(KafkaException(KafkaError(KafkaError._MSG_TIMED_OUT)))
    with pytest.raises(_FaceError):
        h.result()
    p.close()


def _done(loop):
    f = DeliveryFuture(loop=loop)
    f.set_result(None)
    return f


@pytest.mark.parametrize("change", ["set_value", "set_key", "set_headers", "set_topic",
                                    "set_error", "__init__"])
def test_received_messages_join_the_cycle_collector_once_they_can_form_a_cycle(change):
    """A Message made from a librdkafka message refers to nothing that could lead back to it,
    so it starts outside the cycle collector; whatever gives it something else puts it back,
    and a cycle through it is then freed."""
    from confluent_binding import Message
    p = Producer({"test.mock.num.brokers": 1})
    got = []
    p.produce("msgs", b"v", key=b"k", on_delivery=lambda err, m: got.append(m))
    assert p.flush(10) == 0
    p.close()
    (m,) = got
    assert not gc.is_tracked(m)
    assert gc.is_tracked(Message("t"))
    class Holder:
        pass
    holder = Holder()
    holder.msg = m                                  # holder -> m -> holder: a cycle
    if change == "__init__":
        m.__init__("t", value=holder)
    else:
        getattr(m, change)(holder)
    assert gc.is_tracked(m)
    ref = weakref.ref(holder)
    got.clear()
    del m, holder
    gc.collect()
    assert ref() is None


def test_awaiting_done_and_pending_futures(loop):
    """A future is its own await iterator: a done one answers at once (its result, its
    exception, CancelledError), a pending one is waited for by every task awaiting it, and
    next() speaks the same protocol."""
    async def awaiting(f):
        return await f

    done = DeliveryFuture(loop=loop)
    done.set_result("m")
    assert loop.run_until_complete(awaiting(done)) == "m"
    assert done.__await__() is done and iter(done) is done
    with pytest.raises(StopIteration) as stop:
        next(done)
    assert stop.value.value == "m"
    failed = DeliveryFuture(loop=loop)
    failed.set_exception(ValueError("no"))
    with pytest.raises(ValueError, match="no"):
        loop.run_until_complete(awaiting(failed))
    cancelled = DeliveryFuture(loop=loop)
    cancelled.cancel("why")
    with pytest.raises(asyncio.CancelledError):     # (the task drops the message before 3.11)
        loop.run_until_complete(awaiting(cancelled))
    with pytest.raises(asyncio.CancelledError, match="why"):
        next(cancelled)

    pending = DeliveryFuture(loop=loop)
    assert next(pending) is pending and pending._asyncio_future_blocking
    pending._asyncio_future_blocking = False
    tasks = [loop.create_task(awaiting(pending)) for _ in range(3)]
    turn(loop)
    assert not any(t.done() for t in tasks)
    loop.call_soon(pending.set_result, "late")
    assert loop.run_until_complete(asyncio.gather(*tasks)) == ["late"] * 3


def test_produce_returns_a_coroutine(loop):
    """AIOProducer.produce(...) is a coroutine: nothing is enqueued before it runs, it runs
    once (awaited or as a task), throw() and close() end it, and one never awaited warns as
    Python's own coroutines do."""
    from confluent_binding.aio import AIOProducer

    async def scenario():
        p = AIOProducer({"test.mock.num.brokers": 1, "linger.ms": 1})
        try:
            if sys.version_info >= (3, 11):     # (before, inspect takes only Python functions)
                assert inspect.iscoroutinefunction(AIOProducer.produce)  # as confluent-kafka's
                assert asyncio.iscoroutinefunction(p.produce)
            c = p.produce("coro", b"v", partition=0)
            assert asyncio.iscoroutine(c) and len(p) == 0
            fut = await c
            assert type(fut) is DeliveryFuture and len(p) == 1
            with pytest.raises(RuntimeError, match="cannot reuse already awaited coroutine"):
                await c
            task = asyncio.create_task(p.produce("coro", b"w", partition=0))
            second = await task
            assert (await fut).offset() == 0 and (await second).value() == b"w"

            thrown = p.produce("coro", b"x")
            with pytest.raises(KeyError):
                thrown.throw(KeyError("k"))
            closed = p.produce("coro", b"y")
            closed.close()
            with pytest.raises(RuntimeError, match="cannot reuse"):
                await closed
            with pytest.warns(RuntimeWarning, match="was never awaited"):
                p.produce("coro", b"z")
                gc.collect()
            with pytest.raises(TypeError):
                await p.produce("coro", 5)
            assert await p.flush(10) == 0
            # with a callback of the caller's the coroutine delegates to the Python path
            got = []
            fut = await p.produce("coro", b"cb", on_delivery=lambda err, m: got.append(m.value()))
            assert (await fut).value() == b"cb" and got == [b"cb"]
        finally:
            await p.close()

    loop.run_until_complete(scenario())


def test_a_producing_task_lets_the_loop_run(loop):
    """A task that awaits produce() in a tight loop (every call returns at once) still lets
    the loop run once per thousand messages: other tasks run meanwhile. A produce() cancelled
    while it lets the loop run has not enqueued its message."""
    from confluent_binding.aio import AIOProducer

    async def scenario():
        p = AIOProducer({"test.mock.num.brokers": 1, "linger.ms": 60000})
        turns = 0
        stop = False

        async def ticker():
            nonlocal turns
            while not stop:
                turns += 1
                await asyncio.sleep(0)
        t = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        try:
            turns = 0
            futs = [await p.produce("turns", b"v", partition=0) for _ in range(5000)]
            assert 4 <= turns <= 5 and len(p) == 5000
            # the 5001st call lets the loop run first; cancelled there, it enqueues nothing
            task = asyncio.create_task(p.produce("turns", b"w", partition=0))
            await asyncio.sleep(0)
            assert not task.done()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert len(p) == 5000
            futs.append(await p.produce("turns", b"x", partition=0))
            assert len(p) == 5001
            await p.purge()
            # the broker thread purges the messages it holds after purge() returned
            assert await p.flush(10) == 0
            assert all(f.exception().args[0].code() == KafkaError._PURGE_QUEUE for f in futs)
        finally:
            stop = True
            await t
            await p.close()

    loop.run_until_complete(scenario())


def test_a_delivered_value_beside_confluent_kafkas_aio():
    """The same produce through confluent-kafka's AIOProducer and ours: equal delivered value,
    key, topic and partition; ours is the produced bytes object itself, theirs a copy."""
    ck_aio = pytest.importorskip("confluent_kafka.aio")
    from confluent_binding.aio import AIOProducer

    async def deliver(cls, value):
        p = cls({"test.mock.num.brokers": 1, "linger.ms": 1})
        try:
            m = await (await p.produce("beside", value, key=b"k", partition=0))
            return m.topic(), m.partition(), m.key(), m.value()
        finally:
            await p.flush()
            await p.close()

    value = b"beside " + uuid.uuid4().hex.encode()
    theirs = asyncio.run(deliver(ck_aio.AIOProducer, value))
    ours = asyncio.run(deliver(AIOProducer, value))
    assert ours == theirs == ("beside", 0, b"k", value)
    assert ours[3] is value and theirs[3] is not value
