"""API compatibility with confluent-kafka: the names, constants, error codes and method
signatures a program written for confluent_kafka relies on (the Producer/Consumer scope)."""

import inspect
import re

import pytest

import confluent_binding

peer = pytest.importorskip("confluent_kafka")

LIBRDKAFKA_VERSION = ("2.15.1", 0x020F01FF)

CONSTANTS = (
    "OFFSET_BEGINNING", "OFFSET_END", "OFFSET_STORED", "OFFSET_INVALID",
    "TIMESTAMP_NOT_AVAILABLE", "TIMESTAMP_CREATE_TIME", "TIMESTAMP_LOG_APPEND_TIME",
)
CLASSES = ("Producer", "Consumer", "Message", "TopicPartition", "KafkaError", "KafkaException",
           "ThrottleEvent")
FUNCTIONS = ("version", "libversion")

PRODUCER_METHODS = (
    "produce", "produce_batch", "poll", "flush", "purge", "close", "list_topics",
    "set_sasl_credentials", "cluster_id", "init_transactions", "begin_transaction",
    "send_offsets_to_transaction", "commit_transaction", "abort_transaction",
    "__len__", "__enter__", "__exit__",
)
CONSUMER_METHODS = (
    "subscribe", "unsubscribe", "assign", "unassign", "incremental_assign",
    "incremental_unassign", "assignment", "poll", "consume", "commit", "committed", "position",
    "seek", "pause", "resume", "store_offsets", "get_watermark_offsets", "offsets_for_times",
    "memberid", "consumer_group_metadata", "close", "list_topics", "cluster_id",
    "set_sasl_credentials",
    "__enter__", "__exit__",
)
MESSAGE_METHODS = (
    "error", "topic", "partition", "offset", "key", "value", "headers", "timestamp", "latency",
    "leader_epoch", "delivery_count", "deserialized_key", "deserialized_value", "set_headers",
    "set_key", "set_value", "set_topic", "set_error", "__len__",
)
KAFKA_ERROR_METHODS = ("code", "name", "str", "fatal", "retriable", "txn_requires_abort")
TOPIC_PARTITION_ATTRS = ("topic", "partition", "offset", "metadata", "leader_epoch", "error")

# Error codes the peer's librdkafka (2.16.0) knows and ours (2.15.1) does not. Every entry
# must name a code that really is new in 2.16.0; today there is none.
CODES_ONLY_IN_PEER = frozenset()

# Public methods of the peer's classes that ours lack: none.
MESSAGE_OUT_OF_SCOPE = frozenset()
CLIENT_OUT_OF_SCOPE = frozenset()


def _code_names(cls):
    """{name: value} of the error-code constants of a KafkaError class."""
    out = {}
    for name in dir(cls):
        if name.startswith("__"):
            continue
        value = getattr(cls, name)
        if isinstance(value, int) and not isinstance(value, bool):
            out[name] = value
    return out


def _peer_params(method):
    """Parameter names of a peer method, read from its '.. py:function::' doc line."""
    doc = method.__doc__ or ""
    m = re.search(r"\.\. py:function:?:?\s*(\w+)\((.*?)\)\s*$", doc, re.M)
    if m is None:
        return None
    names = []
    for part in m.group(2).split(","):
        part = part.strip().strip("[]").strip()
        if part:
            names.append(part.split("=")[0].strip())
    return names


