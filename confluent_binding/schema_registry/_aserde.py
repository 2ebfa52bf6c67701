"""The asyncio Schema Registry serdes (confluent-kafka's ``AsyncAvroSerializer`` and friends).

An asyncio serde is created with ``await`` (``ser = await AsyncAvroSerializer(client, schema)``)
and called with ``await`` (``data = await ser(obj, ctx)``). It writes and reads exactly the bytes
its blocking counterpart does, because it is that counterpart underneath: each call runs the
blocking serde on the event loop while everything it needs is cached (every call after a
subject's first), and only a call that must ask the registry runs in the loop's default
executor, so the loop never waits on the registry.
"""

import asyncio
import functools
import inspect
import types
from typing import Any, Dict, Optional, Tuple, Type

from .._serdes import maybe_await
from ..serialization import Deserializer, DeserializerBuilder, Serializer, SerializerBuilder
from ._rest import WouldBlock, cached_only, executor_context, may_block, run_blocking
from ._rule_runner import WRITE_BACKS, write_back
from ._serde import (
    AssociatedNameStrategy,
    _serde_builders,
    _SerdeBuilder,
    close_after_failure,
    serde_build_steps,
)
from ._steps import drive

__all__ = [
    "AsyncAssociatedNameStrategy",
    "AsyncBaseSerde",
    "AsyncBaseSerializer",
    "AsyncBaseDeserializer",
    "async_build_serde",
]


def _blocking_client(client):
    """The blocking client an asyncio serde's blocking counterpart talks through: the one under
    an :class:`AsyncSchemaRegistryClient` of this package, else a blocking face over whatever
    asyncio client was given (a user's own, a test double), else ``client`` itself."""
    from .schema_registry_client import AsyncSchemaRegistryClient, SchemaRegistryClient

    if client is None:
        return None
    if isinstance(client, AsyncSchemaRegistryClient):
        blocking = getattr(client, "_client", None)
        if isinstance(blocking, SchemaRegistryClient):
            return blocking
    if isinstance(client, AsyncSchemaRegistryClient) or inspect.iscoroutinefunction(
            getattr(client, "get_schema", None)):
        return _AwaitingClient(client, _running_loop())
    return client


async def _awaited(awaitable):
    return await awaitable


class _AwaitingClient:
    """A blocking face over an asyncio Schema Registry client that is not this package's:
    each call of a coroutine method runs it on the serde's event loop and waits for it, from
    the executor thread the blocking serde is run in when it needs the registry."""

    def __init__(self, client, loop):
        self._client = client
        self._loop = loop

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            if not may_block():
                raise WouldBlock()
            if self._loop is None or _running_loop() is self._loop:
                raise RuntimeError("an asyncio Schema Registry client can only be awaited on "
                                   "its event loop, from another thread")
            result = attr(*args, **kwargs)
            if inspect.isawaitable(result):
                return asyncio.run_coroutine_threadsafe(_awaited(result), self._loop).result()
            return result

        return call


def _running_loop():
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _blocking_resolver(resolver, loop):
    """A blocking callable over the coroutine function ``resolver``, for the blocking serde
    (called in an executor thread, it awaits ``resolver()`` on ``loop``)."""

    def resolve():
        if not may_block():
            raise WouldBlock()
        if loop is None or loop.is_closed():
            raise RuntimeError("no event loop to resolve the Kafka cluster id on")
        return asyncio.run_coroutine_threadsafe(resolver(), loop).result()

    return resolve


def _blocking_strategy(strategy):
    return strategy._blocking if isinstance(strategy, AsyncAssociatedNameStrategy) else strategy


class AsyncAssociatedNameStrategy:
    """:class:`~confluent_binding.schema_registry.serde.AssociatedNameStrategy` for the asyncio
    serdes: ``await strategy(ctx, record_name, schema_registry_client, conf)``."""

    def __init__(self, cache_capacity=1000):
        self._blocking = AssociatedNameStrategy(cache_capacity)

    def set_async_cluster_id_resolver(self, resolver):
        """``await resolver()`` returns the Kafka cluster id (called on a cache miss only)."""
        self._blocking.set_cluster_id_resolver(_blocking_resolver(resolver, _running_loop()))

    async def __call__(self, ctx, record_name, schema_registry_client, conf=None):
        if ctx is None:
            raise ValueError(
                "SerializationContext is required for AsyncAssociatedNameStrategy. Either "
                "provide a SerializationContext or use a different strategy.")
        return await run_blocking(self._blocking, ctx, record_name,
                                  _blocking_client(schema_registry_client), conf)

    async def clear_cache(self):
        """Forget the subjects looked up so far."""
        self._blocking.clear_cache()


