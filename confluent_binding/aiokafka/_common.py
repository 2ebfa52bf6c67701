"""What the aiokafka clients share: turning this library's errors into aiokafka's."""

import contextlib
from typing import Callable, Iterator, Optional

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
