"""Every public name of every module of the installed aiokafka 0.14 exists under
confluent_binding.aiokafka at the same import path, except what is listed below with the reason
it cannot exist on librdkafka (docs/guides/migrating-from-aiokafka.md says the same)."""
import importlib
import pkgutil
import types

from tests.support.aiokafka_peer import real_aiokafka

aiokafka = real_aiokafka()

# aiokafka's modules that implement what librdkafka implements in C: the wire protocol, the
# record formats, the connections, the fetcher, the group and transaction coordinators
MODULES_NOT_OFFERED = {
    "aiokafka.protocol": "the Kafka wire protocol is librdkafka's",
    "aiokafka.record": "record batches are encoded and decoded by librdkafka",
    "aiokafka.conn": "librdkafka owns the broker connections",
    "aiokafka.cluster": "librdkafka keeps the cluster metadata (ask list_topics/describe_*)",
    "aiokafka.codec": "compression is librdkafka's (compression_type picks the codec)",
    "aiokafka.consumer.fetcher": "librdkafka fetches",
    "aiokafka.consumer.group_coordinator": "librdkafka runs the group protocol",
    "aiokafka.consumer.subscription_state": "librdkafka tracks the subscription",
    "aiokafka.producer.message_accumulator": "librdkafka batches records",
    "aiokafka.producer.sender": "librdkafka sends the batches",
    "aiokafka.producer.transaction_manager": "librdkafka runs the transaction protocol",
    "aiokafka.coordinator.protocol": "librdkafka encodes the group member metadata",
    "aiokafka.coordinator.assignors.sticky": ("librdkafka has no eager sticky assignor; "
                                              "cooperative-sticky through extra"),
}
# single names of offered modules
NAMES_NOT_OFFERED = {}


def _not_offered_module(name):
    return any(name == m or name.startswith(m + ".") for m in MODULES_NOT_OFFERED)


def _modules():
    names = ["aiokafka"]
    for info in pkgutil.walk_packages(aiokafka.__path__, "aiokafka."):
        if "._" not in info.name and not _not_offered_module(info.name):
            names.append(info.name)
    return sorted(names)


def public_names(module):
    """__all__, plus the classes and functions the module defines and its plain constants."""
    names = set(getattr(module, "__all__", ()))
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if getattr(value, "__module__", None) == module.__name__:
            names.add(name)
        elif isinstance(value, (int, float, str, bytes, tuple, frozenset)) and \
                not isinstance(value, type):
            names.add(name)
    return names


def coverage():
    """{aiokafka module: (its public names, the ones missing here)}."""
    out = {}
    for name in _modules():
        theirs = importlib.import_module(name)
        ours_name = "confluent_binding.aiokafka" + name[len("aiokafka"):]
        try:
            ours = importlib.import_module(ours_name)
        except ImportError:
            ours = None
        names = public_names(theirs)
        missing = {n for n in names if ours is None or not hasattr(ours, n)}
        out[name] = (names, missing - {n.split(":")[1] for n in NAMES_NOT_OFFERED
                                       if n.split(":")[0] == name})
    return out


def test_every_public_name_of_aiokafka_exists_here():
    missing = {m: sorted(miss) for m, (_, miss) in coverage().items() if miss}
    assert not missing


def test_the_not_offered_lists_name_only_what_aiokafka_has():
    for module in MODULES_NOT_OFFERED:
        importlib.import_module(module)
    for entry in NAMES_NOT_OFFERED:
        module, name = entry.split(":")
        assert hasattr(importlib.import_module(module), name), entry


def test_aiokafka_is_the_version_compared():
    assert aiokafka.__version__.startswith("0.14")


def test_every_public_name_here_has_a_docstring():
    import inspect

    import confluent_binding.aiokafka as package

    modules = [package] + [importlib.import_module(m.name) for m in pkgutil.walk_packages(
        package.__path__, package.__name__ + ".") if "._" not in m.name]
    undocumented = []
    for module in modules:
        if not module.__doc__:
            undocumented.append(module.__name__)
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if not (inspect.isclass(value) or inspect.isfunction(value)):
                continue
            if not value.__doc__:
                undocumented.append("%s.%s" % (module.__name__, name))
            for attr, member in (vars(value).items() if inspect.isclass(value) else ()):
                func = member.fget if isinstance(member, property) else getattr(
                    member, "__func__", member)
                if not attr.startswith("_") and inspect.isfunction(func) and not func.__doc__:
                    undocumented.append("%s.%s.%s" % (module.__name__, name, attr))
    assert not undocumented
