"""Data-contract rules: the executor/action interfaces and the registry they are found in.

A registered schema may carry a ``ruleSet``: *domain* rules (mode WRITE, READ or WRITEREAD) run
on every record a serializer writes or a deserializer reads with that schema, *migration* rules
(UPGRADE, DOWNGRADE, UPDOWN) turn a record written with one version of a subject into the shape
of another. A rule names its executor by ``type`` (``CEL``, ``CEL_FIELD``, ``JSONATA``, ...,
looked up in a :class:`~confluent_binding.schema_registry.rule_registry.RuleRegistry`); a
CONDITION rule fails when its executor returns false, a TRANSFORM rule replaces the record with
what its executor returns. After each rule its ``onSuccess`` or ``onFailure`` action runs:
``NONE``, ``ERROR`` (the default on failure: raise :class:`SerializationError`) or one from the
registry (``DLQ``). A rule registry's overrides (by rule type) can disable a rule or replace
its actions; the rule set's ``enableAt`` other than ``ALL``/``CLIENT`` disables its rules here.

:mod:`confluent_binding.schema_registry.serde` and :mod:`.rule_registry` offer these names;
:mod:`._rule_runner` is how a serde runs a ruleSet with them.
"""

import abc
import contextvars
import enum
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple, Union

from ..serialization import SerializationContext, SerializationError
from ._types import RegisteredSchema, Rule, RuleKind, RuleMode, Schema
from .wildcard_matcher import wildcard_match

# offered by confluent-kafka's serde module (.serde)
__all__ = [
    "FieldType",
    "FieldContext",
    "RuleContext",
    "FieldTransform",
    "FieldTransformer",
    "RuleBase",
    "RuleExecutor",
    "FieldRuleExecutor",
    "RuleAction",
    "ErrorAction",
    "NoneAction",
    "DLQ_HEADER_PREFIX",
    "DLQ_RULE_NAME_HEADER",
    "DLQ_RULE_MODE_HEADER",
    "DLQ_RULE_SUBJECT_HEADER",
    "DLQ_RULE_TOPIC_HEADER",
    "DLQ_RULE_EXCEPTION_HEADER",
    "RuleError",
    "RuleConditionError",
    "ValidationRulesExecution",
    "ValidationRule",
    "ValidationRuleError",
    "ValidationRuleExecutor",
    "VALIDATION_RULES_PROP",
    "parse_validation_rules",
    "evaluate_validation_rule",
    "Migration",
    "set_original_key",
    "get_original_key",
    "clear_original_key",
]

DLQ_HEADER_PREFIX = "__rule."
DLQ_RULE_NAME_HEADER = DLQ_HEADER_PREFIX + "name"
DLQ_RULE_MODE_HEADER = DLQ_HEADER_PREFIX + "mode"
DLQ_RULE_SUBJECT_HEADER = DLQ_HEADER_PREFIX + "subject"
DLQ_RULE_TOPIC_HEADER = DLQ_HEADER_PREFIX + "topic"
DLQ_RULE_EXCEPTION_HEADER = DLQ_HEADER_PREFIX + "exception"

#: The record's key as the key serde saw it, for the value serde's rules (a DLQ record keeps
#: it); set by a key serde, cleared by the value serde once it is done.
_ORIGINAL_KEY = contextvars.ContextVar("original_key", default=None)


def set_original_key(key):
    """Remember ``key`` as the record's key for the value serde's rules.

    A key serializer or deserializer calls it with the key it handles, so that the value serde's
    rule actions (the DLQ action, which writes the failed record with its key) find it; the value
    serde clears it when done. Kept in a :mod:`contextvars` variable: per thread and per asyncio
    task.

    Args:
        key: the record's key, as the key serde saw it (before serializing, after deserializing).
    """
    _ORIGINAL_KEY.set(key)


def get_original_key():
    """The key :func:`set_original_key` remembered in this context, or None."""
    return _ORIGINAL_KEY.get()


