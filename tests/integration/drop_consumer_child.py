"""One consumer driven into a state, then dropped unclosed, closed, or left to interpreter exit
(tests/integration/test_consumer_drop.py runs this in a process of its own, so that a hang is
a timeout there and not a hung suite).

    python drop_consumer_child.py LIB STATE END BOOTSTRAP TOPIC STRATEGY

STRATEGY: a classic group's partition.assignment.strategy, or "consumer" for a KIP-848 group.

LIB: confluent_binding or confluent_kafka. STATE:
  max-poll        the record polled, then max.poll.interval.ms exceeded: the next poll() raises
                  _MAX_POLL_EXCEEDED (the partitions are lost), and the consumer is left so
  revoke-served   as max-poll, then one poll(0) serves the lost partitions' revoke; the group
                  then hands the member its partition again, an assignment nobody serves
  never-polled    subscribed, never polled: the group's first assignment is left unserved
END: del, close or exit. Prints one JSON line: what the callbacks saw, how long the drop (or
close) took, and the librdkafka threads still running after it (none: nothing left spinning).
"""
import gc
import importlib
import json
import os
import sys
import time

LIB, STATE, END, BOOTSTRAP, TOPIC, STRATEGY = sys.argv[1:7]
kafka = importlib.import_module(LIB)
admin_module = importlib.import_module(LIB + ".admin")

# max.poll.interval.ms as low as librdkafka allows beside the broker's smallest session timeout.
MAX_POLL_MS = 6500
GROUP = "drop-" + TOPIC


def rdkafka_threads():
    """Names of this process's librdkafka threads (rdk:main, rdk:broker..., rdk:app...)."""
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                name = f.read().strip()
        except FileNotFoundError:       # ended meanwhile
            continue
        if name.startswith("rdk:"):
            names.append(name)
    return sorted(names)


def member_assigned(timeout=30.0):
    """Waits until the group is stable with this topic's partition assigned to a member (the
    broker's view: the assignment is handed to the client, served or not)."""
    consumer_threads = len(rdkafka_threads())
    admin = admin_module.AdminClient({"bootstrap.servers": BOOTSTRAP})
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            group = admin.describe_consumer_groups([GROUP])[GROUP].result()
            if str(group.state).endswith("STABLE") and any(
                    tp.topic == TOPIC for m in group.members
                    for tp in m.assignment.topic_partitions):
                return
            time.sleep(0.2)     # the broker's state is the condition; nothing to serve here
        raise AssertionError("the group did not assign %s within %s s" % (TOPIC, timeout))
    finally:
        # The admin client's threads end once it is gone (its last future may let it go
        # from a thread of its own): wait for that, so that what is left later is the
        # consumer's.
        del admin
        while len(rdkafka_threads()) > consumer_threads and time.monotonic() < end:
            gc.collect()
            time.sleep(0.05)


events = []
conf = {"bootstrap.servers": BOOTSTRAP, "group.id": GROUP, "enable.auto.commit": False,
        "auto.offset.reset": "earliest", "max.poll.interval.ms": MAX_POLL_MS}
if STRATEGY == "consumer":      # KIP-848: the broker assigns, and owns the timeouts
    conf["group.protocol"] = "consumer"
else:
    conf.update({"group.protocol": "classic", "partition.assignment.strategy": STRATEGY,
                 "heartbeat.interval.ms": 2000, "session.timeout.ms": 6000})
consumer = kafka.DeserializingConsumer(conf)
consumer.subscribe([TOPIC], on_assign=lambda c, ps: events.append("assign"),
                   on_revoke=lambda c, ps: events.append("revoke"))
out = {}
if STATE == "never-polled":
    member_assigned()
else:
    msg = consumer.poll(30)
    out["record"] = msg.value().decode() if msg is not None else None
    time.sleep(MAX_POLL_MS / 1000 + 1.5)    # the application is busy: no poll() for that long
    try:
        consumer.poll(1)
        out["raised"] = None
    except kafka.KafkaException as exc:
        out["raised"] = exc.args[0].name()
    out["events_after_raise"] = list(events)
    if STATE == "revoke-served":
        consumer.poll(0)
        out["events_after_next_poll"] = list(events)
        member_assigned()
out["events"] = list(events)

if END == "exit":
    out["exit_at"] = time.time()
    print(json.dumps(out), flush=True)
    sys.exit(0)         # the consumer is left to interpreter shutdown
t0 = time.monotonic()
if END == "close":
    consumer.close()
else:
    del consumer
    gc.collect()
out["took"] = time.monotonic() - t0
out["threads_after"] = rdkafka_threads()
print(json.dumps(out), flush=True)
