"""The legacy Avro clients' encoding: the Schema Registry's framing (magic byte 0, the schema id
as a 4-byte big-endian integer) followed by the Avro binary encoding of the record."""

import io
import json
import logging
import struct

from ..error import ClientError
from . import KeySerializerError, SerializerError, ValueSerializerError

try:
    from fastavro import parse_schema, schemaless_reader, schemaless_writer

    HAS_FAST = True
except ImportError:  # the avro package's own (slower) encoder
    HAS_FAST = False

__all__ = ["ContextStringIO", "HAS_FAST", "MAGIC_BYTE", "MessageSerializer"]

log = logging.getLogger(__name__)

MAGIC_BYTE = 0
_HEADER = struct.Struct(">bI")


class ContextStringIO(io.BytesIO):
    """A BytesIO that closes at the end of a ``with`` block."""

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()
        return False


def _writer(schema):
    """fp, record -> None, writing the record's Avro binary encoding."""
    if HAS_FAST:
        parsed = parse_schema(json.loads(str(schema)))
        return lambda record, fp: schemaless_writer(fp, parsed, record)
    import avro.io

    datum_writer = avro.io.DatumWriter(schema)
    return lambda record, fp: datum_writer.write(record, avro.io.BinaryEncoder(fp))


def _reader(writer_schema, reader_schema):
    """fp -> record, reading with the writer's schema (resolved to the reader's, if any)."""
    if HAS_FAST:
        try:
            writer = parse_schema(json.loads(str(writer_schema)))
            reader = (None if reader_schema is None
                      else parse_schema(json.loads(str(reader_schema))))
            return lambda fp: schemaless_reader(fp, writer, reader)
        except Exception as e:
            log.warning("fastavro cannot read schema %s (%s): using the avro package",
                        writer_schema, e)
    import avro.io

    datum_reader = avro.io.DatumReader(writer_schema, reader_schema)
    return lambda fp: datum_reader.read(avro.io.BinaryDecoder(fp))


class MessageSerializer:
    """Encodes records for, and decodes them from, Kafka messages framed for the Schema
    Registry, registering and fetching schemas through ``registry_client`` (a
    :class:`~confluent_binding.avro.CachedSchemaRegistryClient`). ``reader_key_schema`` and
    ``reader_value_schema`` (parsed schemas) are what decoded keys and values are resolved to.
    """

    def __init__(self, registry_client, reader_key_schema=None, reader_value_schema=None):
        self.registry_client = registry_client
        self.id_to_decoder_func = {}
        self.id_to_writers = {}
        self.reader_key_schema = reader_key_schema
        self.reader_value_schema = reader_value_schema

    def _get_encoder_func(self, writer_schema):
        """fp, record -> None: the writer of records with ``writer_schema`` (made once per
        schema id; confluent-kafka's name)."""
        return _writer(writer_schema)

    def encode_record_with_schema(self, topic, schema, record, is_key=False):
        """The message bytes of ``record`` written with the parsed ``schema``, registered (or,
        with ``auto.register.schemas`` off, looked up) under the subject ``<topic>-key`` or
        ``<topic>-value``."""
        error = KeySerializerError if is_key else ValueSerializerError
        subject = topic + ("-key" if is_key else "-value")
        if self.registry_client.auto_register_schemas:
            schema_id = self.registry_client.register(subject, schema)
        else:
            schema_id = self.registry_client.check_registration(subject, schema)
        if not schema_id:
            raise error("Unable to retrieve schema id for subject %s" % subject)
        if schema_id not in self.id_to_writers:
            self.id_to_writers[schema_id] = self._get_encoder_func(schema)
        return self.encode_record_with_schema_id(schema_id, record, is_key=is_key)

    def encode_record_with_schema_id(self, schema_id, record, is_key=False):
        """The message bytes of ``record`` written with the registry's schema ``schema_id``."""
        error = KeySerializerError if is_key else ValueSerializerError
        writer = self.id_to_writers.get(schema_id)
        if writer is None:
            try:
                schema = self.registry_client.get_by_id(schema_id)
            except ClientError as e:
                raise error("unable to fetch schema with id %d: %s" % (schema_id, e)) from e
            if not schema:
                raise error("Schema does not exist")
            writer = self.id_to_writers[schema_id] = self._get_encoder_func(schema)
        with ContextStringIO() as out:
            out.write(_HEADER.pack(MAGIC_BYTE, schema_id))
            writer(record, out)
            return out.getvalue()

    def _decoder(self, schema_id, is_key):
        decoder = self.id_to_decoder_func.get((schema_id, is_key))
        if decoder is not None:
            return decoder
        try:
            writer_schema = self.registry_client.get_by_id(schema_id)
        except ClientError as e:
            raise SerializerError("unable to fetch schema with id %d: %s" % (schema_id, e)) from e
        if writer_schema is None:
            raise SerializerError("unable to fetch schema with id %d" % schema_id)
        reader_schema = self.reader_key_schema if is_key else self.reader_value_schema
        decoder = self.id_to_decoder_func[(schema_id, is_key)] = _reader(writer_schema,
                                                                        reader_schema)
        return decoder

    def decode_message(self, message, is_key=False):
        """The record in the message bytes ``message`` (``None`` stays ``None``);
        :class:`SerializerError` when they are not framed for the Schema Registry or their
        schema cannot be fetched."""
        if message is None:
            return None
        if len(message) <= 5:
            raise SerializerError("message is too small to decode")
        with ContextStringIO(message) as payload:
            magic, schema_id = _HEADER.unpack(payload.read(5))
            if magic != MAGIC_BYTE:
                raise SerializerError("message does not start with magic byte")
            return self._decoder(schema_id, is_key)(payload)
