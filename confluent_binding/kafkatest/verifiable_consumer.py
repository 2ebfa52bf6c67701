"""The verifiable consumer: consumes ``--topic`` in ``--group-id`` and reports what it consumes,
commits and is assigned as JSON events, as Apache Kafka's system tests expect of a client.

Events: ``startup_complete``; ``partitions_assigned`` and ``partitions_revoked`` (the partitions
of each rebalance step); ``records_consumed`` (count, and per partition the count, ``minOffset``
and ``maxOffset`` since the last report) every 100 messages and whenever a poll times out;
``offsets_committed`` (offsets, success, error) for each commit; ``record_data`` per message with
``--verbose``; ``shutdown_complete`` (failed) at the end. Offsets are stored only once a message
has been handled and committed every 1000 messages and whenever a poll times out, unless
``--enable-autocommit``. With ``--max-messages N`` the consumer stops once it has consumed N
messages, as the Java VerifiableConsumer does; otherwise it runs until SIGTERM.
"""

import argparse
import time

from .. import Consumer, KafkaError, KafkaException
from .verifiable_client import VerifiableClient, _text, add_connection_arguments, client_config

__all__ = ["AssignedPartition", "VerifiableConsumer", "main"]

_RETRIABLE_COMMIT = (KafkaError.REQUEST_TIMED_OUT, KafkaError.NOT_COORDINATOR,
                     KafkaError._WAIT_COORD)


class AssignedPartition:
    """What has been consumed from one assigned partition since the last report."""

    def __init__(self, topic, partition):
        self.topic = topic
        self.partition = partition
        self.skey = "%s %d" % (topic, partition)
        self.consumed_msgs = 0
        self.min_offset = -1
        self.max_offset = 0

    def to_dict(self):
        """The partition's entry of a ``records_consumed`` event: topic, partition, count,
        minOffset and maxOffset.
        """
        return {"topic": self.topic, "partition": self.partition, "count": self.consumed_msgs,
                "minOffset": self.min_offset, "maxOffset": self.max_offset}

    def reported(self):
        """Start counting afresh after a ``records_consumed`` report."""
        self.consumed_msgs = 0
        self.min_offset = -1
        self.max_offset = 0