def clear_original_key():
    """Forget the key :func:`set_original_key` remembered in this context."""
    if _ORIGINAL_KEY.get() is not None:  # (a value serde's call per record: mostly nothing set)
        _ORIGINAL_KEY.set(None)


class FieldType(str, enum.Enum):
    """The type of a field a field-level rule is applied to, across Avro, JSON Schema and
    Protobuf: the containers ``RECORD``, ``ENUM``, ``ARRAY``, ``MAP``, ``COMBINED`` (a union,
    ``oneOf``/``anyOf``/``allOf``), ``FIXED``, and the primitives ``STRING``, ``BYTES``, ``INT``,
    ``LONG``, ``FLOAT``, ``DOUBLE``, ``BOOLEAN``, ``NULL``.
    """

    RECORD = "RECORD"
    ENUM = "ENUM"
    ARRAY = "ARRAY"
    MAP = "MAP"
    COMBINED = "COMBINED"
    FIXED = "FIXED"
    STRING = "STRING"
    BYTES = "BYTES"
    INT = "INT"
    LONG = "LONG"
    FLOAT = "FLOAT"
    DOUBLE = "DOUBLE"
    BOOLEAN = "BOOLEAN"
    NULL = "NULL"


_PRIMITIVES = frozenset(
    (FieldType.INT, FieldType.LONG, FieldType.FLOAT, FieldType.DOUBLE, FieldType.BOOLEAN,
     FieldType.NULL, FieldType.STRING, FieldType.BYTES)
)


class FieldContext:
    """The field a field-level rule is applied to: the message holding it, its names (the
    schema's: ``full_name`` is ``<record full name>.<field>``), its type and its tags (inline in
    the schema and from the schema's metadata). ``field_descriptor`` is Protobuf's descriptor."""

    __slots__ = {
        "containing_message": "The record (dict, or Protobuf message) that holds the field.",
        "full_name": "The field's full name: ``<record full name>.<field name>``.",
        "name": "The field's name within its record.",
        "field_type": "The field's :class:`FieldType`.",
        "tags": "The field's tags (a set): inline in the schema and from the schema's metadata.",
        "field_descriptor": "Protobuf's FieldDescriptor of the field; None for Avro and JSON.",
    }

    def __init__(self, containing_message: Any, full_name: str, name: str,
                 field_type: FieldType, tags: Set[str], field_descriptor: Any = None) -> None:
        self.containing_message: Any = containing_message
        self.full_name: str = full_name
        self.name: str = name
        self.field_type: FieldType = field_type
        self.tags: Set[str] = tags
        self.field_descriptor: Any = field_descriptor

    def is_primitive(self) -> bool:
        """True when the field's type is a primitive (string, bytes, a number, boolean or null),
        the types field-level transforms such as encryption apply to.
        """
        return self.field_type in _PRIMITIVES

    def type_name(self) -> str:
        """The name of the field's :class:`FieldType` (``"STRING"``, ``"RECORD"``, ...)."""
        return self.field_type.name


