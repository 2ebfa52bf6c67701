"""The ``DLQ`` rule action: a record whose rule failed is produced to a dead-letter topic.

The serde call still fails (:class:`SerializationError` "Rule failed: <rule name>", chained to
the rule's failure); the dead-letter record carries the original key and value (on WRITE a
structured value as JSON, with the fields of ``dlq.redact.rule.types`` rules' tags redacted;
on READ the bytes as consumed), the incoming headers and ``__rule.name``, ``__rule.mode``,
``__rule.subject``, ``__rule.topic`` and ``__rule.exception``. A record replayed from the
dead-letter topic skips the rule named in its ``__rule.name`` header.

Configuration (the constructor's ``conf``, or the serde's ``rule_conf`` for ``dlq.*`` keys and
``producer``): ``dlq.topic`` (a rule's ``dlq.topic`` parameter otherwise), ``dlq.auto.flush``
(flush after each record), ``dlq.redact.rule.types`` (``ENCRYPT,ENCRYPT_PAYLOAD``),
``producer`` (a Producer to use); every other key configures the action's own Producer.
"""

import copy
import json
import logging
import struct
import threading
import uuid
from typing import Any, Dict, Optional

from ....serialization import SerializationError
from ..._rest import WouldBlock, may_block
from ..._rules import (
    DLQ_HEADER_PREFIX,
    DLQ_RULE_EXCEPTION_HEADER,
    DLQ_RULE_MODE_HEADER,
    DLQ_RULE_NAME_HEADER,
    DLQ_RULE_SUBJECT_HEADER,
    DLQ_RULE_TOPIC_HEADER,
    FieldRuleExecutor,
    FieldTransform,
    FieldType,
    RuleAction,
    RuleContext,
)
from ..._types import Rule, RuleKind
from ...rule_registry import RuleRegistry

__all__ = ["FieldRedactionExecutor", "DlqAction"]

log: logging.Logger = logging.getLogger("confluent_binding.schema_registry")

_INT64 = struct.Struct(">q")
_DOUBLE = struct.Struct(">d")


class FieldRedactionExecutor(FieldRuleExecutor):
    """Replaces the selected STRING and BYTES fields with ``<REDACTED>``."""

    TYPE = "REDACT"
    REDACTED_STRING = "<REDACTED>"
    REDACTED_BYTES = REDACTED_STRING.encode("utf-8")

    def type(self) -> str:
        """The rule type: ``"REDACT"``."""
        return self.TYPE

    def new_transform(self, ctx: RuleContext) -> FieldTransform:
        """The per-field transform: STRING fields become ``<REDACTED>``, BYTES fields its
        UTF-8 bytes; null values and other types are left alone.
        """
        def redact(ctx, field_ctx, value):
            if value is None:
                return None
            if field_ctx.field_type == FieldType.STRING:
                return self.REDACTED_STRING
            if field_ctx.field_type == FieldType.BYTES:
                return self.REDACTED_BYTES
            return value

        return redact

    @classmethod
    def register(cls) -> "FieldRedactionExecutor":
        """Register an instance with the global :class:`RuleRegistry` and return it."""
        executor = cls()
        RuleRegistry.register_rule_executor(executor)
        return executor


def _header_bytes(value):
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, bytearray):
        return bytes(value)
    return str(value).encode("utf-8")