class VerifiableConsumer(VerifiableClient):
    """A :class:`~confluent_binding.Consumer` that reports consumption, commits and rebalances
    as JSON events."""

    def __init__(self, conf):
        super().__init__(conf)
        self.conf["on_commit"] = self.on_commit
        self.consumer = Consumer(self.conf)
        strategy = str(conf.get("partition.assignment.strategy", ""))
        #: whether each rebalance adds and removes partitions rather than replacing them all
        self.incremental = ("cooperative" in strategy
                            or str(conf.get("group.protocol", "")).lower() == "consumer")
        self.consumed_msgs = 0
        self.consumed_msgs_last_reported = 0
        self.consumed_msgs_at_last_commit = 0
        self.use_auto_commit = False
        self.use_async_commit = False
        self.max_msgs = -1
        self.verbose = False
        self.assignment_dict = {}

    @property
    def assignment(self):
        """The :class:`AssignedPartition` of every partition currently assigned."""
        return list(self.assignment_dict.values())

    def find_assignment(self, topic, partition):
        """The partition's :class:`AssignedPartition`, or None when it is not assigned."""
        return self.assignment_dict.get("%s %d" % (topic, partition))

    def send_records_consumed(self, immediate=False):
        """Report what was consumed since the last report: once 100 more messages have been
        consumed, or with ``immediate`` as soon as there is any."""
        if self.consumed_msgs <= self.consumed_msgs_last_reported + (0 if immediate else 100):
            return
        if not self.assignment_dict:
            return
        partitions = []
        for a in self.assignment_dict.values():
            if a.min_offset != -1:
                partitions.append(a.to_dict())
                a.reported()
        self.send({"name": "records_consumed",
                   "count": self.consumed_msgs - self.consumed_msgs_last_reported,
                   "partitions": partitions})
        self.consumed_msgs_last_reported = self.consumed_msgs

    def send_assignment(self, evtype, partitions):
        """Report a rebalance step: ``evtype`` is ``assigned`` or ``revoked``."""
        self.send({"name": "partitions_" + evtype,
                   "partitions": [{"topic": p.topic, "partition": p.partition}
                                  for p in partitions]})

    def on_assign(self, consumer, partitions):
        """The rebalance callback of an assignment: tracks the partitions (added to the
        current ones with incremental rebalancing) and reports a ``partitions_assigned`` event.
        """
        old = self.assignment_dict if self.incremental else {}
        new = dict(old)
        for p in partitions:
            key = "%s %d" % (p.topic, p.partition)
            new[key] = old.get(key) or AssignedPartition(p.topic, p.partition)
        self.assignment_dict = new
        self.send_assignment("assigned", partitions)

    def on_revoke(self, consumer, partitions):
        """The rebalance callback of a revocation: reports what was consumed, commits it
        synchronously, drops the partitions and reports a ``partitions_revoked`` event.
        """
        # report and commit what was consumed before the partitions go
        self.send_records_consumed(immediate=True)
        self.do_commit(immediate=True, asynchronous=False)
        if self.incremental:
            for p in partitions:
                self.assignment_dict.pop("%s %d" % (p.topic, p.partition), None)
        else:
            self.assignment_dict = {}
        self.send_assignment("revoked", partitions)

    def on_commit(self, err, partitions):
        """The result of a commit: reported as ``offsets_committed``."""
        if err is not None and err.code() == KafkaError._NO_OFFSET:
            self.dbg("on_commit(): no offsets to commit")
            return
        # what was consumed is reported before what is committed
        self.send_records_consumed(immediate=True)
        offsets = []
        for p in partitions:
            entry = {"topic": p.topic, "partition": p.partition, "offset": p.offset}
            if p.error is not None:
                entry["error"] = str(p.error)
            offsets.append(entry)
        event = {"name": "offsets_committed", "offsets": offsets,
                 "success": err is None, "error": "" if err is None else str(err)}
        if not self.assignment_dict:
            self.dbg("Not sending offsets_committed without an assignment: %s" % event)
            return
        self.send(event)

    def do_commit(self, immediate=False, asynchronous=None):
        """Commit the stored offsets once 1000 more messages have been consumed, or with
        ``immediate`` as soon as there is any; a synchronous commit is reported here, an
        asynchronous one by :meth:`on_commit`."""
        if self.use_auto_commit:
            return
        if self.consumed_msgs_at_last_commit + (0 if immediate else 1000) > self.consumed_msgs:
            return
        if self.consumed_msgs_at_last_commit < self.consumed_msgs:
            self.send_records_consumed(immediate=True)
        async_mode = self.use_async_commit if asynchronous is None else asynchronous
        self.dbg("Committing %d messages (asynchronous=%s)"
                 % (self.consumed_msgs - self.consumed_msgs_at_last_commit, async_mode))
        retries = 3
        while True:
            try:
                offsets = self.consumer.commit(asynchronous=async_mode)
            except KafkaException as e:
                code = e.args[0].code()
                if code == KafkaError._NO_OFFSET:
                    self.dbg("No offsets to commit")
                    break
                if code in _RETRIABLE_COMMIT and retries > 0:
                    self.dbg("Commit failed: %s (%d retries)" % (e, retries))
                    retries -= 1
                    time.sleep(1)  # the coordinator needs time to move, no event marks it
                    continue
                raise
            if not async_mode:
                self.on_commit(None, offsets)
            break
        self.consumed_msgs_at_last_commit = self.consumed_msgs

    def done(self):
        """Whether ``--max-messages`` have been consumed."""
        return 0 <= self.max_msgs <= self.consumed_msgs

    def msg_consume(self, msg):
        """Handle one consumed message (or error event)."""
        if msg.error() is not None:
            self.err("Consume failed: %s" % msg.error())
            return
        if self.verbose:
            self.send({"name": "record_data", "topic": msg.topic(),
                       "partition": msg.partition(), "key": _text(msg.key()),
                       "value": _text(msg.value()), "offset": msg.offset()})
        if self.done():
            return
        a = self.find_assignment(msg.topic(), msg.partition())
        if a is None:
            self.err("Received message on unassigned partition %s [%d] @ %d"
                     % (msg.topic(), msg.partition(), msg.offset()), term=True)
        a.consumed_msgs += 1
        if a.min_offset == -1:
            a.min_offset = msg.offset()
        a.max_offset = max(a.max_offset, msg.offset())
        self.consumed_msgs += 1
        self.consumer.store_offsets(message=msg)
        self.send_records_consumed(immediate=False)
        self.do_commit(immediate=False)


