"""How SerializingProducer and DeserializingConsumer take their (de)serializers from the config.

Each of ``key.serializer``/``value.serializer`` (``key.deserializer``/``value.deserializer``) is
either a ready-made callable, which stays the application's, or given through its ``.builder``
property: the builder gets the client configuration, returns the serde and the configuration it
left alone, and the client owns (and closes) what was built. Serdes that can use the Kafka cluster
id are offered a resolver that fetches it on first use, so creating a client never waits on a
broker.
"""

import asyncio
import collections
import concurrent.futures
import inspect
import logging
import threading

from .error import KeyDeserializationError, ValueDeserializationError
from .serialization import MessageField, SerializationContext

log = logging.getLogger(__name__)

# read per record (an enum member read from its class costs a descriptor call)
_KEY, _VALUE = MessageField.KEY, MessageField.VALUE

#: Seconds a serde waits for the cluster id (the Java client's default ``max.block.ms``).
CLUSTER_ID_TIMEOUT = 60.0

#: One of a client's serdes as its configuration gives it: the property, the ready-made serde
#: or the builder (at most one of them set) and whether it is the key's.
SerdeSpec = collections.namedtuple("SerdeSpec", ["prop", "serde", "builder", "is_key"])


def pop_serde_props(conf, key_prop, value_prop):
    """``([key SerdeSpec, value SerdeSpec], the rest of conf)``: takes ``key_prop``,
    ``value_prop`` and their ``.builder`` properties from a copy of ``conf``, running nothing.
    A serde and its builder both given: ValueError."""
    rest = dict(conf)
    specs = []
    for prop, is_key in ((key_prop, True), (value_prop, False)):
        builder_prop = prop + ".builder"
        serde = rest.pop(prop, None)
        builder = rest.pop(builder_prop, None)
        if serde is not None and builder is not None:
            raise ValueError("Cannot configure both {} and {}; use one or the other"
                             .format(prop, builder_prop))
        specs.append(SerdeSpec(prop, serde, builder, is_key))
    return specs, rest


def _take_built(prop, result, owned, leftovers):
    """The serde of a builder's ``build()`` result, checked; it goes to ``owned``, the
    configuration the builder left alone to ``leftovers``."""
    try:
        serde, leftover = result
    except (TypeError, ValueError):
        raise ValueError("{}.builder must return a (serde, configuration) tuple from build(), "
                         "got {}".format(prop, type(result).__name__)) from None
    if not isinstance(leftover, dict):
        raise ValueError("{}.builder returned {} as the leftover configuration from build(), "
                         "expected a dict".format(prop, type(leftover).__name__))
    owned.append(serde)
    leftovers.append(leftover)
    return serde


def _client_conf(conf, leftovers):
    # a property any builder consumed never reaches librdkafka
    if not leftovers:
        return conf
    return {k: v for k, v in leftovers[-1].items() if all(k in left for left in leftovers[:-1])}


def build_serdes(specs, conf):
    """Run the specs' builders, each on a copy of the whole client ``conf``.

    Returns ``(serdes in spec order, those built here (the client owns them), the client's
    configuration)``: what every builder handed back. A builder that fails closes the serdes
    built before it.
    """
    serdes, owned, leftovers = [], [], []
    try:
        for spec in specs:
            serde = spec.serde
            if spec.builder is not None:
                serde = _take_built(spec.prop, spec.builder.build(dict(conf), spec.is_key),
                                    owned, leftovers)
            serdes.append(serde)
    except BaseException:
        _close_quietly(owned)
        raise
    return serdes, owned, _client_conf(conf, leftovers)


async def maybe_await(result):
    """``result``, awaited first if it is awaitable (an asyncio serde's call)."""
    if inspect.isawaitable(result):
        return await result
    return result


async def async_build_serdes(specs, conf):
    """:func:`build_serdes` for the asyncio clients: a builder's ``build()`` may return a
    coroutine (the asyncio Schema Registry builders do)."""
    serdes, owned, leftovers = [], [], []
    try:
        for spec in specs:
            serde = spec.serde
            if spec.builder is not None:
                result = await maybe_await(spec.builder.build(dict(conf), spec.is_key))
                serde = _take_built(spec.prop, result, owned, leftovers)
            serdes.append(serde)
    except BaseException:
        try:
            await async_close_serdes(owned)
        except Exception:
            pass
        raise
    return serdes, owned, _client_conf(conf, leftovers)


class SharedClusterIdResolver:
    """Calls ``cluster_id(timeout=...)`` for whoever calls it; callers arriving while a call is
    under way wait for that call instead of starting their own. Nothing is kept afterwards
    (librdkafka caches the id; a failure is retried by the next caller)."""

    def __init__(self, cluster_id, timeout=CLUSTER_ID_TIMEOUT):
        self._cluster_id = cluster_id
        self._timeout = timeout
        self._lock = threading.Lock()
        self._pending = None

    def __call__(self):
        with self._lock:
            pending = self._pending
            first = pending is None
            if first:
                pending = self._pending = concurrent.futures.Future()
        if not first:
            return pending.result()
        try:
            cluster_id = self._cluster_id(timeout=self._timeout)
        except BaseException as e:
            self._done(pending)
            pending.set_exception(e)
            raise
        self._done(pending)
        pending.set_result(cluster_id)
        return cluster_id

    def _done(self, pending):
        # forgotten before it completes: a woken waiter calling again starts a new call
        with self._lock:
            if self._pending is pending:
                self._pending = None


