"""How each module of ``schema_registry.common`` offers the names of its namesake one level
up."""


def _mirror(module_globals, target):
    """Make a module offer every public name of ``target`` (resolved when asked for)."""

    def __getattr__(name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return getattr(target, name)
        except AttributeError:
            raise AttributeError("module %r has no attribute %r"
                                 % (module_globals["__name__"], name)) from None

    def __dir__():
        return sorted(set(module_globals) | {n for n in dir(target) if not n.startswith("_")})

    module_globals["__getattr__"] = __getattr__
    module_globals["__dir__"] = __dir__


#: what confluent-kafka's ``common.avro`` and ``common.json_schema`` import for their inline
#: validation rules (and so offer too)
_VALIDATION_NAMES = ("VALIDATION_RULES_PROP", "evaluate_validation_rule", "parse_validation_rules")


def _offer(module_globals, source, names):
    """Make a module offer ``names`` of ``source`` besides (what confluent-kafka's namesake
    imports for its own use)."""
    module_globals.update((name, getattr(source, name)) for name in names)
