"""Configuration handling of Producer and Consumer: the accepted call forms, validation with
librdkafka's own reasons, Python-only keys, and the caller's dict left untouched."""

import copy
import logging
import re

import pytest

from confluent_binding import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from tests.support import mock, wait_until

# Nothing listens on port 1 of the loopback: clients start, nothing connects.
BASE = {"bootstrap.servers": "127.0.0.1:1", "log_level": 0}
CBASE = dict(BASE, **{"group.id": "g"})

CALLBACK_KEYS = ("error_cb", "stats_cb", "throttle_cb", "oauth_cb")

# For keyword-only construction without log_level: librdkafka's logs go to this logger instead
# of stderr.
QUIET = logging.getLogger("confluent_binding.tests.quiet")
QUIET.addHandler(logging.NullHandler())
QUIET.propagate = False


def _invalid_arg(excinfo):
    err = excinfo.value.args[0]
    assert isinstance(err, KafkaError)
    assert err.code() == KafkaError._INVALID_ARG
    return err.str()


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _logger():
    """A logger of its own (not registered) and the handler collecting its messages."""
    logger = logging.Logger("confluent_binding.tests.config", logging.DEBUG)
    handler = _Records()
    logger.addHandler(handler)
    return logger, handler


_DUMPED = re.compile(r"^CONF \[[^]]+\] \[thrd:app\]:   ([\w.]+) = (.*)$")


def effective(cls, *args, **kwargs):
    """The properties librdkafka holds for a client made with these arguments, as it lists them
    at creation with debug=conf (the ones set, global and default-topic ones alike, by their
    canonical names: "linger.ms" is "queue.buffering.max.ms")."""
    logger, handler = _logger()
    client = cls(*args, debug="conf", logger=logger, **kwargs)
    served = []

    def all_served():
        # the whole list is queued before the constructor returns: once its first line came,
        # a poll that serves nothing new means the rest came too
        served.append(len(handler.messages))
        return (any(m.endswith("Client configuration:") for m in handler.messages)
                and served[-2:] == [served[-1]] * 2)

    try:
        assert wait_until(all_served, lambda: client.poll(0)), handler.messages
    finally:
        client.close(0) if cls is Producer else client.close()
    return dict(m.groups() for m in map(_DUMPED.match, handler.messages) if m)


def _purge_reports(p, n=1):
    """Produce n messages with the configured on_delivery, purge them and serve the reports."""
    for i in range(n):
        p.produce("t", b"%d" % i)
    p.purge()
    assert p.flush(5) == 0


@pytest.fixture(params=[Producer, Consumer], ids=["producer", "consumer"])
def client_cls(request):
    return request.param


def _base(cls):
    return dict(CBASE if cls is Consumer else BASE)


# -- call forms --

def test_producer_conf_dict():
    got = []
    p = Producer(dict(BASE, on_delivery=lambda e, m: got.append(e.code())))
    _purge_reports(p)
    p.close()
    assert got == [KafkaError._PURGE_QUEUE]


def test_producer_conf_and_kwargs():
    got = []
    p = Producer(dict(BASE), linger_ms=5, on_delivery=lambda e, m: got.append(e.code()))
    _purge_reports(p, 2)
    p.close()
    assert got == [KafkaError._PURGE_QUEUE] * 2


def test_producer_kwargs_only():
    got = []
    p = Producer(bootstrap_servers="127.0.0.1:1", logger=QUIET, message_timeout_ms=1000,
                 on_delivery=lambda e, m: got.append(e.code()))
    _purge_reports(p)
    p.close()
    assert got == [KafkaError._PURGE_QUEUE]


def test_kwargs_underscores_become_dots():
    with pytest.raises(KafkaException) as ei:
        Producer(dict(BASE), message_timeout_ms="banana")
    assert "message.timeout.ms" in _invalid_arg(ei)
    with pytest.raises(KafkaException) as ei:
        Producer(dict(BASE), bogus_prop_name=1)
    assert '"bogus.prop.name"' in _invalid_arg(ei)


