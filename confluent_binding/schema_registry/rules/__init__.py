"""Rule executors and actions for data-contract rules (extra ``[rules]``).

- :mod:`.cel`: ``CEL`` (an expression over the whole ``message``) and ``CEL_FIELD`` (over each
  selected field's ``value``), with cel-python;
- :mod:`.jsonata`: ``JSONATA`` transforms (migrations between versions), with jsonata-python;
- :mod:`.dlq`: the ``DLQ`` action, which produces a failing record to a dead-letter topic;
- :mod:`.encryption`: ``ENCRYPT`` (tagged fields) and ``ENCRYPT_PAYLOAD`` (the encoded record),
  with Google's Tink (extra ``[encryption]``), and the KMS drivers and DEK Registry they use.

Each has a ``register()`` class method that adds it to the global
:class:`~confluent_binding.schema_registry.rule_registry.RuleRegistry`.
"""