class AsyncBaseSerde:
    """What the asyncio serdes share: ``await``-construction over the blocking serde
    ``_blocking_type`` (same arguments, the client an :class:`AsyncSchemaRegistryClient`)."""

    _blocking_type: Optional[type] = None

    def __new__(cls, *args, **kwargs):
        if cls._blocking_type is None:
            return super().__new__(cls)
        return cls._create(args, kwargs)

    @classmethod
    async def _create(cls, args, kwargs):
        self = super().__new__(cls)
        arguments = inspect.signature(cls._blocking_type).bind(*args, **kwargs).arguments
        client = arguments.get("schema_registry_client")
        if "schema_registry_client" in arguments:
            arguments["schema_registry_client"] = _blocking_client(client)
        conf = arguments.get("conf")
        if isinstance(conf, dict) and "subject.name.strategy" in conf:
            conf = dict(conf)
            conf["subject.name.strategy"] = _blocking_strategy(conf["subject.name.strategy"])
            arguments["conf"] = conf
        self._registry = client
        self._owns_registry = False
        self._serde = await run_blocking(cls._blocking_type, **arguments)
        return self

    def __getattr__(self, name):
        # the blocking serde's settings, under the private names confluent-kafka's asyncio serdes
        # keep them by (``_auto_register``, ``_subject_name_func``, ...)
        serde = self.__dict__.get("_serde")
        if serde is None or not name.startswith("_") or name.startswith("__"):
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        found = getattr(serde, name)
        if name == "_subject_name_func" and getattr(serde, "_strategy_accepts_client", False):
            # a strategy that asks the registry is a coroutine function here, as confluent's
            async def subject_name_func(ctx, record_name, schema_registry_client=None,
                                        conf=None):
                return await run_blocking(found, ctx, record_name,
                                          _blocking_client(schema_registry_client), conf)

            return subject_name_func
        return found

    def configure_subject_name_strategy(self, subject_name_strategy_type=None,
                                        subject_name_strategy_conf=None,
                                        subject_name_strategy=None):
        """As the blocking serde's; an :class:`AsyncAssociatedNameStrategy` is accepted."""
        self._serde.configure_subject_name_strategy(
            subject_name_strategy_type, subject_name_strategy_conf,
            _blocking_strategy(subject_name_strategy))

    def set_async_cluster_id_resolver(self, resolver):
        """``await resolver()`` returns the Kafka cluster id, for an associated subject name
        strategy (the asyncio clients hand one over; it is awaited on a cache miss only)."""
        self._serde.set_cluster_id_resolver(_blocking_resolver(resolver, _running_loop()))

    def own_schema_registry_client(self):
        """Close the registry client with this serde (a builder made the client for it)."""
        self._owns_registry = True

    async def aclose(self):
        """Release what the serde owns (its registry client if a builder made it); safe to call
        more than once."""
        try:
            self._serde.close()
        finally:
            if self._owns_registry:
                self._owns_registry = False
                if self._registry is not None:
                    await maybe_await(self._registry.aclose())

    async def _run(self, data, ctx):
        try:
            # as run_blocking, and a serializer's records transformed in place when the try on
            # the loop (which transforms copies, in case it must start again) completes
            write_backs = []
            token = WRITE_BACKS.set(write_backs)
            try:
                with cached_only():
                    result = self._serde(data, ctx)
            except WouldBlock:
                pass
            else:
                write_back(write_backs)
                return result
            finally:
                WRITE_BACKS.reset(token)
            context = executor_context()
            return await asyncio.get_running_loop().run_in_executor(
                None, functools.partial(context.run, self._serde, data, ctx))
        finally:
            # in the caller's task, whichever thread ran the serde
            self._serde._remember_key(ctx, data)


class AsyncBaseSerializer(AsyncBaseSerde, Serializer):
    """An asyncio serializer: ``await ser(obj, ctx)`` returns the framed bytes."""

    def __call__(self, obj, ctx=None):
        return self._run(obj, ctx)


class AsyncBaseDeserializer(AsyncBaseSerde, Deserializer):
    """An asyncio deserializer: ``await de(data, ctx)`` returns the decoded object."""

    def __call__(self, data, ctx=None):
        return self._run(data, ctx)


