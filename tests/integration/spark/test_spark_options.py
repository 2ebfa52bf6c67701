"""The connector's remaining options and its defaults, against the real broker, side by side with
Spark's built-in Kafka connector where its jars are fetched (the ``builtin_kafka`` fixture).

The option checks that need no Spark (the Java spellings, the idempotence default, the splits)
are plain function tests at the end."""

import datetime
import json
import struct
import time

import pytest

import confluent_binding as kafka
from confluent_binding.spark import NAME
from confluent_binding.spark._options import duration_ms, source_options, translate_java
from confluent_binding.spark._plan import OffsetRange, split
from confluent_binding.spark._write import DEFAULT_PARTITIONER, producer_config

pytestmark = pytest.mark.integration


def _produce(kafka_cluster, topic, n, partitions, tag=b"r"):
    p = kafka.Producer(kafka_cluster.client_config(linger_ms=5))
    for i in range(n):
        p.produce(topic, b"%s%d" % (tag, i), partition=i % partitions)
    assert p.flush(30) == 0


def _read(spark, fmt, kafka_cluster, **options):
    r = spark.read.format(fmt).option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
    for k, v in options.items():
        r = r.option(k, v)
    return r.load()


@pytest.fixture(params=["cbkafka", pytest.param("builtin", marks=pytest.mark.slow)])
def fmt(request):
    """Each test with this source: ours, then Spark's connector (skipped without its jars; with
    --slow only, as in make test-spark-cluster, to keep the default suite short)."""
    if request.param == "builtin":
        return request.getfixturevalue("builtin_kafka")
    return NAME


# --- batch ---------------------------------------------------------------------------------


def test_max_records_per_partition_splits_ranges(spark, kafka_cluster, make_topic):
    """(Spark 4.2's connector, same options, read these two partitions in two tasks here: its
    batch read does not split by maxRecordsPerPartition.)"""
    fmt = NAME
    topic = make_topic(2)
    _produce(kafka_cluster, topic, 100, 2)  # 50 per partition
    df = _read(spark, fmt, kafka_cluster, subscribe=topic, maxRecordsPerPartition="20")
    sizes = df.rdd.mapPartitions(lambda rows: [sum(1 for _ in rows)]).collect()
    # ceil(50 / 20) = 3 tasks per Kafka partition, none larger than 20, every record once
    assert sorted(sizes) == [16, 16, 17, 17, 17, 17]
    rows = df.select("partition", "offset").collect()
    assert sorted((r.partition, r.offset) for r in rows) == [
        (p, o) for p in range(2) for o in range(50)
    ]


def test_reads_uncommitted_by_default(spark, kafka_cluster, make_topic, fmt):
    """Like Spark's connector (the Java client's default isolation), records of an aborted
    transaction are read unless kafka.isolation.level=read_committed."""
    topic = make_topic(1)
    _produce(kafka_cluster, topic, 3, 1, b"plain")
    tx = kafka.Producer(kafka_cluster.client_config(**{"transactional.id": "spark-" + topic}))
    tx.init_transactions(30)
    tx.begin_transaction()
    for i in range(4):
        tx.produce(topic, b"aborted%d" % i, partition=0)
    tx.flush(30)
    tx.abort_transaction(30)
    _produce(kafka_cluster, topic, 2, 1, b"after")

    def values(**options):
        df = _read(spark, fmt, kafka_cluster, subscribe=topic, **options)
        return sorted(bytes(r.value).decode() for r in df.collect())

    committed = ["after0", "after1", "plain0", "plain1", "plain2"]
    assert values() == sorted(committed + ["aborted%d" % i for i in range(4)])
    assert values(**{"kafka.isolation.level": "read_committed"}) == committed


def test_unknown_option_is_refused_by_name(spark, kafka_cluster, make_topic):
    topic = make_topic(1)
    _produce(kafka_cluster, topic, 3, 1)
    with pytest.raises(Exception, match="Unknown option for the Kafka source: 'startingoffset'"):
        _read(spark, NAME, kafka_cluster, subscribe=topic, startingOffset="earliest").collect()
    with pytest.raises(Exception, match="Unknown option for the Kafka source: 'maxoffsetpertrig"):
        (
            spark.readStream.format(NAME)
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("subscribe", topic)
            .option("maxOffsetPerTrigger", "5")
            .load()
            .writeStream.format("noop")
            .start()
            .processAllAvailable()
        )
    df = spark.createDataFrame([("v",)], "value string")
    with pytest.raises(Exception, match="Unknown option for the Kafka sink: 'topics'"):
        (
            df.write.format(NAME)
            .mode("append")
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("topics", topic)
            .save()
        )