class RuleContext:
    """What a rule executor or action is given: the rule, where it runs and on what."""

    __slots__ = {
        "enabled_env": (
            "The rule set's ``enableAt`` (None, ``ALL`` and ``CLIENT`` run its rules in this "
            "client)."
        ),
        "ser_ctx": (
            "The :class:`SerializationContext` (topic, key or value, headers) of the record."
        ),
        "source": (
            "The :class:`Schema` a migration starts from (None for domain and encoding "
            "rules)."
        ),
        "target": "The :class:`Schema` whose rules run (a migration's destination).",
        "subject": "The subject the schema is registered under.",
        "rule_mode": "The :class:`RuleMode` this run is in (WRITE, READ, UPGRADE or DOWNGRADE).",
        "rule": "The :class:`Rule` being run.",
        "index": "The rule's position in :attr:`rules`.",
        "rules": "The rules of this run, in the order they run (reversed when reading).",
        "inline_tags": (
            "Field full name to the tags the schema declares inline on it "
            "(``confluent:tags``)."
        ),
        "field_transformer": (
            "The format's walker ``(ctx, transform, message) -> message`` that applies a "
            "field transform to every field."
        ),
        "original_key": "The record's key (a DLQ action writes it with the failed value).",
        "original_value": (
            "The record's value as given to the serde, before any rule ran (None for a key)."
        ),
        "_fields": "The fields being transformed, innermost last (see current_field).",
    }

    def __init__(self, enabled_env: Optional[str], ser_ctx: Optional[SerializationContext],
                 source: Optional[Schema], target: Optional[Schema], subject: str,
                 rule_mode: RuleMode, rule: Rule, index: int, rules: List[Rule],
                 inline_tags: Optional[Dict[str, Set[str]]],
                 field_transformer: Optional["FieldTransformer"], original_key: Any = None,
                 original_value: Any = None) -> None:
        self.enabled_env: Optional[str] = enabled_env
        self.ser_ctx: Optional[SerializationContext] = ser_ctx
        self.source: Optional[Schema] = source
        self.target: Optional[Schema] = target
        self.subject: str = subject
        self.rule_mode: RuleMode = rule_mode
        self.rule: Rule = rule
        self.index: int = index
        self.rules: List[Rule] = rules
        self.inline_tags: Optional[Dict[str, Set[str]]] = inline_tags
        self.field_transformer: Any = field_transformer
        self.original_key: Any = original_key
        self.original_value: Any = original_value
        self._fields: List[FieldContext] = []

    def get_parameter(self, name: str) -> Optional[str]:
        """The rule's parameter ``name``, else the target schema's metadata property, else None."""
        params = self.rule.params
        if params is not None and params.params.get(name) is not None:
            return params.params[name]
        metadata = self.target.metadata if self.target is not None else None
        if metadata is not None and metadata.properties is not None:
            return metadata.properties.properties.get(name)
        return None

    def current_field(self) -> Optional[FieldContext]:
        """The :class:`FieldContext` of the field being transformed, or None outside a field."""
        return self._fields[-1] if self._fields else None

    def enter_field(self, containing_message: Any, full_name: str, name: str,
                    field_type: FieldType, tags: Optional[Iterable[str]],
                    field_descriptor: Any = None) -> FieldContext:
        """Begin transforming a field: called by the format's field transformer before it
        applies a field transform.

        Args:
            containing_message: the record holding the field.
            full_name: the field's full name (``<record>.<field>``).
            name: the field's name.
            field_type: its :class:`FieldType`.
            tags: its inline tags; None to take them from :attr:`inline_tags`. The tags the target
                schema's metadata gives ``full_name`` are added.
            field_descriptor: Protobuf's field descriptor, if any.

        Returns:
            FieldContext: the field, now :meth:`current_field` until :meth:`exit_field`.
        """
        if tags is None:
            tags = (self.inline_tags or {}).get(full_name, ())
        found = set(tags)
        found.update(self.get_tags(full_name))
        field = FieldContext(containing_message, full_name, name, field_type, found,
                             field_descriptor)
        self._fields.append(field)
        return field

    def get_tags(self, full_name: str) -> Set[str]:
        """The tags the target schema's metadata gives ``full_name`` (keys are wildcards)."""
        metadata = self.target.metadata if self.target is not None else None
        found: Set[str] = set()
        if metadata is not None and metadata.tags is not None:
            for pattern, tags in metadata.tags.tags.items():
                if wildcard_match(full_name, pattern):
                    found.update(tags)
        return found

    def exit_field(self) -> None:
        """End the field :meth:`enter_field` began (no-op outside a field)."""
        if self._fields:
            self._fields.pop()


