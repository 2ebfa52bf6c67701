"""The asyncio clients' wake-up pipe: librdkafka writes to it only when the client's queue goes
from empty to not empty, so what the queue held before the pipe was attached (a client's first
error comes within milliseconds when its broker cannot be reached) must be served without a
signal: else the queue is never empty again, and nothing is ever signalled (an AIOProducer's
futures then wait forever)."""
import asyncio
import time

import pytest

import confluent_binding as kafka
from confluent_binding.aio._engine import Wakeup

from tests.support.configs import unreachable

pytestmark = pytest.mark.asyncio


def _queue_holds_an_error(producer, timeout=30):
    """Returns once librdkafka has put an event (a connection error) on the producer's queue
    beside its one message: len() counts both, and nothing serves the queue here."""
    deadline = time.monotonic() + timeout
    while len(producer) < 2:
        assert time.monotonic() < deadline, "no error event within %d s" % timeout
        time.sleep(0.01)


async def test_what_the_queue_held_before_the_pipe_was_attached_is_served():
    producer = kafka.Producer(unreachable(**{"message.timeout.ms": 300}))
    reports = []
    producer.produce("nowhere", b"lost", on_delivery=lambda err, msg: reports.append(err))
    try:
        _queue_holds_an_error(producer)
        served = asyncio.Event()

        def on_ready():
            producer.poll(0)
            if reports:
                served.set()

        wakeup = Wakeup(asyncio.get_running_loop(), producer, on_ready, "closed")
        try:
            await asyncio.wait_for(served.wait(), 30)
        finally:
            wakeup.close()
        assert reports[0].code() == kafka.KafkaError._MSG_TIMED_OUT
    finally:
        producer.close(0)
