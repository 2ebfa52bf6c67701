"""The Schema Registry serdes' wire format (Confluent's): magic byte 0, the schema id as a
big-endian uint32, then the encoded record; Protobuf adds the message indexes (zigzag varints)
between the id and the record. Magic byte 1 carries a 16-byte schema GUID instead of the id
(written into a header by :func:`header_schema_id_serializer`). Decoding accepts either
(:func:`dual_schema_id_deserializer`).
"""

import io
import struct
import uuid
from typing import IO, Any, List, Optional, Sequence

from ..serialization import MessageField, SerializationContext, SerializationError

# offered by confluent-kafka's serde module (.serde), with the varint helpers besides
__all__ = [
    "SchemaId",
    "header_schema_id_serializer",
    "prefix_schema_id_serializer",
    "dual_schema_id_deserializer",
    "prefix_schema_id_deserializer",
]

_MAGIC_BYTE = 0
_MAGIC_BYTE_V0 = _MAGIC_BYTE
_MAGIC_BYTE_V1 = 1
_KEY_SCHEMA_ID = "__key_schema_id"
_VALUE_SCHEMA_ID = "__value_schema_id"
_ID = struct.Struct(">bI")
_MAX_INDEXES = 100000
_KEY = MessageField.KEY  # (read per record: an enum member read from its class costs more)


# -- varints (zigzag, as protobuf's sint32/sint64) -------------------------------------------


def write_varint(buf: IO[bytes], value: int, zigzag: bool = True) -> None:
    if zigzag:
        value = (value << 1) ^ (value >> 63)
    while value & ~0x7F:
        buf.write(bytes(((value & 0x7F) | 0x80,)))
        value >>= 7
    buf.write(bytes((value,)))


def read_varint(buf: IO[bytes], zigzag: bool = True) -> int:
    value = shift = 0
    while True:
        byte = buf.read(1)
        if not byte:
            raise EOFError("Unexpected EOF while reading index")
        value |= (byte[0] & 0x7F) << shift
        shift += 7
        if not byte[0] & 0x80:
            break
    return (value >> 1) ^ -(value & 1) if zigzag else value


def encode_message_indexes(indexes: Sequence[int], zigzag: bool = True) -> bytes:
    """The message-index array: ``[0]`` (the first message of the file) is the single byte 0."""
    buf = io.BytesIO()
    if list(indexes) == [0]:
        buf.write(b"\x00")
    else:
        write_varint(buf, len(indexes), zigzag)
        for index in indexes:
            write_varint(buf, index, zigzag)
    return buf.getvalue()


def read_message_indexes(buf: IO[bytes], zigzag: bool = True) -> List[int]:
    count = read_varint(buf, zigzag)
    if count < 0 or count > _MAX_INDEXES:
        raise SerializationError("Invalid msgidx array length")
    if count == 0:
        return [0]
    return [read_varint(buf, zigzag) for _ in range(count)]


