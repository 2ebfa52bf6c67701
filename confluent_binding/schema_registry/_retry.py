"""The Schema Registry clients' retry policy, shared by their blocking and asyncio transports
and token clients: which answers are a success and which are retried, the "full jitter"
exponential backoff, and the ``Retry-After`` header that overrides it."""

from __future__ import annotations

import email.utils
import random
import time
from typing import Optional

__all__ = ["full_jitter", "is_retriable", "is_success", "retry_after_ms", "retry_wait_ms"]


def is_success(status_code: int) -> bool:
    """True for a 2xx HTTP status: the registry answered the request."""
    return 200 <= status_code <= 299


def is_retriable(status_code: int) -> bool:
    """True for the statuses a request is retried on, as confluent-kafka's client does: 408,
    429 and 500, 502, 503, 504 (with backoff, or after ``Retry-After``)."""
    return status_code in (408, 429, 500, 502, 503, 504)


def full_jitter(base_delay_ms: int, max_delay_ms: int, retries_attempted: int) -> float:
    """Milliseconds to wait before retry ``retries_attempted`` + 1 ("full jitter" backoff)."""
    return random.random() * min(base_delay_ms * (2.0**retries_attempted), max_delay_ms)


def retry_after_ms(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Milliseconds a ``Retry-After`` header value asks to wait: delay-seconds or an HTTP date
    (a date in the past: 0); None for no value or one that is neither."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds * 1000.0 if seconds >= 0 and seconds == seconds else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        return None  # an HTTP date is always in GMT; without a zone it is not one
    return max(0.0, (when.timestamp() - (time.time() if now is None else now)) * 1000.0)


def retry_wait_ms(
    retry_after: Optional[str], base_ms: int, max_ms: int, retries_attempted: int
) -> float:
    """How long to wait before the next try: what ``Retry-After`` asks for, else the full-jitter
    backoff; never more than ``max_ms``."""
    asked = retry_after_ms(retry_after)
    if asked is not None:
        return min(asked, float(max_ms))
    return full_jitter(base_ms, max_ms, retries_attempted)


