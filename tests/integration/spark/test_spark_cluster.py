"""The source and sink on a Spark standalone cluster (a master and two workers, each executor a JVM
with Python workers of its own; tests/support/spark_cluster.py), with faults.

What the tests hold the connector to:
- reads: every record exactly once, whatever the number of tasks and executors; a streaming
  query into a file sink stays exactly once across a restart, an executor SIGKILLed mid-query
  (Spark runs the lost tasks again; the file sink's log keeps only the committed attempt's
  files) and a partition leader killed mid-query;
- writes: no loss, always. Each task's producer is idempotent, so a task that succeeds wrote
  every row once, in order, even when a leader died under it (its retries are deduplicated by
  the broker). A task Spark runs again (its executor died) is a new producer and writes its
  rows again: at-least-once per query, duplicates at most the rows of the re-run tasks.

One read in the default suite on the session's one-broker cluster; the rest, against three
brokers, with ``--slow`` (``make test-spark-cluster``).
"""

import os
import time
import uuid

import pytest

import confluent_binding as kafka

# A job that hangs fails with the driver's log (Driver.result's timeout) before pytest's own
# per-test timeout would end it without one.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

PARTITIONS = 4


def _topic(cluster, partitions=PARTITIONS):
    name = "spark-cluster-%s" % uuid.uuid4().hex[:8]
    cluster.create_topic(name, partitions=partitions)
    return name


def _fill(cluster, topic, n, partitions=PARTITIONS, tag="v"):
    """Values tag0 .. tag{n-1}, round-robin over the partitions; returns them."""
    p = kafka.Producer(cluster.client_config(linger_ms=20, acks="all"))
    values = ["%s%d" % (tag, i) for i in range(n)]
    for i, v in enumerate(values):
        while True:
            try:
                p.produce(topic, v.encode(), partition=i % partitions)
                break
            except BufferError:
                p.poll(0.1)
    assert p.flush(60) == 0
    return values


def _consume_values(cluster, topic, at_least, timeout=120):
    """Every value of ``topic`` (waits until there are ``at_least``, then reads to the end)."""
    c = kafka.Consumer(
        cluster.client_config(
            **{
                "group.id": "check-" + uuid.uuid4().hex[:6],
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "enable.partition.eof": True,
            }
        )
    )
    c.subscribe([topic])
    out, eof = [], set()
    deadline = time.monotonic() + timeout
    try:
        while len(out) < at_least or len(eof) < PARTITIONS:
            assert time.monotonic() < deadline, "read %d of at least %d" % (len(out), at_least)
            for m in c.consume(1000, 1.0):
                if m.error() is not None:
                    assert m.error().code() == kafka.KafkaError._PARTITION_EOF, m.error()
                    eof.add(m.partition())
                    continue
                eof.discard(m.partition())
                out.append(m.value().decode())
    finally:
        c.close()
    return out


def _commits(checkpoint):
    """Micro-batches a streaming query has committed (its checkpoint's commit log)."""
    try:
        return len([n for n in os.listdir(os.path.join(checkpoint, "commits")) if n.isdigit()])
    except FileNotFoundError:
        return 0


def _wait(cond, what, timeout=120):
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "not %s within %s s" % (what, timeout)
        time.sleep(0.2)


def _rows_once(rows, values):
    """rows ([partition, offset, value, ...]) hold every value exactly once, each at one offset."""
    keys = [(r[0], r[1]) for r in rows]
    assert len(keys) == len(set(keys)), "a record was read twice"
    assert sorted(r[2] for r in rows) == sorted(values)


def _executors_replaced(spark_standalone, killed):
    """Waits for the master to give the application its second executor back."""
    spark_standalone.wait_for_executors(2, timeout=180, exclude=[killed])