@pytest.mark.slow
def test_builtin_connector_ignores_the_misspelt_option(
    spark, kafka_cluster, make_topic, builtin_kafka
):
    """The difference the refusal above makes: Spark's connector reads without complaint."""
    topic = make_topic(1)
    _produce(kafka_cluster, topic, 3, 1)
    df = _read(spark, builtin_kafka, kafka_cluster, subscribe=topic, startingOffset="latest")
    assert df.count() == 3


def _producer_ids(kafka_cluster, topic):
    """The producer ids of the record batches in partition 0's log on the broker (record batch
    format v2: the id is the int64 at byte 43 of each batch; -1 when the producer was not
    idempotent)."""
    node = kafka_cluster.nodes[0]
    segment = node.data_dir / ("%s-0" % topic) / ("0" * 20 + ".log")
    data = segment.read_bytes()
    ids, pos = [], 0
    while pos + 61 <= len(data):
        (length,) = struct.unpack_from(">i", data, pos + 8)
        (producer_id,) = struct.unpack_from(">q", data, pos + 43)
        ids.append(producer_id)
        pos += 12 + length
    return ids


def test_sink_is_idempotent_by_default(spark, kafka_cluster, make_topic, fmt):
    """An idempotent producer writes with a producer id the partition's leader keeps state for;
    a plain one writes without (id -1) and leaves none."""
    topic = make_topic(1)
    plain = make_topic(1)
    df = spark.createDataFrame([("v%d" % i,) for i in range(5)], "value string").coalesce(1)

    def write(to, **options):
        w = (
            df.write.format(fmt)
            .mode("append")
            .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
            .option("topic", to)
        )
        for k, v in options.items():
            w = w.option(k, v)
        w.save()

    write(topic)
    write(plain, **{"kafka.enable.idempotence": "false", "kafka.acks": "1"})
    idempotent = _producer_ids(kafka_cluster, topic)
    assert idempotent and all(i >= 0 for i in idempotent), idempotent
    assert set(_producer_ids(kafka_cluster, plain)) == {-1}


# --- streaming -----------------------------------------------------------------------------


def _stream(spark, fmt, kafka_cluster, topic, **options):
    r = (
        spark.readStream.format(fmt)
        .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
    )
    for k, v in options.items():
        r = r.option(k, v)
    return r.load()


def _batches(query):
    return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]


def test_trigger_available_now_reads_what_was_there_in_capped_batches(
    spark, kafka_cluster, make_topic, fmt, tmp_path
):
    topic = make_topic(2)
    _produce(kafka_cluster, topic, 70, 2)
    query = (
        _stream(spark, fmt, kafka_cluster, topic, maxOffsetsPerTrigger="30")
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(availableNow=True)
        .start()
    )
    try:
        # AvailableNow ends the query by itself once the starting point's end is reached.
        assert query.awaitTermination(120), "the AvailableNow query did not end"
        assert query.exception() is None
        assert _batches(query) == [30, 30, 10]
    finally:
        query.stop()


