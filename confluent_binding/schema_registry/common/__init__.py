"""confluent-kafka's ``schema_registry.common``: the names its sync and asyncio Schema Registry
clients share. Each module here offers the public names of its namesake one level up
(``common.avro`` those of :mod:`confluent_binding.schema_registry.avro`, ...), the same
objects."""

import functools

__all__ = ["asyncinit"]


def asyncinit(cls):
    """Class decorator for a class whose ``__init__`` is a coroutine function: calling the
    class then returns a coroutine that runs ``__init__`` and returns the instance, so
    ``obj = await Cls(...)``."""
    allocate = cls.__new__

    @functools.wraps(allocate)
    def new(klass, *args, **kwargs):
        obj = allocate(klass) if allocate is object.__new__ else allocate(klass, *args, **kwargs)

        async def initialise():
            await obj.__init__(*args, **kwargs)
            return obj

        return initialise()

    cls.__new__ = new
    return cls


# loaded with the package, as confluent-kafka's (its import loads this module)
from . import schema_registry_client  # noqa: E402, F401
