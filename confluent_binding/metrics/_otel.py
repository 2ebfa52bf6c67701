"""librdkafka's statistics as OpenTelemetry instruments.

Every instrument is asynchronous (observable): a client's ``stats_cb`` only keeps its latest
parsed sample, and the metric reader (a Prometheus scrape, a periodic exporter) reads the
figures from the samples when it collects. The one synchronous instrument counts the errors
``error_cb`` reports. Nothing runs per message.
"""
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from opentelemetry import metrics as otel_metrics
from opentelemetry.metrics import CallbackOptions, Observation

from .._version import __version__
from ._errors import error_type
from ._statistics import BrokerStatistics, PartitionStatistics, Statistics

SYSTEM = "kafka"
SCOPE = "confluent_binding"

# (name, kind, unit, description, source, value); source is where the figure is read:
# "client" (the sample), "group", "partition", "broker", or "producer partition" / "consumer
# partition" (a partition of a producer's / consumer's sample only); kind "counter" or "gauge"
Spec = Tuple[str, str, str, str, str, Callable[[Any], float]]

_US = 1e-6
INSTRUMENTS: List[Spec] = [
    ("messaging.client.sent.messages", "counter", "{message}",
     "Messages the producer sent to the partition (each counted once, however often it was "
     "sent again)", "producer partition", lambda p: p.sent),
    ("kafka.partition.transmitted.messages", "counter", "{message}",
     "Messages the producer transmitted to the partition, a message sent again counted again",
     "producer partition", lambda p: p.txmsgs),
    ("messaging.client.consumed.messages", "counter", "{message}",
     "Messages the consumer received from the partition (a message fetched again after a "
     "pause, seek or rebalance is counted again)",
     "consumer partition", lambda p: p.rxmsgs),
    ("kafka.partition.sent.bytes", "counter", "By",
     "Bytes of messages transmitted to the partition", "producer partition",
     lambda p: p.txbytes),
    ("kafka.partition.consumed.bytes", "counter", "By",
     "Bytes of messages received from the partition", "consumer partition",
     lambda p: p.rxbytes),
    ("kafka.consumer.lag", "gauge", "{message}",
     "High watermark (last stable offset under read_committed) minus the committed offset",
     "consumer partition", lambda p: p.consumer_lag),
    ("kafka.consumer.lag.stored", "gauge", "{message}",
     "High watermark (last stable offset under read_committed) minus the stored offset",
     "consumer partition", lambda p: p.consumer_lag_stored),
    ("kafka.consumer.offset.committed", "gauge", "{offset}",
     "Last committed offset of the partition", "consumer partition", lambda p: p.committed_offset),
    ("kafka.consumer.offset.stored", "gauge", "{offset}",
     "Last stored offset of the partition (the next to commit)",
     "consumer partition", lambda p: p.stored_offset),
    ("kafka.consumer.fetch.queue.messages", "gauge", "{message}",
     "Messages fetched and waiting for the application", "consumer partition",
     lambda p: p.fetchq_cnt),
    ("kafka.partition.high_watermark", "gauge", "{offset}",
     "High watermark offset of the partition, as last fetched",
     "consumer partition", lambda p: p.hi_offset),
    ("kafka.producer.queue.messages", "gauge", "{message}",
     "Messages waiting in the producer's queues (produced, not yet delivered)",
     "client", lambda s: s.msg_cnt),
    ("kafka.producer.queue.size", "gauge", "By",
     "Bytes of the messages waiting in the producer's queues", "client", lambda s: s.msg_size),
    ("kafka.client.reply_queue.events", "gauge", "{event}",
     "Events (delivery reports, callbacks) waiting for the application's poll",
     "client", lambda s: s.replyq),
    ("kafka.client.sent.requests", "counter", "{request}",
     "Requests sent to the brokers", "client", lambda s: s.tx),
    ("kafka.client.sent.bytes", "counter", "By",
     "Bytes sent to the brokers", "client", lambda s: s.tx_bytes),
    ("kafka.client.received.responses", "counter", "{response}",
     "Responses received from the brokers", "client", lambda s: s.rx),
    ("kafka.client.received.bytes", "counter", "By",
     "Bytes received from the brokers", "client", lambda s: s.rx_bytes),
    ("kafka.consumer.group.rebalances", "counter", "{rebalance}",
     "Rebalances of the consumer group this client went through",
     "group", lambda g: g.rebalance_cnt),
    ("kafka.consumer.group.assigned_partitions", "gauge", "{partition}",
     "Partitions assigned to this consumer", "group", lambda g: g.assignment_size),
    ("kafka.broker.rtt", "gauge", "s",
     "Average round-trip time of requests to the broker over the last statistics interval",
     "broker", lambda b: b.rtt.avg * _US),
    ("kafka.broker.rtt.p99", "gauge", "s",
     "99th percentile of the round-trip time to the broker over the last interval",
     "broker", lambda b: b.rtt.p99 * _US),
    ("kafka.broker.internal_latency", "gauge", "s",
     "Average time produced messages waited in the client before being sent to the broker "
     "(last interval)", "broker", lambda b: b.int_latency.avg * _US),
    ("kafka.broker.internal_latency.p99", "gauge", "s",
     "99th percentile of the time produced messages waited in the client (last interval)",
     "broker", lambda b: b.int_latency.p99 * _US),
    ("kafka.broker.throttle", "gauge", "s",
     "Average time the broker throttled the client (last interval)",
     "broker", lambda b: b.throttle.avg * 1e-3),
    ("kafka.broker.queued.requests", "gauge", "{request}",
     "Requests waiting to be sent to the broker", "broker", lambda b: b.outbuf_cnt),
    ("kafka.broker.inflight.requests", "gauge", "{request}",
     "Requests sent to the broker and waiting for their response",
     "broker", lambda b: b.waitresp_cnt),
    ("kafka.broker.request.errors", "counter", "{error}",
     "Requests that failed to be sent to the broker", "broker", lambda b: b.txerrs),
    ("kafka.broker.response.errors", "counter", "{error}",
     "Responses from the broker that failed to be received", "broker", lambda b: b.rxerrs),
    ("kafka.broker.request.retries", "counter", "{request}",
     "Requests sent to the broker again", "broker", lambda b: b.txretries),
    ("kafka.broker.request.timeouts", "counter", "{request}",
     "Requests to the broker that timed out", "broker", lambda b: b.req_timeouts),
    ("kafka.broker.disconnects", "counter", "{disconnect}",
     "Connections to the broker that went down", "broker", lambda b: b.disconnects),
]
# figures librdkafka reports as negative while it does not know them (no committed offset
# yet, no fetch yet): left out of the observations rather than summed as -1 or -1001
KNOWN_ONLY = frozenset({"kafka.consumer.lag", "kafka.consumer.lag.stored",
                        "kafka.consumer.offset.committed", "kafka.consumer.offset.stored",
                        "kafka.partition.high_watermark"})
