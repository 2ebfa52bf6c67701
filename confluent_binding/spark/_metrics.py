"""Metrics of the source's and sink's tasks, pushed to a Prometheus Pushgateway.

Spark's own metrics take no custom metric from a Python data source (PySpark's reader and
writer classes have no hook for one). Spark accumulators do reach a source's tasks, but only
when the source's class carries them from the driver's session, which a source installed as a
package and registered by name does not. And the Python workers that run the tasks come and go,
so nothing could scrape them. With the option ``metrics.pushGateway``, each Python worker
keeps the figures of the tasks it ran (cumulative: Prometheus counters) in one OpenTelemetry
MeterProvider and pushes them to the gateway when each task ends, under the job
``metrics.job`` (default ``cbkafka``) and the grouping key ``instance`` = ``host:pid``:

- ``kafka.spark.records`` / ``kafka.spark.bytes`` (key plus value bytes): what the source's
  tasks read (attributes: topic, partition) and what the sink's tasks had delivered (topic;
  counted when the task succeeded, after its producer flushed);
- ``kafka.spark.tasks``: tasks that ended, by outcome (``success``/``failure``) and, for a
  failure, ``error.type`` (the Kafka error's name, else the exception's class);
- every metric of :func:`confluent_binding.metrics.instrument` for the task's client (its
  librdkafka statistics at ``kafka.statistics.interval.ms``, default 5000 ms: a task shorter
  than that interval reports none).

The source's tasks tell ``messaging.operation.type`` ``receive``, the sink's ``send``. A
failed push is logged (logger ``confluent_binding.spark``) and never fails the task.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Mapping, Optional, Tuple

from ..metrics._errors import error_type

OPTIONS = ("metrics.pushGateway", "metrics.job")
DEFAULT_JOB = "cbkafka"
_LOG = logging.getLogger("confluent_binding.spark")


@dataclass(frozen=True)
class MetricsOptions:
    gateway: str
    job: str


def metrics_options(opts: Mapping[str, str]) -> Optional[MetricsOptions]:
    """The checked ``metrics.*`` options (lower-cased keys); None when metrics are off. Raises
    ImportError at planning time when the Python environment lacks the [prometheus] extra."""
    gateway = opts.get("metrics.pushgateway")
    job = opts.get("metrics.job")
    if gateway is None:
        if job is not None:
            raise ValueError("Option 'metrics.job' needs 'metrics.pushGateway' (the Prometheus "
                             "Pushgateway to push the tasks' metrics to)")
        return None
    if not gateway.strip():
        raise ValueError("Option 'metrics.pushGateway' must be the Pushgateway's host:port or "
                         "URL, got an empty value")
    if job is not None and not job.strip():
        raise ValueError("Option 'metrics.job' must not be empty")
    try:
        import opentelemetry.exporter.prometheus  # noqa: F401
        import prometheus_client  # noqa: F401
    except ImportError as e:
        raise ImportError("Option 'metrics.pushGateway' needs the [prometheus] extra "
                          "(opentelemetry-sdk, opentelemetry-exporter-prometheus) where the "
                          "Spark tasks run: %s" % e) from e
    return MetricsOptions(gateway.strip(), (job or DEFAULT_JOB).strip())


class _Worker:
    """One Python worker's figures for one gateway and job."""

    def __init__(self, opts: MetricsOptions) -> None:
        from .. import metrics
        from .._version import __version__

        self.push = metrics.push_prometheus(
            opts.gateway, opts.job, {"instance": "%s:%d" % (socket.gethostname(), os.getpid())})
        meter = self.push.meter_provider.get_meter("confluent_binding.spark", __version__)
        self.records = meter.create_counter(
            "kafka.spark.records", "{record}",
            "Records the source's tasks read, or the sink's tasks had delivered")
        self.bytes = meter.create_counter(
            "kafka.spark.bytes", "By", "Key and value bytes of those records")
        self.tasks = meter.create_counter(
            "kafka.spark.tasks", "{task}", "Tasks of the source or sink that ended, by outcome")
        self.lock = threading.Lock()


