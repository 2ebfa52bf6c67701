"""A Schema Registry client that gives registered schemas back with their rule sets.

The registry the tests run (Apicurio Registry's Confluent-compatible API, ccompat v7) accepts a
schema's ``ruleSet`` and ``metadata`` when one registers it but neither stores nor returns them
(a registered schema comes back as its text, type and references only). ``RulesOverlay`` is the
real client (ours, or confluent-kafka's for the side-by-side runs) with the schemas registered
through :meth:`register_with_rules` given back with their ``ruleSet``/``metadata`` by
``get_latest_version``, ``get_schema``, ``lookup_schema`` and ``get_version``, keyed by the id and
version the registry gave. Everything else is the registry's.
"""

_OVERLAYS = {}


def overlay_class(base):
    """``base`` (a SchemaRegistryClient class) with registered rule sets put back (see the
    module's docstring)."""
    if base in _OVERLAYS:
        return _OVERLAYS[base]

    class RulesOverlay(base):
        def __init__(self, conf):
            super().__init__(conf)
            self.by_id = {}
            self.by_version = {}

        def register_with_rules(self, subject, schema):
            registered = self.register_schema_full_response(subject, schema)
            version = self.lookup_schema(subject, schema).version
            self.by_id[registered.schema_id] = schema
            self.by_version[(subject, version)] = schema
            return registered.schema_id, version

        def _with_rules(self, schema, kept):
            if kept is None:
                return schema
            return type(schema)(schema.schema_str, schema.schema_type, schema.references,
                                kept.metadata, kept.rule_set)

        def _registered(self, registered):
            kept = self.by_version.get((registered.subject, registered.version))
            return type(registered)(subject=registered.subject, version=registered.version,
                                    schema_id=registered.schema_id, guid=registered.guid,
                                    schema=self._with_rules(registered.schema, kept))

        def get_schema(self, schema_id, *args, **kwargs):
            schema = super().get_schema(schema_id, *args, **kwargs)
            return self._with_rules(schema, self.by_id.get(schema_id))

        def get_latest_version(self, *args, **kwargs):
            return self._registered(super().get_latest_version(*args, **kwargs))

        def get_version(self, *args, **kwargs):
            return self._registered(super().get_version(*args, **kwargs))

        def lookup_schema(self, *args, **kwargs):
            return self._registered(super().lookup_schema(*args, **kwargs))

    _OVERLAYS[base] = RulesOverlay
    return RulesOverlay
