"""The source's compiled Avro decoding: framed Avro records into Arrow columns in one C loop per
batch (``_avro_decode`` in src/avro_decode.pyx, whose header describes the programs this module
compiles).

:func:`column_layout` flattens the reader's Arrow type into the columns the loop fills;
:func:`reader_program` compiles, for one writer schema, Avro's schema resolution against the
reader schema into the loop's program (None when a part of it is left to fastavro: unions of
several types, aliases, defaults other than null and plain values, differing named types);
:func:`build` makes the Arrow column of the loop's buffers.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .._core import _AVRO_LAYOUTS as L
from .._core import _AVRO_OPS, _avro_encode
from .._core import _AVRO_READS as R

_PRIMITIVES = ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
# promotions Avro's resolution allows: writer type -> reader types
_PROMOTIONS = {
    "int": ("long", "float", "double"),
    "long": ("float", "double"),
    "float": ("double",),
    "string": ("bytes",),
    "bytes": ("string",),
}
_TIMESTAMPS = ("timestamp-millis", "timestamp-micros", "local-timestamp-millis",
               "local-timestamp-micros")
_LOGICAL = ("decimal", "date", "time-millis", "time-micros", "uuid") + _TIMESTAMPS


class NotCompiled(Exception):
    """A part of the schemas the compiled decoder leaves to fastavro."""


def column_layout(t: Any) -> Tuple[Tuple[int, Tuple[int, ...]], ...]:
    """The columns of Arrow type ``t``, parents before children: (layout code, children)."""
    import pyarrow as pa

    cols: List[Any] = []

    def add(t: Any) -> int:
        i = len(cols)
        cols.append(None)
        if pa.types.is_struct(t):
            cols[i] = (L["struct"], tuple(add(f.type) for f in t))
        elif pa.types.is_map(t):
            entries = len(cols)
            cols.append(None)
            key, item = add(t.key_type), add(t.item_type)
            cols[entries] = (L["struct"], (key, item))
            cols[i] = (L["map"], (entries,))
        elif pa.types.is_list(t):
            cols[i] = (L["list"], (add(t.value_type),))
        elif pa.types.is_boolean(t):
            cols[i] = (L["bool"], ())
        elif pa.types.is_int32(t) or pa.types.is_date32(t):
            cols[i] = (L["i32"], ())
        elif pa.types.is_int64(t) or pa.types.is_timestamp(t):
            cols[i] = (L["i64"], ())
        elif pa.types.is_float32(t):
            cols[i] = (L["f32"], ())
        elif pa.types.is_float64(t):
            cols[i] = (L["f64"], ())
        elif pa.types.is_string(t) or pa.types.is_binary(t):
            cols[i] = (L["bin"], ())
        elif pa.types.is_decimal128(t):
            cols[i] = (L["dec"], ())
        else:
            raise NotCompiled(str(t))
        return i

    add(t)
    return tuple(cols)


def build(t: Any, layout: Tuple[Any, ...], buffers: List[Any], i: int = 0) -> Any:
    """The Arrow array of type ``t`` made of column ``i``'s buffers (and its children's)."""
    import pyarrow as pa

    length, nulls, valid, values, offsets = buffers[i]
    valid = pa.py_buffer(valid) if valid is not None else None
    children = layout[i][1]
    if pa.types.is_struct(t):
        return pa.Array.from_buffers(t, length, [valid], nulls, children=[
            build(f.type, layout, buffers, c) for f, c in zip(t, children)])
    if pa.types.is_map(t):
        entries = children[0]
        key, item = layout[entries][1]
        entry_type = pa.struct([pa.field("key", t.key_type, nullable=False),
                                pa.field("value", t.item_type)])
        entry = pa.Array.from_buffers(entry_type, buffers[entries][0], [None], 0, children=[
            build(t.key_type, layout, buffers, key), build(t.item_type, layout, buffers, item)])
        return pa.Array.from_buffers(t, length, [valid, pa.py_buffer(offsets)], nulls,
                                     children=[entry])
    if pa.types.is_list(t):
        return pa.Array.from_buffers(t, length, [valid, pa.py_buffer(offsets)], nulls,
                                     children=[build(t.value_type, layout, buffers,
                                                     children[0])])
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return pa.Array.from_buffers(t, length, [valid, pa.py_buffer(offsets),
                                                 pa.py_buffer(values)], nulls)
    return pa.Array.from_buffers(t, length, [valid, pa.py_buffer(values)], nulls)


class _Schemas:
    """Name lookups in one schema (its named types, those of its references)."""

    def __init__(self, named_class: Any, named: Dict[str, Any]):
        self.named = named_class(named)

    def norm(self, decl: Any, space: Optional[str]) -> Tuple[str, Any, Optional[str]]:
        """(kind, declaration as a dict, namespace inside it) of ``decl``: kind is a primitive,
        "union", or a complex type's name."""
        if isinstance(decl, list):
            return "union", decl, space
        if isinstance(decl, str):
            if decl in _PRIMITIVES:
                return decl, {"type": decl}, space
            return self.norm(self.named.lookup(decl, space), space)
        kind = decl["type"]
        if isinstance(kind, (dict, list)):
            return self.norm(kind, space)
        if kind in ("record", "error", "enum", "fixed"):
            full, inner = self.named.full_name(decl, space)
            self.named.types.setdefault(full, decl)
            return ("record" if kind == "error" else kind), dict(decl, name=full), inner
        if kind in _PRIMITIVES or kind in ("array", "map"):
            return kind, decl, space
        return self.norm(self.named.lookup(kind, space), space)


