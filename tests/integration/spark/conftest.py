"""A local[2] SparkSession shared by the Spark tests (the JVM starts once per session)."""

import os
import sys

import pytest


def _worker_python(tmp_dir) -> str:
    """The interpreter for Spark's Python workers: this one, without the pyspark.zip that Spark
    puts first on every worker's PYTHONPATH. Python keeps no bytecode for modules imported from
    a zip, so each fresh worker process compiled pyspark's modules again (about 1 CPU-s instead
    of 0.3); the streaming source runner is a fresh process per streaming query, and Spark gives
    it a fixed 10 s to connect back, which a loaded machine exceeded. Without the zip entry the
    same pyspark comes from site-packages with its bytecode."""
    if os.name != "posix":
        return sys.executable
    script = tmp_dir / "python"
    script.write_text(
        "#!/bin/sh\n"
        "set -f\n"
        "kept=\n"
        "old_ifs=$IFS\n"
        "IFS=:\n"
        "for p in $PYTHONPATH; do\n"
        '  case "$p" in */pyspark.zip) ;; *) kept="${kept:+$kept:}$p" ;; esac\n'
        "done\n"
        "IFS=$old_ifs\n"
        'PYTHONPATH=$kept\n'
        "export PYTHONPATH\n"
        "exec '%s' \"$@\"\n" % sys.executable
    )
    script.chmod(0o755)
    return str(script)


# Spark's built-in Kafka connector, for side-by-side tests: its jars as `make bench-spark`
# fetches them (bench/spark_kafka.py). Tests that compare with it skip when they are absent.
CONNECTOR_JARS = ("spark-sql-kafka-0-10_", "spark-token-provider-kafka-0-10_", "kafka-clients-",
                  "commons-pool2-")


def connector_jars():
    import pyspark

    from confluent_binding.testing._jars import cache_dir

    target = cache_dir() / ("spark-kafka-%s" % pyspark.__version__)
    if not (target / ".complete").exists():
        return []
    jars = sorted(str(p) for p in target.glob("*.jar") if p.name.startswith(CONNECTOR_JARS))
    return jars if len(jars) == len(CONNECTOR_JARS) else []


def avro_jars():
    """spark-avro (from_avro, to_avro) as `make spark-connector-jars` fetches it; its Avro
    library is among pyspark's own jars."""
    import pyspark

    from confluent_binding.testing._jars import cache_dir

    target = cache_dir() / ("spark-avro-%s" % pyspark.__version__)
    if not (target / ".complete").exists():
        return []
    return sorted(str(p) for p in target.glob("spark-avro_*.jar"))


@pytest.fixture(scope="session")
def builtin_kafka(spark):
    """The format name of Spark's own Kafka connector, when its jars are on the session's
    classpath (`make bench-spark` or `make spark-connector-jars` fetches them)."""
    if not connector_jars():
        pytest.skip("Spark's Kafka connector jars are not fetched (make spark-connector-jars)")
    return "kafka"


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession

    import confluent_binding.spark

    # Spark's Python workers must run this interpreter (it has the binding and pyarrow).
    os.environ["PYSPARK_PYTHON"] = _worker_python(tmp_path_factory.mktemp("python"))
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("confluent_binding-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.local.dir", str(tmp_path_factory.mktemp("spark-local")))
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse")))
        .config("spark.python.worker.reuse", "true")
        # as the cluster's driver (tests/support/spark_cluster.py): no native snappy for parquet
        .config("spark.sql.parquet.compression.codec", "uncompressed")
        .config("spark.jars", ",".join(connector_jars() + avro_jars()))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    confluent_binding.spark.register(session)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def prometheus(tmp_path_factory):
    """(Pushgateway, Prometheus scraping it every half second, keeping the pushed labels), for
    the tasks' metrics (option ``metrics.pushGateway``)."""
    from tests.support.prometheus import PrometheusServer, Pushgateway

    with Pushgateway(tmp_path_factory.mktemp("pushgateway")) as gateway:
        with PrometheusServer(tmp_path_factory.mktemp("prometheus"),
                              {"pushgateway": [gateway.address]}, honor_labels=True) as prom:
            yield gateway, prom


@pytest.fixture(scope="module")
def registry(schema_registry):
    """This project's SchemaRegistryClient of the test registry, for the Schema Registry tests'
    own registrations and look-ups."""
    from confluent_binding.schema_registry import SchemaRegistryClient

    return SchemaRegistryClient(schema_registry.client_config())


# --- a Spark standalone cluster (tests/support/spark_cluster.py) -----------------------------


@pytest.fixture(scope="session")
def spark_standalone(tmp_path_factory):
    """A master and two workers (one core each) on loopback, from PySpark's own distribution."""
    from tests.support.spark_cluster import SparkStandalone

    cluster = SparkStandalone(tmp_path_factory.mktemp("spark-standalone"), workers=2, cores=1)
    cluster.start()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def spark_driver(spark_standalone, tmp_path_factory):
    """A PySpark driver process with one application on the standalone cluster; its two
    executors (one per worker, each with Python workers of its own) are up when it is."""
    from tests.support.spark_cluster import Driver

    driver = Driver(
        spark_standalone,
        tmp_path_factory.mktemp("spark-driver"),
        "tests.integration.spark.cluster_jobs",
    )
    driver.start()
    try:
        spark_standalone.wait_for_executors(2)
        yield driver
    finally:
        driver.close()


@pytest.fixture(scope="session")
def kafka3(tmp_path_factory):
    """Three brokers; topics get three replicas and need two in sync (a leader can be lost)."""
    from confluent_binding.testing import KafkaCluster

    cluster = KafkaCluster(
        brokers=3,
        replication_factor=3,
        min_insync_replicas=2,
        workdir=tmp_path_factory.mktemp("kafka3"),
        heap="512m",
        fast_startup=True,
    )
    try:
        cluster.start(timeout=180)
        yield cluster
    finally:
        cluster.stop()