def test_min_offsets_per_trigger_waits_for_enough_records(
    spark, kafka_cluster, make_topic, fmt, tmp_path
):
    """Fewer new records than minOffsetsPerTrigger make no batch (the source still reports the
    latest offsets it saw); enough of them make one batch of all of them."""
    topic = make_topic(1)
    _produce(kafka_cluster, topic, 10, 1, b"a")
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "100")
    query = (
        _stream(spark, fmt, kafka_cluster, topic, minOffsetsPerTrigger="50", maxTriggerDelay="10m")
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        # the first trigger runs at once (no batch before it), whatever the minimum
        assert _wait(lambda: _batches(query) == [10], query)
        _produce(kafka_cluster, topic, 30, 1, b"b")

        def latest_offsets():
            return [p["sources"][0]["latestOffset"] for p in query.recentProgress]

        def saw_40():
            return any(o and json.loads(o) == {topic: {"0": 40}} for o in latest_offsets())

        assert _wait(saw_40, query), "no progress reported the new records: %s" % latest_offsets()
        assert _batches(query) == [10]  # seen, yet no batch: 30 < minOffsetsPerTrigger
        _produce(kafka_cluster, topic, 25, 1, b"c")
        assert _wait(lambda: _batches(query) == [10, 55], query)
    finally:
        query.stop()
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")


def test_max_trigger_delay_lets_a_small_batch_through(
    spark, kafka_cluster, make_topic, fmt, tmp_path
):
    topic = make_topic(1)
    _produce(kafka_cluster, topic, 10, 1)
    query = (
        _stream(spark, fmt, kafka_cluster, topic, minOffsetsPerTrigger="1000", maxTriggerDelay="3s")
        .writeStream.format("noop")
        .option("checkpointLocation", str(tmp_path / "cp"))
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        assert _wait(lambda: _batches(query) == [10], query)
        _produce(kafka_cluster, topic, 5, 1)
        assert _wait(lambda: _batches(query) == [10, 5], query)
        # the second batch's trigger began maxTriggerDelay or more after the first batch's.
        # The delay is timed from the source's latestOffset() calls, which come a little after
        # the trigger's timestamp (by a varying few ms): allow one trigger interval for that.
        started = [
            datetime.datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00"))
            for p in query.recentProgress
            if p["numInputRows"]
        ]
        assert (started[1] - started[0]).total_seconds() >= 3 - 0.2
    finally:
        query.stop()


def _wait(cond, query, timeout=90):
    end = time.monotonic() + timeout
    while not cond():
        if query.exception() is not None:
            raise AssertionError("the query failed: %s" % query.exception())
        if time.monotonic() > end:
            return False
        query.awaitTermination(0.1)
    return True


# --- option checks without Spark -------------------------------------------------------------


def test_jaas_plain_and_scram_become_username_and_password():
    for module in ("plain.PlainLoginModule", "scram.ScramLoginModule"):
        conf = translate_java(
            {
                "sasl.mechanism": "PLAIN",
                "sasl.jaas.config": "org.apache.kafka.common.security.%s required "
                'username="alice" password="p\\"w;d";' % module,
            }
        )
        assert conf == {
            "sasl.mechanism": "PLAIN",
            "sasl.username": "alice",
            "sasl.password": 'p"w;d',
        }


def test_jaas_of_another_login_module_names_what_to_use():
    with pytest.raises(ValueError, match="OAuthBearerLoginModule.*kafka.sasl.oauthbearer"):
        translate_java(
            {
                "sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer."
                "OAuthBearerLoginModule required;"
            }
        )
    with pytest.raises(ValueError, match="has no password"):
        translate_java(
            {
                "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule "
                'required username="a";'
            }
        )


def test_pem_stores_become_librdkafka_locations(tmp_path):
    pem = tmp_path / "ca.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    assert translate_java({"ssl.truststore.location": str(pem), "ssl.truststore.type": "PEM"}) == {
        "ssl.ca.location": str(pem)
    }
    # without a type, a file with PEM content is read as PEM
    assert translate_java({"ssl.truststore.location": str(pem)}) == {"ssl.ca.location": str(pem)}
    assert translate_java(
        {
            "ssl.keystore.location": str(pem),
            "ssl.keystore.type": "PEM",
            "ssl.keystore.password": "x",
            "ssl.endpoint.identification.algorithm": "",
        }
    ) == {
        "ssl.certificate.location": str(pem),
        "ssl.key.location": str(pem),
        "ssl.key.password": "x",
        "ssl.endpoint.identification.algorithm": "none",
    }
    assert translate_java(
        {
            "ssl.keystore.location": "k.p12",
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.password": "s",
        }
    ) == {"ssl.keystore.location": "k.p12", "ssl.keystore.password": "s"}
    assert translate_java({"ssl.truststore.certificates": "-----BEGIN"}) == {
        "ssl.ca.pem": "-----BEGIN"
    }


def test_jks_stores_are_refused_naming_what_to_use(tmp_path):
    jks = tmp_path / "trust.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed\x00\x00\x00\x02")  # a JKS file's magic
    with pytest.raises(ValueError, match="JKS.*kafka.ssl.ca.location"):
        translate_java({"ssl.truststore.location": str(jks)})
    with pytest.raises(ValueError, match="JKS truststore.*truststore.type=PEM"):
        translate_java({"ssl.truststore.location": str(jks), "ssl.truststore.type": "JKS"})
    with pytest.raises(ValueError, match="ssl.keystore.location.*kafka.ssl.certificate.location"):
        translate_java({"ssl.keystore.location": str(jks), "ssl.keystore.type": "JKS"})