def _logical(kind: str, decl: Dict[str, Any]) -> Any:
    logical = decl.get("logicalType")
    if logical not in _LOGICAL:
        return None
    if logical == "decimal":
        if kind not in ("bytes", "fixed"):
            return None
        return ("decimal", int(decl.get("precision", 0)), int(decl.get("scale", 0)))
    return logical


class _Compiler:
    def __init__(self, writer: _Schemas, reader: _Schemas, layout: Tuple[Any, ...]):
        self.w = writer
        self.r = reader
        self.layout = layout

    def node(self, w: Any, ws: Optional[str], r: Any, rs: Optional[str], col: int,
             nullable: bool = False) -> tuple:
        """Reads writer type ``w``; with ``r`` (not None) into column ``col`` as reader type
        ``r``; else skipped."""
        wk, wd, ws = self.w.norm(w, ws)
        if r is not None:
            rk, rd, rs = self.r.norm(r, rs)
            if rk == "union":
                others = [b for b in rd if self.r.norm(b, rs)[0] != "null"]
                if len(others) != 1 or len(rd) != 2:
                    raise NotCompiled("reader union")
                return self.node(w, ws, others[0], rs, col, True)
        if wk == "union":
            branches: List[Any] = []
            for b in wd:
                if self.w.norm(b, ws)[0] == "null":
                    branches.append(None if (r is None or nullable) else False)
                    continue
                try:
                    branches.append(self.node(b, ws, r, rs, col, nullable))
                except NotCompiled:
                    if r is None:
                        raise
                    branches.append(False)     # such records are fastavro's
            return (R["union"], col, tuple(branches))
        if r is None:
            return self.skip(wk, wd, ws)
        if wk == "null":
            if not nullable:
                raise NotCompiled("null into a non-null reader")
            return (R["null"], col)
        if wk == "record":
            return self.record(wd, ws, rk, rd, rs, col)
        wl, rl = _logical(wk, wd), _logical(rk, rd)
        if wl != rl:
            raise NotCompiled("logical types %r -> %r" % (wl, rl))
        if wk == "enum":
            if rk != "enum" or wd["name"] != rd["name"]:
                raise NotCompiled("enum")
            symbols = rd["symbols"]
            default = rd.get("default")
            return (R["enum"], col, tuple(
                (s if s in symbols else default).encode() if (s in symbols or default in symbols)
                else None for s in wd["symbols"]))
        if wk == "fixed":
            if rk != "fixed" or wd["name"] != rd["name"] or wd["size"] != rd["size"]:
                raise NotCompiled("fixed")
            if wl:
                return (R["dec_fixed"], col, int(wd["size"]), wl[1])
            return (R["fixed"], col, int(wd["size"]))
        if wk == "array":
            if rk != "array":
                raise NotCompiled("array")
            return (R["array"], col,
                    self.node(wd["items"], ws, rd["items"], rs, self.layout[col][1][0]))
        if wk == "map":
            if rk != "map":
                raise NotCompiled("map")
            entries = self.layout[col][1][0]
            key, item = self.layout[entries][1]
            return (R["map"], col, entries, (R["bytes"], key),
                    self.node(wd["values"], ws, rd["values"], rs, item))
        if wk != rk and rk not in _PROMOTIONS.get(wk, ()):
            raise NotCompiled("%s -> %s" % (wk, rk))
        if isinstance(wl, tuple):
            return (R["dec_bytes"], col, wl[1])
        if wl in ("timestamp-millis", "local-timestamp-millis"):
            return (R["millis"], col)
        return (R[{"boolean": "bool", "int": "int", "long": "int", "float": "float",
                   "double": "double", "bytes": "bytes", "string": "bytes"}[wk]], col)

    def record(self, wd: Dict[str, Any], ws: Optional[str], rk: str, rd: Dict[str, Any],
               rs: Optional[str], col: int) -> tuple:
        if rk != "record" or wd["name"] != rd["name"]:
            raise NotCompiled("record")
        rfields = {f["name"]: (f, c) for f, c in zip(rd["fields"], self.layout[col][1])}
        if any(f.get("aliases") for f in rd["fields"]):
            raise NotCompiled("aliases")
        nodes = []
        for f in wd["fields"]:
            found = rfields.pop(f["name"], None)
            if found is None:
                nodes.append(self.node(f["type"], ws, None, None, -1))
            else:
                nodes.append(self.node(f["type"], ws, found[0]["type"], rs, found[1]))
        defaults = []
        for f, c in rfields.values():
            if "default" not in f:
                raise NotCompiled("no default")
            defaults.append(self.default(f, rs, c))
        return (R["record"], col, tuple(nodes), tuple(defaults))

    def default(self, field: Dict[str, Any], rs: Optional[str], col: int) -> tuple:
        """(node, encoding) of a reader field's default: null, or a value of a primitive."""
        kind, decl, _ = self.r.norm(field["type"], rs)
        value = field["default"]
        if kind == "union":
            first = self.r.norm(decl[0], rs)[0]
            if first == "null" and value is None:
                return ((R["null"], col), b"")
            raise NotCompiled("union default")
        if kind not in _PRIMITIVES or _logical(kind, decl) or kind == "null":
            raise NotCompiled("default of %s" % kind)
        encoded = _avro_encode((_AVRO_OPS[kind],), b"", value)
        if encoded is None:
            raise NotCompiled("default %r" % (value,))
        return (self.node(kind, None, field["type"], rs, col), encoded)

    def skip(self, wk: str, wd: Dict[str, Any], ws: Optional[str]) -> tuple:
        if wk == "record":
            return (R["record"], -1, tuple(self.node(f["type"], ws, None, None, -1)
                                           for f in wd["fields"]), ())
        if wk == "enum":
            return (R["enum"], -1, tuple(b"" for _ in wd["symbols"]))
        if wk == "fixed":
            return (R["fixed"], -1, int(wd["size"]))
        if wk == "array":
            return (R["array"], -1, self.node(wd["items"], ws, None, None, -1))
        if wk == "map":
            return (R["map"], -1, -1, (R["bytes"], -1), self.node(wd["values"], ws, None, None,
                                                                  -1))
        return (R[{"null": "null", "boolean": "bool", "int": "int", "long": "int",
                   "float": "float", "double": "double", "bytes": "bytes",
                   "string": "bytes"}[wk]], -1)


def reader_program(named_class: Any, writer: Any, writer_named: Dict[str, Any], reader: Any,
                   reader_named: Dict[str, Any], layout: Tuple[Any, ...]) -> Optional[tuple]:
    """The decoding program of records written with ``writer`` read as ``reader`` (parsed
    JSON declarations, with their references' declarations), or None."""
    compiler = _Compiler(_Schemas(named_class, writer_named), _Schemas(named_class, reader_named),
                         layout)
    try:
        return compiler.node(writer, None, reader, None, 0)
    except (NotCompiled, KeyError, ValueError, TypeError, RecursionError):
        return None