def test_keyword_rule():
    from confluent_binding._keywords import property_name
    assert property_name("bootstrap_servers") == "bootstrap.servers"
    assert property_name("linger.ms") == "linger.ms"
    # a name with a dot is spelled as a property: kept whole, like confluent-kafka's message
    assert property_name("a.b_c") == "a.b_c"
    for kept in ("log_level", "on_delivery", "on_commit", "error_cb", "stats_cb", "throttle_cb",
                 "oauth_cb", "logger"):
        assert property_name(kept) == kept


def test_dotted_keyword_is_kept_whole():
    with pytest.raises(KafkaException) as ei:
        Producer(dict(BASE), **{"a.b_c": 1})
    assert _invalid_arg(ei) == 'No such configuration property: "a.b_c"'


def test_harness_uses_the_clients_keyword_rule():
    from confluent_binding.testing import ExternalKafkaCluster
    conf = ExternalKafkaCluster("127.0.0.1:1").client_config(
        group_id="g", log_level=0, on_commit=print, **{"a.b_c": 1, "linger.ms": 5})
    assert conf == {"bootstrap.servers": "127.0.0.1:1", "group.id": "g", "log_level": 0,
                    "on_commit": print, "a.b_c": 1, "linger.ms": 5}


def test_kwargs_override_the_dict():
    # the dict's invalid value is replaced by the keyword's valid one
    conf = effective(Producer, dict(BASE, acks="banana", **{"linger.ms": 5}), acks="all",
                     linger_ms=7)
    assert (conf["request.required.acks"], conf["queue.buffering.max.ms"]) == ("-1", "7")


def test_consumer_requires_group_id():
    # like confluent-kafka: librdkafka's consumer can do nothing useful without a group
    for conf in ({"bootstrap.servers": "127.0.0.1:1"},
                 {"bootstrap.servers": "127.0.0.1:1", "group.id": ""}):
        with pytest.raises(ValueError) as ei:
            Consumer(conf)
        assert "group.id must be set" in str(ei.value)


def test_consumer_kwargs_set_group_id():
    with pytest.raises(ValueError, match="group.id must be set"):
        Consumer(bootstrap_servers="127.0.0.1:1", logger=QUIET)
    conf = effective(Consumer, bootstrap_servers="127.0.0.1:1", group_id="kw-group")
    assert (conf["metadata.broker.list"], conf["group.id"]) == ("127.0.0.1:1", "kw-group")


def test_consumer_conf_and_kwargs():
    # the dict's bootstrap (a mock cluster) with the keywords' group, commit mode and callback
    commits = []
    c = Consumer(mock(), group_id="g", enable_auto_commit=False,
                 on_commit=lambda err, parts: commits.append(
                     [(p.topic, p.partition, p.offset) for p in parts]))
    c.commit(offsets=[TopicPartition("t", 0, 3)])
    assert wait_until(lambda: commits, lambda: c.poll(0.1)), "on_commit was never called"
    c.close()
    assert commits == [[("t", 0, 3)]]
    conf = effective(Consumer, dict(BASE), group_id="g", enable_auto_commit=False)
    assert (conf["group.id"], conf["enable.auto.commit"]) == ("g", "false")


@pytest.mark.parametrize("args", [(), ({}, {}), ("bootstrap.servers",), (None,), ([],)])
def test_no_or_bad_configuration(client_cls, args):
    with pytest.raises(TypeError) as ei:
        client_cls(*args)
    if not args:
        assert "expected configuration dict" in str(ei.value)


# -- validation --

def test_unknown_property(client_cls):
    with pytest.raises(KafkaException) as ei:
        client_cls(dict(_base(client_cls), **{"no.such.property": "x"}))
    assert _invalid_arg(ei) == 'No such configuration property: "no.such.property"'


@pytest.mark.parametrize("key,value,expect", [
    ("acks", "banana", 'Invalid value for configuration property "request.required.acks"'),
    ("linger.ms", "banana", 'Invalid value for configuration property "queue.buffering.max.ms"'),
    ("compression.type", "banana", 'Invalid value "banana" for configuration property '
                                   '"compression.codec"'),
    ("message.max.bytes", -5, 'Configuration property "message.max.bytes" value -5 is outside '
                              'allowed range'),
])
def test_invalid_producer_value(key, value, expect):
    with pytest.raises(KafkaException) as ei:
        Producer(dict(BASE, **{key: value}))
    assert _invalid_arg(ei).startswith(expect)