def test_the_java_spellings_reach_the_source_configuration():
    opts = source_options(
        {
            "kafka.bootstrap.servers": "b:9092",
            "subscribe": "t",
            "kafka.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule "
            "required username=u password=p;",
        },
        streaming=False,
    )
    assert opts.kafka["sasl.username"] == "u" and opts.kafka["sasl.password"] == "p"
    assert "sasl.jaas.config" not in opts.kafka


def test_sink_idempotence_default_yields_to_settings_that_exclude_it():
    assert producer_config({})["enable.idempotence"] == "true"
    assert producer_config({"acks": "all"})["enable.idempotence"] == "true"
    # as the Java producer: acks other than all, or more than 5 in flight, switch it off
    assert producer_config({"acks": "1"})["enable.idempotence"] == "false"
    assert (
        producer_config({"max.in.flight.requests.per.connection": "10"})["enable.idempotence"]
        == "false"
    )
    assert producer_config({"enable.idempotence": "false"})["enable.idempotence"] == "false"


def test_sink_partitions_as_the_java_producer_unless_told_otherwise():
    assert producer_config({})["partitioner"] == DEFAULT_PARTITIONER == "murmur2_random"
    assert producer_config({"partitioner": "consistent_random"})["partitioner"] == (
        "consistent_random")
    java = "org.apache.kafka.clients.producer."
    got = producer_config({"partitioner.class": java + "internals.DefaultPartitioner"})
    assert got["partitioner"] == "murmur2_random" and "partitioner.class" not in got
    assert producer_config({"partitioner.class": java + "UniformStickyPartitioner"})[
        "partitioner"] == "random"
    for name in (java + "RoundRobinPartitioner", "com.example.MyPartitioner"):
        with pytest.raises(ValueError, match="'partitioner.class' = '%s' is not supported" % name):
            producer_config({"partitioner.class": name})
    with pytest.raises(ValueError, match="both set"):
        producer_config({"partitioner.class": java + "internals.DefaultPartitioner",
                         "partitioner": "random"})


def test_keyed_rows_land_on_the_partitions_spark_connector_puts_them(
        spark, kafka_cluster, make_topic, builtin_kafka):
    """The same keyed rows written through Spark's connector (the Java producer's default
    partitioner) and through ours, each into a topic of 6 partitions: every key on the same
    partition in both."""
    keys = ["user-%d" % i for i in range(300)] + ["", "é-ü", "user-42"]
    df = spark.createDataFrame([(k, "v-%d" % i) for i, k in enumerate(keys)],
                               "key string, value string")
    placed = {}
    for fmt in (builtin_kafka, NAME):
        topic = make_topic(6)
        (df.write.format(fmt).mode("append")
         .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
         .option("topic", topic).save())
        rows = (spark.read.format(NAME)
                .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
                .option("subscribe", topic).load()
                .selectExpr("CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value",
                            "partition").collect())
        assert len(rows) == len(keys), fmt
        placed[fmt] = {(r.key, r.value): r.partition for r in rows}
    assert placed[NAME] == placed[builtin_kafka]
    assert len(set(placed[NAME].values())) == 6     # the keys spread over every partition


def test_null_keyed_rows_as_spark_connector_writes_them(spark, kafka_cluster, make_topic,
                                                         builtin_kafka):
    """Rows without a key, through both connectors into 6 partitions: each row once, its key
    still null. Where they land is not compared: both partitioners place keyless rows at
    random, sticking to a partition for a while (Java per batch, librdkafka per
    sticky.partitioning.linger.ms)."""
    df = spark.createDataFrame([(None, "v-%d" % i) for i in range(400)],
                               "key string, value string").repartition(4)
    for fmt in (builtin_kafka, NAME):
        topic = make_topic(6)
        (df.write.format(fmt).mode("append")
         .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
         .option("topic", topic).save())
        rows = (spark.read.format(NAME)
                .option("kafka.bootstrap.servers", kafka_cluster.bootstrap_servers)
                .option("subscribe", topic).load()
                .selectExpr("key", "CAST(value AS STRING) AS value", "partition").collect())
        assert sorted(r.value for r in rows) == sorted("v-%d" % i for i in range(400)), fmt
        assert all(r.key is None for r in rows), fmt
        assert all(0 <= r.partition < 6 for r in rows), fmt


