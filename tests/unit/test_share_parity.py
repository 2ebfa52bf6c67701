"""ShareConsumer, Messages and AcknowledgeType without a broker, on confluent-kafka and on the
binding: the same scenarios, each with the outcome it must have on both (results, exception
types and messages), compared. The share consumer against a real broker:
tests/integration/test_share_consumer.py."""

import pytest

import confluent_binding
from confluent_binding import KafkaError

from tests.support import closed_port
from tests.support.parity import Raises, same

peer = pytest.importorskip("confluent_kafka")


def conf(**extra):
    c = {"bootstrap.servers": "127.0.0.1:%d" % closed_port(), "log_level": 0, "group.id": "g"}
    c.update(extra)
    return c


def test_public_names():
    for name in ("ShareConsumer", "DeserializingShareConsumer", "Messages", "AcknowledgeType",
                 "IllegalStateException", "ConcurrentModificationException"):
        assert hasattr(peer, name) and hasattr(confluent_binding, name), name
        assert name in confluent_binding.__all__ or name.endswith("Exception"), name
    assert issubclass(confluent_binding.IllegalStateException, RuntimeError)
    assert issubclass(confluent_binding.ConcurrentModificationException, RuntimeError)
    public = {n for n in dir(peer.ShareConsumer) if not n.startswith("_")}
    assert public <= {n for n in dir(confluent_binding.ShareConsumer) if not n.startswith("_")}


def test_acknowledge_type():
    same(lambda m: [(t.name, int(t)) for t in m.AcknowledgeType],
         [("ACCEPT", 1), ("RELEASE", 2), ("REJECT", 3)])
    same(lambda m: (m.AcknowledgeType(2).name, m.AcknowledgeType.REJECT == 3), ("RELEASE", True))


def test_messages():
    def scenario(m):
        msgs = [m.Message("t", 0, i, value=b"%d" % i) for i in range(3)]
        batch = m.Messages(msgs)
        empty = m.Messages()
        part = batch[1:]
        copy = batch.records()
        copy.append(None)
        return (len(batch), batch.count(), batch.is_empty(), empty.is_empty(), len(empty),
                [x.value() for x in batch], batch[0].value(), batch[-1].offset(),
                type(part).__name__, [x.value() for x in part], len(batch.records()))
    same(scenario, (3, 3, False, True, 0, [b"0", b"1", b"2"], b"0", 2, "Messages", [b"1", b"2"],
                    3))


@pytest.mark.parametrize("extra,expect", [
    ({"group.id": None}, Raises(ValueError, "Failed to create consumer: group.id must be set")),
    ({"on_commit": print}, Raises(ValueError, "on_commit is not supported on ShareConsumer")),
    ({"nope": 1}, Raises("KafkaException", 'No such configuration property: "nope"',
                         code=KafkaError._INVALID_ARG)),
    ({"enable.auto.commit": True},
     Raises(ValueError, "Failed to create share consumer: `enable.auto.commit` is not "
            "applicable for share consumer")),
    ({"share.acknowledgement.mode": "explicit"}, "created"),
])
def test_construction(extra, expect):
    def scenario(m):
        c = m.ShareConsumer({k: v for k, v in conf(**extra).items() if v is not None})
        c.close()
        return "created"
    same(scenario, expect)


NOT_ACKNOWLEDGEABLE = "Local: Erroneous state"
INVALID = "Local: Invalid argument or configuration"

SCENARIOS = [
    ("poll unsubscribed", lambda c, m: c.poll(0.1),
     Raises("IllegalStateException", "Consumer is not subscribed to any topics")),
    ("subscription", lambda c, m: c.subscription(), []),
    ("subscribe str", lambda c, m: c.subscribe("t"),
     Raises(TypeError, "expected list of topic unicode strings")),
    ("subscribe duplicate", lambda c, m: c.subscribe(["t", "t"]),
     Raises(ValueError, "Failed to subscribe: " + INVALID)),
    ("subscribe empty name", lambda c, m: c.subscribe([""]),
     Raises(ValueError, "Failed to subscribe: " + INVALID)),
    ("subscribe then subscription", lambda c, m: (c.subscribe(["a", "b"]), c.subscription()),
     (None, ["a", "b"])),
    ("subscribe then unsubscribe", lambda c, m: (c.subscribe(["a"]), c.unsubscribe(),
                                                 c.subscription()), (None, None, [])),
    ("poll subscribed", lambda c, m: (c.subscribe(["t"]), len(c.poll(0.2)),
                                      type(c.poll(0)).__name__), (None, 0, "Messages")),
    ("acknowledge in implicit mode", lambda c, m: c.acknowledge(m.Message("t", 0, 0)),
     Raises("IllegalStateException", "Failed to acknowledge message: " + NOT_ACKNOWLEDGEABLE)),
    ("acknowledge a non-message", lambda c, m: c.acknowledge(5),
     Raises(TypeError, "argument 1 must be Message, not int")),
    ("acknowledge_offset in implicit mode", lambda c, m: c.acknowledge_offset("t", 0, 0),
     Raises("IllegalStateException", "Failed to acknowledge offset: " + NOT_ACKNOWLEDGEABLE)),
    ("acknowledge_offset str type", lambda c, m: c.acknowledge_offset("t", 0, 0, "x"),
     Raises(TypeError, "'str' object cannot be interpreted as an integer")),
    ("acknowledge_offset int topic", lambda c, m: c.acknowledge_offset(5, 0, 0),
     Raises(TypeError, "argument 1 must be str, not int")),
    ("commit_sync nothing pending", lambda c, m: c.commit_sync(0.5), {}),
    ("commit_async nothing pending", lambda c, m: c.commit_async(), None),
    ("commit_sync str timeout", lambda c, m: c.commit_sync("x"),
     Raises(TypeError, "must be real number, not str")),
    ("callback not callable", lambda c, m: c.set_acknowledgement_commit_callback(5),
     Raises(TypeError, "callback must be callable or None")),
    ("callback cleared", lambda c, m: c.set_acknowledgement_commit_callback(None), None),
    ("callback set", lambda c, m: c.set_acknowledgement_commit_callback(lambda o, e: None),
     None),
    ("close twice", lambda c, m: (c.close(), c.close()), (None, None)),
]


