"""An unknown configuration property is refused as confluent-kafka refuses it (KafkaException,
_INVALID_ARG, the same "No such configuration property" reason first), followed by what was
probably meant: the closest known names, the librdkafka property for a Java client property, or
that a callback key belongs to another client. Both libraries run each case."""
import pytest

import confluent_binding
from confluent_binding import KafkaError, KafkaException

confluent_kafka = pytest.importorskip("confluent_kafka")

CASES = [
    # (configuration, client, what our message adds after confluent-kafka's)
    ({"bootstrap.server": "b:9092"}, "Producer", ' (did you mean "bootstrap.servers"?)'),
    ({"bootstrap_servers": "b:9092"}, "Consumer", ' (did you mean "bootstrap.servers"?)'),
    ({"enable.auto.comit": False}, "Consumer", ' (did you mean "enable.auto.commit"?)'),
    ({"on_delivry": print}, "Producer", ' (did you mean "on_delivery"?)'),
    ({"on_delivery": print}, "Consumer", " (this client does not take it)"),
    ({"on_commit": print}, "Producer", " (this client does not take it)"),
    ({"key.serializer": "x"}, "Producer", " (a Java client property: serialize keys in Python, "
     "or use SerializingProducer, whose 'key.serializer' is a Serializer object)"),
    ({"partitioner.class": "x"}, "Producer", " (a Java client property: librdkafka's "
     "'partitioner' chooses the partitioner ('murmur2_random' places keys as the Java client's "
     "default))"),
    ({"fetch.max.wait.ms": 100}, "Consumer",
     ' (a Java client property: did you mean "fetch.wait.max.ms"?)'),
    ({"no.such.property": "x"}, "Producer", ""),         # nothing close: nothing added
]


def refusal(library, client, conf):
    conf = dict(conf, **({"group.id": "g"} if client == "Consumer" else {}))
    with pytest.raises(library.KafkaException) as ei:
        getattr(library, client)(conf)
    return ei.value.args[0]


@pytest.mark.parametrize("conf, client, added", CASES)
def test_unknown_property_says_what_was_meant(conf, client, added):
    theirs = refusal(confluent_kafka, client, conf)
    ours = refusal(confluent_binding, client, conf)
    assert ours.code() == theirs.code() == KafkaError._INVALID_ARG
    assert ours.str() == theirs.str() + added


def test_every_known_property_is_known():
    # The names come from librdkafka's own table: global and topic properties, none missing.
    from confluent_binding._core import _librdkafka_property_names
    names = _librdkafka_property_names()
    assert {"bootstrap.servers", "group.id", "acks", "message.timeout.ms", "partitioner",
            "auto.offset.reset", "sasl.oauthbearer.method"} <= names
    assert len(names) > 150
    assert not any(" " in n or "|" in n for n in names)


def test_a_known_property_with_a_callable_is_still_a_type_error():
    with pytest.raises(TypeError, match="expects a string value, not a callable"):
        confluent_binding.Producer({"client.id": print})
    with pytest.raises(KafkaException):
        confluent_binding.Producer({"client.idd": print})
