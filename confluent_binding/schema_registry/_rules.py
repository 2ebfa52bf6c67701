"""Data-contract rules: the executor/action interfaces and how a serde runs a schema's ruleSet.

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

This module is what :mod:`confluent_binding.schema_registry.serde` offers of them.
"""

import abc
import contextvars
import copy
import enum
import io
import logging

from ..serialization import MessageField, SerializationError
from ._rest import may_block
from ._types import RuleKind, RuleMode, RulePhase
from .wildcard_matcher import wildcard_match

log = logging.getLogger("confluent_binding.schema_registry")

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
    _ORIGINAL_KEY.set(key)


def get_original_key():
    return _ORIGINAL_KEY.get()


def clear_original_key():
    _ORIGINAL_KEY.set(None)


class FieldType(str, enum.Enum):
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

    __slots__ = ["containing_message", "full_name", "name", "field_type", "tags",
                 "field_descriptor"]

    def __init__(self, containing_message, full_name, name, field_type, tags,
                 field_descriptor=None):
        self.containing_message = containing_message
        self.full_name = full_name
        self.name = name
        self.field_type = field_type
        self.tags = tags
        self.field_descriptor = field_descriptor

    def is_primitive(self):
        return self.field_type in _PRIMITIVES

    def type_name(self):
        return self.field_type.name


class RuleContext:
    """What a rule executor or action is given: the rule, where it runs and on what."""

    __slots__ = ["enabled_env", "ser_ctx", "source", "target", "subject", "rule_mode", "rule",
                 "index", "rules", "inline_tags", "field_transformer", "original_key",
                 "original_value", "_fields"]

    def __init__(self, enabled_env, ser_ctx, source, target, subject, rule_mode, rule, index,
                 rules, inline_tags, field_transformer, original_key=None, original_value=None):
        self.enabled_env = enabled_env
        self.ser_ctx = ser_ctx
        self.source = source
        self.target = target
        self.subject = subject
        self.rule_mode = rule_mode
        self.rule = rule
        self.index = index
        self.rules = rules
        self.inline_tags = inline_tags
        self.field_transformer = field_transformer
        self.original_key = original_key
        self.original_value = original_value
        self._fields = []

    def get_parameter(self, name):
        """The rule's parameter ``name``, else the target schema's metadata property, else None."""
        params = self.rule.params
        if params is not None and params.params.get(name) is not None:
            return params.params[name]
        metadata = self.target.metadata if self.target is not None else None
        if metadata is not None and metadata.properties is not None:
            return metadata.properties.properties.get(name)
        return None

    def current_field(self):
        return self._fields[-1] if self._fields else None

    def enter_field(self, containing_message, full_name, name, field_type, tags,
                    field_descriptor=None):
        if tags is None:
            tags = (self.inline_tags or {}).get(full_name, ())
        found = set(tags)
        found.update(self.get_tags(full_name))
        field = FieldContext(containing_message, full_name, name, field_type, found,
                             field_descriptor)
        self._fields.append(field)
        return field

    def get_tags(self, full_name):
        """The tags the target schema's metadata gives ``full_name`` (keys are wildcards)."""
        metadata = self.target.metadata if self.target is not None else None
        found = set()
        if metadata is not None and metadata.tags is not None:
            for pattern, tags in metadata.tags.tags.items():
                if wildcard_match(full_name, pattern):
                    found.update(tags)
        return found

    def exit_field(self):
        if self._fields:
            self._fields.pop()


class RuleBase(abc.ABC):
    """A rule executor or action: named by :meth:`type`, configured once per serde."""

    def configure(self, client_conf, rule_conf):
        pass

    @abc.abstractmethod
    def type(self):
        raise NotImplementedError()

    def close(self):
        pass


class RuleExecutor(RuleBase):
    @abc.abstractmethod
    def transform(self, ctx, message):
        """A CONDITION's truth, or a TRANSFORM's new message."""
        raise NotImplementedError()


def _same_tagged_transform(rule, other):
    return (bool(rule.tags) and rule.kind == RuleKind.TRANSFORM and other.kind == rule.kind
            and other.mode == rule.mode and other.type == rule.type and other.tags == rule.tags)