class _Job:
    """What every cluster test sets up: a fresh topic of ``PARTITIONS`` partitions (``fill()``
    writes its values), where a query writes (``out``, a parquet directory; ``out_topic``, a
    second topic, made when first asked for), its checkpoint, and the driver that runs the
    jobs of cluster_jobs.py with these arguments filled in."""

    def __init__(self, driver, cluster, tmp_path):
        self.driver, self.cluster = driver, cluster
        self.topic = _topic(cluster)
        self.values = []
        self.out = str(tmp_path / "out")
        self.checkpoint = str(tmp_path / "checkpoint")
        self._out_topic = None

    @property
    def out_topic(self):
        if self._out_topic is None:
            self._out_topic = _topic(self.cluster)
        return self._out_topic

    def fill(self, n, tag="v"):
        """Appends values tag0 .. tag{n-1} to the topic; returns them."""
        values = _fill(self.cluster, self.topic, n, tag=tag)
        self.values += values
        return values

    def _args(self, job, options):
        args = {"bootstrap": self.cluster.bootstrap_servers, "topic": self.topic}
        if job in ("read_to_parquet", "stream_to_parquet"):
            args["out"] = self.out
        if job.startswith("stream_"):
            args["checkpoint"] = self.checkpoint
        if job == "stream_to_kafka":
            args["out_topic"] = self.out_topic
        args.update(options)
        return args

    def call(self, job, **options):
        return self.driver.call(job, **self._args(job, options))

    def submit(self, job, **options):
        return self.driver.submit(job, **self._args(job, options))

    def committed(self, ticket, batches=3):
        """Waits until the streaming query (the job of ``ticket``) committed ``batches``
        micro-batches; a job that ended before fails the test with its error at once."""
        _wait(
            lambda: _commits(self.checkpoint) >= batches or self.driver.done(ticket),
            "%d micro-batches committed" % batches,
        )
        if self.driver.done(ticket):
            result = self.driver.result(ticket)  # raises the job's error
            raise AssertionError("the query ended after %s, before the test went on" % result)

    def rows(self):
        """What the query wrote to ``out``, as [partition, offset, value, executor?] rows."""
        return self.driver.call("read_parquet", path=self.out)


@pytest.fixture
def job(spark_driver, kafka_cluster, tmp_path):
    """A _Job on the session's one-broker cluster."""
    return _Job(spark_driver, kafka_cluster, tmp_path)


@pytest.fixture
def job3(spark_driver, kafka3, tmp_path):
    """A _Job on three brokers (a leader may be killed)."""
    return _Job(spark_driver, kafka3, tmp_path)


# --- default suite -----------------------------------------------------------------------------


def test_batch_read_splits_partitions_across_executors(job, spark_standalone):
    job.fill(4000)
    got = job.call("read_to_parquet", minPartitions=8)
    assert got["tasks"] == 8  # 4 Kafka partitions, each read by two tasks
    rows = job.rows()
    _rows_once(rows, job.values)
    executors = {r[3] for r in rows}
    assert len(executors) == 2, "one executor read everything: %s" % executors
    assert executors <= set(spark_standalone.executor_pids())


def test_executors_push_their_tasks_metrics(job, prometheus, spark_standalone):
    pytest.importorskip("opentelemetry.exporter.prometheus")
    gateway, prom = prometheus
    job.fill(1000)
    name = "cbkafka-cluster-%s" % uuid.uuid4().hex[:8]
    got = job.call("read_to_parquet", minPartitions=8,
                   **{"metrics.pushGateway": gateway.address, "metrics.job": name})
    assert got["tasks"] == 8
    where = '{job="%s", messaging_operation_type="receive"}' % name
    assert prom.wait_value("sum(kafka_spark_records_total%s)" % where,
                           lambda v: v == 1000) == 1000
    assert prom.wait_value('sum(kafka_spark_tasks_total{job="%s", outcome="success"})' % name,
                           lambda v: v == 8) == 8
    # the tasks ran in Python workers of the executors, each pushing as itself (host:pid)
    workers = {int(dict(k)["instance"].rsplit(":", 1)[1])
               for k in prom.query("kafka_spark_tasks_total%s" % where)}
    assert len(workers) >= 2, workers
    executors = {_executor_of(pid) for pid in workers} - {None}
    assert executors and executors <= set(spark_standalone.executor_pids()), (workers, executors)


def _executor_of(worker):
    """The executor JVM a Python worker works for (the parent of its daemon), None when the
    worker is gone."""
    try:
        daemon = _parent(worker)
        return _parent(daemon)
    except OSError:
        return None


def _parent(pid):
    with open("/proc/%d/stat" % pid) as f:
        stat = f.read()
    return int(stat[stat.rindex(")") + 2:].split()[1])


# --- make test-spark-cluster (--slow) ----------------------------------------------------------


@pytest.mark.slow
def test_batch_read_three_brokers(job3):
    job3.fill(20000)
    got = job3.call("read_to_parquet", minPartitions=6, maxRecordsPerPartition=2000)
    assert got["tasks"] == 12  # maxRecordsPerPartition: 5000 records in 3 tasks of at most 2000
    rows = job3.rows()
    _rows_once(rows, job3.values)
    assert len({r[3] for r in rows}) == 2


