"""oauth_cb with SASL OAUTHBEARER, side by side with confluent-kafka: each client calls it on
librdkafka's background thread, construction returns once it has set the first token (or raises
SASL_AUTHENTICATION_FAILED after 10 seconds without one), and the token is refreshed before it
expires without any poll()."""

import importlib
import threading
import time

import pytest

from tests.support.parity import Raises, same

CONFIG = "scope=test principal=me"


def oauth_conf(oauth_cb, **extra):
    return dict({"bootstrap.servers": "127.0.0.1:1", "socket.timeout.ms": 100,
                 "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
                 "sasl.oauthbearer.config": CONFIG, "oauth_cb": oauth_cb}, **extra)


def make(m, kind, conf):
    if kind == "producer":
        return m.Producer(conf)
    if kind == "consumer":
        return m.Consumer(dict(conf, **{"group.id": "g"}))
    if kind == "share_consumer":
        return m.ShareConsumer(dict(conf, **{"group.id": "g"}))
    return importlib.import_module(m.__name__ + ".admin").AdminClient(conf)


def close(client):
    if hasattr(client, "close"):
        client.close()


@pytest.mark.parametrize("kind", ["producer", "consumer", "share_consumer", "admin"])
def test_construction_waits_for_the_first_token(kind):
    def scenario(m):
        calls = []

        def oauth_cb(config):
            calls.append((config, threading.get_ident()))
            return "token", time.time() + 300, "me", {"ext": "v"}

        client = make(m, kind, oauth_conf(oauth_cb))
        try:
            # called once, before the constructor returned, and not on this thread
            return [(config, thread != threading.get_ident()) for config, thread in calls]
        finally:
            close(client)

    same(scenario, [(CONFIG, True)])


@pytest.mark.parametrize("returns", ["raises", "not a tuple"])
def test_construction_fails_without_a_token(returns):
    def oauth_cb(config):
        if returns == "raises":
            raise ValueError("no token for " + config)
        return "just-a-token-string"

    same(lambda m: make(m, "producer", oauth_conf(oauth_cb)),
         Raises("KafkaException", "OAuth token not set within 10 seconds timeout", code=58))


def test_token_refreshed_without_poll():
    def scenario(m):
        calls = []
        refreshed = threading.Event()

        def oauth_cb(config):
            calls.append(config)
            if len(calls) > 1:
                refreshed.set()
            return "token", time.time() + 2.0     # refreshed at 80% of its lifetime

        client = make(m, "producer", oauth_conf(oauth_cb))
        try:
            return refreshed.wait(15)
        finally:
            close(client)

    same(scenario, True)


def test_without_oauthbearer_construction_does_not_wait():
    """oauth_cb with another mechanism: ours neither waits nor fails (confluent-kafka waits 10
    seconds for a token that never comes and raises)."""
    import confluent_binding

    start = time.monotonic()
    p = confluent_binding.Producer({"bootstrap.servers": "127.0.0.1:1",
                                    "oauth_cb": lambda config: ("t", time.time() + 300)})
    assert time.monotonic() - start < 5
    p.close()