_workers: Dict[Tuple[int, MetricsOptions], _Worker] = {}
_workers_lock = threading.Lock()


def _worker(opts: MetricsOptions) -> _Worker:
    key = (os.getpid(), opts)  # a forked worker starts a state of its own
    with _workers_lock:
        found = _workers.get(key)
        if found is None:
            found = _workers[key] = _Worker(opts)
        return found


def _bytes(batch: Any) -> int:
    """Key plus value bytes of an Arrow batch of the connector's columns (nulls count 0)."""
    import pyarrow.compute as pc

    total = 0
    names = [n.lower() for n in batch.schema.names]
    for name in ("key", "value"):
        if name in names:
            col = batch.column(names.index(name))
            total += int(pc.sum(pc.binary_length(col)).as_py() or 0)
    return total


class TaskMetrics:
    """The figures of one task: ``operation`` ``receive`` (source) or ``send`` (sink)."""

    def __init__(self, opts: MetricsOptions, operation: str) -> None:
        self.worker = _worker(opts)
        self.base = {"messaging.system": "kafka", "messaging.operation.type": operation}
        # (topic, partition or None) -> [records, bytes], added to the counters at the end
        self.tally: Dict[Tuple[str, Optional[int]], list] = {}

    def client_conf(self, conf: Mapping[str, Any]) -> Dict[str, Any]:
        """``conf`` with the client's statistics reported into this worker's figures."""
        from .. import metrics

        return metrics.instrument(conf, self.worker.push)

    def count(self, topic: str, partition: Optional[int], records: int, nbytes: int) -> None:
        entry = self.tally.setdefault((topic, partition), [0, 0])
        entry[0] += records
        entry[1] += nbytes

    def count_batch(self, batch: Any, topic: Optional[str] = None,
                    partition: Optional[int] = None) -> None:
        """Counts an Arrow batch of the connector's columns: ``topic`` for all of it, else per
        value of its ``topic`` column."""
        if topic is not None or batch.num_rows == 0:
            self.count(topic or "", partition, batch.num_rows, _bytes(batch))
            return
        names = [n.lower() for n in batch.schema.names]
        topics = batch.column(names.index("topic")).to_pylist()
        for name in set(topics):
            rows = [i for i, t in enumerate(topics) if t == name]
            self.count(str(name), partition, len(rows), _bytes(batch.take(rows)))

    def end(self, error: Optional[BaseException]) -> None:
        """Adds the task's figures and its outcome to the worker's, and pushes them."""
        w = self.worker
        with w.lock:
            for (topic, partition), (records, nbytes) in self.tally.items():
                attrs = dict(self.base, **{"messaging.destination.name": topic})
                if partition is not None:
                    attrs["messaging.destination.partition.id"] = str(partition)
                w.records.add(records, attrs)
                w.bytes.add(nbytes, attrs)
            outcome = {"outcome": "success" if error is None else "failure"}
            if error is not None:
                outcome["error.type"] = error_type(error)
            w.tasks.add(1, dict(self.base, **outcome))
            try:
                w.push.push()
            except Exception as e:  # the job's data matters more than its metrics
                _LOG.warning("the task's metrics could not be pushed to %s: %s",
                             w.push.gateway, e)


def counted_read(task: TaskMetrics, topic: str, partition: int,
                 batches: Iterator[Any]) -> Iterator[Any]:
    """``batches`` (one source task's), counted as Spark takes them; the task ends (and the
    figures are pushed) when the batches end, fail, or Spark stops taking them."""
    error: Optional[BaseException] = None
    try:
        for batch in batches:
            task.count_batch(batch, topic, partition)
            yield batch
    except GeneratorExit:
        raise
    except BaseException as e:
        error = e
        raise
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()  # the consumer is closed before the figures go out
        task.end(error)
