"""OpenTelemetry's aiokafka instrumentation (opentelemetry-instrumentation-aiokafka), unmodified,
on confluent_binding.aiokafka: ``send`` gives a producer span, ``getone`` a receive span per
record, ``getmany`` a receive span for the call, one per partition and one per record, with the
attributes the instrumentation reads from the clients (bootstrap servers, client id, consumer
group, the partition it computes with the producer's partitioner), and the trace context
travels in the records' headers (each record's receive span is a child of its send span).

The program (otel_app/aiokafka_spans.py) runs in a child process through the ``aiokafka`` alias,
against the real broker, and, for reference, on aiokafka itself: the spans have the same shape
on both.
"""

import json
import sys
import uuid
from pathlib import Path

import pytest

from tests.integration.otel_app.otel_common import replace_names, run_program

OTEL_INSTRUMENTATION_VERSION = "0.66b1"
if sys.version_info < (3, 10):
    pytest.skip("opentelemetry-instrumentation-aiokafka %s needs Python 3.10+"
                % OTEL_INSTRUMENTATION_VERSION, allow_module_level=True)

PROGRAM = Path(__file__).with_name("otel_app") / "aiokafka_spans.py"
# what the program produces: (key, value, app headers)
RECORDS = [("k-0", "v-0", {}), ("k-1", "v-1", {"app": "list"}), (None, "v-2", {}),
           ("k-3", "v-3", {})]
GOT_ONE = 2     # read with getone(); the rest with getmany()


def _run(client, cluster, topic, group):
    alias = (["-m", "confluent_binding", "run", "--as", "aiokafka"]
             if client == "confluent_binding" else [])
    return run_program(PROGRAM, [cluster.bootstrap_servers, topic, group], alias)


def _shape(result):
    """The spans with their ids replaced by what they point at (the index of the send span
    that is a record span's parent, the offsets of the record spans a partition span links to);
    getmany()'s spans merged, since how many records one call returns is the broker's timing."""
    spans = result["spans"]
    sends = [s for s in spans if s["kind"] == "PRODUCER"]
    send_index = {tuple(s["context"]): i for i, s in enumerate(sends)}
    receives = [s for s in spans if s["kind"] == "CONSUMER"]
    per_record = [s for s in receives if "messaging.kafka.message.offset" in s["attributes"]]
    offset_of = {tuple(s["context"]): s["attributes"]["messaging.kafka.message.offset"]
                 for s in per_record}
    calls = [s for s in receives if "messaging.destination.name" not in s["attributes"]]
    partitions = [s for s in receives if s not in per_record and s not in calls]

    def merged(group):
        attributes = [dict(s["attributes"]) for s in group]
        count = sum(a.pop("messaging.batch.message_count") for a in attributes)
        return sorted({json.dumps(a, sort_keys=True) for a in attributes}), count

    return {
        "sends": [(s["name"], s["attributes"], s["parent"]) for s in sends],
        "records": [(s["name"], s["attributes"], send_index.get(tuple(s["parent"] or ())))
                    for s in sorted(per_record, key=lambda s: offset_of[tuple(s["context"])])],
        "getmany_calls": merged(calls),
        "getmany_partitions": merged(partitions),
        "partition_links": sorted(offset_of[tuple(link)] for s in partitions
                                  for link in s["links"]),
    }


def test_otel_aiokafka_spans(kafka_cluster, make_topic):
    topic, group = make_topic(), "otel-" + uuid.uuid4().hex[:8]
    ours = _run("confluent_binding", kafka_cluster, topic, group)
    assert ours["library"] == "confluent_binding.aiokafka"
    assert ours["sent"] == [[topic, 0, i] for i in range(len(RECORDS))]

    records = ours["records"]
    assert [(r["key"], r["value"]) for r in records] == [(k, v) for k, v, _ in RECORDS]
    assert [(r["partition"], r["offset"]) for r in records] == [
        (0, i) for i in range(len(RECORDS))]
    assert [{k: v for k, v in r["headers"].items() if k != "traceparent"}
            for r in records] == [h for _, _, h in RECORDS]

    shape = _shape(ours)
    base = {"messaging.system": "kafka",
            "server.address": json.dumps(kafka_cluster.bootstrap_servers),
            "messaging.destination.name": topic, "messaging.destination.partition.id": "0"}

    def key(k):
        return {} if k is None else {"messaging.kafka.message.key": k}

    assert replace_names(shape["sends"], {}) == [
        ["%s send" % topic,
         {**base, "messaging.client.id": "otel-producer", **key(k),
          "messaging.operation.name": "send", "messaging.operation.type": "publish"}, None]
        for k, _, _ in RECORDS]
    # every record's receive span (getone and getmany alike) is a child of its send span
    assert replace_names(shape["records"], {}) == [
        ["%s receive" % topic,
         {**base, "messaging.client.id": "otel-consumer", **key(k),
          "messaging.consumer.group.name": group, "messaging.operation.name": "receive",
          "messaging.operation.type": "receive", "messaging.kafka.message.offset": i,
          "messaging.message.id": "%s.0.%d" % (topic, i)}, i]
        for i, (k, _, _) in enumerate(RECORDS)]
    # getmany(): a span per call and per partition, which links to its records' spans
    receive = {"messaging.system": "kafka", "server.address": base["server.address"],
               "messaging.client.id": "otel-consumer", "messaging.consumer.group.name": group,
               "messaging.operation.name": "receive", "messaging.operation.type": "receive"}
    assert replace_names(shape["getmany_calls"], {}) == [
        [json.dumps(receive, sort_keys=True)], len(RECORDS) - GOT_ONE]
    assert replace_names(shape["getmany_partitions"], {}) == [
        [json.dumps({**receive, "messaging.destination.name": topic,
                     "messaging.destination.partition.id": "0"}, sort_keys=True)],
        len(RECORDS) - GOT_ONE]
    assert shape["partition_links"] == list(range(GOT_ONE, len(RECORDS)))

    # the same on aiokafka itself
    other_topic, other_group = make_topic(name=topic + "-reference"), group + "-reference"
    reference = _run("reference", kafka_cluster, other_topic, other_group)
    assert reference["library"] == "aiokafka"
    assert replace_names(_shape(reference), {other_topic: topic, other_group: group}) == \
        replace_names(shape, {})