#: a field rule's transformation of one field's value: (rule context, field context, value)
FieldTransform = Callable[[RuleContext, FieldContext, Any], Any]
#: what walks a message applying a FieldTransform to its fields: (rule context, transform,
#: message)
FieldTransformer = Callable[[RuleContext, FieldTransform, Any], Any]


class RuleBase(abc.ABC):
    """A rule executor or action: named by :meth:`type`, configured once per serde."""

    def configure(self, client_conf: Dict[str, Any], rule_conf: Dict[str, Any]) -> None:
        """Called once per serde that uses this executor or action, before its first record.

        Args:
            client_conf: the Schema Registry client's configuration (``url``, credentials, ...).
            rule_conf: the serde's ``rule.conf`` setting (executor-specific keys, such as KMS
                credentials); an empty dict when it has none.

        The base implementation does nothing.
        """
        pass

    @abc.abstractmethod
    def type(self) -> str:
        """The name rules refer to this executor or action by (a :class:`Rule`'s ``type``, its
        ``onSuccess``/``onFailure``), and the key it is registered under in a :class:`RuleRegistry`.

        Returns:
            str: for example ``"CEL"`` or ``"DLQ"``.
        """
        raise NotImplementedError()

    def close(self) -> None:
        """Release what the executor or action holds (clients, caches); called when a serde
        that uses it is closed. The base implementation does nothing.
        """
        pass


class RuleExecutor(RuleBase):
    """The interface of a rule executor: what runs a :class:`Rule` of its :meth:`type` on a
    record. Subclass it, implement :meth:`type` and :meth:`transform`, and register an instance with
    :meth:`RuleRegistry.register_rule_executor` (or a serde's own registry).
    """

    @abc.abstractmethod
    def transform(self, ctx: RuleContext, message: Any) -> Any:
        """A CONDITION's truth, or a TRANSFORM's new message."""
        raise NotImplementedError()


def _same_tagged_transform(rule: Rule, other: Rule) -> bool:
    return (bool(rule.tags) and rule.kind == RuleKind.TRANSFORM and other.kind == rule.kind
            and other.mode == rule.mode and other.type == rule.type and other.tags == rule.tags)


class FieldRuleExecutor(RuleExecutor):
    """An executor applied field by field (through the format's field transformer)."""

    @abc.abstractmethod
    def new_transform(self, ctx: RuleContext) -> FieldTransform:
        """A ``(rule_ctx, field_ctx, value) -> value`` function for this rule."""
        raise NotImplementedError()

    def transform(self, ctx: RuleContext, message: Any) -> Any:
        """Apply the rule to every field of ``message`` (through the format's field
        transformer and :meth:`new_transform`), and return the result.

        Of several TRANSFORM rules of the same mode and type on the same tags only one applies:
        the first one writing or upgrading, the last one reading or downgrading (so that a field is
        not encrypted twice, say); for the others ``message`` is returned unchanged.

        Args:
            ctx: the :class:`RuleContext`.
            message: the record.

        Returns:
            The transformed record.
        """
        # of several transforms of one type on the same tags only one applies: the first on
        # the way in (WRITE, UPGRADE), the last on the way out (READ, DOWNGRADE)
        if ctx.rule_mode in (RuleMode.WRITE, RuleMode.UPGRADE):
            others = ctx.rules[:ctx.index]
        else:
            others = ctx.rules[ctx.index + 1:]
        if any(_same_tagged_transform(ctx.rule, other) for other in others):
            return message
        return ctx.field_transformer(ctx, self.new_transform(ctx), message)

    @staticmethod
    def are_transforms_with_same_tag(rule1: Rule, rule2: Rule) -> bool:
        """True when ``rule1`` is a TRANSFORM with tags and ``rule2`` has the same kind, mode,
        type and tags (the rules of which only one applies: see :meth:`transform`).
        """
        return _same_tagged_transform(rule1, rule2)


