"""What the aiokafka clients share: turning this library's errors into aiokafka's, and
futures whose results are converted."""

import contextlib
from typing import Any, Callable, Iterator, Optional

from .. import KafkaError
from ..error import KafkaException
from .errors import from_kafka_error

_PURGED = (getattr(KafkaError, "_PURGE_QUEUE"), getattr(KafkaError, "_PURGE_INFLIGHT"))


@contextlib.contextmanager
def translated(committing: bool = False,
               closed: Optional[Callable[[], BaseException]] = None) -> Iterator[None]:
    """Raise the aiokafka class of a KafkaException raised inside (``committing``: a commit's;
    see :func:`errors.from_kafka_error`), and ``closed()`` for the RuntimeError of a closed
    client."""
    try:
        yield
    except (KafkaException, RuntimeError) as exc:
        raise translation(exc, committing, closed) from exc


def translation(exc: BaseException, committing: bool = False,
                closed: Optional[Callable[[], BaseException]] = None) -> BaseException:
    """What :func:`translated` raises for ``exc`` (``exc`` itself when it has no
    translation); for the hot paths, which catch without a context manager."""
    if isinstance(exc, KafkaException):
        return from_kafka_error(exc, committing)
    if closed is not None and type(exc) is RuntimeError:
        return closed()
    return exc


def mapped(fut: Any, convert: Any) -> Any:
    """A future resolved with ``convert(result)`` of ``fut``, or with the aiokafka class of its
    KafkaException."""
    out = fut.get_loop().create_future()

    def done(f: Any) -> Any:
        if out.done():
            return
        if f.cancelled():
            out.cancel()
            return
        exc = f.exception()
        if exc is None:
            out.set_result(convert(f.result()))
        elif isinstance(exc, KafkaException):
            out.set_exception(from_kafka_error(exc))
            if exc.args[0].code() in _PURGED:
                out.exception()     # purged by an abort or stop: nobody need await it
        else:
            out.set_exception(exc)
    fut.add_done_callback(done)
    return out
