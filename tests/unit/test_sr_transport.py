"""The Schema Registry transport's rules that need no server: the wait before a retry
(``Retry-After`` in both of its forms, capped; the full-jitter backoff, as confluent-kafka's) and
the proxy setting's checks, side by side with confluent-kafka's client.  The transport against a
real registry, through a proxy, with retries and OAuth:
tests/integration/test_schema_registry_transport.py."""

import email.utils

import pytest

pytest.importorskip("confluent_kafka")  # the peer these tests compare with

import confluent_kafka.schema_registry as theirs  # noqa: E402
from confluent_kafka.schema_registry.common import schema_registry_client as their_common  # noqa: E402

import confluent_binding.schema_registry as ours  # noqa: E402
from confluent_binding.schema_registry import _rest, _retry  # noqa: E402

NOW = 1_700_000_000


@pytest.mark.parametrize("value, expected", [
    ("1", 1000.0),
    (" 2 ", 2000.0),
    ("0", 0.0),
    ("1.5", 1500.0),
    (email.utils.formatdate(NOW + 5, usegmt=True), 5000.0),
    (email.utils.formatdate(NOW - 60, usegmt=True), 0.0),  # already past: no wait
    (None, None),
    ("", None),
    ("-1", None),
    ("nan", None),
    ("soon", None),
    ("Sun, 06 Nov 1994 08:49:37", None),  # a date without its zone is no HTTP date
])
def test_retry_after_values(value, expected):
    assert _rest.retry_after_ms(value, now=NOW) == expected


def test_retry_after_is_capped_by_the_maximum_wait():
    assert _retry.retry_wait_ms("30", 10, 300, 0) == 300.0
    assert _retry.retry_wait_ms("0.1", 10, 300, 5) == 100.0
    assert _retry.retry_wait_ms("inf", 10, 300, 0) == 300.0


@pytest.mark.parametrize("attempt", range(7))
@pytest.mark.parametrize("draw", [0.0, 0.5, 0.999])
def test_without_retry_after_the_backoff_is_confluents(monkeypatch, attempt, draw):
    monkeypatch.setattr("random.random", lambda: draw)
    expected = their_common.full_jitter(1000, 20000, attempt)
    assert _retry.retry_wait_ms(None, 1000, 20000, attempt) == expected
    assert _retry.retry_wait_ms("never", 1000, 20000, attempt) == expected
    assert expected == draw * min(1000 * 2 ** attempt, 20000)


def test_retried_statuses_are_confluents():
    for status in range(100, 600):
        assert _rest.is_retriable(status) == their_common.is_retriable(status), status


@pytest.mark.parametrize("proxy", ["ftp://127.0.0.1:1", "127.0.0.1:3128", 3128])
def test_a_bad_proxy_setting_fails_at_construction_as_in_confluent(proxy):
    errors = []
    for mod in (ours, theirs):
        with pytest.raises(Exception) as info:
            mod.SchemaRegistryClient({"url": "http://127.0.0.1:1", "proxy": proxy})
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_closed_client_reopens_its_connections():
    client = ours.SchemaRegistryClient({"url": "http://127.0.0.1:1"})
    transport = client._rest_client._transport
    first = transport._open()
    client.close()
    assert first.is_closed
    second = transport._open()
    assert second is not first and not second.is_closed
    client.close()
