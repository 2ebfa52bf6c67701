"""One consumer-group member in its own process, for the member-killed tests.

Processes each message (a little simulated work, then one line "partition offset" appended
to its journal) before the next poll, and commits synchronously every COMMIT_EVERY messages
and when partitions are revoked: at-least-once. A commit that succeeded appends "c" to the
journal; one refused because the group is rebalancing appends "f" (the messages stay
uncommitted and go with the next commit). Its assignment's changes are journalled too: "+P"
when partition P is assigned, "-P" when it is revoked or lost. SIGTERM makes it close and exit.

Usage: python group_member.py BOOTSTRAP TOPIC GROUP PROTOCOL JOURNAL COMMIT_EVERY
"""
import os
import signal
import sys
import time

import confluent_binding as kafka

E = kafka.KafkaError
REBALANCING = {E._NO_OFFSET, E.ILLEGAL_GENERATION, E.REBALANCE_IN_PROGRESS,
               E.UNKNOWN_MEMBER_ID, E.STALE_MEMBER_EPOCH, E.FENCED_MEMBER_EPOCH}


def main(bootstrap, topic, group, protocol, journal, commit_every):
    conf = {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
            "auto.offset.reset": "earliest", "log_level": 0}
    if protocol == "consumer":
        conf["group.protocol"] = "consumer"
    else:
        conf.update({"partition.assignment.strategy": protocol, "session.timeout.ms": 6000,
                     "heartbeat.interval.ms": 500})
    c = kafka.Consumer(conf)
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(True))
    uncommitted = 0

    def commit_processed(consumer, partitions):
        nonlocal uncommitted
        if uncommitted:
            try:
                consumer.commit(asynchronous=False)
            except kafka.KafkaException as exc:
                if exc.args[0].code() not in REBALANCING:
                    raise
                os.write(fd, b"f\n")
                return
            os.write(fd, b"c\n")
            uncommitted = 0

    def journal(sign, partitions):
        for tp in partitions:
            os.write(fd, b"%s%d\n" % (sign, tp.partition))

    def revoked(consumer, partitions):
        commit_processed(consumer, partitions)
        journal(b"-", partitions)

    c.subscribe([topic], on_assign=lambda consumer, partitions: journal(b"+", partitions),
                on_revoke=revoked, on_lost=lambda consumer, partitions: journal(b"-", partitions))
    while not stop:
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error() is not None:
            continue
        time.sleep(0.0005)   # the processing
        os.write(fd, b"%d %d\n" % (m.partition(), m.offset()))
        uncommitted += 1
        if uncommitted >= commit_every:
            commit_processed(c, None)
    commit_processed(c, None)
    c.close()


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], a[2], a[3], a[4], int(a[5]))
