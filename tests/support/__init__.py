"""Helpers the tests share: client configurations without a broker, and waiting for an outcome
instead of sleeping."""

from tests.support.configs import closed_port, mock, unreachable
from tests.support.waiting import (
    call_until_raises,
    consume_messages,
    flush_until_it_stops_raising,
    wait_until,
)

__all__ = ["call_until_raises", "closed_port", "consume_messages", "flush_until_it_stops_raising",
           "mock", "unreachable", "wait_until"]
