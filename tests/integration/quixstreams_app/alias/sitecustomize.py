"""Makes ``confluent_kafka`` and every ``confluent_kafka.*`` module resolve to
``confluent_binding``'s, for a whole process: a directory holding this file is put first on the
PYTHONPATH of a program written for confluent-kafka (here quixstreams), which then runs on the
binding unchanged even where confluent-kafka itself is installed."""

import importlib
import importlib.abc
import importlib.util
import sys

ALIAS = "confluent_kafka"
TARGET = "confluent_binding"


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``confluent_kafka[.x]`` before the path finders do; loading it imports
    ``confluent_binding[.x]`` and puts that very module in sys.modules under the alias (the
    import system returns what sys.modules holds after exec_module)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == ALIAS or fullname.startswith(ALIAS + "."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        sys.modules[name] = importlib.import_module(TARGET + name[len(ALIAS):])


sys.meta_path.insert(0, _Alias())