class FieldRuleExecutor(RuleExecutor):
    """An executor applied field by field (through the format's field transformer)."""

    @abc.abstractmethod
    def new_transform(self, ctx):
        """A ``(rule_ctx, field_ctx, value) -> value`` function for this rule."""
        raise NotImplementedError()

    def transform(self, ctx, message):
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
    def are_transforms_with_same_tag(rule1, rule2):
        return _same_tagged_transform(rule1, rule2)


class RuleAction(RuleBase):
    @abc.abstractmethod
    def run(self, ctx, message, ex):
        """Act on a rule's outcome (``ex`` is the failure, None on success)."""
        raise NotImplementedError()


class ErrorAction(RuleAction):
    """Fails the serde with :class:`SerializationError` (chained to the rule's failure)."""

    def type(self):
        return "ERROR"

    def run(self, ctx, message, ex):
        if ex is None:
            raise SerializationError()
        raise SerializationError() from ex


class NoneAction(RuleAction):
    def type(self):
        return "NONE"

    def run(self, ctx, message, ex):
        return None


class RuleError(Exception):
    """A rule could not run (no executor, an executor's error, ...)."""


class RuleConditionError(RuleError):
    """A CONDITION rule was false; the message is the rule's doc, else its expression."""

    def __init__(self, rule):
        super().__init__(RuleConditionError.error_message(rule))

    @staticmethod
    def error_message(rule):
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

    __slots__ = ["name", "doc", "expr", "sql"]

    def __init__(self, name=None, doc=None, expr=None, sql=None):
        self.name = name
        self.doc = doc
        self.expr = expr
        self.sql = sql

    def _key(self):
        return self.name, self.doc, self.expr, self.sql

    def __eq__(self, other):
        if not isinstance(other, ValidationRule):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return "ValidationRule{{name={}, doc={}, expr={}, sql={}}}".format(*self._key())


class ValidationRuleError:
    """One failed inline rule, at ``field_path`` (None: the record itself)."""

    __slots__ = ["rule", "field_path", "message", "cause"]

    def __init__(self, rule, field_path=None, message=None, cause=None):
        self.rule = rule
        self.field_path = field_path
        self.message = message
        self.cause = cause

    def __eq__(self, other):
        if not isinstance(other, ValidationRuleError):
            return NotImplemented
        return (self.rule, self.field_path, self.message) == (
            other.rule, other.field_path, other.message)

    def __hash__(self):
        return hash((self.rule, self.field_path, self.message))

    def __str__(self):
        rule = self.rule
        detail = self.message
        if not detail and rule is not None:
            detail = rule.doc or rule.sql or rule.expr
        text = "{}: {}: {}".format(self.field_path or "<root>",
                                   (rule.name if rule is not None else None) or "unnamed", detail)
        if self.cause is not None:
            text += " (caused by: {})".format(self.cause)
        return text

    def __repr__(self):
        return "ValidationRuleError({})".format(self)


class ValidationRuleExecutor(abc.ABC):
    """Evaluates an inline rule: False, or a non-empty str (the reason), means it failed."""

    @abc.abstractmethod
    def execute(self, rule, schema, message):
        raise NotImplementedError()


#: The Avro schema property / JSON Schema keyword holding inline validation rules.
VALIDATION_RULES_PROP = "confluent:rules"


def parse_validation_rules(prop_value):
    """The ValidationRules of a ``confluent:rules`` value (a list of objects); else []."""
    if not isinstance(prop_value, list):
        return []
    return [ValidationRule(e.get("name"), e.get("doc"), e.get("expr"), e.get("sql"))
            for e in prop_value if isinstance(e, dict)]


def default_validation_rule_executor():
    """The CEL executor of inline rules (needs the ``[rules]`` extra)."""
    try:
        from .rules.cel.cel_validator import CelValidator
    except ImportError as e:
        raise ValueError(
            "The default validation rule executor requires the CEL dependencies; install "
            "them with `pip install confluent-binding[rules]`, or set "
            "validation.rules.executor to a ValidationRuleExecutor instance.") from e
    return CelValidator()


def evaluate_validation_rule(executor, rule, schema, value, path, out):
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


