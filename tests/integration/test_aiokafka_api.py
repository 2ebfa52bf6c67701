"""aiokafka's API (confluent_binding.aiokafka) against the real broker, and aiokafka's own
documentation example run with only its import (and the broker address) changed."""
import asyncio
import os
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

import confluent_binding
from confluent_binding.aiokafka import (
    AIOKafkaConsumer,
    AIOKafkaProducer,
    ConsumerRebalanceListener,
    ConsumerRecord,
    RecordMetadata,
    TopicPartition,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(confluent_binding.__file__)))
pytestmark = [pytest.mark.integration, pytest.mark.asyncio]


async def test_send_getmany_seek_commit_offsets(kafka_cluster, make_topic):
    topic = make_topic(partitions=2)
    bootstrap = kafka_cluster.bootstrap_servers
    async with AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=2, acks="all") as p:
        assert await p.partitions_for(topic) == {0, 1}
        ts = int(time.time() * 1000) - 5000
        md = await p.send_and_wait(topic, b"v0", key=b"k0", partition=0, timestamp_ms=ts,
                                   headers=[("h", b"1")])
        assert isinstance(md, RecordMetadata)
        assert (md.topic, md.partition, md.offset, md.timestamp) == (topic, 0, 0, ts)
        assert md.topic_partition == TopicPartition(topic, 0)
        futs = [await p.send(topic, b"v%d" % i, partition=0) for i in range(1, 10)]
        assert [(await f).offset for f in futs] == list(range(1, 10))
        batch = p.create_batch()
        for i in range(5):
            assert batch.append(key=None, value=b"b%d" % i, timestamp=None) is not None
        assert batch.record_count() == 5
        first = await (await p.send_batch(batch, topic, partition=1))
        assert (first.partition, first.offset) == (1, 0)

    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    group = "aiok-" + uuid.uuid4().hex
    c = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                         auto_offset_reset="earliest", enable_auto_commit=False)
    await c.start()
    c.assign([tp0, tp1])
    assert c.assignment() == {tp0, tp1}
    got = {}
    deadline = time.monotonic() + 60
    while sum(map(len, got.values())) < 15 and time.monotonic() < deadline:
        for tp, recs in (await c.getmany(timeout_ms=500)).items():
            got.setdefault(tp, []).extend(recs)
    assert [r.value for r in got[tp0]] == [b"v%d" % i for i in range(10)]
    assert [r.value for r in got[tp1]] == [b"b%d" % i for i in range(5)]
    r0 = got[tp0][0]
    assert isinstance(r0, ConsumerRecord)
    assert (r0.key, r0.timestamp, r0.headers, r0.serialized_value_size) == (
        b"k0", ts, (("h", b"1"),), 2)
    assert await c.end_offsets([tp0, tp1]) == {tp0: 10, tp1: 5}
    assert await c.beginning_offsets([tp0]) == {tp0: 0}
    assert c.highwater(tp0) == 10
    assert (await c.offsets_for_times({tp0: ts}))[tp0].offset == 0
    await c.commit({tp0: 4})
    assert await c.committed(tp0) == 4
    c.seek(tp0, 7)
    rec = await c.getone(tp0)
    assert (rec.partition, rec.offset) == (0, 7)
    await c.seek_to_beginning(tp0)
    assert (await c.getone(tp0)).offset == 0
    assert await c.position(tp0) == 1
    c.pause(tp1)
    assert c.paused() == {tp1}
    c.resume(tp1)
    await c.stop()


async def test_subscribe_with_listener_and_transaction(kafka_cluster, make_topic):
    topic, out = make_topic(partitions=1), make_topic(partitions=1)
    bootstrap = kafka_cluster.bootstrap_servers
    events = []

    class Listener(ConsumerRebalanceListener):
        async def on_partitions_assigned(self, assigned):
            events.append(("assigned", assigned))

        def on_partitions_revoked(self, revoked):
            events.append(("revoked", revoked))

    async with AIOKafkaProducer(bootstrap_servers=bootstrap) as p:
        for i in range(3):
            await p.send_and_wait(topic, b"%d" % i)
    group = "aiok-" + uuid.uuid4().hex
    c = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                         auto_offset_reset="earliest", enable_auto_commit=False,
                         isolation_level="read_committed")
    c.subscribe([topic], listener=Listener())
    await c.start()
    recs = [await asyncio.wait_for(c.getone(), 60) for _ in range(3)]
    assert [r.value for r in recs] == [b"0", b"1", b"2"]
    assert ("assigned", {TopicPartition(topic, 0)}) in events

    tp = AIOKafkaProducer(bootstrap_servers=bootstrap,
                          transactional_id="aiok-" + uuid.uuid4().hex)
    await tp.start()
    async with tp.transaction():
        for r in recs:
            await tp.send(out, r.value.upper())
        await tp.send_offsets_to_transaction({TopicPartition(topic, 0): recs[-1].offset + 1},
                                             group)
    with pytest.raises(ZeroDivisionError):
        async with tp.transaction():
            await tp.send(out, b"never")
            1 / 0
    await tp.stop()
    assert await c.committed(TopicPartition(topic, 0)) == 3
    await c.stop()
    # as aiokafka: stop() leaves the group without calling the listener
    assert events[-1] == ("assigned", {TopicPartition(topic, 0)})

    reader = AIOKafkaConsumer(out, bootstrap_servers=bootstrap, group_id=None,
                              auto_offset_reset="earliest", isolation_level="read_committed")
    await reader.start()
    data = await asyncio.wait_for(reader.getmany(timeout_ms=30_000, max_records=10), 60)
    assert [r.value for recs in data.values() for r in recs][:3] == [b"0", b"1", b"2"]
    assert not await reader.getmany(timeout_ms=1000)
    await reader.stop()


