"""A FastStream application written for FastStream's Kafka brokers, run unchanged by
test_faststream.py in a child process: ``faststream.confluent`` (on ``confluent_kafka``) or
``faststream.kafka`` (on ``aiokafka``). Run as ``python -m confluent_binding run [--as aiokafka]
app.py ...``, that library is confluent_binding.

    python app.py FLAVOR BOOTSTRAP SPEC

FLAVOR is ``confluent`` or ``kafka``; SPEC is a JSON object naming the topics and consumer groups
(see test_faststream.py) and the ``phase``:

- ``first``: five subscribers. ``single`` answers each record through a publisher (the value
  reversed, the key kept, headers added) and records its partition assignments (an
  ``on_assign`` callback, an aiokafka ``ConsumerRebalanceListener``); ``batch`` receives
  batches and publishes each one again as a batch; ``manual`` (AckPolicy.MANUAL) acks, nacks
  (once), rejects or holds (no ack) each record as its value says; ``nack_on_error``
  (AckPolicy.NACK_ON_ERROR) raises once on ``boom``; ``ack`` (AckPolicy.ACK) raises on every
  ``boom``.
- ``resume``: the ``manual`` subscriber again, in the same group, acking what it gets.

Once every subscriber has seen as many records as SPEC expects (deliveries; the records of
batches), the app prints one line, RESULT and a JSON object (what each subscriber received, the
assignments, which client library ran), then waits for a line on its standard input before it
stops its broker and exits, so that the test can first read the committed offsets while the
consumers are still members of their groups.
"""

import asyncio
import importlib
import json
import sys

from faststream import AckPolicy

# the prefix of the result line (FastStream logs to standard output too)
RESULT = "RESULT "


class Boom(Exception):
    """The error the error-policy subscribers raise."""


def field(raw, name):
    """A record's field on either library: confluent_kafka's Message has methods
    (``msg.key()``), aiokafka's ConsumerRecord has attributes (``rec.key``)."""
    value = getattr(raw, name)
    return value() if callable(value) else value


def text(data):
    return data.hex() if isinstance(data, bytes) else data


