"""OpenTelemetry's confluent-kafka instrumentation on an application that has this package
and not confluent-kafka: ``ConfluentKafkaInstrumentor().instrument()`` checks that the
``confluent-kafka`` distribution is installed and, finding none, logs an error and instruments
nothing; ``instrument(skip_dep_check=True)`` (the observability guide's one-line workaround)
instruments the clients the ``confluent_kafka`` alias gives, and a produce against the real
broker gives its span.

The child process runs on a view of the virtual environment without confluent-kafka: a
directory of links to every entry of site-packages except confluent-kafka's package and
metadata, added as a site directory to an interpreter started without its own (``-S``).
(test_otel_confluent_kafka.py runs the instrumentation with confluent-kafka installed.)
"""
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

if sys.version_info < (3, 10):
    pytest.skip("opentelemetry-instrumentation-confluent-kafka 0.66b1 needs Python 3.10+",
                allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]

CHILD = r'''
import json, logging, site, sys
site.addsitedir(sys.argv[1])
sys.path.insert(0, sys.argv[2])
import importlib.util
assert importlib.util.find_spec("confluent_kafka") is None, "confluent-kafka is visible"
import confluent_binding
confluent_binding.install_as_confluent_kafka()
import confluent_kafka
from opentelemetry.instrumentation.confluent_kafka import ConfluentKafkaInstrumentor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

errors = []
class Keep(logging.Handler):
    def emit(self, record):
        errors.append(record.getMessage())
logging.getLogger("opentelemetry").addHandler(Keep(logging.ERROR))

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
original = confluent_kafka.Producer
ConfluentKafkaInstrumentor().instrument(tracer_provider=provider)
unchanged = confluent_kafka.Producer is original
ConfluentKafkaInstrumentor().instrument(tracer_provider=provider, skip_dep_check=True)
replaced = confluent_kafka.Producer is not original
p = confluent_kafka.Producer({"bootstrap.servers": sys.argv[3]})
reports = []
p.produce(sys.argv[4], b"traced", on_delivery=lambda err, msg: reports.append(err))
assert p.flush(30) == 0
sends = [s for s in exporter.get_finished_spans() if s.kind.name == "PRODUCER"]
c = confluent_kafka.Consumer({"bootstrap.servers": sys.argv[3], "group.id": "t"})
c.assign([confluent_kafka.TopicPartition(sys.argv[4], 0, 0)])
m = None
for _ in range(60):
    m = c.poll(1.0)
    if m is not None:
        break
assert m is not None and m.error() is None, m
c.close()
print(json.dumps({"unchanged": unchanged, "replaced": replaced, "errors": errors,
                  "delivered": [e is None for e in reports],
                  "headers": [(k, v.decode()) for k, v in (m.headers() or [])],
                  "spans": [(s.name, s.kind.name, dict(s.attributes),
                             "%032x" % s.context.trace_id, "%016x" % s.context.span_id)
                            for s in sends]}))
'''


def _site_without_confluent_kafka(tmp_path):
    site_packages = Path(sysconfig.get_paths()["purelib"])
    view = tmp_path / "site"
    view.mkdir()
    for entry in site_packages.iterdir():
        name = entry.name.lower()
        if name == "confluent_kafka" or name.startswith("confluent_kafka-"):
            continue
        os.symlink(entry, view / entry.name)
    return view


def test_instrumentation_needs_skip_dep_check_without_confluent_kafka(kafka_cluster,
                                                                      make_topic, tmp_path):
    if kafka_cluster.client_config() != {"bootstrap.servers": kafka_cluster.bootstrap_servers}:
        pytest.skip("the child program takes bootstrap servers only")
    topic = make_topic()
    view = _site_without_confluent_kafka(tmp_path)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CONFLUENT_BINDING_AS")}
    proc = subprocess.run([sys.executable, "-S", "-c", CHILD, str(view), str(ROOT),
                           kafka_cluster.bootstrap_servers, topic],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["unchanged"] is True and out["replaced"] is True
    assert any("confluent-kafka" in e for e in out["errors"]), out["errors"]
    assert out["delivered"] == [True]
    assert [(name, kind) for name, kind, *_ in out["spans"]] == [("%s send" % topic, "PRODUCER")]
    name, kind, attrs, trace_id, span_id = out["spans"][0]
    # the send span's context travels in the record, as W3C traceparent
    [(header, traceparent)] = out["headers"]
    version, trace, parent, flags = traceparent.split("-")
    assert (header, version, trace, parent) == ("traceparent", "00", trace_id, span_id)
    assert int(flags, 16) & 1                           # sampled
    assert attrs["messaging.system"] == "kafka"
    assert attrs["messaging.destination"] == topic      # the instrumentation's (older) name