# aiokafka 0.8's documentation, "Getting started": the producer and consumer examples.
DOCS_EXAMPLE = '''
from aiokafka import AIOKafkaProducer, AIOKafkaConsumer
import asyncio

async def send_one():
    producer = AIOKafkaProducer(bootstrap_servers='localhost:9092')
    # Get cluster layout and initial topic/partition leadership information
    await producer.start()
    try:
        # Produce message
        await producer.send_and_wait("my_topic", b"Super message")
    finally:
        # Wait for all pending messages to be delivered or expire.
        await producer.stop()

asyncio.run(send_one())

async def consume():
    consumer = AIOKafkaConsumer(
        'my_topic', 'my_other_topic',
        bootstrap_servers='localhost:9092',
        group_id="my-group")
    # Get cluster layout and join group `my-group`
    await consumer.start()
    try:
        # Consume messages
        async for msg in consumer:
            print("consumed: ", msg.topic, msg.partition, msg.offset,
                  msg.key, msg.value, msg.timestamp, flush=True)
    finally:
        # Will leave consumer group; perform autocommit if enabled.
        await consumer.stop()

asyncio.run(consume())
'''


async def test_aiokafka_docs_example_runs_with_only_its_import_changed(kafka_cluster,
                                                                       make_topic, tmp_path):
    suffix = uuid.uuid4().hex[:8]
    my_topic, other = make_topic(partitions=1), make_topic(partitions=1)
    source = (DOCS_EXAMPLE
              .replace("from aiokafka import", "from confluent_binding.aiokafka import")
              .replace("localhost:9092", kafka_cluster.bootstrap_servers)
              .replace("'my_topic'", repr(my_topic)).replace('"my_topic"', repr(my_topic))
              .replace("'my_other_topic'", repr(other))
              .replace('"my-group"', repr("my-group-" + suffix))
              .replace("group_id=", "auto_offset_reset='earliest', group_id="))
    script = tmp_path / "example.py"
    script.write_text(textwrap.dedent(source))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        line = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(
            None, proc.stdout.readline), 90)
    finally:
        proc.terminate()
        proc.wait(30)
    assert line, proc.stderr.read().decode()[-3000:]
    assert line.startswith(b"consumed:  " + my_topic.encode() + b" 0 0 None b'Super message'")


async def test_librdkafka_logs_go_through_logging_under_aiokafkas_names(kafka_cluster, capfd):
    """librdkafka's log lines are logging records of aiokafka's loggers (connection lines
    under ``aiokafka.conn``, the others under the client's module logger), with logging's
    levels; nothing is written to stderr."""
    import logging

    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep(logging.DEBUG)
    root = logging.getLogger("aiokafka")
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.DEBUG)
    # a port nothing listens on: librdkafka logs its failed connections
    with socket_nobody_listens_on() as dead:
        try:
            producer = AIOKafkaProducer(bootstrap_servers=dead)
            await producer.start()
            consumer = AIOKafkaConsumer(bootstrap_servers=dead)
            await consumer.start()
            consumer.assign([TopicPartition("t", 0)])
            deadline = time.monotonic() + 30
            while not any(r.name == "aiokafka.conn" for r in records):
                assert time.monotonic() < deadline, "no librdkafka line logged"
                await consumer.getmany(timeout_ms=200)   # serves the consumer's log lines
            await consumer.stop()
            await producer.stop()       # serves the producer's
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
    conn = [r for r in records if r.name == "aiokafka.conn"]
    assert {"aiokafka.conn", "aiokafka.consumer.consumer"} <= {r.name for r in records}
    assert conn and conn[0].levelno == logging.ERROR
    assert "Connect to" in conn[0].getMessage()
    assert {r.name for r in records} <= {"aiokafka.conn", "aiokafka.producer.producer",
                                        "aiokafka.consumer.consumer"}
    assert "Connect to" not in capfd.readouterr().err


class socket_nobody_listens_on:
    """A bootstrap address whose port is bound (so no one else takes it) but not listening."""

    def __enter__(self):
        import socket

        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        return "127.0.0.1:%d" % self._sock.getsockname()[1]

    def __exit__(self, *exc):
        self._sock.close()
