"""Client configurations for tests that need no broker: nothing listening, or librdkafka's
in-process mock cluster (unit tests only; integration tests use the real broker)."""
import socket


def closed_port():
    """A loopback port nothing listens on (bound once, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def unreachable(**extra):
    """A configuration whose bootstrap server refuses connections."""
    conf = {"bootstrap.servers": "127.0.0.1:%d" % closed_port(), "log_level": 0,
            "message.timeout.ms": 60000}
    conf.update(extra)
    return conf


def mock(**extra):
    """A configuration using librdkafka's mock cluster (one broker)."""
    conf = {"test.mock.num.brokers": 1, "log_level": 0}
    conf.update(extra)
    return conf


def filled_mock(topic, count):
    """A generator for a module fixture: a mock cluster (kept alive by its producer) holding
    ``count`` records b"0", b"1", ... in ``topic`` [0]; yields its bootstrap address."""
    from confluent_binding import Producer

    p = Producer(mock())
    for i in range(count):
        p.produce(topic, b"%d" % i, partition=0)
    assert p.flush(10) == 0
    broker = p.list_topics(timeout=10).brokers[1]
    yield "%s:%d" % (broker.host, broker.port)
    p.close()
