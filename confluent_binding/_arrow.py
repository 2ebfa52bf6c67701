"""Arrow side of Consumer.consume_arrow(): the schema, and the RecordBatch assembled (zero-copy)
from the buffers the compiled core filled. pyarrow is optional: imported only here."""

from __future__ import annotations

from typing import Any, Dict

try:
    import pyarrow as pa
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "Consumer.consume_arrow() needs pyarrow: pip install 'confluent_binding[arrow]'"
    ) from e

_SCHEMAS: Dict[bool, Any] = {}


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


def _buf(b: Any) -> Any:
    return pa.py_buffer(b)


def _binary(kind: Any, n: int, valid: Any, offsets: Any, data: Any, nulls: int) -> Any:
    return pa.Array.from_buffers(
        kind, n, [_buf(valid) if nulls else None, _buf(offsets), _buf(data)], null_count=nulls
    )


def record_batch(cols: Any) -> Any:
    """A RecordBatch over the compiled core's column buffers (no copy)."""
    p = cols.parts
    n = p["rows"]
    sch = schema(p["headers"])
    ts_valid, ts, ts_nulls = p["timestamp"]
    arrays = [
        _binary(pa.binary(), n, *p["key"]),
        _binary(pa.binary(), n, *p["value"]),
        _binary(pa.string(), n, None, *p["topic"], 0),
        pa.Array.from_buffers(pa.int32(), n, [None, _buf(p["partition"])], null_count=0),
        pa.Array.from_buffers(pa.int64(), n, [None, _buf(p["offset"])], null_count=0),
        pa.Array.from_buffers(
            sch.field("timestamp").type,
            n,
            [_buf(ts_valid) if ts_nulls else None, _buf(ts)],
            null_count=ts_nulls,
        ),
        pa.Array.from_buffers(pa.int32(), n, [None, _buf(p["timestamp_type"])], null_count=0),
    ]
    if p["headers"]:
        m = p["header_rows"]
        list_type = sch.field("headers").type
        keys = _binary(pa.string(), m, None, *p["header_key"], 0)
        values = _binary(pa.binary(), m, *p["header_value"])
        entries = pa.StructArray.from_arrays([keys, values], fields=list(list_type.value_type))
        h_valid, h_off, h_nulls = p["header_list"]
        arrays.append(
            pa.Array.from_buffers(
                list_type,
                n,
                [_buf(h_valid) if h_nulls else None, _buf(h_off)],
                null_count=h_nulls,
                children=[entries],
            )
        )
    return pa.RecordBatch.from_arrays(arrays, schema=sch)
