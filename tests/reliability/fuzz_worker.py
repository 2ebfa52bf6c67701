"""Property-based bad-input runs, one target per child process (see test_fuzz.py).

Every example is written to the journal file before it runs, so when the process dies of a
signal or hangs, the journal's last line is the input that did it. An example passes when
the call returns or raises an ``Exception`` other than ``SystemError`` (which means the
binding failed to set an exception properly); anything else fails the run.

Usage: python fuzz_worker.py TARGET EXAMPLES JOURNAL
"""
import socket
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import confluent_binding as ck

# -- values of every shape a caller might pass by mistake --

ints = st.one_of(st.integers(-3, 3), st.integers(-2**31 - 2, 2**31 + 1),
                 st.integers(-2**63 - 2, 2**63 + 1), st.sampled_from([-1001, -1000, -1, -2]))
texts = st.text(max_size=40)
blobs = st.binary(max_size=200)
scalars = st.one_of(st.none(), st.booleans(), ints, st.floats(allow_nan=True), texts, blobs)
anything = st.recursive(
    st.one_of(scalars, st.builds(bytearray, blobs), st.builds(memoryview, blobs),
              st.just(object()), st.just(print), st.just(lambda *a: None)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.one_of(texts, ints), inner, max_size=3)),
    max_leaves=6)
buffers = st.one_of(st.none(), blobs, texts, st.builds(bytearray, blobs),
                    st.builds(memoryview, blobs), anything)
timeouts = st.one_of(st.none(), st.sampled_from([0, 0.001, -1, -0.5]),
                     st.floats(0, 0.01), anything)
topic_names = st.one_of(st.sampled_from(["t", "fuzz", "a.b-c_d", "", "x" * 300, "\u00e9t\u00e9",
                                         "bad topic!", "\x00"]), texts)
topics = st.one_of(topic_names, anything)

headers = st.one_of(
    st.none(),
    st.lists(st.tuples(texts, st.one_of(st.none(), blobs, texts)), max_size=4),
    st.dictionaries(texts, st.one_of(st.none(), blobs, texts), max_size=4),
    st.lists(anything, max_size=3), anything)

partitions = st.one_of(ints, anything)

tps = st.builds(lambda t, p, o: ck.TopicPartition(t, p, o), topic_names,
                st.integers(-5, 5), st.integers(-2002, 10))
tp_lists = st.one_of(st.lists(tps, max_size=4), st.lists(st.one_of(tps, anything), max_size=3),
                     anything)

# Real property names (with awkward values) and made-up ones; none that loads code from the
# machine (plugin.library.paths), floods stderr (debug) or points the client at a host other
# than the closed loopback port (bootstrap.servers: no name lookups leave the machine).
PROPERTY_NAMES = [
    "client.id", "acks", "linger.ms", "batch.size", "batch.num.messages",
    "compression.type", "compression.codec", "enable.idempotence", "transactional.id",
    "message.max.bytes", "queue.buffering.max.messages", "queue.buffering.max.kbytes",
    "message.timeout.ms", "retries", "partitioner", "security.protocol", "sasl.mechanism",
    "sasl.username", "sasl.password", "ssl.ca.location", "ssl.key.password",
    "socket.timeout.ms", "statistics.interval.ms", "group.id", "auto.offset.reset",
    "enable.auto.commit", "session.timeout.ms", "max.poll.interval.ms", "fetch.min.bytes",
    "isolation.level", "group.protocol", "partition.assignment.strategy", "log_level",
    "topic.metadata.refresh.interval.ms", "api.version.request", "on_delivery", "error_cb",
    "stats_cb", "throttle_cb", "logger", "on_commit", "oauth_cb", "default.topic.config",
    "delivery.report.only.error", "request.timeout.ms",
]
conf_values = st.one_of(scalars, st.sampled_from(["all", "-1", "0", "1", "gzip", "zstd",
                                                  "earliest", "SASL_SSL", "PLAIN", "murmur2",
                                                  "true", "false", "1e9", "99999999999"]),
                        anything)
hashables = st.one_of(st.none(), st.booleans(), ints, texts, blobs, st.tuples(texts, ints))
conf_dicts = st.dictionaries(st.one_of(st.sampled_from(PROPERTY_NAMES), hashables),
                             conf_values, max_size=6)


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BASE = {"bootstrap.servers": "127.0.0.1:%d" % _closed_port(), "log_level": 0,
        "message.timeout.ms": 5000, "queue.buffering.max.messages": 1000}


# -- targets: each takes one drawn example and calls the binding with it --

def producer_config(conf):
    ck.Producer({**BASE, **conf}).close(0)


def consumer_config(conf):
    ck.Consumer({"group.id": "fuzz", **BASE, **conf}).close()


