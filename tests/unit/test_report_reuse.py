"""The delivery report's Message is refilled for the next report when its callback kept no
reference to it. These tests hold the other side of that: a report the application keeps (the
Message, or its value, key or headers) never changes, whatever path serves the reports (flush,
poll, purge, close), and what a callback did to a Message it dropped never shows in the next.
"""

import pytest

from confluent_binding import KafkaError, KafkaException, Producer

from tests import support
from tests.support import mock

N = 300     # several reports per delivery event, several events


def _expected(i):
    return b"v%d" % i, b"k%d" % i


@pytest.fixture
def producer():
    p = Producer(mock())
    p.produce("rt", b"warm-up", partition=0)
    assert p.flush(10) == 0
    yield p
    p.close()


def test_kept_reports_never_change_and_dropped_ones_are_read_right(producer):
    kept, seen = [], []

    def cb(err, msg):
        # what this report says, read before anything else happens to it
        seen.append((err, msg.error(), msg.topic(), msg.partition(), msg.value(), msg.key(),
                     msg.headers(), msg.offset()))
        if len(seen) % 3 == 0:
            kept.append(msg)

    for i in range(N):
        producer.produce("rt", _expected(i)[0], key=_expected(i)[1], partition=1,
                         headers=[("h", b"x")], on_delivery=cb)
    assert producer.flush(10) == 0
    assert len(seen) == N
    offsets = [s[7] for s in seen]
    assert offsets == list(range(offsets[0], offsets[0] + N))
    for i, (err, merr, topic, partition, value, key, headers, _) in enumerate(seen):
        assert (err, merr, topic, partition, headers) == (None, None, "rt", 1, None)
        assert (value, key) == _expected(i)
    # each kept Message is a distinct object still describing its own report
    assert len({id(m) for m in kept}) == len(kept) == N // 3
    for j, m in enumerate(kept):
        i = 3 * j + 2
        assert (m.value(), m.key(), m.offset()) == (*_expected(i), offsets[i])
        assert m.error() is None and m.headers() is None


def test_kept_parts_of_dropped_reports_never_change(producer):
    parts = []

    def cb(err, msg):
        parts.append((msg.value(), msg.key(), msg.topic(), msg.timestamp(), msg.latency()))

    for i in range(N):
        producer.produce("rt", _expected(i)[0], key=_expected(i)[1], partition=1,
                         on_delivery=cb)
    assert producer.flush(10) == 0
    assert [p[:2] for p in parts] == [_expected(i) for i in range(N)]
    assert {p[2] for p in parts} == {"rt"}
    assert all(p[3][0] in (1, 2) and p[4] >= 0 for p in parts)


def test_changes_made_to_a_dropped_report_do_not_leak_into_the_next(producer):
    seen = []

    def cb(err, msg):
        seen.append((msg.value(), msg.key(), msg.headers(), msg.error(), msg.topic()))
        msg.set_value(b"changed")
        msg.set_key(b"changed")
        msg.set_headers([("changed", b"1")])
        msg.set_topic("changed")

    for i in range(N):
        producer.produce("rt", _expected(i)[0], key=_expected(i)[1], partition=1,
                         on_delivery=cb)
    assert producer.flush(10) == 0
    assert [s[:2] for s in seen] == [_expected(i) for i in range(N)]
    assert {s[2] for s in seen} == {None} and {s[3] for s in seen} == {None}
    assert {s[4] for s in seen} == {"rt"}


def test_errors_and_successes_interleaved():
    # an unknown partition of a topic not known yet: queued, then reported with an error. Once
    # the topic's metadata has arrived, produce() refuses such a message at once instead (as
    # confluent-kafka's does). The mock broker answers after 0.5 s, so the loop ends before the
    # metadata arrives unless the machine stalls it that long (on a loaded machine a broker
    # answering at once had the metadata in before the first odd message).
    p = Producer(mock(**{"test.mock.broker.rtt": 500}))
    seen, refused = [], []

    def cb(err, msg):
        seen.append((msg.value(), None if err is None else err.code(), msg.error() is err,
                     msg.partition()))

    for i in range(N):
        try:
            p.produce("rt-mixed", b"%d" % i, partition=57 if i % 2 else 0, on_delivery=cb)
        except KafkaException as e:
            assert i % 2 and e.args[0].code() == KafkaError._UNKNOWN_PARTITION
            refused.append(i)
    assert p.flush(30) == 0
    assert sorted(seen, key=lambda s: int(s[0])) == [
        (b"%d" % i, KafkaError._UNKNOWN_PARTITION if i % 2 else None, True, 57 if i % 2 else 0)
        for i in range(N) if i not in refused]
    assert len(refused) < N // 2        # the first ones at least were queued and reported
    p.close()


@pytest.mark.parametrize("how", ["purge-flush", "purge-poll", "close"])
def test_purged_reports_kept_or_dropped(how):
    p = Producer(support.unreachable(**{"message.timeout.ms": 60000}))
    kept, seen = [], []

    def cb(err, msg):
        seen.append((msg.value(), err.code(), msg.error().code()))
        if int(msg.value()) % 2:
            kept.append(msg)

    for i in range(N):
        p.produce("t", b"%d" % i, partition=0, on_delivery=cb)
    if how == "close":
        p.close(0)      # purges what is left and serves the reports
    else:
        p.purge()
        if how == "purge-flush":
            assert p.flush(10) == 0
        else:
            while len(seen) < N:
                p.poll(1)
        p.close()
    assert sorted(int(s[0]) for s in seen) == list(range(N))
    assert {s[1:] for s in seen} == {(KafkaError._PURGE_QUEUE,) * 2}
    assert sorted(int(m.value()) for m in kept) == list(range(1, N, 2))
    assert len({id(m) for m in kept}) == N // 2


def test_report_kept_by_a_raising_callback_is_not_refilled(producer):
    kept = []

    def cb(err, msg):
        kept.append(msg)
        if len(kept) == 1:
            raise ValueError("first")

    for i in range(N):
        producer.produce("rt", _expected(i)[0], key=_expected(i)[1], partition=1,
                         on_delivery=cb)
    with pytest.raises(ValueError):
        producer.flush(10)
    assert producer.flush(10) == 0
    assert [(m.value(), m.key()) for m in kept] == [_expected(i) for i in range(N)]
