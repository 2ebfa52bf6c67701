"""The source's and sink's task metrics (option ``metrics.pushGateway``), pushed by the Spark
tasks' Python workers to a real Prometheus Pushgateway and scraped from it by a real Prometheus
server, then asked of Prometheus with the PromQL an operator would write: the rows a batch write
had delivered, the records a batch read read per partition (as the broker's watermarks count
them), the tasks by outcome, and a failed write's error by name. (test_spark_cluster.py: the
same from the executors of a standalone cluster.)"""

import uuid

import pytest

import confluent_binding as kafka
from confluent_binding.spark import NAME

pytestmark = pytest.mark.integration

pytest.importorskip("opentelemetry.exporter.prometheus")

PARTITIONS = 3
ROWS = 600


def _job():
    return "cbkafka-test-%s" % uuid.uuid4().hex[:8]


def _metrics(df_io, gateway, job):
    return df_io.option("metrics.pushGateway", gateway.address).option("metrics.job", job)


def _rows(spark):
    data = [("k%d" % i, "value-%d" % i) for i in range(ROWS)]
    return spark.createDataFrame(data, "key string, value string").repartition(PARTITIONS)


def _watermarks(kafka_cluster, topic, partitions=PARTITIONS):
    c = kafka.Consumer(kafka_cluster.client_config(**{"group.id": "metrics-check"}))
    try:
        return {p: c.get_watermark_offsets(kafka.TopicPartition(topic, p), timeout=30)[1]
                for p in range(partitions)}
    finally:
        c.close()


def test_prometheus_counts_what_the_tasks_wrote_and_read(spark, kafka_cluster, make_topic,
                                                         prometheus):
    gateway, prom = prometheus
    topic, job = make_topic(PARTITIONS), _job()
    writer = _rows(spark).write.format(NAME).mode("append")
    _metrics(writer, gateway, job).option(
        "kafka.bootstrap.servers", kafka_cluster.bootstrap_servers).option("topic", topic).save()
    reader = spark.read.format(NAME).option(
        "kafka.bootstrap.servers", kafka_cluster.bootstrap_servers).option("subscribe", topic)
    assert _metrics(reader, gateway, job).load().count() == ROWS

    sent = '{job="%s", messaging_operation_type="send"}' % job
    received = '{job="%s", messaging_operation_type="receive"}' % job
    payload = sum(len("k%d" % i) + len("value-%d" % i) for i in range(ROWS))
    assert prom.wait_value("sum(kafka_spark_records_total%s)" % sent, lambda v: v == ROWS) \
        == ROWS
    assert prom.value("sum(kafka_spark_bytes_total%s)" % sent) == payload
    assert prom.value('sum(kafka_spark_tasks_total{job="%s", messaging_operation_type="send", '
                      'outcome="success"})' % job) == PARTITIONS
    # one read task per partition; each counted its partition's records
    by_partition = prom.wait_value(
        "count(kafka_spark_records_total%s)" % received, lambda v: v == PARTITIONS)
    assert by_partition == PARTITIONS
    got = prom.query("sum by (messaging_destination_partition_id, messaging_destination_name) "
                     "(kafka_spark_records_total%s)" % received)
    marks = _watermarks(kafka_cluster, topic)
    assert sum(marks.values()) == ROWS
    assert {(dict(k)["messaging_destination_name"],
             int(dict(k)["messaging_destination_partition_id"])): v for k, v in got.items()} \
        == {(topic, p): n for p, n in marks.items()}
    assert prom.value("sum(kafka_spark_bytes_total%s)" % received) == payload
    assert prom.wait_value(
        'sum(kafka_spark_tasks_total{job="%s", messaging_operation_type="receive", '
        'outcome="success"})' % job, lambda v: v == PARTITIONS) == PARTITIONS
    # each Python worker pushes under an instance of its own (host:pid)
    instances = {dict(k)["instance"] for k in prom.query("kafka_spark_tasks_total{job=\"%s\"}"
                                                         % job)}
    assert instances and all(i.rsplit(":", 1)[1].isdigit() for i in instances)


