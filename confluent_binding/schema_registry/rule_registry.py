"""Where serdes find rule executors and actions by type, and per-type overrides.

Serdes use the process-wide registry (:meth:`RuleRegistry.get_global_instance`, which the
executors' ``register()`` class methods fill) unless given their own ``rule_registry``.
"""

import threading
from dataclasses import dataclass
from typing import Optional

from ._rules import RuleAction, RuleExecutor

__all__ = ["RuleAction", "RuleExecutor", "RuleOverride", "RuleRegistry"]


@dataclass(frozen=True)
class RuleOverride:
    """For rules of ``type``: replaces their onSuccess/onFailure actions and their disabled
    flag where the value is not None."""

    type: str
    on_success: Optional[str]
    on_failure: Optional[str]
    disabled: Optional[bool]


class RuleRegistry:
    """Rule executors and actions by their ``type()``, and RuleOverrides by rule type."""

    __slots__ = ["_executors", "_actions", "_overrides", "_lock"]

    def __init__(self):
        self._executors = {}
        self._actions = {}
        self._overrides = {}
        self._lock = threading.Lock()

    def _put(self, table, key, value):
        with self._lock:
            table[key] = value

    def _get(self, table, key):
        with self._lock:
            return table.get(key)

    def _all(self, table):
        with self._lock:
            return list(table.values())

    def register_executor(self, rule_executor):
        self._put(self._executors, rule_executor.type(), rule_executor)

    def get_executor(self, name):
        return self._get(self._executors, name)

    def get_executors(self):
        return self._all(self._executors)

    def register_action(self, rule_action):
        self._put(self._actions, rule_action.type(), rule_action)

    def get_action(self, name):
        return self._get(self._actions, name)

    def get_actions(self):
        return self._all(self._actions)

    def register_override(self, rule_override):
        self._put(self._overrides, rule_override.type, rule_override)

    def get_override(self, name):
        return self._get(self._overrides, name)

    def get_overrides(self):
        return self._all(self._overrides)

    def clear(self):
        with self._lock:
            self._executors.clear()
            self._actions.clear()
            self._overrides.clear()

    @staticmethod
    def get_global_instance():
        return _GLOBAL

    @staticmethod
    def register_rule_executor(rule_executor):
        _GLOBAL.register_executor(rule_executor)

    @staticmethod
    def register_rule_action(rule_action):
        _GLOBAL.register_action(rule_action)

    @staticmethod
    def register_rule_override(rule_override):
        _GLOBAL.register_override(rule_override)


_GLOBAL = RuleRegistry()
