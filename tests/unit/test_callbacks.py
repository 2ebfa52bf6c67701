"""Callbacks are served only inside poll()/flush()/consume()/close() on the calling thread,
and an exception a callback raises comes out of that call unchanged (never a SystemError),
while what was not served yet is served by the next call."""

import functools
import json
import logging
import re
import sys
import threading
import time
import traceback

import pytest

from confluent_binding import Consumer, KafkaError, Producer, TopicPartition

from tests import support
from tests.support import call_until_raises, flush_until_it_stops_raising, mock, wait_until

unreachable = functools.partial(support.unreachable, **{"reconnect.backoff.ms": 10,
                                                          "reconnect.backoff.max.ms": 50})


class Boom(Exception):
    pass


def oauth_conf(**extra):
    return unreachable(**{"security.protocol": "SASL_PLAINTEXT",
                          "sasl.mechanisms": "OAUTHBEARER",
                          "sasl.oauthbearer.config": "scope=test principal=me"}, **extra)


def first_token_then(refresh):
    """An oauth_cb whose first call (served by construction) sets a token that librdkafka
    wants refreshed within about two seconds, and whose later calls are ``refresh``."""
    calls = []

    def oauth_cb(config):
        calls.append((config, threading.get_ident()))
        if len(calls) == 1:
            return "token", time.time() + 2.0     # refreshed at 80% of its lifetime
        return refresh(config)

    return oauth_cb, calls


def from_callback(exc, func):
    """The exception's traceback runs through func: it is the callback's own exception."""
    return func.__name__ in [f.name for f in traceback.extract_tb(exc.__traceback__)]


@pytest.fixture(autouse=True)
def no_stray_errors(capfd, monkeypatch):
    """Nothing is reported as unraisable, nothing like a SystemError reaches stderr."""
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    yield
    err = capfd.readouterr().err
    assert unraisable == []
    for bad in ("SystemError", "Exception ignored", "Traceback"):
        assert bad not in err


class RaiseOn:
    """An on_delivery that records values and raises on given call numbers (1-based)."""

    def __init__(self, *on, exc_type=Boom):
        self.on = set(on)
        self.values = []
        self.raised = []
        self.exc_type = exc_type

    def __call__(self, err, msg):
        self.values.append(msg.value())
        if len(self.values) in self.on:
            exc = self.exc_type("report %d" % len(self.values))
            self.raised.append(exc)
            raise exc


# -- on_delivery --


@pytest.mark.parametrize("how", ["purged", "delivered", "timed_out"])
def test_on_delivery_raising_in_flush_then_rest_delivered(how):
    if how == "delivered":
        p = Producer(mock())
    elif how == "timed_out":
        p = Producer(unreachable(**{"message.timeout.ms": 200}))
    else:
        p = Producer(unreachable())
    cb = RaiseOn(3)
    values = [b"%d" % i for i in range(10)]
    for v in values:
        p.produce("cbt", v, partition=0 if how == "delivered" else -1, on_delivery=cb)
    if how == "purged":
        p.purge()
    with pytest.raises(Boom) as ei:
        p.flush(10)
    assert ei.value is cb.raised[0]
    assert from_callback(ei.value, RaiseOn.__call__)
    assert len(cb.values) == 3
    assert len(p) >= 7               # the rest are still owed
    assert p.flush(10) == 0
    assert sorted(cb.values) == sorted(values)   # each exactly once, 10 in all
    assert len(cb.raised) == 1
    p.close()
    assert len(cb.values) == 10


def test_on_delivery_raising_in_poll_then_rest_delivered():
    cb = RaiseOn(3)
    p = Producer(unreachable())
    for i in range(10):
        p.produce("t", b"%d" % i, on_delivery=cb)
    p.purge()
    with pytest.raises(Boom) as ei:
        call_until_raises(lambda: p.poll(1))
    assert ei.value is cb.raised[0]
    assert wait_until(lambda: len(cb.values) == 10, lambda: p.poll(0.5))
    assert sorted(cb.values) == sorted(b"%d" % i for i in range(10))
    p.poll(0.1)
    assert len(cb.values) == 10
    p.close()


def test_configured_on_delivery_raising():
    cb = RaiseOn(1, 2)
    p = Producer(unreachable(on_delivery=cb))
    for i in range(4):
        p.produce("t", b"%d" % i)
    p.purge()
    for i in range(2):
        with pytest.raises(Boom) as ei:
            p.flush(5)
        assert ei.value is cb.raised[i]
    assert p.flush(5) == 0
    assert len(cb.values) == 4 and len(cb.raised) == 2
    p.close()


