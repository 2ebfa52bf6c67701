"""Protobuf serializer and deserializer framed for the Schema Registry (extra ``[protobuf]``).

The schema registered is the message's file as a base64 FileDescriptorProto, with the files it
imports registered first as references (except the well-known google/protobuf, google/type and
confluent files, with ``skip.known.types``). After the schema id the payload carries the
message's index path in its file as zigzag varints (``[0]``, the first message, is one 0 byte).
"""

import base64

from google.protobuf.message import DecodeError

from ..serialization import DeserializerBuilder, SerializationError, SerializerBuilder
from .schema_registry_client import Schema, SchemaReference
from .serde import BaseDeserializer, BaseSerializer, _SerdeBuilder, reference_subject_name_strategy

__all__ = [
    "ProtobufSerializer",
    "ProtobufDeserializer",
    "ProtobufSerializerBuilder",
    "ProtobufDeserializerBuilder",
]

_PROTOBUF = "PROTOBUF"


def _is_builtin(file_name):
    return file_name.startswith(("confluent/", "google/protobuf/", "google/type/"))


def _schema_str(file_descriptor):
    return base64.standard_b64encode(file_descriptor.serialized_pb).decode("ascii")


def _message_indexes(descriptor):
    """The path of ``descriptor`` in its file: top-level position, then nested positions."""
    path = []
    current = descriptor
    while current.containing_type is not None:
        parent = current.containing_type
        path.append(list(parent.nested_types).index(current))
        current = parent
    path.append(list(descriptor.file.message_types_by_name).index(current.name))
    return path[::-1]


def _check_deprecated_format(conf):
    value = conf.take_bool("use.deprecated.format")
    if value:
        raise ValueError("use.deprecated.format is no longer supported")


class ProtobufSerializer(BaseSerializer):
    """Serializes instances of the generated message class ``msg_type`` to framed Protobuf.

    ``conf`` as AvroSerializer's plus ``skip.known.types`` (True),
    ``reference.subject.name.strategy`` (a file's subject is its name) and
    ``use.deprecated.format`` (only False: the old unzigzagged indexes are not written).
    """

    _schema_type = _PROTOBUF
    _fmt = "serialized"

    def __init__(
        self, msg_type, schema_registry_client, conf=None, rule_conf=None, rule_registry=None
    ):
        conf = self._configure(
            schema_registry_client,
            conf,
            extra_defaults={
                "skip.known.types": True,
                "reference.subject.name.strategy": reference_subject_name_strategy,
                "use.deprecated.format": False,
            },
        )
        self._skip_known_types = conf.take_bool("skip.known.types")
        _check_deprecated_format(conf)
        self._reference_subject = conf.take_callable("reference.subject.name.strategy")
        conf.finish()
        self._msg_class = msg_type
        self._index_array = _message_indexes(msg_type.DESCRIPTOR)
        self._file = msg_type.DESCRIPTOR.file

    def _references(self, ctx, file_descriptor):
        """Register (auto.register.schemas) and look up each imported file; their references."""
        refs = []
        for dep in file_descriptor.dependencies:
            if self._skip_known_types and _is_builtin(dep.name):
                continue
            dep_refs = self._references(ctx, dep)
            subject = self._reference_subject(ctx, dep)
            schema = Schema(_schema_str(dep), references=dep_refs, schema_type=_PROTOBUF)
            if self._auto_register:
                self._registry.register_schema(
                    subject, schema, normalize_schemas=self._normalize_schemas
                )
            registered = self._registry.lookup_schema(
                subject, schema, normalize_schemas=self._normalize_schemas
            )
            refs.append(SchemaReference(dep.name, subject, registered.version))
        return refs

    def __call__(self, message, ctx=None):
        if message is None:
            return None
        if not isinstance(message, self._msg_class):
            raise ValueError(
                "message must be of type {} not {}".format(self._msg_class, type(message))
            )
        subject = self._subject(ctx, message.DESCRIPTOR.full_name) if ctx is not None else None
        schema_id, _ = self._schema_id_for(
            subject,
            lambda: Schema(
                _schema_str(self._file),
                schema_type=_PROTOBUF,
                references=self._references(ctx, self._file),
            ),
        )
        schema_id.message_indexes = self._index_array
        return self._schema_id_serializer(message.SerializeToString(), ctx, schema_id)


class ProtobufDeserializer(BaseDeserializer):
    """Deserializes framed Protobuf into instances of the generated class ``message_type``.

    With a ``schema_registry_client`` the writer's schema id is checked against the registry
    (an unknown id is an error); without one, only the framing is read.
    """

    _schema_type = _PROTOBUF
    _fmt = "serialized"

    def __init__(
        self,
        message_type,
        conf=None,
        schema_registry_client=None,
        rule_conf=None,
        rule_registry=None,
    ):
        conf = self._configure(
            schema_registry_client, conf, extra_defaults={"use.deprecated.format": False}
        )
        _check_deprecated_format(conf)
        conf.finish()
        self._msg_class = message_type

    def __call__(self, data, ctx=None):
        if data is None:
            return None
        schema_id, payload = self._unframe(data, ctx, check_length=False)
        if self._registry is not None:
            subject = self._subject(ctx, None) if ctx is not None else None
            self._writer_schema(schema_id, subject)
        msg = self._msg_class()
        try:
            msg.ParseFromString(payload.read())
        except DecodeError as e:
            raise SerializationError(str(e))
        return msg


class ProtobufSerializerBuilder(_SerdeBuilder, SerializerBuilder):
    """Builds a ProtobufSerializer for ``key.serializer.builder``/``value.serializer.builder``."""

    _fields = (
        "schema_registry_config",
        "schema_registry_client",
        "message_type",
        "serializer_config",
        "rule_config",
        "rule_registry",
        "serializer_init",
    )
    _init_field = "serializer_init"

    def _make(self, client, v):
        return ProtobufSerializer(
            v["message_type"], client, v["serializer_config"], v["rule_config"], v["rule_registry"]
        )


class ProtobufDeserializerBuilder(_SerdeBuilder, DeserializerBuilder):
    """Builds a ProtobufDeserializer for ``key/value.deserializer.builder``."""

    _fields = (
        "schema_registry_config",
        "schema_registry_client",
        "message_type",
        "deserializer_config",
        "rule_config",
        "rule_registry",
        "deserializer_init",
    )
    _init_field = "deserializer_init"

    def _make(self, client, v):
        return ProtobufDeserializer(
            v["message_type"],
            v["deserializer_config"],
            client,
            v["rule_config"],
            v["rule_registry"],
        )
