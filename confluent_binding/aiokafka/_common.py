"""What the aiokafka clients share: turning this library's errors into aiokafka's."""

import asyncio
import contextlib
import types
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


def _release_silently(client: Any, why: str) -> None:
    client._release()


def warn_unclosed(face: Any, name: str, client: Any, warn: Callable[..., None]) -> None:
    """A face object garbage collected unclosed: aiokafka's ResourceWarning ("Unclosed
    ``name`` ..."), once. The engine's client is freed first (quietly): a warning turned into
    an error (``-W error``) still frees it, and the engine does not warn a second time."""
    face._closed = True
    try:
        release_quietly(client)
    finally:
        warn("Unclosed {} {!r}".format(name, face), ResourceWarning, source=face)


def release_quietly(client: Any) -> None:
    """Free the engine's client of a face object garbage collected unclosed (the face
    warns right after): on its loop's thread, as the engine frees its own."""
    if client is None or getattr(client, "_closed", True):
        return
    # should the release below not run (its loop stopped first), the engine frees the client
    # when it is collected in turn: without a second warning
    client._abandon = types.MethodType(_release_silently, client)
    loop = getattr(client, "_loop", None)
    if loop is not None and loop.is_running() and asyncio._get_running_loop() is not loop:
        try:
            loop.call_soon_threadsafe(client._release)
            return
        except RuntimeError:
            pass
    client._release()