class SchemaId:
    """A schema's id (or GUID) in a payload, with Protobuf's message indexes."""

    __slots__ = {
        "schema_type": "``AVRO``, ``JSON`` or ``PROTOBUF`` (only Protobuf frames message indexes).",
        "id": "The registry's integer schema id (magic byte 0), or None.",
        "guid": "The schema's GUID as a :class:`uuid.UUID` (magic byte 1), or None.",
        "message_indexes": (
            "Protobuf: the path of message indexes to the record's message type in its file "
            "([0] for the first top-level message); else None."
        ),
    }

    def __init__(self, schema_type: str, schema_id: Optional[int] = None,
                 guid: Optional[str] = None,
                 message_indexes: Optional[List[int]] = None) -> None:
        self.schema_type: str = schema_type
        self.id: Optional[int] = schema_id
        self.guid: Optional[uuid.UUID] = uuid.UUID(guid) if guid is not None else None
        self.message_indexes: Optional[List[int]] = message_indexes

    def from_bytes(self, payload: io.BytesIO) -> io.BytesIO:
        """Read the framing from the BytesIO ``payload``; return it positioned at the record."""
        magic = payload.read(1)
        if magic == b"\x00":
            raw = payload.read(4)
            if len(raw) != 4:
                raise SerializationError("Invalid schema id")
            self.id = int.from_bytes(raw, "big")
        elif magic == b"\x01":
            self.guid = uuid.UUID(bytes=payload.read(16))
        else:
            raise SerializationError("Invalid magic byte")
        if self.schema_type == "PROTOBUF":
            self.message_indexes = read_message_indexes(payload)
        return payload

    def _indexes(self) -> bytes:
        return b"" if self.message_indexes is None else encode_message_indexes(self.message_indexes)

    # confluent-kafka's name of the index reader, which its tests call
    _read_index_array = staticmethod(read_message_indexes)

    def id_to_bytes(self) -> bytes:
        """The framing with the integer id (bytes): magic byte 0, the id as 4 big-endian bytes,
        then (Protobuf) the message indexes; the serialized record follows it in a payload.
        :class:`SerializationError` if :attr:`id` is not set."""
        return _ID.pack(_MAGIC_BYTE_V0, self._required(self.id, "ID")) + self._indexes()

    def guid_to_bytes(self) -> bytes:
        """The framing with the GUID (bytes): magic byte 1 and the GUID's 16 bytes, then
        (Protobuf) the message indexes; what goes in the ``__key_schema_id``/``__value_schema_id``
        header or in front of the record. :class:`SerializationError` if :attr:`guid` is not
        set."""
        guid = self._required(self.guid, "GUID")
        return bytes((_MAGIC_BYTE_V1,)) + guid.bytes + self._indexes()

    @staticmethod
    def _required(value: Any, what: str) -> Any:
        if value is None:
            raise SerializationError("Schema %s is not set" % what)
        return value

    def __repr__(self) -> str:
        return "SchemaId(%r, id=%r, guid=%r, message_indexes=%r)" % (
            self.schema_type,
            self.id,
            self.guid,
            self.message_indexes,
        )


# -- where the schema id goes -----------------------------------------------------------------


def prefix_schema_id_serializer(payload: bytes, ctx: Optional[SerializationContext],
                                schema_id: SchemaId) -> bytes:
    """Frame ``payload`` with magic byte 0 and the schema id (and message indexes)."""
    return schema_id.id_to_bytes() + payload


def header_schema_id_serializer(payload: bytes, ctx: Optional[SerializationContext],
                                schema_id: SchemaId) -> bytes:
    """Put magic byte 1 and the GUID in the ``__key_schema_id``/``__value_schema_id`` header."""
    if ctx is None:
        raise SerializationError("SerializationContext is required for header_schema_id_serializer")
    headers = ctx.headers
    if headers is None:
        raise SerializationError("Missing headers")
    name = _KEY_SCHEMA_ID if ctx.field == _KEY else _VALUE_SCHEMA_ID
    if isinstance(headers, list):
        headers.append((name, schema_id.guid_to_bytes()))
    elif isinstance(headers, dict):
        headers[name] = schema_id.guid_to_bytes()
    else:
        raise SerializationError("Invalid headers type")
    return payload


def prefix_schema_id_deserializer(payload: bytes, ctx: Optional[SerializationContext],
                                  schema_id: SchemaId) -> io.BytesIO:
    """Read the framing from the payload's front; return the rest as a BytesIO."""
    return schema_id.from_bytes(io.BytesIO(payload))


def dual_schema_id_deserializer(payload: bytes, ctx: Optional[SerializationContext],
                                schema_id: SchemaId) -> io.BytesIO:
    """Take the schema id from the field's schema-id header if any, else from the payload."""
    found: Any = None
    headers = ctx.headers if ctx is not None else None
    if ctx is not None and headers is not None:
        name = _KEY_SCHEMA_ID if ctx.field == _KEY else _VALUE_SCHEMA_ID
        if isinstance(headers, dict):
            found = headers.get(name)
        else:
            found = next((v for k, v in headers if k == name), None)
    if found is not None:
        schema_id.from_bytes(io.BytesIO(found))
        return io.BytesIO(payload)
    return prefix_schema_id_deserializer(payload, ctx, schema_id)