def test_invalid_consumer_value():
    with pytest.raises(KafkaException) as ei:
        Consumer(dict(CBASE, **{"auto.offset.reset": "banana"}))
    reason = _invalid_arg(ei)
    assert "banana" in reason and "auto.offset.reset" in reason


def test_inconsistent_configuration_fails_at_creation():
    with pytest.raises(KafkaException) as ei:
        Producer(dict(BASE, **{"enable.idempotence": True, "acks": 1}))
    assert "enable.idempotence" in _invalid_arg(ei)


def test_callable_for_a_string_property(client_cls):
    with pytest.raises(TypeError) as ei:
        client_cls(dict(_base(client_cls), **{"client.id": lambda: "x"}))
    assert "client.id" in str(ei.value)


@pytest.mark.parametrize("value", [[1], {"a": 1}, object()])
def test_non_scalar_for_a_property(client_cls, value):
    with pytest.raises(TypeError) as ei:
        client_cls(dict(_base(client_cls), **{"client.id": value}))
    assert "client.id" in str(ei.value)


def test_non_string_key(client_cls):
    conf = _base(client_cls)
    conf[5] = "x"
    with pytest.raises(TypeError):
        client_cls(conf)


@pytest.mark.parametrize("key", CALLBACK_KEYS)
@pytest.mark.parametrize("value", [5, "print", b"x"])
def test_non_callable_callback(client_cls, key, value):
    with pytest.raises(TypeError) as ei:
        client_cls(dict(_base(client_cls), **{key: value}))
    assert key in str(ei.value)


@pytest.mark.parametrize("value", [5, "print"])
def test_non_callable_on_delivery(value):
    with pytest.raises(TypeError) as ei:
        Producer(dict(BASE, on_delivery=value))
    assert "on_delivery" in str(ei.value)


@pytest.mark.parametrize("value", [5, "print"])
def test_non_callable_on_commit(value):
    with pytest.raises(TypeError) as ei:
        Consumer(dict(CBASE, on_commit=value))
    assert "on_commit" in str(ei.value)


def test_logger_without_log_method(client_cls):
    with pytest.raises(TypeError) as ei:
        client_cls(dict(_base(client_cls), logger=object()))
    assert "logger" in str(ei.value)


def test_logger_accepted(client_cls):
    # the configured logger is the one librdkafka's records go to
    conf = effective(client_cls, {k: v for k, v in _base(client_cls).items() if k != "log_level"})
    assert conf["metadata.broker.list"] == "127.0.0.1:1"


def test_delivery_report_only_error_must_be_boolean():
    with pytest.raises(ValueError) as ei:
        Producer(dict(BASE, **{"delivery.report.only.error": "maybe"}))
    assert "delivery.report.only.error" in str(ei.value)


# -- value conversion --

def test_booleans_become_true_false():
    # 'acks' other than 'all' conflicts with idempotence only when it is really on
    conf = effective(Producer, dict(BASE, **{"enable.idempotence": False, "acks": 1}))
    assert (conf["enable.idempotence"], conf["request.required.acks"]) == ("false", "1")
    assert effective(Producer, dict(BASE, **{"enable.idempotence": True}))[
        "enable.idempotence"] == "true"
    with pytest.raises(KafkaException) as ei:
        Producer(dict(BASE, **{"enable.idempotence": True, "acks": 1}))
    assert "enable.idempotence" in _invalid_arg(ei)


def test_consumer_boolean_property():
    conf = effective(Consumer, dict(CBASE, **{"enable.auto.commit": False,
                                              "enable.partition.eof": True}))
    assert (conf["enable.auto.commit"], conf["enable.partition.eof"]) == ("false", "true")


def test_numbers_become_strings():
    conf = effective(Producer, dict(BASE, **{"linger.ms": 0.5, "batch.num.messages": 100,
                                             "message.timeout.ms": 1000}))
    assert (conf["queue.buffering.max.ms"], conf["batch.num.messages"],
            conf["message.timeout.ms"]) == ("0.5", "100", "1000")


