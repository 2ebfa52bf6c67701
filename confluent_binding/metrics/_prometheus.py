"""Prometheus for the clients' metrics: an OpenTelemetry MeterProvider whose reader is
OpenTelemetry's Prometheus exporter into a registry of its own, either served over HTTP for
scrapes (:class:`PrometheusEndpoint`) or pushed to a Pushgateway (:class:`PrometheusPush`), both
through ``prometheus_client``."""
from typing import Any, Dict, Mapping, Optional, Tuple


def _provider(resource: Optional[Any]) -> Tuple[Any, Any]:
    """A new (MeterProvider, CollectorRegistry) pair: the provider's metrics are what the
    registry gives a scrape or a push."""
    try:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.resources import Resource
        from prometheus_client import CollectorRegistry
    except ImportError as e:
        raise ImportError("Prometheus needs the [prometheus] extra (opentelemetry-sdk, "
                          "opentelemetry-exporter-prometheus): %s" % e) from e
    registry = CollectorRegistry()
    reader = PrometheusMetricReader(registry=registry)
    provider = MeterProvider(metric_readers=[reader],
                             resource=resource if resource is not None else Resource.create({}))
    return provider, registry


class PrometheusEndpoint:
    """An HTTP server answering Prometheus scrapes at ``url`` (``/metrics``) with the metrics
    of the clients instrumented with its :attr:`meter_provider`. Make one with
    :func:`confluent_binding.metrics.serve_prometheus`; :meth:`close` stops it."""

    def __init__(self, port: int = 9464, addr: str = "127.0.0.1",
                 resource: Optional[Any] = None) -> None:
        from prometheus_client import start_http_server

        #: the MeterProvider to instrument clients with (``instrument(conf, endpoint)``)
        self.meter_provider, self.registry = _provider(resource)
        self._server, self._thread = start_http_server(port, addr, registry=self.registry)
        #: the address and port the server listens on (the port chosen when 0 was given)
        address = self._server.server_address
        self.host: str = str(address[0])
        self.port: int = int(address[1])
        self._closed = False

    @property
    def url(self) -> str:
        """The scrape URL, ``http://host:port/metrics``."""
        host = "[%s]" % self.host if ":" in self.host else self.host
        return "http://%s:%d/metrics" % (host, self.port)

    def close(self) -> None:
        """Stop serving and shut the MeterProvider down."""
        if not self._closed:
            self._closed = True
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(5)
            self.meter_provider.shutdown()

    def __enter__(self) -> "PrometheusEndpoint":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class PrometheusPush:
    """The metrics of the clients instrumented with its :attr:`meter_provider`, pushed to a
    Prometheus Pushgateway by :meth:`push`: for work that ends before a scrape would find it
    (batch jobs, Spark tasks). Make one with :func:`confluent_binding.metrics.push_prometheus`.

    Each push replaces what the gateway holds for this ``job`` and ``grouping_key`` (say
    ``{"instance": "host:pid"}``), so it carries the process's whole cumulative state: counters
    keep counting from push to push, and Prometheus (scraping the gateway with
    ``honor_labels: true``) sums them over instances."""

    def __init__(self, gateway: str, job: str, grouping_key: Optional[Mapping[str, str]] = None,
                 resource: Optional[Any] = None, timeout: float = 5.0) -> None:
        if not gateway or not job:
            raise ValueError("a Pushgateway push needs the gateway's address and a job name")
        #: the MeterProvider to instrument clients with (``instrument(conf, push)``)
        self.meter_provider, self.registry = _provider(resource)
        self.gateway = gateway
        self.job = job
        self.grouping_key: Dict[str, str] = dict(grouping_key or {})
        self.timeout = timeout

    def push(self) -> None:
        """Send the current figures (an HTTP PUT; raises ``OSError`` when the gateway cannot
        be reached or refuses them)."""
        from prometheus_client import push_to_gateway

        push_to_gateway(self.gateway, self.job, self.registry, grouping_key=self.grouping_key,
                        timeout=self.timeout)

    def delete(self) -> None:
        """Remove this job's and grouping key's figures from the gateway."""
        from prometheus_client import delete_from_gateway

        delete_from_gateway(self.gateway, self.job, grouping_key=self.grouping_key,
                            timeout=self.timeout)

    def close(self) -> None:
        """Shut the MeterProvider down (nothing is pushed)."""
        self.meter_provider.shutdown()
