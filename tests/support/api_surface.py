"""confluent-kafka's public modules and names next to confluent_binding's.

The docs page "confluent-kafka's API, name by name" (docs/reference/confluent-kafka-api.md)
shows this module's output, generated at each docs build (docs/generated.py; also
``python -m tests.support.api_surface``); tests/unit/test_api_surface.py checks that every
public name of confluent-kafka's modules exists in ours (but for the gaps listed here, each with
its reason) and that the page includes the generated table.

A module's public names are those its ``__all__`` lists and what ``dir()`` shows of it, without
a leading underscore (``__all__`` is not the limit: a name outside it, such as a type alias or a
re-export, is as importable), but for what ``dir()`` shows that is not confluent-kafka's own:
the objects of ``typing`` itself (``Optional``, ``Any``, ...), type variables, a class or
function defined outside confluent-kafka, and any name a module imports from outside
confluent-kafka (read from its source: ``from decimal import MAX_PREC``). Type aliases it
defines (``HeadersType``) and names it imports from its other modules count. Modules are not
names here: tests/unit/test_api_surface.py checks that every module has its counterpart, and
that a package's import loads the submodules confluent-kafka's does.
"""

import ast
import importlib
import importlib.util
import pkgutil
import types
import typing

#: confluent-kafka's modules and, for each, the module of ours that stands for it.
MODULES = [
    "confluent_kafka",
    "confluent_kafka.cimpl",
    "confluent_kafka.error",
    "confluent_kafka.admin",
    "confluent_kafka.serialization",
    "confluent_kafka.serializing_producer",
    "confluent_kafka.deserializing_consumer",
    "confluent_kafka.deserializing_share_consumer",
    "confluent_kafka.aio",
    "confluent_kafka.aio.producer",
    "confluent_kafka.schema_registry",
    "confluent_kafka.schema_registry.schema_registry_client",
    "confluent_kafka.schema_registry.error",
    "confluent_kafka.schema_registry.serde",
    "confluent_kafka.schema_registry.avro",
    "confluent_kafka.schema_registry.json_schema",
    "confluent_kafka.schema_registry.protobuf",
    "confluent_kafka.avro",
    "confluent_kafka.avro.cached_schema_registry_client",
    "confluent_kafka.avro.error",
    "confluent_kafka.avro.load",
    "confluent_kafka.avro.serializer",
    "confluent_kafka.avro.serializer.message_serializer",
    "confluent_kafka.schema_registry.common",
    "confluent_kafka.schema_registry.common.avro",
    "confluent_kafka.schema_registry.common.json_schema",
    "confluent_kafka.schema_registry.common.protobuf",
    "confluent_kafka.schema_registry.common.schema_registry_client",
    "confluent_kafka.schema_registry.common.serde",
    "confluent_kafka.schema_registry.confluent",
    "confluent_kafka.schema_registry.confluent.meta_pb2",
    "confluent_kafka.schema_registry.confluent.type",
    "confluent_kafka.schema_registry.confluent.type.decimal_pb2",
    "confluent_kafka.schema_registry.confluent.type.decimal_utils",
    "confluent_kafka.schema_registry.confluent.type.variant_pb2",
    "confluent_kafka.schema_registry.confluent.type.variant_utils",
    "confluent_kafka.schema_registry.confluent.types",
    "confluent_kafka.schema_registry.confluent.types.decimal_pb2",
    "confluent_kafka.kafkatest",
    "confluent_kafka.kafkatest.verifiable_client",
    "confluent_kafka.kafkatest.verifiable_producer",
    "confluent_kafka.kafkatest.verifiable_consumer",
    "confluent_kafka.schema_registry.rule_registry",
    "confluent_kafka.schema_registry.wildcard_matcher",
    "confluent_kafka.schema_registry.rules.cel.cel_executor",
    "confluent_kafka.schema_registry.rules.cel.cel_field_executor",
    "confluent_kafka.schema_registry.rules.cel.cel_validator",
    "confluent_kafka.schema_registry.rules.cel.extra_func",
    "confluent_kafka.schema_registry.rules.cel.cel_field_presence",
    "confluent_kafka.schema_registry.rules.cel.constraints",
    "confluent_kafka.schema_registry.rules.cel.decimal_funcs",
    "confluent_kafka.schema_registry.rules.cel.protobuf_result_writer",
    "confluent_kafka.schema_registry.rules.cel.string_format",
    "confluent_kafka.schema_registry.rules.cel.timestamp_funcs",
    "confluent_kafka.schema_registry.rules.cel.variant_funcs",
    "confluent_kafka.schema_registry.rules.cel.variant_path",
    "confluent_kafka.schema_registry.rules.jsonata.jsonata_executor",
    "confluent_kafka.schema_registry.rules.dlq.dlq_action",
    "confluent_kafka.schema_registry.rules.encryption.encrypt_executor",
    "confluent_kafka.schema_registry.rules.encryption.kms_driver_registry",
    "confluent_kafka.schema_registry.rules.encryption.dek_registry.dek_registry_client",
    "confluent_kafka.schema_registry.rules.encryption.dek_registry.mock_dek_registry_client",
    "confluent_kafka.schema_registry.rules.encryption.localkms.local_client",
    "confluent_kafka.schema_registry.rules.encryption.localkms.local_driver",
    "confluent_kafka.schema_registry.rules.encryption.awskms.aws_driver",
    "confluent_kafka.schema_registry.rules.encryption.azurekms.azure_aead",
    "confluent_kafka.schema_registry.rules.encryption.azurekms.azure_client",
    "confluent_kafka.schema_registry.rules.encryption.azurekms.azure_driver",
    "confluent_kafka.schema_registry.rules.encryption.gcpkms.gcp_client",
    "confluent_kafka.schema_registry.rules.encryption.gcpkms.gcp_driver",
    "confluent_kafka.schema_registry.rules.encryption.hcvault.hcvault_client",
    "confluent_kafka.schema_registry.rules.encryption.hcvault.hcvault_driver",
]

