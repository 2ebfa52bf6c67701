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
  reassigned      polled until assigned, then unsubscribe() and at once assign() of one of the
                  partitions being revoked (eager groups: librdkafka is still stopping them)
  revoke-deferred polled until assigned; a second member joins; the revoke is served by a
                  callback that puts the unassign off (Consumer._defer_assignment(), what the
                  asyncio consumer does while a coroutine callback runs) and it is never made
                  (confluent_binding only)
  face-revoke-deferred   the same through the aiokafka face (confluent_binding only; END close
                  is stop(), del drops the face unstopped): see face_revoke_deferred()
END: del, close or exit. Prints one JSON line: what the callbacks saw, how long the drop (or
close) took, and the librdkafka threads still running after it (none: nothing left spinning).
"""
import asyncio
import gc
import importlib
import json
import os
import sys
import time
import warnings

LIB, STATE, END, BOOTSTRAP, TOPIC, STRATEGY = sys.argv[1:7]
kafka = importlib.import_module(LIB)
admin_module = importlib.import_module(LIB + ".admin")

# max.poll.interval.ms as low as librdkafka allows beside the broker's smallest session timeout.
MAX_POLL_MS = 6500
GROUP = "drop-" + TOPIC
COORDINATOR_NOT_READY = (kafka.KafkaError.NOT_COORDINATOR,
                         kafka.KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
                         kafka.KafkaError.COORDINATOR_NOT_AVAILABLE)


def rdkafka_threads():
    """Names of this process's librdkafka threads (rdk:main, rdk:broker..., rdk:app...)."""
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                name = f.read().strip()
        except (FileNotFoundError, ProcessLookupError):     # ended meanwhile
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
            try:
                group = admin.describe_consumer_groups([GROUP])[GROUP].result()
            except kafka.KafkaException as exc:
                # the group's coordinator moving or loading: not yet
                if exc.args[0].code() not in COORDINATOR_NOT_READY:
                    raise
                time.sleep(0.2)
                continue
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


async def face_revoke_deferred():
    """Through the aiokafka face: a rebalance listener whose on_partitions_revoked is still
    running (the revoke's unassign waits for it) when the get* call serving it is given up
    on; then stop(), or the face dropped unstopped and collected. Both used to wait for ever
    for that unassign; the second inside gc.collect()."""
    from confluent_binding.aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

    revoking, never = asyncio.Event(), asyncio.Event()

    class Slow(ConsumerRebalanceListener):
        async def on_partitions_revoked(self, revoked):
            if revoked:
                revoking.set()
                await never.wait()

        async def on_partitions_assigned(self, assigned):
            pass

    face = AIOKafkaConsumer(
        bootstrap_servers=BOOTSTRAP, group_id=GROUP, auto_offset_reset="earliest",
        enable_auto_commit=False,
        extra={"partition.assignment.strategy": STRATEGY, "heartbeat.interval.ms": 500})
    await face.start()
    face.subscribe([TOPIC], listener=Slow())
    end = time.monotonic() + 30
    while not face.assignment():
        assert time.monotonic() < end, "not assigned"
        await face.getmany(timeout_ms=200)
    other = kafka.Consumer({"bootstrap.servers": BOOTSTRAP, "group.id": GROUP,
                            "partition.assignment.strategy": STRATEGY})
    other.subscribe([TOPIC])
    while not revoking.is_set():
        assert time.monotonic() < end, "no revoke"
        try:    # waits for the listener: given up on
            await asyncio.wait_for(face.getmany(timeout_ms=200), 1)
        except asyncio.TimeoutError:
            pass
    # From CPython 3.12 the task keeps the given-up call's CancelledError, and with it the
    # call's frames (and the face), until its step ends: one step on, only `face` holds it
    await asyncio.sleep(0)
    t0 = time.monotonic()
    if END == "close":
        await face.stop()
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            del face
            gc.collect()
    out = {"events": ["revoke"], "took": time.monotonic() - t0}
    other.close()
    del other
    out["threads_after"] = rdkafka_threads()
    return out


if STATE == "face-revoke-deferred":
    print(json.dumps(asyncio.run(face_revoke_deferred())), flush=True)
    sys.exit(0)


def on_revoke(c, ps):
    events.append("revoke")
    if STATE == "revoke-deferred":
        c._defer_assignment()


def poll_until(event, timeout=30.0):
    end = time.monotonic() + timeout
    while event not in events or (event == "assign" and not consumer.assignment()):
        if time.monotonic() > end:
            raise AssertionError("no %s within %s s: %s" % (event, timeout, events))
        consumer.poll(0.2)


consumer = kafka.DeserializingConsumer(conf)
consumer.subscribe([TOPIC], on_assign=lambda c, ps: events.append("assign"), on_revoke=on_revoke)
out = {}
other = None
if STATE == "never-polled":
    member_assigned()
elif STATE == "reassigned":
    poll_until("assign")
    consumer.unsubscribe()
    consumer.assign([kafka.TopicPartition(TOPIC, 0)])
    out["assignment"] = [tp.partition for tp in consumer.assignment()]
elif STATE == "revoke-deferred":
    poll_until("assign")
    other = kafka.Consumer(dict(conf))     # never polled: it only has to join
    other.subscribe([TOPIC])
    poll_until("revoke")
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
    assert other is None
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
if other is not None:
    other.close()
    del other
out["threads_after"] = rdkafka_threads()
print(json.dumps(out), flush=True)
