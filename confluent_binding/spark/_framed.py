"""What the Avro, JSON Schema and Protobuf codecs of the source and the sink share: the
decoders' per-batch loop over framed records (magic byte 0, 4-byte big-endian schema id,
payload), the typed Arrow column built in one call per batch, and FAILFAST / PERMISSIVE on the
records that cannot be read; the encoders' per-batch loop over rows (:func:`encode_rows`).

A decoder says how one framed record becomes the Python value its Arrow column is built from
(:meth:`FramedDecoder._one`); the Arrow column is built with the "raw" type (strings where the
final column holds timestamps or dates, for instance) and cast to the final type once per batch.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from ..schema_registry import (
    MessageField,
    SchemaRegistryError,
    SerializationContext,
    SerializationError,
)


class DecodeError(ValueError):
    """A record the decoder could not read (FAILFAST): says which record and why."""


def schema_id(data: bytes) -> int:
    """The writer's schema id of a framed record (raises when ``data`` is not framed)."""
    if len(data) < 5 or data[0] != 0:
        raise SerializationError(
            "not in the Schema Registry wire format (magic byte 0 and a 4-byte schema id): "
            "%d bytes starting %r" % (len(data), bytes(data[:5]))
        )
    return int.from_bytes(data[1:5], "big")


class FramedDecoder:
    """Decodes one column of framed records per call: ``decode(values, where)``.

    ``raw_type``: the Arrow type the decoded values are built into; ``type``: the column's type
    (``raw_type`` cast); ``kind``: the format's name in messages."""

    kind = "?"

    def __init__(self, raw_type: Any, final_type: Any, field: str, permissive: bool):
        self.raw_type = raw_type
        self.type = final_type
        self.field = field
        self.permissive = permissive

    def _one(self, data: bytes) -> Any:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def _column(self, records: List[Any]) -> Any:
        import pyarrow as pa

        column = pa.array(records, type=self.raw_type)
        if self.raw_type != self.type:
            column = column.cast(self.type)
        return column

    def _fits(self, record: Any) -> None:
        """Raises when the one decoded ``record`` does not fit the column (a string where a
        number is read, a timestamp that is not one): what makes it the record's failure."""
        self._column([record])

    def decode(self, values: Any, where: Callable[[int], str]) -> Tuple[Any, Optional[Any]]:
        """``values``: a binary Arrow array of framed records (nulls stay null). Returns the
        typed column and, in PERMISSIVE mode, the error column (null where the record was
        decoded). ``where(i)``: names record ``i`` (topic-partition and offset) in errors."""
        import pyarrow as pa

        records: List[Any] = values.to_pylist()
        errors: Optional[List[Optional[str]]] = [None] * len(records) if self.permissive else None
        for i, data in enumerate(records):
            if data is None:
                continue
            try:
                records[i] = self._one(data)
            except SchemaRegistryError as e:
                if e.http_status_code != 404:
                    raise  # the registry failed, not the record: the task fails in any mode
                records[i] = None
                self._failed(errors, i, e, where)
            except Exception as e:  # noqa: BLE001 - every other failure is the record's
                records[i] = None
                self._failed(errors, i, e, where)
        failures = (pa.ArrowException, ValueError, TypeError, OverflowError)
        try:
            column = self._column(records)
        except failures:
            # a record does not fit the column (a string where a number is read, a timestamp
            # that is not one): find it, record by record
            for i, rec in enumerate(records):
                if rec is None:
                    continue
                try:
                    self._fits(rec)
                except failures as e:
                    records[i] = None
                    self._failed(errors, i, e, where)
            column = self._column(records)
        return column, (pa.array(errors, type=pa.string()) if errors is not None else None)

    def _failed(self, errors: Optional[List[Optional[str]]], i: int, e: Exception,
                where: Callable[[int], str]) -> None:
        reason = "%s: %s" % (type(e).__name__, e)
        if errors is None:
            raise DecodeError(
                "Malformed %s %s of %s (mode FAILFAST): %s. To read malformed records as "
                "null with the reason in the column '%sError', set the option 'mode' to "
                "'PERMISSIVE'." % (self.kind, self.field, where(i), reason, self.field)
            ) from e
        errors[i] = reason


def encode_rows(column: Any, topics: List[Any], field: MessageField,
                serialize: Callable[[Any, Any], Optional[bytes]]) -> Any:
    """The sink's encoders' loop: ``column`` (any Arrow column; null rows stay null, as
    tombstones) as a binary column of ``serialize(row, ctx)``, ``ctx`` the row's
    SerializationContext (each row's topic from ``topics``: the subject name strategies need
    it), made anew only where the topic changes."""
    import pyarrow as pa

    rows = column.to_pylist(maps_as_pydicts="strict")
    out: List[Optional[bytes]] = [None] * len(rows)
    ctx = None
    for i, row in enumerate(rows):
        if row is None:
            continue
        if ctx is None or ctx.topic != topics[i]:
            ctx = SerializationContext(topics[i], field)
        try:
            out[i] = serialize(row, ctx)
        except SchemaRegistryError as e:
            out[i] = _serialize_after_conflict(serialize, row, ctx, e)
    return pa.array(out, type=pa.binary())


def _serialize_after_conflict(serialize: Callable[[Any, Any], Optional[bytes]], row: Any,
                              ctx: Any, error: Any) -> Optional[bytes]:
    """``serialize(row, ctx)`` again after the registry refused to register the schema with
    HTTP 409 because another task of the same write registered it at the same moment (a
    registry such as Apicurio answers the second of two concurrent registrations so; the
    schema is registered by then): up to 5 tries, 0.1 s apart; any other error is raised."""
    import time

    for _ in range(5):
        if error.http_status_code != 409:
            raise error
        time.sleep(0.1)
        try:
            return serialize(row, ctx)
        except SchemaRegistryError as e:
            error = e
    raise error
