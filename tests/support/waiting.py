"""Waiting for an outcome instead of sleeping: every helper polls the client (which is what
makes progress) and gives up after a timeout."""
import time


def wait_until(cond, call, timeout=10.0):
    """Call call() until cond() holds; False if it still does not after timeout seconds."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            return False
        call()
    return True


def call_until_raises(call, timeout=10.0):
    """Keep calling call() (a poll serves one batch of events at a time) until it raises; an
    AssertionError if nothing raised within timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        call()
    raise AssertionError("no exception within %s s" % timeout)


def flush_until_it_stops_raising(producer, exc_type, timeout=5.0, most=1000):
    """Flush a producer whose delivery callbacks raise exc_type until a flush completes with
    nothing outstanding. Returns how many flushes raised (keeping none of the exceptions, so
    no traceback holds a reference to a callback)."""
    raised = 0
    while raised <= most:
        try:
            assert producer.flush(timeout) == 0, "flush(%s) left messages outstanding" % timeout
            return raised
        except exc_type:
            raised += 1
    raise AssertionError("flush() still raising after %d exceptions" % most)


def consume_messages(consumer, count, timeout=60.0):
    """Poll until count data messages arrived (an error event fails the test); returns them in
    arrival order. An AssertionError if they did not arrive within timeout seconds."""
    got = []
    end = time.monotonic() + timeout
    while len(got) < count:
        assert time.monotonic() < end, "consumed %d of %d messages" % (len(got), count)
        m = consumer.poll(0.5)
        if m is not None:
            assert m.error() is None, m.error()
            got.append(m)
    return got
