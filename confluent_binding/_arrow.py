"""Arrow side of Consumer.consume_arrow(): the schema, and the RecordBatch imported (zero-copy,
through the Arrow C data interface) from the buffers the compiled core filled. pyarrow is
optional: imported only here."""

from __future__ import annotations

from typing import Any, Dict

try:
    import pyarrow as pa
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "Consumer.consume_arrow() needs pyarrow: pip install 'confluent_binding[arrow]'"
    ) from e

_SCHEMAS: Dict[bool, Any] = {}
# pyarrow's import of a C data interface ArrowArray (a struct array) with a known schema
_IMPORT = pa.RecordBatch._import_from_c


def schema(headers: bool = False) -> Any:
    """The columns of Spark's Kafka source, as Spark expects them from a Python data source."""
    s = _SCHEMAS.get(headers)
    if s is None:
        fields = [
            pa.field("key", pa.binary()),
            pa.field("value", pa.binary()),
            pa.field("topic", pa.string()),
            pa.field("partition", pa.int32()),
            pa.field("offset", pa.int64()),
            pa.field("timestamp", pa.timestamp("us", tz="UTC")),
            pa.field("timestampType", pa.int32()),
        ]
        if headers:
            header = pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())])
            fields.append(pa.field("headers", pa.list_(pa.field("element", header))))
        s = _SCHEMAS[headers] = pa.schema(fields)
    return s


def record_batch(cols: Any) -> Any:
    """A RecordBatch over the compiled core's column buffers (no copy)."""
    return cols.to_batch(_IMPORT, schema)
