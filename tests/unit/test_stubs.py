"""confluent_binding/_core.pyi describes the compiled module exactly (mypy's stubtest)."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("mypy")  # its stubtest

from mypy.version import __version__ as mypy_version  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def test_stubs_match_the_compiled_module():
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "confluent_binding._core",
         "--allowlist", os.path.join(HERE, "stubtest-allowlist.txt")],
        capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# mypy 2 needs Python 3.10+. The stubtest of mypy 1 (3.9's) also checks the .py modules behind
# these stubs against themselves, where the constants KafkaError gets at import are unknown.
@pytest.mark.skipif(int(mypy_version.split(".")[0]) < 2, reason="needs mypy 2's stubtest")
def test_asyncio_stubs_match_their_packages():
    """confluent_binding/aio/__init__.pyi and confluent_binding/aiokafka/__init__.pyi."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "confluent_binding.aio",
         "confluent_binding.aiokafka"],
        capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr


USES_THE_ASYNCIO_APIS = '''
import asyncio
from typing import List, Optional

from confluent_binding import Message
from confluent_binding.aio import AIOConsumer, AIOProducer, DeliveryFuture
from confluent_binding.aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, \\
    RecordMetadata


async def main() -> None:
    producer = AIOProducer({"bootstrap.servers": "localhost:9092"})
    fut: DeliveryFuture = await producer.produce("t", b"v", key="k")
    fut.add_done_callback(lambda f: None)
    delivered: Message = await fut
    offset: Optional[int] = delivered.offset()
    left: int = await producer.flush(5)
    consumer = AIOConsumer({"group.id": "g"})
    await consumer.subscribe(["t"])
    async for msg in consumer:
        value: Optional[bytes] = msg.value()
    batch: List[Message] = await consumer.consume(10, 1.0)
    async with AIOKafkaProducer(bootstrap_servers="localhost:9092") as p:
        md: RecordMetadata = await p.send_and_wait("t", b"v")
    c = AIOKafkaConsumer("t", group_id="g")
    rec: ConsumerRecord = await c.getone()
    records = await c.getmany(timeout_ms=100)
    await producer.produce(42)  # ERROR: the topic is a str
'''


def test_mypy_checks_code_using_the_asyncio_apis(tmp_path):
    """The stubs are what mypy sees: correct code passes, a wrong argument type is reported."""
    src = tmp_path / "uses_aio.py"
    src.write_text(USES_THE_ASYNCIO_APIS)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "c"),
         "--strict-optional", "--disallow-untyped-calls",
         # as for a user of the installed package: its own modules are read, not judged (make
         # lint checks them, with the package's settings)
         "--follow-imports=silent", str(src)],
        capture_output=True, text=True, timeout=240)
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    wrong = USES_THE_ASYNCIO_APIS.splitlines().index(
        "    await producer.produce(42)  # ERROR: the topic is a str") + 1
    assert len(errors) == 1, proc.stdout + proc.stderr
    assert errors[0].startswith("%s:%d: error: Argument 1 to \"produce\"" % (src, wrong)), errors
