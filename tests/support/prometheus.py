"""A real Prometheus server for the tests: Debian's ``prometheus`` binary (``make system``
installs it) started as a process on loopback, on a free port, with a configuration and a data
directory of its own in a temporary directory, scraping the targets it is given every
``scrape_interval``; queried through its HTTP API as an operator's PromQL would be. And a real
Pushgateway for it to scrape (Debian's ``prometheus-pushgateway``).

The packages' own systemd services play no part: nothing here reads their configuration, port
or data."""
import json
import shutil
import time
import urllib.parse
import urllib.request
from pathlib import Path

from confluent_binding.testing._process import ServerProcess, free_ports


class PrometheusError(RuntimeError):
    pass


class _Server:
    """A server binary of the Prometheus project on loopback, on a free port, with a working
    directory of its own; ready once it answers ``/-/ready``."""

    name = binary = ""

    def __init__(self, workdir):
        self.workdir = Path(workdir)
        self.port = None
        self.process = ServerProcess(self.name, self.workdir / ("%s.log" % self.binary),
                                     PrometheusError)

    def _argv(self):
        raise NotImplementedError

    def start(self, timeout=60):
        if shutil.which(self.binary) is None:
            raise PrometheusError("no '%s' executable on PATH (make system installs it)"
                                  % self.binary)
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.port,) = free_ports(1)
        self.process.start([shutil.which(self.binary)] + self._argv(), cwd=self.workdir)
        try:
            self.process.wait_ready(self._ready, timeout)
        except BaseException:
            self.process.kill()
            raise
        return self

    def stop(self):
        self.process.stop(20)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def address(self):
        """``host:port``: a scrape target, where pushes go, the base of the URLs."""
        return "127.0.0.1:%d" % self.port

    @property
    def url(self):
        return "http://" + self.address

    def _ready(self):
        with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as r:
            return r.status == 200


class Pushgateway(_Server):
    """A real Prometheus Pushgateway (Debian's ``prometheus-pushgateway``, which ``make system``
    installs), keeping what is pushed in memory only: ``with Pushgateway(tmp_dir) as gw: ...
    gw.address``. Prometheus scrapes it as a target (``PrometheusServer(...,
    honor_labels=True)`` keeps the pushed job and instance)."""

    name, binary = "Pushgateway", "prometheus-pushgateway"

    def _argv(self):
        return ["--web.listen-address=%s" % self.address]


class PrometheusServer(_Server):
    """``with PrometheusServer(tmp_dir, {"job": ["127.0.0.1:port"]}) as prom: prom.query(...)``.
    """

    name, binary = "Prometheus", "prometheus"

    def __init__(self, workdir, jobs, scrape_interval="500ms", honor_labels=False):
        super().__init__(workdir)
        self.jobs = dict(jobs)
        self.scrape_interval = scrape_interval
        # a Pushgateway's targets: keep the job and instance labels of the pushes
        self.honor_labels = honor_labels

    def _config(self):
        lines = ["global:", "  scrape_interval: %s" % self.scrape_interval,
                 "  scrape_timeout: %s" % self.scrape_interval, "scrape_configs:"]
        for job, targets in self.jobs.items():
            lines += ["  - job_name: %s" % json.dumps(job),
                      "    honor_labels: %s" % json.dumps(self.honor_labels),
                      "    static_configs:",
                      "      - targets: %s" % json.dumps(list(targets))]
        return "\n".join(lines) + "\n"

    def _argv(self):
        config = self.workdir / "prometheus.yml"
        config.write_text(self._config())
        return ["--config.file=%s" % config, "--storage.tsdb.path=%s" % (self.workdir / "data"),
                "--web.listen-address=%s" % self.address, "--storage.tsdb.retention.time=1h"]

    def _api(self, path, **params):
        url = "%s/api/v1/%s?%s" % (self.url, path, urllib.parse.urlencode(params))
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise PrometheusError("%s: %s" % (url, body))
        return body["data"]

    def query(self, promql):
        """The instant vector of ``promql`` now: ``{frozenset(labels.items()): value}``."""
        data = self._api("query", query=promql)
        if data["resultType"] == "scalar":
            return {frozenset(): float(data["result"][1])}
        return {frozenset(r["metric"].items()): float(r["value"][1]) for r in data["result"]}

    def value(self, promql):
        """The single value ``promql`` gives now; None when the result is empty."""
        result = self.query(promql)
        if not result:
            return None
        if len(result) != 1:
            raise PrometheusError("%s gave %d series: %s" % (promql, len(result), result))
        return next(iter(result.values()))

    def targets(self):
        """``{scrape URL: health}`` of the active targets (``up``, ``down``, ``unknown``)."""
        return {t["scrapeUrl"]: t["health"] for t in self._api("targets")["activeTargets"]}

    def wait_value(self, promql, cond, timeout=60, serve=None):
        """Wait until ``cond(value(promql))`` holds, calling ``serve()`` in between (the
        clients must be polled for their statistics to be served); returns the value."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            last = self.value(promql)
            if last is not None and cond(last):
                return last
            if time.monotonic() > deadline:
                raise AssertionError("%s never met the condition; last value %r; targets %s"
                                     % (promql, last, self.targets()))
            if serve is not None:
                serve()
            else:
                time.sleep(0.1)
