"""Driving a sans-IO description: a generator that yields the steps to take (a request to send,
a wait, a serde to construct, ...) and is sent each step's result, written once for the
blocking and the asyncio code (the REST client's request policy, ``_rest``; how a serde is
built, ``_serde``).

:func:`drive` is the loop, with an ``async`` ``perform``; the blocking code runs it with a
``perform`` that does its work blocking and never suspends, through :func:`finish`, so the
loop exists once for both.
"""

from typing import Any, Awaitable, Callable, Coroutine, Generator, Optional, Tuple, Type, Union

__all__ = ["drive", "finish"]

Catch = Union[Type[BaseException], Tuple[Type[BaseException], ...]]


async def drive(steps: Generator[Any, Any, Any], perform: Callable[[Any], Awaitable[Any]],
                catch: Catch = BaseException) -> Any:
    """Run ``steps`` to their end: each step yielded is ``await perform(step)``, whose result
    is sent back; an exception of ``perform`` that is a ``catch`` is thrown into ``steps``
    (others propagate). Returns what ``steps`` return."""
    reply: Any = None
    error: Optional[BaseException] = None
    while True:
        try:
            step = steps.send(reply) if error is None else steps.throw(error)
        except StopIteration as stop:
            return stop.value
        reply = error = None
        try:
            reply = await perform(step)
        except catch as e:
            error = e


def finish(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The result of ``coroutine``, which never suspends (its awaits do their work blocking),
    run to its end in this call."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a blocking step suspended")