def test_on_delivery_raising_every_time():
    cb = RaiseOn(*range(1, 6))
    p = Producer(unreachable())
    for i in range(5):
        p.produce("t", b"%d" % i, on_delivery=cb)
    p.purge()
    assert flush_until_it_stops_raising(p, Boom) == 5
    assert len(cb.values) == 5
    p.close()


def test_keyboard_interrupt_from_on_delivery():
    cb = RaiseOn(1, exc_type=KeyboardInterrupt)
    p = Producer(unreachable())
    p.produce("t", b"a", on_delivery=cb)
    p.produce("t", b"b", on_delivery=cb)
    p.purge()
    with pytest.raises(KeyboardInterrupt) as ei:
        p.flush(5)
    assert ei.value is cb.raised[0]
    assert p.flush(5) == 0 and sorted(cb.values) == [b"a", b"b"]
    p.close()


def test_close_serves_reports_and_raises():
    cb = RaiseOn(2)
    p = Producer(unreachable())
    for i in range(3):
        p.produce("t", b"%d" % i, on_delivery=cb)
    with pytest.raises(Boom):
        p.close(0)
    p.close(0)           # finishes what the first close started
    assert sorted(cb.values) == [b"0", b"1", b"2"]
    with pytest.raises(RuntimeError):
        p.poll(0)


def test_delivery_callbacks_run_on_the_calling_thread():
    threads = []
    p = Producer(unreachable(on_delivery=lambda e, m: threads.append(threading.get_ident())))
    for i in range(5):
        p.produce("t", b"x")
    p.purge()
    worker_threads = []

    def worker():
        worker_threads.append(threading.get_ident())
        p.flush(5)

    th = threading.Thread(target=worker)
    th.start()
    th.join(10)
    assert threads == worker_threads * 5
    p.close()


# -- error_cb --


def _error_cb_raising_first():
    calls = []

    def error_cb(err):
        calls.append(err)
        if len(calls) == 1:
            raise Boom(err)
    return calls, error_cb


BROKER_DOWN = {KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN}


@pytest.mark.parametrize("call", ["poll", "flush"])
def test_producer_error_cb_raising(call):
    calls, error_cb = _error_cb_raising_first()
    conf = unreachable(error_cb=error_cb)
    p = Producer(conf)
    if call == "flush":
        p.produce("t", b"x")
    with pytest.raises(Boom) as ei:
        call_until_raises(lambda: getattr(p, call)(1))
    assert ei.value.args[0] is calls[0]
    assert from_callback(ei.value, error_cb)
    # later errors are still served by later calls
    assert wait_until(lambda: len(calls) >= 3, lambda: p.poll(0.2))
    assert {e.code() for e in calls} <= BROKER_DOWN
    # the first failed connection, then the client's only broker reported down
    assert all(isinstance(e, KafkaError) for e in calls)
    assert [e.code() for e in calls[:2]] == [KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN]
    host = conf["bootstrap.servers"]
    assert calls[0].str().startswith(
        "%s/bootstrap: Connect to ipv4#%s failed: Connection refused" % (host, host)), calls[0]
    # (librdkafka counts the brokers down as it sees them: "0/1" now and then)
    assert re.fullmatch(r"[01]/1 brokers are down", calls[1].str()), calls[1]
    p.purge()
    p.close(0)


@pytest.mark.parametrize("call", ["poll", "consume"])
def test_consumer_error_cb_raising(call):
    calls, error_cb = _error_cb_raising_first()
    c = Consumer(unreachable(error_cb=error_cb, **{"group.id": "g"}))
    c.subscribe(["t"])
    with pytest.raises(Boom) as ei:
        if call == "poll":
            c.poll(10)
        else:
            c.consume(5, 10)
    assert ei.value.args[0] is calls[0]
    assert calls[0].code() in BROKER_DOWN
    assert wait_until(lambda: len(calls) >= 3, lambda: c.poll(0.2))
    c.close()


# -- stats_cb --


def _stats_cb_raising_first():
    stats = []

    def stats_cb(text):
        stats.append(json.loads(text))
        if len(stats) == 1:
            raise Boom("stats")
    return stats, stats_cb


@pytest.mark.parametrize("call", ["poll", "flush"])
def test_producer_stats_cb_raising(call):
    stats, stats_cb = _stats_cb_raising_first()
    p = Producer(unreachable(stats_cb=stats_cb, **{"statistics.interval.ms": 100}))
    if call == "flush":
        p.produce("t", b"x")
    with pytest.raises(Boom):
        call_until_raises(lambda: getattr(p, call)(1))
    assert stats[0]["type"] == "producer"
    assert "brokers" in stats[0] and "ts" in stats[0]
    assert wait_until(lambda: len(stats) >= 3, lambda: p.poll(0.2))
    p.purge()
    p.close(0)