def test_splits_with_max_records_and_min_partitions():
    ranges = [OffsetRange("t", 0, 0, 100), OffsetRange("t", 1, 10, 15)]
    got = split(ranges, None, 30)
    assert [(r.partition, r.start, r.end) for r in got] == [
        (0, 0, 25),
        (0, 25, 50),
        (0, 50, 75),
        (0, 75, 100),
        (1, 10, 15),
    ]
    # minPartitions then splits further when there are still too few
    got = split(ranges, 8, 30)
    assert len(got) >= 8 and max(r.size for r in got) <= 30
    assert sorted((r.partition, o) for r in got for o in range(r.start, r.end)) == sorted(
        [(0, o) for o in range(100)] + [(1, o) for o in range(10, 15)]
    )


def test_durations_and_limits_are_checked():
    assert duration_ms({}, "maxTriggerDelay", "15m") == 900_000
    assert duration_ms({"maxtriggerdelay": "250ms"}, "maxTriggerDelay", "15m") == 250
    assert duration_ms({"maxtriggerdelay": "2s"}, "maxTriggerDelay", "15m") == 2000
    with pytest.raises(ValueError, match="'maxTriggerDelay' must be a duration"):
        duration_ms({"maxtriggerdelay": "soon"}, "maxTriggerDelay", "15m")
    base = {"kafka.bootstrap.servers": "b:9092", "subscribe": "t"}
    with pytest.raises(ValueError, match="'minOffsetsPerTrigger' \\(10\\) is higher"):
        source_options(
            dict(base, minOffsetsPerTrigger="10", maxOffsetsPerTrigger="5"), streaming=True
        )
    with pytest.raises(ValueError, match="'fetchOffset.numRetries' must be a non-negative"):
        source_options(dict(base, **{"fetchOffset.numRetries": "-1"}), streaming=False)


# --- the Java spellings against a SASL_SSL broker (--slow: a broker of its own) ---------------


@pytest.fixture(scope="module")
def secure_cluster(tmp_path_factory):
    from confluent_binding.testing import KafkaCluster

    cluster = KafkaCluster(
        ssl=True, sasl=True, workdir=tmp_path_factory.mktemp("kafka-secure"), fast_startup=True
    )
    try:
        cluster.start(timeout=180)
        yield cluster
    finally:
        cluster.stop()


@pytest.mark.slow
def test_java_jaas_and_pem_truststore_options_read_and_write(spark, secure_cluster, fmt):
    """The options a Java user of the connector has, unchanged: SCRAM through
    kafka.sasl.jaas.config and the CA through a PEM truststore."""
    client = secure_cluster.sasl_ssl_client_config()
    java = {
        "kafka.bootstrap.servers": client["bootstrap.servers"],
        "kafka.security.protocol": "SASL_SSL",
        "kafka.sasl.mechanism": client["sasl.mechanisms"],
        "kafka.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule "
        'required username="%s" password="%s";'
        % (client["sasl.username"], client["sasl.password"]),
        "kafka.ssl.truststore.location": client["ssl.ca.location"],
        "kafka.ssl.truststore.type": "PEM",
    }
    topic = "spark-secure-%s-%d" % (fmt, int(time.time() * 1000))
    secure_cluster.create_topic(topic, partitions=1)
    df = spark.createDataFrame([("v%d" % i,) for i in range(7)], "value string")
    w = df.write.format(fmt).mode("append").option("topic", topic)
    for k, v in java.items():
        w = w.option(k, v)
    w.save()
    r = spark.read.format(fmt).option("subscribe", topic)
    for k, v in java.items():
        r = r.option(k, v)
    assert sorted(bytes(x.value).decode() for x in r.load().collect()) == [
        "v%d" % i for i in range(7)
    ]
