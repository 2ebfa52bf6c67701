"""The event-driven engine under the asyncio clients.

librdkafka writes one byte into a non-blocking pipe when the queue a client serves gets
something while nobody polls it (rd_kafka_queue_io_event_enable). The event loop watches the
pipe's read end with ``loop.add_reader``; when it is readable the loop thread drains the pipe and
serves the queue with non-blocking calls (``poll(0)``), so callbacks run only inside the
binding's poll, on the loop thread, and no thread of ours exists. Timeouts are loop timers.
"""

import asyncio
import concurrent.futures
import inspect
import os
import threading
import warnings
import weakref

from ..error import KafkaError, KafkaException

__all__ = []


class Wakeup:
    """One client's wake-up pipe, watched by the running loop.

    ``on_ready()`` runs on the loop thread each time librdkafka signals the queue (after the
    pipe has been drained, so a signal that comes while it runs is not lost). Waiters (``wait``)
    are woken on every signal and when the pipe is closed.
    """

    def __init__(self, loop, handle, on_ready, closed_message):
        self._closed_message = closed_message
        self._loop = loop
        self._handle = handle
        self._on_ready = on_ready
        self._waiters = set()
        self.closed = False
        self._rfd, self._wfd = os.pipe()
        try:
            os.set_blocking(self._rfd, False)
            os.set_blocking(self._wfd, False)
            handle._io_event_enable(self._wfd)
            loop.add_reader(self._rfd, self._ready)
        except BaseException:
            os.close(self._rfd)
            os.close(self._wfd)
            raise
        # librdkafka writes to the pipe only when the queue goes from empty to not empty: what
        # came before the pipe was attached (a client's first error, say: its broker is not
        # reachable) would keep the queue from ever being empty, and nothing would be signalled
        # again. Served once now, as if signalled.
        loop.call_soon(self._ready)

    def _ready(self):
        if self.closed:
            return
        try:
            while os.read(self._rfd, 4096):
                pass
        except BlockingIOError:
            pass
        self.wake()
        self._on_ready()

    def wake(self, exc=None):
        """Wake every task in wait(): normally, or with ``exc`` raised in them."""
        waiters, self._waiters = self._waiters, set()
        for w in waiters:
            if not w.done():
                if exc is None:
                    w.set_result(True)
                else:
                    w.set_exception(exc)

    async def wait(self, timeout=None):
        """Until the next signal or ``timeout`` seconds (a loop timer; None or negative: no
        limit). False when the time ran out."""
        if self.closed:
            raise RuntimeError(self._closed_message)
        if timeout is not None and timeout == 0:
            return False
        w = self._loop.create_future()
        self._waiters.add(w)
        timer = None
        if timeout is not None and timeout > 0:
            timer = self._loop.call_later(timeout, _time_out, w)
        try:
            return await w
        finally:
            self._waiters.discard(w)
            if timer is not None:
                timer.cancel()

    def close(self):
        """Stop watching: librdkafka stops writing first, then the pipe is closed; waiters get
        RuntimeError(closed_message)."""
        if self.closed:
            return
        self.closed = True
        try:
            self._handle._io_event_enable(-1)
        except RuntimeError:
            pass            # the handle is already freed (and with it the IO event)
        if not self._loop.is_closed():
            self._loop.remove_reader(self._rfd)
        os.close(self._rfd)
        os.close(self._wfd)
        self.wake(RuntimeError(self._closed_message))


def _time_out(w):
    if not w.done():
        w.set_result(False)


class Deadline:
    """A timeout in seconds (None or negative: none) as an absolute loop time."""

    __slots__ = ("_loop", "_at")

    def __init__(self, loop, timeout):
        self._loop = loop
        self._at = None if timeout is None or timeout < 0 else loop.time() + timeout

    def left(self):
        """Seconds left (None: no deadline; 0 once passed)."""
        if self._at is None:
            return None
        return max(0.0, self._at - self._loop.time())

    def passed(self):
        return self._at is not None and self._loop.time() >= self._at