@pytest.mark.parametrize("call", ["poll", "consume"])
def test_consumer_stats_cb_raising(call):
    stats, stats_cb = _stats_cb_raising_first()
    c = Consumer(unreachable(stats_cb=stats_cb, **{"group.id": "g",
                                                   "statistics.interval.ms": 100}))
    with pytest.raises(Boom):
        c.poll(10) if call == "poll" else c.consume(3, 10)
    assert stats[0]["type"] == "consumer"
    assert wait_until(lambda: len(stats) >= 3, lambda: c.consume(1, 0.2))
    c.close()


# -- throttle_cb (called on a real broker's throttling: tests/integration/test_throttle.py) --


def test_throttle_cb_accepted_and_not_called_without_throttling():
    calls = []
    p = Producer(mock(throttle_cb=calls.append))
    p.produce("th", b"x")
    assert p.flush(10) == 0
    assert calls == []
    p.close()


# -- logger --


class Collecting(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []
        self.threads = set()

    def emit(self, record):
        self.records.append(record)
        self.threads.add(threading.get_ident())


def _collecting_logger(name):
    logger = logging.getLogger("confluent_binding.tests." + name)
    logger.handlers[:] = []
    handler = Collecting()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    return logger, handler


class RaisingLogger(logging.Logger):
    def __init__(self):
        super().__init__("raising", logging.DEBUG)
        self.calls = 0

    def log(self, level, msg, *args, **kwargs):
        self.calls += 1
        if self.calls == 1:
            raise Boom("log")


def _log_conf(**extra):
    conf = unreachable(debug="broker", **extra)
    del conf["log_level"]
    return conf


def test_producer_logger_receives_records_in_poll():
    logger, handler = _collecting_logger("producer")
    conf = _log_conf(logger=logger)
    host = conf["bootstrap.servers"]
    p = Producer(conf)

    def records(facility, text):
        """The levels of the records of one librdkafka facility whose text has ``text``."""
        return [r.levelno for r in handler.records
                if r.getMessage().startswith(facility + " [rdkafka#producer-")
                and text in r.getMessage()]

    refused = "Connect to ipv4#%s failed: Connection refused" % host
    # the refused connection is logged twice: traced at librdkafka's level 7 (debug=broker)
    # and logged at its level 3
    assert wait_until(lambda: logging.ERROR in records("FAIL", refused), lambda: p.poll(0.2))
    assert handler.threads == {threading.get_ident()}
    # librdkafka's syslog levels as the logging module's: 7 -> DEBUG, 3 -> ERROR
    assert records("BROKER", "%s/bootstrap: Added new broker with NodeId -1" % host) == [
        logging.DEBUG]
    assert records("FAIL", refused)[:2] == [logging.DEBUG, logging.ERROR]
    assert wait_until(lambda: logging.ERROR in records("ERROR", "/1 brokers are down"),
                      lambda: p.poll(0.2))
    p.close(0)


@pytest.mark.parametrize("call", ["poll", "flush"])
def test_producer_raising_logger(call):
    logger = RaisingLogger()
    p = Producer(_log_conf(logger=logger))
    if call == "flush":
        p.produce("t", b"x")
    with pytest.raises(Boom):
        call_until_raises(lambda: getattr(p, call)(1))
    assert wait_until(lambda: logger.calls >= 3, lambda: p.poll(0.2))
    p.purge()
    p.close(0)


@pytest.mark.parametrize("call", ["poll", "consume"])
def test_consumer_raising_logger(call):
    logger = RaisingLogger()
    c = Consumer(_log_conf(logger=logger, **{"group.id": "g"}))
    with pytest.raises(Boom):
        c.poll(10) if call == "poll" else c.consume(2, 10)
    assert wait_until(lambda: logger.calls >= 3, lambda: c.poll(0.2))
    c.close()


def test_consumer_logger_receives_records():
    logger, handler = _collecting_logger("consumer")
    c = Consumer(_log_conf(logger=logger, **{"group.id": "g"}))
    assert wait_until(lambda: len(handler.records) >= 5, lambda: c.poll(0.2))
    assert handler.threads == {threading.get_ident()}
    c.close()


# -- oauth_cb --
# With OAUTHBEARER construction serves the first token (tests/unit/test_parity_oauth.py); the
# refreshes after it are served like every other callback.


@pytest.mark.parametrize("client,call", [("producer", "poll"), ("producer", "flush"),
                                         ("consumer", "poll"), ("consumer", "consume")])
def test_oauth_cb_refresh_served_in_the_call(client, call):
    oauth_cb, calls = first_token_then(lambda config: ("token", time.time() + 300, "me",
                                                       {"ext": "v"}))
    if client == "producer":
        h = Producer(oauth_conf(oauth_cb=oauth_cb))
        if call == "flush":
            h.produce("t", b"x")
    else:
        h = Consumer(oauth_conf(oauth_cb=oauth_cb, **{"group.id": "g"}))
    me = threading.get_ident()
    assert calls == [("scope=test principal=me", me)]       # construction's
    if call == "consume":
        served = wait_until(lambda: len(calls) > 1, lambda: h.consume(1, 0.2))
    else:
        served = wait_until(lambda: len(calls) > 1, lambda: getattr(h, call)(0.2))
    assert served
    assert calls[1:] == [("scope=test principal=me", me)]  # served by this thread's call
    if client == "producer":
        h.purge()
        h.close(0)
    else:
        h.close()


@pytest.mark.parametrize("client,call", [("producer", "poll"), ("producer", "flush"),
                                         ("consumer", "poll"), ("consumer", "consume")])
def test_oauth_cb_raising(client, call):
    def refresh(config):
        raise Boom(config)

    oauth_cb, calls = first_token_then(refresh)
    if client == "producer":
        h = Producer(oauth_conf(oauth_cb=oauth_cb))
        if call == "flush":
            h.produce("t", b"x")
    else:
        h = Consumer(oauth_conf(oauth_cb=oauth_cb, **{"group.id": "g"}))
    with pytest.raises(Boom) as ei:
        if call == "consume":
            call_until_raises(lambda: h.consume(1, 0.2))
        else:
            call_until_raises(lambda: getattr(h, call)(0.2))
    assert ei.value.args == ("scope=test principal=me",)
    assert from_callback(ei.value, refresh)
    if client == "producer":
        h.purge()
        h.close(0)
    else:
        h.close()


def test_oauth_cb_bad_return_value():
    oauth_cb, calls = first_token_then(lambda config: "not a tuple")
    p = Producer(oauth_conf(oauth_cb=oauth_cb))
    with pytest.raises(TypeError, match="oauth_cb must return"):
        call_until_raises(lambda: p.poll(0.2))
    assert len(calls) == 2
    p.close(0)


# -- on_commit --


@pytest.mark.parametrize("call", ["poll", "consume"])
def test_on_commit_raising(call):
    results = []

    def on_commit(err, parts):
        results.append((err, parts))
        if len(results) == 1:
            raise Boom("commit")

    c = Consumer(mock(on_commit=on_commit, **{"group.id": "g", "enable.auto.commit": False}))
    c.commit(offsets=[TopicPartition("oc", 0, 1)])
    with pytest.raises(Boom) as ei:
        call_until_raises((lambda: c.poll(0.2)) if call == "poll"
                          else (lambda: c.consume(5, 0.2)))
    assert from_callback(ei.value, on_commit)
    # (the topic does not exist in this consumer's own mock cluster: the commit of that
    # partition fails, which is still a result for on_commit)
    err, parts = results[0]
    assert isinstance(err, KafkaError) and err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART
    assert [(t.topic, t.partition, t.offset, t.error.code()) for t in parts] == [
        ("oc", 0, 1, KafkaError.UNKNOWN_TOPIC_OR_PART)]
    # the next commit's result is served by a later call
    c.commit(offsets=[TopicPartition("oc", 0, 2)])
    assert wait_until(lambda: len(results) == 2, lambda: c.poll(0.2))
    assert results[1][1][0].offset == 2
    c.close()


def test_on_assign_raising_surfaces_and_assignment_still_happens():
    p = Producer(mock())
    p.produce("ra", b"x", partition=0)
    assert p.flush(10) == 0
    b = p.list_topics(timeout=10).brokers[1]

    def on_assign(consumer, parts):
        raise Boom("assign")

    c = Consumer({"bootstrap.servers": "%s:%d" % (b.host, b.port), "group.id": "ra",
                  "auto.offset.reset": "earliest", "log_level": 0})
    c.subscribe(["ra"], on_assign=on_assign)
    with pytest.raises(Boom):
        call_until_raises(lambda: c.poll(0.2), timeout=20)
    assert sorted(t.partition for t in c.assignment()) == [0, 1, 2, 3]
    got = []
    assert wait_until(lambda: got, lambda: got.extend(
        m for m in c.consume(1, 0.2) if m.error() is None), timeout=10)
    assert got[0].value() == b"x"
    c.close()
    p.close()
