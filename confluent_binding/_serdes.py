"""How SerializingProducer and DeserializingConsumer take their (de)serializers from the config.

Each of ``key.serializer``/``value.serializer`` (``key.deserializer``/``value.deserializer``) is
either a ready-made callable, which stays the application's, or given through its ``.builder``
property: the builder gets the client configuration, returns the serde and the configuration it
left alone, and the client owns (and closes) what was built. Serdes that can use the Kafka cluster
id are offered a resolver that fetches it on first use, so creating a client never waits on a
broker.
"""

import logging
import threading

from .error import KeyDeserializationError, ValueDeserializationError
from .serialization import MessageField, SerializationContext

log = logging.getLogger(__name__)

CLUSTER_ID_TIMEOUT = 60.0


def take_serdes(conf, key_prop, value_prop):
    """Pop the key/value serdes and builders from a copy of ``conf``; run the builders.

    Returns ``(key_serde, value_serde, owned, client_conf)``: ``owned`` lists the serdes built
    here; ``client_conf`` keeps only the properties every builder handed back.
    """
    if not isinstance(conf, dict):
        raise TypeError("expected configuration dict")
    client_conf = dict(conf)
    specs = []
    for prop, is_key in ((key_prop, True), (value_prop, False)):
        builder_prop = prop + ".builder"
        serde = client_conf.pop(prop, None)
        builder = client_conf.pop(builder_prop, None)
        if serde is not None and builder is not None:
            raise ValueError("Cannot configure both {} and {}; use one or the other"
                             .format(prop, builder_prop))
        specs.append((prop, serde, builder, is_key))

    serdes, owned, leftovers = [], [], []
    try:
        for prop, serde, builder, is_key in specs:
            if builder is not None:
                serde, leftover = _checked_build_result(
                    prop, builder.build(dict(client_conf), is_key))
                owned.append(serde)
                leftovers.append(leftover)
            serdes.append(serde)
    except BaseException:
        close_quietly(owned)
        raise
    if leftovers:
        # a property any builder consumed never reaches librdkafka
        client_conf = {k: v for k, v in leftovers[-1].items()
                       if all(k in left for left in leftovers[:-1])}
    return serdes[0], serdes[1], owned, client_conf


def _checked_build_result(prop, result):
    try:
        serde, leftover = result
    except (TypeError, ValueError):
        raise ValueError("{}.builder must return a (serde, configuration) tuple from build(), "
                         "got {}".format(prop, type(result).__name__))
    if not isinstance(leftover, dict):
        raise ValueError("{}.builder returned {} as the leftover configuration from build(), "
                         "expected a dict".format(prop, type(leftover).__name__))
    return serde, leftover


def offer_cluster_id(client, serdes):
    """Hand every serde that has ``set_cluster_id_resolver`` one resolver over ``client``."""
    resolver = ClusterIdResolver(client)
    for serde in serdes:
        setter = getattr(serde, "set_cluster_id_resolver", None)
        if callable(setter):
            setter(resolver)


class ClusterIdResolver:
    """Callable returning the client's cluster id; concurrent callers share one broker wait."""

    def __init__(self, client, timeout=CLUSTER_ID_TIMEOUT):
        self._client = client
        self._timeout = timeout
        self._lock = threading.Lock()

    def __call__(self):
        # one caller waits on the broker; the others queue on the lock and find the id cached by
        # librdkafka once the first returns
        with self._lock:
            cluster_id = getattr(self._client, "cluster_id", None)
            if callable(cluster_id):
                return cluster_id(timeout=self._timeout)
            return self._client.list_topics(timeout=self._timeout).cluster_id


def close_all(serdes):
    """Close each serde that has ``close()``; re-raise the first failure after trying them all."""
    first = None
    for serde in serdes:
        close = getattr(serde, "close", None)
        if not callable(close):
            continue
        try:
            close()
        except BaseException as e:
            if first is None:
                first = e
            else:
                log.warning("Failed to close serde %r", serde, exc_info=True)
    if first is not None:
        raise first


def close_quietly(serdes):
    try:
        close_all(serdes)
    except Exception:
        pass


def deserialize(msg, key_deserializer, value_deserializer):
    """Deserialize ``msg``'s key, then its value (a key deserializer may leave state for the
    value's), and set them on it. A deserializer that raises leaves ``msg`` unchanged and comes
    out as KeyDeserializationError/ValueDeserializationError carrying ``msg``."""
    ctx = SerializationContext(msg.topic(), MessageField.KEY, msg.headers())
    key = msg.key()
    if key_deserializer is not None:
        try:
            key = key_deserializer(key, ctx)
        except Exception as e:
            raise KeyDeserializationError(exception=e, kafka_message=msg)
    value = msg.value()
    if value_deserializer is not None:
        ctx.field = MessageField.VALUE
        try:
            value = value_deserializer(value, ctx)
        except Exception as e:
            raise ValueDeserializationError(exception=e, kafka_message=msg)
    msg.set_key(key)
    msg.set_value(value)
    return msg