def test_a_failed_write_is_counted_by_its_error(spark, kafka_cluster, make_topic, prometheus):
    gateway, prom = prometheus
    topic, job = make_topic(1, config={"max.message.bytes": "1000"}), _job()
    df = spark.createDataFrame([("x" * 5000,)], "value string").coalesce(1)
    writer = _metrics(df.write.format(NAME).mode("append"), gateway, job).option(
        "kafka.bootstrap.servers", kafka_cluster.bootstrap_servers).option("topic", topic)
    with pytest.raises(Exception, match="MSG_SIZE_TOO_LARGE"):
        writer.save()
    failed = prom.wait_value(
        'sum(kafka_spark_tasks_total{job="%s", outcome="failure", '
        'error_type="MSG_SIZE_TOO_LARGE"})' % job, lambda v: v >= 1)
    assert failed >= 1
    # nothing was delivered, so nothing is counted as written
    assert prom.value('sum(kafka_spark_records_total{job="%s"})' % job) is None


def test_an_unreachable_gateway_does_not_fail_the_job(spark, kafka_cluster, make_topic):
    from confluent_binding.testing._process import free_ports

    topic = make_topic(1)
    (port,) = free_ports(1)  # nothing listens there
    (_rows(spark).coalesce(1).write.format(NAME).mode("append")
     .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers).option("topic", topic)
     .option("metrics.pushGateway", "127.0.0.1:%d" % port).save())
    assert _watermarks(kafka_cluster, topic, 1) == {0: ROWS}


@pytest.mark.parametrize("options, message", [
    ({"metrics.job": "j"}, "'metrics.job' needs 'metrics.pushGateway'"),
    ({"metrics.pushGateway": " "}, "'metrics.pushGateway' must be"),
    ({"metrics.pushGateway": "127.0.0.1:9091", "metrics.job": ""}, "'metrics.job' must not"),
    ({"metrics.pushgateways": "127.0.0.1:9091"}, "Unknown option for the Kafka sink: "
                                                  "'metrics.pushgateways'"),
])
def test_metrics_options_are_checked_when_the_query_is_planned(spark, kafka_cluster, options,
                                                               message):
    writer = spark.createDataFrame([("v",)], "value string").write.format(NAME).mode("append")
    writer = writer.option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers).option(
        "topic", "never-written")
    for k, v in options.items():
        writer = writer.option(k, v)
    with pytest.raises(Exception, match=message):
        writer.save()


def test_a_streaming_query_counts_across_micro_batches(spark, kafka_cluster, make_topic,
                                                        prometheus, tmp_path):
    gateway, prom = prometheus
    source, sink, job = make_topic(2), make_topic(2), _job()
    p = kafka.Producer(kafka_cluster.client_config())
    for i in range(90):
        p.produce(source, b"v%d" % i, partition=i % 2)
    assert p.flush(30) == 0
    reader = (spark.readStream.format(NAME)
              .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
              .option("subscribe", source).option("startingOffsets", "earliest")
              .option("maxOffsetsPerTrigger", "30"))
    writer = (_metrics(reader, gateway, job).load().selectExpr("value").writeStream
              .format(NAME).option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
              .option("topic", sink).option("checkpointLocation", str(tmp_path / "cp"))
              .trigger(availableNow=True))
    query = _metrics(writer, gateway, job).start()
    assert query.awaitTermination(120), "the AvailableNow query did not end"
    batches = [b["numInputRows"] for b in query.recentProgress if b["numInputRows"]]
    assert sum(batches) == 90 and len(batches) >= 3, batches
    # the workers' counters keep counting from one micro-batch's tasks to the next
    for op in ("receive", "send"):
        where = '{job="%s", messaging_operation_type="%s"}' % (job, op)
        assert prom.wait_value("sum(kafka_spark_records_total%s)" % where,
                               lambda v: v == 90) == 90
    assert sum(_watermarks(kafka_cluster, sink, 2).values()) == 90
