"""``CEL_FIELD`` rules: a CEL expression applied to each field the rule's tags select.

Bound: ``value`` (the field's value), ``fullName``, ``name``, ``typeName`` (``STRING``,
``INT``, ...), ``tags`` and ``message`` (the record holding the field). Only primitive fields
are given to the expression; a CONDITION fails the record when it is false for any field, a
TRANSFORM's result replaces the field's value.
"""

from celpy import celtypes

from ..._rules import FieldContext, FieldRuleExecutor, RuleContext
from ...rule_registry import RuleRegistry
from .cel_executor import CelExecutor, field_value_to_cel, msg_to_cel

__all__ = ["CelExecutor", "CelFieldExecutor", "FieldContext", "FieldRuleExecutor", "RuleContext",
           "RuleRegistry", "field_value_to_cel", "msg_to_cel"]


class CelFieldExecutor(FieldRuleExecutor):
    """Runs ``CEL_FIELD`` rules: the expression once per field that carries one of the rule's
    tags, with the variables listed in this module's description."""

    def __init__(self):
        self._executor = CelExecutor()

    def type(self):
        """The rule type this executor runs: ``"CEL_FIELD"``."""
        return "CEL_FIELD"

    def new_transform(self, ctx):
        """The per-field transform for one rule run: evaluates the expression for each
        primitive field the rule's tags select (others are left as they are).
        """
        return self._field_transform

    def _field_transform(self, ctx, field_ctx, field_value):
        if not field_ctx.is_primitive():
            return field_value
        args = {
            "value": field_value_to_cel(field_ctx, field_value),
            "fullName": celtypes.StringType(field_ctx.full_name),
            "name": celtypes.StringType(field_ctx.name),
            "typeName": celtypes.StringType(field_ctx.type_name()),
            "tags": celtypes.ListType(celtypes.StringType(t) for t in sorted(field_ctx.tags)),
            "message": msg_to_cel(field_ctx.containing_message),
        }
        return self._executor.execute(ctx, field_value, args)

    @classmethod
    def register(cls):
        """Register an instance with the global :class:`RuleRegistry` (under ``CEL_FIELD``),
        as confluent-kafka's ``CelFieldExecutor.register()``.
        """
        RuleRegistry.register_rule_executor(cls())