ERRORS = ("kafka.client.errors", "{error}",
          "Errors reported to error_cb, by error code name (error.type)")


class _Sample:
    __slots__ = ("stats", "until")

    def __init__(self, stats: Statistics, until: float) -> None:
        self.stats = stats
        self.until = until


def _client_attributes(s: Statistics) -> Dict[str, Any]:
    return {"messaging.system": SYSTEM, "messaging.client.id": s.client_id,
            "kafka.client.name": s.name, "kafka.client.type": s.type}


def _partition_attributes(base: Dict[str, Any], p: PartitionStatistics) -> Dict[str, Any]:
    return dict(base, **{"messaging.destination.name": p.topic,
                         "messaging.destination.partition.id": str(p.partition)})


def _broker_attributes(base: Dict[str, Any], b: BrokerStatistics) -> Dict[str, Any]:
    return dict(base, **{"kafka.broker.name": b.name, "kafka.broker.id": str(b.nodeid)})


def _counted_broker(b: BrokerStatistics) -> bool:
    return b.source != "internal"


class Recorder:
    """The instruments of one MeterProvider, fed by the ``stats_cb`` of any number of clients
    (:func:`confluent_binding.metrics.instrument` makes those). Thread-safe: clients may be
    served on several threads while a reader collects on another."""

    def __init__(self, meter_provider: Any = None) -> None:
        provider = meter_provider or otel_metrics.get_meter_provider()
        self.meter = provider.get_meter(SCOPE, __version__)
        self._lock = threading.Lock()
        self._samples: Dict[str, _Sample] = {}
        self._errors = self.meter.create_counter(ERRORS[0], unit=ERRORS[1],
                                                 description=ERRORS[2])
        for name, kind, unit, description, source, value in INSTRUMENTS:
            cb = self._callback(source, value, name in KNOWN_ONLY)
            if kind == "counter":
                self.meter.create_observable_counter(name, [cb], unit, description)
            else:
                self.meter.create_observable_gauge(name, [cb], unit, description)

    def record(self, stats: Statistics, keep_for: float) -> None:
        """Keep ``stats`` as its client's latest sample, reported for ``keep_for`` seconds
        (a client that stopped sending samples, a closed one, drops out after that)."""
        with self._lock:
            self._samples[stats.name] = _Sample(stats, time.monotonic() + keep_for)

    def forget(self, name: str) -> None:
        """Stop reporting the client ``name`` (the ``kafka.client.name`` attribute)."""
        with self._lock:
            self._samples.pop(name, None)

    def count_error(self, client_id: str, error: Any) -> None:
        """Count one error an ``error_cb`` received (a KafkaError)."""
        self._errors.add(1, {"messaging.system": SYSTEM, "messaging.client.id": client_id,
                             "error.type": error_type(error)})

    def latest(self) -> List[Statistics]:
        """The latest sample of every client still reported."""
        now = time.monotonic()
        with self._lock:
            for name in [n for n, s in self._samples.items() if s.until < now]:
                del self._samples[name]
            return [s.stats for s in self._samples.values()]

    def _callback(self, source: str, value: Callable[[Any], float], known_only: bool
                  ) -> Callable[[CallbackOptions], Iterable[Observation]]:
        def observe(options: CallbackOptions) -> Iterable[Observation]:
            out = []
            for s in self.latest():
                base = _client_attributes(s)
                if source == "client":
                    out.append(Observation(value(s), base))
                elif source == "group":
                    if s.cgrp is not None:
                        out.append(Observation(value(s.cgrp), base))
                elif source.endswith("partition"):
                    if source != "partition" and not source.startswith(s.type):
                        continue
                    for p in s.partitions():
                        v = value(p)
                        if v >= 0 or not known_only:
                            out.append(Observation(v, _partition_attributes(base, p)))
                else:
                    for b in s.brokers.values():
                        if _counted_broker(b):
                            out.append(Observation(value(b), _broker_attributes(base, b)))
            return out
        return observe


_recorders: Dict[int, Tuple[Any, Recorder]] = {}
_recorders_lock = threading.Lock()


def recorder_for(meter_provider: Optional[Any]) -> Recorder:
    """The one Recorder of ``meter_provider`` (None: OpenTelemetry's global provider, as it
    is when this is first called)."""
    provider = meter_provider or otel_metrics.get_meter_provider()
    with _recorders_lock:
        entry = _recorders.get(id(provider))
        if entry is None or entry[0] is not provider:
            entry = (provider, Recorder(provider))
            _recorders[id(provider)] = entry
        return entry[1]