def test_default_topic_config(client_cls):
    key = "auto.offset.reset" if client_cls is Consumer else "acks"
    good = "earliest" if client_cls is Consumer else "all"
    conf = effective(client_cls, dict(_base(client_cls), **{"default.topic.config": {key: good}}))
    # (librdkafka's own names for these values)
    assert (conf["auto.offset.reset"] == "smallest" if client_cls is Consumer
            else conf["request.required.acks"] == "-1"), conf
    # it is applied: an invalid value in it is rejected by librdkafka
    with pytest.raises(KafkaException) as ei:
        client_cls(dict(_base(client_cls), **{"default.topic.config": {key: "banana"}}))
    _invalid_arg(ei)
    with pytest.raises(TypeError):
        client_cls(dict(_base(client_cls), **{"default.topic.config": "acks=all"}))


def test_default_topic_config_wins_over_top_level():
    # as in confluent-kafka, 'default.topic.config' is applied after the top-level properties
    # (tests/unit/test_parity.py shows it on a message's timeout)
    conf = effective(Producer, dict(BASE, acks="all", **{"default.topic.config": {"acks": 1}}))
    assert conf["request.required.acks"] == "1"
    conf = effective(Producer, dict(BASE, acks=1, **{"default.topic.config": {"acks": "all"}}))
    assert conf["request.required.acks"] == "-1"


# -- the caller's dict --

def test_producer_conf_not_mutated():
    conf = dict(BASE, **{
        "on_delivery": print, "error_cb": print, "stats_cb": print, "throttle_cb": print,
        "oauth_cb": print, "logger": logging.getLogger("x"),
        "delivery.report.only.error": True, "default.topic.config": {"acks": "all"},
        "enable.idempotence": True, "linger.ms": 5,
    })
    before = copy.deepcopy(conf)
    nested = conf["default.topic.config"]
    Producer(conf).close()
    assert conf == before
    assert conf["default.topic.config"] is nested and nested == {"acks": "all"}


def test_consumer_conf_not_mutated():
    conf = dict(CBASE, **{
        "on_commit": print, "error_cb": print, "stats_cb": print, "throttle_cb": print,
        "logger": logging.getLogger("x"), "enable.auto.commit": False,
        "default.topic.config": {"auto.offset.reset": "earliest"},
    })
    before = copy.deepcopy(conf)
    Consumer(conf).close()
    assert conf == before


def test_conf_not_mutated_on_failure(client_cls):
    conf = dict(_base(client_cls), error_cb=print, **{"bogus.key": 1})
    before = copy.deepcopy(conf)
    with pytest.raises(KafkaException):
        client_cls(conf)
    assert conf == before


def test_conf_reusable_for_many_clients():
    # each client made from the same dict gets its callbacks
    reports, errors = [], []
    conf = dict(BASE, on_delivery=lambda e, m: reports.append(m.value()),
                error_cb=lambda e: errors.append(e.code()))
    given = dict(conf)
    clients = [Producer(conf) for _ in range(3)]
    for i, p in enumerate(clients):
        seen = len(errors)       # (a client's errors are served by its own calls only)
        p.produce("t", b"%d" % i)
        p.purge()
        assert p.flush(5) == 0
        # nothing listens on the bootstrap port: every client reports it through error_cb
        assert wait_until(lambda: len(errors) > seen, lambda: p.poll(0.1)), errors
        p.close(0)
    assert reports == [b"0", b"1", b"2"]
    assert set(errors) <= {KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN}
    assert conf == given


@pytest.mark.parametrize("level", [0, 3])
def test_log_level_keyword_keeps_its_underscore(level):
    # log_level is the one librdkafka property spelled with an underscore. Nothing listens on
    # the bootstrap port: librdkafka logs that at level 3 (error) before the error_cb reports
    # it, so the logger has the record at level 3 and none at level 0.
    logger, handler = _logger()
    errors = []
    p = Producer({"bootstrap.servers": "127.0.0.1:1"}, log_level=level, logger=logger,
                 error_cb=errors.append)
    assert wait_until(lambda: errors, lambda: p.poll(0.1)), "no error_cb call"
    p.close(0)
    refused = [m for m in handler.messages if "Connection refused" in m]
    assert bool(refused) == (level == 3), handler.messages
    with pytest.raises(KafkaException) as info:
        Producer({"bootstrap.servers": "127.0.0.1:1"}, log_level="loud")
    assert '"log_level"' in _invalid_arg(info)