@pytest.mark.slow
def test_stream_into_files_stopped_and_restarted_exactly_once(job3):
    job3.fill(3000, tag="a")
    assert job3.call("stream_to_parquet", maxOffsetsPerTrigger=1000) == [1000, 1000, 1000]
    job3.fill(2000, tag="b")
    assert job3.call("stream_to_parquet", maxOffsetsPerTrigger=1000) == [1000, 1000]
    _rows_once(job3.rows(), job3.values)


@pytest.mark.slow
def test_executor_killed_mid_stream_file_sink_exactly_once(job3, spark_standalone):
    job3.fill(30000)
    ticket = job3.submit("stream_to_parquet", maxOffsetsPerTrigger=1000, minPartitions=4)
    job3.committed(ticket)
    killed = spark_standalone.kill_executor()
    assert not job3.driver.done(ticket), "the query ended before the executor was killed"
    batches = job3.driver.result(ticket, timeout=420)
    assert sum(batches) == 30000
    _rows_once(job3.rows(), job3.values)
    _executors_replaced(spark_standalone, killed)


@pytest.mark.slow
def test_executor_killed_mid_stream_kafka_sink_loses_nothing(job3, spark_standalone):
    values = job3.fill(30000)
    ticket = job3.submit("stream_to_kafka", maxOffsetsPerTrigger=1000, minPartitions=4)
    job3.committed(ticket)
    killed = spark_standalone.kill_executor()
    assert not job3.driver.done(ticket), "the query ended before the executor was killed"
    assert sum(job3.driver.result(ticket, timeout=420)) == 30000
    got = _consume_values(job3.cluster, job3.out_topic, len(values))
    assert set(got) == set(values)  # nothing lost
    # Duplicates only from tasks that ran again: at most one micro-batch's worth.
    assert len(got) - len(values) <= 1000, "%d duplicates" % (len(got) - len(values))
    _executors_replaced(spark_standalone, killed)


@pytest.mark.slow
def test_leader_killed_mid_read(job3):
    job3.fill(20000)
    ticket = job3.submit(
        "stream_to_parquet",
        maxOffsetsPerTrigger=1000,
        **{"fetchOffset.numRetries": 30, "fetchOffset.retryIntervalMs": 1000},
    )
    job3.committed(ticket)
    leader = job3.cluster.node(job3.cluster.leader(job3.topic, 0))
    leader.kill()
    try:
        assert not job3.driver.done(ticket), "the query ended before the leader was killed"
        assert sum(job3.driver.result(ticket, timeout=420)) == 20000
        _rows_once(job3.rows(), job3.values)
    finally:
        leader.restart()


@pytest.mark.slow
def test_leader_killed_mid_write_exactly_once(job3):
    kafka3, topic = job3.cluster, job3.topic
    n = 500000
    ticket = job3.submit("batch_write", n=n, tasks=4)
    probe = kafka.Consumer(kafka3.client_config(**{"group.id": "probe"}))

    def some_written():
        try:
            ends = [
                probe.get_watermark_offsets(kafka.TopicPartition(topic, p), timeout=10)[1]
                for p in range(PARTITIONS)
            ]
        except kafka.KafkaException:  # a broker restarted by the test before still catching up
            return False
        return sum(ends) > 0

    try:
        _wait(some_written, "the write under way", timeout=180)
    finally:
        probe.close()
    leader = kafka3.node(kafka3.leader(topic, 0))
    leader.kill()
    try:
        assert not job3.driver.done(ticket), "the write ended before the leader was killed"
        assert job3.driver.result(ticket, timeout=420) == n
        got = _consume_values(kafka3, topic, n)
    finally:
        leader.restart()
    # No task failed, so each task's idempotent producer wrote its rows exactly once.
    assert sorted(got, key=int) == [str(i) for i in range(n)]


@pytest.mark.slow
def test_batch_and_stream_writes_from_two_executors_read_back(job3):
    n = 20000
    assert job3.call("batch_write", n=n, tasks=4) == n
    got = _consume_values(job3.cluster, job3.topic, n)
    assert sorted(got, key=int) == [str(i) for i in range(n)]
    batches = job3.call("stream_to_kafka", maxOffsetsPerTrigger=5000, minPartitions=4)
    assert batches == [5000] * 4
    assert sorted(_consume_values(job3.cluster, job3.out_topic, n), key=int) == [
        str(i) for i in range(n)
    ]