class RuleAction(RuleBase):
    """The interface of a rule action: what runs after a rule, named by the rule's
    ``onSuccess`` or ``onFailure``. Subclass it, implement :meth:`type` and :meth:`run`, and
    register an instance with :meth:`RuleRegistry.register_rule_action`.
    """

    @abc.abstractmethod
    def run(self, ctx: RuleContext, message: Any, ex: Optional[Exception]) -> Any:
        """Act on a rule's outcome (``ex`` is the failure, None on success)."""
        raise NotImplementedError()


class ErrorAction(RuleAction):
    """Fails the serde with :class:`SerializationError` (chained to the rule's failure)."""

    def type(self) -> str:
        """The action's name: ``"ERROR"``."""
        return "ERROR"

    def run(self, ctx: RuleContext, message: Any, ex: Optional[Exception]) -> Any:
        """Raise :class:`SerializationError`, chained to ``ex`` (the rule's failure) when given.

        Raises:
            SerializationError: always.
        """
        if ex is None:
            raise SerializationError()
        raise SerializationError() from ex


class NoneAction(RuleAction):
    """The action that does nothing (``NONE``, the default after a rule succeeds): the record
    goes on as the rule left it.
    """

    def type(self) -> str:
        """The action's name: ``"NONE"``."""
        return "NONE"

    def run(self, ctx: RuleContext, message: Any, ex: Optional[Exception]) -> Any:
        """Do nothing.

        Returns:
            None
        """
        return None


class RuleError(Exception):
    """A rule could not run (no executor, an executor's error, ...)."""


class RuleConditionError(RuleError):
    """A CONDITION rule was false; the message is the rule's doc, else its expression."""

    def __init__(self, rule: Rule) -> None:
        super().__init__(RuleConditionError.error_message(rule))

    @staticmethod
    def error_message(rule: Rule) -> str:
        """The message for a failed CONDITION ``rule``: its ``doc``, else
        ``"Rule expr failed: <expr>"``, else ``"Rule failed: <name>"``.
        """
        if rule.doc:
            return rule.doc
        if rule.expr:
            return "Rule expr failed: " + rule.expr
        return "Rule failed: {}".format(rule.name)


def _store_field_result(ctx, message, name, value):
    """After a field-level rule: a CONDITION that gave False fails; a TRANSFORM's value is
    stored in the field."""
    if ctx.rule.kind == RuleKind.CONDITION:
        if value is False:
            raise RuleConditionError(ctx.rule)
    else:
        message[name] = value


# -- inline validation rules ("confluent:rules" in a schema) -----------------------------------


class ValidationRulesExecution(str, enum.Enum):
    """When a serializer checks a schema's inline validation rules, relative to domain rules."""

    DISABLED = "DISABLED"
    BEFORE_DOMAIN_RULES = "BEFORE_DOMAIN_RULES"
    AFTER_DOMAIN_RULES = "AFTER_DOMAIN_RULES"


class ValidationRule:
    """An inline check declared on a record or one of its fields."""

    __slots__ = {
        "name": "The rule's name (reported when it fails).",
        "doc": "A description, reported as the failure's detail.",
        "expr": "A CEL expression over the value that must be true.",
        "sql": "A SQL condition over the value, for executors that evaluate SQL.",
    }

    def __init__(self, name: Optional[str] = None, doc: Optional[str] = None,
                 expr: Optional[str] = None, sql: Optional[str] = None) -> None:
        self.name: Optional[str] = name
        self.doc: Optional[str] = doc
        self.expr: Optional[str] = expr
        self.sql: Optional[str] = sql

    def _key(self) -> Tuple[Optional[str], ...]:
        return self.name, self.doc, self.expr, self.sql

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValidationRule):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "ValidationRule{{name={}, doc={}, expr={}, sql={}}}".format(*self._key())


