"""oauth_cb with SASL OAUTHBEARER, side by side with confluent-kafka: construction returns once
it has set the first token (or raises SASL_AUTHENTICATION_FAILED after 10 seconds without one),
and the token is refreshed before it expires while the application polls. Ours calls oauth_cb
only on the application's threads (construction's, then the one in poll() and the others);
confluent-kafka's on librdkafka's background thread."""

import importlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.parity import Raises, same, same_at_once
from tests.support.waiting import wait_until

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


def poll_once(client, kind):
    """One short serving call: the share consumer's poll() needs a subscription."""
    if kind == "share_consumer" and not client.subscription():
        client.subscribe(["oauth-topic"])
    client.poll(0.2)



@pytest.mark.parametrize("kind", ["producer", "consumer", "share_consumer", "admin"])
def test_construction_waits_for_the_first_token(kind):
    def scenario(m):
        calls = []

        def oauth_cb(config):
            calls.append((config, threading.get_ident()))
            return "token", time.time() + 300, "me", {"ext": "v"}

        client = make(m, kind, oauth_conf(oauth_cb))
        try:
            return [config for config, thread in calls]   # once, before construction returned
        finally:
            close(client)

    same(scenario, [CONFIG])


@pytest.mark.parametrize("kind", ["producer", "consumer", "share_consumer", "admin"])
def test_construction_calls_oauth_cb_on_its_own_thread(kind):
    import confluent_binding

    threads = []

    def oauth_cb(config):
        threads.append(threading.get_ident())
        return "token", time.time() + 300

    close(make(confluent_binding, kind, oauth_conf(oauth_cb)))
    assert threads == [threading.get_ident()]


def test_construction_fails_without_a_token():
    """Each waits out the 10 s, so all run at once: an oauth_cb that raises, one that returns no
    tuple, on both clients; and ours keeps the last exception oauth_cb raised during
    construction as the timeout's cause."""
    import confluent_binding

    def raises(config):
        raise ValueError("no token for " + config)

    def not_a_tuple(config):
        return "just-a-token-string"

    with ThreadPoolExecutor(1) as pool:
        ours = pool.submit(make, confluent_binding, "consumer", oauth_conf(raises))
        same_at_once([lambda m, cb=cb: make(m, "producer", oauth_conf(cb))
                      for cb in (raises, not_a_tuple)],
                     Raises("KafkaException", "OAuth token not set within 10 seconds timeout",
                            code=58))
        with pytest.raises(confluent_binding.KafkaException) as ei:
            ours.result()
    assert ei.value.args[0].code() == confluent_binding.KafkaError.SASL_AUTHENTICATION_FAILED
    assert isinstance(ei.value.__cause__, ValueError)
    assert ei.value.__cause__.args == ("no token for " + CONFIG,)


@pytest.mark.parametrize("kind", ["producer", "consumer", "share_consumer", "admin"])
def test_token_refreshed_while_polling(kind):
    def scenario(m):
        calls = []

        def oauth_cb(config):
            calls.append(config)
            return "token", time.time() + 2.0     # refreshed at 80% of its lifetime

        client = make(m, kind, oauth_conf(oauth_cb))
        try:
            return wait_until(lambda: len(calls) > 1, lambda: poll_once(client, kind),
                              timeout=15)
        finally:
            close(client)

    same(scenario, True)


@pytest.mark.parametrize("kind", ["producer", "consumer", "share_consumer", "admin"])
def test_refresh_served_inside_poll_on_the_calling_thread(kind):
    """Ours: a refresh is served by poll() on the thread that polls, here a thread other than
    the one that constructed the client; nothing refreshes the token while nobody polls."""
    import confluent_binding

    threads = []

    def oauth_cb(config):
        threads.append(threading.get_ident())
        return "token", time.time() + 1.0     # due for a refresh after 0.8 s

    client = make(confluent_binding, kind, oauth_conf(oauth_cb))
    try:
        assert threads == [threading.get_ident()]
        result = {}

        def poller():
            result["ident"] = threading.get_ident()
            result["served"] = wait_until(lambda: len(threads) > 1,
                                          lambda: poll_once(client, kind), timeout=15)

        worker = threading.Thread(target=poller)
        worker.start()
        worker.join()
        assert result["served"]
        assert threads[1:] == [result["ident"]] * (len(threads) - 1)
    finally:
        close(client)


def test_refresh_not_served_without_a_serving_call():
    """Ours: librdkafka asks for a refresh, but oauth_cb runs only once the application polls."""
    import confluent_binding

    threads = []

    def oauth_cb(config):
        threads.append(threading.get_ident())
        return "token", time.time() + 1.0

    client = make(confluent_binding, "producer", oauth_conf(oauth_cb))
    try:
        # An absence, so watched for a while: within these 3 s librdkafka's refresh timer (it
        # looks every second) queues the refresh, and nothing may serve it.
        time.sleep(3)
        assert threads == [threading.get_ident()]
        assert wait_until(lambda: len(threads) > 1, lambda: client.poll(0.2), timeout=15)
        assert set(threads) == {threading.get_ident()}
    finally:
        close(client)


def test_without_oauthbearer_construction_does_not_wait():
    """oauth_cb with another mechanism: ours neither waits nor fails (confluent-kafka waits 10
    seconds for a token that never comes and raises)."""
    import confluent_binding

    start = time.monotonic()
    p = confluent_binding.Producer({"bootstrap.servers": "127.0.0.1:1",
                                    "oauth_cb": lambda config: ("t", time.time() + 300)})
    assert time.monotonic() - start < 5
    p.close()


def test_keyboard_interrupt_in_oauth_cb_ends_construction_at_once():
    """Ours: a KeyboardInterrupt raised by oauth_cb is not waited out for 10 seconds."""
    import confluent_binding

    def oauth_cb(config):
        raise KeyboardInterrupt

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        make(confluent_binding, "producer", oauth_conf(oauth_cb))
    assert time.monotonic() - start < 5
