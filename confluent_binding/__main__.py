"""``python -m confluent_binding run [--as NAMES] (SCRIPT | -m MODULE) [ARGS...]``

Runs a program written for confluent-kafka (or aiokafka) on confluent_binding, unchanged: the
import aliases NAMES (comma-separated; ``confluent_kafka`` unless told) are installed, then the
script or module runs as ``__main__`` with the arguments after it, as ``python SCRIPT ARGS`` or
``python -m MODULE ARGS`` would run it.
"""

import os
import runpy
import sys

from . import _alias

USAGE = ("usage: python -m confluent_binding run [--as NAMES] (SCRIPT | -m MODULE) [ARGS...]\n"
         "  NAMES: the import aliases to install, comma-separated, of: %s (default: "
         "confluent_kafka)" % ", ".join(sorted(_alias.ALIASES)))


def _fail(message):
    print("python -m confluent_binding: %s\n%s" % (message, USAGE), file=sys.stderr)
    return 2


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] != "run":
        return _fail("unknown command %r" % argv[0])
    rest = argv[1:]
    names = ["confluent_kafka"]
    while rest and rest[0].startswith("--as"):
        if rest[0] == "--as" and len(rest) > 1:
            value, rest = rest[1], rest[2:]
        elif rest[0].startswith("--as="):
            value, rest = rest[0][len("--as="):], rest[1:]
        else:
            return _fail("--as needs alias names")
        names = _alias.names_from(value)
    unknown = [n for n in names if n not in _alias.ALIASES]
    if unknown:
        return _fail("no alias %s" % ", ".join(map(repr, unknown)))
    if rest[:1] == ["-m"] and len(rest) > 1:
        for name in names:
            _alias.install(name)
        sys.argv = [rest[1]] + rest[2:]     # run_module puts the module's path first
        runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
        return 0
    if not rest or rest[0].startswith("-"):
        return _fail("a script or -m MODULE is needed")
    for name in names:
        _alias.install(name)
    script = rest[0]
    sys.argv = rest[:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