class AsyncSharedClusterIdResolver:
    """:class:`SharedClusterIdResolver` for the asyncio clients: concurrent awaiters share one
    ``await cluster_id(timeout=...)``; an awaiter cancelled leaves it running for the rest."""

    def __init__(self, cluster_id, timeout=CLUSTER_ID_TIMEOUT):
        self._cluster_id = cluster_id
        self._timeout = timeout
        self._pending = None

    async def __call__(self):
        if self._pending is None:
            self._pending = asyncio.get_running_loop().create_task(self._resolve())
        return await asyncio.shield(self._pending)

    async def _resolve(self):
        try:
            return await self._cluster_id(timeout=self._timeout)
        finally:
            self._pending = None


def _offer(setter, resolver, serdes):
    for serde in serdes:
        set_resolver = getattr(serde, setter, None)
        if callable(set_resolver):
            set_resolver(resolver)


def propagate_cluster_id_resolver(resolver, serdes):
    """Give ``resolver`` to every serde with ``set_cluster_id_resolver`` (None and plain
    callables are skipped); those needing the cluster id call it on their first look-up."""
    _offer("set_cluster_id_resolver", resolver, serdes)


def propagate_async_cluster_id_resolver(resolver, serdes):
    """Give the coroutine function ``resolver`` to every serde with
    ``set_async_cluster_id_resolver`` (the asyncio serdes)."""
    _offer("set_async_cluster_id_resolver", resolver, serdes)


def _closers(serdes, *names):
    """(serde, its first callable method of ``names``) for each serde that has one."""
    for serde in serdes:
        for name in names:
            close = getattr(serde, name, None)
            if callable(close):
                yield serde, close
                break


def _kept(first, serde, exc):
    """The failure to re-raise once every serde was tried: the first; a later one is logged."""
    if first is None:
        return exc
    log.warning("Failed to close serde %r", serde, exc_info=exc)
    return first


def close_serdes(serdes):
    """Close each serde that has ``close()``; re-raise the first failure after trying them all
    (later ones are logged)."""
    first = None
    for serde, close in _closers(serdes, "close"):
        try:
            close()
        except BaseException as e:
            first = _kept(first, serde, e)
    if first is not None:
        raise first


async def async_close_serdes(serdes):
    """:func:`close_serdes` for the asyncio clients: ``await serde.aclose()`` where a serde has
    it, else its ``close()`` (awaited if it is a coroutine)."""
    first = None
    for serde, close in _closers(serdes, "aclose", "close"):
        try:
            await maybe_await(close())
        except BaseException as e:
            first = _kept(first, serde, e)
    if first is not None:
        raise first


def _close_quietly(serdes):
    try:
        close_serdes(serdes)
    except Exception:
        pass


def take_serdes(conf, key_prop, value_prop):
    """``(key serde, value serde, owned serdes, client conf)`` for a blocking client."""
    if not isinstance(conf, dict):
        raise TypeError("expected configuration dict")
    specs, rest = pop_serde_props(conf, key_prop, value_prop)
    (key_serde, value_serde), owned, client_conf = build_serdes(specs, rest)
    return key_serde, value_serde, owned, client_conf


def set_up(client, serdes, owned, init):
    """Run ``init()`` (the client's own constructor), then offer the serdes a cluster-id
    resolver over ``client``; on failure close the ``owned`` serdes and re-raise."""
    try:
        init()
        propagate_cluster_id_resolver(SharedClusterIdResolver(client.cluster_id), serdes)
    except BaseException:
        _close_quietly(owned)
        raise


def producing_context(closed, topic, headers):
    """The key's SerializationContext for a produce() to ``topic``, after the checks the
    serializing producers make before any serializer runs (closed: RuntimeError; a topic that
    is not a str: TypeError)."""
    if closed:
        raise RuntimeError("Producer has been closed")
    if not isinstance(topic, str):
        raise TypeError("topic must be a str, not {}".format(type(topic).__name__))
    return SerializationContext(topic, _KEY, headers)


def deserialize(msg, key_deserializer, value_deserializer):
    """Deserialize ``msg``'s key, then its value (a key deserializer may leave state for the
    value's), and set them on it. A deserializer that raises leaves ``msg`` unchanged and comes
    out as KeyDeserializationError/ValueDeserializationError carrying ``msg``."""
    ctx = SerializationContext(msg.topic(), _KEY, msg.headers())
    key = msg.key()
    if key_deserializer is not None:
        try:
            key = key_deserializer(key, ctx)
        except Exception as e:
            raise KeyDeserializationError(exception=e, kafka_message=msg)
    value = msg.value()
    if value_deserializer is not None:
        ctx.field = _VALUE
        try:
            value = value_deserializer(value, ctx)
        except Exception as e:
            raise ValueDeserializationError(exception=e, kafka_message=msg)
    msg.set_key(key)
    msg.set_value(value)
    return msg
