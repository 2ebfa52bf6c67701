"""Observability of the clients: librdkafka's statistics parsed into typed objects, exported
as OpenTelemetry metrics (and, through OpenTelemetry's Prometheus exporter, to Prometheus),
OpenTelemetry spans for producing and consuming, and librdkafka's log lines routed through
Python's ``logging``.

One line turns metrics on for a client's configuration, whichever face makes the client::

    from confluent_binding import metrics

    endpoint = metrics.serve_prometheus(9464)                         # optional: a /metrics
                                            # (or metrics.push_prometheus(gateway, job) to push)
    producer = Producer(metrics.instrument(conf, endpoint))           # sync clients
    producer = AIOProducer(metrics.instrument(conf, endpoint))        # asyncio clients
    producer = AIOKafkaProducer(..., extra=metrics.instrument({}, endpoint))   # aiokafka face

Without a provider, :func:`instrument` reports to OpenTelemetry's global MeterProvider. The
statistics are parsed once per ``statistics.interval.ms`` inside the ``poll()`` (``flush()``,
``consume()``) that serves them, never per message; the instruments read the latest sample when
a reader collects. The OpenTelemetry parts need the ``[metrics]`` extra (the Prometheus endpoint
the ``[prometheus]`` one); the parsed statistics and the logging need nothing.

Tracing wraps a client (:func:`trace`): the wrapper has the client's API, its produce and
consume calls make spans and carry the trace context in the messages' headers. A client not
wrapped runs no tracing code at all::

    producer = metrics.trace(Producer(conf), conf=conf)
    consumer = metrics.trace(AIOKafkaConsumer("events", ...))
"""
from typing import Any, Dict, Mapping, Optional

from ._logs import LOGGER_PREFIX, ClientLogs
from ._prometheus import PrometheusEndpoint, PrometheusPush
from ._statistics import (
    BrokerStatistics,
    GroupStatistics,
    PartitionStatistics,
    Statistics,
    TopicStatistics,
    Window,
    parse_statistics,
    parsed_stats_cb,
)

__all__ = ["Window", "BrokerStatistics", "PartitionStatistics", "TopicStatistics",
           "GroupStatistics", "Statistics", "parse_statistics", "parsed_stats_cb",
           "instrument", "serve_prometheus", "PrometheusEndpoint", "push_prometheus",
           "PrometheusPush", "route_logs", "ClientLogs",
           "LOGGER_PREFIX", "DEFAULT_INTERVAL_MS", "trace"]

#: the statistics interval :func:`instrument` sets when the configuration has none
DEFAULT_INTERVAL_MS = 5000
_INTERVAL = "statistics.interval.ms"


def _interval_ms(conf: Mapping[str, Any], interval_ms: Optional[int]) -> int:
    value = interval_ms if interval_ms is not None else conf.get(_INTERVAL, DEFAULT_INTERVAL_MS)
    try:
        ms = int(value)
    except (TypeError, ValueError):
        raise ValueError("%s must be a whole number of milliseconds, not %r"
                         % (_INTERVAL, value)) from None
    if ms <= 0:
        raise ValueError("metrics need statistics: %s must be positive, not %d"
                         % (_INTERVAL, ms))
    return ms


def instrument(conf: Optional[Mapping[str, Any]] = None, meter_provider: Any = None, *,
               interval_ms: Optional[int] = None, logs: bool = False) -> Dict[str, Any]:
    """A copy of the client configuration ``conf`` whose client reports its statistics as
    OpenTelemetry metrics (the guide's metrics table lists them).

    ``meter_provider``: an OpenTelemetry MeterProvider, a :class:`PrometheusEndpoint` from
    :func:`serve_prometheus` or a :class:`PrometheusPush` from :func:`push_prometheus`; None:
    OpenTelemetry's global one. ``interval_ms``: the statistics interval, and so how fresh the
    metrics are (default: the configuration's ``statistics.interval.ms``, else 5000). A
    ``stats_cb`` or ``error_cb`` already in ``conf`` keeps being called as before
    (``stats_cb`` with the raw JSON). ``logs=True`` also routes librdkafka's logs through
    ``logging`` (:func:`route_logs`)."""
    try:
        from ._otel import recorder_for
    except ImportError as e:
        raise ImportError("confluent_binding.metrics.instrument() needs the [metrics] extra "
                          "(opentelemetry-api): %s" % e) from e
    conf = dict(conf or {})
    ms = _interval_ms(conf, interval_ms)
    recorder = recorder_for(getattr(meter_provider, "meter_provider", meter_provider))
    keep_for = max(10 * ms / 1000.0, 30.0)
    client_id = str(conf.get("client.id", "rdkafka"))
    user_stats, user_error = conf.get("stats_cb"), conf.get("error_cb")
    for name, cb in (("stats_cb", user_stats), ("error_cb", user_error)):
        if cb is not None and not callable(cb):
            raise TypeError("%s must be callable, not %s" % (name, type(cb).__name__))

    def stats_cb(text: str) -> Any:
        recorder.record(Statistics.from_json(text), keep_for)
        if user_stats is not None:
            return user_stats(text)
        return None

    def error_cb(err: Any) -> Any:
        recorder.count_error(client_id, err)
        if user_error is not None:
            return user_error(err)
        return None

    conf[_INTERVAL] = ms
    conf["stats_cb"] = stats_cb
    conf["error_cb"] = error_cb
    return route_logs(conf) if logs else conf