#: confluent-kafka's packages that hold only modules (no public names of their own): ours exist.
PACKAGES = [
    "confluent_kafka.schema_registry.rules",
    "confluent_kafka.schema_registry.rules.cel",
    "confluent_kafka.schema_registry.rules.jsonata",
    "confluent_kafka.schema_registry.rules.dlq",
    "confluent_kafka.schema_registry.rules.encryption",
    "confluent_kafka.schema_registry.rules.encryption.dek_registry",
    "confluent_kafka.schema_registry.rules.encryption.localkms",
    "confluent_kafka.schema_registry.rules.encryption.awskms",
    "confluent_kafka.schema_registry.rules.encryption.azurekms",
    "confluent_kafka.schema_registry.rules.encryption.gcpkms",
    "confluent_kafka.schema_registry.rules.encryption.hcvault",
]


#: confluent-kafka's modules that have no counterpart here, and why.
NOT_MIRRORED_MODULES = {}


#: Public names of the modules above that confluent_binding does not have, and why.
_IMPORTED = ("imported there from another of confluent-kafka's modules for the module's own "
             "use; here in that module")
_INTERNAL = "a constant, logger or helper of confluent-kafka's implementation"
GAPS = {
    "confluent_kafka.schema_registry.common.avro": {
        **dict.fromkeys(["RuleConditionError", "RuleKind", "ValidationRule", "Variant"],
                        _IMPORTED),
        "AVRO_TYPE": _INTERNAL},
    "confluent_kafka.schema_registry.common.json_schema": {
        **dict.fromkeys(["RuleConditionError", "RuleKind", "ValidationRule"], _IMPORTED),
        "JSON_TYPE": _INTERNAL},
    "confluent_kafka.schema_registry.common.protobuf": {
        **dict.fromkeys(["DECIMAL_TYPE_NAME", "MAX_ENCODABLE_COEFFICIENT_DIGITS",
                         "PROTOBUF_MAJOR_VERSION", "PROTOBUF_TYPE", "TIMESTAMP_TYPE_NAME",
                         "is_cel_leaf_message", "rebuild_value_type", "set_decimal_message",
                         "set_timestamp_message"], _INTERNAL)},
    "confluent_kafka.schema_registry.common.serde": {
        **dict.fromkeys(["RegisteredSchema", "Rule", "RuleKind", "RuleMode", "Schema",
                         "SerializationContext", "wildcard_match"], _IMPORTED),
        "log": _INTERNAL},
    "confluent_kafka.schema_registry.rules.cel.cel_field_executor": {"FieldTransform": _IMPORTED},
    "confluent_kafka.schema_registry.rules.cel.protobuf_result_writer": {
        "MAX_ENCODABLE_COEFFICIENT_DIGITS": _INTERNAL},
    "confluent_kafka.schema_registry.rules.cel.variant_path": {"Segment": _INTERNAL},
    "confluent_kafka.schema_registry.rules.dlq.dlq_action": dict.fromkeys(
        ["FieldContext", "Producer"], _IMPORTED),
}


def _common_gaps():
    """schema_registry.common's modules offer the names of their namesakes one level up: the
    same gaps, for the names they share."""
    prefix = "confluent_kafka.schema_registry.common."
    for name in MODULES:
        if name.startswith(prefix):
            shared = set(confluent_names(name))
            namesake = GAPS.get("confluent_kafka.schema_registry." + name[len(prefix):], {})
            gaps = {n: why for n, why in namesake.items() if n in shared}
            if gaps:
                GAPS[name] = gaps


