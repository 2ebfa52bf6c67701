"""Import aliases: ``confluent_kafka`` (and every ``confluent_kafka.x``) or ``aiokafka`` resolving
to this package's modules, for code you do not own (PyMySQL's ``install_as_MySQLdb()`` is the
convention).

An alias is a finder first on ``sys.meta_path``: importing ``confluent_kafka.admin`` imports
``confluent_binding.admin`` and puts that very module in ``sys.modules`` under both names, so
``confluent_kafka.admin is confluent_binding.admin``; nothing is imported before it is asked for.
A name with no counterpart here is not found, as any missing module.

Three ways to install one: ``confluent_binding.install_as_confluent_kafka()`` (or
``install_as_aiokafka()``) before the first ``import confluent_kafka``; the environment variable
``CONFLUENT_BINDING_AS=confluent_kafka,aiokafka``, read at interpreter start by the
``confluent_binding_alias.pth`` file the wheel installs; or ``python -m confluent_binding run
app.py`` (``--as aiokafka``, ``-m module``).

This module imports only the standard library; the ``.pth`` file imports the package only when
the variable is set.
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys
import warnings

#: The names an alias may take, and the module each resolves to.
ALIASES = {"confluent_kafka": "confluent_binding", "aiokafka": "confluent_binding.aiokafka"}

#: The environment variable the ``.pth`` file reads: alias names, separated by commas.
ENVIRONMENT_VARIABLE = "CONFLUENT_BINDING_AS"


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``alias`` and ``alias.*``; loading one imports its counterpart under ``target`` and
    leaves that module in ``sys.modules`` under the alias's name (the import system returns
    what ``sys.modules`` holds once ``exec_module`` is done)."""

    def __init__(self, alias, target):
        self.alias = alias
        self.target = target

    def _target_of(self, fullname):
        if fullname == self.alias:
            return self.target
        if fullname.startswith(self.alias + "."):
            return self.target + fullname[len(self.alias):]
        return None

    def find_spec(self, fullname, path=None, target=None):
        name = self._target_of(fullname)
        if name is None:
            return None
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            return None     # no counterpart: the import fails as for any missing module
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None     # a placeholder; exec_module replaces it

    def exec_module(self, module):
        name = module.__name__
        sys.modules[name] = importlib.import_module(self._target_of(name))

    def __repr__(self):
        return "<alias %s -> %s>" % (self.alias, self.target)


def install(alias):
    """Make ``import alias`` (and ``alias.*``) resolve to this package's counterpart. Installing
    an alias twice is harmless; installing one after the real package was imported is an error
    (code holding its modules would mix two libraries)."""
    if alias not in ALIASES:
        raise ValueError("no alias %r: the aliases are %s" % (alias, ", ".join(sorted(ALIASES))))
    target = ALIASES[alias]
    for finder in sys.meta_path:
        if isinstance(finder, _AliasFinder) and finder.alias == alias:
            return
    loaded = sys.modules.get(alias)
    if loaded is not None and not getattr(loaded, "__name__", "").startswith(target):
        raise RuntimeError("%s was imported before its alias was installed: install it first "
                           "(or set %s=%s)" % (alias, ENVIRONMENT_VARIABLE, alias))
    sys.meta_path.insert(0, _AliasFinder(alias, target))


def installed():
    """The aliases installed in this process."""
    return [f.alias for f in sys.meta_path if isinstance(f, _AliasFinder)]


def names_from(value):
    """The alias names of an environment variable's value ("confluent_kafka, aiokafka")."""
    return [name for name in value.replace(",", " ").split()]


def install_from_environment():
    """Install the aliases ``CONFLUENT_BINDING_AS`` names (the ``.pth`` file's call); a name
    that is no alias is skipped with a warning."""
    for name in names_from(os.environ.get(ENVIRONMENT_VARIABLE, "")):
        if name in ALIASES:
            install(name)
        else:
            warnings.warn("%s: no alias %r (the aliases are %s)"
                          % (ENVIRONMENT_VARIABLE, name, ", ".join(sorted(ALIASES))),
                          RuntimeWarning, stacklevel=2)