def produce(producer, args):
    topic, value, key, partition, timestamp, hdrs, cb = args
    kwargs = {"value": value, "key": key, "headers": hdrs}
    if partition is not None:
        kwargs["partition"] = partition
    if timestamp is not None:
        kwargs["timestamp"] = timestamp
    if cb is not None:
        kwargs["on_delivery"] = cb
    producer.produce(topic, **kwargs)


def produce_batch(producer, args):
    topic, messages, partition = args
    producer.produce_batch(topic, messages, **({} if partition is None else
                                               {"partition": partition}))


def message(args):
    m = ck.Message(*args[0], **args[1])
    repr(m), len(m), m.key(), m.value(), m.headers(), m.timestamp(), m.offset(), m.partition()


def topic_partition(args):
    tp = ck.TopicPartition(*args[0], **args[1])
    repr(tp), hash(tp), tp == tp


def consumer_call(consumer, args):
    name, arg = args
    if name == "subscribe":
        consumer.subscribe(arg)
    elif name == "assign":
        consumer.assign(arg)
    elif name == "commit":
        consumer.commit(offsets=arg, asynchronous=True)
    elif name == "commit_message":
        consumer.commit(message=arg)
    elif name == "seek":
        consumer.seek(arg)
    elif name == "consume":
        consumer.consume(*arg)
    elif name == "store_offsets":
        consumer.store_offsets(offsets=arg)
    elif name == "committed":
        consumer.committed(arg, 0.01)
    elif name == "pause":
        consumer.pause(arg)


callbacks = st.one_of(st.none(), st.just(lambda err, msg: None), anything)
produce_args = st.tuples(topics, buffers, buffers, st.one_of(st.none(), partitions),
                         st.one_of(st.none(), ints, anything), headers, callbacks)
batch_items = st.one_of(buffers, st.fixed_dictionaries(
    {}, optional={"value": buffers, "key": buffers, "partition": partitions,
                  "timestamp": st.one_of(ints, anything), "headers": headers,
                  "on_delivery": callbacks}))
batch_args = st.tuples(topics, st.one_of(st.lists(batch_items, max_size=6), anything),
                       st.one_of(st.none(), partitions))
message_args = st.tuples(
    st.lists(anything, max_size=4),
    st.dictionaries(st.sampled_from(["topic", "partition", "offset", "key", "value", "headers",
                                     "error", "timestamp", "latency", "leader_epoch"]),
                    anything, max_size=5))
tp_args = st.tuples(st.lists(st.one_of(topic_names, ints, anything), max_size=4),
                    st.dictionaries(st.sampled_from(["topic", "partition", "offset", "metadata",
                                                     "leader_epoch"]), anything, max_size=3))
consumer_args = st.one_of(
    st.tuples(st.just("subscribe"), st.one_of(st.lists(topics, max_size=3), anything)),
    st.tuples(st.sampled_from(["assign", "commit", "store_offsets", "committed", "pause"]),
              tp_lists),
    st.tuples(st.just("commit_message"), anything),
    st.tuples(st.just("seek"), st.one_of(tps, anything)),
    # consume() waits as long as it is told: only timeouts that end, or that are not numbers
    st.tuples(st.just("consume"), st.tuples(
        st.one_of(st.integers(-2, 2000), anything),
        st.one_of(st.sampled_from([0, 0.001]),
                  anything.filter(lambda t: t is not None and not isinstance(t, (int, float)))))))


def _targets():
    producer = ck.Producer(BASE)
    # The consumer talks to librdkafka's mock cluster: commits must complete, or close() waits
    # for them to time out.
    consumer = ck.Consumer({"test.mock.num.brokers": 1, "log_level": 0, "group.id": "fuzz"})
    return {
        "producer_config": (conf_dicts, producer_config),
        "consumer_config": (conf_dicts, consumer_config),
        "produce": (produce_args, lambda a: produce(producer, a)),
        "produce_batch": (batch_args, lambda a: produce_batch(producer, a)),
        "message": (message_args, message),
        "topic_partition": (tp_args, topic_partition),
        "consumer": (consumer_args, lambda a: consumer_call(consumer, a)),
    }, (producer, consumer)


def main(target, examples, journal_path):
    targets, clients = _targets()
    strategy, call = targets[target]
    journal = open(journal_path, "w", buffering=1)
    outcomes = {}

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(example):
        journal.write("%r\n" % (example,))
        try:
            call(example)
        except SystemError:
            raise
        except Exception as exc:
            outcomes[type(exc).__name__] = outcomes.get(type(exc).__name__, 0) + 1
        else:
            outcomes["ok"] = outcomes.get("ok", 0) + 1

    run()
    producer, consumer = clients
    producer.close(0)
    consumer.close()
    print("outcomes %s %r" % (target, sorted(outcomes.items())))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