async def main(flavor, bootstrap, spec):
    broker_module = importlib.import_module("faststream." + flavor)
    library = importlib.import_module("confluent_kafka" if flavor == "confluent" else "aiokafka")
    KafkaResponse = broker_module.KafkaResponse
    broker = broker_module.KafkaBroker(bootstrap)
    expected = spec["expect"]
    seen = {name: [] for name in expected}
    done = asyncio.Event()

    def size(entries):
        """Records seen (a batch counts its records)."""
        return sum(len(e["offsets"]) if "offsets" in e else 1 for e in entries)

    def record(name, entry):
        seen[name].append(entry)
        if all(size(seen[n]) >= count for n, count in expected.items()):
            done.set()

    def delivery(msg, **extra):
        raw = msg.raw_message
        return {"offset": field(raw, "offset"), "value": text(msg.body), **extra}

    group = spec["groups"]
    topic = spec["topics"]
    common = {"auto_offset_reset": "earliest"}

    # the single-record subscriber's rebalance callback: confluent_kafka's on_assign, aiokafka's
    # ConsumerRebalanceListener
    assigned = []
    if flavor == "confluent":
        rebalance = {"on_assign": lambda consumer, partitions: assigned.extend(
            [tp.topic, tp.partition] for tp in partitions)}
    else:
        class Listener(library.ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                pass

            def on_partitions_assigned(self, partitions):
                assigned.extend([tp.topic, tp.partition] for tp in partitions)

        rebalance = {"listener": Listener()}

    if spec["phase"] == "first":
        @broker.subscriber(topic["single"], group_id=group["single"], **rebalance, **common)
        @broker.publisher(topic["single_out"])
        async def single(msg: broker_module.KafkaMessage):
            raw = msg.raw_message
            key = field(raw, "key")
            record("single", delivery(msg, key=text(key), partition=field(raw, "partition"),
                                      headers={k: v for k, v in msg.headers.items()
                                               if k.startswith("app-")}))
            return KafkaResponse(bytes(msg.body)[::-1], key=key,
                                 headers={"app-origin": str(field(raw, "offset")),
                                          "app-note": msg.headers.get("app-note", "")})

        @broker.subscriber(topic["batch"], group_id=group["batch"], batch=True,
                           max_records=spec["max_records"], **common)
        async def batch(msg: broker_module.KafkaMessage):
            records = msg.raw_message
            record("batch", {"offsets": [field(r, "offset") for r in records],
                             "values": [text(v) for v in msg.body],
                             "keys": [text(field(r, "key")) for r in records],
                             "headers": [{k: v for k, v in h.items() if k.startswith("app-")}
                                         for h in msg.batch_headers]})
            await broker.publish_batch(*[bytes(v).upper() for v in msg.body],
                                       topic=topic["batch_out"],
                                       headers={"app-batch": str(field(records[0], "offset"))})

        nacked = set()

        async def landed(msg):
            """Waits until the manual group's commit of this record is visible. FastStream's
            ack() commits asynchronously what the consumer has stored when librdkafka's thread
            serves the commit, so a record fetched before that (the held one after ack-3) would
            be committed with it, on either library: the app waits before fetching the next."""
            if flavor != "confluent":
                return      # aiokafka's ack commits the record's own offset
            raw = msg.raw_message
            want = field(raw, "offset") + 1
            tp = library.TopicPartition(field(raw, "topic"), field(raw, "partition"))
            c = library.Consumer({"bootstrap.servers": bootstrap, "group.id": group["manual"]})
            loop = asyncio.get_running_loop()
            try:
                for _ in range(300):
                    got = await loop.run_in_executor(
                        None, lambda: c.committed([tp], timeout=10)[0].offset)
                    if got >= want:
                        return
                    await asyncio.sleep(0.1)    # the next look at the committed offset
                raise RuntimeError("the commit of offset %d never became visible" % want)
            finally:
                c.close()

        @broker.subscriber(topic["manual"], group_id=group["manual"],
                           ack_policy=AckPolicy.MANUAL, **common)
        async def manual(msg: broker_module.KafkaMessage):
            value = bytes(msg.body)
            offset = field(msg.raw_message, "offset")
            if value.startswith(b"nack") and offset not in nacked:
                nacked.add(offset)
                action = "nack"
                await msg.nack()
            elif value.startswith(b"reject"):
                action = "reject"
                await msg.reject()
                await landed(msg)
            elif value.startswith(b"hold"):
                action = "hold"
            else:
                action = "ack"
                await msg.ack()
                await landed(msg)
            record("manual", delivery(msg, action=action))

        raised = set()

        @broker.subscriber(topic["nack_on_error"], group_id=group["nack_on_error"],
                           ack_policy=AckPolicy.NACK_ON_ERROR, **common)
        async def nack_on_error(msg: broker_module.KafkaMessage):
            offset = field(msg.raw_message, "offset")
            boom = bytes(msg.body).startswith(b"boom") and offset not in raised
            record("nack_on_error", delivery(msg, raised=boom))
            if boom:
                raised.add(offset)
                raise Boom(offset)

        @broker.subscriber(topic["ack"], group_id=group["ack"], ack_policy=AckPolicy.ACK,
                           **common)
        async def ack_anyway(msg: broker_module.KafkaMessage):
            boom = bytes(msg.body).startswith(b"boom")
            record("ack", delivery(msg, raised=boom))
            if boom:
                raise Boom(field(msg.raw_message, "offset"))

    else:
        @broker.subscriber(topic["manual"], group_id=group["manual"],
                           ack_policy=AckPolicy.MANUAL, **common)
        async def resumed(msg: broker_module.KafkaMessage):
            await msg.ack()
            record("manual", delivery(msg, action="ack"))

    async with broker:
        await broker.start()
        await asyncio.wait_for(done.wait(), spec["timeout"])
        print(RESULT + json.dumps({"library": library.__name__, "seen": seen,
                                   "assigned": assigned}), flush=True)
        # the test reads the committed offsets, then lets the app stop
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))
