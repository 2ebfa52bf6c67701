"""What the OpenTelemetry programs in this folder and their tests share.

The programs (run as scripts, so this folder is first on ``sys.path``) collect their spans with
:func:`in_memory_tracing` and print them with :func:`span_dict`; the tests
(``tests/integration/test_otel_*.py``) run a program with :func:`run_program` and compare the
shapes of two runs with :func:`replace_names`.
"""

import json
import os
import subprocess
import sys

RUN_TIMEOUT = 120


def in_memory_tracing():
    """A tracer provider whose finished spans go to the SDK's in-memory exporter:
    ``(provider, exporter)``."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def span_dict(span):
    """A finished span as JSON: name, kind, its own and its parent's (trace id, span id), its
    attributes and the (trace id, span id) of each link."""
    def ids(context):
        return [format(context.trace_id, "032x"), format(context.span_id, "016x")]

    return {
        "name": span.name,
        "kind": span.kind.name,
        "context": ids(span.context),
        "parent": ids(span.parent) if span.parent else None,
        "attributes": dict(span.attributes),
        "links": [ids(link.context) for link in span.links],
    }


def run_program(program, args, alias=()):
    """Run ``program`` with ``args`` in a child Python (``alias``: the arguments that put
    confluent_binding in the place of the library it was written for, e.g. ``["-m",
    "confluent_binding", "run"]``; none for the library itself) and return the JSON object of
    its last line of output."""
    env = {k: v for k, v in os.environ.items() if k != "CONFLUENT_BINDING_AS"}
    proc = subprocess.run([sys.executable, *alias, str(program), *args],
                          env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, "the program exited with %d:\n%s" % (
        proc.returncode, proc.stderr[-6000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def replace_names(shape, names):
    """``shape`` (anything JSON can hold) with each name in ``names`` (old -> new) replaced
    wherever it stands in a string, tuples read as lists."""
    text = json.dumps(shape)
    for old, new in names.items():
        text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
    return json.loads(text)