class LoopWatch:
    """Frees a client its application left open when the event loop shuts down.

    An async generator, started on the client's loop, registers itself with that loop (asyncio's
    async-generator hooks); ``asyncio.run()``, ``asyncio.Runner.close()`` and
    ``loop.shutdown_asyncgens()`` close every such generator before the loop closes, which runs
    its ``finally``: the client (held weakly) is freed there, with a ResourceWarning as asyncio
    gives for an unclosed transport. ``close()`` retires the watch of a client closed properly.
    """

    __slots__ = ("_gen",)

    def __init__(self, client):
        self._gen = _watch(weakref.ref(client))
        try:
            self._gen.asend(None).send(None)        # runs to its yield: now the loop knows it
        except StopIteration:
            pass

    def close(self):
        gen = self._gen
        if gen.ag_frame is None or gen.ag_running:  # finished, or we are inside its finally
            return
        try:
            gen.aclose().send(None)
        except StopIteration:
            pass


async def _watch(client_ref):
    try:
        yield
    finally:
        client = client_ref()
        if client is not None:
            client._abandon("its event loop shut down")


_waiters = None
_waiters_lock = threading.Lock()


def _waiter_threads():
    """Threads of their own for the few calls that only wait on librdkafka and serve nothing
    (metadata, the cluster id): the loop must not wait, and the loop's default executor may be
    busy (a serde asking for the cluster id may hold all of its workers)."""
    global _waiters
    with _waiters_lock:
        if _waiters is None:
            _waiters = concurrent.futures.ThreadPoolExecutor(4, "kafka-metadata")
        return _waiters


class HandleCalls:
    """What both asyncio clients offer over their client (``self._client()``), and the end of
    a client left open (``_release()``: free it at once, True if it was open)."""

    def _abandon(self, why):
        """Free a client nobody closed (its loop shut down, or it was garbage collected) and
        warn, as asyncio warns about an unclosed transport."""
        if self._release():
            warnings.warn("unclosed %r: freed because %s" % (self, why), ResourceWarning,
                          source=self, stacklevel=2)

    def __del__(self):
        # The last reference may go on any thread, but freeing resolves futures and changes the
        # loop's readers, which only the loop thread may do: hand it to a running loop's thread
        # (this keeps the client alive until then; it is finalised once).
        loop = getattr(self, "_loop", None)
        if (loop is not None and loop.is_running() and not loop.is_closed()
                and asyncio._get_running_loop() is not loop):
            try:
                loop.call_soon_threadsafe(self._abandon, "it was garbage collected")
                return
            except RuntimeError:    # the loop closed meanwhile: free it here
                pass
        self._abandon("it was garbage collected")

    async def list_topics(self, topic=None, timeout=-1):
        """Waited for off the loop (a metadata request takes a round trip, or the timeout)."""
        self._check_open()
        return await self._loop.run_in_executor(_waiter_threads(), self._client().list_topics,
                                                topic, timeout)

    async def cluster_id(self, timeout=-1):
        """At once when librdkafka knows it; else waited for off the loop."""
        self._check_open()
        client = self._client()
        try:
            return client.cluster_id(0)
        except KafkaException as e:
            if e.args[0].code() != KafkaError._TIMED_OUT:
                raise
        return await self._loop.run_in_executor(_waiter_threads(), client.cluster_id, timeout)

    async def set_sasl_credentials(self, username, password):
        self._check_open()
        self._client().set_sasl_credentials(username, password)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info):
        await self.close()


class Background:
    """Tasks a client starts for coroutine callbacks; kept referenced until they finish."""

    def __init__(self, loop):
        self._loop = loop
        self._tasks = set()

    def run(self, result):
        """If a callback returned an awaitable, run it as a task; returns the task or None."""
        if not inspect.isawaitable(result):
            return None
        task = asyncio.ensure_future(result, loop=self._loop)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task):
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self._loop.call_exception_handler({
                "message": "exception in a Kafka client callback",
                "exception": task.exception(), "task": task})

    async def drain(self):
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def wrap_callbacks(conf, background, names=("error_cb", "stats_cb", "throttle_cb", "oauth_cb")):
    """Let the configured callbacks be coroutine functions: they are called inside the
    binding's poll on the loop thread; a coroutine they return runs as a task. (oauth_cb must
    return its token at once: it stays synchronous.)"""
    conf = dict(conf)
    for name in names:
        cb = conf.get(name)
        if cb is not None and name != "oauth_cb" and callable(cb):
            conf[name] = _calling(cb, background)
    return conf


def _calling(cb, background):
    def call(*args):
        background.run(cb(*args))
    return call


def report_error(loop, exc, what):
    """An exception a callback raised while the loop served a queue with nobody awaiting."""
    loop.call_exception_handler({"message": "exception in %s" % what, "exception": exc})


def kafka_exception(err):
    return KafkaException(err)