def _parser():
    p = argparse.ArgumentParser(description="Verifiable Python Consumer")
    p.add_argument("--topic", action="append", type=str, required=True)
    p.add_argument("--group-id", dest="conf_group.id", required=True)
    p.add_argument("--group-instance-id", dest="conf_group.instance.id")
    p.add_argument("--group-protocol", dest="conf_group.protocol",
                   help="classic or consumer (KIP-848)")
    p.add_argument("--group-remote-assignor", dest="conf_group.remote.assignor")
    p.add_argument("--session-timeout", type=int, dest="conf_session.timeout.ms")
    p.add_argument("--enable-autocommit", action="store_true", dest="conf_enable.auto.commit",
                   default=False)
    p.add_argument("--max-messages", type=int, dest="max_messages", default=-1)
    p.add_argument("--assignment-strategy", dest="conf_partition.assignment.strategy")
    p.add_argument("--reset-policy", dest="topicconf_auto.offset.reset", default="earliest")
    p.add_argument("--verbose", action="store_true", dest="verbose", default=False,
                   help="report every message (record_data)")
    add_connection_arguments(p, "consumer")
    return p


def main(argv=None):
    """The ``verifiable_consumer`` command of Kafka's system tests (kafkatest): the options of
    Kafka's VerifiableConsumer (``--broker-list``, ``--topic``, ``--group-id``, ...); prints one
    JSON event per line on stdout until ``--max-messages`` have been consumed or SIGTERM.

    Args:
        argv: the command-line arguments (default ``sys.argv[1:]``).
    """
    parser = _parser()
    args = vars(parser.parse_args(argv))
    if args["conf_group.protocol"] not in (None, "classic") and \
            args["conf_session.timeout.ms"] is not None:
        parser.error("--session-timeout is a classic group's setting")
    if args["conf_group.protocol"] in (None, "classic") and \
            args["conf_session.timeout.ms"] is None:
        args["conf_session.timeout.ms"] = 6000
    # offsets are stored explicitly once the message has been handled, never by librdkafka
    # ahead of the application
    conf = client_config(parser, args, {"enable.auto.offset.store": False})

    vc = VerifiableConsumer(conf)
    vc.use_auto_commit = args["conf_enable.auto.commit"]
    vc.max_msgs = args["max_messages"]
    vc.verbose = args["verbose"]
    vc.dbg("Using config: %s" % conf)
    vc.dbg("Subscribing to %s" % args["topic"])
    vc.consumer.subscribe(args["topic"], on_assign=vc.on_assign, on_revoke=vc.on_revoke)
    vc.send({"name": "startup_complete"})

    failed = False
    try:
        while vc.run and not vc.done():
            msg = vc.consumer.poll(1.0)
            if msg is None:
                # a quiet moment: report and commit what was consumed
                vc.send_records_consumed(immediate=True)
                vc.do_commit(immediate=True)
                continue
            vc.msg_consume(msg)
    except KeyboardInterrupt:
        vc.dbg("KeyboardInterrupt")
    except Exception as e:
        vc.err("Terminating on exception: %r" % e)
        failed = True

    vc.dbg("Closing consumer")
    vc.send_records_consumed(immediate=True)
    if not failed:
        try:
            vc.do_commit(immediate=True, asynchronous=False)
            vc.consumer.close()
        except Exception as e:
            vc.err("Exception while closing: %r" % e)
            failed = True
    vc.send({"name": "shutdown_complete", "failed": failed})
    vc.dbg("All done")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
