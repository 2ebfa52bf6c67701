"""The default executor of inline validation rules (``confluent:rules`` in a schema): CEL.

A rule's expression sees the value it is declared on as ``this`` (a record, or a field's value)
and the current time as ``now``; it returns a bool (False: failed) or a string (non-empty:
failed, the string says why). A rule that cannot be compiled or evaluated is a
:class:`RuleError`, which the caller records as a violation. A ``confluent.type.Decimal`` value
is bound as a decimal (:func:`~.decimal_funcs.decimal_boundary_value`), a Protobuf field's
value through its descriptor, a message with Protobuf's presence.
"""

import datetime

import celpy
from celpy import celtypes
from google.protobuf import descriptor

from ..._rules import RuleError, ValidationRule, ValidationRuleExecutor
from .cel_executor import _Programs, to_cel
from .cel_field_presence import InterpretedRunner
from .constraints import _field_value_to_cel
from .decimal_funcs import decimal_boundary_value
from .extra_func import EXTRA_FUNCS

__all__ = ["CelValidator", "EXTRA_FUNCS", "InterpretedRunner", "RuleError", "ValidationRule",
           "ValidationRuleExecutor", "decimal_boundary_value"]


def _bound(schema, value):
    """The value a validation rule sees as ``this``; ``schema`` is a Protobuf field's
    descriptor for a Protobuf field's value, else the format's schema (unused)."""
    number = decimal_boundary_value(value)
    if number is not None:
        return number
    if isinstance(schema, descriptor.FieldDescriptor) and not hasattr(value, "DESCRIPTOR"):
        return _field_value_to_cel(value, schema)
    return to_cel(value)


class CelValidator(ValidationRuleExecutor):
    """Evaluates the CEL expressions of inline validation rules, each compiled once and cached
    (thread-safe)."""

    def __init__(self):
        self._programs = _Programs()

    def execute(self, rule, schema, message):
        """Evaluate ``rule`` over ``message`` (bound as ``this``, with ``now``).

        Args:
            rule: the :class:`ValidationRule` (its ``expr``, ``name`` and ``doc``).
            schema: a Protobuf field's descriptor when ``message`` is a Protobuf field's value, else
                the format's schema (unused).
            message: the value the rule is declared on; never None.

        Returns:
            True/False, or a string (non-empty: the rule failed, and why).

        Raises:
            RuleError: the value is None or cannot be converted, the expression is missing, does not
                compile or fails to evaluate, or its result is neither a bool nor a string.
        """
        name = rule.name or "unnamed"
        if message is None:
            raise RuleError("Validation rule '{}' received a null value; walkers must enforce "
                            "skip-on-null before invoking the executor.".format(name))
        if not rule.expr:
            raise RuleError("Validation rule '{}' has no expression".format(name))
        try:
            this = _bound(schema, message)
        except Exception as e:
            raise RuleError("Could not convert value for validation rule '{}'".format(name)) from e
        try:
            program = self._programs.get(rule.expr)
        except celpy.CELParseError as e:
            raise RuleError("Could not compile validation rule '{}'".format(name)) from e
        now = celtypes.TimestampType(datetime.datetime.now(datetime.timezone.utc))
        try:
            result = program.evaluate({"this": this, "now": now})
        except celpy.CELEvalError as e:
            detail = " ({})".format(rule.doc) if rule.doc else ""
            raise RuleError("Could not execute validation rule '{}'{}".format(name, detail)) from e
        if isinstance(result, (bool, celtypes.BoolType)):
            return bool(result)
        if isinstance(result, str):
            return str(result)
        raise RuleError("Validation rule '{}' must return bool or string; got {}".format(
            name, type(result).__name__))