async def async_build_serde(schema_registry_client, schema_registry_conf, construct, init=None):
    """:func:`~confluent_binding.schema_registry.serde.build_serde` for the asyncio serdes:
    ``await construct(client)`` with ``schema_registry_client`` or, from
    ``schema_registry_conf``, an :class:`AsyncSchemaRegistryClient` the serde then owns;
    ``await init(serde)`` if given. A failure of either closes what was made here (the same
    steps as the blocking serdes', :func:`~confluent_binding.schema_registry._serde.
    serde_build_steps`, awaited)."""
    from .schema_registry_client import AsyncSchemaRegistryClient

    async def perform(step):
        what, obj, why = step
        if what == "construct":
            return await construct(obj)
        if what == "init":
            return None if init is None else await maybe_await(init(obj))
        await close_after_failure(obj.aclose, why)

    return await drive(serde_build_steps(schema_registry_client, schema_registry_conf,
                                         AsyncSchemaRegistryClient.new_client), perform)


class _AsyncSerdeBuilder(_SerdeBuilder):
    """A builder whose ``build(conf, is_key)`` is a coroutine making an asyncio serde (for the
    asyncio clients' ``.builder`` properties); ``*_init`` may be a coroutine function."""

    def build(self, conf, is_key):
        return self._build(conf)

    async def _build(self, conf):
        values = self._values
        serde = await async_build_serde(
            values["schema_registry_client"], values["schema_registry_config"],
            lambda client: self._make(client, values), values.get(self._init_field))
        return serde, dict(conf)


_BUILDER_DOC = ("{blocking} for the asyncio clients: ``build()`` is a coroutine making an\n"
                "    {serde}")
_TWIN_DOCS = {
    "Serializer": """The asyncio {blocking}: ``ser = await {name}(...)`` with
    {blocking}'s arguments (the client an :class:`AsyncSchemaRegistryClient`), then
    ``data = await ser(obj, ctx)``; the same bytes as {blocking}.""",
    "Deserializer": """The asyncio {blocking}: ``de = await {name}(...)`` with
    {blocking}'s arguments, then ``obj = await de(data, ctx)``.""",
    "SerializerBuilder": _BUILDER_DOC + " (``serializer_init`` may be a coroutine function).",
    "DeserializerBuilder": _BUILDER_DOC + ".",
}


def _twin(blocking: type, role: str, bases: Tuple[type, ...], attrs: Dict[str, Any],
          serde: str = "") -> Any:
    """The asyncio class over ``blocking`` (a ``role`` of :data:`_TWIN_DOCS`): named
    ``Async<blocking's name>``, documented after its role and placed in ``blocking``'s module,
    as if written there."""
    name = "Async" + blocking.__name__
    namespace = dict(attrs, __module__=blocking.__module__, __qualname__=name,
                     __doc__=_TWIN_DOCS[role].format(blocking=blocking.__name__, name=name,
                                                     serde=serde))
    return types.new_class(name, bases, exec_body=lambda ns: ns.update(namespace))


def _async_twins(serializer_builder: Type[_SerdeBuilder], deserializer_builder: Type[_SerdeBuilder],
                **serializer_attrs: Any) -> Tuple[Any, Any, Any, Any]:
    """A format's asyncio serdes and their builders, made from its blocking builders (which name
    the blocking serdes, ``_serde_type``): ``Async<Format>Serializer``,
    ``Async<Format>Deserializer``, ``Async<Format>SerializerBuilder`` and
    ``Async<Format>DeserializerBuilder``, in that order; ``serializer_attrs`` are class
    attributes the serializer offers besides (confluent-kafka's, e.g. a static helper)."""
    serializer = _twin(serializer_builder._serde_type, "Serializer", (AsyncBaseSerializer,),
                       dict(serializer_attrs, _blocking_type=serializer_builder._serde_type))
    deserializer = _twin(deserializer_builder._serde_type, "Deserializer",
                         (AsyncBaseDeserializer,),
                         {"_blocking_type": deserializer_builder._serde_type})
    builders = tuple(
        _twin(builder, kind.__name__, (_AsyncSerdeBuilder, kind),
              {"_fields": builder._fields, "_init_field": builder._init_field,
               "_parameters": builder._parameters, "_serde_type": serde}, serde.__name__)
        for builder, kind, serde in ((serializer_builder, SerializerBuilder, serializer),
                                     (deserializer_builder, DeserializerBuilder, deserializer)))
    return serializer, deserializer, builders[0], builders[1]


def _serde_family(serializer: type, deserializer: type,
                  **serializer_attrs: Any) -> Tuple[Any, Any, Any, Any, Any, Any]:
    """A format's builders and asyncio classes, made from its blocking serdes:
    ``<serializer>Builder``, ``<deserializer>Builder`` (:func:`~._serde._serde_builders`), then
    :func:`_async_twins`' four."""
    builders = _serde_builders(serializer, deserializer)
    return builders + _async_twins(*builders, **serializer_attrs)