@pytest.mark.parametrize("body,expect", [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS])
def test_share_consumer_calls(body, expect):
    def scenario(m):
        c = m.ShareConsumer(conf())
        try:
            return body(c, m)
        finally:
            c.close()
    same(scenario, expect)


EXPLICIT = [
    ("unknown record", lambda c, m: c.acknowledge(m.Message("t", 0, 0)),
     Raises("IllegalStateException", "Failed to acknowledge message: " + NOT_ACKNOWLEDGEABLE)),
    ("unknown offset", lambda c, m: c.acknowledge_offset("t", 0, 5, m.AcknowledgeType.REJECT),
     Raises("IllegalStateException", "Failed to acknowledge offset: " + NOT_ACKNOWLEDGEABLE)),
    ("negative partition", lambda c, m: c.acknowledge_offset("t", -1, 5),
     Raises(ValueError, "Failed to acknowledge offset: " + INVALID)),
    ("message without topic", lambda c, m: c.acknowledge(m.Message()),
     Raises(ValueError, "Failed to acknowledge message: " + INVALID)),
]


@pytest.mark.parametrize("body,expect", [e[1:] for e in EXPLICIT], ids=[e[0] for e in EXPLICIT])
def test_explicit_mode_acknowledge_errors(body, expect):
    def scenario(m):
        c = m.ShareConsumer(conf(**{"share.acknowledgement.mode": "explicit"}))
        try:
            c.subscribe(["t"])
            return body(c, m)
        finally:
            c.close()
    same(scenario, expect)


CLOSED = [("poll", (0,)), ("subscribe", (["t"],)), ("unsubscribe", ()), ("subscription", ()),
          ("acknowledge", None), ("acknowledge_offset", ("t", 0, 0)), ("commit_sync", ()),
          ("commit_async", ()), ("set_acknowledgement_commit_callback", (None,)),
          ("set_sasl_credentials", ("a", "b"))]


@pytest.mark.parametrize("how", ["close", "with"])
@pytest.mark.parametrize("name,args", CLOSED)
def test_closed_share_consumer(how, name, args):
    def scenario(m):
        if how == "close":
            c = m.ShareConsumer(conf())
            c.close()
        else:
            with m.ShareConsumer(conf()) as c:
                pass
        return getattr(c, name)(*(args if args is not None else (m.Message("t", 0, 0),)))
    same(scenario, Raises("IllegalStateException", "Share consumer closed"))


def test_enter_returns_the_consumer_even_closed():
    def scenario(m):
        c = m.ShareConsumer(conf())
        c.close()
        return c.__enter__() is c, c.__exit__(None, None, None)
    same(scenario, (True, None))


def test_close_from_a_callback_it_is_serving_is_refused():
    """Beyond confluent-kafka, whose process aborts when close() is called from error_cb (or
    another callback but the acknowledgement-commit one, which librdkafka guards: see
    tests/integration/test_share_consumer.py): close() refuses with the share consumer's
    IllegalStateException, poll() raises it, and the consumer stays usable."""
    box = {"closing": True}

    def error_cb(err):
        if box["closing"]:
            box["consumer"].close()

    c = box["consumer"] = confluent_binding.ShareConsumer(conf(error_cb=error_cb))
    c.subscribe(["t"])
    with pytest.raises(confluent_binding.IllegalStateException,
                       match=r"ShareConsumer.close\(\) called from a callback"):
        for _ in range(100):    # a closed port: the transport error comes within a poll
            c.poll(0.5)
    box["closing"] = False
    assert c.subscription() == ["t"]
    c.close()
    with pytest.raises(confluent_binding.IllegalStateException, match="Share consumer closed"):
        c.poll(0)
