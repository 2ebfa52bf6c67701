"""How a serde runs a schema's ruleSet (the mix-in :class:`BaseSerde` builds on): the domain
rules of the writer's schema, the migration rules between two versions of a subject, the inline
validation rules, and each rule's ``onSuccess``/``onFailure`` action. The interfaces the rules
implement live in :mod:`._rules`; the executors register in the process-wide
:class:`~confluent_binding.schema_registry.rule_registry.RuleRegistry`.
"""

import contextvars
import copy
import io
import logging
from typing import Optional

from ..serialization import MessageField, SerializationError
from ._rest import may_block
from ._rules import (
    DLQ_RULE_NAME_HEADER,
    ErrorAction,
    Migration,
    NoneAction,
    RuleConditionError,
    RuleContext,
    RuleError,
    RuleRegistry,
    ValidationRuleExecutor,
    ValidationRulesExecution,
    get_original_key,
)
from ._types import RuleKind, RuleMode, RulePhase

log: logging.Logger = logging.getLogger("confluent_binding.schema_registry")
_KEY = MessageField.KEY


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


# Where an asyncio serializer's try on its loop collects (record as given, transformed copy)
# pairs: when the try completes, the copies' contents are written back into the records, which
# confluent-kafka's serializers transform in place (None outside such a try).
WRITE_BACKS: "contextvars.ContextVar[Optional[list]]" = contextvars.ContextVar(
    "schema_registry_write_backs", default=None)


def write_back(pairs):
    """Give each record of ``pairs`` the contents of its transformed copy, in place (dicts,
    lists and Protobuf messages; other records are left as they are)."""
    for original, transformed in pairs:
        if original is transformed:
            continue
        if isinstance(original, dict) and isinstance(transformed, dict):
            original.clear()
            original.update(transformed)
        elif isinstance(original, list) and isinstance(transformed, list):
            original[:] = transformed
        elif type(original) is type(transformed) and hasattr(original, "CopyFrom"):
            original.CopyFrom(transformed)


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
            given, message = message, copy.deepcopy(message)
            write_backs = WRITE_BACKS.get()
        else:
            write_backs = None
        is_key = ser_ctx is not None and ser_ctx.field == _KEY
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
        if write_backs is not None:
            write_backs.append((given, message))
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
