"""``CEL`` rules: a Common Expression Language expression over the record, bound as ``message``.

A CONDITION's expression is true for a good record; a TRANSFORM's result is the new record. An
expression ``guard; expr`` runs ``expr`` only where ``guard`` holds (else a condition passes and
a transform leaves the record alone). Avro and JSON records are maps here; a Protobuf message
is a map of its fields with Protobuf's presence in ``has()`` (:mod:`.constraints`), and a
transform's result is written back into the message's class (:mod:`.protobuf_result_writer`).
Expressions run on :class:`~.cel_field_presence.InterpretedRunner` with the functions of
:mod:`.extra_func` (``format()``, decimals, timestamps, variants, string checks), each compiled
once and kept.
"""

import datetime
import logging
import threading
import uuid
from typing import Any, Dict

import celpy
from celpy import celtypes

from ..._rules import FieldContext, RuleContext, RuleExecutor
from ..._types import RuleKind, Schema
from ...rule_registry import RuleRegistry
from . import protobuf_result_writer
from .cel_field_presence import InterpretedRunner
from .constraints import _msg_to_cel, _scalar_field_value_to_cel
from .extra_func import EXTRA_FUNCS

__all__ = ["CelExecutor", "DAYS_SHIFT", "EXTRA_FUNCS", "FieldContext", "InterpretedRunner",
           "RuleContext", "RuleExecutor", "RuleKind", "RuleRegistry", "Schema",
           "field_value_to_cel", "log", "msg_to_cel", "to_cel", "from_cel"]

log: logging.Logger = logging.getLogger("confluent_binding.schema_registry")

#: An Avro ``date`` is days since 1970-01-01: a Python date is given to CEL as that int.
DAYS_SHIFT = datetime.date(1970, 1, 1).toordinal()


def to_cel(value: Any) -> Any:
    """A Python value (a record, a field) as CEL values (decimals stay decimals)."""
    if _is_protobuf(value):
        return _msg_to_cel(value)
    if isinstance(value, dict):
        out = celtypes.MapType()
        for key, item in value.items():
            out[key] = to_cel(item)
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


def msg_to_cel(msg: Any) -> Any:
    """A whole record as CEL values (a Protobuf message as its fields)."""
    return to_cel(msg)


def field_value_to_cel(field_ctx: FieldContext, field_value: Any) -> Any:
    """A field's value as a CEL value (a Protobuf field's through its descriptor)."""
    if field_ctx.field_descriptor is not None:
        return _scalar_field_value_to_cel(field_value, field_ctx.field_descriptor)
    return to_cel(field_value)


def from_cel(value: Any) -> Any:
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


class _Programs:
    """CEL expressions compiled once (with the functions of :mod:`.extra_func`) and kept, for
    every thread; the rule executors and the validator each keep one."""

    def __init__(self):
        self._env = celpy.Environment(runner_class=InterpretedRunner)
        self._compiled = {}
        self._lock = threading.Lock()

    def get(self, expr):
        """The program of ``expr``, compiled on first use (celpy's parse error if it does not
        compile)."""
        with self._lock:
            program = self._compiled.get(expr)
        if program is None:
            program = self._env.program(self._env.compile(expr), functions=EXTRA_FUNCS)
            with self._lock:
                self._compiled[expr] = program
        return program


class CelExecutor(RuleExecutor):
    """Runs ``CEL`` rules over the whole record."""

    def __init__(self):
        self._programs = _Programs()

    def type(self) -> str:
        """The rule type this executor runs: ``"CEL"``."""
        return "CEL"

    def transform(self, ctx: RuleContext, msg: Any) -> Any:
        """Run the rule over the whole record ``msg`` (bound as ``message``): a CONDITION's
        result (True: the record passes), or a TRANSFORM's new record.
        """
        return self.execute(ctx, msg, {"message": to_cel(msg)})

    def execute(self, ctx: RuleContext, msg: Any, args: Dict[str, Any]) -> Any:
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
            return protobuf_result_writer.convert(result, msg)
        return from_cel(result)

    def execute_rule(self, ctx: RuleContext, expr: str, args: Dict[str, Any]) -> Any:
        """Evaluate one CEL expression ``expr`` with the variables ``args`` (``now`` is bound to
        the current UTC time when the expression uses it); programs are compiled once and cached.

        Returns:
            a Python bool for a boolean result, else the CEL value.

        Raises:
            ValueError: the rule context has no target schema (or its type is unknown).
        """
        schema = ctx.target
        if schema is None:
            raise ValueError("Target schema is None")
        if schema.schema_type is None:
            raise ValueError("Target schema type is None")
        program = self._programs.get(expr)
        if "now" in expr and "now" not in args:
            args["now"] = celtypes.TimestampType(datetime.datetime.now(datetime.timezone.utc))
        result = program.evaluate(args)
        if isinstance(result, celtypes.BoolType):
            return bool(result)
        return result

    @classmethod
    def register(cls) -> None:
        """Register an instance with the global :class:`RuleRegistry` (under ``CEL``), as
        confluent-kafka's ``CelExecutor.register()``; serializers then run ``CEL`` rules.
        """
        RuleRegistry.register_rule_executor(cls())
