"""``JSONATA`` rules: a JSONata expression whose result is the new record (Avro and JSON
records, typically migration rules between two versions of a subject)."""

import threading

import jsonata

from ..._rules import RuleContext, RuleExecutor
from ...rule_registry import RuleRegistry

__all__ = ["JsonataExecutor", "RuleContext", "RuleExecutor", "RuleRegistry"]


class JsonataExecutor(RuleExecutor):
    def __init__(self):
        self._compiled = {}
        self._lock = threading.Lock()

    def type(self):
        return "JSONATA"

    def transform(self, ctx, message):
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
        RuleRegistry.register_rule_executor(cls())
