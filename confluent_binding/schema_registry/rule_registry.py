"""Where serdes find rule executors and actions by type, and per-type overrides.

Serdes use the process-wide registry (:meth:`RuleRegistry.get_global_instance`, which the
executors' ``register()`` class methods fill) unless given their own ``rule_registry``.
"""

from ._rules import RuleAction, RuleExecutor, RuleOverride, RuleRegistry

__all__ = ["RuleAction", "RuleExecutor", "RuleOverride", "RuleRegistry"]

# the process-wide registry under confluent-kafka's module-level name (its tests clear it)
_global_instance = RuleRegistry.get_global_instance()