class Migration:
    """One step between two registered versions of a subject (UPGRADE or DOWNGRADE)."""

    __slots__ = ["rule_mode", "source", "target"]

    def __init__(self, rule_mode, source, target):
        self.rule_mode = rule_mode
        self.source = source
        self.target = target


# -- running a rule set ------------------------------------------------------------------------

_PAIRED = {RuleMode.WRITEREAD: (RuleMode.WRITE, RuleMode.READ),
           RuleMode.UPDOWN: (RuleMode.UPGRADE, RuleMode.DOWNGRADE)}


def _rules_for(rule_set, phase):
    if rule_set is None:
        return None
    if phase == RulePhase.MIGRATION:
        return rule_set.migration_rules
    if phase == RulePhase.ENCODING:
        return rule_set.encoding_rules
    return rule_set.domain_rules


def _header(headers, name):
    if not headers:
        return None
    if isinstance(headers, dict):
        return headers.get(name)
    found = None
    for key, value in headers:
        if key == name:
            found = value  # the last one counts
    return found


class _RuleRunner:
    """The rule execution both serde directions share; a serde sets ``_rule_registry``."""

    _validation_rules_execution = ValidationRulesExecution.DISABLED
    _validation_rules_fail_fast = False
    _validation_rule_executor = None

    def _configure_validation(self, conf):
        """A serializer's ``validation.rules.*`` settings (taken from the _Conf ``conf``): when
        to check a schema's inline rules, whether to stop at the first failure, and with what
        (the CEL one by default, resolved now so a missing extra fails here)."""
        execution = conf.take("validation.rules.execution", ValidationRulesExecution.DISABLED)
        try:
            self._validation_rules_execution = ValidationRulesExecution(execution)
        except ValueError:
            raise ValueError("validation.rules.execution must be one of {}".format(
                ", ".join(m.value for m in ValidationRulesExecution)))
        self._validation_rules_fail_fast = conf.take("validation.rules.fail.fast", False)
        if not isinstance(self._validation_rules_fail_fast, bool):
            raise ValueError("validation.rules.fail.fast must be a boolean value")
        executor = conf.take("validation.rules.executor", None)
        if self._validation_rules_execution != ValidationRulesExecution.DISABLED:
            if executor is None:
                executor = default_validation_rule_executor()
            if not isinstance(executor, ValidationRuleExecutor):
                raise ValueError(
                    "validation.rules.executor must be a ValidationRuleExecutor instance")
        self._validation_rule_executor = executor

    def _validation_enabled(self, phase=None):
        """Whether inline rules are checked at ``phase`` (None: where no domain rules run)."""
        if phase is None:
            return self._validation_rules_execution != ValidationRulesExecution.DISABLED
        return self._validation_rules_execution == phase

    @staticmethod
    def _raise_validation_violations(violations):
        if violations:
            lines = ["Validation rule failed ({} violation{}):".format(
                len(violations), "" if len(violations) == 1 else "s")]
            lines += ["  - {}".format(v) for v in violations]
            raise SerializationError("\n".join(lines))

    def _write_with_rules(self, ctx, subject, selected, value, inline_tags, field_transformer,
                          validate):
        """A serializer's record after the WRITE rules of the ``selected`` registered schema,
        with its inline validation rules checked (``validate(value)``: the violations) before
        or after them as configured; with no registered schema selected only the check."""
        if selected is None or ctx is None or subject is None:
            if self._validation_enabled():
                self._raise_validation_violations(validate(value))
            return value
        if self._validation_enabled(ValidationRulesExecution.BEFORE_DOMAIN_RULES):
            self._raise_validation_violations(validate(value))
        value = self._execute_rules(ctx, subject, RuleMode.WRITE, None, selected.schema, value,
                                    inline_tags, field_transformer)
        if self._validation_enabled(ValidationRulesExecution.AFTER_DOMAIN_RULES):
            self._raise_validation_violations(validate(value))
        return value

    def _configure_rules(self, rule_conf, rule_registry):
        from .rule_registry import RuleRegistry

        if rule_conf is not None and not isinstance(rule_conf, dict):
            raise ValueError("rule_conf must be a dict")
        self._rule_registry = rule_registry or RuleRegistry.get_global_instance()
        client_conf = {}
        config = getattr(self._registry, "config", None)
        if callable(config):
            client_conf = config()
        for member in self._rule_registry.get_executors() + self._rule_registry.get_actions():
            member.configure(client_conf, rule_conf or {})

    def _execute_rules(self, ser_ctx, subject, rule_mode, source, target, message, inline_tags,
                       field_transformer, original_message=None, phase=RulePhase.DOMAIN):
        """Run ``target``'s rules of ``phase`` for ``rule_mode`` on ``message``; the result."""
        if message is None or target is None:
            return message
        if rule_mode == RuleMode.DOWNGRADE:
            holder = source
        else:
            holder = target
        rule_set = holder.rule_set if holder is not None else None
        rules = list(_rules_for(rule_set, phase) or ())
        if not rules:
            return message
        if rule_mode in (RuleMode.READ, RuleMode.DOWNGRADE):
            rules.reverse()  # undone in the reverse order they were done
        if original_message is None:
            original_message = message
        if rule_mode == RuleMode.WRITE and not may_block():
            # an asyncio serializer's try on its loop, which a later rule may end (WouldBlock)
            # for its run in a worker thread: transforms work on a copy, so that run starts
            # from the caller's record as given, not from one already transformed
            message = copy.deepcopy(message)
        is_key = ser_ctx is not None and ser_ctx.field == MessageField.KEY
        original_key = original_message if is_key else get_original_key()
        original_value = None if is_key else original_message
        for index, rule in enumerate(rules):
            ctx = RuleContext(rule_set.enable_at, ser_ctx, source, target, subject, rule_mode,
                              rule, index, rules, inline_tags, field_transformer, original_key,
                              original_value)
            if self._is_disabled(ctx, rule) or self._is_dlq_replay(ctx, rule):
                continue
            if rule.mode != rule_mode and rule_mode not in _PAIRED.get(rule.mode, ()):
                continue
            failure = self._on_failure(rule)
            if rule.type is None:
                self._run_action(ctx, rule_mode, rule, failure, message,
                                 RuleError("Rule type is None for rule {}".format(rule.name)),
                                 "ERROR")
                return message
            executor = self._rule_registry.get_executor(rule.type.upper())
            if executor is None:
                self._run_action(ctx, rule_mode, rule, failure, message,
                                 RuleError("Could not find rule executor of type {}".format(
                                     rule.type)), "ERROR")
                return message
            try:
                result = executor.transform(ctx, message)
                if rule.kind == RuleKind.CONDITION:
                    if not result:
                        raise RuleConditionError(rule)
                elif rule.kind == RuleKind.TRANSFORM:
                    message = result
                if message is None:
                    self._run_action(ctx, rule_mode, rule, failure, message, None, "ERROR")
                else:
                    self._run_action(ctx, rule_mode, rule, self._on_success(rule), message,
                                     None, "NONE")
            except SerializationError:
                raise
            except Exception as e:
                self._run_action(ctx, rule_mode, rule, failure, message, e, "ERROR")
        return message

    def _override(self, rule):
        return None if rule.type is None else self._rule_registry.get_override(rule.type)

    def _on_success(self, rule):
        override = self._override(rule)
        if override is not None and override.on_success is not None:
            return override.on_success
        return rule.on_success

    def _on_failure(self, rule):
        override = self._override(rule)
        if override is not None and override.on_failure is not None:
            return override.on_failure
        return rule.on_failure

    def _is_disabled(self, ctx, rule):
        if rule.type is None:
            return rule.disabled
        override = self._override(rule)
        if override is not None and override.disabled is not None:
            return override.disabled
        if ctx.enabled_env not in (None, "ALL", "CLIENT"):
            return True
        return rule.disabled

    def _is_dlq_replay(self, ctx, rule):
        """A record replayed from a dead-letter topic skips the rule that sent it there."""
        if rule.name is None or ctx.ser_ctx is None:
            return False
        value = _header(ctx.ser_ctx.headers, DLQ_RULE_NAME_HEADER)
        if isinstance(value, (bytes, bytearray)):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError:
                return False
        return value is not None and value == rule.name

    def _run_action(self, ctx, rule_mode, rule, action, message, ex, default):
        name = action or None
        if name is not None and "," in name and rule.mode in _PAIRED:
            write, read = name.split(",", 1)
            name = write if rule_mode in (RuleMode.WRITE, RuleMode.UPGRADE) else read
        name = name or default
        if name == "ERROR":
            found = ErrorAction()
        elif name == "NONE":
            found = NoneAction()
        else:
            found = self._rule_registry.get_action(name)
        if found is None:
            log.error("Could not find rule action of type %s", name)
            raise RuleError("Could not find rule action of type {}".format(name))
        try:
            found.run(ctx, message, ex)
        except SerializationError:
            raise
        except Exception as e:
            log.warning("Could not run post-rule action %s: %s", name, e)

    def _encoding_rules_out(self, ctx, subject, selected, payload):
        """A serializer's encoded payload after the selected schema's encoding rules."""
        if selected is None or ctx is None or subject is None:
            return payload
        return self._execute_rules(ctx, subject, RuleMode.WRITE, None, selected.schema, payload,
                                   None, None, phase=RulePhase.ENCODING)

    def _encoding_rules_in(self, ctx, subject, writer_schema, payload, data):
        """A deserializer's payload (a BytesIO at the record) after the writer's schema's
        encoding rules (READ), as a BytesIO."""
        if ctx is None or subject is None or writer_schema is None:
            return payload
        payload = self._execute_rules(ctx, subject, RuleMode.READ, None, writer_schema, payload,
                                      None, None, data, phase=RulePhase.ENCODING)
        if isinstance(payload, (bytes, bytearray)):
            payload = io.BytesIO(payload)
        return payload

    def _close_rules(self):
        """Close a dedicated rule registry's actions and executors (never the global one's)."""
        from .rule_registry import RuleRegistry

        registry = getattr(self, "_rule_registry", None)
        if registry is None or registry is RuleRegistry.get_global_instance():
            return
        for member in registry.get_actions() + registry.get_executors():
            try:
                member.close()
            except Exception as e:
                log.warning("Error closing rule %s: %s", type(member).__name__, e)

    # -- migrations (deserializers) --

    @staticmethod
    def _has_rules(rule_set, phase, mode):
        rules = _rules_for(rule_set, phase) or ()
        if mode in (RuleMode.UPGRADE, RuleMode.DOWNGRADE):
            wanted = (mode, RuleMode.UPDOWN)
        elif mode in (RuleMode.WRITE, RuleMode.READ):
            wanted = (mode, RuleMode.WRITEREAD)
        else:
            wanted = (mode,)
        return any(rule.mode in wanted for rule in rules)

    def _get_migrations(self, subject, writer_schema, target, fmt=None):
        """The Migration steps from the writer's version of ``subject`` to ``target``'s."""
        source = self._registry.lookup_schema(subject, writer_schema, normalize_schemas=False,
                                              deleted=True)
        if source.version == target.version:
            return []
        mode = RuleMode.UPGRADE if source.version < target.version else RuleMode.DOWNGRADE
        first, last = (source, target) if mode == RuleMode.UPGRADE else (target, source)
        versions = [first]
        if first.version is not None and last.version is not None:
            versions += [self._registry.get_version(subject, v, True, fmt)
                         for v in range(first.version + 1, last.version)]
        versions.append(last)
        steps = []
        for previous, version in zip(versions, versions[1:]):
            schema = version.schema
            if schema is not None and self._has_rules(schema.rule_set, RulePhase.MIGRATION, mode):
                if mode == RuleMode.UPGRADE:
                    steps.append(Migration(mode, previous, version))
                else:
                    steps.append(Migration(mode, version, previous))
        if mode == RuleMode.DOWNGRADE:
            steps.reverse()
        return steps

    def _execute_migrations(self, ser_ctx, subject, migrations, message):
        for step in migrations:
            if step.source is not None and step.target is not None:
                message = self._execute_rules(ser_ctx, subject, step.rule_mode,
                                              step.source.schema, step.target.schema, message,
                                              None, None, phase=RulePhase.MIGRATION)
        return message
