"""A parsed Avro schema compiled for the core's Avro encoder (``_avro_encode`` in
src/avro_encode.pyx, whose header says what it writes and what it leaves to fastavro).

:func:`avro_program` turns a schema as fastavro's ``parse_schema`` gives it into a tree of
tuples, ``(op code, arguments...)``, or None when the schema has a part the encoder does not
take (a union other than null and one type, a recursive type, a logical type other than
decimal on bytes, timestamp-millis/-micros, date and uuid): records of such a schema are all
written by fastavro.
"""

from typing import Any, Dict, Optional, Set

from fastavro.logical_writers import LOGICAL_WRITERS

from .._core import _AVRO_NO_DEFAULT, _AVRO_OPS

_PRIMITIVES = ("null", "boolean", "int", "long", "float", "double", "bytes", "string")


class _NotCompiled(Exception):
    """A part of the schema the encoder leaves to fastavro."""


def avro_program(parsed: Any) -> Optional[tuple]:
    """The encoder's program for ``parsed`` (a fastavro parsed schema), or None."""
    named = parsed.get("__named_schemas", {}) if isinstance(parsed, dict) else {}
    try:
        return _node(parsed, named, set())
    except _NotCompiled:
        return None


def _node(schema: Any, named: Dict[str, Any], open_names: Set[str]) -> tuple:
    if isinstance(schema, str):
        if schema in _PRIMITIVES:
            return (_AVRO_OPS[schema],)
        if schema in named and schema not in open_names:
            return _node(named[schema], named, open_names)
        raise _NotCompiled(schema)      # a recursive reference (or an unknown name)
    if isinstance(schema, list):
        others = [branch for branch in schema if branch != "null"]
        if len(schema) != 2 or len(others) != 1:
            raise _NotCompiled("union")
        return (_AVRO_OPS["nullable"], schema.index("null"), schema.index(others[0]),
                _node(others[0], named, open_names))
    kind = schema["type"]
    if not isinstance(kind, str):
        return _node(kind, named, open_names)
    logical = schema.get("logicalType")
    if logical and "%s-%s" % (kind, logical) in LOGICAL_WRITERS:
        key = "%s-%s" % (kind, logical)
        if key not in _AVRO_OPS:
            raise _NotCompiled(key)
        if key == "bytes-decimal":
            return (_AVRO_OPS[key], schema["precision"], schema.get("scale", 0))
        if key.startswith("long-timestamp"):
            return (_AVRO_OPS[key], 1000 if key.endswith("millis") else 1000000)
        return (_AVRO_OPS[key],)
    if kind in _PRIMITIVES:
        return (_AVRO_OPS[kind],)
    if kind in ("record", "error"):
        name = schema.get("name")
        inner = open_names | {name}
        fields = schema["fields"]
        return (_AVRO_OPS["record"], tuple(f["name"] for f in fields),
                tuple(_node(f["type"], named, inner) for f in fields),
                tuple(f.get("default", _AVRO_NO_DEFAULT) for f in fields))
    if kind == "enum":
        return (_AVRO_OPS[kind], {symbol: i for i, symbol in enumerate(schema["symbols"])})
    if kind == "array":
        return (_AVRO_OPS[kind], _node(schema["items"], named, open_names))
    if kind == "map":
        return (_AVRO_OPS[kind], _node(schema["values"], named, open_names))
    if kind == "fixed":
        return (_AVRO_OPS[kind], schema["size"])
    if kind in named and kind not in open_names:
        return _node(named[kind], named, open_names)
    raise _NotCompiled(kind)