def _our_params(method):
    params = list(inspect.signature(method).parameters.values())
    return [p.name for p in params if p.name != "self"
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


@pytest.mark.parametrize("name", CLASSES + FUNCTIONS + CONSTANTS)
def test_public_name_exists_in_both(name):
    assert hasattr(peer, name), name
    assert hasattr(confluent_binding, name), name
    assert name in confluent_binding.__all__


@pytest.mark.parametrize("name", CLASSES)
def test_public_classes_are_classes(name):
    assert inspect.isclass(getattr(confluent_binding, name))


@pytest.mark.parametrize("name", CONSTANTS)
def test_constants_have_the_peer_values(name):
    assert getattr(confluent_binding, name) == getattr(peer, name)
    assert type(getattr(confluent_binding, name)) is int


def test_kafka_exception_is_an_exception():
    assert issubclass(confluent_binding.KafkaException, Exception)
    err = confluent_binding.KafkaError(confluent_binding.KafkaError._MSG_TIMED_OUT)
    assert confluent_binding.KafkaException(err).args[0] is err


def test_every_peer_error_code_exists_with_the_same_value():
    ours = _code_names(confluent_binding.KafkaError)
    theirs = _code_names(peer.KafkaError)
    assert len(theirs) > 150
    missing = set(theirs) - set(ours)
    assert missing <= CODES_ONLY_IN_PEER, sorted(missing - CODES_ONLY_IN_PEER)
    different = {n: (theirs[n], ours[n]) for n in theirs if n in ours and ours[n] != theirs[n]}
    assert different == {}
    # the allowed differences must stay real: not in ours, present in the peer
    assert not CODES_ONLY_IN_PEER & set(ours)
    assert CODES_ONLY_IN_PEER <= set(theirs)


def test_error_code_names_round_trip():
    KafkaError = confluent_binding.KafkaError
    theirs = _code_names(peer.KafkaError)
    for name, value in _code_names(KafkaError).items():
        if name in ("_BEGIN", "_END"):        # range markers, not codes
            continue
        assert KafkaError(value).name() == name
        if name in theirs:
            assert peer.KafkaError(value).name() == name


def test_well_known_codes():
    KafkaError = confluent_binding.KafkaError
    assert KafkaError.NO_ERROR == 0
    assert KafkaError._MSG_TIMED_OUT == -192
    assert KafkaError._PURGE_QUEUE == -152
    assert KafkaError._INVALID_ARG == -186
    assert KafkaError._ALL_BROKERS_DOWN == -187
    assert KafkaError.MSG_SIZE_TOO_LARGE == 10
    assert KafkaError.UNKNOWN_TOPIC_OR_PART == 3


def test_libversion():
    assert confluent_binding.libversion() == LIBRDKAFKA_VERSION
    assert confluent_binding._core._built_with() == LIBRDKAFKA_VERSION[1]


def test_version_matches_the_peer_shape():
    """confluent-kafka >= 2.12.1 returns the module version as a plain str from version()
    (libversion() stays a (str, int) tuple); a drop-in must return the same shape."""
    ours, theirs = confluent_binding.version(), peer.version()
    assert type(ours) is type(theirs), (ours, theirs)
    if isinstance(theirs, str):
        assert ours == confluent_binding.__version__
    else:
        assert ours[0] == confluent_binding.__version__ and len(ours) == len(theirs) == 2


def test_libversion_shape_matches_the_peer():
    ours, theirs = confluent_binding.libversion(), peer.libversion()
    assert isinstance(theirs, tuple) and isinstance(ours, tuple)
    assert [type(x) for x in ours] == [type(x) for x in theirs] == [str, int]


@pytest.mark.parametrize("cls,methods", [("Producer", PRODUCER_METHODS),
                                         ("Consumer", CONSUMER_METHODS),
                                         ("Message", MESSAGE_METHODS),
                                         ("KafkaError", KAFKA_ERROR_METHODS)])
def test_methods_exist(cls, methods):
    for name in methods:
        assert callable(getattr(getattr(peer, cls), name, None)), ("peer", cls, name)
        assert callable(getattr(getattr(confluent_binding, cls), name, None)), (cls, name)


@pytest.mark.parametrize("cls,out_of_scope", [("Producer", CLIENT_OUT_OF_SCOPE),
                                              ("Consumer", CLIENT_OUT_OF_SCOPE),
                                              ("Message", MESSAGE_OUT_OF_SCOPE),
                                              ("KafkaError", frozenset())])
def test_no_public_method_of_the_peer_is_missing(cls, out_of_scope):
    public = lambda c: {n for n in dir(c) if not n.startswith("_")}  # noqa: E731
    missing = public(getattr(peer, cls)) - public(getattr(confluent_binding, cls))
    assert missing <= out_of_scope, sorted(missing - out_of_scope)


def test_topic_partition_attributes():
    tp = confluent_binding.TopicPartition("t", 1, 2)
    ptp = peer.TopicPartition("t", 1, 2)
    for name in TOPIC_PARTITION_ATTRS:
        assert hasattr(ptp, name)
        assert getattr(tp, name) == getattr(ptp, name), name


@pytest.mark.parametrize("cls,name", [("Producer", n) for n in PRODUCER_METHODS
                                      if not n.startswith("__")]
                         + [("Consumer", n) for n in CONSUMER_METHODS if not n.startswith("__")])
def test_parameter_names_compatible(cls, name):
    """Every parameter the peer documents is accepted by ours under the same name, and the
    parameters both have come in the same order (so positional calls mean the same)."""
    theirs = _peer_params(getattr(getattr(peer, cls), name))
    ours = _our_params(getattr(getattr(confluent_binding, cls), name))
    if theirs is None:
        # undocumented in the peer: takes no arguments there
        assert name in ("assignment", "unassign", "unsubscribe", "close"), name
        return
    assert set(theirs) <= set(ours), (theirs, ours)
    assert [p for p in ours if p in theirs] == theirs


def test_produce_accepts_callback_alias_and_all_keywords():
    params = _our_params(confluent_binding.Producer.produce)
    assert params[:5] == ["topic", "value", "key", "partition", "on_delivery"]
    assert {"callback", "timestamp", "headers"} <= set(params)


def test_message_constructor_parameters_match_the_peer():
    doc_line = re.search(r"\.\. py:function:: Message\((.*)\)", peer.Message.__doc__).group(1)
    theirs = [p.strip().strip("[]") for p in doc_line.split(",")]
    ours_line = re.match(r"Message\((.*?)\)", confluent_binding.Message.__doc__, re.S).group(1)
    ours = [p.split("=")[0].strip() for p in ours_line.split(",")]
    # the peer accepts delivery_count too (tests/unit/test_parity.py) but does not document it
    assert ours == theirs + ["delivery_count"]
    # and the keyword form works with every one of them
    m = confluent_binding.Message(**{n: None for n in theirs})
    assert m.topic() is None


def test_drop_in_import():
    import confluent_binding as confluent_kafka
    p = confluent_kafka.Producer({"bootstrap.servers": "127.0.0.1:1", "log_level": 0})
    try:
        assert isinstance(p, confluent_kafka.Producer)
        got = []
        p.produce("t", b"v", on_delivery=lambda err, msg: got.append(err))
        p.purge()
        assert p.flush(5) == 0
        assert [e.code() for e in got] == [confluent_kafka.KafkaError._PURGE_QUEUE]
    finally:
        p.close()


@pytest.mark.parametrize("name", MESSAGE_METHODS[:-1])
@pytest.mark.parametrize("form", ["no arguments", "one argument", "two arguments", "a keyword"])
def test_message_method_argument_errors_are_the_peers(name, form):
    """Message's accessors take no arguments and its setters exactly one, positionally, as the
    peer's (METH_NOARGS, METH_O): the same outcome and TypeError text for every wrong call."""
    args, kwargs = {"no arguments": ((), {}), "one argument": ((b"x",), {}),
                    "two arguments": ((b"x", b"y"), {}), "a keyword": ((), {"value": b"x"})}[form]

    def outcome(mod):
        m = mod.Message(topic="t", value=b"v")
        try:
            getattr(m, name)(*args, **kwargs)
        except TypeError as e:
            return str(e)
        return "ok"

    assert outcome(confluent_binding) == outcome(peer)
