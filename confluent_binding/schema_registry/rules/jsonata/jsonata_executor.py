"""``JSONATA`` rules: a JSONata expression whose result is the new record (Avro and JSON
records, typically migration rules between two versions of a subject)."""

import threading

import jsonata

from ..._rules import RuleContext, RuleExecutor
from ...rule_registry import RuleRegistry

__all__ = ["JsonataExecutor", "RuleContext", "RuleExecutor", "RuleRegistry"]


class JsonataExecutor(RuleExecutor):
    """Runs ``JSONATA`` transform rules (typically ``UPGRADE``/``DOWNGRADE`` migrations)."""

    def __init__(self):
        self._compiled = {}
        self._lock = threading.Lock()

    def type(self):
        """The rule type: ``"JSONATA"``."""
        return "JSONATA"

    def transform(self, ctx, message):
        """The rule's JSONata expression evaluated over ``message`` (a dict of the record):
        the new record. Expressions are compiled once and cached.
        """
        expr = ctx.rule.expr
        with self._lock:
            compiled = self._compiled.get(expr)
        if compiled is None:
            compiled = jsonata.Jsonata(expr)
            with self._lock:
                self._compiled[expr] = compiled
        return compiled.evaluate(message)

    @classmethod
    def register(cls):
        """Register an instance with the global :class:`RuleRegistry` (under ``JSONATA``), as
        confluent-kafka's ``JsonataExecutor.register()``.
        """
        RuleRegistry.register_rule_executor(cls())
