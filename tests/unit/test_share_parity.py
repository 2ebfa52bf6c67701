"""ShareConsumer, Messages and AcknowledgeType without a broker, on confluent-kafka and on the
binding: the same scenarios, compared (results, exception types and messages). The share
consumer against a real broker: tests/integration/test_share_consumer.py."""

import pytest

import confluent_binding

from tests.support import closed_port
from tests.support.parity import same

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
    same(lambda m: [(t.name, int(t)) for t in m.AcknowledgeType])
    same(lambda m: (m.AcknowledgeType(2).name, m.AcknowledgeType.REJECT == 3))


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
    same(scenario)


@pytest.mark.parametrize("extra", [
    {"group.id": None}, {"on_commit": print}, {"nope": 1},
    {"enable.auto.commit": True}, {"share.acknowledgement.mode": "explicit"},
])
def test_construction(extra):
    def scenario(m):
        c = m.ShareConsumer({k: v for k, v in conf(**extra).items() if v is not None})
        c.close()
        return "created"
    same(scenario)


SCENARIOS = [
    ("poll unsubscribed", lambda c, m: c.poll(0.1)),
    ("subscription", lambda c, m: c.subscription()),
    ("subscribe str", lambda c, m: c.subscribe("t")),
    ("subscribe duplicate", lambda c, m: c.subscribe(["t", "t"])),
    ("subscribe empty name", lambda c, m: c.subscribe([""])),
    ("subscribe then subscription", lambda c, m: (c.subscribe(["a", "b"]), c.subscription())),
    ("subscribe then unsubscribe", lambda c, m: (c.subscribe(["a"]), c.unsubscribe(),
                                                 c.subscription())),
    ("poll subscribed", lambda c, m: (c.subscribe(["t"]), len(c.poll(0.2)),
                                      type(c.poll(0)).__name__)),
    ("acknowledge in implicit mode", lambda c, m: c.acknowledge(m.Message("t", 0, 0))),
    ("acknowledge a non-message", lambda c, m: c.acknowledge(5)),
    ("acknowledge_offset in implicit mode", lambda c, m: c.acknowledge_offset("t", 0, 0)),
    ("acknowledge_offset str type", lambda c, m: c.acknowledge_offset("t", 0, 0, "x")),
    ("acknowledge_offset int topic", lambda c, m: c.acknowledge_offset(5, 0, 0)),
    ("commit_sync nothing pending", lambda c, m: c.commit_sync(0.5)),
    ("commit_async nothing pending", lambda c, m: c.commit_async()),
    ("commit_sync str timeout", lambda c, m: c.commit_sync("x")),
    ("callback not callable", lambda c, m: c.set_acknowledgement_commit_callback(5)),
    ("callback cleared", lambda c, m: c.set_acknowledgement_commit_callback(None)),
    ("callback set", lambda c, m: c.set_acknowledgement_commit_callback(lambda o, e: None)),
    ("close twice", lambda c, m: (c.close(), c.close())),
]


@pytest.mark.parametrize("body", [b for _, b in SCENARIOS], ids=[n for n, _ in SCENARIOS])
def test_share_consumer_calls(body):
    def scenario(m):
        c = m.ShareConsumer(conf())
        try:
            return body(c, m)
        finally:
            c.close()
    same(scenario)


EXPLICIT = [
    ("unknown record", lambda c, m: c.acknowledge(m.Message("t", 0, 0))),
    ("unknown offset", lambda c, m: c.acknowledge_offset("t", 0, 5, m.AcknowledgeType.REJECT)),
    ("negative partition", lambda c, m: c.acknowledge_offset("t", -1, 5)),
    ("message without topic", lambda c, m: c.acknowledge(m.Message())),
]


@pytest.mark.parametrize("body", [b for _, b in EXPLICIT], ids=[n for n, _ in EXPLICIT])
def test_explicit_mode_acknowledge_errors(body):
    def scenario(m):
        c = m.ShareConsumer(conf(**{"share.acknowledgement.mode": "explicit"}))
        try:
            c.subscribe(["t"])
            return body(c, m)
        finally:
            c.close()
    same(scenario)


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
    outcome = same(scenario)
    assert outcome[:2] == ("raised", "IllegalStateException")


def test_enter_returns_the_consumer_even_closed():
    def scenario(m):
        c = m.ShareConsumer(conf())
        c.close()
        return c.__enter__() is c, c.__exit__(None, None, None)
    same(scenario)