class ValidationRuleError:
    """One failed inline rule, at ``field_path`` (None: the record itself)."""

    __slots__ = {
        "rule": "The :class:`ValidationRule` that failed.",
        "field_path": "Where: the field's path, None for the record itself.",
        "message": (
            "The executor's reason, if it gave one (else the rule's doc, sql or expr is "
            "shown)."
        ),
        "cause": "The :class:`RuleError` the executor raised, if the rule could not run.",
    }

    def __init__(self, rule: Optional[ValidationRule], field_path: Optional[str] = None,
                 message: Optional[str] = None, cause: Optional[Exception] = None) -> None:
        self.rule: Optional[ValidationRule] = rule
        self.field_path: Optional[str] = field_path
        self.message: Optional[str] = message
        self.cause: Optional[Exception] = cause

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ValidationRuleError):
            return NotImplemented
        return (self.rule, self.field_path, self.message) == (
            other.rule, other.field_path, other.message)

    def __hash__(self) -> int:
        return hash((self.rule, self.field_path, self.message))

    def __str__(self) -> str:
        rule = self.rule
        detail = self.message
        if not detail and rule is not None:
            detail = rule.doc or rule.sql or rule.expr
        text = "{}: {}: {}".format(self.field_path or "<root>",
                                   (rule.name if rule is not None else None) or "unnamed", detail)
        if self.cause is not None:
            text += " (caused by: {})".format(self.cause)
        return text

    def __repr__(self) -> str:
        return "ValidationRuleError({})".format(self)


class ValidationRuleExecutor(abc.ABC):
    """Evaluates an inline rule: False, or a non-empty str (the reason), means it failed."""

    @abc.abstractmethod
    def execute(self, rule: ValidationRule, schema: Any, message: Any) -> Union[bool, str]:
        """Evaluate ``rule`` on ``message``.

        Args:
            rule: the :class:`ValidationRule`.
            schema: the parsed schema the rule was declared in.
            message: the value it applies to (the record or one field's value).

        Returns:
            True when it holds; False, or a non-empty str giving the reason, when it fails.

        Raises:
            RuleError: the rule cannot be evaluated (it is then reported as failed, with the
                error as its cause).
        """
        raise NotImplementedError()


#: The Avro schema property / JSON Schema keyword holding inline validation rules.
VALIDATION_RULES_PROP = "confluent:rules"


def parse_validation_rules(prop_value: Any) -> List[ValidationRule]:
    """The ValidationRules of a ``confluent:rules`` value (a list of objects); else []."""
    if not isinstance(prop_value, list):
        return []
    return [ValidationRule(e.get("name"), e.get("doc"), e.get("expr"), e.get("sql"))
            for e in prop_value if isinstance(e, dict)]


def evaluate_validation_rule(executor: ValidationRuleExecutor, rule: ValidationRule, schema: Any,
                             value: Any, path: Optional[str],
                             out: List[ValidationRuleError]) -> None:
    """Run one inline rule; append a ValidationRuleError to ``out`` when it fails."""
    try:
        result = executor.execute(rule, schema, value)
    except RuleError as e:
        out.append(ValidationRuleError(rule, path, None, e))
        return
    if isinstance(result, bool):
        if not result:
            out.append(ValidationRuleError(rule, path))
    elif isinstance(result, str):
        if result:
            out.append(ValidationRuleError(rule, path, result))
    else:
        raise SerializationError("Validation rule '{}' resolved to an unexpected type: {}".format(
            rule.name or "unnamed", type(result).__name__))


def _evaluate_declared_rules(executor, holder, schema, value, path, fail_fast, out):
    """Run the inline rules ``holder`` declares (its :data:`VALIDATION_RULES_PROP`) on ``value``
    against ``schema``, appending failures to ``out``; True when ``fail_fast`` and one failed
    (the caller stops there)."""
    for rule in parse_validation_rules(holder.get(VALIDATION_RULES_PROP)):
        evaluate_validation_rule(executor, rule, schema, value, path, out)
        if fail_fast and out:
            return True
    return False