def trace(client: Any, tracer_provider: Any = None, *,
          conf: Optional[Mapping[str, Any]] = None) -> Any:
    """``client`` with OpenTelemetry tracing: a wrapper with the client's whole API whose
    produce and consume calls make spans following OpenTelemetry's messaging conventions (the
    guide's tracing section lists them). ``client``: a Producer, SerializingProducer, Consumer,
    DeserializingConsumer, AIOProducer, AsyncSerializingProducer, AIOConsumer,
    AIOKafkaProducer or AIOKafkaConsumer; ``.wrapped`` is the client itself.

    A produced message gets a ``send <topic>`` span (PRODUCER) whose context goes into its
    headers (``traceparent``, through OpenTelemetry's propagator); the span ends with the
    delivery report, an error status on a failed delivery. A consumed message gets a
    ``process <topic>`` span (CONSUMER) linked to the producer's span (and its child when no
    span is current), ended when the application calls for more or closes the client.

    ``tracer_provider``: an OpenTelemetry TracerProvider; None: the global one. ``conf``: the
    configuration the client was made with, for what a client object does not tell: its
    ``client.id`` and ``group.id`` (span attributes) and, for a Producer, its configured
    ``on_delivery``, which a message's own callback replaces (confluent-kafka's rule): the
    traced producer gives every message a callback, which calls the configured one. The
    aiokafka-style clients need no ``conf``. Needs the ``[metrics]`` extra."""
    try:
        from ._tracing import traced
    except ImportError as e:
        raise ImportError("confluent_binding.metrics.trace() needs the [metrics] extra "
                          "(opentelemetry-api): %s" % e) from e
    return traced(client, tracer_provider, conf)


def serve_prometheus(port: int = 9464, addr: str = "127.0.0.1", resource: Any = None
                     ) -> PrometheusEndpoint:
    """Start an HTTP server answering Prometheus scrapes at ``/metrics`` on ``addr:port``
    (port 0: a free one, see ``.port``) and return it (a ``PrometheusEndpoint``): give it to
    :func:`instrument` as the provider. ``close()`` stops it. Needs the ``[prometheus]``
    extra. OpenTelemetry's Prometheus exporter names the series: dots become underscores,
    counters end in ``_total``, a unit is appended (``kafka_broker_rtt_seconds``)."""
    return PrometheusEndpoint(port, addr, resource)


def push_prometheus(gateway: str, job: str, grouping_key: Optional[Mapping[str, str]] = None,
                    resource: Any = None) -> PrometheusPush:
    """A :class:`PrometheusPush`: give it to :func:`instrument` as the provider, and call its
    ``push()`` to send the figures to the Prometheus Pushgateway at ``gateway`` (``host:port``
    or a URL) under ``job`` and ``grouping_key``, for work too short-lived to be scraped. The
    Spark source and sink use it per task (option ``metrics.pushGateway``). Needs the
    ``[prometheus]`` extra."""
    return PrometheusPush(gateway, job, grouping_key, resource)


def route_logs(conf: Optional[Mapping[str, Any]] = None, prefix: str = LOGGER_PREFIX
               ) -> Dict[str, Any]:
    """A copy of ``conf`` whose client sends librdkafka's log lines to Python's ``logging``:
    to the logger ``<prefix>.<client instance name>`` (e.g.
    ``confluent_binding.librdkafka.rdkafka#producer-1``), levels mapped from syslog's. As with
    confluent-kafka's ``logger`` key, the lines are served by ``poll()``, ``flush()`` and
    ``consume()`` on the calling thread. ``log_level`` and ``debug`` choose what librdkafka
    logs."""
    conf = dict(conf or {})
    conf["logger"] = ClientLogs(prefix)
    return conf

