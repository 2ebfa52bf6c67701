"""``CEL`` rules: a Common Expression Language expression over the record, bound as ``message``.

A CONDITION's expression is true for a good record; a TRANSFORM's result is the new record. An
expression ``guard; expr`` runs ``expr`` only where ``guard`` holds (else a condition passes and
a transform leaves the record alone). Avro and JSON records are dicts here; a Protobuf message
is seen as its fields (names as in the .proto), and a transform's result is parsed back into
the message's class.
"""

import datetime
import logging
import threading
import uuid

import celpy
from celpy import celtypes

from ..._types import RuleKind, Schema
from ...rule_registry import RuleRegistry
from ...serde import FieldContext, RuleContext, RuleExecutor
from .extra_func import EXTRA_FUNCS

__all__ = ["CelExecutor", "DAYS_SHIFT", "EXTRA_FUNCS", "FieldContext", "RuleContext",
           "RuleExecutor", "RuleKind", "RuleRegistry", "Schema", "field_value_to_cel", "log",
           "msg_to_cel", "to_cel", "from_cel"]

log = logging.getLogger("confluent_binding.schema_registry")

#: An Avro ``date`` is days since 1970-01-01: a Python date is given to CEL as that int.
DAYS_SHIFT = datetime.date(1970, 1, 1).toordinal()


def to_cel(value):
    """A Python value (a record, a field) as CEL values."""
    if _is_protobuf(value):
        return to_cel(_protobuf_to_dict(value))
    if isinstance(value, dict):
        out = celtypes.MapType()
        for key, item in value.items():
            out[to_cel(key)] = to_cel(item)
        return out
    if isinstance(value, (list, tuple)):
        return celtypes.ListType(to_cel(item) for item in value)
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, (bytes, bytearray)):
        return celtypes.BytesType(bytes(value))
    if isinstance(value, datetime.datetime):
        return celtypes.TimestampType(value)
    if isinstance(value, datetime.timedelta):
        return celtypes.DurationType(value)
    if isinstance(value, datetime.date):
        return celtypes.IntType(value.toordinal() - DAYS_SHIFT)
    if isinstance(value, uuid.UUID):
        return celtypes.StringType(str(value))
    return value


def msg_to_cel(msg):
    """A whole record as CEL values (a Protobuf message as its fields)."""
    return to_cel(msg)


def field_value_to_cel(field_ctx, field_value):
    """A field's value as a CEL value."""
    return to_cel(field_value)


def from_cel(value):
    """A CEL result as plain Python values (dict, list, str, int, ...)."""
    if isinstance(value, dict):
        return {from_cel(k): from_cel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_cel(item) for item in value]
    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, celtypes.IntType) or isinstance(value, celtypes.UintType):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.BytesType):
        return bytes(value)
    if isinstance(value, celtypes.NullType):
        return None
    return value


def _is_protobuf(value):
    return hasattr(value, "DESCRIPTOR") and hasattr(value, "SerializeToString")


def _protobuf_to_dict(message):
    """A message's fields by name, every field present (proto3 defaults included, as CEL sees
    a message); an unset message field is left out, so ``has()`` tells it apart."""
    out = {}
    for fd in message.DESCRIPTOR.fields:
        value = getattr(message, fd.name)
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            value_fd = fd.message_type.fields_by_name["value"]
            if value_fd.message_type is not None:
                out[fd.name] = {k: _protobuf_to_dict(v) for k, v in value.items()}
            else:
                out[fd.name] = dict(value)
        elif _is_repeated(fd):
            out[fd.name] = [_protobuf_to_dict(v) if fd.message_type is not None else v
                            for v in value]
        elif fd.message_type is not None:
            if message.HasField(fd.name):
                out[fd.name] = _protobuf_to_dict(value)
        else:
            out[fd.name] = value
    return out


def _is_repeated(fd):
    repeated = getattr(fd, "is_repeated", None)
    return repeated if repeated is not None else fd.label == fd.LABEL_REPEATED


def _protobuf_from(result, message):
    from google.protobuf.json_format import ParseDict

    return ParseDict(from_cel(result), type(message)())


class CelExecutor(RuleExecutor):
    """Runs ``CEL`` rules over the whole record."""

    def __init__(self):
        self._env = celpy.Environment()
        self._programs = {}
        self._lock = threading.Lock()

    def type(self):
        return "CEL"

    def transform(self, ctx, msg):
        return self.execute(ctx, msg, {"message": to_cel(msg)})

    def execute(self, ctx, msg, args):
        """Evaluate the rule's expression (with its guard) over ``args``."""
        expr = ctx.rule.expr
        if expr is None:
            return msg
        guard, sep, body = expr.partition(";")
        if sep:
            if guard.strip() and not self.execute_rule(ctx, guard, args):
                return True if ctx.rule.kind == RuleKind.CONDITION else msg
            expr = body
        result = self.execute_rule(ctx, expr, args)
        if ctx.rule.kind == RuleKind.CONDITION:
            return result
        if _is_protobuf(msg):
            return _protobuf_from(result, msg)
        return from_cel(result)

    def execute_rule(self, ctx, expr, args):
        schema = ctx.target
        if schema is None:
            raise ValueError("Target schema is None")
        if schema.schema_type is None:
            raise ValueError("Target schema type is None")
        with self._lock:
            program = self._programs.get(expr)
        if program is None:
            program = self._env.program(self._env.compile(expr), functions=EXTRA_FUNCS)
            with self._lock:
                self._programs[expr] = program
        if "now" in expr and "now" not in args:
            args["now"] = celtypes.TimestampType(datetime.datetime.now(datetime.timezone.utc))
        result = program.evaluate(args)
        if isinstance(result, celtypes.BoolType):
            return bool(result)
        return result

    @classmethod
    def register(cls):
        RuleRegistry.register_rule_executor(cls())