def ours(module_name):
    return "confluent_binding" + module_name[len("confluent_kafka"):]


def _typing_object(name, value):
    """typing's own objects (a type alias a module defines is not one), and type variables."""
    return (isinstance(value, typing.TypeVar) or value is typing.TYPE_CHECKING
            or getattr(typing, name, None) is value)


def _imported_from_elsewhere(module):
    """The names a Python module's source imports at its top level (also under ``if`` and
    ``try``) from outside confluent-kafka."""
    path = getattr(module, "__file__", None) or ""
    if not path.endswith(".py"):
        return set()
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    found = set()

    def visit(body):
        for node in body:
            if isinstance(node, ast.Import):
                found.update(alias.asname or alias.name.split(".")[0] for alias in node.names
                             if not alias.name.startswith("confluent_kafka"))
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0 and not (node.module or "").startswith("confluent_kafka"):
                    found.update(alias.asname or alias.name for alias in node.names)
            elif isinstance(node, (ast.If, ast.Try)):
                for part in (node.body, node.orelse, getattr(node, "finalbody", []),
                             *[h.body for h in getattr(node, "handlers", [])]):
                    visit(part)

    visit(tree.body)
    return found


def _from_elsewhere(value):
    module = getattr(value, "__module__", None)
    if not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        return False
    return module is not None and module != "cimpl" and not module.startswith("confluent_kafka")


def _source_names(name):
    """The public names of a confluent-kafka module that cannot be imported (its kafkatest
    scripts import their sibling as a top-level module), read from its source: what it defines
    and what it imports from confluent_kafka."""
    tree = ast.parse(open(importlib.util.find_spec(name).origin).read())
    found = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("confluent_kafka"):
            found.update(a.asname or a.name for a in node.names)
    return sorted(n for n in found if not n.startswith("_"))


def confluent_names(name):
    try:
        module = importlib.import_module(name)
    except ImportError:
        return _source_names(name)
    return public_names(module)


def public_names(module):
    elsewhere = _imported_from_elsewhere(module)
    # what __all__ names is public whatever its origin (schema_registry.error's fastavro
    # exceptions, the top-level package's submodules)
    found = [n for n in getattr(module, "__all__", ()) if not n.startswith("_")]
    for name in dir(module):
        if name.startswith("_") or name in elsewhere:
            continue
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            continue
        if _typing_object(name, value) or _from_elsewhere(value):
            continue
        found.append(name)
    if not found and hasattr(module, "__path__"):  # a package of modules only (kafkatest)
        found = [m.name for m in pkgutil.iter_modules(module.__path__)
                 if not m.name.startswith("_")]
    return sorted(set(found))


_common_gaps()


def surface():
    """[(confluent module, its public names, the names our module lacks)]"""
    rows = []
    for name in MODULES:
        theirs = confluent_names(name)
        try:
            mine = importlib.import_module(ours(name))
        except ImportError:
            rows.append((name, theirs, theirs))
            continue
        rows.append((name, theirs, [n for n in theirs if not _has(mine, n)]))
    return rows


def _has(module, name):
    if hasattr(module, name):
        return True
    try:  # a subpackage named in __all__ (confluent_kafka's "aio")
        importlib.import_module(module.__name__ + "." + name)
    except ImportError:
        return False
    return True


def _names(names):
    return ", ".join("`%s`" % n for n in names)


def render():
    """The docs page's table: every module, its names, and what is not here with the reason."""
    rows = surface()
    out = ["| confluent-kafka 2.16 | public names | in confluent_binding | not in "
           "confluent_binding |", "|---|--:|--:|---|"]
    for name, theirs, missing in rows:
        gaps = GAPS.get(name, {})
        reasons = {}
        for n in missing:
            reasons.setdefault(gaps.get(n, "MISSING"), []).append(n)
        cell = "; ".join("%s (%s)" % (_names(ns), why) for why, ns in reasons.items()) or "-"
        out.append("| `%s` | %d | %d | %s |" % (name, len(theirs), len(theirs) - len(missing),
                                                cell))
    for name, why in NOT_MIRRORED_MODULES.items():
        out.append("| `%s.*` | | | the module (%s) |" % (name, why))
    out.append("")
    out.append("<details><summary>Every name, module by module (all present in "
               "confluent_binding but for those in the table)</summary>")
    out.append("")
    for name, theirs, _missing in rows:
        out.append("- `%s`: %s" % (name, _names(theirs)))
    out.append("")
    out.append("</details>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
