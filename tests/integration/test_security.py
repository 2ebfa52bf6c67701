"""SSL and SASL (PLAIN, SCRAM) against a real broker with those listeners."""
import time
import uuid

import pytest

import confluent_binding as kafka

pytestmark = pytest.mark.integration


def _round_trip(conf, topic):
    reports = []
    p = kafka.Producer(conf)
    p.produce(topic, b"secret", b"k", headers=[("h", b"v")],
              on_delivery=lambda err, msg: reports.append((err, msg.offset())))
    assert p.flush(30) == 0
    p.close()
    assert reports == [(None, 0)]
    c = kafka.Consumer(dict(conf, **{"group.id": uuid.uuid4().hex,
                                     "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    try:
        for _ in range(30):
            m = c.poll(1.0)
            if m is not None:
                assert m.error() is None, m.error()
                return (m.key(), m.value(), m.headers(), m.offset())
    finally:
        c.close()
    pytest.fail("nothing consumed")


@pytest.mark.parametrize("listener", [
    "ssl", "ssl-client-cert", "plain", "scram-256", "scram-512", "sasl-ssl-scram-512"])
def test_round_trip_over_secured_listener(secure_cluster, listener):
    c = secure_cluster
    conf = {
        "ssl": lambda: c.ssl_client_config(),
        "ssl-client-cert": lambda: c.ssl_client_config(client_cert=True),
        "plain": lambda: c.sasl_client_config("PLAIN", "alice"),
        "scram-256": lambda: c.sasl_client_config("SCRAM-SHA-256", "alice"),
        "scram-512": lambda: c.sasl_client_config("SCRAM-SHA-512"),
        "sasl-ssl-scram-512": lambda: c.sasl_ssl_client_config("SCRAM-SHA-512", "alice"),
    }[listener]()
    topic = c.create_topic("sec-" + uuid.uuid4().hex[:8])
    assert _round_trip(conf, topic) == (b"k", b"secret", [("h", b"v")], 0)


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_wrong_password_is_an_authentication_error(secure_cluster, mechanism):
    errors = []
    conf = secure_cluster.sasl_client_config(mechanism, "alice", "wrong-password")
    p = kafka.Producer(dict(conf, error_cb=errors.append))
    deadline = 50
    while not any(e.code() == kafka.KafkaError._AUTHENTICATION for e in errors) and deadline:
        p.poll(0.2)
        deadline -= 1
    assert any(e.code() == kafka.KafkaError._AUTHENTICATION for e in errors), errors
    # a request cannot get through either (librdkafka keeps retrying until the timeout)
    with pytest.raises(kafka.KafkaException) as info:
        p.list_topics(timeout=1)
    assert info.value.args[0].code() in (kafka.KafkaError._AUTHENTICATION,
                                         kafka.KafkaError._TRANSPORT,
                                         kafka.KafkaError._TIMED_OUT)
    p.close(0)


def test_set_sasl_credentials_fixes_a_wrong_password(secure_cluster):
    conf = secure_cluster.sasl_client_config("SCRAM-SHA-256", "alice", "wrong-password")
    p = kafka.Producer(dict(conf, **{"reconnect.backoff.ms": 100, "reconnect.backoff.max.ms": 200}))
    p.set_sasl_credentials("alice", "alice-secret")
    md = p.list_topics(timeout=20)
    assert len(md.brokers) == 1
    p.close()


class _Capture:
    """Everything a client hands back to the application, as text: log lines, errors, stats."""

    def __init__(self):
        self.lines = []

    def log(self, level, fmt, *args):
        self.lines.append(fmt % args)

    def error(self, err):
        self.lines.append("%r %s" % (err, err.str()))

    def stats(self, text):
        self.lines.append(text)

    def callbacks(self):
        return {"logger": self, "error_cb": self.error, "stats_cb": self.stats,
                "statistics.interval.ms": 100, "debug": "all"}


def _secret_free(capture, secrets, *objects):
    text = "\n".join(capture.lines + [repr(o) for o in objects] + [str(o) for o in objects])
    assert capture.lines, "nothing was captured"
    for secret in secrets:
        assert secret not in text, "a secret appears in what the client reported"


@pytest.mark.parametrize("password", ["right", "wrong"])
def test_secrets_never_reach_logs_errors_stats_or_reprs(secure_cluster, password):
    """sasl.password, ssl.key.password and sasl.oauthbearer.client.secret appear in no log
    line (debug=all, which dumps the configuration), error, stats document, exception or
    repr, whether authentication succeeds or fails."""
    token = uuid.uuid4().hex
    secrets = ["alice-secret" if password == "right" else "wrong-" + token,
               "keypass-" + token, "oidc-" + token]
    capture = _Capture()
    conf = secure_cluster.sasl_ssl_client_config("SCRAM-SHA-512", "alice",
                                                 None if password == "right" else secrets[0])
    conf.update(capture.callbacks())
    conf.update({"ssl.key.password": secrets[1], "sasl.oauthbearer.client.secret": secrets[2]})
    p = kafka.Producer(conf)
    raised = []
    try:
        # a wrong password fails authentication at once; the request waits out its timeout
        md = p.list_topics(timeout=10 if password == "right" else 2)
        assert password == "right" and len(md.brokers) == 1
        topic = secure_cluster.create_topic("secrets-" + token[:8])
        reports = []
        p.produce(topic, b"v", on_delivery=lambda err, msg: reports.append((err, msg)))
        assert p.flush(30) == 0 and reports[0][0] is None
        objects = [p, reports[0][1]]
    except kafka.KafkaException as exc:
        assert password == "wrong", exc
        raised.append(exc)
        objects = [p, exc, exc.args[0]]
    # serve what is left (stats, the authentication error) into the capture
    deadline = 50
    while deadline and not any('"brokers"' in line for line in capture.lines):
        p.poll(0.1)
        deadline -= 1
    p.close(0)
    if password == "wrong":
        assert raised and any("_AUTHENTICATION" in line for line in capture.lines)
    assert any("SCRAM" in line for line in capture.lines)   # the SASL exchange was logged
    # the configuration dump was seen, the secrets in it redacted by librdkafka
    assert any("sasl.password = [redacted]" in line for line in capture.lines)
    _secret_free(capture, secrets, *objects)


def test_untrusted_broker_certificate_fails_naming_the_reason(secure_cluster, tmp_path):
    """A client trusting another CA refuses the broker: error_cb reports an SSL error that says
    the certificate failed verification, the blocking call fails within its timeout, and no
    message is ever written."""
    from confluent_binding.testing import make_test_certificates

    other_ca = make_test_certificates(tmp_path / "other").ca_cert
    errors = []
    conf = dict(secure_cluster.ssl_client_config(), **{"ssl.ca.location": str(other_ca),
                                                       "log_level": 0})
    p = kafka.Producer(conf, error_cb=errors.append)
    t0 = time.monotonic()
    with pytest.raises(kafka.KafkaException) as info:
        p.list_topics(timeout=5)
    assert time.monotonic() - t0 < 10
    assert info.value.args[0].code() in (kafka.KafkaError._TRANSPORT,
                                         kafka.KafkaError._TIMED_OUT), info.value
    # Other errors may come first (a connection attempt that failed otherwise, "all brokers
    # down"); the handshake's own error is what must arrive and name the reason.
    def ssl_errors():
        return [e for e in errors if e.code() == kafka.KafkaError._SSL]

    deadline = time.monotonic() + 10
    while not ssl_errors() and time.monotonic() < deadline:
        p.poll(0.2)
    assert ssl_errors(), errors
    assert "certificate verify failed" in ssl_errors()[0].str(), ssl_errors()[0].str()
    p.close(0)
