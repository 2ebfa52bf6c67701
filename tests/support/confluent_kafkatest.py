"""Runs confluent-kafka's own kafkatest client (``producer`` or ``consumer``) with the given
arguments, for side-by-side runs with confluent_binding.kafkatest.

confluent-kafka 2.16's kafkatest scripts cannot run on Python 3 as shipped: they import their
sibling ``verifiable_client`` as a top-level module and iterate the parsed arguments with
``dict.iteritems``. This runner puts their folder on ``sys.path`` and hands ``set_config`` a dict
that has ``iteritems``; nothing else of theirs changes.

    python -m tests.support.confluent_kafkatest producer --topic T --broker-list HOST:PORT
"""

import os
import runpy
import sys

import confluent_kafka


class _ArgsDict(dict):
    def iteritems(self):
        return iter(self.items())


def main():
    role, argv = sys.argv[1], sys.argv[2:]
    folder = os.path.join(os.path.dirname(confluent_kafka.__file__), "kafkatest")
    sys.path.insert(0, folder)
    import verifiable_client

    set_config = verifiable_client.VerifiableClient.set_config
    verifiable_client.VerifiableClient.set_config = staticmethod(
        lambda conf, args: set_config(conf, _ArgsDict(args)))
    script = os.path.join(folder, "verifiable_%s.py" % role)
    sys.argv = [script] + argv
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