class DlqAction(RuleAction):
    """The ``DLQ`` rule action (confluent-kafka's ``DlqAction``): sends a record whose rule
    failed to a dead-letter topic with a producer of its own (see the module description for
    ``conf`` and the headers)."""

    TYPE = "DLQ"
    DLQ_TOPIC = "dlq.topic"
    DLQ_AUTO_FLUSH = "dlq.auto.flush"
    DLQ_REDACT_RULE_TYPES = "dlq.redact.rule.types"
    DLQ_REDACT_RULE_TYPES_DEFAULT = "ENCRYPT,ENCRYPT_PAYLOAD"
    PRODUCER = "producer"

    HEADER_PREFIX = DLQ_HEADER_PREFIX
    RULE_NAME = DLQ_RULE_NAME_HEADER
    RULE_MODE = DLQ_RULE_MODE_HEADER
    RULE_SUBJECT = DLQ_RULE_SUBJECT_HEADER
    RULE_TOPIC = DLQ_RULE_TOPIC_HEADER
    RULE_EXCEPTION = DLQ_RULE_EXCEPTION_HEADER

    def __init__(self, conf: Optional[Dict[str, Any]] = None) -> None:
        self._conf = dict(conf or {})
        self._lock = threading.Lock()
        self._producer = None
        self._apply_conf()

    def type(self) -> str:
        """The action type: ``"DLQ"``."""
        return self.TYPE

    def configure(self, client_conf: Dict[str, Any], rule_conf: Dict[str, Any]) -> None:
        """Take the ``dlq.*`` keys and ``producer`` of a serde's ``rule_conf`` (``client_conf``,
        the Schema Registry client's, is not used).
        """
        with self._lock:
            for key, value in (rule_conf or {}).items():
                if key == self.PRODUCER or key.startswith("dlq."):
                    self._conf[key] = value
            self._apply_conf()

    def _apply_conf(self):
        self._topic = self._conf.get(self.DLQ_TOPIC)
        self._auto_flush = str(self._conf.get(self.DLQ_AUTO_FLUSH, False)).lower() == "true"
        types = self._conf.get(self.DLQ_REDACT_RULE_TYPES, self.DLQ_REDACT_RULE_TYPES_DEFAULT)
        self._redact_types = [t.strip() for t in str(types).split(",")]
        if self._conf.get(self.PRODUCER) is not None:
            self._producer = self._conf[self.PRODUCER]

    def _get_producer(self):
        with self._lock:
            if self._producer is None:
                from .... import Producer

                conf = {"enable.idempotence": False, "acks": "all",
                        "max.in.flight.requests.per.connection": 1, "message.timeout.ms": 0}
                conf.update((k, v) for k, v in self._conf.items()
                            if k != self.PRODUCER and not k.startswith("dlq."))
                self._producer = Producer(conf)
            return self._producer

    def run(self, ctx: RuleContext, message: Any, ex: Optional[Exception]) -> None:
        """Produce the failed record to the dead-letter topic (the configured ``dlq.topic``, else
        the rule's parameter), with the headers described above; flushes when ``dlq.auto.flush``
        is true. A failure to produce is logged, not raised.

        Args:
            ctx: the failed rule's :class:`RuleContext` (original key and value, rule, subject).
            message: the record as the rule saw it.
            ex: the rule's failure, written to the ``__rule.exception`` header.

        Raises:
            SerializationError: always: ``Rule failed: <rule name>`` chained to ``ex`` (the
                serde call that ran the rule fails), or that no dead-letter topic is
                configured.
        """
        topic = self._topic or ctx.get_parameter(self.DLQ_TOPIC)
        if not topic:
            raise SerializationError("Could not send to DLQ as no topic is configured")
        if not may_block():
            # an asyncio serde on its loop: sending (and flushing) is for the worker thread
            # that runs the record again, so the dead letter is sent once and off the loop
            raise WouldBlock()
        try:
            producer = self._get_producer()
            producer.produce(topic, key=self._to_bytes(ctx, ctx.original_key),
                             value=self._to_bytes(ctx, ctx.original_value),
                             headers=self._headers(ctx, ex), on_delivery=_report(topic))
            producer.poll(0)
            if self._auto_flush:
                producer.flush()
        except Exception as e:
            log.error("Could not produce message to DLQ topic %s: %s", topic, e)
        failure = SerializationError("Rule failed: {}".format(ctx.rule.name))
        if ex is not None:
            raise failure from ex
        raise failure

    def _to_bytes(self, ctx, value):
        if value is None or isinstance(value, bytes):
            return value
        if isinstance(value, (bytearray, memoryview)):
            return bytes(value)
        if isinstance(value, str):
            return value.encode("utf-8")
        if isinstance(value, uuid.UUID):
            return str(value).encode("utf-8")
        if isinstance(value, int) and not isinstance(value, bool) and -2**63 <= value < 2**63:
            return _INT64.pack(value)
        if isinstance(value, float):
            return _DOUBLE.pack(value)
        value = self._redacted(ctx, value)
        if hasattr(value, "DESCRIPTOR"):
            from google.protobuf import json_format

            return json_format.MessageToJson(value).encode("utf-8")
        return json.dumps(value, default=_json_default).encode("utf-8")

    def _redacted(self, ctx, value):
        rules = [r for r in ctx.rules or () if r.type in self._redact_types]
        if not rules or ctx.field_transformer is None:
            return value
        tags = sorted({tag for r in rules for tag in r.tags or ()})
        rule = Rule("redact", None, RuleKind.TRANSFORM, ctx.rule_mode, FieldRedactionExecutor.TYPE,
                    tags, None, None, None, None, False)
        redact_ctx = RuleContext(ctx.enabled_env, ctx.ser_ctx, ctx.source, ctx.target,
                                 ctx.subject, ctx.rule_mode, rule, 0, [rule], ctx.inline_tags,
                                 ctx.field_transformer, ctx.original_key, ctx.original_value)
        try:
            return FieldRedactionExecutor().transform(redact_ctx, copy.deepcopy(value))
        except Exception as e:
            log.error("Could not redact fields: %s", e)
            return value

    def _headers(self, ctx, ex):
        incoming = ctx.ser_ctx.headers if ctx.ser_ctx is not None else None
        items = incoming.items() if isinstance(incoming, dict) else (incoming or ())
        headers = [(k, _header_bytes(v)) for k, v in items]
        headers += [
            (self.RULE_NAME, _header_bytes(ctx.rule.name)),
            (self.RULE_MODE, _header_bytes(ctx.rule_mode.value if ctx.rule_mode else None)),
            (self.RULE_SUBJECT, _header_bytes(ctx.subject)),
            (self.RULE_TOPIC, _header_bytes(ctx.ser_ctx.topic if ctx.ser_ctx else None)),
        ]
        if ex is not None:
            headers.append((self.RULE_EXCEPTION, _header_bytes(str(ex))))
        return headers

    def close(self) -> None:
        """Flush and drop the action's producer (a given ``producer`` is flushed too, not
        closed).
        """
        with self._lock:
            producer, self._producer = self._producer, None
        if producer is not None:
            producer.flush()

    @classmethod
    def register(cls, conf: Optional[Dict[str, Any]] = None) -> "DlqAction":
        """Create an action with ``conf`` (see the module description), register it with the
        global :class:`RuleRegistry` and return it.
        """
        action = cls(conf)
        RuleRegistry.register_rule_action(action)
        return action


def _json_default(obj):
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).decode("latin-1")
    return str(obj)


def _report(topic):
    def delivered(err, msg):
        if err is not None:
            log.error("Could not produce message to DLQ topic %s: %s", topic, err)

    return delivered
