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
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    confluent_binding.spark.register(session)
    yield session
    session.stop()
