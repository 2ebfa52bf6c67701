"""The legacy Avro clients: :class:`AvroProducer` and :class:`AvroConsumer` encode and decode
keys and values with Avro schemas registered in a Schema Registry, as confluent-kafka's
``confluent_kafka.avro`` (deprecated there since 2.0.2, as here: prefer
:class:`~confluent_binding.schema_registry.avro.AvroSerializer` and
:class:`~confluent_binding.schema_registry.avro.AvroDeserializer`).

Schemas are the ``avro`` package's (:func:`load`, :func:`loads`); the extra ``[avro]`` installs
it with fastavro, which does the encoding. The bytes are the Schema Registry's framing, the same
as confluent-kafka's.
"""

import warnings

from .. import Consumer, Producer
from .cached_schema_registry_client import CachedSchemaRegistryClient
from .error import ClientError
from .load import load, loads
from .serializer import KeySerializerError, SerializerError, ValueSerializerError
from .serializer.message_serializer import MessageSerializer

__all__ = ["AvroConsumer", "AvroProducer", "CachedSchemaRegistryClient", "ClientError",
           "Consumer", "KeySerializerError", "MessageSerializer", "Producer", "SerializerError",
           "ValueSerializerError", "load", "loads"]

_PREFIX = "schema.registry."


def _split_config(config, inherit_auto_register):
    """(the Schema Registry client's settings, the Kafka client's): ``schema.registry.*`` keys
    go to the registry client without their prefix; with ``basic.auth.credentials.source``
    SASL_INHERIT it also gets the Kafka client's SASL credentials."""
    registry = {k[len(_PREFIX):]: v for k, v in config.items() if k.startswith(_PREFIX)}
    if registry.get("basic.auth.credentials.source") == "SASL_INHERIT":
        registry["sasl.mechanism"] = config.get("sasl.mechanism",
                                                config.get("sasl.mechanisms", ""))
        registry["sasl.username"] = config.get("sasl.username", "")
        registry["sasl.password"] = config.get("sasl.password", "")
        if inherit_auto_register:
            registry["auto.register.schemas"] = config.get("auto.register.schemas", True)
    client = {k: v for k, v in config.items() if not k.startswith(_PREFIX)}
    return registry, client


def _registry(registry_conf, schema_registry):
    if schema_registry is None:
        return CachedSchemaRegistryClient(registry_conf)
    if registry_conf.get("url") is not None:
        raise ValueError("Cannot pass schema_registry along with schema.registry.url config")
    return schema_registry


class AvroProducer(Producer):
    """A :class:`~confluent_binding.Producer` that encodes keys and values with Avro schemas.

    ``config`` holds the Kafka client's properties and the registry client's as
    ``schema.registry.url``, ``schema.registry.ssl.ca.location``, ... (or pass a
    ``schema_registry`` client instead). ``default_key_schema`` and ``default_value_schema``
    (parsed schemas) are used when :meth:`produce` is given none.

    .. deprecated:: 2.0.2
       Use :class:`~confluent_binding.schema_registry.avro.AvroSerializer` with a
       :class:`~confluent_binding.SerializingProducer`.
    """

    def __init__(self, config, default_key_schema=None, default_value_schema=None,
                 schema_registry=None, **kwargs):
        warnings.warn("AvroProducer has been deprecated. Use AvroSerializer instead.",
                      category=DeprecationWarning, stacklevel=2)
        registry_conf, client_conf = _split_config(config, inherit_auto_register=True)
        schema_registry = _registry(registry_conf, schema_registry)
        super().__init__(client_conf, **kwargs)
        self._serializer = MessageSerializer(schema_registry)
        self._key_schema = default_key_schema
        self._value_schema = default_value_schema

    def produce(self, **kwargs):
        """Produce (keyword arguments only) ``topic``, ``value`` and ``key`` encoded with
        ``value_schema``/``key_schema`` (or the defaults), and any other argument of
        :meth:`Producer.produce`. Raises :class:`ValueSerializerError` /
        :class:`KeySerializerError` when there is a value or key but no schema for it, and
        :class:`ClientError` without a topic."""
        key_schema = kwargs.pop("key_schema", self._key_schema)
        value_schema = kwargs.pop("value_schema", self._value_schema)
        topic = kwargs.pop("topic", None)
        if not topic:
            raise ClientError("Topic name not specified.")
        value = kwargs.pop("value", None)
        key = kwargs.pop("key", None)
        if value is not None:
            if not value_schema:
                raise ValueSerializerError("Avro schema required for values")
            value = self._serializer.encode_record_with_schema(topic, value_schema, value)
        if key is not None:
            if not key_schema:
                raise KeySerializerError("Avro schema required for key")
            key = self._serializer.encode_record_with_schema(topic, key_schema, key, True)
        super().produce(topic, value, key, **kwargs)


class AvroConsumer(Consumer):
    """A :class:`~confluent_binding.Consumer` whose :meth:`poll` decodes Avro keys and values
    (with the writer's schema from the registry, resolved to ``reader_key_schema`` /
    ``reader_value_schema`` when given).

    .. deprecated:: 2.0.2
       Use :class:`~confluent_binding.schema_registry.avro.AvroDeserializer` with a
       :class:`~confluent_binding.DeserializingConsumer`.
    """

    def __init__(self, config, schema_registry=None, reader_key_schema=None,
                 reader_value_schema=None, **kwargs):
        warnings.warn("AvroConsumer has been deprecated. Use AvroDeserializer instead.",
                      category=DeprecationWarning, stacklevel=2)
        registry_conf, client_conf = _split_config(config, inherit_auto_register=False)
        schema_registry = _registry(registry_conf, schema_registry)
        super().__init__(client_conf, **kwargs)
        self._serializer = MessageSerializer(schema_registry, reader_key_schema,
                                             reader_value_schema)

    def poll(self, timeout=None):
        """The next message with its key and value decoded, or None; a message that cannot be
        decoded raises :class:`SerializerError` naming its topic, partition and offset."""
        message = super().poll(-1 if timeout is None else timeout)
        if message is None or message.error():
            return message
        try:
            if message.value() is not None:
                message.set_value(self._serializer.decode_message(message.value(),
                                                                  is_key=False))
            if message.key() is not None:
                message.set_key(self._serializer.decode_message(message.key(), is_key=True))
        except SerializerError as e:
            raise SerializerError(
                "Message deserialization failed for message at {} [{}] offset {}: {}".format(
                    message.topic(), message.partition(), message.offset(), e)) from None
        return message
