"""SASL OAUTHBEARER with ``oauth_cb`` against a real broker, side by side with confluent-kafka.

The secure test broker accepts OAUTHBEARER on its SASL listeners with Kafka's unsecured
validator: a token with ``alg: none``, a subject and an ``exp`` in the future is accepted; an
expired one is refused by the broker itself. So each scenario exercises what a user's token
provider does: the first token at construction, its use to produce and consume, a refresh
before it runs out, and the broker's refusal of a bad token.
"""
import threading
import time
import uuid

import pytest

from tests.support.oauth_token_server import unsecured_jwt
from tests.support.parity import same
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def oauth_config(cluster, oauth_cb, **extra):
    conf = {"bootstrap.servers": cluster.sasl_bootstrap_servers,
            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
            "oauth_cb": oauth_cb, "log_level": 0}
    conf.update(extra)
    return conf


def test_produce_and_consume_with_tokens_from_oauth_cb(secure_cluster):
    topic = secure_cluster.create_topic("oauth-" + uuid.uuid4().hex[:8])

    def scenario(m):
        calls = []

        def oauth_cb(config):
            calls.append(config)
            exp = time.time() + 300
            return unsecured_jwt("alice", exp), exp, "alice"

        p = m.Producer(oauth_config(secure_cluster, oauth_cb,
                                    **{"sasl.oauthbearer.config": "scope=write"}))
        reports = []
        p.produce(topic, b"by-" + m.__name__.encode(), b"k", headers=[("h", b"v")],
                  on_delivery=lambda err, msg: reports.append(err))
        assert p.flush(30) == 0
        p.close() if hasattr(p, "close") else None
        c = m.Consumer(oauth_config(secure_cluster, oauth_cb, **{
            "sasl.oauthbearer.config": "scope=read", "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest", "enable.auto.commit": False}))
        c.subscribe([topic])
        try:
            got = []
            wait_until(lambda: any(v.endswith(m.__name__.encode()) for v in got),
                       lambda: got.extend(msg.value() for msg in [c.poll(0.5)]
                                          if msg is not None and msg.error() is None),
                       timeout=30)
        finally:
            c.close()
        # delivered and read back; one token each for the producer and the consumer, asked
        # for with their own sasl.oauthbearer.config
        return reports, got[-1][-len(m.__name__):] == m.__name__.encode(), calls

    same(scenario, ([None], True, ["scope=write", "scope=read"]))


def test_token_refreshed_before_it_expires_and_still_accepted(secure_cluster):
    topic = secure_cluster.create_topic("oauth-refresh-" + uuid.uuid4().hex[:8])

    def scenario(m):
        calls = []

        def oauth_cb(config):
            calls.append(threading.get_ident())
            exp = time.time() + 3         # librdkafka refreshes at 80% of the lifetime
            return unsecured_jwt("alice", exp), exp

        p = m.Producer(oauth_config(secure_cluster, oauth_cb))
        try:
            refreshed = wait_until(lambda: len(calls) >= 3, lambda: p.poll(0.2), timeout=20)
            # a message produced after the refreshes goes through on the new tokens
            reports = []
            p.produce(topic, b"after refresh", on_delivery=lambda err, msg: reports.append(err))
            assert p.flush(30) == 0
            return refreshed, reports
        finally:
            p.close() if hasattr(p, "close") else None

    same(scenario, (True, [None]))


def test_oauth_cb_runs_on_the_application_thread_only(secure_cluster):
    """Ours: oauth_cb runs on the constructing thread, then inside poll() (confluent-kafka
    calls it on librdkafka's background thread)."""
    import confluent_binding

    threads = []

    def oauth_cb(config):
        threads.append(threading.get_ident())
        exp = time.time() + 3
        return unsecured_jwt("alice", exp), exp

    p = confluent_binding.Producer(oauth_config(secure_cluster, oauth_cb))
    try:
        assert wait_until(lambda: len(threads) >= 2, lambda: p.poll(0.2), timeout=20)
        assert p.list_topics(timeout=10).brokers
    finally:
        p.close()
    assert set(threads) == {threading.get_ident()}


def test_broker_refuses_an_expired_token(secure_cluster):
    def scenario(m):
        errors = []

        def oauth_cb(config):
            # librdkafka is told it is valid for 5 minutes; the token itself says it expired
            return unsecured_jwt("alice", time.time() - 60, iat=time.time() - 120), \
                time.time() + 300

        p = m.Producer(oauth_config(secure_cluster, oauth_cb, error_cb=errors.append))
        try:
            refused = wait_until(
                lambda: any(e.code() == m.KafkaError._AUTHENTICATION for e in errors),
                lambda: p.poll(0.2), timeout=20)
            return refused
        finally:
            p.close() if hasattr(p, "close") else None

    same(scenario, True)