class Migration:
    """One step between two registered versions of a subject (UPGRADE or DOWNGRADE)."""

    __slots__ = {
        "rule_mode": "UPGRADE (``source`` is older than ``target``) or DOWNGRADE.",
        "source": "The :class:`RegisteredSchema` the record is in before this step.",
        "target": "The :class:`RegisteredSchema` it is in after it.",
    }

    def __init__(self, rule_mode: RuleMode, source: Optional[RegisteredSchema],
                 target: RegisteredSchema) -> None:
        self.rule_mode: RuleMode = rule_mode
        self.source: Optional[RegisteredSchema] = source
        self.target: RegisteredSchema = target


# -- running a rule set ------------------------------------------------------------------------


# Where serdes find rule executors and actions by type (the public module is rule_registry).
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

    def __init__(self) -> None:
        self._executors: Dict[str, RuleExecutor] = {}
        self._actions: Dict[str, RuleAction] = {}
        self._overrides: Dict[str, RuleOverride] = {}
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

    def register_executor(self, rule_executor: RuleExecutor) -> None:
        """Add ``rule_executor`` (a :class:`RuleExecutor`) under its ``type()``, replacing one of
        the same type.
        """
        self._put(self._executors, rule_executor.type(), rule_executor)

    def get_executor(self, name: str) -> Optional[RuleExecutor]:
        """The executor registered under the type ``name``, or None."""
        return self._get(self._executors, name)

    def get_executors(self) -> List[RuleExecutor]:
        """The registered executors, as a list."""
        return self._all(self._executors)

    def register_action(self, rule_action: RuleAction) -> None:
        """Add ``rule_action`` (a :class:`RuleAction`) under its ``type()``, replacing one of the
        same type.
        """
        self._put(self._actions, rule_action.type(), rule_action)

    def get_action(self, name: str) -> Optional[RuleAction]:
        """The action registered under the type ``name``, or None."""
        return self._get(self._actions, name)

    def get_actions(self) -> List[RuleAction]:
        """The registered actions, as a list."""
        return self._all(self._actions)

    def register_override(self, rule_override: RuleOverride) -> None:
        """Add ``rule_override`` (a :class:`RuleOverride`) for the rules of its ``type``,
        replacing one for the same type.
        """
        self._put(self._overrides, rule_override.type, rule_override)

    def get_override(self, name: str) -> Optional[RuleOverride]:
        """The override for rules of the type ``name``, or None."""
        return self._get(self._overrides, name)

    def get_overrides(self) -> List[RuleOverride]:
        """The registered overrides, as a list."""
        return self._all(self._overrides)

    def clear(self) -> None:
        """Remove every executor, action and override."""
        with self._lock:
            self._executors.clear()
            self._actions.clear()
            self._overrides.clear()

    @staticmethod
    def get_global_instance() -> "RuleRegistry":
        """The process-wide registry, which serdes use unless given their own ``rule_registry``
        (and which the executors' ``register()`` class methods fill).
        """
        return _GLOBAL

    @staticmethod
    def register_rule_executor(rule_executor: RuleExecutor) -> None:
        """Add ``rule_executor`` to the process-wide registry (see :meth:`register_executor`)."""
        _GLOBAL.register_executor(rule_executor)

    @staticmethod
    def register_rule_action(rule_action: RuleAction) -> None:
        """Add ``rule_action`` to the process-wide registry (see :meth:`register_action`)."""
        _GLOBAL.register_action(rule_action)

    @staticmethod
    def register_rule_override(rule_override: RuleOverride) -> None:
        """Add ``rule_override`` to the process-wide registry (see :meth:`register_override`)."""
        _GLOBAL.register_override(rule_override)


_GLOBAL = RuleRegistry()

# their public home is confluent_kafka.schema_registry.rule_registry's path (which re-exports them)
RuleOverride.__module__ = RuleRegistry.__module__ = (
    "confluent_binding.schema_registry.rule_registry")
