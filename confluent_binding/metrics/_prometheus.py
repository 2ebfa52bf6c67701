"""A Prometheus endpoint for the clients' metrics: an OpenTelemetry MeterProvider whose
reader is OpenTelemetry's Prometheus exporter, served over HTTP by ``prometheus_client``."""
from typing import Any, Optional


class PrometheusEndpoint:
    """An HTTP server answering Prometheus scrapes at ``url`` (``/metrics``) with the metrics
    of the clients instrumented with its :attr:`meter_provider`. Make one with
    :func:`confluent_binding.metrics.serve_prometheus`; :meth:`close` stops it."""

    def __init__(self, port: int = 9464, addr: str = "127.0.0.1",
                 resource: Optional[Any] = None) -> None:
        try:
            from opentelemetry.exporter.prometheus import PrometheusMetricReader
            from opentelemetry.sdk.metrics import MeterProvider
            from opentelemetry.sdk.resources import Resource
            from prometheus_client import CollectorRegistry, start_http_server
        except ImportError as e:
            raise ImportError("the Prometheus endpoint needs the [prometheus] extra "
                              "(opentelemetry-sdk, opentelemetry-exporter-prometheus): %s"
                              % e) from e
        self.registry = CollectorRegistry()
        self.reader = PrometheusMetricReader(registry=self.registry)
        #: the MeterProvider to instrument clients with (``instrument(conf, endpoint)``)
        self.meter_provider = MeterProvider(
            metric_readers=[self.reader],
            resource=resource if resource is not None else Resource.create({}))
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
