"""Sequence-numbered messages for fault tests: produce them, count their delivery reports,
read a topic back and check that every number is there once, in order per partition."""
import collections
import time
import uuid

import confluent_binding as kafka


def wait_for(what, cond, timeout, serve=None, state=None):
    """Wait until cond() holds, calling serve() (or sleeping briefly) in between; an
    AssertionError naming what (and what ``state()`` says then) after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what
                                 + ("" if state is None else "; " + state()))
        if serve is not None:
            serve()
        else:
            time.sleep(0.05)


class Reports:
    """Delivery reports of sequence-numbered messages (the value is the number)."""

    def __init__(self):
        self.ok = 0
        self.failed = []

    def __call__(self, err, msg):
        if err is None:
            self.ok += 1
        else:
            self.failed.append((int(msg.value()), err))


def produce_range(p, topic, start, stop, partitions):
    """Produce the numbers start..stop-1, number i to partition i % partitions, waiting in
    poll() whenever the producer's queue is full."""
    for i in range(start, stop):
        while True:
            try:
                p.produce(topic, b"%d" % i, partition=i % partitions)
                break
            except BufferError:
                p.poll(0.1)
        if i % 10_000 == 0:
            p.poll(0)


def read_back(cluster, topic, partitions, timeout=120):
    """{partition: [sequence numbers in log order]} of everything in the topic."""
    c = kafka.Consumer(cluster.client_config(**{"group.id": uuid.uuid4().hex,
                                                "enable.auto.commit": False}))
    ends = {p: c.get_watermark_offsets(kafka.TopicPartition(topic, p), timeout=30)[1]
            for p in range(partitions)}
    c.assign([kafka.TopicPartition(topic, p, kafka.OFFSET_BEGINNING) for p in range(partitions)])
    seen = collections.defaultdict(list)
    done = {p for p, end in ends.items() if end == 0}
    deadline = time.monotonic() + timeout
    while len(done) < partitions:
        assert time.monotonic() < deadline, "read-back stalled at %r of %r" % (
            {p: len(v) for p, v in seen.items()}, ends)
        for m in c.consume(10_000, 1.0):
            assert m.error() is None, m.error()
            seen[m.partition()].append(int(m.value()))
            if m.offset() + 1 >= ends[m.partition()]:
                done.add(m.partition())
    c.close()
    return seen


def missing_and_duplicates(seen, n, failed=()):
    """(numbers below n neither in the log nor reported failed, copies beyond the first)."""
    present = collections.Counter(v for values in seen.values() for v in values)
    failed = set(failed)
    missing = [i for i in range(n) if i not in present and i not in failed]
    return missing, sum(c - 1 for c in present.values())


def rewinds(values, expected):
    """How many times a consumer went back in a partition: ``values`` (what it consumed, in
    order) must be ``expected`` read in order, except that after a rebalance it may start
    again from an earlier number (its last commit) and read on from there. Each such restart
    is a rewind; anything else (a gap, a number out of order, a foreign number, one missing
    at the end) raises AssertionError."""
    where = {v: i for i, v in enumerate(expected)}
    count, nxt = 0, 0            # nxt: index in expected of the next number due
    for k, v in enumerate(values):
        i = where.get(v)
        assert i is not None, "consumed %r, which was never produced (at %d)" % (v, k)
        if i != nxt:
            assert i < nxt, "gap: consumed %r where %r was due (at %d)" % (v, expected[nxt], k)
            count += 1           # a restart from an earlier number
        nxt = i + 1
    assert nxt == len(expected), "ended at %r of %r" % (nxt, len(expected))
    return count
