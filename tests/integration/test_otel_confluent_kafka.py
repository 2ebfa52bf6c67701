"""OpenTelemetry's confluent-kafka instrumentation (opentelemetry-instrumentation-confluent-kafka),
unmodified, on confluent_binding: both of its ways in (``instrument()``, which puts its subclasses
of ``Producer`` and ``Consumer`` in ``confluent_kafka``'s place, and ``instrument_producer()`` /
``instrument_consumer()``, whose proxy subclasses wrap a client made before) give produce and
consume spans with the attributes the instrumentation sets, the trace context travels in the
records' headers, and each consume span links to the produce span of its records.

The program (otel_app/confluent_spans.py) runs in a child process through the ``confluent_kafka``
alias, against the real broker, and, for reference, on confluent-kafka itself: the spans have
the same shape on both.
"""

import json
import sys
import uuid
from pathlib import Path

import pytest

from tests.integration.otel_app.otel_common import replace_names, run_program

OTEL_INSTRUMENTATION_VERSION = "0.66b1"
if sys.version_info < (3, 10):
    pytest.skip("opentelemetry-instrumentation-confluent-kafka %s needs Python 3.10+"
                % OTEL_INSTRUMENTATION_VERSION, allow_module_level=True)

PROGRAM = Path(__file__).with_name("otel_app") / "confluent_spans.py"
# what the program produces: (key, value, app headers)
RECORDS = [("k-0", "v-0", {}), ("k-1", "v-1", {"app": "list"}), ("k-2", "v-2", {"app": "dict"}),
           (None, "v-3", {})]
POLLED = 2      # read with poll(); the rest with consume()


def _run(client, mode, cluster, topic):
    alias = ["-m", "confluent_binding", "run"] if client == "confluent_binding" else []
    return run_program(PROGRAM, [mode, cluster.bootstrap_servers, topic,
                                 "otel-" + uuid.uuid4().hex[:8]], alias)


def _traceparent(span):
    """The W3C traceparent of a span, without its flags."""
    return "00-%s-%s" % tuple(span["context"])


def _shape(result, topic):
    """The spans with their ids replaced by what they point at (the index of the produce span
    a link names, the name of a parent); the spans of consume() merged, since how many records
    one consume() call returns is the broker's timing."""
    spans = result["spans"]
    by_id = {tuple(s["context"]): s for s in spans}
    sends = [s for s in spans if s["kind"] == "PRODUCER"]
    send_index = {tuple(s["context"]): i for i, s in enumerate(sends)}
    process = [s for s in spans if s["name"] == "%s process" % topic]
    polled = [s for s in process if "messaging.kafka.partition" in s["attributes"]]
    consumed = [s for s in process if "messaging.kafka.partition" not in s["attributes"]]
    return {
        "names": sorted({s["name"] for s in spans}),
        "sends": [(s["attributes"], s["parent"]) for s in sends],
        "recv": sorted({(s["kind"], s["parent"] is None, json.dumps(s["attributes"]))
                        for s in spans if s["name"] == "recv"}),
        "polled": [(s["kind"], s["attributes"], by_id[tuple(s["parent"])]["name"],
                    [send_index[tuple(link)] for link in s["links"]]) for s in polled],
        "consumed": (sorted({json.dumps(s["attributes"], sort_keys=True) for s in consumed}),
                     sorted(send_index[tuple(link)] for s in consumed for link in s["links"])),
    }


@pytest.mark.parametrize("mode", ["auto", "proxy"])
def test_otel_confluent_kafka_spans(mode, kafka_cluster, make_topic):
    topic = make_topic()
    ours = _run("confluent_binding", mode, kafka_cluster, topic)

    assert ours["library"] == "confluent_binding"
    # the instrumentation's subclasses sit on our classes
    wrapper = {"auto": "AutoInstrumented", "proxy": "Proxied"}[mode]
    for role, name in (("producer", "Producer"), ("consumer", "Consumer")):
        mro = ours["classes"][role]
        assert mro[0] == "opentelemetry.instrumentation.confluent_kafka.%s%s" % (wrapper, name)
        assert mro[1].startswith("confluent_binding.") and mro[1].endswith("." + name), mro
    assert ours["unflushed"] == 0 and ours["delivered"] == len(RECORDS)
    assert ours["delivery_errors"] == []

    # every record arrives, in order, with the trace context the producer injected
    records = ours["records"]
    assert [(r["key"], r["value"]) for r in records] == [(k, v) for k, v, _ in RECORDS]
    assert [(r["partition"], r["offset"]) for r in records] == [(0, i) for i in range(4)]
    assert [{k: v for k, v in r["headers"].items() if k != "traceparent"}
            for r in records] == [h for _, _, h in RECORDS]

    spans = ours["spans"]
    sends = [s for s in spans if s["kind"] == "PRODUCER"]
    host, port = kafka_cluster.bootstrap_servers.split(",")[0].rsplit(":", 1)
    # the server attributes come from the configuration the instrumentation's own subclass keeps;
    # the proxies look for a `config` attribute on the client they wrap, which neither library's
    # Producer and Consumer have
    server = {"server.address": host, "server.port": int(port)} if mode == "auto" else {}
    assert [s["name"] for s in sends] == ["%s send" % topic] * len(RECORDS)
    for span in sends:
        assert span["attributes"] == {
            "messaging.system": "kafka", "messaging.destination": topic,
            "messaging.destination_kind": "queue", "messaging.operation": "publish", **server}
    assert [r["headers"]["traceparent"].rsplit("-", 1)[0] for r in records] == \
        [_traceparent(s) for s in sends]

    # poll(): one consume span per record, child of a "recv" span, linked to its produce span,
    # with partition, offset (in the message id) and the server
    shape = _shape(ours, topic)
    assert shape["polled"] == [
        ("CONSUMER", {"messaging.system": "kafka", "messaging.destination": topic,
                      "messaging.kafka.partition": 0, "messaging.destination_kind": "queue",
                      "messaging.operation": "process", **server,
                      "messaging.message.id": "%s.0.%d" % (topic, i)},
         "recv", [i]) for i in range(POLLED)]
    # consume(): the spans link to the produce spans of the rest, and carry no partition
    assert shape["consumed"] == (
        [json.dumps({"messaging.destination": topic, "messaging.destination_kind": "queue",
                     "messaging.operation": "process", "messaging.system": "kafka",
                     **server}, sort_keys=True)],
        list(range(POLLED, len(RECORDS))))
    assert shape["names"] == sorted({"%s send" % topic, "recv", "%s process" % topic})

    # the same on confluent-kafka itself
    reference = _run("reference", mode, kafka_cluster, make_topic(name=topic + "-reference"))
    assert reference["library"] == "confluent_kafka"
    assert reference["classes"]["producer"][1] == "cimpl.Producer"
    assert replace_names(_shape(reference, topic + "-reference"),
                         {topic + "-reference": topic}) == replace_names(shape, {})
