"""The verifiable producer: produces ``--max-messages`` values ``0``, ``1``, ... (or
``PREFIX.0``, ...) to ``--topic`` at up to ``--throughput`` messages a second and reports every
delivery as a JSON event, as Apache Kafka's system tests expect of a client.

Events: ``startup_complete``; ``producer_send_success`` (topic, partition, offset, key, value)
or ``producer_send_error`` (message, topic, key, value) for each message; ``tool_data`` (sent,
acked, target_throughput, avg_throughput) and ``shutdown_complete`` (``_qlen``: messages still
undelivered) at the end.
"""

import argparse
import time

from .. import KafkaException, Producer
from .verifiable_client import VerifiableClient, _text, add_connection_arguments, client_config

__all__ = ["VerifiableProducer", "main"]


class VerifiableProducer(VerifiableClient):
    """A :class:`~confluent_binding.Producer` that reports each delivery as a JSON event."""

    def __init__(self, conf):
        super().__init__(conf)
        self.conf["on_delivery"] = self.dr_cb
        self.producer = Producer(self.conf)
        self.num_acked = 0
        self.num_sent = 0
        self.num_err = 0
        self.max_msgs = 0

    def dr_cb(self, err, msg):
        """The delivery report of one message (served by poll()/flush())."""
        if err is not None:
            self.num_err += 1
            self.send({"name": "producer_send_error", "message": str(err),
                       "topic": msg.topic(), "key": _text(msg.key()),
                       "value": _text(msg.value())})
            return
        self.num_acked += 1
        self.send({"name": "producer_send_success", "topic": msg.topic(),
                   "partition": msg.partition(), "offset": msg.offset(),
                   "key": _text(msg.key()), "value": _text(msg.value())})

    def produce_one(self, topic, value, key, timestamp):
        """Produce one message, serving delivery reports while librdkafka's queue is full."""
        while self.run:
            try:
                self.producer.produce(topic, value=value, key=key, timestamp=timestamp)
            except BufferError:
                self.dbg("Local produce queue full (%d sent, %d acked), waiting for deliveries"
                         % (self.num_sent, self.num_acked))
                self.producer.poll(0.5)
                continue
            except KafkaException as e:
                self.err("produce() of %s failed: %s" % (value, e))
                self.num_err += 1
                return
            self.num_sent += 1
            return


def _parser():
    p = argparse.ArgumentParser(description="Verifiable Python Producer")
    p.add_argument("--topic", type=str, required=True)
    p.add_argument("--throughput", type=int, default=0,
                   help="messages a second at most (0 or less: as fast as possible)")
    p.add_argument("--max-messages", type=int, dest="max_msgs", default=1000000)
    p.add_argument("--value-prefix", dest="value_prefix", type=str, default=None)
    p.add_argument("--acks", type=int, dest="topicconf_request.required.acks", default=-1)
    p.add_argument("--message-create-time", type=int, dest="create_time", default=0,
                   help="every message's timestamp, in milliseconds since the epoch")
    p.add_argument("--repeating-keys", type=int, dest="repeating_keys", default=0,
                   help="keys 0..N-1 in turn (0: no keys)")
    add_connection_arguments(p, "producer")
    return p


def main(argv=None):
    """The ``verifiable_producer`` command of Kafka's system tests (kafkatest): the options of
    Kafka's VerifiableProducer (``--broker-list``, ``--topic``, ``--max-messages``,
    ``--throughput``, ...); prints one JSON event per line on stdout (each delivery, then
    ``shutdown_complete``).

    Args:
        argv: the command-line arguments (default ``sys.argv[1:]``).
    """
    parser = _parser()
    args = vars(parser.parse_args(argv))
    conf = client_config(parser, args, {})

    vp = VerifiableProducer(conf)
    vp.max_msgs = args["max_msgs"]
    topic, throughput = args["topic"], args["throughput"]
    prefix = args["value_prefix"]
    repeating_keys = args["repeating_keys"]
    delay = 1.0 / throughput if throughput > 0 else 0.0

    vp.send({"name": "startup_complete"})
    vp.dbg("Producing %d messages at a rate of %d/s" % (vp.max_msgs, throughput))
    started = time.monotonic()
    try:
        for i in range(vp.max_msgs):
            if not vp.run:
                break
            due = time.monotonic() + delay
            value = "%d" % i if prefix is None else "%s.%d" % (prefix, i)
            key = "%d" % (i % repeating_keys) if repeating_keys > 0 else None
            vp.produce_one(topic, value, key, args["create_time"])
            # serve delivery reports at least once, and until this message's time slot ends
            vp.producer.poll(0)
            remaining = due - time.monotonic()
            while vp.run and remaining > 0:
                vp.producer.poll(remaining)
                remaining = due - time.monotonic()
    except KeyboardInterrupt:
        pass

    vp.dbg("Flushing")
    try:
        vp.producer.flush(5)
    except KeyboardInterrupt:
        pass
    elapsed = max(time.monotonic() - started, 1e-9)
    vp.send({"name": "tool_data", "sent": vp.num_sent, "acked": vp.num_acked,
             "target_throughput": throughput, "avg_throughput": vp.num_sent / elapsed})
    vp.send({"name": "shutdown_complete", "_qlen": len(vp.producer)})
    vp.dbg("All done")


if __name__ == "__main__":
    main()
